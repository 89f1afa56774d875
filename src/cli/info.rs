//! The commands that print what olmlint knows: `rules`, `explain`, `schema`, `completions`
//! and `man`.

use super::Cli;
use std::path::Path;

/// `olmlint rules [--json]`: every rule with its default severity.
pub(super) fn rules(json: bool) -> i32 {
    let rules = olmlint_base::rules::all();
    if json {
        let v: Vec<_> = rules
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "name": r.name, "severity": r.severity.as_str(), "enabled": r.enabled, "summary": r.summary, "url": r.url()}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        for r in rules {
            let off = if r.enabled { "" } else { " (off by default)" };
            println!(
                "{}  {:<32} {:<8} {}{off}",
                r.id,
                r.name,
                r.severity.as_str(),
                r.summary
            );
        }
    }
    0
}

/// `olmlint explain RULE`: the rule's page, and where the book has it.
pub(super) fn explain(rule: &str) -> i32 {
    match olmlint_base::rules::get(rule) {
        Some(r) => {
            println!("{}", r.explain_text());
            0
        }
        None => {
            eprintln!("olmlint: unknown rule `{rule}`; `olmlint rules` lists them");
            2
        }
    }
}

/// `olmlint schema [NAME]`: a JSON Schema for editors, or the list of them.
pub(super) fn schema(name: Option<&str>) -> i32 {
    let Some(name) = name else {
        for (name, _) in olmlint_model::schema::SCHEMAS {
            println!("{name}");
        }
        println!("olmlint-config");
        return 0;
    };
    match olmlint_model::schema::text(name) {
        Some(text) => {
            print!("{text}");
            0
        }
        None => {
            eprintln!("olmlint: unknown schema `{name}`; `olmlint schema` lists them");
            2
        }
    }
}

/// `olmlint completions SHELL`.
pub(super) fn completions(shell: clap_complete::Shell) -> i32 {
    let mut out = std::io::stdout().lock();
    crate::generate::completions(<Cli as clap::CommandFactory>::command(), shell, &mut out);
    0
}

/// `olmlint man [--dir DIR]`: the man page on stdout, or one page per command into DIR.
pub(super) fn man(dir: Option<&Path>) -> i32 {
    let command = <Cli as clap::CommandFactory>::command();
    let Some(dir) = dir else {
        let mut out = std::io::stdout().lock();
        return match crate::generate::man_page(command, &mut out) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("olmlint: cannot write the man page: {e}");
                2
            }
        };
    };
    match crate::generate::man_pages_to(command, dir) {
        Ok(files) => {
            for f in files {
                eprintln!("wrote {}", f.display());
            }
            0
        }
        Err(e) => {
            eprintln!(
                "olmlint: cannot write the man pages into {}: {e}",
                dir.display()
            );
            2
        }
    }
}
