//! Valid catalogs whose names are fuzzed: the input drives a small file-based catalog
//! (package, channels with replaces/skips/skipRange, bundles with versions, deprecations)
//! whose every name is assembled from raw input bytes and from fragments that attack the
//! outputs (Mermaid directives, Markdown breakouts, markup, workflow commands, bidi
//! controls, characters XML forbids). Structure is kept valid so that the fuzzer spends its
//! time in the drawing and reporting code rather than in the loader.

use serde_json::json;

/// Pieces of names that try to act in some output.
const FRAGMENTS: &[&str] = &[
    "%%{init: {'themeCSS': '.node rect{fill:red}'}}%%",
    "%%",
    "click c0n0 call alert()",
    ":::error",
    "``",
    "`",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "](https://evil.example/beacon.png)",
    "![x](https://evil.example/b.png)",
    "[link](https://evil.example)",
    "##[set-output name=approved;]true",
    "::error file=x::fake",
    "::stop-commands::t",
    "\u{202e}",
    "\u{2066}",
    "\u{fffe}",
    "\u{ffff}",
    "\u{1b}[8m",
    "\n",
    "\r",
    "|",
    "\"",
    "'",
    "#quot;",
    "&amp;",
    "-->",
    "]]>",
    "{",
    "}",
    "\\",
    "v1.0.0",
    "a",
];

/// A reader over the input: bytes are taken as they come and 0 when the input is spent.
pub struct Input<'d> {
    data: &'d [u8],
    at: usize,
}

impl<'d> Input<'d> {
    pub fn new(data: &'d [u8]) -> Self {
        Input { data, at: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }

    /// A name of one to three pieces: fragments or runs of raw bytes (lossy UTF-8).
    pub fn name(&mut self) -> String {
        let mut s = String::new();
        for _ in 0..=self.below(3) {
            let b = self.byte();
            if b < 128 {
                s.push_str(FRAGMENTS[b as usize % FRAGMENTS.len()]);
            } else {
                let len = (b as usize - 128) % 12;
                let end = (self.at + len).min(self.data.len());
                let raw = self.data.get(self.at..end).unwrap_or_default();
                s.push_str(&String::from_utf8_lossy(raw));
                self.at = end;
            }
        }
        s
    }

    pub fn version(&mut self) -> String {
        match self.below(4) {
            0 => self.name(),
            _ => format!("{}.{}.{}", self.below(3), self.below(4), self.below(5)),
        }
    }
}

/// A file-based catalog as a JSON stream: one package, one to three channels, up to six
/// bundles, sometimes a deprecations document.
pub fn catalog(input: &mut Input<'_>) -> String {
    let package = input.name();
    let bundles: Vec<(String, String)> = (0..=input.below(6))
        .map(|_| (input.name(), input.version()))
        .collect();
    let channels: Vec<String> = (0..=input.below(3)).map(|_| input.name()).collect();
    let mut docs = vec![json!({
        "schema": "olm.package",
        "name": package,
        "defaultChannel": channels[input.below(channels.len())],
    })];
    for ch in &channels {
        let mut entries: Vec<serde_json::Value> = Vec::new();
        for (i, (name, _)) in bundles.iter().enumerate() {
            if input.below(4) == 0 {
                continue;
            }
            let mut e = json!({"name": name});
            if i > 0 && input.below(3) != 0 {
                e["replaces"] = json!(bundles[input.below(i)].0);
            }
            if input.below(4) == 0 {
                e["skips"] = json!([bundles[input.below(bundles.len())].0, input.name()]);
            }
            if input.below(4) == 0 {
                e["skipRange"] = json!(match input.below(3) {
                    0 => input.name(),
                    _ => format!("<{}", input.version()),
                });
            }
            entries.push(e);
        }
        docs.push(
            json!({"schema": "olm.channel", "package": package, "name": ch, "entries": entries}),
        );
    }
    for (name, version) in &bundles {
        docs.push(json!({
            "schema": "olm.bundle",
            "package": package,
            "name": name,
            "image": format!("quay.io/x/{}@sha256:{}", input.below(9), "0".repeat(64)),
            "properties": [{"type": "olm.package", "value": {"packageName": package, "version": version}}],
        }));
    }
    if input.below(2) == 0 {
        docs.push(json!({
            "schema": "olm.deprecations",
            "package": package,
            "entries": [
                {"reference": {"schema": "olm.bundle", "name": bundles[0].0}, "message": input.name()},
                {"reference": {"schema": "olm.channel", "name": channels[0]}, "message": input.name()},
            ],
        }));
    }
    docs.iter().map(|d| d.to_string() + "\n").collect()
}
