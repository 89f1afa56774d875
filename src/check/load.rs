//! OLM001 (syntax and input limits): problems found while reading and parsing files.
//! OLM002–OLM005 are reported by the model stage, which sees the documents' structure.

use super::Ctx;
use crate::diag::Diagnostic;

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (fi, f) in ctx
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.scope == ctx.scope)
    {
        for p in &f.problems {
            out.push(
                Diagnostic::new(p.rule, p.message.clone())
                    .at(fi, p.span)
                    .help(p.help.clone()),
            );
        }
    }
}
