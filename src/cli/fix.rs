//! `olmlint lint --fix` and `--diff`: fix passes in place, or the unified diff of them.

use std::io::Write;
use std::path::PathBuf;

use super::{plural, release, say};

/// How many times `--fix` re-lints and fixes again (a fix can uncover another).
pub(super) const MAX_FIX_PASSES: usize = 8;

/// `--fix`: lint, write the fixes, and lint again until nothing is left to fix; returns the
/// last lint's outcome (what remains). Prints each applied fix on stderr.
pub(super) fn fix_in_place(
    opts: &crate::lint::Options,
    mode: olmlint_load::fix::Mode,
    quiet: bool,
) -> Result<crate::lint::Outcome, i32> {
    let mut fixed = 0usize;
    let mut touched = std::collections::BTreeSet::new();
    for pass in 0.. {
        let outcome = crate::lint::run(opts).map_err(|e| {
            say(&e);
            2
        })?;
        let changes = olmlint_load::fix::plan(&outcome.diags, &outcome.files, mode);
        if changes.is_empty() || pass == MAX_FIX_PASSES {
            if !quiet && fixed > 0 {
                eprintln!(
                    "olmlint: fixed {fixed} finding{} in {} file{}",
                    plural(fixed),
                    touched.len(),
                    plural(touched.len())
                );
            }
            return Ok(outcome);
        }
        let problems = olmlint_load::fix::write(&changes, &outcome.roots);
        for c in &changes {
            if problems
                .iter()
                .any(|p| p.starts_with(&format!("{}:", c.display)))
            {
                continue;
            }
            touched.insert(c.display.clone());
            for a in &c.applied {
                fixed += 1;
                if !quiet {
                    eprintln!(
                        "{}",
                        olmlint_report::terminal_safe(
                            &format!(
                                "fixed {}:{}:{}: {} {}",
                                c.display, a.line, a.column, a.rule, a.description
                            ),
                            false
                        )
                    );
                }
            }
        }
        for p in &problems {
            say(p);
        }
        if !problems.is_empty() {
            return Err(2);
        }
    }
    Err(2)
}

/// `--diff`: print what `--fix` would change as a unified diff; exit 1 when it would change
/// something. Shows one pass: fixes uncovered by other fixes appear after `--fix`.
pub(super) fn show_diff(
    opts: &crate::lint::Options,
    mode: olmlint_load::fix::Mode,
    quiet: bool,
    apply_with: &str,
) -> i32 {
    let outcome = match crate::lint::run(opts) {
        Ok(o) => o,
        Err(e) => {
            say(&e);
            return 2;
        }
    };
    let changes = olmlint_load::fix::plan(&outcome.diags, &outcome.files, mode);
    let mut out = std::io::stdout().lock();
    for c in &changes {
        let _ = out.write_all(olmlint_load::fix::unified_diff(c).as_bytes());
    }
    let n: usize = changes.iter().map(|c| c.applied.len()).sum();
    if !quiet {
        let apply = if n > 0 {
            format!(" (apply with `{apply_with}`)")
        } else {
            String::new()
        };
        eprintln!(
            "olmlint: {n} fixable finding{} in {} file{}{}",
            plural(n),
            changes.len(),
            plural(changes.len()),
            olmlint_report::terminal_safe(&apply, false)
        );
    }
    release(outcome);
    i32::from(!changes.is_empty())
}

/// The command that applies the fixes to what the user linted: `olmlint lint --fix catalog/`
/// (paths as given, quoted for a POSIX shell when they need it).
pub(super) fn fix_command(paths: &[PathBuf], unsafe_fixes: bool) -> String {
    let mut cmd = String::from("olmlint lint --fix");
    if unsafe_fixes {
        cmd.push_str(" --unsafe-fixes");
    }
    for p in paths {
        let p = p.to_string_lossy();
        let plain = !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./:@+=,".contains(&b));
        cmd.push(' ');
        if plain {
            cmd.push_str(&p);
        } else {
            cmd.push('\'');
            cmd.push_str(&p.replace('\'', "'\\''"));
            cmd.push('\'');
        }
    }
    cmd
}
