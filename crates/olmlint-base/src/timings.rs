//! Phase timings for profiling: `OLMLINT_TIMINGS=1 olmlint lint …` prints, on stderr, how
//! long each pipeline phase and rule family took. Off by default; costs one env lookup.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("OLMLINT_TIMINGS").is_some_and(|v| v != "0"))
}

static START: OnceLock<Instant> = OnceLock::new();

/// Marks the start of the process's work: phases report their start relative to it.
pub fn start() {
    START.get_or_init(Instant::now);
}

/// Milliseconds from [`start`] to `t`.
fn offset_ms(t: Instant) -> f64 {
    START
        .get()
        .map_or(0.0, |s| t.saturating_duration_since(*s).as_secs_f64() * 1e3)
}

/// The phase most recently started (catalogs are checked in parallel, so another may be
/// running too): what a report of a run stopped from outside names.
static CURRENT: std::sync::Mutex<&'static str> = std::sync::Mutex::new("start-up");

/// The phase most recently started, e.g. `load` or `check installability`.
pub fn current_phase() -> &'static str {
    CURRENT.lock().map_or("an unknown phase", |p| *p)
}

/// Runs `f`, printing its wall time under `label` when timings are on.
pub fn phase<T>(label: &'static str, f: impl FnOnce() -> T) -> T {
    if let Ok(mut p) = CURRENT.lock() {
        *p = label;
    }
    if !enabled() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    eprintln!(
        "olmlint timing: {label:<28} {:>9.3} ms  (from {:>8.3} ms; peak RSS so far {} MB)",
        t.elapsed().as_secs_f64() * 1e3,
        offset_ms(t),
        peak_rss_mb()
    );
    out
}

/// Prints how long after [`start`] `label` happened, when timings are on.
pub fn mark(label: &str) {
    if enabled() {
        eprintln!(
            "olmlint timing: {label:<28} at {:>9.3} ms",
            offset_ms(Instant::now())
        );
    }
}

static SAT: [std::sync::atomic::AtomicU64; 5] = [const { std::sync::atomic::AtomicU64::new(0) }; 5];

/// Accumulates the effort of one installability check (when timings are on): the size of
/// its closure, its variables, clauses and solver calls.
pub fn sat_check(closure: u64, vars: u64, clauses: u64, solver_calls: u64) {
    if !enabled() {
        return;
    }
    use std::sync::atomic::Ordering::Relaxed;
    let v = [1, closure, vars, clauses, solver_calls];
    for (a, v) in SAT.iter().zip(v) {
        a.fetch_add(v, Relaxed);
    }
}

/// Prints the averages accumulated by [`sat_check`].
pub fn sat_report() {
    if !enabled() {
        return;
    }
    let v: Vec<u64> = SAT
        .iter()
        .map(|a| a.load(std::sync::atomic::Ordering::Relaxed))
        .collect();
    let n = v.first().copied().unwrap_or(0).max(1) as f64;
    let avg = |i: usize| v.get(i).copied().unwrap_or(0) as f64 / n;
    eprintln!(
        "olmlint timing: sat: {} checks; per check: closure {:.1}, vars {:.1}, clauses {:.1}, solver calls {:.2}",
        v.first().copied().unwrap_or(0), avg(1), avg(2), avg(3), avg(4)
    );
}

/// Work counted where an input could make the cost superlinear (issue #43): tests scale an
/// input tenfold and compare the counts (`OLMLINT_TIMINGS=1` prints them).
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// OLM111's backward walks: entries reached, range intervals searched.
    UpgradePaths,
    /// "Did you mean": names indexed, edit-distance cells computed.
    Suggestions,
    /// `suppress:` matching: globs matched per (file, rule), entry keys read.
    Suppressions,
    /// Template stage: (template, rendered catalog) pairs, rendered bundles read.
    Mappings,
    /// Channel memberships of bundle directories modelled.
    Memberships,
}

const WORK_NAMES: [&str; 5] = [
    "upgrade-paths",
    "suggestions",
    "suppressions",
    "mappings",
    "memberships",
];

static WORK: [std::sync::atomic::AtomicU64; 5] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 5];

/// Counts `n` units of `what` (when timings are on).
pub fn work(what: Work, n: u64) {
    if enabled() {
        if let Some(a) = WORK.get(what as usize) {
            a.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Prints the work counted by [`work`]: `olmlint timing: work: upgrade-paths N, …`.
pub fn work_report() {
    if !enabled() {
        return;
    }
    let parts: Vec<String> = WORK_NAMES
        .iter()
        .zip(&WORK)
        .map(|(n, a)| format!("{n} {}", a.load(std::sync::atomic::Ordering::Relaxed)))
        .collect();
    eprintln!("olmlint timing: work: {}", parts.join(", "));
}

/// Peak resident set size of the process so far (Linux; 0 elsewhere).
fn peak_rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}
