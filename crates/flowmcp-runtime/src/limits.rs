//! Per-namespace limits on a tool's own upstream requests (issue #44, D137): a rate (`10/s`,
//! `600/min`, `5000/h`) and a cap on requests in flight at once. Both are waited for before each
//! request (each attempt of a retried one too) and never past the call's deadline.
//!
//! The concurrency cap counts this process's requests. The rate counts requests that *start* in
//! each window of the rate's length aligned to the Unix epoch (a fixed window: at most `n` start in
//! any one window); with the preload cache in Redis the count is kept there
//! (`flowmcp:rate:v1:<namespace>:<window ms>:<window number>`, `INCR`, expiring after two windows),
//! so every replica sharing the Redis shares the rate, otherwise in this process. While Redis
//! fails, the count is this process's again.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::num::NonZeroU32;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The limits of each namespace's upstream requests, and their shared state: clones (the options
/// of every runner of a server) count together. The default limits nothing.
#[derive(Clone, Default)]
pub struct UpstreamLimits {
    by_namespace: BTreeMap<String, Limit>,
    state: Arc<State>,
}

/// One namespace's limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Limit {
    /// At most `.0` requests start in each window of `.1`.
    rate: Option<(u32, Duration)>,
    concurrency: Option<u32>,
}

/// A rate that is not `<count>/s`, `<count>/min` or `<count>/h` with a count of at least 1 (the
/// text as given).
#[derive(Debug, thiserror::Error)]
#[error("rate {0:?}: expected <count>/s, <count>/min or <count>/h with a count of at least 1")]
pub struct RateError(String);

impl fmt::Debug for UpstreamLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(&self.by_namespace).finish()
    }
}

/// The counters every clone shares.
#[derive(Default)]
struct State {
    by_namespace: Mutex<HashMap<String, Counters>>,
    /// Told when a request in flight ends.
    freed: Condvar,
}

#[derive(Default)]
struct Counters {
    in_flight: u32,
    /// The current window of the in-process rate count, and how many requests started in it.
    window: u64,
    started: u32,
}

impl UpstreamLimits {
    /// At most `rate` requests of `namespace` start per second, minute or hour: `10/s`,
    /// `600/min`, `5000/h`.
    pub fn set_rate(&mut self, namespace: &str, rate: &str) -> Result<(), RateError> {
        let parsed = parse_rate(rate).ok_or_else(|| RateError(rate.to_string()))?;
        self.by_namespace
            .entry(namespace.to_string())
            .or_default()
            .rate = Some(parsed);
        Ok(())
    }

    /// At most `cap` requests of `namespace` are in flight at once in this process.
    pub fn set_concurrency(&mut self, namespace: &str, cap: NonZeroU32) {
        self.by_namespace
            .entry(namespace.to_string())
            .or_default()
            .concurrency = Some(cap.get());
    }

    /// Waits for a request of `namespace` to be allowed: a place under the concurrency cap, then
    /// a start within the rate (`count` counts one start in a window's shared counter, `None`
    /// when it cannot: the count is then this process's). Gives up when the wait would reach
    /// `deadline`, or the thread's cancel scope is cancelled.
    pub(crate) fn acquire(
        &self,
        namespace: &str,
        deadline: Instant,
        count: &mut dyn FnMut(&str, Duration) -> Option<i64>,
    ) -> Result<Slot, Refused> {
        let Some(limit) = self.by_namespace.get(namespace) else {
            return Ok(Slot(None));
        };
        let slot = match limit.concurrency {
            Some(cap) => self.enter(namespace, cap, deadline)?,
            None => Slot(None),
        };
        if let Some((max, per)) = limit.rate {
            loop {
                let since_epoch = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                let per_ms = u64::try_from(per.as_millis()).unwrap_or(u64::MAX).max(1);
                let now_ms = u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX);
                let window = now_ms / per_ms;
                let key = format!("flowmcp:rate:v1:{namespace}:{per_ms}:{window}");
                let started = match count(&key, per * 2) {
                    Some(n) => n,
                    None => i64::from(self.count_here(namespace, window)),
                };
                if started <= i64::from(max) {
                    break;
                }
                let wait = Duration::from_millis((window + 1) * per_ms - now_ms);
                if wait >= deadline.saturating_duration_since(Instant::now()) {
                    return Err(Refused::Rate(rate_text(max, per)));
                }
                if !crate::transport::pause_unless_cancelled(wait) {
                    return Err(Refused::Cancelled);
                }
            }
        }
        Ok(slot)
    }

    /// Takes a place under `namespace`'s concurrency cap, waiting for one until `deadline`.
    fn enter(&self, namespace: &str, cap: u32, deadline: Instant) -> Result<Slot, Refused> {
        let mut all = self.counters();
        loop {
            let c = all.entry(namespace.to_string()).or_default();
            if c.in_flight < cap {
                c.in_flight += 1;
                return Ok(Slot(Some((self.state.clone(), namespace.to_string()))));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Refused::Concurrency(cap));
            }
            if crate::transport::scope_cancelled() {
                return Err(Refused::Cancelled);
            }
            // Woken when a request ends; a cancel is seen within 20 ms.
            all = self
                .state
                .freed
                .wait_timeout(all, left.min(Duration::from_millis(20)))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Counts one start in `window` in this process; the number started in it.
    fn count_here(&self, namespace: &str, window: u64) -> u32 {
        let mut all = self.counters();
        let c = all.entry(namespace.to_string()).or_default();
        if c.window != window {
            c.window = window;
            c.started = 0;
        }
        c.started = c.started.saturating_add(1);
        c.started
    }

    fn counters(&self) -> MutexGuard<'_, HashMap<String, Counters>> {
        self.state
            .by_namespace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A place under a namespace's concurrency cap, given back on drop.
pub(crate) struct Slot(Option<(Arc<State>, String)>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((state, namespace)) = self.0.take() {
            let mut all = state
                .by_namespace
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(c) = all.get_mut(&namespace) {
                c.in_flight = c.in_flight.saturating_sub(1);
            }
            drop(all);
            state.freed.notify_all();
        }
    }
}

/// Why a request was not allowed before its deadline.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every place under the cap stayed taken.
    Concurrency(u32),
    /// The rate (as written, `10/s`) left no start.
    Rate(String),
    /// The call was cancelled while it waited.
    Cancelled,
}

impl Refused {
    /// The E003 text for `namespace`'s request of a call limited to `timeout`.
    pub(crate) fn message(&self, namespace: &str, timeout: Duration) -> String {
        let why = match self {
            Refused::Concurrency(cap) => {
                format!("all {cap} requests of namespace {namespace} allowed at once stayed busy")
            }
            Refused::Rate(rate) => {
                format!("the rate limit of namespace {namespace} ({rate}) allowed no request")
            }
            Refused::Cancelled => {
                return format!(
                    "the call was cancelled while it waited for a request of namespace {namespace}"
                );
            }
        };
        format!(
            "the call did not finish within {} ms: {why} in time",
            timeout.as_millis()
        )
    }
}

/// `10/s`, `600/min`, `5000/h` (white space around the parts allowed).
fn parse_rate(text: &str) -> Option<(u32, Duration)> {
    let (count, unit) = text.split_once('/')?;
    let count: u32 = count.trim().parse().ok().filter(|n| *n > 0)?;
    let per = match unit.trim() {
        "s" => Duration::from_secs(1),
        "min" => Duration::from_secs(60),
        "h" => Duration::from_secs(3600),
        _ => return None,
    };
    Some((count, per))
}

/// A rate as [`parse_rate`] reads it.
fn rate_text(count: u32, per: Duration) -> String {
    let unit = match per.as_secs() {
        1 => "s",
        60 => "min",
        _ => "h",
    };
    format!("{count}/{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i44_rates_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_rate("10/s"), Some((10, Duration::from_secs(1))));
        assert_eq!(
            parse_rate(" 600 / min "),
            Some((600, Duration::from_secs(60)))
        );
        assert_eq!(
            parse_rate("5000/h"),
            Some((5000, Duration::from_secs(3600)))
        );
        for bad in ["0/s", "10", "10/d", "-1/s", "x/s", ""] {
            assert_eq!(parse_rate(bad), None, "{bad}");
        }
        let mut l = UpstreamLimits::default();
        let refused = l.set_rate("ns", "ten/s").err().map(|e| e.to_string());
        assert_eq!(
            refused.as_deref(),
            Some(
                "rate \"ten/s\": expected <count>/s, <count>/min or <count>/h with a count of at \
                 least 1"
            )
        );
        assert!(l.by_namespace.is_empty());
        assert_eq!(rate_text(600, Duration::from_secs(60)), "600/min");
    }

    #[test]
    fn i44_rate_in_process_waits_for_the_next_window_or_gives_up() {
        let mut l = UpstreamLimits::default();
        l.set_rate("ns", "2/s").expect("a valid rate");
        let mut local = |_: &str, _: Duration| None;
        let far = Instant::now() + Duration::from_secs(5);
        let start = Instant::now();
        for _ in 0..3 {
            drop(
                l.acquire("ns", far, &mut local)
                    .expect("allowed within 5 s"),
            );
        }
        // Two per window: the third waited for the next one, and is no more than a second late.
        let took = start.elapsed();
        assert!(took <= Duration::from_millis(1500), "{took:?}");
        // A start when the window cannot end before the deadline fails at once.
        let mut hourly = UpstreamLimits::default();
        hourly.set_rate("ns", "1/h").expect("a valid rate");
        let near = Instant::now() + Duration::from_millis(1);
        assert!(hourly.acquire("ns", far, &mut local).is_ok());
        let refused = hourly.acquire("ns", near, &mut local).err();
        assert_eq!(refused, Some(Refused::Rate("1/h".to_string())));
        // Another namespace is not limited.
        assert!(l.acquire("other", near, &mut local).is_ok());
    }

    #[test]
    fn i44_concurrency_cap_waits_for_a_place_until_the_deadline() {
        let mut l = UpstreamLimits::default();
        l.set_concurrency("ns", NonZeroU32::MIN);
        let mut local = |_: &str, _: Duration| None;
        let far = Instant::now() + Duration::from_secs(5);
        let held = l.acquire("ns", far, &mut local).expect("the first place");
        let near = Instant::now() + Duration::from_millis(50);
        assert_eq!(
            l.acquire("ns", near, &mut local).err(),
            Some(Refused::Concurrency(1))
        );
        let other = l.clone();
        let waiter = std::thread::spawn(move || {
            let mut local = |_: &str, _: Duration| None;
            other.acquire("ns", far, &mut local).is_ok()
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
        assert!(waiter.join().expect("the waiter"));
    }
}
