//! A ClusterServiceVersion as operator-controller reads it (`v1alpha1.ClusterServiceVersion`
//! through `runtime.DefaultUnstructuredConverter`: exact-case keys, zero values for what is
//! absent), limited to the fields OLM v1 uses (spec §1.8).

use olmlint_base::tree::{Node, Span, Value};

pub const VALIDATING: &str = "ValidatingAdmissionWebhook";
pub const MUTATING: &str = "MutatingAdmissionWebhook";
pub const CONVERSION: &str = "ConversionWebhook";

/// The string at `key` of `node`, `""` when absent or not a string (Go's zero value).
pub fn str_of<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get(key).and_then(Node::as_str).unwrap_or("")
}

/// The list at `key` of `node` (empty when absent or not a list).
pub fn seq_of<'a>(node: Option<&'a Node>, key: &str) -> &'a [Node] {
    node.and_then(|n| n.get(key))
        .and_then(Node::as_seq)
        .unwrap_or_default()
}

/// The strings of the list at `key` of `node`, with their nodes.
pub fn strings_of<'a>(node: &'a Node, key: &str) -> Vec<(&'a str, &'a Node)> {
    seq_of(Some(node), key)
        .iter()
        .map(|n| (n.as_str().unwrap_or(""), n))
        .collect()
}

/// One `installModes` entry.
#[derive(Clone, Copy)]
pub struct Mode<'a> {
    pub ty: &'a str,
    /// Only a boolean `true` (a string is a conversion error in OLM v1, never support).
    pub supported: bool,
    pub node: &'a Node,
}

/// The entries of an `installModes` list (a CSV's, or an `olm.csv.metadata`'s).
pub fn modes(list: Option<&Node>) -> Vec<Mode<'_>> {
    list.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(|m| Mode {
            ty: str_of(m, "type"),
            supported: m.get("supported").map(|s| &s.value) == Some(&Value::Bool(true)),
            node: m,
        })
        .collect()
}

/// The install mode types with `supported: true`, sorted and deduplicated (Go's
/// `sets.List` of `supportedBundleInstallModes`).
pub fn supported_types<'a>(modes: &[Mode<'a>]) -> Vec<&'a str> {
    let mut v: Vec<&str> = modes.iter().filter(|m| m.supported).map(|m| m.ty).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Go's `%v` of a `[]InstallModeType`.
pub fn go_list(items: &[&str]) -> String {
    format!("[{}]", items.join(" "))
}

/// A `webhookdefinitions` entry.
pub struct Webhook<'a> {
    pub node: &'a Node,
    pub ty: &'a str,
    pub name: &'a str,
    pub deployment: &'a str,
}

impl<'a> Webhook<'a> {
    /// Where a finding about the webhook's name points: its `generateName`, else the entry.
    pub fn name_span(&self) -> Span {
        self.node.get("generateName").unwrap_or(self.node).span
    }
    pub fn conversion_crds(&self) -> Vec<(&'a str, &'a Node)> {
        strings_of(self.node, "conversionCRDs")
    }
}

/// An `install.spec.deployments` entry.
pub struct Deployment<'a> {
    pub node: &'a Node,
    pub name: &'a str,
}

impl Deployment<'_> {
    pub fn name_span(&self) -> Span {
        self.node.get("name").unwrap_or(self.node).span
    }
}

#[derive(Clone, Copy)]
pub struct Csv<'a> {
    pub file: usize,
    pub node: &'a Node,
}

impl<'a> Csv<'a> {
    pub fn spec(&self) -> Option<&'a Node> {
        self.node.get("spec")
    }

    pub fn name(&self) -> &'a str {
        self.node.get("metadata").map_or("", |m| str_of(m, "name"))
    }

    /// The name node, else the document: where findings about the CSV as a whole point.
    pub fn anchor(&self) -> Span {
        self.node
            .get("metadata")
            .and_then(|m| m.get("name"))
            .or(self.node.get("kind"))
            .unwrap_or(self.node)
            .span
    }

    pub fn install_modes(&self) -> Option<&'a Node> {
        self.spec()?.get("installModes")
    }

    /// `spec.apiservicedefinitions.owned`, when it lists something.
    pub fn owned_api_services(&self) -> Option<&'a Node> {
        self.spec()?
            .get("apiservicedefinitions")?
            .get("owned")
            .filter(|o| o.as_seq().is_some_and(|s| !s.is_empty()))
    }

    /// `spec.webhookdefinitions`, when it lists something.
    pub fn webhook_list(&self) -> Option<&'a Node> {
        self.spec()?
            .get("webhookdefinitions")
            .filter(|o| o.as_seq().is_some_and(|s| !s.is_empty()))
    }

    pub fn webhooks(&self) -> Vec<Webhook<'a>> {
        seq_of(self.spec(), "webhookdefinitions")
            .iter()
            .map(|w| Webhook {
                node: w,
                ty: str_of(w, "type"),
                name: str_of(w, "generateName"),
                deployment: str_of(w, "deploymentName"),
            })
            .collect()
    }

    /// `spec.install.spec`.
    pub fn strategy(&self) -> Option<&'a Node> {
        self.spec()?.get("install")?.get("spec")
    }

    pub fn deployments(&self) -> Vec<Deployment<'a>> {
        seq_of(self.strategy(), "deployments")
            .iter()
            .map(|d| Deployment {
                node: d,
                name: str_of(d, "name"),
            })
            .collect()
    }

    /// `spec.customresourcedefinitions.owned` names, with their entries.
    pub fn owned_crds(&self) -> Vec<(&'a str, &'a Node)> {
        seq_of(
            self.spec().and_then(|s| s.get("customresourcedefinitions")),
            "owned",
        )
        .iter()
        .map(|c| (str_of(c, "name"), c))
        .collect()
    }
}
