//! Baseline for the benchmark: walk the same files, read them, and run the same parser over
//! them on the same rayon pool, building nothing. YAML goes through olmlint's own path
//! (documents split like `opm`, the block-subset scanner, saphyr-parser events for documents
//! outside the subset); `BARE_PARSER=saphyr` runs saphyr-parser alone over each file, the
//! baseline of earlier sessions. JSON goes through serde_json.
//! `cargo run --release --example bare_parse -- DIR...`

use rayon::prelude::*;
use std::path::PathBuf;

fn files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn saphyr_events(text: &str) -> usize {
    let mut parser = saphyr_parser::Parser::new_from_str(text);
    let mut n = 0;
    while let Some(Ok(_)) = parser.next_event() {
        n += 1;
    }
    n
}

fn main() {
    let started = std::time::Instant::now();
    let mut all = Vec::new();
    for arg in std::env::args().skip(1) {
        files(std::path::Path::new(&arg), &mut all);
    }
    let saphyr_only = std::env::var("BARE_PARSER").is_ok_and(|v| v == "saphyr");
    all.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    let (bytes, events): (usize, usize) = all
        .par_iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let mut n = 0usize;
            if text.trim_start().starts_with('{') {
                for v in
                    serde_json::Deserializer::from_str(&text).into_iter::<serde::de::IgnoredAny>()
                {
                    if v.is_err() {
                        break;
                    }
                    n += 1;
                }
            } else if saphyr_only {
                n += saphyr_events(&text);
            } else {
                let mut problems = Vec::new();
                for (s, e) in olmlint::load::yaml::split_documents(&text, &mut problems) {
                    let chunk = text.get(s..e).unwrap_or_default();
                    let fast = olmlint::load::yaml_subset::scan(chunk, s, |_, _| {
                        n += 1;
                        true
                    });
                    if fast.is_err() {
                        n += saphyr_events(chunk);
                    }
                }
            }
            (text.len(), n)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} files, {bytes} bytes, {events} events/values in {secs:.3}s ({:.0} MB/s)",
        all.len(),
        bytes as f64 / secs / 1e6
    );
}
