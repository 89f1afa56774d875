//! Synthetic catalog generator for scaling benchmarks.
//!
//! `cargo run --release --example gen-catalog -- --packages N --bundles-per-package M
//!  --deps-per-bundle K --seed S [--format json|yaml|yaml-flow] [--out DIR]`
//!
//! `json` writes a JSON stream, `yaml` block YAML with sorted keys as `opm render -o yaml`
//! writes it, `yaml-flow` every document as a JSON object in a YAML stream.
//!
//! Package `pI` has one channel `stable` whose M bundles form a replaces chain; every bundle
//! provides the GVK `pI.example.com/v1/KindI` and carries a `tier` property. Each bundle has
//! K dependencies on packages with a lower index (so the graph is acyclic), drawn from
//! `olm.package.required`, `olm.gvk.required`, compound `olm.constraint`s (all/any/not) and CEL
//! rules (`tier` comparisons naming one base package; at most 16 distinct rules).

use std::fmt::Write as _;
use std::path::PathBuf;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

struct Args {
    packages: usize,
    bundles: usize,
    deps: usize,
    seed: u64,
    format: Format,
    out: PathBuf,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Json,
    Yaml,
    YamlFlow,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        packages: 100,
        bundles: 10,
        deps: 3,
        seed: 1,
        format: Format::Json,
        out: PathBuf::from("target/gen-catalog"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--packages" => a.packages = val()?.parse().map_err(|e| format!("--packages: {e}"))?,
            "--bundles-per-package" => {
                a.bundles = val()?
                    .parse()
                    .map_err(|e| format!("--bundles-per-package: {e}"))?
            }
            "--deps-per-bundle" => {
                a.deps = val()?
                    .parse()
                    .map_err(|e| format!("--deps-per-bundle: {e}"))?
            }
            "--seed" => a.seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--format" => {
                a.format = match val()?.as_str() {
                    "json" => Format::Json,
                    "yaml" => Format::Yaml,
                    "yaml-flow" => Format::YamlFlow,
                    other => return Err(format!("--format: unknown format {other}")),
                }
            }
            "--out" => a.out = PathBuf::from(val()?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

fn dependency(rng: &mut Rng, pkg: usize, packages: usize, bundles: usize) -> String {
    let base = (packages / 10).max(1);
    let mid = (packages * 3 / 10).max(base + 1);
    let pool = if pkg < mid { base } else { mid }.min(pkg).max(1);
    let j = rng.below(pool as u64) as usize;
    let lo = rng.below(bundles as u64 / 2 + 1);
    let range = format!(">=1.{lo}.0");
    match rng.below(10) {
        0..=2 => format!(
            r#"{{"type":"olm.package.required","value":{{"packageName":"p{j}","versionRange":"{range}"}}}}"#
        ),
        3..=4 => format!(
            r#"{{"type":"olm.gvk.required","value":{{"group":"p{j}.example.com","version":"v1","kind":"Kind{j}"}}}}"#
        ),
        5..=6 => format!(
            r#"{{"type":"olm.constraint","value":{{"failureMessage":"needs p{j}","all":{{"constraints":[{{"package":{{"packageName":"p{j}","versionRange":"{range}"}}}},{{"gvk":{{"group":"p{j}.example.com","version":"v1","kind":"Kind{j}"}}}}]}}}}}}"#
        ),
        7 => {
            let k = rng.below(pool as u64) as usize;
            format!(
                r#"{{"type":"olm.constraint","value":{{"any":{{"constraints":[{{"package":{{"packageName":"p{j}","versionRange":"{range}"}}}},{{"package":{{"packageName":"p{k}","versionRange":">=1.0.0"}}}}]}}}}}}"#
            )
        }
        8 => format!(
            r#"{{"type":"olm.constraint","value":{{"all":{{"constraints":[{{"package":{{"packageName":"p{j}","versionRange":">=1.0.0"}}}},{{"not":{{"constraints":[{{"package":{{"packageName":"p{j}","versionRange":"<1.{lo}.0"}}}}]}}}}]}}}}}}"#
        ),
        _ => {
            // CEL rules name one base package's tier (16 distinct rules at most).
            let tier = rng.below(base.min(16) as u64);
            format!(
                r#"{{"type":"olm.constraint","value":{{"failureMessage":"needs a tier-{tier} operator","cel":{{"rule":"properties.exists(p, p.type == 'tier' && p.value == 'gold-{tier}')"}}}}}}"#
            )
        }
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("gen-catalog: {e}");
            std::process::exit(2);
        }
    };
    let mut rng = Rng(args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut total = 0usize;
    for i in 0..args.packages {
        let mut docs: Vec<String> = Vec::new();
        docs.push(format!(
            r#"{{"schema":"olm.package","name":"p{i}","defaultChannel":"stable"}}"#
        ));
        let mut entries = String::new();
        for v in 0..args.bundles {
            let sep = if v == 0 { "" } else { "," };
            if v == 0 {
                let _ = write!(entries, r#"{sep}{{"name":"p{i}.v1.{v}.0"}}"#);
            } else {
                let _ = write!(
                    entries,
                    r#"{sep}{{"name":"p{i}.v1.{v}.0","replaces":"p{i}.v1.{}.0"}}"#,
                    v - 1
                );
            }
        }
        docs.push(format!(
            r#"{{"schema":"olm.channel","package":"p{i}","name":"stable","entries":[{entries}]}}"#
        ));
        for v in 0..args.bundles {
            let mut props = vec![
                format!(
                    r#"{{"type":"olm.package","value":{{"packageName":"p{i}","version":"1.{v}.0"}}}}"#
                ),
                format!(
                    r#"{{"type":"olm.gvk","value":{{"group":"p{i}.example.com","version":"v1","kind":"Kind{i}"}}}}"#
                ),
                format!(r#"{{"type":"tier","value":"gold-{i}"}}"#),
            ];
            if i >= (args.packages / 10).max(1) {
                for _ in 0..args.deps {
                    props.push(dependency(&mut rng, i, args.packages, args.bundles));
                }
            }
            docs.push(format!(
                r#"{{"schema":"olm.bundle","package":"p{i}","name":"p{i}.v1.{v}.0","image":"quay.io/example/p{i}-bundle:v1.{v}.0","properties":[{}]}}"#,
                props.join(",")
            ));
            total += 1;
        }
        let dir = args.out.join(format!("p{i}"));
        let body = match args.format {
            Format::Json => docs.join("\n") + "\n",
            // Every JSON document is valid YAML.
            Format::YamlFlow => docs.iter().map(|d| format!("---\n{d}\n")).collect(),
            Format::Yaml => docs
                .iter()
                .map(|d| {
                    let value: serde_json::Value =
                        serde_json::from_str(d).expect("generated JSON parses");
                    let mut out = String::from("---\n");
                    if let serde_json::Value::Object(map) = &value {
                        block_map(map, 0, false, &mut out);
                    }
                    out
                })
                .collect(),
        };
        let name = if args.format == Format::Json {
            "catalog.json"
        } else {
            "catalog.yaml"
        };
        if let Err(e) =
            std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(dir.join(name), body))
        {
            eprintln!("gen-catalog: {}: {e}", dir.display());
            std::process::exit(2);
        }
    }
    println!(
        "wrote {} packages, {total} bundles to {}",
        args.packages,
        args.out.display()
    );
}

/// A scalar as go-yaml writes it: plain when that reads back as the same string, otherwise
/// double-quoted (a JSON string is a valid YAML double-quoted scalar).
fn yaml_scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => {
            let plain = s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-'))
                && !matches!(
                    s.to_ascii_lowercase().as_str(),
                    "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
                );
            if plain {
                s.clone()
            } else {
                serde_json::to_string(s).expect("string serializes")
            }
        }
        other => other.to_string(),
    }
}

/// A value after `key:` or `-`: inline scalars and empty collections, nested blocks below.
fn block_value(v: &serde_json::Value, indent: usize, in_seq: bool, out: &mut String) {
    match v {
        serde_json::Value::Object(m) if m.is_empty() => out.push_str(" {}\n"),
        serde_json::Value::Array(a) if a.is_empty() => out.push_str(" []\n"),
        serde_json::Value::Object(m) if in_seq => {
            out.push(' ');
            block_map(m, indent + 2, true, out);
        }
        serde_json::Value::Object(m) => {
            out.push('\n');
            block_map(m, indent + 2, false, out);
        }
        serde_json::Value::Array(a) => {
            out.push('\n');
            // go-yaml writes a mapping's sequences at the key's indentation.
            block_seq(a, if in_seq { indent + 2 } else { indent }, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&yaml_scalar(scalar));
            out.push('\n');
        }
    }
}

fn block_map(
    m: &serde_json::Map<String, serde_json::Value>,
    indent: usize,
    first_inline: bool,
    out: &mut String,
) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !first_inline {
            out.extend(std::iter::repeat_n(' ', indent));
        }
        out.push_str(k);
        out.push(':');
        block_value(v, indent, false, out);
    }
}

fn block_seq(a: &[serde_json::Value], indent: usize, out: &mut String) {
    for v in a {
        out.extend(std::iter::repeat_n(' ', indent));
        out.push('-');
        block_value(v, indent, true, out);
    }
}
