//! `--format github`: workflow-command annotations. GitHub shows at most 10 errors and 10
//! warnings (and 10 notices) per step, so the most severe come first and one notice says how
//! many were left out; the full list goes to `$GITHUB_STEP_SUMMARY` as Markdown.

use super::{resolve, Report};
use olmlint_base::diag::Severity;
use std::fmt::Write as _;

pub const PER_LEVEL_LIMIT: usize = 10;

pub fn escape_data(s: &str) -> String {
    // Control characters (ESC sequences in the log viewer) are shown, not sent.
    s.split('\r')
        .map(|part| {
            super::terminal_safe(part, false)
                .replace('%', "%25")
                .replace('\n', "%0A")
        })
        .collect::<Vec<_>>()
        .join("%0D")
}

pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(r: &Report<'_>) -> String {
    let mut out = String::new();
    let mut order: Vec<usize> = (0..r.diags.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(r.diags.get(i).map(|d| d.severity)));
    let mut shown = [0usize; 3];
    let mut omitted = 0usize;
    for i in order {
        let Some(d) = r.diags.get(i) else { continue };
        let (cmd, slot) = match d.severity {
            Severity::Error => ("error", 0),
            Severity::Warning => ("warning", 1),
            Severity::Info => ("notice", 2),
        };
        let count = shown.get_mut(slot).map_or(0, |c| {
            *c += 1;
            *c
        });
        if count > PER_LEVEL_LIMIT {
            omitted += 1;
            continue;
        }
        let mut props = Vec::new();
        if let Some(l) = resolve(r.files, d.location) {
            props.push(format!("file={}", escape_property(&l.file)));
            props.push(format!("line={}", l.line));
            props.push(format!("endLine={}", l.end_line));
            if l.line == l.end_line {
                props.push(format!("col={}", l.column));
                props.push(format!("endColumn={}", l.end_column));
            }
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("{} {}", d.rule, d.rule_name()))
        ));
        let mut msg = d.message.clone();
        if let Some(h) = &d.help {
            msg.push_str("\n\nhelp: ");
            msg.push_str(h);
        }
        let _ = writeln!(out, "::{cmd} {}::{}", props.join(","), escape_data(&msg));
    }
    if omitted > 0 {
        let _ = writeln!(
            out,
            "::notice title=olmlint::{}",
            escape_data(&format!(
                "{omitted} more finding(s) are not shown as annotations (GitHub shows 10 per level per step); see the job summary or the SARIF report for all {}.",
                r.diags.len()
            ))
        );
    }
    out
}

/// GitHub refuses a step summary over 1 MiB (1 048 576 bytes), and then shows none of it.
/// Everything olmlint appends to one shares this budget: the findings table (`lint -f github`)
/// and the graph section (`graph -f markdown`, which the Action appends after it), each given
/// what the file does not already hold ([`step_summary_room`]); the Action's own lines keep
/// the remaining 48 KiB.
pub const STEP_SUMMARY_BUDGET: usize = 1_000_000;

/// What may still be appended to `$GITHUB_STEP_SUMMARY`: [`STEP_SUMMARY_BUDGET`] less the
/// size of the file (the whole budget when the variable is not set).
pub fn step_summary_room() -> usize {
    let used = std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len());
    STEP_SUMMARY_BUDGET.saturating_sub(usize::try_from(used).unwrap_or(usize::MAX))
}

/// Room kept for the closing "N more finding(s)" note.
const NOTE_ROOM: usize = 200;
/// Room the findings table leaves for what the Action appends after it: at least the graph
/// section's heading, legend and note.
const AFTER_ROOM: usize = 4096;

/// Markdown for `$GITHUB_STEP_SUMMARY`, within what the file can still take
/// ([`step_summary_room`]).
pub fn step_summary(r: &Report<'_>) -> String {
    step_summary_within(r, step_summary_room())
}

/// Markdown for `$GITHUB_STEP_SUMMARY`: a headline and a table of every finding, as many as
/// fit in `room` bytes less [`AFTER_ROOM`] (nothing when not even the headline fits).
/// Catalog text is escaped for where it lands: the location is code, the message text.
pub fn step_summary_within(r: &Report<'_>, room: usize) -> String {
    use olmlint_base::escape::{md_code, md_text};
    let room = room.saturating_sub(AFTER_ROOM);
    let s = &r.summary;
    let mut out = format!(
        "## olmlint\n\n{} error(s), {} warning(s), {} info(s) in {} file(s), {} package(s), {} bundle(s){}.\n\n",
        s.errors, s.warnings, s.infos, s.files, s.packages, s.bundles, s.left_out()
    );
    if out.len() + NOTE_ROOM > room {
        return String::new();
    }
    if r.diags.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    out.push_str("| Severity | Rule | Location | Message |\n|---|---|---|---|\n");
    for (i, d) in r.diags.iter().enumerate() {
        let loc = resolve(r.files, d.location).map_or(String::new(), |l| {
            md_code(&format!("{}:{}:{}", l.file, l.line, l.column))
        });
        let line = format!(
            "| {} | [{}]({}) {} | {loc} | {} |\n",
            d.severity.as_str(),
            d.rule,
            olmlint_base::rules::get(d.rule).map_or(String::new(), |r| r.url()),
            d.rule_name(),
            md_text(&d.message)
        );
        if out.len() + line.len() + NOTE_ROOM > room {
            let _ = writeln!(
                out,
                "\n({} more finding(s) are not listed: GitHub limits a step summary to 1 MiB; the SARIF or JSON report has them all.)",
                r.diags.len() - i
            );
            break;
        }
        out.push_str(&line);
    }
    out
}
