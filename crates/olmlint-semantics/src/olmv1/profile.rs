//! OLM v1 (operator-controller) deployment profiles: which feature gates are on, since the
//! verdicts on a bundle depend on them (olmv1 spec §0.1).
//!
//! Gate names and defaults are operator-controller v1.11's
//! (`internal/operator-controller/features/features.go`); the upstream profiles are its Helm
//! values (`helm/olmv1/values.yaml`, `helm/experimental.yaml`); the OpenShift ones are
//! cluster-olm-operator's mapping (`internal/featuregates/mapper.go`), which always turns the
//! cert-manager provider off, with the release notes saying which gates a release turns on by
//! default.

use std::fmt;

/// The operator-controller feature gates that change what is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gates {
    pub webhook_provider_cert_manager: bool,
    pub webhook_provider_openshift_service_ca: bool,
    pub single_own_namespace_install_support: bool,
    pub deployment_config: bool,
    pub bundle_release_support: bool,
    pub boxcutter_runtime: bool,
}

/// Gate names as operator-controller spells them (`--feature-gates`), with their accessors.
pub const GATE_NAMES: [&str; 6] = [
    "WebhookProviderCertManager",
    "WebhookProviderOpenshiftServiceCA",
    "SingleOwnNamespaceInstallSupport",
    "DeploymentConfig",
    "BundleReleaseSupport",
    "BoxcutterRuntime",
];

impl Gates {
    fn slot(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "WebhookProviderCertManager" => &mut self.webhook_provider_cert_manager,
            "WebhookProviderOpenshiftServiceCA" => &mut self.webhook_provider_openshift_service_ca,
            "SingleOwnNamespaceInstallSupport" => &mut self.single_own_namespace_install_support,
            "DeploymentConfig" => &mut self.deployment_config,
            "BundleReleaseSupport" => &mut self.bundle_release_support,
            "BoxcutterRuntime" => &mut self.boxcutter_runtime,
            _ => return None,
        })
    }

    /// `main.go` `getCertificateProvider`: cert-manager if its gate is on, else the OpenShift
    /// service CA if its gate is on, else none (and webhooks are then not supported).
    pub fn certificate_provider(&self) -> Option<CertProvider> {
        if self.webhook_provider_cert_manager {
            Some(CertProvider::CertManager)
        } else if self.webhook_provider_openshift_service_ca {
            Some(CertProvider::OpenshiftServiceCa)
        } else {
            None
        }
    }

    /// Apply `NAME=BOOL,…` (`--olmv1-feature-gates`), as Kubernetes' `--feature-gates` reads it.
    pub fn apply(&mut self, overrides: &str) -> Result<(), String> {
        for item in overrides
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!(
                    "missing bool value for {item:?} (write {item}=true or {item}=false)"
                ));
            };
            let (name, value) = (name.trim(), value.trim());
            let on = match value.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(format!("invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax")),
            };
            let Some(slot) = self.slot(name) else {
                return Err(format!(
                    "unrecognized feature gate: {name} (OLM v1 gates that change what is accepted: {})",
                    GATE_NAMES.join(", ")
                ));
            };
            *slot = on;
        }
        Ok(())
    }

    /// The gates that are on, in [`GATE_NAMES`] order.
    pub fn enabled(&self) -> Vec<&'static str> {
        let mut copy = *self;
        GATE_NAMES
            .iter()
            .copied()
            .filter(|n| copy.slot(n).is_some_and(|b| *b))
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertProvider {
    CertManager,
    OpenshiftServiceCa,
}

/// A named deployment of OLM v1 and its gates (`--target olmv1=PROFILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// As given (`upstream`, `ocp-4.21`, …).
    pub name: String,
    pub gates: Gates,
}

/// The profiles `--target olmv1=PROFILE` accepts, for messages and docs.
pub const PROFILES: &str = "upstream (the default), upstream-experimental, ocp-4.20, ocp-4.21 (and any later OpenShift 4.x or 5.x)";

impl Default for Profile {
    fn default() -> Self {
        Profile::named("upstream").unwrap_or(Profile {
            name: "upstream".into(),
            gates: UPSTREAM,
        })
    }
}

/// v1.11's standard Helm values: only the cert-manager webhook provider is on.
const UPSTREAM: Gates = Gates {
    webhook_provider_cert_manager: true,
    webhook_provider_openshift_service_ca: false,
    single_own_namespace_install_support: false,
    deployment_config: false,
    bundle_release_support: false,
    boxcutter_runtime: false,
};

/// v1.11's experimental Helm values.
const UPSTREAM_EXPERIMENTAL: Gates = Gates {
    webhook_provider_cert_manager: true,
    webhook_provider_openshift_service_ca: false,
    single_own_namespace_install_support: true,
    deployment_config: true,
    bundle_release_support: true,
    boxcutter_runtime: true,
};

/// OpenShift's default feature set: cert-manager always off; the service CA provider on from
/// 4.21 (webhooks were Technology Preview in 4.20); Single/Own namespace still Technology
/// Preview through 4.22.
fn openshift(minor_or_later: (u32, u32)) -> Gates {
    Gates {
        webhook_provider_cert_manager: false,
        webhook_provider_openshift_service_ca: minor_or_later >= (4, 21),
        single_own_namespace_install_support: false,
        deployment_config: false,
        bundle_release_support: false,
        boxcutter_runtime: false,
    }
}

impl Profile {
    /// The profile called `name`, or `None`.
    pub fn named(name: &str) -> Option<Profile> {
        let gates = match name {
            "upstream" | "upstream-standard" => UPSTREAM,
            "upstream-experimental" => UPSTREAM_EXPERIMENTAL,
            _ => {
                let v = name.strip_prefix("ocp-")?;
                let (major, minor) = v.split_once('.')?;
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                if !digits(major) || !digits(minor) {
                    return None;
                }
                let version = (major.parse().ok()?, minor.parse().ok()?);
                // OLM v1 is in OpenShift from 4.18; 4.18–4.19 behave like 4.20 here.
                if version < (4, 18) {
                    return None;
                }
                openshift(version)
            }
        };
        Some(Profile {
            name: name.to_string(),
            gates,
        })
    }

    /// Whether a cluster of this profile runs on OpenShift.
    pub fn is_openshift(&self) -> bool {
        self.name.starts_with("ocp-")
    }
}

/// The OLM generations a catalog must work with (`--target`, `targets:`): OLM v0 alone by
/// default; `olmv1[=PROFILE]` adds OLM v1 and, unless `v0` is also named, leaves out the
/// rules about OLM v0's own resolver and upgrade graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets {
    pub v0: bool,
    pub olmv1: Option<Profile>,
}

impl Default for Targets {
    fn default() -> Self {
        Targets {
            v0: true,
            olmv1: None,
        }
    }
}

impl Targets {
    /// Read `v0`, `olmv1` and `olmv1=PROFILE` items (each may be a comma-separated list).
    pub fn parse<'s>(items: impl IntoIterator<Item = &'s str>) -> Result<Targets, String> {
        let mut targets = Targets {
            v0: false,
            olmv1: None,
        };
        let mut any = false;
        for item in items.into_iter().flat_map(|s| s.split(',')).map(str::trim) {
            any = true;
            match item.split_once('=') {
                None if item == "v0" || item == "olmv0" => targets.v0 = true,
                None if item == "olmv1" || item == "v1" => {
                    targets.olmv1.get_or_insert_with(Profile::default);
                }
                Some((t, profile)) if t == "olmv1" || t == "v1" => {
                    let Some(p) = Profile::named(profile.trim()) else {
                        return Err(format!(
                            "unknown OLM v1 profile {:?}; the profiles are {PROFILES}",
                            profile.trim()
                        ));
                    };
                    targets.olmv1 = Some(p);
                }
                _ => {
                    return Err(format!(
                        "unknown target {item:?}; the targets are v0 and olmv1[=PROFILE] (profiles: {PROFILES})"
                    ))
                }
            }
        }
        if !any {
            return Ok(Targets::default());
        }
        Ok(targets)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles() {
        let p = Profile::default();
        assert_eq!(p.name, "upstream");
        assert_eq!(
            p.gates.certificate_provider(),
            Some(CertProvider::CertManager)
        );
        assert!(!p.gates.single_own_namespace_install_support);
        let e = Profile::named("upstream-experimental").unwrap();
        assert!(e.gates.single_own_namespace_install_support);
        let o20 = Profile::named("ocp-4.20").unwrap();
        assert_eq!(o20.gates.certificate_provider(), None);
        let o21 = Profile::named("ocp-4.21").unwrap();
        assert_eq!(
            o21.gates.certificate_provider(),
            Some(CertProvider::OpenshiftServiceCa)
        );
        assert_eq!(Profile::named("ocp-5.0").unwrap().gates, o21.gates);
        assert!(o21.is_openshift() && !p.is_openshift());
        for bad in [
            "ocp-4.17",
            "ocp-4",
            "ocp-4.x",
            "ocp-v4.20",
            "downstream",
            "",
        ] {
            assert!(Profile::named(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn targets() {
        assert_eq!(Targets::parse([]).unwrap(), Targets::default());
        let t = Targets::parse(["olmv1=ocp-4.21"]).unwrap();
        assert!(!t.v0);
        assert_eq!(t.olmv1.unwrap().name, "ocp-4.21");
        let t = Targets::parse(["v0,olmv1"]).unwrap();
        assert!(t.v0);
        assert_eq!(t.olmv1.unwrap().name, "upstream");
        let t = Targets::parse(["olmv0", "olmv1"]).unwrap();
        assert!(t.v0 && t.olmv1.is_some());
        assert!(Targets::parse(["olmv1=nope"])
            .unwrap_err()
            .contains("unknown OLM v1 profile"));
        assert!(Targets::parse(["v2"])
            .unwrap_err()
            .contains("unknown target"));
    }

    #[test]
    fn overrides() {
        let mut g = Profile::named("ocp-4.20").unwrap().gates;
        g.apply("SingleOwnNamespaceInstallSupport=true, WebhookProviderOpenshiftServiceCA=TRUE")
            .unwrap();
        assert!(g.single_own_namespace_install_support);
        assert_eq!(
            g.certificate_provider(),
            Some(CertProvider::OpenshiftServiceCa)
        );
        assert_eq!(
            g.enabled(),
            [
                "WebhookProviderOpenshiftServiceCA",
                "SingleOwnNamespaceInstallSupport"
            ]
        );
        assert!(g
            .apply("Nope=true")
            .unwrap_err()
            .contains("unrecognized feature gate: Nope"));
        assert!(g
            .apply("BoxcutterRuntime")
            .unwrap_err()
            .contains("missing bool value"));
        assert!(g
            .apply("BoxcutterRuntime=yes")
            .unwrap_err()
            .contains("invalid value"));
    }
}
