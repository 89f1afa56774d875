//! What every whole-pipeline target shares: a temporary directory holding the catalog (or
//! repository) under test and, beside it, an `outside/` directory with a canary file that
//! planted links point at; the input split into entries; and the oracles every output must
//! pass whatever the input (no canary, nothing written outside, markup and logs inert).

use std::path::{Path, PathBuf};

/// The text of the file outside the catalog: no report may ever quote it.
pub const CANARY: &str = "CANARY-outside-the-catalog-7f3a";

/// Targets a planted symbolic link may take: out of the catalog (the canary), inside it, to
/// itself, to a device, dangling.
pub const LINK_TARGETS: &[&str] = &[
    "../outside/secret.txt",
    "@outside/secret.txt",
    "@outside",
    "../outside",
    "catalog.yaml",
    ".",
    "..",
    "foo",
    "/dev/zero",
    "missing",
];

pub struct Sandbox {
    /// Holds the temporary directory for as long as the input runs.
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
}

impl Sandbox {
    /// A fresh sandbox: `<tmp>/<name>/` for the catalog or repository, `<tmp>/outside/` with
    /// the canary.
    pub fn new(name: &str) -> Option<Sandbox> {
        let dir = tempfile::tempdir().ok()?;
        let root = dir.path().join(name);
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).ok()?;
        std::fs::create_dir_all(&outside).ok()?;
        std::fs::write(outside.join("secret.txt"), format!("schema: {CANARY}\n")).ok()?;
        Some(Sandbox {
            _dir: dir,
            root,
            outside,
        })
    }

    /// One entry under `root`: `data[0]` picks a link (0) or a file, `data[1]` the name among
    /// `names`, the rest is the file's content (or picks the link's target).
    pub fn entry(&self, names: &[&str], data: &[u8]) {
        let (Some(&kind), Some(&name)) = (data.first(), data.get(1)) else {
            return;
        };
        let path = self.root.join(names[name as usize % names.len()]);
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let body = data.get(2..).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        if kind % 4 == 0 {
            let target =
                LINK_TARGETS[body.first().copied().unwrap_or(0) as usize % LINK_TARGETS.len()];
            // `@`: the absolute path of the directory outside, wherever the link is.
            let target = match target.strip_prefix('@') {
                Some(rest) => self.outside.with_file_name(rest),
                None => PathBuf::from(target),
            };
            let _ = std::os::unix::fs::symlink(target, &path);
        } else {
            let _ = std::fs::write(&path, body);
        }
    }

    /// Entries separated by the byte 0xff, at most `max` of them.
    pub fn entries(&self, names: &[&str], data: &[u8], max: usize) {
        for part in data.split(|&b| b == 0xff).take(max) {
            self.entry(names, part);
        }
    }

    /// A path beside the catalog and outside it, for the outputs the run writes.
    pub fn scratch(&self, name: &str) -> PathBuf {
        self.root.with_file_name(name)
    }

    /// Nothing but the canary is outside the catalog, and the canary is unchanged.
    pub fn assert_outside_untouched(&self) {
        let entries: Vec<_> = std::fs::read_dir(&self.outside)
            .map(|r| r.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(entries.len(), 1, "a file appeared outside the catalog");
        let text = std::fs::read_to_string(self.outside.join("secret.txt")).unwrap_or_default();
        assert_eq!(
            text,
            format!("schema: {CANARY}\n"),
            "the canary was overwritten"
        );
    }
}

/// Bidirectional-text controls (Trojan Source): no output may carry them raw.
const BIDI: &[char] = &[
    '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}',
];

/// How an output is read, which decides what must be inert in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Printed to a terminal or a CI log (human, concise, github).
    Log,
    /// JSON (JSON, SARIF, graph JSON): must parse.
    Json,
    /// XML or HTML: only olmlint's own elements, no character XML 1.0 forbids.
    Markup,
    /// Mermaid text: no directive, no click callback.
    Mermaid,
    /// Markdown for the job summary: no link, image or raw HTML.
    Markdown,
    /// The lint step summary: Markdown whose only links are the rules' pages.
    StepSummary,
    /// `--format github`: olmlint's own workflow commands, one per line, nothing else.
    Github,
    /// Graphviz DOT.
    Dot,
}

/// Elements olmlint's own markup uses (HTML report, SVG drawings, JUnit).
const ELEMENTS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "script",
    "body",
    "header",
    "main",
    "h1",
    "h2",
    "h3",
    "p",
    "small",
    "div",
    "span",
    "label",
    "input",
    "select",
    "option",
    "table",
    "colgroup",
    "col",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "pre",
    "mark",
    "br",
    "svg",
    "g",
    "defs",
    "marker",
    "path",
    "rect",
    "text",
    "tspan",
    "testsuites",
    "testsuite",
    "testcase",
    "failure",
    "properties",
    "property",
    "system-out",
    "system-err",
    "skipped",
    "error",
    "a",
    "ul",
    "li",
    "code",
    "details",
    "summary",
    "section",
    "footer",
    "nav",
    "b",
    "strong",
    "em",
    "abbr",
];

/// Every check an output must pass, whatever the catalog held.
pub fn check_output(what: &str, kind: Kind, text: &str) {
    assert!(
        !text.contains(CANARY),
        "{what} quotes the file outside the catalog"
    );
    assert!(
        !text.contains(BIDI),
        "{what} carries a raw bidirectional-text control"
    );
    match kind {
        Kind::Log => {
            for line in text.lines() {
                assert!(
                    !line.trim_start().starts_with("::"),
                    "{what}: a line can act as a workflow command: {line:?}"
                );
                assert!(
                    !line.contains("##["),
                    "{what}: a legacy runner command: {line:?}"
                );
            }
        }
        Kind::Json => {
            serde_json::from_str::<serde_json::Value>(text)
                .unwrap_or_else(|e| panic!("{what} does not parse: {e}"));
        }
        Kind::Markup => check_markup(what, text),
        Kind::Mermaid => {
            assert!(!text.contains("%%{"), "{what}: a Mermaid directive");
            for line in text.lines() {
                let t = line.trim_start();
                assert!(
                    !t.starts_with("click ") && !t.starts_with("%%"),
                    "{what}: a Mermaid callback or comment from the catalog: {line:?}"
                );
            }
        }
        Kind::Github => {
            for line in text.lines() {
                let props = ["::error ", "::warning ", "::notice "]
                    .iter()
                    .find_map(|c| line.strip_prefix(c))
                    .unwrap_or_else(|| panic!("{what}: not an annotation: {line:?}"));
                let (props, _) = props
                    .split_once("::")
                    .unwrap_or_else(|| panic!("{what}: no message: {line:?}"));
                assert!(
                    !props.contains(':'),
                    "{what}: properties unescaped: {line:?}"
                );
                assert!(
                    !line.contains("##["),
                    "{what}: a legacy runner command: {line:?}"
                );
            }
        }
        Kind::StepSummary => {
            let mut rest = text.to_string();
            // The rule links olmlint writes: `[OLMnnn](https://...)`.
            while let Some(i) = rest.find("[OLM") {
                let end = rest[i..].find(')').map_or(rest.len(), |e| i + e + 1);
                let link = &rest[i..end];
                let id = &link[1..link.find(']').unwrap_or(1)];
                let rule = olmlint::rules::get(id);
                assert!(
                    rule.is_some_and(|r| link == format!("[{}]({})", r.id, r.url())),
                    "{what}: not a rule link: {link:?}"
                );
                rest.replace_range(i..end, "");
            }
            check_output(what, Kind::Markdown, &rest);
        }
        Kind::Markdown => {
            for bad in ["![", "<img", "<a ", "<script", "<iframe", "%%{"] {
                assert!(!text.contains(bad), "{what}: {bad:?} in the job summary");
            }
            // A link needs `](` with the bracket unescaped (`\](` is text).
            for (i, _) in text.match_indices("](") {
                assert!(
                    text[..i].ends_with('\\'),
                    "{what}: a link in the job summary: {:?}",
                    text[i..].chars().take(60).collect::<String>()
                );
            }
        }
        Kind::Dot => {}
    }
}

/// Markup made only of olmlint's elements: every `<` opens a known element, a comment, a
/// declaration or a closing tag of a known element; no character XML 1.0 forbids.
fn check_markup(what: &str, text: &str) {
    for c in text.chars() {
        let allowed = matches!(c, '\t' | '\n' | '\r')
            || (!c.is_control() && c != '\u{fffe}' && c != '\u{ffff}');
        assert!(
            allowed,
            "{what}: character U+{:04X} is not XML 1.0",
            c as u32
        );
    }
    for (i, _) in text.match_indices('<') {
        let rest = &text[i + 1..];
        if rest.starts_with("!--") || rest.starts_with("!DOCTYPE") || rest.starts_with("?xml") {
            continue;
        }
        let name: String = rest
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        // `<` inside the page's own script and style (comparisons) is not markup.
        if name.is_empty() && in_script_or_style(&text[..i]) {
            continue;
        }
        assert!(
            ELEMENTS.contains(&name.as_str()) || in_script_or_style(&text[..i]),
            "{what}: element {name:?} is not olmlint's: {:?}",
            rest.chars().take(60).collect::<String>()
        );
    }
}

/// Whether `before` ends inside a `<script>` or `<style>` element.
fn in_script_or_style(before: &str) -> bool {
    ["script", "style"].iter().any(|t| {
        let open = before.rfind(&format!("<{t}"));
        let close = before.rfind(&format!("</{t}>"));
        match (open, close) {
            (Some(o), Some(c)) => o > c,
            (Some(_), None) => true,
            _ => false,
        }
    })
}

/// Every finding's location lies inside the file it names.
pub fn check_locations(outcome: &olmlint::lint::Outcome) {
    for d in &outcome.diags {
        if let Some(l) = d.location {
            let file = outcome.files.get(l.file).expect("finding in a loaded file");
            assert!(l.span.start() <= l.span.end());
            assert!(l.span.end() <= file.source.text.len() + 1);
        }
    }
}

/// `olmlint lint PATH` (with `--no-config` when `no_config`) and the graphs drawn, folded by
/// `collapse`, as the HTML report draws them: the findings' locations and every report format
/// through their oracles.
pub fn lint_and_check(path: &Path, no_config: bool, collapse: usize) {
    let opts = olmlint::lint::Options {
        paths: vec![path.to_path_buf()],
        no_config,
        timeout: Some(5.0),
        graph: Some(olmlint::graph::Filter::default()),
        ..Default::default()
    };
    if let Ok(mut outcome) = olmlint::lint::run(&opts) {
        check_locations(&outcome);
        let graphs = olmlint::graph_command::finish(&mut outcome, collapse);
        check_reports(&outcome, &graphs);
    }
}

/// Every report format of a lint outcome, each through its oracle.
pub fn check_reports(outcome: &olmlint::lint::Outcome, graphs: &[olmlint::graph::PackageGraph]) {
    use olmlint::report::{Format, Report};
    let report = Report {
        diags: &outcome.diags,
        files: &outcome.files,
        summary: outcome.summary,
        fail_on: Some(olmlint::diag::Severity::Error),
        graphs,
        catalogs: &outcome.catalogs,
    };
    for (format, kind) in [
        (Format::Json, Kind::Json),
        (Format::Sarif, Kind::Json),
        (Format::Human, Kind::Log),
        (Format::Concise, Kind::Log),
        (Format::Github, Kind::Github),
        (Format::Junit, Kind::Markup),
        (Format::Html, Kind::Markup),
    ] {
        let text = report.render(format, false);
        check_output(&format!("{format:?} report"), kind, &text);
    }
    let summary = olmlint::report::github::step_summary(&report);
    check_output("step summary", Kind::StepSummary, &summary);
}

/// `path` relative to the sandbox's root, for oracles that compare names.
pub fn relative<'p>(sandbox: &Sandbox, path: &'p Path) -> &'p Path {
    path.strip_prefix(&sandbox.root).unwrap_or(path)
}
