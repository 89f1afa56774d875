//! What a Dockerfile (or Containerfile) puts into a catalog image: the sources it `ADD`s or
//! `COPY`s into the configs directory, the directory `opm serve` reads (the
//! `operators.operatorframework.io.index.configs.v1` label, `/configs` by default, as
//! `opm generate dockerfile` writes it).
//!
//! I/O-free: text in, instructions out. Our own reader rather than a Dockerfile crate: only a
//! handful of instructions matter here, and what matters is BuildKit's reading of them —
//! the `# escape=` directive, continuation lines with comment lines inside them, flags,
//! the JSON form, heredocs skipped, and `ARG`/`ENV` substitution (`$A`, `${A}`,
//! `${A:-default}`, `${A:+alt}`) so that `COPY catalog/${OCP_VERSION} /configs` names a
//! directory. An argument with no value (set only by `--build-arg`) becomes `*`, and is
//! reported as such: [`Copy::unresolved`].

/// The label that names the configs directory of a catalog image.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
/// The configs directory when no label names one.
pub const DEFAULT_CONFIGS: &str = "/configs";
/// Instructions read from one file, at most: a Dockerfile is a few dozen lines, and a
/// hostile one must not cost more than it is worth.
const MAX_INSTRUCTIONS: usize = 10_000;

/// One `ADD` or `COPY` of files from the build context (not `--from` another stage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    /// The line the instruction starts on, 1-based.
    pub line: usize,
    /// `ADD` or `COPY`, as written (upper case).
    pub instruction: &'static str,
    /// Sources, relative to the build context, after substitution.
    pub sources: Vec<String>,
    /// The destination, absolute (a relative one is resolved against `WORKDIR`).
    pub dest: String,
    /// A build argument or variable with no value was substituted by nothing.
    pub unresolved: Vec<String>,
    /// The stage (0-based) the instruction is in.
    pub stage: usize,
}

/// One `FROM` stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stage {
    /// `FROM … AS name`, lower case.
    pub name: Option<String>,
    /// The configs label this stage sets, last one wins.
    pub configs_label: Option<String>,
}

/// What a Dockerfile says about a catalog image.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dockerfile {
    pub stages: Vec<Stage>,
    /// Every `ADD`/`COPY` from the build context, in order.
    pub copies: Vec<Copy>,
}

impl Dockerfile {
    /// The configs directory of the image the last stage builds: its label, else
    /// `/configs`. (A label set in an earlier stage is not inherited unless that stage is
    /// the base of the last; opm's images set it in the last stage.)
    pub fn configs_dir(&self) -> String {
        let label = self.stages.last().and_then(|s| s.configs_label.clone());
        normalize_dest(label.as_deref().unwrap_or(DEFAULT_CONFIGS), "/")
    }

    /// Whether any stage sets the configs label: the file is certainly a catalog image's.
    pub fn labelled(&self) -> bool {
        self.stages.iter().any(|s| s.configs_label.is_some())
    }

    /// The copies that put files into the configs directory (at it or below it), in any
    /// stage: a builder stage that copies the catalog to `/configs` and a last stage that
    /// copies `/configs` `--from` it is the usual way to pre-build opm's cache.
    pub fn catalog_copies(&self) -> Vec<&Copy> {
        let configs = self.configs_dir();
        self.copies
            .iter()
            .filter(|c| is_at_or_below(&c.dest, &configs))
            .collect()
    }
}

fn is_at_or_below(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir || dir.is_empty() || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// A destination as an absolute path without `.`/`..`/trailing slashes, against `workdir`.
fn normalize_dest(dest: &str, workdir: &str) -> String {
    let joined = if dest.starts_with('/') {
        dest.to_string()
    } else {
        format!("{}/{dest}", workdir.trim_end_matches('/'))
    };
    let mut parts: Vec<&str> = Vec::new();
    for p in joined.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// One logical instruction: its first line and its text with continuations joined.
struct Logical {
    line: usize,
    text: String,
}

/// Splits `text` into instructions as BuildKit does: the escape directive, comment lines
/// (also inside a continued instruction), continuation lines, heredoc bodies skipped.
fn logical_lines(text: &str) -> Vec<Logical> {
    let escape = escape_char(text);
    let mut out: Vec<Logical> = Vec::new();
    let mut current: Option<Logical> = None;
    let mut heredoc: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        if out.len() >= MAX_INSTRUCTIONS {
            break;
        }
        let line = raw.trim_end_matches('\r');
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') || (current.is_none() && trimmed.is_empty()) {
            continue;
        }
        let body = line.trim_end();
        let (body, continued) = match body.strip_suffix(escape) {
            Some(b) => (b, true),
            None => (body, false),
        };
        let logical = current.get_or_insert_with(|| Logical {
            line: i + 1,
            text: String::new(),
        });
        if !logical.text.is_empty() {
            logical.text.push(' ');
        }
        logical.text.push_str(body.trim());
        if !continued {
            if let Some(done) = current.take() {
                heredoc = heredoc_delimiter(&done.text);
                out.push(done);
            }
        }
    }
    out.extend(current);
    out
}

/// `# escape=` among the parser directives at the top of the file: `\` unless it says
/// `` ` ``.
fn escape_char(text: &str) -> char {
    for line in text.lines() {
        let Some(directive) = line.trim().strip_prefix('#') else {
            break;
        };
        let Some((key, value)) = directive.split_once('=') else {
            break;
        };
        if key.trim().eq_ignore_ascii_case("escape") && value.trim() == "`" {
            return '`';
        }
    }
    '\\'
}

/// The delimiter of a heredoc an instruction opens (`COPY <<EOF /x`, `RUN <<-"EOT"`).
fn heredoc_delimiter(instruction: &str) -> Option<String> {
    let (_, rest) = instruction.split_once("<<")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let word: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace())
        .filter(|c| *c != '"' && *c != '\'')
        .collect();
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(word)
}

/// Variables in scope: build arguments and environment variables, `None` when declared
/// without a value.
#[derive(Default, Clone)]
struct Vars(Vec<(String, Option<String>)>);

impl Vars {
    fn set(&mut self, name: &str, value: Option<String>) {
        self.0.retain(|(n, _)| n != name);
        self.0.push((name.to_string(), value));
    }

    fn get(&self, name: &str) -> Option<&Option<String>> {
        self.0.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// `text` with `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME:+alt}` substituted;
    /// names with no value are pushed to `unresolved` and substituted by `*`.
    fn substitute(&self, text: &str, unresolved: &mut Vec<String>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            let rest = text.get(i + 1..).unwrap_or("");
            let (name, modifier, consumed) = if let Some(inner) = rest.strip_prefix('{') {
                let Some(end) = inner.find('}') else {
                    out.push(c);
                    continue;
                };
                let body = inner.get(..end).unwrap_or("");
                let (name, modifier) = match body.find(':') {
                    Some(p) => (
                        body.get(..p).unwrap_or(""),
                        Some(body.get(p + 1..).unwrap_or("")),
                    ),
                    None => (body, None),
                };
                (name, modifier, end + 2)
            } else {
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if len == 0 {
                    out.push(c);
                    continue;
                }
                (rest.get(..len).unwrap_or(""), None, len)
            };
            for _ in 0..text
                .get(i + 1..i + 1 + consumed)
                .map_or(0, |s| s.chars().count())
            {
                chars.next();
            }
            let value = self.get(name).cloned().flatten();
            match (modifier, value) {
                (Some(m), v) if m.starts_with('-') => match v.filter(|v| !v.is_empty()) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(m.get(1..).unwrap_or("")),
                },
                (Some(m), v) if m.starts_with('+') => {
                    if v.is_some_and(|v| !v.is_empty()) {
                        out.push_str(m.get(1..).unwrap_or(""));
                    }
                }
                (_, Some(v)) => out.push_str(&v),
                // Any value: a wildcard, which discovery matches against the context.
                (_, None) => {
                    unresolved.push(name.to_string());
                    out.push('*');
                }
            }
        }
        out
    }
}

/// Splits shell-form arguments on whitespace, honouring quotes (the quotes are dropped).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// `KEY=VALUE` pairs of `LABEL`/`ENV`/`ARG` (and the legacy `ENV KEY VALUE`).
fn pairs(args: &str, legacy: bool) -> Vec<(String, Option<String>)> {
    let ws = words(args);
    if legacy && ws.len() >= 2 && !ws.first().is_some_and(|w| w.contains('=')) {
        let key = ws.first().cloned().unwrap_or_default();
        let value = args.trim_start().get(key.len()..).unwrap_or("").trim();
        return vec![(key, Some(value.trim_matches('"').to_string()))];
    }
    ws.into_iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (w, None),
        })
        .collect()
}

/// Reads a Dockerfile.
pub fn parse(text: &str) -> Dockerfile {
    let mut file = Dockerfile::default();
    // Arguments declared before the first FROM (visible in a stage once redeclared
    // without a value) and the variables of the current stage.
    let mut global = Vars::default();
    let mut vars = Vars::default();
    let mut workdir = String::from("/");
    for logical in logical_lines(text) {
        let (keyword, args) = match logical.text.split_once(char::is_whitespace) {
            Some((k, a)) => (k.to_ascii_uppercase(), a.trim()),
            None => (logical.text.to_ascii_uppercase(), ""),
        };
        let mut unresolved = Vec::new();
        match keyword.as_str() {
            "FROM" => {
                let ws = words(args);
                let name = match ws.as_slice() {
                    [.., as_, name] if as_.eq_ignore_ascii_case("as") => {
                        Some(name.to_ascii_lowercase())
                    }
                    _ => None,
                };
                file.stages.push(Stage {
                    name,
                    configs_label: None,
                });
                vars = Vars::default();
                workdir = String::from("/");
            }
            "ARG" => {
                for (k, v) in pairs(args, false) {
                    let v = v.map(|v| vars.substitute(&v, &mut unresolved));
                    if file.stages.is_empty() {
                        global.set(&k, v);
                    } else {
                        // `ARG NAME` in a stage takes the global default.
                        let v = v.or_else(|| global.get(&k).cloned().flatten());
                        vars.set(&k, v);
                    }
                }
            }
            "ENV" => {
                for (k, v) in pairs(args, true) {
                    let v = v.map(|v| vars.substitute(&v, &mut unresolved));
                    vars.set(&k, v);
                }
            }
            "WORKDIR" => {
                let dir = vars.substitute(args.trim_matches('"'), &mut unresolved);
                workdir = normalize_dest(&dir, &workdir);
            }
            "LABEL" => {
                for (k, v) in pairs(args, false) {
                    if k == CONFIGS_LABEL {
                        let v = vars.substitute(&v.unwrap_or_default(), &mut unresolved);
                        if let Some(stage) = file.stages.last_mut() {
                            stage.configs_label = Some(v);
                        }
                    }
                }
            }
            "ADD" | "COPY" => {
                let instruction = if keyword == "ADD" { "ADD" } else { "COPY" };
                if let Some(copy) = copy_of(args, instruction, &vars, &workdir, &file, &logical) {
                    file.copies.push(copy);
                }
            }
            _ => {}
        }
    }
    file
}

/// An `ADD`/`COPY` from the build context; `None` for one `--from` a stage or an image, a
/// heredoc, a URL or a git source.
fn copy_of(
    args: &str,
    instruction: &'static str,
    vars: &Vars,
    workdir: &str,
    file: &Dockerfile,
    logical: &Logical,
) -> Option<Copy> {
    let mut rest = args.trim_start();
    while let Some(flag) = rest.strip_prefix("--") {
        let (word, after) = flag.split_once(char::is_whitespace).unwrap_or((flag, ""));
        if word.to_ascii_lowercase().starts_with("from=") {
            return None;
        }
        rest = after.trim_start();
    }
    let mut operands: Vec<String> = if rest.starts_with('[') {
        serde_json::from_str::<Vec<String>>(rest).ok()?
    } else {
        words(rest)
    };
    if operands.len() < 2 || operands.iter().any(|o| o.starts_with("<<")) {
        return None;
    }
    let mut unresolved = Vec::new();
    let dest = operands.pop()?;
    let dest = normalize_dest(&vars.substitute(&dest, &mut unresolved), workdir);
    let sources: Vec<String> = operands
        .iter()
        .map(|s| vars.substitute(s, &mut unresolved))
        .filter(|s| !s.contains("://") && !s.starts_with("git@"))
        .collect();
    if sources.is_empty() {
        return None;
    }
    unresolved.sort();
    unresolved.dedup();
    Some(Copy {
        line: logical.line,
        instruction,
        sources,
        dest,
        unresolved,
        stage: file.stages.len().saturating_sub(1),
    })
}

/// Whether a file name is a Dockerfile's or a Containerfile's, by the names people give
/// them: `Dockerfile`, `Containerfile`, `catalog.Dockerfile`, `Dockerfile.catalog`,
/// `Dockerfile-4.17.catalog`, `index.Containerfile`, any case.
pub fn is_dockerfile_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["dockerfile", "containerfile"].iter().any(|stem| {
        lower == *stem
            || lower.ends_with(&format!(".{stem}"))
            || lower.starts_with(&format!("{stem}."))
            || lower.starts_with(&format!("{stem}-"))
            || lower.starts_with(&format!("{stem}_"))
    }) && !lower.ends_with(".md")
        && !lower.ends_with(".dockerignore")
        && !lower.ends_with(".containerignore")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(text: &str) -> Vec<(Vec<String>, String)> {
        parse(text)
            .catalog_copies()
            .into_iter()
            .map(|c| (c.sources.clone(), c.dest.clone()))
            .collect()
    }

    fn one(src: &str, dest: &str) -> Vec<(Vec<String>, String)> {
        vec![(vec![src.to_string()], dest.to_string())]
    }

    #[test]
    fn opm_generate_dockerfile() {
        let text = "# The base image is expected to contain\n# /bin/opm (with a serve subcommand) and /bin/grpc_health_probe\nFROM quay.io/operator-framework/opm:latest\n\n# Configure the entrypoint and command\nENTRYPOINT [\"/bin/opm\"]\nCMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"]\n\n# Copy declarative config root into image at /configs and pre-populate serve cache\nADD catalog /configs\nRUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]\n\n# Set DC-specific label for the location of the DC root directory\n# in the image\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n";
        let d = parse(text);
        assert!(d.labelled());
        assert_eq!(d.configs_dir(), "/configs");
        assert_eq!(sources(text), one("catalog", "/configs"));
        assert_eq!(d.catalog_copies()[0].line, 10);
    }

    #[test]
    fn builder_stage_and_copy_from() {
        let text = "FROM quay.io/operator-framework/opm:latest AS builder\nCOPY catalog/ /configs/\nRUN opm serve /configs --cache-only\nFROM registry.redhat.io/openshift4/ose-operator-registry:v4.16\nCOPY --from=builder /configs /configs\nCOPY --from=builder /tmp/cache /tmp/cache\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n";
        assert_eq!(sources(text), one("catalog/", "/configs"));
        let d = parse(text);
        assert_eq!(d.stages[0].name.as_deref(), Some("builder"));
    }

    #[test]
    fn arguments_defaults_and_unresolved() {
        let text = "ARG OCP_VERSION=v4.16\nARG PKG\nFROM scratch\nARG OCP_VERSION\nARG PKG\nCOPY catalogs/${OCP_VERSION}/$PKG /configs/${PKG:-fallback}\n";
        let d = parse(text);
        let c = &d.copies[0];
        assert_eq!(c.sources, vec!["catalogs/v4.16/*".to_string()]);
        assert_eq!(c.dest, "/configs/fallback");
        assert_eq!(c.unresolved, vec!["PKG".to_string()]);
    }

    #[test]
    fn continuation_comment_lines_flags_and_json_form() {
        let text = "FROM x\nCOPY --chown=1001:0 \\\n# a comment inside\n    --chmod=644 \\\n    catalog \\\n    /configs\nADD [\"other dir\", \"/configs/other\"]\nLABEL \"operators.operatorframework.io.index.configs.v1\"=\"/configs\" other=1\n";
        let got = sources(text);
        assert_eq!(
            got,
            vec![
                (vec!["catalog".to_string()], "/configs".to_string()),
                (vec!["other dir".to_string()], "/configs/other".to_string())
            ]
        );
        assert_eq!(parse(text).copies[0].line, 2);
    }

    #[test]
    fn escape_directive_workdir_and_label_elsewhere() {
        let text = "# escape=`\nFROM x\nWORKDIR /srv\nCOPY catalog `\n  ./configs\nLABEL operators.operatorframework.io.index.configs.v1=/srv/configs\n";
        assert_eq!(sources(text), one("catalog", "/srv/configs"));
    }

    #[test]
    fn copies_outside_configs_heredocs_urls_and_stage_copies_are_not_catalog() {
        let text = "FROM x AS a\nCOPY <<EOF /configs/x.yaml\nschema: olm.package\nEOF\nADD https://example.com/c.json /configs/c.json\nCOPY bin/ /usr/local/bin/\nCOPY --from=a /configs /configs\nCOPY LICENSE /licenses/\n";
        assert!(sources(text).is_empty());
    }

    #[test]
    fn several_sources_and_env_legacy_form() {
        let text = "FROM x\nENV DIR catalog\nCOPY ${DIR}/a ${DIR}/b /configs/\n";
        assert_eq!(
            sources(text),
            vec![(
                vec!["catalog/a".to_string(), "catalog/b".to_string()],
                "/configs".to_string()
            )]
        );
    }

    #[test]
    fn dockerfile_names() {
        for yes in [
            "Dockerfile",
            "Containerfile",
            "catalog.Dockerfile",
            "Dockerfile.catalog",
            "Dockerfile-4.17.catalog",
            "index.containerfile",
            "dockerfile",
        ] {
            assert!(is_dockerfile_name(yes), "{yes}");
        }
        for no in [
            "Dockerfile.md",
            ".dockerignore",
            "Dockerfile.dockerignore",
            "README.md",
        ] {
            assert!(!is_dockerfile_name(no), "{no}");
        }
    }

    #[test]
    fn hostile_text_is_bounded_and_never_panics() {
        let text = "COPY \\\n".repeat(50_000) + "${unterminated $ ${:-} ${A:+}";
        let _ = parse(&text);
        let many = "FROM x\nCOPY a /configs\n".repeat(20_000);
        assert!(parse(&many).copies.len() <= MAX_INSTRUCTIONS);
        let _ = parse("COPY [\"a\", 1] /configs\nLABEL =\nARG\nFROM\n${\n$");
    }
}
