//! Evaluating a module and extracting its exports as JSON: the entry points and what they return.
//!
//! With the `quickjs` feature (the default) a module runs in a sandboxed QuickJS runtime. Architecture
//! invariants:
//! - Every evaluation that runs gets a fresh `Runtime` (about 70 µs) that is dropped afterwards, so a
//!   runtime that hit a limit is never reused, and nothing leaks from one file to the next. A module
//!   evaluated again on the same thread with exactly the inputs of one of the last two evaluations
//!   there (name, the text the engine reads, a `main` it can reach, shared lists, limits, timers) is
//!   given that outcome instead of running again, unless a limit stopped it (D157): checking a fix
//!   validates the fixed text, and most fixes change only a `main` literal the engine never reads.
//! - The runtime has no module loader that can find anything (every `import` fails), and QuickJS-NG as
//!   compiled by rquickjs has no `std`/`os` modules, no `fetch`, `process`, `require` or timers.
//!   Under profile `compat` ([`evaluate_in`] with `timers`) the module gets the handler host's timer
//!   globals, run without real waiting inside the same time limit (`js/load_timers.js`, evaluated
//!   only when the module first reads one of them).
//! - Memory, stack and time are capped. The time limit is an interrupt deadline that covers module
//!   evaluation, the job queue (top-level await), export extraction and the `handlers` factory call.
//! - Any panic inside the engine bindings is caught and reported as a coded diagnostic.
//!
//! Without the feature nothing runs: a module that is nothing but `export const NAME = <literal>`
//! data declarations is read natively ([`crate::literal::read_data_module`]), with the same result
//! the engine would give; any other module is [`EvalFailure::NoEngine`] (LDR009).

use serde_json::Value as Json;

pub(crate) use crate::evaluated::DATA_EXPORTS;
pub use crate::evaluated::{EvalFailure, Exports, HandlersExport, Limits, Position};

/// Evaluates `source` as an ES module named `name` and extracts its exports.
pub fn evaluate(name: &str, source: &str, limits: &Limits) -> Result<Exports, EvalFailure> {
    evaluate_with_blanked(name, source, None, limits)
}

/// As [`evaluate`], given the source already blanked by [`crate::scan::blank_aligned`] (or
/// [`crate::scan::blank`]; offsets are mapped then). With it, a `main`
/// export that is a pure-data literal is read in Rust ([`crate::literal`]) and handed to QuickJS as
/// a value instead of as source text: QuickJS parses nested literals in O(size × depth), which made
/// it the largest cost of validating real catalogs. The module still runs in full.
pub fn evaluate_with_blanked(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    limits: &Limits,
) -> Result<Exports, EvalFailure> {
    evaluate_with(name, source, blanked, limits, None)
}

/// As [`evaluate_with_blanked`]; `shared_lists` (a JSON object of resolved lists) is deep-frozen and
/// given to the `handlers` factory as `sharedLists`, as the runtime will (a mutation attempt throws a
/// `TypeError` in the module's strict code).
pub fn evaluate_with(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    limits: &Limits,
    shared_lists: Option<&Json>,
) -> Result<Exports, EvalFailure> {
    evaluate_in(name, source, blanked, limits, shared_lists, false)
}

/// As [`evaluate_with`]; with `timers` (profile `compat`, as the handler host's `timers` setting)
/// the module has the handler host's timer globals, without real waiting (`js/load_timers.js`):
/// while its own promise (top-level await) is pending, due timers run in order of their due time;
/// those still pending when it settles are discarded. Everything stays within the evaluation's
/// time limit.
pub fn evaluate_in(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    limits: &Limits,
    shared_lists: Option<&Json>,
    timers: bool,
) -> Result<Exports, EvalFailure> {
    let lists_json = shared_lists.and_then(|v| serde_json::to_string(v).ok());
    evaluate_lists(
        name,
        source,
        blanked,
        None,
        limits,
        lists_json.as_deref(),
        timers,
    )
    .map(|(exports, _)| exports)
}

/// [`evaluate_in`] of a file just scanned, without shared lists: `pre_read` is the `main`
/// literal the scan's blanker read ([`crate::scan::scan_file_read`]). With the exports, the byte
/// range of that literal when the `main` export is exactly its value (read without the engine,
/// and out of the module's reach).
pub(crate) fn evaluate_read(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    pre_read: Option<crate::literal::PreRead>,
    limits: &Limits,
    timers: bool,
) -> Result<(Exports, Option<crate::literal::MainLiteral>), EvalFailure> {
    evaluate_lists(name, source, blanked, pre_read, limits, None, timers)
}

/// [`evaluate_in`] with the shared lists as JSON text.
fn evaluate_lists(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    pre_read: Option<crate::literal::PreRead>,
    limits: &Limits,
    lists: Option<&str>,
    timers: bool,
) -> Result<(Exports, Option<crate::literal::MainLiteral>), EvalFailure> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        #[cfg(feature = "quickjs")]
        {
            crate::engine::evaluate(name, source, blanked, pre_read, lists, limits, timers)
        }
        #[cfg(not(feature = "quickjs"))]
        {
            let _ = (name, lists, limits, timers, pre_read);
            without_engine(source, blanked).map(|exports| (exports, None))
        }
    }));
    match outcome {
        Ok(r) => r,
        Err(_) => Err(EvalFailure::Threw {
            message: "the JavaScript engine failed internally".into(),
            at: None,
        }),
    }
}

/// A build without the engine: a module that is nothing but data declarations
/// ([`crate::literal::read_data_module`]) is read as it would have been evaluated; anything else
/// is [`EvalFailure::NoEngine`].
#[cfg(not(feature = "quickjs"))]
fn without_engine(source: &str, blanked: Option<&str>) -> Result<Exports, EvalFailure> {
    let aligned;
    let blanked = match blanked {
        Some(b) if b.len() == source.len() => b,
        _ => {
            aligned = crate::scan::blank_aligned(source);
            &aligned
        }
    };
    let values = crate::literal::read_data_module(source, blanked, DATA_EXPORTS)
        .ok_or(EvalFailure::NoEngine)?;
    // As the engine lists a module's exports: sorted by name.
    let mut names: Vec<String> = values.iter().map(|(n, _)| n.clone()).collect();
    names.sort();
    Ok(Exports {
        names,
        data: values.into_iter().collect(),
        handlers: HandlersExport::Absent,
        unserializable: Vec::new(),
    })
}
