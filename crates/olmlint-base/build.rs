// Embeds every rules/<ID>.md so the binary can list and explain rules without the repo.
// `rules` here is a link to the repository's rules/ (followed by `cargo package`, so the
// published crate holds the files themselves).
use std::fmt::Write as _;

fn main() {
    // The directory (a rule added or removed) and each file (a rule edited): a directory
    // reached through a link is not rescanned file by file.
    println!("cargo:rerun-if-changed=rules");
    let mut ids: Vec<String> = std::fs::read_dir("rules")
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.ends_with(".md") && n.starts_with("OLM"))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    for f in &ids {
        println!("cargo:rerun-if-changed=rules/{f}");
    }
    let mut out = String::from("pub static RULE_DOCS: &[(&str, &str)] = &[\n");
    for f in ids {
        let id = f.trim_end_matches(".md");
        let _ = writeln!(
            out,
            "    ({id:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rules/{f}\"))),"
        );
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()))
        .join("rule_docs.rs");
    if let Err(e) = std::fs::write(dest, out) {
        println!("cargo:warning=cannot write rule_docs.rs: {e}");
    }
}
