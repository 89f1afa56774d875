//! The other operators of an operator repository (community-operators-prod,
//! certified-operators) that may provide a dependency: a pull request changes one operator,
//! and what it depends on is often another operator of the same repository (cpd-platform-
//! operator on ibm-common-service-operator's CommonService). They are found without reading
//! the repository (1 000+ operators): by package name, an operator directory of that name; by
//! API group, an operator whose newest bundle ships a manifest whose file name carries the
//! group (`operator.ibm.com_commonservices.yaml`, as operator-sdk names CRD files). The
//! resolution then loads those few whole and decides for real.

use std::path::{Path, PathBuf};

/// Operator directories listed at most while looking for an API group's provider.
const MAX_OPERATORS: usize = 20_000;
/// Providers returned at most (each is loaded whole as a context catalog).
pub const MAX_PROVIDERS: usize = 8;

/// The operator directories of the repository at `repo` that may provide one of `packages`
/// or an API of one of `groups`, other than `exclude`.
pub fn providers(
    repo: &Path,
    packages: &[String],
    groups: &[String],
    exclude: &[PathBuf],
) -> Vec<PathBuf> {
    let operators = repo.join("operators");
    let excluded = |d: &Path| exclude.iter().any(|e| e == d);
    let mut found: Vec<PathBuf> = Vec::new();
    for p in packages {
        // A package name is a directory name here, never a path.
        let plain = !p.is_empty() && p != "." && p != ".." && !p.contains(['/', '\\']);
        if !plain {
            continue;
        }
        let dir = operators.join(p);
        if !excluded(&dir) && crate::walk::is_operator_dir(&dir) && !found.contains(&dir) {
            found.push(dir);
        }
    }
    let groups: Vec<String> = groups
        .iter()
        .filter(|g| !g.is_empty())
        .map(|g| g.to_ascii_lowercase())
        .collect();
    if !groups.is_empty() {
        let Ok(entries) = std::fs::read_dir(&operators) else {
            return found;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .take(MAX_OPERATORS)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        dirs.sort();
        for dir in dirs {
            if found.len() >= MAX_PROVIDERS {
                break;
            }
            if excluded(&dir) || found.contains(&dir) {
                continue;
            }
            if newest_manifest_names(&dir)
                .iter()
                .any(|n| groups.iter().any(|g| n.contains(g.as_str())))
            {
                found.push(dir);
            }
        }
    }
    found.truncate(MAX_PROVIDERS);
    found
}

/// The file names (lower case) of the newest bundle's `manifests/` in an operator directory,
/// the newest by the version its directory is named after.
fn newest_manifest_names(operator: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(operator) else {
        return Vec::new();
    };
    let newest = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let v = semver::Version::parse(name.trim_start_matches('v')).ok()?;
            Some((v, e.path()))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, p)| p);
    let Some(manifests) = newest.map(|v| v.join("manifests")) else {
        return Vec::new();
    };
    std::fs::read_dir(manifests)
        .map(|es| {
            es.flatten()
                .take(1_000)
                .map(|e| e.file_name().to_string_lossy().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_by_package_directory_and_by_the_group_in_crd_file_names() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        for (op, version, file) in [
            ("common", "4.0.0", "operator.ibm.com_commonservices.yaml"),
            ("common", "3.9.0", "old.yaml"),
            ("other", "1.0.0", "example.com_widgets.yaml"),
            ("self", "1.0.0", "operator.ibm.com_mine.yaml"),
        ] {
            let m = repo
                .join("operators")
                .join(op)
                .join(version)
                .join("manifests");
            std::fs::create_dir_all(&m).unwrap();
            std::fs::write(m.join(file), "").unwrap();
            std::fs::write(repo.join("operators").join(op).join("ci.yaml"), "").unwrap();
        }
        let me = vec![repo.join("operators/self")];
        let by_group = providers(repo, &[], &["Operator.IBM.com".into()], &me);
        assert_eq!(by_group, [repo.join("operators/common")]);
        let by_package = providers(
            repo,
            &["other".into(), "../x".into(), "absent".into()],
            &[],
            &me,
        );
        assert_eq!(by_package, [repo.join("operators/other")]);
    }
}
