//! What every transport shares about the request a call answers: the log target of the
//! runtime's notes, and the id of the request whose call runs on a worker thread (which the
//! upstream request carries, see `flowmcp_catalog::runtime::Observer::request_id`; only HTTP
//! requests have one). It imports nothing of the crate: the metrics read the id here too.

use std::cell::RefCell;
use std::sync::Arc;

/// The log target of the runtime's notes while serving (preload cache hits and misses, Redis
/// warnings, handler messages at load): events at `info` from the worker threads that run calls.
pub const RUNTIME_NOTES: &str = "flowmcp::runtime";

thread_local! {
    /// The id of the request whose call runs on this worker thread.
    static CURRENT: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// Runs `f` with `id` as the current request's id on this thread.
pub(crate) fn with_request_id<T>(id: Option<Arc<str>>, f: impl FnOnce() -> T) -> T {
    let had = id.is_some();
    if had {
        CURRENT.with(|c| *c.borrow_mut() = id);
    }
    let out = f();
    if had {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }
    out
}

/// The id of the request whose call runs on this thread (see [`with_request_id`]); only HTTP
/// requests have one.
#[cfg(feature = "http")]
pub(crate) fn current_request_id() -> Option<String> {
    CURRENT.with(|c| c.borrow().as_deref().map(str::to_string))
}
