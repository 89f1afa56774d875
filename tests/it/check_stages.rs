//! The rule families that run while the resolution is built (`check::run_early`, issue #44)
//! must not read it: on every catalog of the fixtures and of the corpus, a run whose early
//! families saw an empty resolution finds exactly what a run whose early families saw the
//! catalog's finds.

use olmlint::check::{self, Ctx};
use olmlint::model::resolution::{self, Provided, Resolution, Source};
use std::path::{Path, PathBuf};

/// Every directory one level under the fixture groups that hold catalogs, and the corpus's
/// community catalog and tarball versions when they are there.
fn catalog_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = Vec::new();
    for group in [
        "fixtures/catalogs",
        "fixtures/opm-errors",
        "fixtures/resolve",
        "fixtures/resolve-upgrade",
        "fixtures/graphs",
        "fixtures/context",
        "fixtures/operators",
        "fixtures/templates",
        "fixtures/adversarial",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    let corpus = root.join("../shared/corpus/catalogs/community-v4.18");
    if corpus.is_dir() {
        dirs.push(corpus);
    }
    dirs.sort();
    dirs
}

/// The findings of `dir` as one catalog, every family run: with the early ones on the
/// catalog's resolution, and with them on an empty one (the catalog loaded once for both).
fn findings(dir: &Path) -> (Vec<String>, Vec<String>) {
    let loaded = olmlint::load::load(
        std::slice::from_ref(&dir.to_path_buf()),
        &olmlint::load::Limits::default(),
    );
    let files = loaded.files;
    let catalog = olmlint::model::build(&files, 0, &mut Vec::new());
    let index = olmlint::model::index::Index::new(&catalog);
    let config = olmlint::config::Config::defaults(dir.to_path_buf());
    let provided = Provided {
        packages: vec![],
        gvks: vec![],
        open_world: true,
    };
    let sources = [Source {
        name: dir.display().to_string(),
        catalog: &catalog,
        index: &index,
        priority: i64::MAX,
        shadowed_by_own: false,
    }];
    let real = resolution::build(&sources, config.cel_budget(), &provided);
    let empty = Resolution::default();
    let catalogs = [&catalog];
    let ctx = |resolution| Ctx {
        files: &files,
        catalog: &catalog,
        config: &config,
        index: &index,
        resolution,
        catalogs: &catalogs,
        scope: 0,
        complete: std::sync::OnceLock::new(),
        baseline: None,
        provided: &provided,
        cluster: None,
        repository: None,
        changed: None,
    };
    let with = |early_resolution| -> Vec<String> {
        let early = check::run_early(&ctx(early_resolution));
        let late = check::run_late(&ctx(&real));
        check::finish(&ctx(&real), early, late)
            .iter()
            .map(|d| format!("{d:?}"))
            .collect()
    };
    (with(&real), with(&empty))
}

#[test]
fn early_families_find_the_same_without_the_resolution() {
    let dirs = catalog_dirs();
    assert!(
        dirs.len() > 100,
        "only {} fixture catalogs found",
        dirs.len()
    );
    let mut with_findings = 0;
    for dir in &dirs {
        let (expected, got) = findings(dir);
        with_findings += usize::from(!expected.is_empty());
        if got != expected {
            let at = got
                .iter()
                .zip(&expected)
                .take_while(|(a, b)| a == b)
                .count();
            panic!(
                "{}: {} findings with the early families on an empty resolution, {} on the \
                 catalog's; the first that differs:\n{:?}\n{:?}",
                dir.display(),
                got.len(),
                expected.len(),
                got.get(at),
                expected.get(at)
            );
        }
    }
    assert!(
        with_findings > 100,
        "{with_findings} catalogs with findings"
    );
}
