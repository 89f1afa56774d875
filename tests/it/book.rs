//! The book (docs/, mdBook): `scripts/book.sh` builds it with a page per rule generated from
//! rules/*.md, and every link of the result must lead somewhere: relative links to a page or
//! file of the book and, with `#fragment`, to an element of that page with that id; links into
//! this repository on GitHub to a file that exists here; other http(s) links well-formed (they
//! are not fetched). The README's and docs/*.md's relative links must resolve in the
//! repository, and `olmlint explain` must point at the rule's page.
//!
//! mdbook is installed into `target/tools` with `cargo install` when it is not there (or set
//! `MDBOOK` to an mdbook binary of the pinned version); the test fails, saying how to install
//! it, when it cannot.

use crate::common::precommit::root;
use regex::Regex;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The mdbook release the book is built with (the book workflow installs the same).
const MDBOOK_VERSION: &str = "0.5.4";

/// Where links into this repository on GitHub start; the rest is a path in the repository.
const REPO_BLOB: &str = "https://github.com/olmlint/olmlint/blob/main/";
const REPO_TREE: &str = "https://github.com/olmlint/olmlint/tree/main/";

/// An mdbook binary of `MDBOOK_VERSION`: `MDBOOK`, else `target/tools/bin/mdbook`, installed
/// there with `cargo install` when missing or of another version.
fn mdbook() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let version = |bin: &Path| {
            Command::new(bin)
                .arg("--version")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let want = format!("mdbook v{MDBOOK_VERSION}");
        if let Some(bin) = std::env::var_os("MDBOOK").map(PathBuf::from) {
            let got = version(&bin);
            assert_eq!(
                got.as_deref(),
                Some(want.as_str()),
                "MDBOOK={} is not mdbook {MDBOOK_VERSION}: unset MDBOOK to let the test install it",
                bin.display()
            );
            return bin;
        }
        let tools = root().join("target/tools");
        let bin = tools.join("bin/mdbook");
        if version(&bin).as_deref() == Some(want.as_str()) {
            return bin;
        }
        eprintln!("installing mdbook {MDBOOK_VERSION} into target/tools (cargo install)");
        // Without `serve` and `watch` (a web server and a file watcher the build does not use):
        // 123 crates to compile instead of 190. Unoptimised and without debug information:
        // 40 s on 2 cores instead of 93 s, and the book still builds in under 2 s.
        let out = Command::new(env!("CARGO"))
            .args(["install", "mdbook", "--locked", "--debug", "--no-default-features"])
            .args(["--features", "search", "--version"])
            .arg(format!("={MDBOOK_VERSION}"))
            .arg("--root")
            .arg(&tools)
            // Its own build directory: the target directory of this test run stays untouched.
            .env("CARGO_TARGET_DIR", tools.join("build"))
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .output();
        let how = format!(
            "install it with `cargo install mdbook --version ={MDBOOK_VERSION} --locked --no-default-features --features search --root target/tools` \
             (crates.io must be reachable), or set MDBOOK to an mdbook {MDBOOK_VERSION} binary"
        );
        match out {
            Ok(o) if o.status.success() && version(&bin).as_deref() == Some(want.as_str()) => bin,
            Ok(o) => panic!(
                "the book test needs mdbook {MDBOOK_VERSION}, and `cargo install` failed: {how}\n{}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => panic!("the book test needs mdbook {MDBOOK_VERSION} and cannot run cargo ({e}): {how}"),
        }
    })
}

/// The book built by `scripts/book.sh` (once per test run): its HTML directory.
fn book() -> &'static Path {
    static OUT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, html) = OUT.get_or_init(|| {
        let tmp = tempfile::Builder::new()
            .prefix("book")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let out = Command::new("bash")
            .arg(root().join("scripts/book.sh"))
            .arg(tmp.path())
            .env("MDBOOK", mdbook())
            .current_dir(root())
            .output()
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "scripts/book.sh failed:\n{log}");
        // mdbook reports broken includes and other mistakes as warnings and still succeeds.
        assert!(
            !log.contains("WARN") && !log.contains("ERROR"),
            "mdbook warned:\n{log}"
        );
        let html = tmp.path().join("html");
        (tmp, html)
    });
    html
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `rel` resolved against the directory `dir` (both relative to the book's root), or None
/// when it climbs out of the book.
fn resolve(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut parts: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(rel).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// An http(s) URL a browser can follow: scheme, a host name with a dot (or localhost), an
/// optional port, then a path, query or fragment without spaces or quotes.
fn well_formed_url(url: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"^https?://([A-Za-z0-9-]+\.)+[A-Za-z0-9-]+(:[0-9]+)?([/?#][^\s"<>]*)?$|^https?://localhost(:[0-9]+)?([/?#][^\s"<>]*)?$"#).unwrap()
    })
    .is_match(url)
}

/// The problems of one external link: malformed, or into this repository at a path that does
/// not exist here.
fn external_problem(url: &str, repo: &Path) -> Option<String> {
    if !well_formed_url(url) {
        return Some(format!("malformed URL `{url}`"));
    }
    let in_repo = url
        .strip_prefix(REPO_BLOB)
        .or_else(|| url.strip_prefix(REPO_TREE))?;
    let path = percent_decode(in_repo.split(['#', '?']).next().unwrap_or(""));
    (!repo.join(path.trim_end_matches('/')).exists())
        .then(|| format!("`{url}` names a file this repository does not have"))
}

/// Every `id` (and `name`) of an HTML page.
fn ids(html: &str) -> HashSet<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"\s(?:id|name)="([^"]*)""#).unwrap())
        .captures_iter(html)
        .map(|c| unescape(&c[1]))
        .collect()
}

/// Every HTML file under `dir`, relative to it.
fn html_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir.join(rel)).unwrap() {
        let entry = entry.unwrap();
        let path = rel.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            html_files(dir, &path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// The broken links of the site in `site` (a directory of HTML pages), as
/// `page: problem` lines. `site_url` is the path the site is served under: a page's
/// `<base href>` with it means the site's root. Links into GitHub's copy of this repository
/// must name files that `repo` has.
fn broken_links(site: &Path, site_url: &str, repo: &Path) -> Vec<String> {
    static LINK: OnceLock<Regex> = OnceLock::new();
    static BASE: OnceLock<Regex> = OnceLock::new();
    let link = LINK.get_or_init(|| Regex::new(r#"\s(?:href|src)="([^"]*)""#).unwrap());
    let base_re = BASE.get_or_init(|| Regex::new(r#"<base href="([^"]*)""#).unwrap());
    let mut pages = Vec::new();
    html_files(site, Path::new(""), &mut pages);
    let mut ids_of: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut problems = Vec::new();
    for page in &pages {
        let html = std::fs::read_to_string(site.join(page)).unwrap();
        let base = base_re.captures(&html).map(|c| unescape(&c[1]));
        // The links of the page, without the <base> element's own.
        let html = base_re.replace_all(&html, "<base");
        let dir = match base {
            Some(b) if b == site_url => PathBuf::new(),
            Some(b) => {
                problems.push(format!(
                    "{}: <base href=\"{b}\"> is not the site's root {site_url}",
                    page.display()
                ));
                continue;
            }
            None => page.parent().unwrap_or(Path::new("")).to_path_buf(),
        };
        for href in link.captures_iter(&html).map(|c| unescape(&c[1])) {
            if let Some(p) = link_problem(site, page, &dir, &href, repo, &mut ids_of) {
                problems.push(format!("{}: {p}", page.display()));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// What is wrong with one link `href` of `page` (relative links resolve against `dir`).
fn link_problem(
    site: &Path,
    page: &Path,
    dir: &Path,
    href: &str,
    repo: &Path,
    ids_of: &mut HashMap<PathBuf, HashSet<String>>,
) -> Option<String> {
    let lower = href.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return external_problem(href, repo);
    }
    if lower.starts_with("mailto:") || href == "#" {
        return None;
    }
    if href.is_empty() || href.starts_with('/') || href.contains(':') {
        return Some(format!("link `{href}` is neither relative nor http(s)"));
    }
    let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
    let path = percent_decode(path.split('?').next().unwrap_or(""));
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        let Some(mut t) = resolve(dir, &path) else {
            return Some(format!("link `{href}` leads out of the book"));
        };
        if path.ends_with('/') || site.join(&t).is_dir() {
            t.push("index.html");
        }
        t
    };
    if !site.join(&target).is_file() {
        return Some(format!("link `{href}`: no {}", target.display()));
    }
    let fragment = percent_decode(fragment);
    if fragment.is_empty() {
        return None;
    }
    let known = ids_of
        .entry(target.clone())
        .or_insert_with(|| ids(&std::fs::read_to_string(site.join(&target)).unwrap_or_default()));
    (!known.contains(&fragment)).then(|| {
        format!(
            "link `{href}`: {} has no element with id `{fragment}`",
            target.display()
        )
    })
}

/// book.toml's `site-url` (the path the published book lives under).
fn site_url() -> String {
    let toml = std::fs::read_to_string(root().join("docs/book.toml")).unwrap();
    toml.lines()
        .find_map(|l| l.strip_prefix("site-url = "))
        .map(|v| v.trim().trim_matches('"').to_string())
        .expect("docs/book.toml sets site-url")
}

#[test]
fn the_book_builds_and_every_link_resolves() {
    let site = book();
    let mut pages = Vec::new();
    html_files(site, Path::new(""), &mut pages);
    assert!(pages.len() > 100, "{} pages", pages.len());
    let problems = broken_links(site, &site_url(), &root());
    assert!(
        problems.is_empty(),
        "{} broken link(s) in the book (fix them in docs/ or rules/):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_rule_has_a_page_and_a_row_in_the_index() {
    let site = book();
    let index = std::fs::read_to_string(site.join("rules.html")).unwrap();
    let toc = std::fs::read_to_string(site.join("toc.html")).unwrap();
    let mut ids = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".md") else {
            continue;
        };
        let rule = olmlint::rules::get(id).unwrap_or_else(|| panic!("rules/{name} is no rule"));
        let page = std::fs::read_to_string(site.join(format!("rules/{id}.html")))
            .unwrap_or_else(|e| panic!("rules/{name} has no page in the book: {e}"));
        assert!(
            page.contains(&format!(">{id} {}</a></h1>", rule.name)),
            "{id}'s page title"
        );
        assert!(
            page.contains(">Why OLM cares</a></h2>"),
            "{id}'s page has its body"
        );
        assert!(
            page.contains(&format!(
                "Default severity: <strong>{}",
                rule.severity.as_str()
            )),
            "{id}'s page names its severity"
        );
        let link = format!("href=\"rules/{id}.html\"");
        assert!(index.contains(&link), "the rules index lacks {id}");
        assert!(toc.contains(&link), "the table of contents lacks {id}");
        ids.insert(id.to_string());
    }
    let all: BTreeSet<String> = olmlint::rules::all()
        .iter()
        .map(|r| r.id.to_string())
        .collect();
    assert_eq!(ids, all);
    assert!(
        index.contains(&format!("{} rules;", all.len())),
        "the index counts the rules"
    );
}

/// `olmlint explain` ends with the address of the rule's page in the published book, which is
/// served under book.toml's `site-url`.
#[test]
fn explain_points_to_the_rules_page_in_the_book() {
    let site = book();
    for id in ["OLM001", "OLM301", "OLM720"] {
        let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["explain", id])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let url = text
            .trim_end()
            .lines()
            .last()
            .and_then(|l| l.strip_prefix("Docs: "))
            .unwrap_or_else(|| panic!("explain {id} ends without a Docs: line:\n{text}"));
        let path = url
            .strip_prefix(olmlint::rules::BOOK_URL)
            .unwrap_or_else(|| panic!("{url} is not in the book"));
        assert!(
            site.join(path.trim_start_matches('/')).is_file(),
            "{url}: no such page"
        );
        assert!(well_formed_url(url), "{url}");
    }
    // The workflow that publishes the book builds it with the mdbook the test uses.
    let workflow = std::fs::read_to_string(root().join(".github/workflows/book.yml")).unwrap();
    assert!(
        workflow.contains(&format!(
            "cargo install mdbook --version ={MDBOOK_VERSION} --locked --no-default-features --features search"
        )),
        ".github/workflows/book.yml installs another mdbook than {MDBOOK_VERSION}"
    );
    assert!(workflow.contains("scripts/book.sh target/book"));
    let book_path = olmlint::rules::BOOK_URL
        .split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or("/");
    assert_eq!(format!("{}/", book_path.trim_end_matches('/')), site_url());
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces as `-`.
fn github_slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks).
fn markdown_anchors(text: &str) -> HashSet<String> {
    let mut fence = false;
    let mut anchors = HashSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence && line.starts_with('#') {
            anchors.insert(github_slug(line.trim_start_matches('#')));
        }
    }
    anchors
}

/// The relative links of a Markdown file of the repository that do not resolve (as GitHub
/// renders it: relative to the file, `#anchor` to a heading).
fn broken_markdown_links(file: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"\]\(([^)\s]+)\)").unwrap());
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut problems = Vec::new();
    for href in re.captures_iter(&text).map(|c| c[1].to_string()) {
        if href.starts_with("http://") || href.starts_with("https://") {
            if let Some(p) = external_problem(&href, &root()) {
                problems.push(format!("{file}: {p}"));
            }
            continue;
        }
        let (path, fragment) = href.split_once('#').unwrap_or((&href, ""));
        let target = if path.is_empty() {
            Some(PathBuf::from(file))
        } else {
            resolve(dir, path)
        };
        let Some(target) = target.filter(|t| root().join(t).exists()) else {
            problems.push(format!(
                "{file}: link `{href}` names no file of the repository"
            ));
            continue;
        };
        if !fragment.is_empty() {
            let anchors = markdown_anchors(
                &std::fs::read_to_string(root().join(&target)).unwrap_or_default(),
            );
            if !anchors.contains(fragment) {
                problems.push(format!("{file}: link `{href}`: no such heading"));
            }
        }
    }
    problems
}

/// The README points to the book's chapters, and its links, like those of the chapters kept
/// in docs/ (whose paths other files and pages cite), resolve in the repository.
#[test]
fn readme_and_docs_links_resolve_in_the_repository() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains(&format!("]({}/)", olmlint::rules::BOOK_URL)));
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    for chapter in Regex::new(r"\]\(([a-z-]+\.md)\)")
        .unwrap()
        .captures_iter(&summary)
    {
        let chapter = &chapter[1];
        if chapter == "introduction.md" {
            continue;
        }
        // The three chapters docs/*.md hold are linked where they are.
        let linked = [format!("(docs/src/{chapter})"), format!("(docs/{chapter})")];
        assert!(
            linked.iter().any(|l| readme.contains(l.as_str())),
            "the README does not point to the chapter {chapter}"
        );
    }
    let mut problems = broken_markdown_links("README.md");
    for doc in ["docs/yaml.md", "docs/performance.md", "docs/reliability.md"] {
        problems.extend(broken_markdown_links(doc));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker finds what it is for: a missing page, a missing anchor, a link out of the
/// site, a malformed URL and a link to a file this repository does not have.
#[test]
fn the_link_checker_reports_broken_links() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path();
    std::fs::create_dir_all(site.join("rules")).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<h1 id=\"top\">t</h1><a href=\"rules/a.html#why\">ok</a> <a href=\"#top\">ok</a>\
         <a href=\"rules/b.html\">missing page</a> <a href=\"rules/a.html#nope\">missing anchor</a>\
         <a href=\"../outside.html\">out</a> <a href=\"https://exa mple.com\">bad</a>\
         <a href=\"https://github.com/olmlint/olmlint/blob/main/no/such/file.md\">gone</a>\
         <a href=\"https://github.com/olmlint/olmlint/blob/main/rules/OLM301.md#x\">ok</a>",
    )
    .unwrap();
    std::fs::write(
        site.join("rules/a.html"),
        "<h2 id=\"why\">w</h2><a href=\"../index.html#top\">ok</a>",
    )
    .unwrap();
    std::fs::write(
        site.join("404.html"),
        "<base href=\"/olmlint/\"><a href=\"rules/a.html\">ok</a>",
    )
    .unwrap();
    let problems = broken_links(site, "/olmlint/", &root());
    let expected = [
        "index.html: `https://github.com/olmlint/olmlint/blob/main/no/such/file.md` names a file this repository does not have",
        "index.html: link `../outside.html` leads out of the book",
        "index.html: link `rules/a.html#nope`: rules/a.html has no element with id `nope`",
        "index.html: link `rules/b.html`: no rules/b.html",
        "index.html: malformed URL `https://exa mple.com`",
    ];
    assert_eq!(problems, expected);
}

/// The book's examples pin the action and the pre-commit hooks to the current release, as the
/// README's must (tests/it/release.rs): a release moves them with the version.
#[test]
fn the_book_names_the_current_release() {
    let version = env!("CARGO_PKG_VERSION");
    let pins = Regex::new(r"(olmlint/olmlint@|rev: )v([0-9][0-9A-Za-z.+-]*)").unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("docs/src")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for c in pins.captures_iter(&text) {
            seen += 1;
            assert_eq!(
                &c[2],
                version,
                "docs/src/{} pins {}v{} but the release is {version}",
                path.file_name().unwrap().to_string_lossy(),
                &c[1],
                &c[2]
            );
        }
    }
    assert!(seen >= 3, "{seen} pins");
}
