//! The editor integrations, run for real: the VS Code extension in editors/vscode packaged with
//! `vsce` from npm.
//!
//! What they need is installed when missing: the npm packages (pinned) under target/, npm from
//! Debian's package with apt-get (as root). When that cannot be done the tests fail and say
//! how to install it; they never skip.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The packager, pinned: @vscode/vsce 4 needs Node 22, and Debian's and this image's Node is
/// older; 3.9.2 runs on Node 20.
const VSCE: &str = "@vscode/vsce@3.9.2";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `program` from PATH, else Debian's `package` installed with apt-get (again after `apt-get
/// update`); `None` when it is still missing.
fn installed(program: &str, package: &str) -> Option<PathBuf> {
    if let Some(p) = on_path(program) {
        return Some(p);
    }
    eprintln!("{program} not found: installing Debian's {package} package");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let install = ["install", "-y", "--no-install-recommends", package];
    let _ = apt(&install) || (apt(&["update"]) && apt(&install));
    on_path(program)
}

/// npm, with a Node that runs the pinned vsce (20 or newer).
fn npm() -> &'static Path {
    static NPM: OnceLock<PathBuf> = OnceLock::new();
    NPM.get_or_init(|| {
        let npm = installed("npm", "npm").unwrap_or_else(|| {
            panic!("this test packages the VS Code extension with npm: install Node.js 20 or newer with npm (`apt-get install npm`)")
        });
        let out = Command::new("node").arg("--version").output().unwrap();
        let version = String::from_utf8_lossy(&out.stdout);
        let major: u32 = version
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        assert!(
            major >= 20,
            "{VSCE} needs Node.js 20 or newer, this machine has {}: install a newer Node.js (https://nodejs.org)",
            version.trim()
        );
        npm
    })
}

/// The `vsce` command, installed into target/vsce (once; again when [`VSCE`] changes).
fn vsce() -> &'static Path {
    static VSCE_BIN: OnceLock<PathBuf> = OnceLock::new();
    VSCE_BIN.get_or_init(|| {
        let dir = root().join("target/vsce");
        let bin = dir.join("node_modules/.bin/vsce");
        let stamp = dir.join("installed");
        if bin.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == VSCE) {
            return bin;
        }
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(npm())
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--prefix",
            ])
            .arg(&dir)
            .arg(VSCE)
            .output()
            .unwrap();
        assert!(
            out.status.success() && bin.is_file(),
            "`npm install {VSCE}` into target/vsce failed: {}",
            text(&out)
        );
        std::fs::write(&stamp, VSCE).unwrap();
        bin
    })
}

/// editors/vscode copied into `to` as it is in the repository (the license link followed),
/// without what a local build left there.
fn copy_extension(to: &Path) {
    let from = root().join("editors/vscode");
    for e in std::fs::read_dir(&from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name == "node_modules" || name.ends_with(".vsix") {
            continue;
        }
        assert!(
            !e.path().canonicalize().unwrap().is_dir(),
            "editors/vscode/{name}: the extension is flat; copy its directories here too"
        );
        std::fs::copy(e.path(), to.join(&*name)).unwrap();
    }
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} is not in the package: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The extension's dependencies installed from its lock file and packaged with `vsce package`:
/// the .vsix holds the manifest (at the workspace's version, with the `olmlint.path` setting),
/// the script, README and license, and the language client it requires, which resolves from
/// the packaged extension.
#[test]
fn the_vscode_extension_packages_with_vsce() {
    let stage = tempfile::tempdir().unwrap();
    let ext = stage.path().join("olmlint");
    std::fs::create_dir(&ext).unwrap();
    copy_extension(&ext);
    let out = Command::new(npm())
        .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
        .current_dir(&ext)
        .output()
        .unwrap();
    assert!(out.status.success(), "npm ci: {}", text(&out));
    let vsix = stage.path().join("olmlint.vsix");
    let out = Command::new(vsce())
        .args(["package", "--no-yarn", "-o"])
        .arg(&vsix)
        .current_dir(&ext)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "vsce package: {}", text(&out));

    let unpacked = stage.path().join("unpacked");
    let out = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&vsix)
        .arg(&unpacked)
        .output()
        .expect("python3 unpacks the .vsix (a zip archive)");
    assert!(out.status.success(), "unzip: {}", text(&out));
    let packed = unpacked.join("extension");

    let manifest = json(&packed.join("package.json"));
    assert_eq!(manifest["name"], "olmlint");
    assert_eq!(
        manifest["version"],
        env!("CARGO_PKG_VERSION"),
        "the extension's version follows the workspace's (docs/src/releasing.md)"
    );
    assert_eq!(manifest["main"], "./extension.js");
    assert!(manifest["engines"]["vscode"].is_string(), "{manifest}");
    let setting = &manifest["contributes"]["configuration"]["properties"]["olmlint.path"];
    assert_eq!(setting["default"], "olmlint", "{manifest}");
    let events: Vec<&str> = manifest["activationEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(events, ["onLanguage:yaml", "onLanguage:json"]);

    let script = std::fs::read_to_string(packed.join("extension.js")).unwrap();
    assert_eq!(
        script,
        std::fs::read_to_string(root().join("editors/vscode/extension.js")).unwrap()
    );
    assert!(script.contains("args: ['server']"), "{script}");
    for (file, starts) in [
        ("LICENSE.txt", "Apache License"),
        ("readme.md", "# olmlint for VS Code"),
    ] {
        let t = std::fs::read_to_string(packed.join(file)).unwrap();
        assert!(t.trim_start().starts_with(starts), "{file}: {t:.200}");
    }
    assert!(!packed.join("package-lock.json").exists());

    let client = json(&packed.join("node_modules/vscode-languageclient/package.json"));
    assert_eq!(
        client["version"], manifest["dependencies"]["vscode-languageclient"],
        "the packaged client is the pinned one"
    );
    // What `require('vscode-languageclient/node')` loads when VS Code runs the extension.
    let out = Command::new("node")
        .args([
            "-e",
            "process.stdout.write(require.resolve('vscode-languageclient/node'))",
        ])
        .current_dir(&packed)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        Path::new(&*String::from_utf8_lossy(&out.stdout))
            .starts_with(packed.canonicalize().unwrap()),
        "{}",
        text(&out)
    );
    let out = Command::new("node")
        .args(["--check", "extension.js"])
        .current_dir(&packed)
        .output()
        .unwrap();
    assert!(out.status.success(), "extension.js: {}", text(&out));
}
