//! OLM001 (syntax and input limits): problems found while reading and parsing files.
//! OLM002–OLM005 are reported by the model stage, which sees the documents' structure.

use super::Ctx;
use olmlint_base::diag::Diagnostic;
use olmlint_load::Role;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    // What a file that does not parse holds back (see `Incomplete`), said once per file.
    let skipped = || {
        if ctx.complete() {
            return String::new();
        }
        let inc = ctx.complete.get_or_init(|| super::Incomplete::of(ctx));
        let which = if inc.all {
            "in the whole catalog".to_string()
        } else {
            let names: Vec<&str> = inc.packages.iter().map(String::as_str).collect();
            format!("for package(s) {}", names.join(", "))
        };
        format!(" Until this file parses, olmlint skips the checks that report missing objects (unknown package, bundle in no channel, channel entry without a bundle, missing replaces target, default channel not found) {which}, since the objects may be in the part it could not read; every other check still runs.")
    };
    for (fi, f) in ctx
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.scope == ctx.scope)
    {
        let note = match f.role {
            Role::Bundle(_) if !f.problems.is_empty() => {
                " This bundle directory is left out of the other checks until the file parses."
                    .to_string()
            }
            Role::Fbc if !f.problems.is_empty() => skipped(),
            _ => String::new(),
        };
        // A metadata file's first problem is reported as OLM604, which says what opm does
        // with the file (see `check::fold_symptoms`).
        let metadata = super::bundle_dir::in_metadata(f);
        for (i, p) in f.problems.iter().enumerate() {
            let mut d = Diagnostic::new(p.rule, p.message.clone())
                .at(fi, p.span)
                .help(format!("{}{note}", p.help));
            if metadata && i == 0 {
                d = d.explained_by(olmlint_base::diag::Location {
                    file: fi,
                    span: p.span,
                });
            }
            out.push(d);
        }
    }
}
