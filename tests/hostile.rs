//! #28 (first part): a pull request controls every file name and symlink of the catalog.
//! Links that leave the catalog are not read (their content must never reach a report), and
//! files are read with the size limit enforced while reading.

#![cfg(unix)]

use serde_json::Value;

fn lint(dir: &std::path::Path) -> (Vec<Value>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
        .args(["lint", "--no-config", "-f", "json"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let v: Value = serde_json::from_str(&text).unwrap();
    (v["diagnostics"].as_array().unwrap().clone(), text)
}

const CATALOG: &str = "schema: olm.package\nname: foo\ndefaultChannel: stable\n";

#[test]
fn symlinks_out_of_the_catalog_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.yaml");
    std::fs::write(&secret, "token: s3cr3t-value-that-must-not-leak\n").unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("package.yaml"), CATALOG).unwrap();
    std::os::unix::fs::symlink(&secret, cat.join("x.yaml")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", cat.join("passwd.yaml")).unwrap();
    let (d, text) = lint(&cat);
    assert!(!text.contains("s3cr3t"), "{text}");
    assert!(!text.contains("root:"), "{text}");
    let links: Vec<&Value> = d
        .iter()
        .filter(|x| {
            x["message"]
                .as_str()
                .unwrap()
                .contains("symbolic link to a target outside the catalog; not read")
        })
        .collect();
    assert_eq!(links.len(), 2, "{d:#?}");
}

#[test]
fn symlinks_inside_the_catalog_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(cat.join("real")).unwrap();
    std::fs::write(cat.join("real/package.yaml"), "schema: olm.package\nname: foo\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v1.0.0\n---\nschema: olm.bundle\npackage: foo\nname: foo.v1.0.0\nimage: quay.io/x/foo:v1\nproperties:\n  - type: olm.package\n    value: {packageName: foo, version: 1.0.0}\n").unwrap();
    std::os::unix::fs::symlink("real/package.yaml", cat.join("link.yaml")).unwrap();
    let (d, _) = lint(&cat);
    // Read twice (as opm does): duplicate package.
    assert!(d.iter().any(|x| x["rule"] == "OLM101"), "{d:#?}");
}

#[test]
fn special_files_are_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("package.yaml"), CATALOG).unwrap();
    // A link to a device inside... /dev is outside the catalog; a FIFO inside is not a file.
    std::os::unix::fs::symlink("/dev/zero", cat.join("zero.yaml")).unwrap();
    let fifo = cat.join("fifo.yaml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let (d, _) = lint(&cat);
    assert!(d.iter().all(|x| x["rule"] != "OLM003"), "{d:#?}");
}

#[test]
fn timeouts_that_are_not_numbers_of_seconds_are_usage_errors() {
    for t in ["nan", "inf", "1e300", "x"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_olmlint"))
            .args(["lint", "--no-config", "-q", "--timeout", t, "."])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--timeout"),
            "{t}"
        );
    }
}

#[test]
fn a_temporary_left_by_a_killed_fix_is_not_catalog_content() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = tmp.path().join("catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("package.yaml"), CATALOG).unwrap();
    // What a fix killed at the rename leaves: a full copy of a catalog file.
    std::fs::write(cat.join(".olmlint-x1Y2z3.tmp"), CATALOG).unwrap();
    let (d, _) = lint(&cat);
    assert!(d.iter().all(|x| x["rule"] != "OLM101"), "{d:#?}");
}
