//! The HTML report and the SVG drawings in a real browser: headless Chromium renders them,
//! the screenshots are decoded and their colours checked, and the report's filter is driven
//! through the URL fragment it reads and writes.
//!
//! Chromium comes from Debian's `chromium` package. When it is missing the test installs it
//! with apt-get (as root); when it cannot, it fails and says how to install it (README,
//! "Tests").

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}

fn find_chromium() -> Option<PathBuf> {
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .find_map(|n| on_path(n))
}

/// The browser, installed from Debian's packages when missing (once per test process).
fn chromium() -> &'static Path {
    static BROWSER: OnceLock<PathBuf> = OnceLock::new();
    BROWSER.get_or_init(|| {
        if let Some(b) = find_chromium() {
            return b;
        }
        eprintln!("chromium not found: installing Debian's chromium package");
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success())
        };
        let installed = apt(&["install", "-y", "--no-install-recommends", "chromium"])
            || (apt(&["update"])
                && apt(&["install", "-y", "--no-install-recommends", "chromium"]));
        match find_chromium() {
            Some(b) if installed => b,
            _ => panic!(
                "headless Chromium is required by this test and could not be installed: run `apt-get install chromium` (Debian/Ubuntu) as root, or put chromium on PATH"
            ),
        }
    })
}

/// Runs headless Chromium with `args` and the URL; a run that hangs is killed after 120 s.
fn browse(profile: &Path, args: &[String], url: &str) -> String {
    let mut child = Command::new(chromium())
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s ({url})");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

struct Picture {
    width: usize,
    rgb: Vec<[u8; 3]>,
}

impl Picture {
    fn load(path: &Path) -> Picture {
        let decoder = png::Decoder::new(std::fs::File::open(path).expect("a screenshot"));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks(channels)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Picture {
            width: info.width as usize,
            rgb,
        }
    }

    /// Pixels within ±3 of a colour.
    fn count(&self, colour: [u8; 3]) -> usize {
        self.rgb
            .iter()
            .filter(|p| p.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 3))
            .count()
    }

    fn non_white(&self) -> usize {
        self.rgb
            .iter()
            .filter(|p| p.iter().any(|&c| c < 240))
            .count()
    }
}

/// The report's and the drawings' colours (src/report/html.rs, src/graph/svg.rs).
const ERROR_FILL: [u8; 3] = [0xff, 0xdd, 0xdd];
const INFO_FILL: [u8; 3] = [0xdd, 0xee, 0xff];
const WARNING_FILL: [u8; 3] = [0xff, 0xff, 0xdd];
const ADDED_FILL: [u8; 3] = [0xdd, 0xff, 0xdd];

fn screenshot(dir: &Path, name: &str, url: &str, size: (u32, u32)) -> Picture {
    let png = dir.join(format!("{name}.png"));
    browse(
        &dir.join(format!("profile-{name}")),
        &[
            format!("--window-size={},{}", size.0, size.1),
            format!("--screenshot={}", png.display()),
        ],
        url,
    );
    Picture::load(&png)
}

fn olmlint(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn url(path: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", path.display())
}

#[test]
fn the_html_report_renders_and_its_filter_works() {
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("report.html");
    olmlint(&[
        "lint",
        "fixtures/graphs/after",
        "--no-config",
        "-f",
        "html",
        "-o",
        report.to_str().unwrap(),
    ]);
    // Everything: error and info rows, and the graphs below.
    let all = screenshot(tmp.path(), "all", &url(&report, ""), (1280, 4000));
    assert!(all.width == 1280);
    assert!(all.count(ERROR_FILL) > 2000, "error rows are drawn");
    assert!(all.count(INFO_FILL) > 500, "the info row is drawn");
    // Filtered by the fragment the page reads (and writes when a filter changes): only app's
    // info finding and app's graphs remain, so nothing is error-red any more.
    let fragment = "#severity=info&package=app";
    let some = screenshot(tmp.path(), "some", &url(&report, fragment), (1280, 4000));
    assert!(some.count(INFO_FILL) > 500, "the info row stays");
    assert_eq!(
        some.count(ERROR_FILL),
        0,
        "the error rows and other packages are hidden"
    );
    assert!(some.non_white() < all.non_white());
    // The DOM after the script ran: the CSP let it run (hash), one row shown of six.
    let dom = browse(
        &tmp.path().join("profile-dom"),
        &["--dump-dom".to_string()],
        &url(&report, fragment),
    );
    assert!(dom.contains("data-ready=\"true\""), "the script ran: {dom}");
    assert!(dom.contains("1 of 6 findings shown"), "{dom}");
    let shown = dom
        .lines()
        .filter(|l| l.starts_with("<tr class=") && !l.contains(" hidden"))
        .count();
    assert_eq!(shown, 1, "{dom}");
}

#[test]
fn the_svg_drawings_render() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, args) in [
        ("state", vec!["graph", "fixtures/graphs/after", "-f", "svg"]),
        (
            "diff",
            vec![
                "graph",
                "fixtures/graphs/after",
                "--baseline",
                "fixtures/graphs/before",
                "-f",
                "svg",
            ],
        ),
    ] {
        let svg = tmp.path().join(format!("{name}.svg"));
        let mut args = args.clone();
        args.extend(["-o", svg.to_str().unwrap()]);
        olmlint(&args);
        let text = std::fs::read_to_string(&svg).unwrap();
        let size = |attr: &str| -> u32 {
            let at = text.find(&format!("{attr}=\"")).unwrap() + attr.len() + 2;
            text[at..].split('"').next().unwrap().parse().unwrap()
        };
        let picture = screenshot(
            tmp.path(),
            name,
            &url(&svg, ""),
            (size("width"), size("height")),
        );
        assert!(picture.non_white() > 5000, "{name}: the drawing is visible");
        if name == "state" {
            // The legend's error box is 2 000 pixels; OLM105/OLM501/OLM503 bundles add more.
            assert!(picture.count(ERROR_FILL) > 4000, "error bundles are red");
        } else {
            assert!(picture.count(ADDED_FILL) > 2500, "added bundles are green");
            assert!(
                picture.count(WARNING_FILL) > 2500,
                "the stranded bundle (OLM704)"
            );
        }
    }
}

/// #43: a malformed escape in the URL fragment (`%E0%A4%A`: `decodeURIComponent` throws) drops
/// that one filter; the script still runs and applies the others.
#[test]
fn a_malformed_fragment_still_filters() {
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("report.html");
    olmlint(&[
        "lint",
        "fixtures/graphs/after",
        "--no-config",
        "-f",
        "html",
        "-o",
        report.to_str().unwrap(),
    ]);
    let dom = browse(
        &tmp.path().join("profile-dom"),
        &["--dump-dom".to_string()],
        &url(&report, "#text=%E0%A4%A&severity=info&package=app&rule=%"),
    );
    assert!(dom.contains("data-ready=\"true\""), "the script ran: {dom}");
    assert!(dom.contains("1 of 6 findings shown"), "{dom}");
}

/// The version of the `mermaid` npm package the Mermaid test draws with (GitHub draws Mermaid
/// 11 diagrams).
const MERMAID: &str = "mermaid@11.12.1";

/// `mermaid.min.js` (the package's self-contained browser build), installed with npm into
/// `target/mermaid` once; npm comes from Debian's `npm` package when missing. Fails, saying
/// why, when it cannot be installed.
fn mermaid_js() -> &'static Path {
    static JS: OnceLock<PathBuf> = OnceLock::new();
    JS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mermaid");
        let js = dir.join("node_modules/mermaid/dist/mermaid.min.js");
        let stamp = dir.join("installed");
        if js.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == MERMAID) {
            return js;
        }
        std::fs::create_dir_all(&dir).unwrap();
        if on_path("npm").is_none() {
            eprintln!("npm not found: installing Debian's npm package");
            let _ = Command::new("apt-get")
                .args(["install", "-y", "--no-install-recommends", "npm"])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status();
        }
        let out = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix"])
            .arg(&dir)
            .arg(MERMAID)
            .output();
        match out {
            Ok(o) if o.status.success() && js.is_file() => {
                std::fs::write(&stamp, MERMAID).unwrap();
                js
            }
            Ok(o) => panic!(
                "`npm install {MERMAID}` into {} failed: {}{}",
                dir.display(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => panic!(
                "this test draws with the `mermaid` npm package and needs npm (`apt-get install npm`): {e}"
            ),
        }
    })
}

/// The DOM after Mermaid drew `diagram` in Chromium (the library's defaults, as mermaid-cli
/// and GitHub use it), with `data-done` saying whether it drew or failed.
fn mermaid_dom(dir: &Path, name: &str, diagram: &str) -> String {
    let page = dir.join(format!("{name}.html"));
    let text = serde_json::to_string(diagram)
        .unwrap()
        .replace('<', "\\u003c");
    std::fs::write(
        &page,
        format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><div id=\"out\"></div>\
<script src=\"{}\"></script><script>\
mermaid.initialize({{startOnLoad: false}});\
mermaid.render(\"d\", {text}).then(function (r) {{ document.getElementById(\"out\").innerHTML = r.svg; document.body.dataset.done = \"drawn\"; }},\
function (e) {{ document.body.dataset.done = \"failed: \" + e; }});\
</script></body></html>",
            url(mermaid_js(), "")
        ),
    )
    .unwrap();
    browse(
        &dir.join(format!("profile-{name}")),
        &["--dump-dom".to_string()],
        &url(&page, ""),
    )
}

/// The text of the `<style>` elements of a DOM.
fn styles(dom: &str) -> String {
    dom.split("<style")
        .skip(1)
        .filter_map(|s| {
            s.split_once('>')
                .and_then(|(_, rest)| rest.split_once("</style>"))
        })
        .map(|(css, _)| css)
        .collect()
}

/// #43: Mermaid itself, in a browser, draws a diagram of names holding a directive
/// (`%%{init: … themeCSS …}%%`), a `click` callback and HTML as text: its style sheet is the
/// default one, no link or image comes from a name, and the names are in the labels. The
/// same directive outside a label does restyle the diagram (the check can see it).
#[test]
fn mermaid_draws_hostile_names_as_text() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    let directive = "%%{init: {'theme': 'dark', 'themeCSS': '.olmprobe{fill:red}'}}%%";
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let (p, c) = (q(&format!("p {directive}")), q(&format!("c {directive}")));
    let b = q(&format!(
        "b {directive} click c0n0 href \"https://e.example\" <img src=x onerror=alert(1)> A:::error &lt;i&gt;"
    ));
    std::fs::write(
        cat.join("c.yaml"),
        format!("schema: olm.package\nname: {p}\ndefaultChannel: {c}\n---\nschema: olm.channel\npackage: {p}\nname: {c}\nentries:\n  - name: {b}\n"),
    )
    .unwrap();
    let diagram = tmp.path().join("d.mmd");
    olmlint(&[
        "graph",
        "--no-config",
        "-f",
        "mermaid",
        cat.to_str().unwrap(),
        "-o",
        diagram.to_str().unwrap(),
    ]);
    let diagram = std::fs::read_to_string(&diagram).unwrap();
    // The oracle: the directive where Mermaid reads it restyles the drawing.
    let control = mermaid_dom(
        tmp.path(),
        "control",
        &format!("{directive}\nflowchart LR\n  a[\"x\"]\n"),
    );
    assert!(control.contains("data-done=\"drawn\""), "{control}");
    assert!(styles(&control).contains(".olmprobe{fill:red"), "{control}");
    let dom = mermaid_dom(tmp.path(), "names", &diagram);
    assert!(
        dom.contains("data-done=\"drawn\""),
        "Mermaid drew it: {dom}"
    );
    let css = styles(&dom);
    assert!(
        !css.contains("olmprobe"),
        "a name restyled the diagram: {css}"
    );
    assert!(!dom.contains("<img") && !dom.contains("<a "), "{dom}");
    for text in [
        "%%{init: {'theme': 'dark', 'themeCSS': '.olmprobe{fill:red}'}}%%",
        "click c0n0 href",
        "&lt;img src=x onerror=alert(1)&gt;",
        "A:::error",
        "&amp;lt;i&amp;gt;",
    ] {
        assert!(dom.contains(text), "{text} is not drawn as text: {dom}");
    }
}
