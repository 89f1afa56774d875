//! Konflux builds: the `PipelineRun`s under `.tekton/` name, for each catalog image, the
//! Dockerfile, the build context and the build arguments (`dockerfile`, `path-context`,
//! `build-args`, `build-args-file` parameters of the `docker-build` pipelines). They are the
//! exact build, where a Dockerfile alone leaves `ARG INPUT_DIR` open.

use std::path::{Path, PathBuf};

/// Pipeline files read, at most, and their largest size: a repository has a few dozen.
const MAX_FILES: usize = 500;
const MAX_SIZE: u64 = 1 << 20;

/// One image build a pipeline describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    /// The pipeline file, relative to the repository.
    pub file: PathBuf,
    /// `dockerfile`, relative to the context (or to the repository, as the build task also
    /// tries).
    pub dockerfile: String,
    /// `path-context`, relative to the repository (`.` by default).
    pub context: String,
    /// `build-args` and the lines of `build-args-file`, `KEY=VALUE`.
    pub args: Vec<(String, String)>,
}

/// The pipelines of the repository at `top` (`.tekton/*.yaml`), in file-name order.
pub fn pipelines(top: &Path) -> Vec<Pipeline> {
    let dir = top.join(".tekton");
    if std::fs::symlink_metadata(&dir).map_or(true, |m| !m.is_dir()) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files.truncate(MAX_FILES);
    files
        .iter()
        .filter_map(|f| {
            let text = super::read_small(top, f, MAX_SIZE)?;
            let rel = f.strip_prefix(top).unwrap_or(f).to_path_buf();
            read(top, &text, rel)
        })
        .collect()
}

/// The `spec.params` of a `PipelineRun` document, when it builds with a Dockerfile; the
/// lines of its `build-args-file` (a file of the repository at `top`) join `build-args`.
fn read(top: &Path, text: &str, file: PathBuf) -> Option<Pipeline> {
    let loaded = crate::parse_text_everything(text, &crate::Limits::default());
    for doc in &loaded.docs {
        let Some(root) = &doc.root else { continue };
        if root.get("kind").and_then(|k| k.as_str()) != Some("PipelineRun") {
            continue;
        }
        let Some(params) = root
            .get("spec")
            .and_then(|s| s.get("params"))
            .and_then(|p| p.as_seq())
        else {
            continue;
        };
        let param = |name: &str| {
            params
                .iter()
                .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
                .and_then(|p| p.get("value"))
        };
        let Some(dockerfile) = param("dockerfile").and_then(|v| v.as_str()) else {
            continue;
        };
        let context = param("path-context")
            .and_then(|v| v.as_str())
            .unwrap_or(".")
            .to_string();
        let args = param("build-args")
            .and_then(|v| v.as_seq())
            .unwrap_or(&[])
            .iter()
            .filter_map(|a| a.as_str()?.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .chain(
                param("build-args-file")
                    .and_then(|v| v.as_str())
                    .map(|name| args_file(top, name))
                    .unwrap_or_default(),
            )
            .collect();
        return Some(Pipeline {
            file,
            dockerfile: dockerfile.to_string(),
            context,
            args,
        });
    }
    None
}

/// The `KEY=VALUE` lines of a pipeline's `build-args-file`, a file of the repository.
fn args_file(top: &Path, name: &str) -> Vec<(String, String)> {
    if name.is_empty() || name.contains("..") {
        return Vec::new();
    }
    let path = top.join(name.trim_start_matches('/'));
    let Some(text) = super::read_small(top, &path, MAX_SIZE) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().trim_matches('"').to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_konflux_pipeline_run() {
        let text = "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: submariner-fbc-4-16-on-push\nspec:\n  params:\n  - name: git-url\n    value: '{{source_url}}'\n  - name: dockerfile\n    value: catalog.Dockerfile\n  - name: build-args\n    value:\n    - INPUT_DIR=catalog-4-16\n    - OPM_IMAGE=registry.redhat.io/openshift4/ose-operator-registry-rhel9:v4.16\n  pipelineSpec:\n    params:\n    - default: .\n      name: path-context\n";
        let p = read(Path::new("."), text, PathBuf::from(".tekton/x.yaml")).unwrap();
        assert_eq!(p.dockerfile, "catalog.Dockerfile");
        assert_eq!(p.context, ".");
        assert_eq!(
            p.args.first(),
            Some(&("INPUT_DIR".to_string(), "catalog-4-16".to_string()))
        );
    }

    #[test]
    fn other_documents_are_not_builds() {
        assert!(read(
            Path::new("."),
            "kind: Pipeline\nspec:\n  params: []\n",
            PathBuf::new()
        )
        .is_none());
        assert!(read(
            Path::new("."),
            "kind: PipelineRun\nspec:\n  params:\n  - name: x\n",
            PathBuf::new()
        )
        .is_none());
        assert!(read(Path::new("."), ":\n- [", PathBuf::new()).is_none());
    }
}
