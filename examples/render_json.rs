//! Writes a YAML catalog directory as JSON streams, the form `opm render -o json` produces
//! (one indented object per document), so the benchmark can compare the two encodings of the
//! same real catalogs. Values go through olmlint's loader, i.e. the YAML 1.1 resolution `opm`
//! applies; keys come out sorted.
//! `cargo run --release --example render_json -- SRC_DIR OUT_DIR`

use olmlint::load::{load_building, Build, Format, Limits};
use serde::Serialize;
use std::path::{Path, PathBuf};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(src), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: render_json SRC_DIR OUT_DIR");
        std::process::exit(2);
    };
    let src = PathBuf::from(src);
    // Every value: the linter's own loading leaves `olm.csv.metadata` contents unbuilt.
    let loaded = load_building(
        std::slice::from_ref(&src),
        &Limits::default(),
        Build::Everything,
    );
    let mut written = 0usize;
    for file in &loaded.files {
        if file.format != Format::Yaml || !file.problems.is_empty() {
            continue;
        }
        let rel = file
            .source
            .path
            .strip_prefix(&src)
            .unwrap_or(&file.source.path);
        let target = Path::new(&out).join(rel).with_extension("json");
        let mut text = Vec::new();
        for doc in &file.docs {
            let Some(value) = doc.root.as_ref().and_then(|r| r.to_json()) else {
                continue;
            };
            let indent = serde_json::ser::PrettyFormatter::with_indent(b"    ");
            let mut ser = serde_json::Serializer::with_formatter(&mut text, indent);
            value.serialize(&mut ser).expect("serialize to memory");
            text.push(b'\n');
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).expect("create output directory");
        }
        std::fs::write(&target, &text).expect("write JSON stream");
        written += 1;
    }
    println!("{written} files written under {out}");
}
