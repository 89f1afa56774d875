//! The base of olmlint, under every other layer: the spanned syntax tree ([`tree`]) and the
//! source text it points into ([`text`], [`source`]), diagnostics with their positions and
//! JSON pointers ([`diag`]), the rule registry parsed from `rules/*.md` ([`rules`]), escaping
//! for terminals and the formats findings land in ([`escape`]), "did you mean" suggestions
//! ([`suggest`]) and the work counters behind `OLMLINT_TIMINGS` ([`timings`]).
// Long functions are split into named stages; clippy.toml sets the threshold (unit tests exempt).
#![cfg_attr(not(test), warn(clippy::too_many_lines))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod diag;
pub mod escape;
pub mod rules;
pub mod source;
pub mod suggest;
pub mod text;
pub mod timings;
pub mod tree;
