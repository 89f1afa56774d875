//! `.olmlint.yaml`: per-rule levels and options, path and package ignores, limits and the
//! context catalogs. Found upward from the first linted path or given with `--config`; checked
//! against `schemas/olmlint-config.schema.json`, with mistakes reported as OLM011.

use olmlint_base::diag::{Diagnostic, Severity};
use olmlint_base::tree::{Node, Value};
use olmlint_load::{parse_bytes, Limits, LoadedFile, Role};
use std::collections::HashMap;

mod globs;
use std::path::{Path, PathBuf};

pub const FILE_NAMES: [&str; 2] = olmlint_load::names::CONFIG_FILES;
/// A configuration file is a few hundred bytes; a larger one is not read (a sparse multi-GB
/// `.olmlint.yaml` in a pull request must not be read whole).
pub const MAX_CONFIG_SIZE: u64 = 1 << 20;
/// How far `.olmlint.yaml` may raise a bound of `limits:` over its default.
pub const LIMIT_CEILING: u64 = 16;
const SCHEMA: &str = include_str!("../schemas/olmlint-config.schema.json");

#[derive(Debug, Default)]
pub struct Config {
    /// Directory relative to which `ignore` globs apply.
    pub base: PathBuf,
    levels: HashMap<&'static str, Option<Severity>>,
    /// Rules switched on at their own severities (off-by-default rules, `--enable`, `RULE: true`).
    enabled: std::collections::HashSet<&'static str>,
    options: HashMap<&'static str, serde_json::Map<String, serde_json::Value>>,
    ignore: Option<globs::Globs>,
    package_ignores: HashMap<String, Vec<&'static str>>,
    /// `suppress:` entries, in file order, indexed for matching.
    suppressions: globs::Table,
    pub limits: Limits,
    pub cel_eval_budget: u64,
    pub sat_conflicts: u64,
    /// Findings of one rule in one file that are reported (`limits.max-findings-per-rule-per-file`).
    pub max_findings_per_rule_per_file: usize,
    pub context: Vec<PathBuf>,
    /// Wall-clock budget for the checks (`limits.timeout`, `--timeout`), in seconds.
    pub timeout: Option<f64>,
    /// When the checks must stop (set by the pipeline from `timeout` when a run starts).
    pub deadline: Option<std::time::Instant>,
    pub provided_packages: Vec<String>,
    pub provided_gvks: Vec<String>,
    /// `closed-world: true` / `--closed-world`: a dependency found in no loaded catalog is
    /// an error, not an assumption that another catalog provides it.
    pub closed_world: bool,
    /// The target cluster file of OLM720 (`cluster-properties:`, relative to the config).
    pub cluster_properties: Option<PathBuf>,
    /// `catalogs:` (relative to the config): what `olmlint lint` with no path lints, in place
    /// of what discovery finds.
    pub catalogs: Option<Vec<PathBuf>>,
    /// `targets:` (`--target`): the OLM generations the catalogs must work with, and OLM v1's
    /// profile with `olmv1-feature-gates:` applied.
    pub targets: olmlint_semantics::olmv1::Targets,
    /// Set when the run's result is no longer wanted (an editor's newer edit): the checks
    /// stop as at the deadline, and the caller discards the run.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// A quick run (the language server's, while a large catalog is being edited): the
    /// resolution is not built and the families that read it do not run (see
    /// [`crate::Found::deferred`]), so a suppression that matches nothing proves nothing.
    pub quick: bool,
}

impl Config {
    /// What one CEL evaluation may spend: `limits.cel-eval-budget` units, until the deadline.
    pub fn cel_budget(&self) -> olmlint_semantics::cel::EvalBudget {
        olmlint_semantics::cel::EvalBudget {
            units: self.cel_eval_budget,
            deadline: self.deadline,
        }
    }

    /// Whether the run's deadline has passed, or the run was cancelled: checks stop
    /// starting new work (OLM012).
    pub fn expired(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
            || self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    pub fn defaults(base: PathBuf) -> Self {
        Config {
            base,
            cel_eval_budget: 1_000_000,
            sat_conflicts: 100_000,
            max_findings_per_rule_per_file: 1000,
            ..Default::default()
        }
    }

    /// Find `.olmlint.yaml` in `start` or its ancestors. One found that is a symbolic link
    /// whose real path leaves the repository holding it is an error naming the link, never
    /// read: a pull request controls the links, and the configuration's text is quoted in
    /// findings. Nor is it looked for beside the target of a `start` that leaves the
    /// repository through a link (the walk reports that path): the search starts at the
    /// nearest directory above it that stays inside.
    pub fn discover(start: &Path) -> Result<Option<PathBuf>, String> {
        let abs = if olmlint_load::io::leaves_repository(start) {
            let Some(cwd) = std::env::current_dir()
                .ok()
                .and_then(|c| std::fs::canonicalize(c).ok())
            else {
                return Ok(None);
            };
            let repo = olmlint_load::io::repository_of(&cwd);
            olmlint_load::io::lexical(&cwd, start)
                .ancestors()
                .find(|a| a.is_dir() && olmlint_load::io::confined(&repo, a))
                .and_then(|a| std::fs::canonicalize(a).ok())
        } else {
            std::fs::canonicalize(start).ok()
        };
        let Some(abs) = abs else { return Ok(None) };
        let Some(dir) = (if abs.is_dir() {
            Some(abs.as_path())
        } else {
            abs.parent()
        }) else {
            return Ok(None);
        };
        let found = dir.ancestors().find_map(|d| {
            FILE_NAMES
                .iter()
                .map(|n| d.join(n))
                .find(|p| p.is_file())
                .map(|p| (d, p))
        });
        let Some((d, path)) = found else {
            return Ok(None);
        };
        if !olmlint_load::io::confined(&olmlint_load::io::repository_of(d), &path) {
            return Err(format!(
                "{}: the configuration is a symbolic link to a file outside the repository; not \
                 read (a pull request controls the repository's links, and the configuration is \
                 quoted in findings). Commit the file itself, or give one outside the repository \
                 with --config",
                olmlint_load::display_path(&path)
            ));
        }
        Ok(Some(path))
    }

    /// Read and validate a config file. The file is returned so diagnostics can point into it.
    /// A path given inside the repository that leaves it through a link is not read.
    pub fn load(path: &Path) -> Result<(Config, LoadedFile, Vec<Diagnostic>), String> {
        let bytes = olmlint_load::io::refuse_leaving(path)
            .and_then(|()| {
                olmlint_load::io::read_regular(path, MAX_CONFIG_SIZE).map_err(|e| e.to_string())
            })
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        Self::from_bytes(path, bytes)
    }

    /// [`Config::load`] of `bytes` as the text of `path` (an editor's unsaved buffer).
    pub fn from_bytes(
        path: &Path,
        bytes: Vec<u8>,
    ) -> Result<(Config, LoadedFile, Vec<Diagnostic>), String> {
        if bytes.len() as u64 > MAX_CONFIG_SIZE {
            return Err(format!(
                "cannot read config {}: larger than {MAX_CONFIG_SIZE} bytes",
                path.display()
            ));
        }
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let file = parse_bytes(
            olmlint_load::display_path(path),
            path.to_path_buf(),
            Role::Config,
            bytes,
            &Limits::default(),
        );
        let mut cfg = Config::defaults(base);
        let mut diags = Vec::new();
        if let Some(p) = file.problems.first() {
            return Err(format!("{}: {}", file.source.display, p.message));
        }
        let root = file.docs.first().and_then(|d| d.root.as_ref());

        if let Some(root) = root {
            cfg.validate(root, &mut diags);
            cfg.read(root, &mut diags);
        }
        Ok((cfg, file, diags))
    }

    fn validate(&self, root: &Node, diags: &mut Vec<Diagnostic>) {
        let (Ok(schema), Some(instance)) = (
            serde_json::from_str::<serde_json::Value>(SCHEMA),
            root.to_json(),
        ) else {
            return;
        };
        let Ok(validator) = jsonschema::validator_for(&schema) else {
            return;
        };
        for err in validator.iter_errors(&instance) {
            let pointer = err.instance_path().to_string();
            let at = root.at_pointer(&pointer);
            // An unknown key: one finding per key, at the key, with the nearest known one.
            if let jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } =
                err.kind()
            {
                let known = known_keys(&schema, &pointer);
                for key in unexpected {
                    let span = at
                        .and_then(|n| n.as_map())
                        .and_then(|m| m.iter().find(|e| &*e.key == key.as_str()))
                        .map_or(root.span, |e| e.key_span);
                    let hint =
                        olmlint_base::suggest::closest(key, known.iter().map(String::as_str))
                            .map(|k| format!(" Did you mean `{k}`?"))
                            .unwrap_or_default();
                    diags.push(
                        Diagnostic::new("OLM011", format!("unknown configuration key `{key}` at `{}`", if pointer.is_empty() { "/" } else { &pointer }))
                            .at(usize::MAX, span)
                            .pointer(olmlint_base::diag::ptr(&pointer, key))
                            .help(format!("{}{hint} See the Configuration section of the README; the schema is schemas/olmlint-config.schema.json.", if known.is_empty() { String::new() } else { format!("Known keys here: {}.", known.join(", ")) })),
                    );
                }
                continue;
            }
            let span = at.map_or(root.span, |n| n.span);
            diags.push(
                Diagnostic::new("OLM011", format!("invalid configuration at `{}`: {err}", if pointer.is_empty() { "/" } else { &pointer }))
                    .at(usize::MAX, span)
                    .pointer(pointer)
                    .help("See the Configuration section of the README; the schema is schemas/olmlint-config.schema.json."),
            );
        }
    }

    /// A path from the configuration file, which a pull request controls: it must stay in
    /// the repository holding the file (the nearest ancestor with `.git`, else the file's
    /// directory), so `context: [/proc]` or `cluster-properties: /dev/zero` are refused.
    /// Paths given on the command line are the user's own and are not limited.
    fn inside_repository(
        &self,
        value: &str,
        node: &Node,
        key: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<PathBuf> {
        let joined = self.base.join(value);
        // `-c .olmlint.yaml`: the base is the current directory.
        let dir = Some(self.base.as_path())
            .filter(|b| !b.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // A path that does not exist yet is judged by its directory (its error comes later).
        let inside = std::fs::canonicalize(dir).is_ok_and(|base| {
            olmlint_load::io::confined(&olmlint_load::io::repository_of(&base), &joined)
        });
        if inside {
            return Some(joined);
        }
        diags.push(
            Diagnostic::new(
                "OLM011",
                format!("`{key}: {value}` resolves outside the repository; not used"),
            )
            .at(usize::MAX, node.span)
            .help(format!(
                "Paths in .olmlint.yaml must stay inside the repository that holds it, because a \
                 pull request can change the file. Give a path outside it on the command line \
                 instead (`--{}`).",
                key
            )),
        );
        None
    }

    /// Reads the configuration's keys in file-format order; their mistakes are OLM011 findings.
    fn read(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        self.read_rules(root, diags);
        self.read_ignore(root, diags);
        self.read_suppress(root, diags);
        self.read_package_ignores(root, diags);
        if let Some(l) = root.get("limits") {
            self.read_limits(l, diags);
        }
        self.read_context(root, diags);
        self.read_provided(root);
        self.read_targets(root, diags);
    }

    /// `targets:` (a list, or one comma-separated string, as `--target` takes them) and
    /// `olmv1-feature-gates:` (gate name → bool, over the profile's).
    fn read_targets(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        if let Some(t) = root.get("targets") {
            let items: Vec<&str> = match t.as_seq() {
                Some(list) => list.iter().filter_map(Node::as_str).collect(),
                None => t.as_str().into_iter().collect(),
            };
            match olmlint_semantics::olmv1::Targets::parse(items) {
                Ok(targets) => self.targets = targets,
                Err(e) => diags.push(
                    Diagnostic::new(
                        "OLM011",
                        format!("invalid configuration at `/targets`: {e}"),
                    )
                    .at(usize::MAX, t.span)
                    .pointer("/targets"),
                ),
            }
        }
        let Some(gates) = root.get("olmv1-feature-gates") else {
            return;
        };
        // Unknown gate names and non-boolean values are the schema's findings.
        let overrides: Vec<String> = gates
            .as_map()
            .unwrap_or(&[])
            .iter()
            .filter(|e| {
                olmlint_semantics::olmv1::profile::GATE_NAMES.contains(&&*e.key)
                    && matches!(e.value.value, Value::Bool(_))
            })
            .map(|e| format!("{}={}", e.key, e.value.display_scalar()))
            .collect();
        let mut profile = self.targets.olmv1.clone().unwrap_or_default();
        match profile.gates.apply(&overrides.join(",")) {
            Ok(()) if self.targets.olmv1.is_some() => self.targets.olmv1 = Some(profile),
            Ok(()) => diags.push(
                Diagnostic::new("OLM011", "`olmv1-feature-gates` is set but `targets` does not name olmv1: the gates would change nothing")
                    .at(usize::MAX, gates.span)
                    .pointer("/olmv1-feature-gates"),
            ),
            Err(e) => diags.push(
                Diagnostic::new("OLM011", format!("invalid configuration at `/olmv1-feature-gates`: {e}"))
                    .at(usize::MAX, gates.span)
                    .pointer("/olmv1-feature-gates"),
            ),
        }
    }

    /// `rules:`: a level (`RULE: warning`, `RULE: off`, `RULE: true`) or a map with `level`
    /// and the rule's options.
    fn read_rules(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        for e in root.get("rules").and_then(Node::as_map).unwrap_or(&[]) {
            let Some(rule) = olmlint_base::rules::get(&e.key) else {
                unknown_rule(&e.key, &e.value, diags);
                continue;
            };
            // YAML 1.1 reads a bare `off` as false.
            let level = if e.value.as_map().is_some() {
                e.value.get("level")
            } else {
                Some(&e.value)
            };
            match level.map(|n| &n.value) {
                Some(Value::String(l)) => {
                    self.levels.insert(rule.id, Severity::parse(l));
                }
                Some(Value::Bool(true)) => {
                    self.enabled.insert(rule.id);
                }
                Some(Value::Bool(false)) => {
                    self.levels.insert(rule.id, None);
                }
                _ => {}
            }
            if let Some(serde_json::Value::Object(m)) =
                e.value.as_map().and_then(|_| e.value.to_json())
            {
                self.options.insert(rule.id, m);
            }
        }
    }

    /// `ignore:`: globs of paths not linted.
    fn read_ignore(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        let mut ignore = Vec::new();
        for g in root.get("ignore").and_then(Node::as_seq).unwrap_or(&[]) {
            let Some(pat) = g.as_str() else { continue };
            match globs::compile(pat) {
                Ok(glob) => ignore.push(glob),
                Err(err) => diags.push(
                    Diagnostic::new(
                        "OLM011",
                        format!("invalid ignore glob `{}`: {err}", globs::quoted(pat)),
                    )
                    .at(usize::MAX, g.span),
                ),
            }
        }
        if !ignore.is_empty() {
            self.ignore = Some(globs::Globs::new(&ignore));
        }
    }

    /// `suppress:`: entries of a rule and a file glob, optionally narrowed to a pointer, a
    /// package or a bundle.
    fn read_suppress(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        for entry in root.get("suppress").and_then(Node::as_seq).unwrap_or(&[]) {
            let text = |k: &str| entry.get(k).and_then(Node::as_str).map(str::to_string);
            let rule = match entry.get("rule") {
                Some(r) => match r.as_str().and_then(olmlint_base::rules::get) {
                    Some(rule) => rule.id,
                    None => {
                        unknown_rule(r.as_str().unwrap_or(""), r, diags);
                        continue;
                    }
                },
                None => continue,
            };
            let Some(pattern) = text("file") else {
                continue;
            };
            let glob = match globs::compile(&pattern) {
                Ok(g) => g,
                Err(err) => {
                    let at = entry.get("file").map_or(entry.span, |n| n.span);
                    diags.push(
                        Diagnostic::new(
                            "OLM011",
                            format!(
                                "invalid suppress file glob `{}`: {err}",
                                globs::quoted(&pattern)
                            ),
                        )
                        .at(usize::MAX, at),
                    );
                    continue;
                }
            };
            let names = globs::Names {
                pointer: text("pointer"),
                package: text("package"),
                bundle: text("bundle"),
            };
            self.suppressions
                .add(rule, &pattern, glob, names, entry.span);
        }
        self.suppressions.seal();
    }

    /// `packages:`: per package, the rules it ignores.
    fn read_package_ignores(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        for e in root.get("packages").and_then(Node::as_map).unwrap_or(&[]) {
            let mut ids = Vec::new();
            for r in e.value.get("ignore").and_then(Node::as_seq).unwrap_or(&[]) {
                match r.as_str().and_then(olmlint_base::rules::get) {
                    Some(rule) => ids.push(rule.id),
                    None => unknown_rule(r.as_str().unwrap_or(""), r, diags),
                }
            }
            self.package_ignores.insert(e.key.to_string(), ids);
        }
    }

    /// `limits:` (the map `l`): the loader's bounds, the CEL and SAT budgets, the findings cap
    /// and the timeout.
    fn read_limits(&mut self, l: &Node, diags: &mut Vec<Diagnostic>) {
        let defaults = Self::defaults(PathBuf::new());
        let mut num = |k: &str, default: u64| limit(l, k, default, diags);
        let d = &defaults.limits;
        if let Some(v) = num("max-depth", d.max_depth as u64) {
            self.limits.max_depth = usize::try_from(v).unwrap_or(usize::MAX);
        }
        if let Some(v) = num("max-nodes", d.max_nodes) {
            self.limits.max_nodes = v;
        }
        if let Some(v) = num("max-alias-nodes", d.max_alias_nodes) {
            self.limits.max_alias_nodes = v;
        }
        if let Some(v) = num("max-alias-bytes", d.max_alias_bytes) {
            self.limits.max_alias_bytes = v;
        }
        if let Some(v) = num("max-file-size", d.max_file_size) {
            self.limits.max_file_size = v;
        }
        if let Some(v) = num("cel-eval-budget", defaults.cel_eval_budget) {
            self.cel_eval_budget = v;
        }
        if let Some(v) = num("sat-conflicts", defaults.sat_conflicts) {
            self.sat_conflicts = v;
        }
        if let Some(v) = num(
            "max-findings-per-rule-per-file",
            defaults.max_findings_per_rule_per_file as u64,
        ) {
            self.max_findings_per_rule_per_file = usize::try_from(v.max(1)).unwrap_or(usize::MAX);
        }
        if let Some(olmlint_base::tree::Value::Number { value, .. }) =
            l.get("timeout").map(|n| &n.value)
        {
            self.timeout = Some(value.max(0.0));
        }
    }

    /// `context:`, `closed-world:`, `cluster-properties:` and `catalogs:`: what is linted and
    /// what it is resolved with (paths kept inside the repository).
    fn read_context(&mut self, root: &Node, diags: &mut Vec<Diagnostic>) {
        for c in root.get("context").and_then(Node::as_seq).unwrap_or(&[]) {
            if let Some(s) = c.as_str() {
                if let Some(p) = self.inside_repository(s, c, "context", diags) {
                    self.context.push(p);
                }
            }
        }
        if let Some(Value::Bool(b)) = root.get("closed-world").map(|n| &n.value) {
            self.closed_world = *b;
        }
        if let Some(n) = root.get("cluster-properties") {
            if let Some(p) = n.as_str() {
                self.cluster_properties = self.inside_repository(p, n, "cluster-properties", diags);
            }
        }
        if let Some(list) = root.get("catalogs").and_then(Node::as_seq) {
            let paths = list
                .iter()
                .filter_map(|c| {
                    let s = c.as_str()?;
                    self.inside_repository(s, c, "catalogs", diags)
                })
                .collect();
            self.catalogs = Some(paths);
        }
    }

    /// `provided:`: the packages and GVKs other catalogs provide.
    fn read_provided(&mut self, root: &Node) {
        let Some(p) = root.get("provided") else {
            return;
        };
        let strs = |k: &str| -> Vec<String> {
            p.get(k)
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        };
        self.provided_packages = strs("packages");
        self.provided_gvks = strs("gvks");
    }

    /// `--enable` (keeps the rule's own severities) and `--disable`.
    pub fn set_enabled(&mut self, rule: &'static str, on: bool) {
        if on {
            self.enabled.insert(rule);
            if self.levels.get(rule) == Some(&None) {
                self.levels.remove(rule);
            }
        } else {
            self.enabled.remove(rule);
            self.levels.insert(rule, None);
        }
    }

    /// Switches an off-by-default rule on because its input was given, unless the
    /// configuration or the command line turned it off explicitly.
    pub fn enable_unless_off(&mut self, rule: &'static str) {
        if self.levels.get(rule) != Some(&None) {
            self.enabled.insert(rule);
        }
    }

    /// The effective severity of `rule`, or `None` when it is off.
    pub fn level(&self, rule: &str) -> Option<Severity> {
        let r = olmlint_base::rules::get(rule)?;
        match self.levels.get(r.id) {
            Some(l) => *l,
            None if r.enabled || self.enabled.contains(r.id) => Some(r.severity),
            None => None,
        }
    }

    pub fn is_enabled(&self, rule: &str) -> bool {
        self.level(rule).is_some()
    }

    pub fn option_u64(&self, rule: &str, key: &str) -> Option<u64> {
        self.options.get(rule)?.get(key)?.as_u64()
    }

    pub fn option_str(&self, rule: &str, key: &str) -> Option<&str> {
        self.options.get(rule)?.get(key)?.as_str()
    }

    /// Drops the findings a `suppress:` entry matches; an entry that matches none is an OLM010
    /// finding at the entry (`config_file`: the configuration's index among `files`).
    pub fn suppress(
        &self,
        diags: Vec<Diagnostic>,
        files: &[LoadedFile],
        config_file: Option<usize>,
    ) -> Vec<Diagnostic> {
        if self.suppressions.is_empty() {
            return diags;
        }
        let mut paths = RelPaths::new(&self.base, files);
        let (hits, unchecked) = self.suppressions.hits(
            &diags,
            |file, set, out| paths.each(file, |p| set.matches_into(p, out)),
            || self.expired(),
        );
        let mut used = vec![false; self.suppressions.entries.len()];
        let mut kept: Vec<Diagnostic> = diags
            .into_iter()
            .zip(hits)
            .filter_map(|(d, hit)| match hit {
                Some(i) => {
                    if let Some(u) = used.get_mut(i) {
                        *u = true;
                    }
                    None
                }
                None => Some(d),
            })
            .collect();
        if unchecked > 0 {
            // Entries left unmatched may well match the findings not looked at: not reported.
            let mut d = Diagnostic::new(
                "OLM012",
                format!("lint did not finish within the {} s timeout: `suppress:` entries were not matched against {unchecked} findings, which are reported", self.timeout.unwrap_or(0.0)),
            )
            .help("Raise `--timeout` (or `limits.timeout`), or lint fewer catalogs per run.");
            if let Some(i) = config_file {
                d = d.at(i, olmlint_base::tree::Span::new(0, 0));
            }
            kept.push(d);
            return kept;
        }
        if self.expired() || self.quick {
            // Checks the deadline stopped (OLM012), or a quick run left out, may have had the
            // findings these entries suppress: an entry matching nothing proves nothing then.
            return kept;
        }
        for (s, used) in self.suppressions.entries.iter().zip(used) {
            if used {
                continue;
            }
            let mut d = Diagnostic::new(
                "OLM010",
                format!(
                    "this suppress entry for {} matches no finding",
                    s.rule
                ),
            )
            .help("The finding was fixed, or the entry does not match it (the file glob is relative to the configuration file; the pointer must be the finding's own, as the JSON report gives it). Delete the entry so that it cannot hide a future finding.");
            d.deferred = true;
            if let Some(i) = config_file {
                d = d.at(i, s.span);
            }
            kept.push(d);
        }
        kept
    }

    /// Apply levels, path ignores and package ignores to a run's findings.
    pub fn apply(&self, diags: Vec<Diagnostic>, files: &[LoadedFile]) -> Vec<Diagnostic> {
        let mut paths = RelPaths::new(&self.base, files);
        diags
            .into_iter()
            .filter_map(|mut d| {
                let explicit = olmlint_base::rules::get(d.rule)
                    .and_then(|r| self.levels.get(r.id))
                    .copied();
                match explicit {
                    Some(None) => return None,
                    Some(Some(sev)) => d.severity = sev,
                    None => {
                        if !self.is_enabled(d.rule) {
                            return None;
                        }
                    }
                }
                if let (Some(set), Some(loc)) = (&self.ignore, d.location) {
                    if paths.matches(loc.file, |p| set.is_match(p)) {
                        return None;
                    }
                }
                if let Some(p) = &d.package {
                    if self
                        .package_ignores
                        .get(p)
                        .is_some_and(|ids| ids.contains(&d.rule))
                    {
                        return None;
                    }
                }
                Some(d)
            })
            .collect()
    }
}

/// OLM011 for a rule name that names no rule, with the nearest one.
fn unknown_rule(key: &str, node: &Node, diags: &mut Vec<Diagnostic>) {
    let names: Vec<&str> = olmlint_base::rules::all().iter().map(|r| r.id).collect();
    let hint = olmlint_base::suggest::closest(key, names.iter().copied())
        .map(|s| format!(" Did you mean `{s}`?"))
        .unwrap_or_default();
    diags.push(
        Diagnostic::new("OLM011", format!("unknown rule `{key}`"))
            .at(usize::MAX, node.span)
            .help(format!("`olmlint rules` lists every rule.{hint}")),
    );
}

/// The bound `limits.<k>` sets, if it is a non-negative number. A pull request controls this
/// file: it may lower a bound, and raise one at most LIMIT_CEILING times its default, never
/// unbound it (OLM011 stops the run; the ceiling is kept in case a caller goes on).
fn limit(l: &Node, k: &str, default: u64, diags: &mut Vec<Diagnostic>) -> Option<u64> {
    let n = l.get(k)?;
    let olmlint_base::tree::Value::Number { value, .. } = n.value else {
        return None;
    };
    if value < 0.0 {
        return None;
    }
    let ceiling = default.saturating_mul(LIMIT_CEILING);
    if value > ceiling as f64 {
        diags.push(
            Diagnostic::new(
                "OLM011",
                format!("`limits.{k}` is over its ceiling of {ceiling} ({LIMIT_CEILING} × the default {default})"),
            )
            .at(usize::MAX, n.span)
            .pointer(format!("/limits/{k}"))
            .help(format!("Set it to at most {ceiling}. The repository's configuration may lower olmlint's bounds and raise them up to the ceiling, but not remove them: a pull request can change .olmlint.yaml, and the bounds keep a hostile catalog from taking the CI runner's memory or time.")),
        );
        return Some(ceiling);
    }
    Some(value as u64)
}

/// The run's files relative to the configuration's directory (what `ignore:` and `suppress:`
/// globs match), resolved once per file: resolving per finding made a syscall per finding.
struct RelPaths<'f> {
    base: PathBuf,
    files: &'f [LoadedFile],
    cache: HashMap<usize, PathBuf>,
}

impl<'f> RelPaths<'f> {
    fn new(base: &Path, files: &'f [LoadedFile]) -> Self {
        RelPaths {
            base: std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf()),
            files,
            cache: HashMap::new(),
        }
    }

    /// Calls `f` with file `fi` relative to the base, and as displayed.
    fn each(&mut self, fi: usize, mut f: impl FnMut(&Path)) {
        let Some(file) = self.files.get(fi) else {
            return;
        };
        let base = &self.base;
        let rel = self.cache.entry(fi).or_insert_with(|| {
            olmlint_load::io::relative_to(base, &file.source.path)
                .unwrap_or_else(|| file.source.path.clone())
        });
        f(rel);
        f(Path::new(&file.source.display));
    }

    /// Whether `is_match` holds for file `fi` relative to the base, or as displayed.
    fn matches(&mut self, fi: usize, is_match: impl Fn(&Path) -> bool) -> bool {
        let Some(f) = self.files.get(fi) else {
            return false;
        };
        let base = &self.base;
        let rel = self.cache.entry(fi).or_insert_with(|| {
            olmlint_load::io::relative_to(base, &f.source.path)
                .unwrap_or_else(|| f.source.path.clone())
        });
        is_match(rel) || is_match(Path::new(&f.source.display))
    }
}

/// The property names the configuration schema allows at `pointer` (object keys along the
/// way are looked up under `properties`; array indices and unknown keys give nothing).
fn known_keys(schema: &serde_json::Value, pointer: &str) -> Vec<String> {
    let mut node = schema;
    for seg in pointer.split('/').filter(|s| !s.is_empty()) {
        if seg.parse::<usize>().is_ok() {
            match node.get("items") {
                Some(items) => node = items,
                None => return Vec::new(),
            }
            continue;
        }
        match node.get("properties").and_then(|p| p.get(seg)) {
            Some(n) => node = n,
            None => return Vec::new(),
        }
    }
    node.get("properties")
        .and_then(|p| p.as_object())
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pull request's `.olmlint.yaml` may lower the bounds and raise them up to the
    /// ceiling, never past it (one OLM011 per bound it tried to lift).
    #[test]
    fn limits_are_raised_at_most_to_the_ceiling() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".olmlint.yaml");
        std::fs::write(
            &path,
            "limits:\n  max-file-size: 1000000000000000000\n  max-nodes: 16000000\n  sat-conflicts: 99999999999\n  max-depth: 10\n",
        )
        .unwrap();
        let (cfg, _, diags) = Config::load(&path).unwrap();
        let d = Config::defaults(PathBuf::new());
        assert_eq!(
            cfg.limits.max_file_size,
            d.limits.max_file_size * LIMIT_CEILING
        );
        assert_eq!(cfg.limits.max_nodes, 16_000_000);
        assert_eq!(cfg.sat_conflicts, d.sat_conflicts * LIMIT_CEILING);
        assert_eq!(cfg.limits.max_depth, 10);
        let over: Vec<_> = diags
            .iter()
            .filter(|x| x.rule == "OLM011" && x.message.contains("ceiling"))
            .collect();
        assert_eq!(over.len(), 2, "{diags:#?}");
        assert!(over
            .iter()
            .any(|x| x.message.contains("limits.max-file-size")));
    }
}
