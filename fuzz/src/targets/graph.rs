//! The graph formats and the HTML report on catalogs with fuzzed names: bytes → a valid
//! catalog ([`super::gen`]) and a second one as its baseline → `olmlint graph` (the state and
//! the difference) in every format, and `lint -f html` with the graphs.
//!
//! Checks: no panic; each output passes its oracle ([`super::sandbox::check_output`]: SVG and
//! HTML only olmlint's elements and XML 1.0 characters, Mermaid without directives or
//! callbacks, the job summary without links, images or raw HTML, JSON parses, no bidi
//! controls anywhere); nothing is written.

use super::gen::{catalog, Input};
use super::sandbox::{check_output, lint_and_check, Kind, Sandbox};
use olmlint::graph_command::{draw, render, GraphFormat, Request};

const FORMATS: [(GraphFormat, Kind); 5] = [
    (GraphFormat::Mermaid, Kind::Mermaid),
    (GraphFormat::Dot, Kind::Dot),
    (GraphFormat::Svg, Kind::Markup),
    (GraphFormat::Json, Kind::Json),
    (GraphFormat::Markdown, Kind::Markdown),
];

/// One input (the libFuzzer target `graph` and `tests/fuzz_smoke.rs` call this).
pub fn run(data: &[u8]) {
    let Some(sandbox) = Sandbox::new("catalog") else {
        return;
    };
    let mut input = Input::new(data);
    let new = sandbox.root.join("new");
    let old = sandbox.root.join("old");
    for dir in [&new, &old] {
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(dir.join("catalog.json"), catalog(&mut input));
    }
    let collapse = input.below(6);
    for baseline in [None, Some(old.clone())] {
        let req = Request {
            paths: vec![new.clone()],
            baseline,
            collapse,
            no_config: true,
            ..Default::default()
        };
        let Ok(drawn) = draw(&req) else { continue };
        for (format, kind) in FORMATS {
            check_output(&format!("graph {format:?}"), kind, &render(&drawn, format));
        }
    }
    lint_and_check(&new, true, collapse);
    sandbox.assert_outside_untouched();
}
