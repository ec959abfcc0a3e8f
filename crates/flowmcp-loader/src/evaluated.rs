//! What evaluating a module gives: its exports as data, or why it failed, and the limits it ran
//! under. The types of [`crate::eval`] (re-exported there), apart from the code that evaluates,
//! so that the engine and the entry points both depend on them and not on each other; with them,
//! the facts about a literal `main` that both the engine and a reload (`file::reload_edited`) read.

use std::time::Duration;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::unserializable::Unserializable;

/// Export names the loader recognises as data.
pub(crate) const DATA_EXPORTS: &[&str] = &[
    "main",
    "list",
    "skill",
    "prompt",
    "agent",
    "selection",
    "content",
];

/// Sandbox limits.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest file read, in bytes (LDR002).
    pub max_file_bytes: u64,
    /// QuickJS heap cap, in bytes (LDR006). Kept generous: very small limits crash QuickJS itself.
    pub memory_bytes: usize,
    /// QuickJS stack cap, in bytes (LDR006). Must stay well below the thread's own stack.
    pub stack_bytes: usize,
    /// Deadline for evaluating one file, extraction and factory call included (LDR005).
    pub eval_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 4 * 1024 * 1024,
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 512 * 1024,
            eval_timeout: Duration::from_millis(1000),
        }
    }
}

/// Where in the source a failure was reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// Why evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalFailure {
    /// LDR003
    Syntax {
        message: String,
        at: Option<Position>,
    },
    /// LDR004 (an import is reported here too: nothing can be imported)
    Threw {
        message: String,
        at: Option<Position>,
    },
    /// LDR005
    Timeout,
    /// LDR006
    Memory { message: String },
    /// LDR007
    NeverSettles,
    /// LDR009: the module is more than data declarations and this build has no JavaScript engine
    /// to run it (the crate's `quickjs` feature is off). Never returned with the feature on.
    NoEngine,
}

/// What `handlers` turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlersExport {
    Absent,
    /// Exported, but not a function: `typeof` says what it is.
    NotFunction(String),
    /// A function. `shape` is the result of calling it with empty `sharedLists` and `libraries`:
    /// each returned key with the names of its function-valued members, or the error it threw.
    Function {
        shape: Result<Vec<(String, Vec<String>)>, String>,
    },
}

/// The exports of a module, as data.
#[derive(Clone, Debug, PartialEq)]
pub struct Exports {
    /// Every export name, in the module's order.
    pub names: Vec<String>,
    /// Recognised data exports as JSON. Unserialisable parts are replaced by `null`.
    pub data: IndexMap<String, Json>,
    pub handlers: HandlersExport,
    pub unserializable: Vec<Unserializable>,
}

impl Exports {
    pub fn get(&self, name: &str) -> Option<&Json> {
        self.data.get(name)
    }
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The export names for messages: `no exports` or ``exports `a`, `b` ``.
    pub fn describe_names(&self) -> String {
        if self.names.is_empty() {
            return "no exports".to_string();
        }
        let quoted: Vec<String> = self.names.iter().map(|n| format!("`{n}`")).collect();
        format!("exports {}", quoted.join(", "))
    }
}

/// The name of the global that carries a pre-read `main` into the module.
pub(crate) const MAIN_GLOBAL: &str = "__flowmcp_main__";

/// Whether `text` names the global that carries a pre-read `main` into a module: such a text
/// has its `main` read by the engine (the engine's reading of a literal `main` declines it).
pub(crate) fn names_main_global(text: &[u8]) -> bool {
    memchr::memmem::find(text, MAIN_GLOBAL.as_bytes()).is_some()
}

/// Whether the blanked module `blanked` is nothing but `export const main = ` before the byte
/// range `literal` and at most a `;` after it (whitespace and comments aside): then nothing but
/// the literal is run. Compared without whitespace, reading only as far as needed to tell.
pub(crate) fn only_declares_main(blanked: &str, literal: &std::ops::Range<usize>) -> bool {
    blanked.get(..literal.start).is_some_and(|b| {
        b.chars()
            .filter(|c| !c.is_whitespace())
            .eq("exportconstmain=".chars())
    }) && blanked.get(literal.end..).is_some_and(|a| {
        let mut after = a.chars().filter(|c| !c.is_whitespace());
        match after.next() {
            None => true,
            Some(';') => after.next().is_none(),
            Some(_) => false,
        }
    })
}
