//! The fuzz targets in CI. Their bodies (`fuzz/src/targets/`) are compiled into this test on
//! the stable toolchain and run over each target's committed corpus (`fuzz/corpus/TARGET/`)
//! and then over mutations of it for a few seconds each, with every oracle the libFuzzer
//! campaigns use (no panic, no canary in any output, nothing written outside, markup and
//! logs inert), one test per target so that they run side by side (`pr`, which changes the
//! working directory, in child processes of its own). The fuzz crate's manifest,
//! lock file and libFuzzer wrappers are checked here without compiling libFuzzer; CI's `fuzz`
//! job compiles them. Campaigns proper: docs/reliability.md, "Fuzzing".
//!
//! `OLMLINT_FUZZ_SMOKE_SECONDS` sets the mutation time per target (default 2; 0: corpus
//! only); `OLMLINT_FUZZ_SMOKE_TARGETS=lint,pr` runs only those targets (as does
//! `cargo test --test fuzz_smoke lint`).

#[allow(dead_code, clippy::all)]
#[path = "../fuzz/src/targets/mod.rs"]
mod targets;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("load", targets::load::run),
    ("range", targets::range::run),
    ("constraint", targets::constraint::run),
    ("cel", targets::cel::run),
    ("lint", targets::lint::run),
    ("graph", targets::graph::run),
    ("templates", targets::templates::run),
    ("pr", targets::pr::run),
];

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (every target has a committed corpus)",
                dir.display()
            )
        })
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("corpus file");
            (p, bytes)
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to eight of libFuzzer's simplest mutations: change, insert, erase, a separator byte
/// (0xff, 0xfe, 0xfd mean something to the whole-pipeline targets), a copied chunk, a splice
/// with another input.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(8) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
            1 => out.insert(at, rng.next() as u8),
            2 if !out.is_empty() => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            3 => out.insert(at, [0xff, 0xfe, 0xfd][rng.below(3)]),
            4 if !out.is_empty() => {
                let from = rng.below(out.len());
                let end = (from + rng.below(32)).min(out.len());
                let chunk = out[from..end].to_vec();
                out.splice(at..at, chunk);
            }
            _ if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + rng.below(64)).min(other.len());
                out.splice(at..at, other[from..end].iter().copied());
            }
            _ => {}
        }
    }
    out.truncate(1 << 16);
    out
}

/// Run one input; on a panic, keep the input where it can be replayed and say how.
fn run_one(name: &str, target: Target, input: &[u8], origin: &str) {
    let result = std::panic::catch_unwind(|| target(input));
    if let Err(e) = result {
        let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-smoke-{name}-crash"));
        let _ = std::fs::write(&keep, input);
        panic!(
            "{}",
            format!(
            "fuzz target `{name}` failed on {origin} (input kept in {}; replay: cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run {name} {}): {}",
            keep.display(),
            keep.display(),
            e.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("panic")
            )
        );
    }
}

/// How many child processes run the `pr` target, each over a shard of its corpus (see
/// [`in_children`]); `OLMLINT_FUZZ_SMOKE_SHARD=I/N` makes this process one of them.
const PR_SHARDS: usize = 2;
const SHARD: &str = "OLMLINT_FUZZ_SMOKE_SHARD";

/// The shard this process runs (`I/N` in [`SHARD`]), if it is a child of [`in_children`].
fn shard() -> Option<(usize, usize)> {
    let value = std::env::var(SHARD).ok()?;
    let (i, n) = value.split_once('/')?;
    let (i, n) = (i.parse().ok()?, n.parse().ok()?);
    (i < n).then_some((i, n))
}

/// The `pr` target moves into its sandbox repository for each input (`--changed-since` asks
/// git about the current directory), which the other targets, reading paths relative to it,
/// must not see: it runs in child processes of this test binary, each over a shard of the
/// corpus, side by side with each other and with the other targets (its 251 inputs, each a
/// git history and two runs of olmlint, took 18 s alone and held the other targets back).
fn in_children(name: &str, n: usize) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let children: Vec<_> = (0..n)
        .map(|i| {
            let child = std::process::Command::new(&exe)
                .args([name, "--exact", "--test-threads", "1", "--nocapture"])
                .env(SHARD, format!("{i}/{n}"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("start the test binary again");
            // Each child's output read on a thread of its own, so no pipe fills.
            std::thread::spawn(move || child.wait_with_output())
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.join().unwrap().expect("wait for a shard");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "fuzz smoke of `{name}`, shard {i}/{n} ({SHARD}={i}/{n} {} {name} --exact replays it):\n{}\n{stderr}",
            exe.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        eprint!("{stderr}");
    }
}

/// One target over its corpus, then over mutations of it for `OLMLINT_FUZZ_SMOKE_SECONDS`
/// (`pr`: in [`PR_SHARDS`] child processes, which share the corpus and the time).
fn smoke(name: &str, target: Target) {
    let seconds: u64 = std::env::var("OLMLINT_FUZZ_SMOKE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let only = std::env::var("OLMLINT_FUZZ_SMOKE_TARGETS").unwrap_or_default();
    if !only.is_empty() && !only.split(',').any(|t| t == name) {
        return;
    }
    let shard = shard();
    if name == "pr" && shard.is_none() {
        return in_children(name, PR_SHARDS);
    }
    let (i, n) = shard.unwrap_or((0, 1));
    let inputs = corpus(name);
    assert!(!inputs.is_empty(), "fuzz/corpus/{name} is empty");
    for (path, bytes) in inputs.iter().skip(i).step_by(n) {
        run_one(name, target, bytes, &path.display().to_string());
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64 ^ ((i as u64) << 32));
    let start = Instant::now();
    let mut runs = 0usize;
    let budget = Duration::from_millis(seconds * 1000 / n as u64);
    while start.elapsed() < budget {
        let a = &inputs[rng.below(inputs.len())].1;
        let b = &inputs[rng.below(inputs.len())].1;
        let input = mutate(&mut rng, a, b);
        run_one(name, target, &input, &format!("mutation {runs}"));
        runs += 1;
    }
    eprintln!(
        "fuzz smoke: {name}: {} corpus inputs, {runs} mutations (shard {i}/{n})",
        inputs.len().div_ceil(n)
    );
}

// A test per target, so that the test threads run them side by side.
macro_rules! smoke_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                smoke(stringify!($name), targets::$name::run);
            }
        )*
        /// Every target in [`TARGETS`] has its test above.
        #[test]
        fn every_target_has_a_smoke_test() {
            let tested = [$(stringify!($name)),*];
            let all: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(all, tested);
        }
    };
}

smoke_tests!(load, range, constraint, cel, lint, graph, templates, pr);

/// The fuzz crate (its own workspace and lock file) is what cargo-fuzz builds: its lock file is
/// current (`cargo metadata --locked`), it has one binary per target, each one a libFuzzer
/// wrapper calling that target's body, and no other. The bodies are compiled here; the
/// wrappers' compilation (a `cargo check` of the crate, 55 s on 2 cores with libFuzzer's C++)
/// is the `fuzz` job of .github/workflows/ci.yml.
#[test]
fn the_fuzz_crate_wraps_every_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--locked",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root.join("fuzz/Cargo.toml"))
        .current_dir(root)
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo metadata of fuzz/ failed (is fuzz/Cargo.lock current?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let package = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "olmlint-fuzz")
        .expect("the olmlint-fuzz package");
    let mut bins: Vec<(String, PathBuf)> = package["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                PathBuf::from(t["src_path"].as_str().unwrap()),
            )
        })
        .collect();
    bins.sort();
    let mut names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    assert_eq!(
        bins.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        names,
        "fuzz/Cargo.toml's binaries are not the targets of fuzz/src/targets"
    );
    for (name, src) in &bins {
        let text = std::fs::read_to_string(src).unwrap();
        let call = format!("olmlint_fuzz::targets::{name}::run(data)");
        assert!(
            text.contains("#![no_main]")
                && text.contains("libfuzzer_sys::fuzz_target!(")
                && text.contains(&call),
            "{}: not a libFuzzer wrapper calling {call}",
            src.display()
        );
    }
}
