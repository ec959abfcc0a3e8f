//! The integration tests of this crate, compiled as one test binary (one link instead of one
//! per file); each file below is a module. `cargo test -p <crate> --test integration <module>::`
//! runs one file's tests.
// Tests and their fixtures make files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod common;

mod agent;
mod catalog;
mod cli;
mod docs;
mod fix;
mod grade;
mod ids;
mod import;
mod libs;
mod lsp;
mod lsp_clients;
mod prism;
mod prompt;
mod resource;
mod run;
mod scale_out;
mod serve;
mod site;
mod site_browser;
mod test_cmd;
