//! OLM v1 (operator-controller) over the catalog model, I/O-free: a package as the resolver
//! sees it ([`view`]), its upgrade edges ([`successors`]) and the resolution of a
//! ClusterExtension ([`resolve`]). From operator-controller v1.11
//! (`internal/operator-controller/{resolve,catalogmetadata}`); the spec is
//! `docs/olmv1.md` §2–§4 of the shared notes, and where they differ the source is followed.
//!
//! For catalog-wide checks: build one [`PackageView`] per package ([`PackageView::all`]),
//! then [`PackageView::default_pick`], [`PackageView::channel_picks`] and, from a
//! [`SuccessorIndex`], [`SuccessorIndex::upgrade_targets`] (every bundle's upgrade with
//! channels unset: where it moves, through which edge, and how many edges leave it).

pub mod resolve;
pub mod successors;
pub mod view;

pub use resolve::{
    resolve, Candidate, Chosen, Installed, Outcome, Policy, Request, Resolution, Source,
    SuccessorEdge,
};
pub use successors::{Edge, EdgeKind, SuccessorIndex, UpgradeTarget, UpgradeTargets};
pub use view::{Overwritten, PackageView, Ranked, ViewBundle, ViewChannel};

#[cfg(test)]
mod tests;

/// Property types `NoDependencyValidation` (`resolve/validation.go`) refuses.
pub const REFUSED_DEPENDENCIES: [&str; 3] =
    ["olm.package.required", "olm.gvk.required", "olm.constraint"];

/// The dependency property OLM v1 names when it refuses `bundle`: the first of the catalog's
/// bundle. A bundle directory's properties reach the catalog through `opm render`, which
/// sorts them by type (`ObjectsAndPropertiesFromBundle`): there the alphabetically first type.
pub fn refused_dependency<'b, 'a>(
    bundle: &'b crate::Bundle<'a>,
) -> Option<&'b crate::Property<'a>> {
    let mut refused = bundle
        .properties
        .iter()
        .filter(|p| REFUSED_DEPENDENCIES.contains(&p.ty()));
    if bundle.from_directory {
        refused.min_by_key(|p| p.ty())
    } else {
        refused.next()
    }
}
