//! `olmlint graph`: its arguments and the command (the drawing is [`crate::graph_command`]).

use std::io::Write;
use std::path::PathBuf;

use super::exiting;

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// Catalogs (default: the current directory), as for `lint`.
    pub paths: Vec<PathBuf>,
    /// Only this package.
    #[arg(long)]
    pub package: Option<String>,
    /// Only this channel.
    #[arg(long)]
    pub channel: Option<String>,
    /// Output format: Mermaid (GitHub renders it), Graphviz DOT, SVG (drawn by olmlint), the
    /// graph as JSON, or Markdown for a pull request's job summary.
    #[arg(long, short = 'f', value_enum, default_value = "mermaid")]
    pub format: GraphFormat,
    /// Draw what changed since this previous version of the catalog: added, removed and
    /// re-pointed bundles and edges, and bundles left without an upgrade (OLM704).
    #[arg(long, value_name = "OLD", conflicts_with = "changed_since")]
    pub baseline: Option<PathBuf>,
    /// Draw what changed since a git ref, for each catalog holding a changed file.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// Fold runs of at least N consecutive plain bundles of a replaces chain into one node
    /// (0: never; default 4, and 0 for JSON).
    #[arg(long, value_name = "N")]
    pub collapse: Option<usize>,
    /// Write the graph to this file instead of standard output.
    #[arg(long = "output-file", short = 'o', value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Configuration file (default: .olmlint.yaml found upward from the first path).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore any configuration file.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
    /// The OLM generations (as `olmlint lint --target`): with `olmv1`, each package also gets
    /// the graph `OLM v1 (no channel)`, where OLM v1 moves each bundle's installs.
    #[arg(long, value_name = "TARGET")]
    pub target: Vec<String>,
}

pub use crate::graph_command::GraphFormat;

pub(super) fn graph(args: &GraphArgs) -> i32 {
    let targets = match super::targets(&args.target) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let req = crate::graph_command::Request {
        targets,
        paths: args.paths.clone(),
        filter: olmlint_report::graph::Filter {
            package: args.package.clone(),
            channel: args.channel.clone(),
        },
        baseline: args.baseline.clone(),
        changed_since: args.changed_since.clone(),
        collapse: args.collapse.unwrap_or(match args.format {
            GraphFormat::Json => 0,
            _ => crate::graph_command::COLLAPSE,
        }),
        config: args.config.clone(),
        no_config: args.no_config,
        exiting: exiting(),
    };
    let drawn = match crate::graph_command::draw(&req) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("olmlint: {}", olmlint_report::terminal_safe(&e, false));
            return 2;
        }
    };
    if drawn.graphs.is_empty() && drawn.compared_with.is_none() {
        eprintln!("olmlint: no channel matches (check the paths, --package and --channel)");
        return 1;
    }
    if drawn.graphs.is_empty() {
        if let Some(what) = &drawn.compared_with {
            eprintln!("olmlint: no channel's upgrade graph {what}");
        }
    }
    let text = crate::graph_command::render(&drawn, args.format);
    if args.format == GraphFormat::Mermaid {
        if let Some(why) = olmlint_report::graph::mermaid_too_large(&text, &drawn.graphs) {
            eprintln!("olmlint: warning: {why}");
        }
    }
    match &args.output_file {
        Some(path) => {
            if let Err(e) = olmlint_load::io::write_atomic(path, text.as_bytes()) {
                eprintln!("olmlint: cannot write {}: {e}", path.display());
                return 2;
            }
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    0
}
