//! Files generated from the command-line definition itself, so they never drift from it:
//! shell completion scripts (clap_complete) and man pages (clap_mangen). The caller (the
//! command line) passes its own definition, `Cli::command()`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The command tree as clap builds it (display names like `olmlint-lint` are set by `build`).
fn built(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Write the completion script of `cmd` for `shell`.
pub fn completions(mut cmd: clap::Command, shell: clap_complete::Shell, out: &mut dyn Write) {
    clap_complete::generate(shell, &mut cmd, "olmlint", out);
}

/// Write the top-level man page of `cmd`, olmlint(1).
pub fn man_page(cmd: clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    clap_mangen::Man::new(built(cmd)).render(out)
}

/// Write olmlint.1 and one page per visible subcommand of `cmd` (olmlint-lint.1, ...) into `dir`, each
/// atomically; returns the files written, the top-level page first.
pub fn man_pages_to(cmd: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut pages = Vec::new();
    collect(built(cmd), &mut pages);
    let mut written = Vec::with_capacity(pages.len());
    for cmd in pages {
        let name = cmd
            .get_display_name()
            .unwrap_or_else(|| cmd.get_name())
            .to_string();
        let mut text = Vec::new();
        // Every page's footer names the program and its version (subcommands have none).
        clap_mangen::Man::new(cmd)
            .source(concat!("olmlint ", env!("CARGO_PKG_VERSION")))
            .render(&mut text)?;
        let path = dir.join(format!("{name}.1"));
        olmlint_load::io::write_atomic(&path, &text)?;
        written.push(path);
    }
    Ok(written)
}

fn collect(cmd: clap::Command, out: &mut Vec<clap::Command>) {
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    out.push(cmd);
    for s in subs {
        collect(s, out);
    }
}
