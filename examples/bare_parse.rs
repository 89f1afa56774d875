//! Baseline for the benchmark: walk the same files, read them, and run the same YAML parser
//! (saphyr-parser events) or serde_json over them on the same rayon pool, building nothing.
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

fn main() {
    let started = std::time::Instant::now();
    let mut all = Vec::new();
    for arg in std::env::args().skip(1) {
        files(std::path::Path::new(&arg), &mut all);
    }
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
            } else {
                let mut parser = saphyr_parser::Parser::new_from_str(&text);
                while let Some(Ok(_)) = parser.next_event() {
                    n += 1;
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
