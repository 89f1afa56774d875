//! `olmlint resolve`: its arguments and the command (the resolution is [`crate::resolve`]).

use clap::ValueEnum;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ResolveArgs {
    /// PACKAGE or PACKAGE@BUNDLE (a startingCSV; OLM v0 only).
    pub target: String,
    /// The OLM generation: `v0` (a Subscription, the default) or `olmv1[=PROFILE]` (a
    /// ClusterExtension; the profile's BundleReleaseSupport gate decides how versions read).
    #[arg(long = "target", value_name = "TARGET")]
    pub olm: Option<String>,
    /// Subscription channel (default: every channel, the default one first). With
    /// `--target olmv1`: a channel of `spec.source.catalog.channels` (repeatable; default: no
    /// channel filter, and OLM v1 never reads defaultChannel).
    #[arg(long)]
    pub channel: Vec<String>,
    /// `--target olmv1`: `spec.source.catalog.version`, a Masterminds range (`>=1.2.0 <2`,
    /// `~1.2`, `1.x`).
    #[arg(long, value_name = "RANGE")]
    pub version: Option<String>,
    /// `--target olmv1`: `spec.source.catalog.upgradeConstraintPolicy` (with --installed).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub upgrade_constraint_policy: Option<UpgradePolicy>,
    /// A catalog (repeatable; default `.`). The first holding PACKAGE is the subscription's.
    #[arg(long, value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
    /// Priority of the --catalog at the same position (default 0; higher is preferred).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub priority: Vec<i64>,
    /// A bundle already installed on the cluster (repeatable). One of PACKAGE is the
    /// subscription's installed CSV: OLM then offers only its upgrades (and with
    /// PACKAGE@BUNDLE, olmlint checks that exact upgrade); others must stay installed.
    /// With `--target olmv1`: the ClusterExtension's installed bundle, once: a bundle name
    /// of the catalogs, NAME@VERSION, or a bare VERSION (name unknown).
    #[arg(long, value_name = "BUNDLE")]
    pub installed: Vec<String>,
    /// Another subscription in the same namespace, resolved together (repeatable).
    #[arg(long, value_name = "PACKAGE")]
    pub also_subscribe: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "human")]
    pub format: ResolveFormat,
}

/// `upgradeConstraintPolicy` as the ClusterExtension spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UpgradePolicy {
    #[value(name = "CatalogProvided")]
    CatalogProvided,
    #[value(name = "SelfCertified")]
    SelfCertified,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResolveFormat {
    Human,
    Json,
}

pub(super) fn resolve(args: &ResolveArgs) -> i32 {
    match args.olm.as_deref().map(str::trim) {
        None | Some("v0" | "olmv0") => {}
        Some(t) => return resolve_v1(args, t),
    }
    for (flag, given) in [
        ("--version", args.version.is_some()),
        (
            "--upgrade-constraint-policy",
            args.upgrade_constraint_policy.is_some(),
        ),
        ("more than one --channel", args.channel.len() > 1),
    ] {
        if given {
            eprintln!("olmlint resolve: {flag} is for --target olmv1 (a ClusterExtension); an OLM v0 Subscription names one channel and no version range");
            return 2;
        }
    }
    let (package, bundle) = match args.target.split_once('@') {
        Some((p, b)) => (p.to_string(), Some(b.to_string())),
        None => (args.target.clone(), None),
    };
    let catalogs: Vec<PathBuf> = if args.catalog.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.catalog.clone()
    };
    let req = crate::resolve::Request {
        package,
        bundle,
        channel: args.channel.first().cloned(),
        catalogs: catalogs
            .into_iter()
            .enumerate()
            .map(|(i, p)| (p, args.priority.get(i).copied().unwrap_or(0)))
            .collect(),
        installed: args.installed.clone(),
        also_subscribe: args.also_subscribe.clone(),
    };
    match crate::resolve::run(&req) {
        Ok(answer) => {
            print_answer(args.format, &answer, crate::resolve::render);
            i32::from(!answer.installable)
        }
        Err(e) => {
            eprintln!(
                "olmlint resolve: {}",
                olmlint_report::terminal_safe(&e, false)
            );
            2
        }
    }
}

/// `--target olmv1[=PROFILE]`: a ClusterExtension's resolution ([`crate::resolve_v1`]).
fn resolve_v1(args: &ResolveArgs, target: &str) -> i32 {
    let usage = |e: &str| {
        eprintln!(
            "olmlint resolve: {}",
            olmlint_report::terminal_safe(e, false)
        );
        2
    };
    let profile = match olmlint_semantics::olmv1::Targets::parse([target]) {
        Ok(t) if t.v0 => {
            return usage("--target: resolve answers for one OLM generation at a time: give --target v0 or --target olmv1")
        }
        Ok(t) => t.olmv1.unwrap_or_default(),
        Err(e) => return usage(&format!("--target: {e}")),
    };
    if let Some((_, bundle)) = args.target.split_once('@') {
        return usage(&format!("{}: PACKAGE@BUNDLE is an OLM v0 startingCSV; a ClusterExtension has none: pin the bundle's version with --version {}", args.target, bundle.rsplit_once(".v").map_or("VERSION", |(_, v)| v)));
    }
    if !args.also_subscribe.is_empty() {
        return usage("--also-subscribe is for OLM v0: OLM v1 resolves each ClusterExtension alone (it has no dependencies)");
    }
    if args.installed.len() > 1 {
        return usage(
            "--installed: a ClusterExtension has one installed bundle; give --installed once",
        );
    }
    let mut priorities = Vec::with_capacity(args.catalog.len());
    for i in 0..args.catalog.len() {
        let p = args.priority.get(i).copied().unwrap_or(0);
        match i32::try_from(p) {
            Ok(p) => priorities.push(p),
            Err(_) => return usage(&format!("--priority {p}: a ClusterCatalog's spec.priority is a 32-bit integer (-2147483648 to 2147483647)")),
        }
    }
    let catalogs: Vec<PathBuf> = if args.catalog.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.catalog.clone()
    };
    let req = crate::resolve_v1::Request {
        package: args.target.clone(),
        catalogs: catalogs
            .into_iter()
            .zip(priorities.into_iter().chain(std::iter::repeat(0)))
            .collect(),
        channels: args.channel.clone(),
        version: args.version.clone().unwrap_or_default(),
        installed: args.installed.first().cloned(),
        policy: match args.upgrade_constraint_policy {
            Some(UpgradePolicy::SelfCertified) => olmlint_model::olmv1::Policy::SelfCertified,
            _ => olmlint_model::olmv1::Policy::CatalogProvided,
        },
        bundle_release_support: profile.gates.bundle_release_support,
    };
    match crate::resolve_v1::run(&req) {
        Ok(answer) => {
            print_answer(args.format, &answer, crate::resolve_v1::render);
            crate::resolve_v1::exit_code(&answer)
        }
        Err(e) => usage(&e),
    }
}

/// An answer as JSON (escaped for a terminal-free reader) or in the human form `render` gives.
fn print_answer<T: serde::Serialize>(format: ResolveFormat, answer: &T, render: fn(&T) -> String) {
    match format {
        ResolveFormat::Json => println!(
            "{}",
            olmlint_base::escape::json_text(
                serde_json::to_string_pretty(answer).unwrap_or_default()
            )
        ),
        ResolveFormat::Human => print!("{}", olmlint_report::terminal_safe(&render(answer), false)),
    }
}
