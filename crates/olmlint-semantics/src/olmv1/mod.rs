//! OLM v1 (operator-controller) semantics: the OLM generations a catalog targets and OLM v1's
//! deployment profiles with their feature gates ([`profile`]), and bundle versions and
//! releases as OLM v1 reads and ranks them ([`version`]).

pub mod profile;
pub mod version;

pub use profile::{CertProvider, Gates, Profile, Targets, PROFILES};
pub use version::{by_version_and_release, from_bundle, Release, VersionRelease};
