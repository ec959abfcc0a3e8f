//! Calling a catalog's tools: [`Caller`] and what it calls ([`Tools`]: the toolset, the tools of
//! invalid files as [`Rejected`], the transport). Below the catalog (`open.rs`) and the primitives
//! that call through a caller, which use it and which it does not use.

use std::collections::HashMap;

use flowmcp_runtime::transport::{TransportConfig, UreqTransport};
use flowmcp_runtime::{Envelope, LogSink, Runner, RunnerOptions, ToolEntry, Toolset};
use flowmcp_spec::Code;
use serde_json::{Map, Value};

/// A tool of a file that failed validation: known by name, never callable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The tool's name in `main.tools`.
    pub tool: String,
    /// The file, as reports name it.
    pub file: String,
    /// The codes of the file's errors, in order, without duplicates.
    pub codes: Vec<Code>,
    /// For a file that cannot be loaded at all (so its tools are known only by the namespace its
    /// text shows): why, as the catalog's load problems say it, e.g. `cannot be loaded: LDR003 at
    /// line 5, column 5: Syntax error: …` (redacted as they are).
    pub cause: Option<String>,
}

impl Rejected {
    /// Why the tool cannot be called: the file and its error codes (or, when it cannot be
    /// loaded, why), e.g. `providers/x.mjs has errors (VAL014, VAL033)`. Facts only: how to see
    /// the findings is the program's to say (the CLI adds ``see `flowmcp validate <file>` ``, D74).
    pub fn reason(&self) -> String {
        match &self.cause {
            Some(cause) => format!("{} {cause}", self.file),
            None => format!("{} has errors ({})", self.file, code_list(&self.codes)),
        }
    }
}

/// The tool `name` would name in `namespace`: `namespace/tool/<tool>` (or `/resource/`), or a wire
/// name `<tool>_<namespace>` (the reference's names too, `-` written `_`).
fn tool_in_namespace(name: &str, namespace: &str) -> Option<String> {
    if let Some(rest) = name
        .strip_prefix(namespace)
        .and_then(|r| r.strip_prefix('/'))
    {
        return ["tool/", "resource/"]
            .iter()
            .find_map(|t| rest.strip_prefix(t))
            .filter(|t| !t.is_empty())
            .map(str::to_string);
    }
    let snake = namespace.replace('-', "_");
    [namespace, snake.as_str()].iter().find_map(|ns| {
        name.strip_suffix(ns)
            .and_then(|t| t.strip_suffix('_'))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    })
}

/// A catalog's tools as its callers see them: the toolset of its valid files, the tools of its
/// invalid files (refused, with why) and how calls go out (transport, runner options).
///
/// [`Catalog`](crate::Catalog) keeps one and answers its tool questions from it; a [`Caller`]
/// holds it (not the catalog), so the primitives that render and read through a caller need
/// nothing of the catalog above them.
#[derive(Debug)]
pub(crate) struct Tools {
    toolset: Toolset,
    /// Tools of invalid files, by Primitive-ID and wire name.
    rejected: HashMap<String, Rejected>,
    /// Files that cannot be loaded, by the namespace their text shows: any tool of it is refused
    /// with why (issue #28 item 7a).
    unloaded: Vec<(String, Rejected)>,
    transport: UreqTransport,
    runner: RunnerOptions,
}

impl Tools {
    /// The tools of `toolset`, with the refused ones, calling through a transport made from
    /// `transport` with the runner options `runner`.
    pub(crate) fn new(
        toolset: Toolset,
        rejected: HashMap<String, Rejected>,
        unloaded: Vec<(String, Rejected)>,
        transport: &TransportConfig,
        runner: RunnerOptions,
    ) -> Tools {
        Tools {
            toolset,
            rejected,
            unloaded,
            transport: UreqTransport::new(transport.clone()),
            runner,
        }
    }

    /// The callable tools and everything known about them.
    pub(crate) fn toolset(&self) -> &Toolset {
        &self.toolset
    }

    /// The callable tools alone.
    pub(crate) fn into_toolset(self) -> Toolset {
        self.toolset
    }

    /// The options every caller's runner starts from.
    pub(crate) fn runner(&self) -> &RunnerOptions {
        &self.runner
    }

    /// The callable tool with this Primitive-ID or wire name.
    pub(crate) fn find(&self, name: &str) -> Option<&ToolEntry> {
        self.toolset.find(name)
    }

    /// The tool of an invalid file with this Primitive-ID or wire name, if any (see
    /// [`Catalog::rejected`](crate::Catalog::rejected)).
    pub(crate) fn rejected(&self, name: &str) -> Option<Rejected> {
        if let Some(r) = self.rejected.get(name) {
            return Some(r.clone());
        }
        if self.find(name).is_some() {
            return None;
        }
        self.unloaded.iter().find_map(|(ns, r)| {
            tool_in_namespace(name, ns).map(|tool| Rejected { tool, ..r.clone() })
        })
    }

    /// A caller for the current thread, logging to standard error.
    pub(crate) fn caller(&self) -> Caller<'_> {
        Caller {
            tools: self,
            runner: Runner::new(&self.toolset, &self.transport, self.runner.clone()),
        }
    }

    /// A caller that neither reads nor writes the preload cache and drops handler log lines;
    /// with `resources`, resources are placed there instead.
    pub(crate) fn caller_without_cache(
        &self,
        resources: Option<flowmcp_runtime::ResourceOptions>,
    ) -> Caller<'_> {
        let mut opts = self.runner.clone();
        opts.cache_mode = flowmcp_runtime::CacheMode::Off;
        if let Some(r) = resources {
            opts.resources = r;
        }
        Caller {
            tools: self,
            runner: Runner::with_log(&self.toolset, &self.transport, opts, Box::new(|_| {})),
        }
    }

    /// A caller with its own log sink.
    pub(crate) fn caller_with_log(&self, log: LogSink) -> Caller<'_> {
        Caller {
            tools: self,
            runner: Runner::with_log(&self.toolset, &self.transport, self.runner.clone(), log),
        }
    }
}

/// Calls the tools of a [`Catalog`](crate::Catalog) from one thread (it owns JavaScript
/// sandboxes, so it is not `Send`; make one per worker thread).
pub struct Caller<'c> {
    tools: &'c Tools,
    runner: Runner<'c>,
}

impl<'c> Caller<'c> {
    /// The tools this caller calls (its catalog's).
    pub(crate) fn tools(&self) -> &'c Tools {
        self.tools
    }

    /// Calls `name` (Primitive-ID or wire name) with JSON inputs (strict types).
    pub fn call_json(&self, name: &str, args: &Map<String, Value>) -> Envelope {
        match self.refused(name) {
            Some(e) => e,
            None => self.runner.call_json(name, args),
        }
    }

    /// Calls an entry of this caller's catalog ([`Catalog::list`](crate::Catalog::list)) with
    /// JSON inputs, as [`Caller::call_json`] of its wire name would, without looking it up
    /// again.
    pub fn call_entry_json(&self, entry: &ToolEntry, args: &Map<String, Value>) -> Envelope {
        match self.refused_entry(entry) {
            Some(e) => e,
            None => self.runner.call_entry_json(entry, args),
        }
    }

    /// Runs `f` with `params` as the server parameters of the calls it makes on this caller
    /// (see [`Runner::with_server_params`](flowmcp_runtime::Runner::with_server_params)): one
    /// client's own values laid over the catalog's with
    /// [`ServerParams::overlaid`](flowmcp_runtime::secret::ServerParams::overlaid) (D142).
    pub fn with_server_params<R>(
        &self,
        params: std::sync::Arc<flowmcp_runtime::secret::ServerParams>,
        f: impl FnOnce() -> R,
    ) -> R {
        self.runner.with_server_params(params, f)
    }

    /// Calls `name` with text inputs (`key=value` from a command line), converted to each
    /// parameter's type.
    pub fn call_strings<K, V>(&self, name: &str, args: impl IntoIterator<Item = (K, V)>) -> Envelope
    where
        K: Into<String>,
        V: Into<String>,
    {
        match self.refused(name) {
            Some(e) => e,
            None => self.runner.call_strings(name, args),
        }
    }

    /// The failure for a tool of an invalid file (nothing is sent).
    fn refused(&self, name: &str) -> Option<Envelope> {
        self.tools.rejected(name).map(|r| refusal(&r))
    }

    /// [`Caller::refused`] of an entry's wire name: an entry is in the catalog, so only a tool of
    /// an invalid file recorded under the same name refuses it.
    fn refused_entry(&self, entry: &ToolEntry) -> Option<Envelope> {
        self.tools
            .rejected
            .get(&entry.descriptor.wire_name)
            .map(refusal)
    }
}

/// "not callable" (E007) for a tool of an invalid file.
fn refusal(r: &Rejected) -> Envelope {
    Envelope::error(
        Code::E007,
        &r.tool,
        &format!("not callable: {}", r.reason()),
    )
}

/// Codes as a message lists them: `VAL014, VAL033`.
pub(crate) fn code_list(codes: &[Code]) -> String {
    codes
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
