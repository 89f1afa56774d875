//! `olmlint graph`: the upgrade graph of each channel as the checks see it (the same model and
//! edges: `replaces`, `skips`, and the entries a `skipRange` covers), with the run's findings
//! overlaid on the bundles and channels they concern. Formats: JSON (the structure), Mermaid
//! (GitHub renders it in Markdown) and Graphviz DOT.

use crate::diag::{Diagnostic, Severity};
use crate::model::Catalog;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    Replaces,
    Skips,
    SkipRange,
}

#[derive(Debug, Serialize)]
pub struct Edge {
    /// The newer bundle (the entry declaring the edge).
    pub from: String,
    /// The bundle it upgrades from.
    pub to: String,
    pub kind: EdgeKind,
}

#[derive(Debug, Serialize)]
pub struct Finding {
    pub rule: String,
    pub severity: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct Node {
    pub name: String,
    pub version: Option<String>,
    /// False when the channel lists a bundle the catalog does not have.
    pub exists: bool,
    pub head: bool,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Serialize)]
pub struct ChannelGraph {
    /// The channel document, for placing findings about the channel ([`overlay`]).
    #[serde(skip)]
    pub at: crate::diag::Location,
    pub name: String,
    pub default: bool,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Findings about the channel as a whole (no bundle named).
    pub findings: Vec<Finding>,
}

#[derive(Debug, Serialize)]
pub struct PackageGraph {
    pub name: String,
    pub default_channel: Option<String>,
    pub channels: Vec<ChannelGraph>,
}

/// Which packages and channels to draw.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub package: Option<String>,
    pub channel: Option<String>,
}

fn finding(d: &Diagnostic) -> Finding {
    Finding {
        rule: d.rule.to_string(),
        severity: d.severity.as_str().to_string(),
        message: d.message.clone(),
    }
}

/// The graphs of a catalog's channels, from the model the checks use; [`overlay`] adds the
/// run's findings.
pub fn build(cat: &Catalog<'_>, filter: &Filter) -> Vec<PackageGraph> {
    let mut versions: BTreeMap<(&str, &str), String> = BTreeMap::new();
    let mut bundles: BTreeSet<(&str, &str)> = BTreeSet::new();
    for b in &cat.bundles {
        bundles.insert((b.package(), b.name()));
        if let Some(v) = b.version() {
            versions.insert((b.package(), b.name()), v.value.to_string());
        }
    }
    let mut defaults: BTreeMap<&str, &str> = BTreeMap::new();
    for p in &cat.packages {
        if let (Some(n), Some(d)) = (p.name, p.default_channel) {
            defaults.entry(n.value).or_insert(d.value);
        }
    }
    let mut out: BTreeMap<String, PackageGraph> = BTreeMap::new();
    for c in &cat.channels {
        let pkg = c.package.map_or("", |p| p.value);
        let name = c.name.map_or("", |n| n.value);
        if filter.package.as_deref().is_some_and(|p| p != pkg)
            || filter.channel.as_deref().is_some_and(|x| x != name)
        {
            continue;
        }
        let default_channel = defaults.get(pkg).map(|d| d.to_string());
        let entry = out.entry(pkg.to_string()).or_insert_with(|| PackageGraph {
            name: pkg.to_string(),
            default_channel: default_channel.clone(),
            channels: Vec::new(),
        });
        let names: BTreeSet<&str> = c.entries.iter().map(|e| e.name()).collect();
        let mut edges = Vec::new();
        for e in &c.entries {
            let from = e.name().to_string();
            if let Some(r) = e.replaces.filter(|r| !r.value.is_empty()) {
                edges.push(Edge {
                    from: from.clone(),
                    to: r.value.to_string(),
                    kind: EdgeKind::Replaces,
                });
            }
            for s in e.skips.iter().filter(|s| !s.value.is_empty()) {
                edges.push(Edge {
                    from: from.clone(),
                    to: s.value.to_string(),
                    kind: EdgeKind::Skips,
                });
            }
            let range = e
                .skip_range
                .and_then(|r| crate::semantics::range::parse(r.value).ok());
            if let Some(range) = range {
                for other in c.entries.iter().filter(|o| o.name() != e.name()) {
                    let v = versions
                        .get(&(pkg, other.name()))
                        .and_then(|v| crate::semantics::version::parse_tolerant(v).ok());
                    if v.is_some_and(|v| range.contains(&v)) {
                        edges.push(Edge {
                            from: from.clone(),
                            to: other.name().to_string(),
                            kind: EdgeKind::SkipRange,
                        });
                    }
                }
            }
        }
        // The head: no other entry of the channel replaces or skips it (opm's rule).
        let targets: BTreeSet<&str> = edges
            .iter()
            .filter(|e| e.kind != EdgeKind::SkipRange && e.from != e.to)
            .map(|e| e.to.as_str())
            .collect();
        let mut nodes: Vec<Node> = c
            .entries
            .iter()
            .map(|e| Node {
                name: e.name().to_string(),
                version: versions.get(&(pkg, e.name())).cloned(),
                exists: bundles.contains(&(pkg, e.name())),
                head: !targets.contains(e.name()),
                findings: Vec::new(),
            })
            .collect();
        // Edges to bundles the channel does not list are drawn to a node of their own.
        for t in edges.iter().map(|e| e.to.as_str()).collect::<BTreeSet<_>>() {
            if !names.contains(t) {
                nodes.push(Node {
                    name: t.to_string(),
                    version: versions.get(&(pkg, t)).cloned(),
                    exists: bundles.contains(&(pkg, t)),
                    head: false,
                    findings: Vec::new(),
                });
            }
        }
        entry.channels.push(ChannelGraph {
            at: crate::diag::Location {
                file: c.doc.file,
                span: c.doc.node.span,
            },
            name: name.to_string(),
            default: default_channel.as_deref() == Some(name),
            nodes,
            edges,
            findings: Vec::new(),
        });
    }
    out.into_values().collect()
}

/// Put the run's findings on the graphs: a finding about a bundle on its node in every
/// channel of its package; one about no bundle on the channel whose document holds it.
pub fn overlay(graphs: &mut [PackageGraph], diags: &[Diagnostic]) {
    let mut by_bundle: BTreeMap<(&str, &str), Vec<&Diagnostic>> = BTreeMap::new();
    let mut by_package: BTreeMap<&str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        let Some(p) = d.package.as_deref() else {
            continue;
        };
        match d.bundle.as_deref() {
            Some(b) => by_bundle.entry((p, b)).or_default().push(d),
            None => by_package.entry(p).or_default().push(d),
        }
    }
    for p in graphs {
        for c in &mut p.channels {
            for n in &mut c.nodes {
                if let Some(ds) = by_bundle.get(&(p.name.as_str(), n.name.as_str())) {
                    n.findings = ds.iter().map(|d| finding(d)).collect();
                }
            }
            let inside = |d: &&&Diagnostic| {
                d.location.is_some_and(|l| {
                    l.file == c.at.file
                        && c.at.span.start() <= l.span.start()
                        && l.span.end() <= c.at.span.end()
                })
            };
            c.findings = by_package
                .get(p.name.as_str())
                .map(|ds| ds.iter().filter(inside).map(|d| finding(d)).collect())
                .unwrap_or_default();
        }
    }
}

fn worst(findings: &[Finding]) -> Option<&'static str> {
    let sev = |s: &str| Severity::parse(s).unwrap_or(Severity::Info);
    findings
        .iter()
        .map(|f| sev(&f.severity))
        .max()
        .map(Severity::as_str)
}

fn rules(findings: &[Finding]) -> String {
    let ids: BTreeSet<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
    ids.into_iter().collect::<Vec<_>>().join(" ")
}

/// Mermaid `flowchart` (GitHub renders it): one subgraph per channel; replaces solid, skips
/// dotted, skipRange thick; heads bold, bundles with findings coloured by their worst severity
/// and labelled with the rule IDs; bundles the catalog lacks dashed.
pub fn mermaid(graphs: &[PackageGraph]) -> String {
    let mut s = String::from("flowchart RL\n");
    let _ = writeln!(
        s,
        "  classDef head stroke-width:3px\n  classDef error fill:#fdd,stroke:#c00\n  \
         classDef warning fill:#ffd,stroke:#b80\n  classDef info fill:#def,stroke:#36c\n  \
         classDef missing stroke-dasharray: 4 3,fill:#eee"
    );
    let label = |t: &str| t.replace('"', "#quot;");
    let mut n = 0usize;
    for p in graphs {
        for c in &p.channels {
            let title = format!(
                "{} / {}{}{}",
                p.name,
                c.name,
                if c.default { " (default)" } else { "" },
                if c.findings.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", rules(&c.findings))
                }
            );
            let _ = writeln!(s, "  subgraph c{n}[\"{}\"]", label(&title));
            let base = n;
            let ids: BTreeMap<&str, String> = c
                .nodes
                .iter()
                .enumerate()
                .map(|(i, node)| (node.name.as_str(), format!("c{base}n{i}")))
                .collect();
            for node in &c.nodes {
                let Some(id) = ids.get(node.name.as_str()) else {
                    continue;
                };
                let mut text = node.name.clone();
                if !node.findings.is_empty() {
                    let _ = write!(text, "<br/>{}", rules(&node.findings));
                }
                let _ = writeln!(s, "    {id}[\"{}\"]", label(&text));
                let mut classes = Vec::new();
                if node.head {
                    classes.push("head");
                }
                if !node.exists {
                    classes.push("missing");
                }
                if let Some(w) = worst(&node.findings) {
                    classes.push(w);
                }
                for class in classes {
                    let _ = writeln!(s, "    class {id} {class}");
                }
            }
            for e in &c.edges {
                let (Some(from), Some(to)) = (ids.get(e.from.as_str()), ids.get(e.to.as_str()))
                else {
                    continue;
                };
                let arrow = match e.kind {
                    EdgeKind::Replaces => "-->",
                    EdgeKind::Skips => "-.->|skips|",
                    EdgeKind::SkipRange => "==>|skipRange|",
                };
                let _ = writeln!(s, "    {from} {arrow} {to}");
            }
            s.push_str("  end\n");
            n += 1;
        }
    }
    s
}

/// Graphviz DOT: one cluster per channel, the same conventions as [`mermaid`].
pub fn dot(graphs: &[PackageGraph]) -> String {
    let q = |t: &str| {
        format!(
            "\"{}\"",
            t.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
        )
    };
    let mut s = String::from(
        "digraph olm {\n  rankdir=RL;\n  node [shape=box, fontname=\"sans-serif\"];\n",
    );
    let mut n = 0usize;
    for p in graphs {
        for c in &p.channels {
            let _ = writeln!(s, "  subgraph cluster_{n} {{");
            let _ = writeln!(
                s,
                "    label={};",
                q(&format!(
                    "{} / {}{}",
                    p.name,
                    c.name,
                    if c.default { " (default)" } else { "" }
                ))
            );
            let id = |name: &str| q(&format!("c{n}:{name}"));
            for node in &c.nodes {
                let mut attrs = vec![format!(
                    "label={}",
                    q(&if node.findings.is_empty() {
                        node.name.clone()
                    } else {
                        format!("{}\n{}", node.name, rules(&node.findings))
                    })
                )];
                if node.head {
                    attrs.push("penwidth=3".into());
                }
                if !node.exists {
                    attrs.push("style=dashed".into());
                }
                match worst(&node.findings) {
                    Some("error") => attrs.push("color=red, fontcolor=red".into()),
                    Some("warning") => attrs.push("color=orange".into()),
                    Some(_) => attrs.push("color=blue".into()),
                    None => {}
                }
                let _ = writeln!(s, "    {} [{}];", id(&node.name), attrs.join(", "));
            }
            for e in &c.edges {
                let style = match e.kind {
                    EdgeKind::Replaces => "solid",
                    EdgeKind::Skips => "dashed, label=\"skips\"",
                    EdgeKind::SkipRange => "dotted, label=\"skipRange\"",
                };
                let _ = writeln!(s, "    {} -> {} [style={style}];", id(&e.from), id(&e.to));
            }
            s.push_str("  }\n");
            n += 1;
        }
    }
    s.push_str("}\n");
    s
}
