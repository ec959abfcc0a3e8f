//! An empty library: the point of this crate is its test, which uses `flowmcp-validate` as an
//! outside user would, with no other dependency (see `tests/validate_str.rs`).
