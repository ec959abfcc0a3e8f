//! Shared lists: loading `_lists/`, LST rules, `dependsOn`, filters, interpolation, the reverse index.
//! (Being written for the catalog issue.)

/// The shared lists available to a schema (resolved from a catalog's `_lists/`).
#[derive(Clone, Debug, Default)]
pub struct ListRegistry {}
