//! OLM754 olmv1-v0-coupling: signs that the operator relies on parts of OLM v0 that OLM v1
//! does not have (spec §1.8): permissions on OLM v0's `operators.coreos.com` objects that
//! OLM v1 never creates for it (OperatorConditions, Subscriptions, ClusterServiceVersions),
//! and the `OPERATOR_CONDITION_NAME` variable OLM v0 injects. Heuristics, so warnings.

use super::csv::{seq_of, strings_of, Csv};
use super::layout::Who;
use olmlint_base::diag::Diagnostic;

const OLM_V0_GROUP: &str = "operators.coreos.com";

const HELP: &str = "OLM v1 does not support OLM v0's OperatorConditions API and creates no Subscription or ClusterServiceVersion for what it installs (operator-controller's docs/project/olmv1_limitations.md); on a cluster without OLM v0 these APIs do not exist. This is a heuristic: the permission may be unused. If the operator reads its OperatorCondition (operator-lib's conditions package) or manages OLM v0 objects, make it work when they are absent, then drop the permission.";

pub fn check(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    permissions(csv, who, out);
    condition_env(csv, who, out);
}

fn permissions(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    let strategy = csv.strategy();
    for list in ["permissions", "clusterPermissions"] {
        for p in seq_of(strategy, list) {
            for rule in seq_of(Some(p), "rules") {
                let groups = strings_of(rule, "apiGroups");
                if !groups.iter().any(|(g, _)| *g == OLM_V0_GROUP) {
                    continue;
                }
                for (resource, node) in strings_of(rule, "resources") {
                    let what = match resource.to_ascii_lowercase().as_str() {
                        "operatorconditions" | "operatorconditions/status" => "OLM v1 creates no OperatorCondition for the operator to report upgrade readiness through",
                        "subscriptions" => "OLM v1 creates no Subscription, and the API exists only where OLM v0 is installed",
                        "clusterserviceversions" => "OLM v1 creates no ClusterServiceVersion, and the API exists only where OLM v0 is installed",
                        _ => continue,
                    };
                    out.push(
                        Diagnostic::new(
                            "OLM754",
                            format!("the CSV's {list} grant {OLM_V0_GROUP} {resource}: {what}"),
                        )
                        .at(csv.file, node.span)
                        .package(who.0)
                        .bundle(who.1)
                        .help(HELP),
                    );
                }
            }
        }
    }
}

fn condition_env(csv: &Csv<'_>, who: Who<'_>, out: &mut Vec<Diagnostic>) {
    for d in csv.deployments() {
        let pod = d
            .node
            .get("spec")
            .and_then(|s| s.get("template"))
            .and_then(|t| t.get("spec"));
        for key in ["containers", "initContainers"] {
            for c in seq_of(pod, key) {
                for env in seq_of(Some(c), "env") {
                    let Some(name) = env
                        .get("name")
                        .filter(|n| n.as_str() == Some("OPERATOR_CONDITION_NAME"))
                    else {
                        continue;
                    };
                    out.push(
                        Diagnostic::new(
                            "OLM754",
                            format!("deployment {:?} sets OPERATOR_CONDITION_NAME, the variable OLM v0 injects to name the operator's OperatorCondition: OLM v1 creates no OperatorCondition", d.name),
                        )
                        .at(csv.file, name.span)
                        .package(who.0)
                        .bundle(who.1)
                        .help(HELP),
                    );
                }
            }
        }
    }
}
