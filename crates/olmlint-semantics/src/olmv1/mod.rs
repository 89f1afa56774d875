//! OLM v1 (operator-controller) semantics: the OLM generations a catalog targets and OLM v1's
//! deployment profiles with their feature gates ([`profile`]).

pub mod profile;

pub use profile::{CertProvider, Gates, Profile, Targets, PROFILES};
