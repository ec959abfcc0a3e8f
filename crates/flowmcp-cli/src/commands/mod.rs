//! One file per command: its arguments, its work and its output. A command asks
//! [`crate::context`] for options and the catalog and [`crate::output`] to print; it never
//! imports another command (`cargo xtask tidy` checks it), so what two commands share lives in
//! `context` or in a shared module (`advice`, `listing`, `walk`, `output`).

pub(crate) mod agent;
pub(crate) mod cache;
pub(crate) mod call;
pub(crate) mod catalog;
pub(crate) mod grade;
pub(crate) mod hash;
pub(crate) mod ids;
pub(crate) mod import;
pub(crate) mod libs;
pub(crate) mod list;
pub(crate) mod lists;
pub(crate) mod lsp;
pub(crate) mod migrate;
pub(crate) mod prompt;
pub(crate) mod resource;
pub(crate) mod rules;
pub(crate) mod search;
pub(crate) mod serve;
pub(crate) mod test;
pub(crate) mod validate;
