//! The integration tests of this crate, compiled as one test binary (one link instead of one
//! per file); each file below is a module. `cargo test -p <crate> --test integration <module>::`
//! runs one file's tests.
// Tests and their fixtures make files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod common;
#[path = "runtime_support/mod.rs"] // a link to the runtime's, a copy in the package
mod support;

mod activation;
mod catalog;
mod fixes;
mod inline;
mod operations;
mod prompts;
mod resources;
mod results;
mod testing;
