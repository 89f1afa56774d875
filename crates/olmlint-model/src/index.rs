//! Lookup tables over the model, built once per run so checks never scan for names.

use super::Catalog;
use foldhash::HashMap;

#[derive(Debug, Default)]
pub struct Index<'a> {
    /// Package name → index of its first `olm.package` blob.
    pub packages: HashMap<&'a str, usize>,
    /// Package name → channel indices.
    pub channels_by_package: HashMap<&'a str, Vec<usize>>,
    /// Package name → bundle indices.
    pub bundles_by_package: HashMap<&'a str, Vec<usize>>,
    /// (package, bundle name) → first bundle index.
    pub bundle: HashMap<(&'a str, &'a str), usize>,
}

impl<'a> Index<'a> {
    pub fn new(cat: &Catalog<'a>) -> Self {
        let mut ix = Index::default();
        for (i, p) in cat.packages.iter().enumerate() {
            if let Some(n) = p.name {
                ix.packages.entry(n.value).or_insert(i);
            }
        }
        for (i, c) in cat.channels.iter().enumerate() {
            let pkg = c.package.map_or("", |p| p.value);
            ix.channels_by_package.entry(pkg).or_default().push(i);
        }
        for (i, b) in cat.bundles.iter().enumerate() {
            let pkg = b.package.map_or("", |p| p.value);
            ix.bundles_by_package.entry(pkg).or_default().push(i);
            if let Some(n) = b.name {
                ix.bundle.entry((pkg, n.value)).or_insert(i);
            }
        }
        ix
    }
}
