//! Resource bounds on hostile inputs, run against the olmlint binary (`adversarial.rs`): a
//! test binary of its own because it measures the peak memory of the processes it starts
//! (`wait4`'s `ru_maxrss`), which Linux reports including what the test process held when
//! it started them, so this process must stay small: the corpora-loading tests live in
//! `tests/it`, and `tests/hostile.rs`, which measures too, is a binary of its own as well.
//!
//! Run its tests with `cargo test --profile test-opt --test limits`.

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
