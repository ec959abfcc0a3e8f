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
    /// Where the phases of the call running on this worker thread go, when its client listens
    /// (a progress token or a log level; docs/decisions.md, D129).
    static PHASES: RefCell<Option<Phases>> = const { RefCell::new(None) };
}

/// The receiving end of a call's phases: fixed texts, never a value of the call.
pub(crate) type Phases = tokio::sync::mpsc::UnboundedSender<&'static str>;

/// Runs `f` with `phases` receiving the phases of the call it runs on this thread; the first
/// one says that the call started on a worker.
pub(crate) fn with_phases<T>(phases: Option<Phases>, f: impl FnOnce() -> T) -> T {
    /// Clears the sink when the call ends, also when it panics: a sink left behind would keep
    /// its listener waiting for the end of a call that is over.
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            PHASES.with(|c| *c.borrow_mut() = None);
        }
    }
    if let Some(p) = &phases {
        let _ = p.send(STARTED);
    }
    PHASES.with(|c| *c.borrow_mut() = phases);
    let _clear = Clear;
    f()
}

/// The phase a call is in when a worker starts it.
pub(crate) const STARTED: &str = "running on a worker";

/// A runtime note of the call running on this thread: its phase goes to the call's listener,
/// when there is one. Only the preload cache's fixed notes name a phase; a handler's message
/// says only that the handler spoke (its text may hold argument values).
pub(crate) fn note(line: &str) {
    let Some(phase) = phase_of(line) else { return };
    PHASES.with(|c| {
        if let Some(p) = c.borrow().as_ref() {
            let _ = p.send(phase);
        }
    });
}

/// The phase a runtime note stands for.
fn phase_of(line: &str) -> Option<&'static str> {
    Some(if line.starts_with("Cached (") {
        "preload cache hit"
    } else if line == "Fetching fresh data..." {
        "preload cache miss: fetching from the upstream"
    } else if line == "Cache expired, refreshing..." {
        "preload cache expired: fetching from the upstream"
    } else if line == "Refreshing cache..." {
        "preload cache refresh: fetching from the upstream"
    } else if line.starts_with("Cached for ") {
        "stored in the preload cache"
    } else if line.starts_with('[') {
        "handler message"
    } else {
        return None;
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i43_a_call_s_phases_are_fixed_texts_and_a_handler_s_message_is_not_repeated() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        with_phases(Some(tx), || {
            note("Cached (fetched: 2026-01-01T00:00:00Z, expires: 2026-01-02T00:00:00Z)");
            note("Fetching fresh data...");
            note("Cached for 1 day");
            note("[holidaykit-net] info: the user asked about secret-value");
            note("a note the phases do not know");
        });
        let mut got = Vec::new();
        while let Ok(p) = rx.try_recv() {
            got.push(p);
        }
        assert_eq!(
            got,
            [
                STARTED,
                "preload cache hit",
                "preload cache miss: fetching from the upstream",
                "stored in the preload cache",
                "handler message"
            ]
        );
        // Outside a listened call, notes go nowhere.
        note("Fetching fresh data...");
        assert!(PHASES.with(|c| c.borrow().is_none()));
        // A call that panics leaves no sink behind.
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let panicked = std::panic::catch_unwind(|| with_phases(Some(tx), || panic!("boom")));
        assert!(panicked.is_err());
        assert!(PHASES.with(|c| c.borrow().is_none()));
    }
}
