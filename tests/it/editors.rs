//! The editor integrations, run for real: the VS Code extension in editors/vscode packaged with
//! `vsce` from npm, and Neovim from Debian's package, headless, showing the diagnostics of
//! `olmlint server` through its own LSP client.
//!
//! What they need is installed when missing: the npm packages (pinned) under target/, npm and
//! Neovim from Debian's packages with apt-get (as root). When that cannot be done the tests
//! fail and say how to install it; they never skip.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
    // The values `olmlint server` takes (`initializationOptions.resolutionChecks`).
    let checks =
        &manifest["contributes"]["configuration"]["properties"]["olmlint.resolutionChecks"];
    assert_eq!(
        checks["enum"],
        serde_json::json!(["auto", "deferred", "everyEdit"]),
        "{manifest}"
    );
    assert_eq!(checks["default"], "auto", "{manifest}");
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

/// Neovim, from Debian's package when it is missing.
fn nvim() -> &'static Path {
    static NVIM: OnceLock<PathBuf> = OnceLock::new();
    NVIM.get_or_init(|| {
        installed("nvim", "neovim").unwrap_or_else(|| {
            panic!("Neovim is required by this test and could not be installed: run `apt-get install neovim` (Debian/Ubuntu) as root, or put nvim on PATH")
        })
    })
}

/// Run by Neovim: starts `olmlint server` with the LSP client of Neovim 0.7 (Debian bookworm's;
/// `vim.lsp.start_client` and `buf_attach_client` are in every later version too), opens the
/// file, waits for its diagnostics, stops the server and writes what it saw as JSON. Any
/// error is written instead, so that Neovim never waits for input.
const NVIM_SCRIPT: &str = r#"
local function finish(result)
  local f = assert(io.open(vim.env.OLMLINT_OUT, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  local exit_code
  local id = vim.lsp.start_client({
    name = 'olmlint',
    cmd = { vim.env.OLMLINT_BIN, 'server' },
    root_dir = vim.env.OLMLINT_ROOT,
    on_exit = function(code) exit_code = code end,
  })
  assert(id, 'vim.lsp.start_client did not start olmlint server')
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.OLMLINT_FILE))
  assert(vim.lsp.buf_attach_client(0, id), 'the client did not attach to the buffer')
  -- Until diagnostics come, or the server exits (an error: it was not asked to).
  vim.wait(60000, function() return exit_code ~= nil or #vim.diagnostic.get(0) > 0 end, 50)
  local published = #vim.diagnostic.get(0) > 0
  local exited_early = exit_code
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = (d.user_data and d.user_data.lsp) or {}
    table.insert(diagnostics, {
      lnum = d.lnum, col = d.col, severity = d.severity,
      code = d.code or lsp.code, source = d.source, message = d.message,
    })
  end
  local client = vim.lsp.get_client_by_id(id)
  if client then client.stop() end
  vim.wait(10000, function() return exit_code ~= nil end, 50)
  local v = vim.version()
  finish({
    published = published, exited_early = exited_early, diagnostics = diagnostics,
    exit_code = exit_code,
    nvim = v.major .. '.' .. v.minor .. '.' .. v.patch,
  })
end)
if not ok then finish({ error = tostring(err) }) end
"#;

/// Runs Neovim headless on the script with `env`; its output. Killed after 180 s.
fn run_nvim(dir: &Path, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(nvim());
    cmd.args([
        "--headless",
        "--clean",
        "-c",
        "lua dofile(vim.env.OLMLINT_SCRIPT)",
    ])
    .current_dir(dir)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // Neovim's state (the LSP log among it) stays in the test's directory.
    for var in [
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
    ] {
        cmd.env(var, dir.join("xdg"));
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("start nvim");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("nvim did not finish within 180 s: {}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Neovim opens a broken catalog (a copy of fixtures/catalogs/broken-graph) and its LSP client
/// receives the findings `olmlint lint` reports on it: each rule at its line and column (Neovim
/// converts the server's UTF-16 positions to bytes) and severity; the server exits with 0
/// when Neovim stops it.
#[test]
fn neovim_shows_the_servers_diagnostics() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("broken-graph");
    std::fs::create_dir(&catalog).unwrap();
    let file = catalog.join("catalog.yaml");
    std::fs::copy(
        root().join("fixtures/catalogs/broken-graph/catalog.yaml"),
        &file,
    )
    .unwrap();
    let script = tmp.path().join("olmlint.lua");
    std::fs::write(&script, NVIM_SCRIPT).unwrap();
    let result = tmp.path().join("result.json");
    let out = run_nvim(
        tmp.path(),
        &[
            ("OLMLINT_SCRIPT", &script),
            ("OLMLINT_BIN", Path::new(env!("CARGO_BIN_EXE_olmlint"))),
            ("OLMLINT_ROOT", &catalog),
            ("OLMLINT_FILE", &file),
            ("OLMLINT_OUT", &result),
        ],
    );
    let seen = std::fs::read_to_string(&result)
        .unwrap_or_else(|e| panic!("nvim wrote no result ({e}): {}", text(&out)));
    eprintln!("Neovim saw: {seen}");
    let seen: Value = serde_json::from_str(&seen).unwrap();
    assert!(seen.get("error").is_none(), "{seen}\n{}", text(&out));
    assert!(
        seen.get("exited_early").is_none(),
        "the server exited before publishing: {seen}\n{}",
        text(&out)
    );
    assert_eq!(seen["published"], true, "no diagnostics in 60 s: {seen}");
    assert_eq!(seen["exit_code"], 0, "after shutdown and exit: {seen}");

    let severity = |s: &Value| match s.as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "info",
        _ => "hint",
    };
    let mut in_nvim: Vec<(String, u64, u64, &str)> = seen["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "olmlint", "{d}");
            let code = d["code"].as_str().unwrap().to_string();
            (
                code,
                d["lnum"].as_u64().unwrap() + 1,
                d["col"].as_u64().unwrap() + 1,
                severity(&d["severity"]),
            )
        })
        .collect();
    in_nvim.sort();
    let (cli, _) = crate::common::lint_json(None, &[catalog.to_str().unwrap()]);
    let mut expected: Vec<(String, u64, u64, &str)> = cli
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["severity"].as_str().unwrap(),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(in_nvim, expected, "Neovim's diagnostics, then the CLI's");
    // The fixture's first finding, as fixtures/expected/broken-graph.json records it.
    assert!(
        in_nvim.contains(&("OLM102".to_string(), 4, 17, "error")),
        "{in_nvim:?}"
    );
}
