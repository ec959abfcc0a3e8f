//! The integration tests of this crate, compiled as one test binary (one link instead of one
//! per file); each file below is a module. `cargo test -p <crate> --test integration <module>::`
//! runs one file's tests.
// Tests and their fixtures make files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

#[path = "support/calls.rs"]
mod calls;
#[path = "support/directives.rs"]
mod directives;
mod support;

mod auth;
mod cache;
mod call;
mod descriptors;
mod fixtures;
mod requests;
mod security;
mod transport;
mod upstream;
