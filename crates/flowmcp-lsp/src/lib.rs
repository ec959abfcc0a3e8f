//! # flowmcp-lsp
//!
//! A language server for FlowMCP files — schemas (`.mjs` with `main`), shared lists, prompts,
//! skills, selections and agents — over the Language Server Protocol, on `lsp-server` and
//! `lsp-types` (the crates rust-analyzer is built on). What it offers:
//!
//! - **diagnostics** on open, on change (debounced) and on save, from the same validator,
//!   sandbox and limits as a validation run on the command line, on the unsaved buffer, with
//!   exact ranges (UTF-16 positions), the rule code linked to its rule page and related
//!   information where a finding names another file of the catalog. A file inside a catalog is
//!   checked with its catalog; saving a file of a catalog (a shared list, say) checks the other
//!   open files of that catalog again;
//! - **hover** on rule codes (also over a finding's range), on `{{…}}` placeholders (a user
//!   parameter, a server parameter and whether it is set — never its value —, a shared list and
//!   its fields) and on tool IDs (the tool's description and parameters);
//! - **completion** of placeholder kinds, shared-list names and fields, `z` primitives and
//!   options, and tool IDs;
//! - **go to definition** from a shared-list reference to the list's file and from a tool ID
//!   to the tool in its schema;
//! - **code actions**: the fixes of the findings (safe ones preferred, unsafe ones marked),
//!   "fix all safe problems" (`source.fixAll`) and the migration of a file of an older version.
//!
//! ```no_run
//! use flowmcp_lsp::{Options, run_stdio};
//! use flowmcp_validate::Profile;
//!
//! // What an editor starts: the server on standard input and output.
//! run_stdio(Options::new(flowmcp_validate::Options::new(Profile::Spec)))?;
//! # Ok::<(), flowmcp_lsp::LspError>(())
//! ```
//!
//! Tests and embedders drive [`run`] with an in-memory connection
//! (`lsp_server::Connection::memory()`); see `examples/in_memory.rs`.

mod check;
mod convert;
mod features;
mod server;
mod state;

use std::sync::Arc;
use std::time::Duration;

pub use server::{run, run_stdio};

/// Answers whether a server parameter (by name) has a value on this machine.
pub type ServerParamSet = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// How the server validates and what it may know of the machine.
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// Validation: profile, rule overrides, sandbox limits, allowed libraries and the file checks
    /// of the machine (as a validation run on the command line gets them).
    pub validation: flowmcp_validate::Options,
    /// Whether a server parameter has a value (in the environment or a `.env` file the caller
    /// reads), for the hover of `{{SERVER_PARAM:KEY}}`. Only the answer is shown, never a value.
    /// `None`: the hover does not say.
    pub server_param_set: Option<ServerParamSet>,
    /// How long after the last change of a document it is checked again. Default 150 ms.
    pub debounce: Duration,
}

impl Options {
    /// Options that validate with `validation`, do not know server parameters and wait 150 ms
    /// after a change.
    pub fn new(validation: flowmcp_validate::Options) -> Options {
        Options {
            validation,
            server_param_set: None,
            debounce: Duration::from_millis(150),
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("validation", &self.validation)
            .field("server_param_set", &self.server_param_set.is_some())
            .field("debounce", &self.debounce)
            .finish()
    }
}

/// Why the server stopped before the client asked it to exit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LspError {
    /// The client broke the protocol (no `initialize` first, a closed connection during it).
    #[error("language server protocol: {0}")]
    Protocol(String),
    /// Reading standard input or writing standard output failed.
    #[error("language server input/output: {0}")]
    Io(#[from] std::io::Error),
}
