//! Constraints (OLM2xx): `olm.constraint` decoded exactly as OLM decodes it, plus the legacy
//! `olm.*.required` properties. Ranges inside `package` nodes go through the OLM3xx checks;
//! CEL rules through OLM4xx (`check::cel`).

use super::ranges::{check_range, Site, Use};
use super::Ctx;
use olmlint_base::diag::{Diagnostic, Edit, Fix, Severity};
use olmlint_base::tree::{Node, Span};
use olmlint_model::{Bundle, Property};
use olmlint_semantics::constraint::{
    decode, CompoundKind, Constraint, Issue, IssueKind, Kind, DOCUMENTED_SIZE, FIELDS, MAX_SIZE,
};
use std::collections::HashMap;

/// Keys of the generic-constraint proposal that OLM never implemented.
const PROVISIONAL_KEYS: [&str; 4] = ["evaluator", "rule", "action", "source"];
const PROVISIONAL_TYPES: [&str; 4] = [
    "olm.constraint.cel",
    "olm.all.required",
    "olm.any.required",
    "olm.none.required",
];
const KIND_KEYS: [&str; 6] = ["gvk", "package", "cel", "all", "any", "not"];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // A constraint's findings depend only on its value as written (and the config), not on
    // where it sits: a value written like one already found clean is clean. Catalogs repeat
    // a bundle's constraints in every version, so most values are checked once.
    let mut clean: HashMap<u64, Vec<&Node>> = HashMap::new();
    for b in &ctx.catalog.bundles {
        for p in &b.properties {
            match p.ty() {
                "olm.constraint" => unless_clean(ctx, b, p, &mut clean, out),
                // In bundle directories these come from dependencies.yaml: OLM601 covers them.
                "olm.package.required" | "olm.gvk.required" | "olm.label.required"
                    if !from_dependencies_yaml(ctx, p) =>
                {
                    legacy(b, p, out)
                }
                t if PROVISIONAL_TYPES.contains(&t) => provisional_type(ctx, b, p, out),
                _ => {}
            }
            if let Some(opt) = p
                .item
                .and_then(|i| i.get("optional"))
                .or_else(|| p.value.as_deref().and_then(|v| v.get("optional")))
            {
                if matches!(
                    p.ty(),
                    "olm.constraint"
                        | "olm.package.required"
                        | "olm.gvk.required"
                        | "olm.label.required"
                ) {
                    out.push(
                        Diagnostic::new("OLM208", "`optional` dependencies were proposed but never implemented: OLM treats this dependency as required")
                            .at(p.file, opt.span)
                            .pointer(p.pointer.clone())
                            .package(Some(b.package()))
                            .bundle(Some(b.name()))
                            .help("Remove `optional:`. OLM has no optional dependencies; if the bundle works without the dependency, drop the dependency."),
                    );
                }
            }
        }
    }
}

/// [`constraint_property`], unless a value written alike was already found clean.
fn unless_clean<'a>(
    ctx: &Ctx<'_>,
    b: &Bundle<'_>,
    p: &'a Property<'_>,
    clean: &mut HashMap<u64, Vec<&'a Node>>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(value) = p.value.as_deref() else {
        return; // missing value: OLM108
    };
    let seen = clean.entry(value.canonical_key()).or_default();
    if seen.iter().any(|c| c.same_as_written(value)) {
        return;
    }
    let before = out.len();
    constraint_property(ctx, b, p, out);
    if out.len() == before {
        seen.push(value);
    }
}

struct At<'a> {
    file: usize,
    pkg: &'a str,
    bundle: &'a str,
}

impl At<'_> {
    fn d(
        &self,
        rule: &'static str,
        msg: impl Into<String>,
        span: Span,
        pointer: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(rule, msg)
            .at(self.file, span)
            .pointer(pointer)
            .package(Some(self.pkg))
            .bundle(Some(self.bundle))
    }
}

/// The OLM2xx checks of one `olm.constraint` property: its size, what decoding it found, then
/// the constraint tree OLM converts.
fn constraint_property(ctx: &Ctx<'_>, b: &Bundle<'_>, p: &Property<'_>, out: &mut Vec<Diagnostic>) {
    let Some(value) = p.value.as_deref() else {
        return;
    }; // missing value: OLM108
    let check = PropertyCheck {
        ctx,
        at: At {
            file: p.file,
            pkg: b.package(),
            bundle: b.name(),
        },
        p,
        value,
        base: p.value_pointer(),
    };
    let decoded = decode(value);
    check.size(decoded.size, out);
    check.decode_issues(&decoded.issues, out);
    let Some(root) = decoded.root.as_ref() else {
        return;
    };
    if decoded.parse_error().is_some() {
        return; // OLM stops at the parse error; conversion findings would be noise.
    }
    check.tree(root, out);
}

/// What the checks of one `olm.constraint` property share.
struct PropertyCheck<'c, 'a> {
    ctx: &'c Ctx<'a>,
    at: At<'c>,
    p: &'c Property<'c>,
    /// The property's value (present: a missing one is OLM108).
    value: &'c Node,
    /// JSON pointer of the value.
    base: String,
}

impl PropertyCheck<'_, '_> {
    /// OLM204: the value's size, measured on the canonical JSON the registry re-encodes.
    fn size(&self, size: usize, out: &mut Vec<Diagnostic>) {
        let (at, value, base) = (&self.at, self.value, &self.base);
        let max = self
            .ctx
            .config
            .option_u64("OLM204", "max-bytes")
            .map_or(MAX_SIZE, |v| v as usize);
        let warn = self
            .ctx
            .config
            .option_u64("OLM204", "warn-bytes")
            .map_or(DOCUMENTED_SIZE, |v| v as usize);
        if size > max {
            out.push(at.d("OLM204", format!("olm.constraint value is {size} bytes once normalized, over OLM's limit of {max}: \"parse olm.constraint: olm.constraint value is greater than max constraint size {MAX_SIZE} bytes\""), value.span, base.clone())
                .help("OLM measures the value re-encoded as compact JSON with sorted keys. Split it into several `olm.constraint` properties or simplify it."));
        } else if size > warn {
            out.push(at.d("OLM204", format!("olm.constraint value is {size} bytes once normalized, over the documented 64 KiB limit ({warn})"), value.span, base.clone())
                .severity(Severity::Warning)
                .help(format!("OLM itself accepts up to {MAX_SIZE} bytes, but the documentation and other tools use 64 KiB; keep constraints small.")));
        }
    }

    /// What OLM's strict decoder found (OLM201/203/208/212), in the decoder's order; the first
    /// error is marked as the one OLM reports.
    fn decode_issues(&self, issues: &[Issue], out: &mut Vec<Diagnostic>) {
        let (at, value) = (&self.at, self.value);
        let provisional = value.as_map().is_some_and(|m| {
            m.iter().any(|e| {
                PROVISIONAL_KEYS
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&e.key))
            })
        });
        let rewrite = if provisional {
            provisional_rewrite(self.ctx, self.p, value)
        } else {
            None
        };
        let mut first_error = true;
        for issue in issues {
            let pointer = format!("{}{}", self.base, issue.pointer);
            let olm = if issue.kind.is_error() && first_error {
                first_error = false;
                " — this is the error OLM reports"
            } else {
                ""
            };
            match &issue.kind {
                IssueKind::TooLarge => {} // OLM204: `size`
                IssueKind::MaxDepth => out.push(at.d("OLM201", "parse olm.constraint: exceeded max depth (more than 10000 nested JSON containers)", issue.span, pointer).help("Go's JSON decoder stops at 10000 nested containers (3332 nested compound constraints). Flatten the constraint.")),
                IssueKind::UnknownField { key } if provisional && issue.pointer.matches('/').count() == 1 => {
                    let mut d = provisional_value(at, value, key, issue.span, &pointer);
                    if let Some(fix) = &rewrite {
                        d = d.fix(fix.clone());
                    }
                    out.push(d);
                }
                IssueKind::UnknownField { key } => out.push(self.unknown_field(issue, key, pointer, olm)),
                IssueKind::TypeMismatch => out.push(self.type_mismatch(issue, pointer, olm)),
                IssueKind::KeyCase { canonical } => out.push(self.key_case(issue, canonical, pointer)),
                IssueKind::DuplicateField { canonical } => out.push(
                    at.d("OLM212", issue.message.clone(), issue.span, pointer).help(format!("Keep one `{canonical}` key; the earlier ones are silently ignored.")),
                ),
                IssueKind::MultipleKinds { used, ignored } => out.push(
                    at.d("OLM203", format!("constraint sets {} kinds: {}", ignored.len() + 1, issue.message), issue.span, pointer).help(format!(
                        "A constraint node holds exactly one of gvk, package, all, any, not, cel; OLM picks by precedence (gvk > package > all > any > not > cel) without validating the others. Keep only `{used}`, or combine them under `all:`."
                    )),
                ),
            }
        }
    }

    /// OLM201 for a key OLM does not know, with the key meant and a rename fix when there is one.
    fn unknown_field(&self, issue: &Issue, key: &str, pointer: String, olm: &str) -> Diagnostic {
        let (hint, fix) = did_you_mean(key, &issue.pointer);
        let mut d = self.at.d("OLM201", format!("parse olm.constraint: {}{olm}", issue.message), issue.span, pointer).help(format!(
            "OLM decodes constraints strictly: unknown keys make the whole resolution fail when a subscription reaches this bundle.{hint}"
        ));
        if let Some(new) = fix.filter(|new| !sibling_has(self.value, &issue.pointer, new)) {
            d = d.fix(Fix {
                description: format!("rename `{key}` to `{new}`"),
                safe: true,
                edits: vec![Edit::rename(self.p.file, issue.span, new)],
            });
        }
        d
    }

    /// OLM201 for a value of the wrong JSON type, explaining a YAML 1.1 coercion when that is
    /// the cause.
    fn type_mismatch(&self, issue: &Issue, pointer: String, olm: &str) -> Diagnostic {
        let node = self.value.at_pointer(&issue.pointer);
        let coerced = node.is_some_and(Node::is_coerced_scalar);
        let help = if coerced {
            format!(
                "YAML 1.1 read the unquoted {} as a {}; quote it.",
                node.map(Node::display_scalar).unwrap_or_default(),
                node.map_or("", Node::go_kind)
            )
        } else {
            "See `olmlint explain OLM201` for the shape of each constraint kind.".to_string()
        };
        self.at
            .d(
                "OLM201",
                format!("parse olm.constraint: {}{olm}", issue.message),
                issue.span,
                pointer,
            )
            .help(help)
    }

    /// OLM212 for a key in another case than OLM's, with a rename fix.
    fn key_case(&self, issue: &Issue, canonical: &str, pointer: String) -> Diagnostic {
        let mut d = self
            .at
            .d(
                "OLM212",
                format!("{}; write `{canonical}`", issue.message),
                issue.span,
                pointer,
            )
            .help(
                "Go's JSON decoder accepts any case, but schemas, editors and other tools do not.",
            );
        // With a duplicate beside it, renaming would write the same key twice.
        if !sibling_has(self.value, &issue.pointer, canonical) {
            d = d.fix(Fix {
                description: format!("rename key to `{canonical}`"),
                safe: true,
                edits: vec![Edit::rename(self.p.file, issue.span, canonical.to_string())],
            });
        }
        d
    }

    /// The decoded constraint tree: a null value (OLM202, the indentation mistake), a top-level
    /// `not` (OLM207), then every node.
    fn tree(&self, root: &Constraint<'_>, out: &mut Vec<Diagnostic>) {
        let (at, base) = (&self.at, &self.base);
        if self.value.is_null() {
            out.push(indentation_mistake(at, self.p, self.value, base));
            return;
        }
        if let Kind::Compound {
            op: CompoundKind::Not,
            ..
        } = root.kind
        {
            out.push(at.d("OLM207", "a top-level `not` restricts nothing: it is met by any bundle that does not match, including this bundle itself", root.node.span, base.clone()).help(
                "`not` only negates its children for one candidate at a time; at the root it adds a dependency on *some* non-matching bundle (possibly an unrelated one pulled in). Put `not` inside `all` next to a positive constraint, e.g. `all: [{package: foo}, {not: [{package: foo, versionRange: \">=2.0.0\"}]}]`. Note also that OLM's failure text for `not` omits the word \"not\".",
            ));
        }
        let max_depth = self
            .ctx
            .config
            .option_u64("OLM205", "max-depth")
            .map_or(10, |v| v as usize);
        let mut depth_reported = false;
        root.walk(&mut |c| {
            node_checks(
                self.ctx,
                at,
                self.p,
                c,
                base,
                max_depth,
                &mut depth_reported,
                out,
            );
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn node_checks(
    ctx: &Ctx<'_>,
    at: &At<'_>,
    p: &Property<'_>,
    c: &Constraint<'_>,
    base: &str,
    max_depth: usize,
    depth_reported: &mut bool,
    out: &mut Vec<Diagnostic>,
) {
    let pointer = format!("{base}{}", c.pointer);
    if c.depth > max_depth && !*depth_reported {
        *depth_reported = true;
        out.push(at.d("OLM205", format!("constraint nesting reaches level {} (the root is level 1); tools must limit nesting to {max_depth}", c.depth), c.node.span, pointer.clone()).help(
            "The compound-constraints enhancement requires tools to limit nesting to 10 levels (OLM itself only stops at 3332). Flatten nested all/any: `all` inside `all` can be merged.",
        ));
    }
    if c.failure_message.is_some() && !matches!(c.kind, Kind::Cel { .. }) {
        let fm = c.failure_message.map_or(c.node.span, |n| n.span);
        out.push(at.d("OLM211", "OLM never shows this failureMessage: it is only surfaced for `cel` constraints", fm, format!("{pointer}/failureMessage")).help(
            "Resolution failures print the predicate text for gvk/package/all/any/not nodes. Keep the message for documentation, or move it onto a `cel` constraint.",
        ));
    }
    match &c.kind {
        Kind::Empty => {
            let msg = if c.depth == 1 {
                "constraint is empty: it sets none of gvk, package, all, any, not, cel"
            } else {
                "nested constraint is empty: it sets none of gvk, package, all, any, not, cel"
            };
            out.push(at.d("OLM202", format!("{msg} (OLM: \"convert olm.constraint to resolver predicate: constraint is empty\")"), c.node.span, pointer).help(
                "OLM fails the whole resolution when a subscription reaches this bundle. Add exactly one constraint kind.",
            ));
        }
        Kind::Compound { op, children, list } if children.is_empty() => {
            let span = list.map_or(c.node.span, |l| l.span);
            match op {
                CompoundKind::Any => out.push(at.d("OLM206", "`any` with no constraints is never satisfied: this bundle can never be installed", span, pointer).help("An OR of nothing is false. Add the alternatives, or remove the constraint.")),
                _ => out.push(
                    at.d("OLM206", format!("`{}` with no constraints is always true: it requires nothing", op.key()), span, pointer)
                        .severity(Severity::Warning)
                        .help("An empty `all`/`not` matches every bundle, including this one. Add the constraints you meant, or remove it."),
                ),
            }
        }
        Kind::Package {
            range,
            range_node,
            name,
            name_node: _,
        } => {
            match range_node {
                Some(rn) => {
                    let site = Site { file: p.file, node: rn, pointer: format!("{pointer}/package/versionRange"), package: Some(at.pkg), bundle: Some(at.bundle) };
                    check_range(ctx, &site, range, Use::Dependency, out);
                }
                None => out.push(
                    at.d("OLM301", "`package` constraint has no versionRange: OLM fails with \"Last element in range is '||'\"", c.node.span, format!("{pointer}/package"))
                        .help(format!("`versionRange` is required; to accept any version of {name} write `versionRange: \">=0.0.0\"`.")),
                ),
            }
            // An empty packageName decodes (OLM accepts it) and matches nothing: OLM503.
        }
        Kind::Gvk {
            group,
            version,
            kind,
        } => gvk_checks(at, c.node, &pointer, group, version, kind, out),
        _ => {}
    }
}

/// OLM210: GVKs that no operator can provide or that look mistyped.
fn gvk_checks(
    at: &At<'_>,
    node: &Node,
    pointer: &str,
    group: &str,
    version: &str,
    kind: &str,
    out: &mut Vec<Diagnostic>,
) {
    let mut problems = Vec::new();
    if group.is_empty() {
        problems.push(
            "the group is empty (core Kubernetes APIs are never provided by operators)".to_string(),
        );
    }
    let version_ok = version.strip_prefix('v').is_some_and(|r| {
        let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
        let rest = r.get(digits.len()..).unwrap_or("");
        !digits.is_empty()
            && !digits.starts_with('0')
            && (rest.is_empty()
                || ["alpha", "beta"].iter().any(|p| {
                    rest.strip_prefix(p)
                        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                }))
    });
    if !version_ok {
        problems.push(format!(
            "version {version:?} is not a Kubernetes API version (v1, v1beta2, v2alpha1)"
        ));
    }
    if !kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        || kind.contains(['.', '-', '_', ' ', '/'])
    {
        problems.push(format!("kind {kind:?} is not UpperCamelCase"));
    } else if kind.len() > 3
        && kind.ends_with('s')
        && !kind.ends_with("ss")
        && !kind.ends_with("us")
        && !kind.ends_with("is")
    {
        problems.push(format!(
            "kind {kind:?} looks plural (kinds are singular; {kind:?} may be the resource name)"
        ));
    }
    if group.ends_with(".k8s.io") && !group.contains("x-k8s")
        || ["apps", "batch", "core", "v1"].contains(&group)
    {
        problems.push(format!(
            "group {group:?} belongs to Kubernetes itself, which no bundle provides"
        ));
    }
    if version.contains('/') || group.contains('/') {
        problems.push(
            "group and version are separate fields (write `group: example.com`, `version: v1`)"
                .into(),
        );
    }
    if problems.is_empty() {
        return;
    }
    out.push(at.d("OLM210", format!("suspicious GVK {group}/{version}/{kind}: {}", problems.join("; ")), node.span, format!("{pointer}/gvk")).help(
        "A gvk constraint matches bundles whose `olm.gvk` property has exactly this group, version and kind (case-sensitive); a typo leaves the dependency without candidates.",
    ));
}

/// Whether the mapping holding the key at `pointer` has another key that folds to `name`
/// (renaming onto it would write a duplicate key).
fn sibling_has(value: &Node, pointer: &str, name: &str) -> bool {
    let (parent, own) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    let own = olmlint_base::tree::unescape_segment(own);
    value
        .at_pointer(parent)
        .and_then(Node::as_map)
        .is_some_and(|m| {
            m.iter()
                .any(|e| *e.key != *own && e.key.eq_ignore_ascii_case(name))
        })
}

fn did_you_mean(key: &str, pointer: &str) -> (String, Option<&'static str>) {
    let parent = pointer.rsplit('/').nth(1).unwrap_or("");
    let specific: Option<&'static str> = match (parent, key) {
        ("package", "name") | ("package", "package") => Some("packageName"),
        ("package", "version") | ("package", "range") => Some("versionRange"),
        (_, "message") => Some("failureMessage"),
        _ => None,
    };
    let fields: &[&'static str] = match parent {
        "gvk" => &["group", "version", "kind"],
        "package" => &["packageName", "versionRange"],
        "cel" => &["rule"],
        "all" | "any" | "not" => &["constraints"],
        _ => &FIELDS,
    };
    match specific.or_else(|| olmlint_base::suggest::closest(key, fields.iter().copied())) {
        Some(s) => (format!(" Did you mean `{s}`?"), Some(s)),
        None => (format!(" Valid keys here: {}.", fields.join(", ")), None),
    }
}

/// OLM208 for the generic-constraint proposal shape (`evaluator`, `rule`, `action`, `source`).
fn provisional_value(
    at: &At<'_>,
    value: &Node,
    key: &str,
    span: Span,
    pointer: &str,
) -> Diagnostic {
    let rule = ["rule", "source"]
        .iter()
        .find_map(|k| value.get_folded(k))
        .and_then(|e| e.value.as_str())
        .unwrap_or("<rule>");
    at.d("OLM208", format!("`{key}` is from the generic-constraint proposal, which OLM never implemented: \"parse olm.constraint: json: unknown field {key:?}\""), span, pointer).help(format!(
        "Write the modern form: `value: {{cel: {{rule: {rule:?}}}, failureMessage: \"…\"}}`."
    ))
}

/// The modern form of a constraint written in the generic-constraint proposal's shape
/// (`{evaluator: {id: cel}, rule, message, action: {id: require}}`), as a fix. Only for values
/// that say nothing else, so the rewrite keeps every piece of information.
fn provisional_rewrite(ctx: &Ctx<'_>, p: &Property<'_>, value: &Node) -> Option<Fix> {
    let (rule, message) = cel_rule_and_message(
        value,
        &["evaluator", "rule", "message", "failureMessage", "action"],
    )?;
    let ok_id = |key: &str, id: &str| {
        value.get_folded(key).is_none_or(|e| {
            e.value.as_map().is_some_and(|m| m.len() == 1)
                && e.value.get_folded("id").and_then(|i| i.value.as_str()) == Some(id)
        })
    };
    if !ok_id("evaluator", "cel") || !ok_id("action", "require") {
        return None;
    }
    let text = value_rewrite(ctx, p, value, rule, message)?;
    Some(Fix {
        description: "rewrite as `{cel: {rule}, failureMessage}`".into(),
        safe: true,
        edits: vec![text],
    })
}

/// The `rule` and optional `message`/`failureMessage` strings of a CEL-only value whose keys
/// (folded) are all in `allowed`.
fn cel_rule_and_message<'v>(
    value: &'v Node,
    allowed: &[&str],
) -> Option<(&'v str, Option<&'v str>)> {
    let map = value.as_map()?;
    if !map
        .iter()
        .all(|e| allowed.iter().any(|k| k.eq_ignore_ascii_case(&e.key)))
    {
        return None;
    }
    let rule = value
        .get_folded("rule")?
        .value
        .as_str()
        .filter(|r| !r.trim().is_empty())?;
    let messages: Vec<&Node> = ["message", "failureMessage"]
        .iter()
        .filter_map(|k| value.get_folded(k))
        .map(|e| &e.value)
        .collect();
    let message = match messages.as_slice() {
        [] => None,
        [m] => Some(m.as_str()?),
        _ => return None,
    };
    Some((rule, message))
}

/// An edit replacing the whole value node with `{cel: {rule}, failureMessage}`, in the node's
/// own style. `None` for values converted from bundle-directory metadata (no source to edit).
fn value_rewrite(
    ctx: &Ctx<'_>,
    p: &Property<'_>,
    value: &Node,
    rule: &str,
    message: Option<&str>,
) -> Option<Edit> {
    use olmlint_load::fix::Value as V;
    if !matches!(p.value, Some(std::borrow::Cow::Borrowed(_))) {
        return None;
    }
    let file = ctx.files.get(p.file)?;
    let mut entries = vec![(
        "cel".to_string(),
        V::Map(vec![("rule".to_string(), V::Str(rule.to_string()))]),
    )];
    if let Some(m) = message {
        entries.push(("failureMessage".to_string(), V::Str(m.to_string())));
    }
    let json = file.format == olmlint_load::Format::Json;
    let text = olmlint_load::fix::render_in_place(
        &file.source.text,
        value.span.start(),
        json,
        &V::Map(entries),
    );
    // A block mapping's span runs to the next token; stop at its last value so that the line
    // break, indentation and comments after it stay.
    let span = Span::new(
        value.span.start(),
        olmlint_load::fix::content_end(&file.source.text, value),
    );
    Some(Edit::raw(p.file, span, text))
}

/// Where the text of `node` ends in `text`: for block collections, the end of their last value
/// (flow collections end with their closing bracket).
fn provisional_type(ctx: &Ctx<'_>, b: &Bundle<'_>, p: &Property<'_>, out: &mut Vec<Diagnostic>) {
    let at = At {
        file: p.file,
        pkg: b.package(),
        bundle: b.name(),
    };
    let span = p.ty.map_or(p.span(), |t| t.node.span);
    let rewrite = match p.ty() {
        "olm.constraint.cel" => "`type: olm.constraint` with `value: {cel: {rule: ...}}`",
        "olm.all.required" => "`type: olm.constraint` with `value: {all: {constraints: [...]}}`",
        "olm.any.required" => "`type: olm.constraint` with `value: {any: {constraints: [...]}}`",
        _ => "`type: olm.constraint` with `value: {not: {constraints: [...]}}` inside an `all`",
    };
    let mut d = at.d("OLM208", format!("property type {:?} is from a proposal OLM never implemented: OLM ignores it, so this dependency does not exist", p.ty()), span, format!("{}/type", p.pointer)).help(format!("Use {rewrite}."));
    // Unsafe: OLM ignores the property today, so the rewrite switches a dependency on.
    let cel_value = p
        .value
        .as_deref()
        .filter(|_| p.ty() == "olm.constraint.cel");
    if let (Some(ty), Some(value)) = (p.ty, cel_value) {
        let edits = cel_rule_and_message(value, &["rule", "message", "failureMessage"])
            .and_then(|(rule, message)| value_rewrite(ctx, p, value, rule, message));
        if let Some(edit) = edits {
            d = d.fix(Fix {
                description:
                    "rewrite as an `olm.constraint` with `{cel: {rule}}` (OLM starts enforcing it)"
                        .into(),
                safe: false,
                edits: vec![Edit::rename(p.file, ty.node.span, "olm.constraint"), edit],
            });
        }
    }
    out.push(d);
}

/// OLM202 for the documented YAML indentation mistake: `value:` empty, the constraint keys
/// written beside it on the property item.
fn indentation_mistake(at: &At<'_>, p: &Property<'_>, value: &Node, base: &str) -> Diagnostic {
    let stray: Vec<&str> = p
        .item
        .and_then(Node::as_map)
        .unwrap_or(&[])
        .iter()
        .map(|e| &*e.key)
        .filter(|k| {
            KIND_KEYS.iter().any(|c| c.eq_ignore_ascii_case(k))
                || k.eq_ignore_ascii_case("failureMessage")
        })
        .collect();
    let d = at.d("OLM202", "constraint is empty: `value` is null (OLM: \"convert olm.constraint to resolver predicate: constraint is empty\")", value.span, base);
    if stray.is_empty() {
        d.help("Give the property a constraint value, e.g. `value: {gvk: {group: example.com, version: v1, kind: Foo}}`.")
    } else {
        d.help(format!(
            "`{}` sits beside `value:` instead of under it (the indentation mistake in the OLM docs' example): opm drops it and OLM sees `value: null`. Indent it two more spaces below `value:`.",
            stray.join("`, `")
        ))
    }
}

/// OLM209: legacy dependency properties OLM cannot use.
/// Properties rendered from a bundle directory's dependencies.yaml are checked by OLM601
/// against that file's own spelling (`version`, not `versionRange`).
fn from_dependencies_yaml(ctx: &Ctx<'_>, p: &Property<'_>) -> bool {
    ctx.files.get(p.file).is_some_and(|f| {
        f.source
            .path
            .file_name()
            .is_some_and(|n| n == "dependencies.yaml")
    })
}

fn legacy(b: &Bundle<'_>, p: &Property<'_>, out: &mut Vec<Diagnostic>) {
    let at = At {
        file: p.file,
        pkg: b.package(),
        bundle: b.name(),
    };
    let Some(v) = p.value.as_deref() else { return };
    let base = p.value_pointer();
    // Go decodes `null` into the struct as a no-op: every field stays empty.
    let map = if v.is_null() {
        Some(&[][..])
    } else {
        v.as_map()
    };
    let Some(map) = map else {
        if p.ty() == "olm.label.required" {
            out.push(at.d("OLM209", format!("olm.label.required value is {}, not a mapping: OLM fails with \"json: cannot unmarshal {} into Go value of type struct {{…}}\"", v.display_scalar(), v.go_kind()), v.span, base).help("Write `value: {label: <label>}`."));
        }
        return; // other types: opm rejects them (OLM108)
    };
    let has = |k: &str| {
        map.iter()
            .rev()
            .find(|e| e.key.eq_ignore_ascii_case(k))
            .map(|e| &e.value)
    };
    let str_of = |k: &str| has(k).and_then(Node::as_str).unwrap_or("");
    let problem = |msg: String, span: Span, ptr: String, help: &str| {
        at.d("OLM209", msg, span, ptr).help(help.to_string())
    };
    match p.ty() {
        "olm.package.required" => {
            if str_of("packageName").is_empty() {
                out.push(problem(
                    "olm.package.required has no packageName: it matches no bundle".into(),
                    v.span,
                    base.clone(),
                    "Set `packageName` to the package this bundle depends on.",
                ));
            }
            if has("versionRange").is_none() {
                let (msg, help) = match has("version") {
                    Some(_) => ("olm.package.required uses `version`, which OLM does not read here: the range is empty and OLM fails with \"Last element in range is '||'\"", "In FBC the key is `versionRange` (`version` is the dependencies.yaml spelling). Rename it."),
                    None => ("olm.package.required has no versionRange: OLM fails with \"Last element in range is '||'\"", "Add `versionRange`, e.g. `>=1.0.0`."),
                };
                let mut d = problem(msg.into(), v.span, base.clone(), help);
                if let Some(e) = map.iter().find(|e| &*e.key == "version") {
                    d = d.fix(Fix {
                        description: "rename `version` to `versionRange`".into(),
                        safe: true,
                        edits: vec![Edit::rename(p.file, e.key_span, "versionRange")],
                    });
                }
                out.push(d);
            }
        }
        "olm.gvk.required" => {
            let missing: Vec<&str> = ["group", "version", "kind"]
                .into_iter()
                .filter(|k| str_of(k).is_empty())
                .collect();
            if !missing.is_empty() {
                out.push(problem(format!("olm.gvk.required has no {}: it matches no bundle", missing.join(", ")), v.span, base.clone(), "Set group, version and kind; they are compared exactly with the providers' `olm.gvk` properties."));
            }
        }
        _ => {
            if str_of("label").is_empty() {
                out.push(problem(
                    "olm.label.required has no label: it matches no bundle".into(),
                    v.span,
                    base.clone(),
                    "Write `value: {label: <label>}`.",
                ));
            }
        }
    }
}
