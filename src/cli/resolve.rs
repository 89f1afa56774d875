//! `olmlint resolve`: its arguments and the command (the resolution is [`crate::resolve`]).

use clap::ValueEnum;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ResolveArgs {
    /// PACKAGE or PACKAGE@BUNDLE (a startingCSV).
    pub target: String,
    /// Subscription channel (default: every channel, the default one first).
    #[arg(long)]
    pub channel: Option<String>,
    /// A catalog (repeatable; default `.`). The first holding PACKAGE is the subscription's.
    #[arg(long, value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
    /// Priority of the --catalog at the same position (default 0; higher is preferred).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub priority: Vec<i64>,
    /// A bundle already installed on the cluster (repeatable). One of PACKAGE is the
    /// subscription's installed CSV: OLM then offers only its upgrades (and with
    /// PACKAGE@BUNDLE, olmlint checks that exact upgrade); others must stay installed.
    #[arg(long, value_name = "BUNDLE")]
    pub installed: Vec<String>,
    /// Another subscription in the same namespace, resolved together (repeatable).
    #[arg(long, value_name = "PACKAGE")]
    pub also_subscribe: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "human")]
    pub format: ResolveFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResolveFormat {
    Human,
    Json,
}

pub(super) fn resolve(args: &ResolveArgs) -> i32 {
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
        channel: args.channel.clone(),
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
            match args.format {
                ResolveFormat::Json => println!(
                    "{}",
                    olmlint_base::escape::json_text(
                        serde_json::to_string_pretty(&answer).unwrap_or_default()
                    )
                ),
                ResolveFormat::Human => print!(
                    "{}",
                    olmlint_report::terminal_safe(&crate::resolve::render(&answer), false)
                ),
            }
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
