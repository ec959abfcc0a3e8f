//! Running the calls: worker threads under a watchdog.
//!
//! A [`Runner`] owns JavaScript hosts and is not `Send`, so each worker thread builds its own over
//! the shared [`Toolset`] (which is `Sync`), and a new one whenever it moves to another schema
//! (the previous schema's hosts are freed). Each worker is given one schema's calls at a time, so
//! the hosts are built once per schema.
//!
//! Every call runs under `catch_unwind` (a panic is reported with the tool's ID and the runner is
//! rebuilt) and under a hard deadline kept by the coordinating thread: a call that has not
//! returned by then is a hang. Its worker is abandoned (its transport fails every further request
//! at once, so a handler looping on `fetch` winds down) and a fresh worker takes over the rest of
//! the schema's calls.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use flowmcp_runtime::Toolset;
use flowmcp_runtime::transport::UreqTransport;
use flowmcp_runtime::{CacheMode, Failure, Runner, RunnerOptions};

use super::canary::Canaries;
use super::catalog::Job;
use super::guard::{GuardTransport, Refusal};

/// What every worker of a phase shares.
#[derive(Clone)]
pub(super) struct Setup {
    pub set: Arc<Toolset>,
    pub transport: Arc<UreqTransport>,
    /// The ports of the sweep's own servers (the guard lets nothing else through).
    pub ports: Vec<u16>,
    pub canaries: Arc<Canaries>,
    pub upstreams: BTreeMap<String, String>,
    /// The runtime's limits per call: its wall-clock deadline and the JavaScript deadline.
    pub call_timeout: Duration,
    /// The watchdog's limit for one call.
    pub hard_limit: Duration,
    pub workers: usize,
    /// Where `requiredLibraries` are loaded from (`--libs`).
    pub libraries: Option<flowmcp_loader::libs::LibraryDir>,
}

/// How a call ended.
#[derive(Clone, Debug)]
pub(super) enum Ending {
    /// The call returned an envelope.
    Returned {
        /// The envelope as JSON text.
        envelope: String,
        status: bool,
        /// Why the call failed (`None` on success).
        failure: Option<Failure>,
        /// Log lines the runner produced during the call.
        logs: Vec<String>,
    },
    /// The call panicked; the panic message and location.
    Panicked(String),
    /// The call did not return within the hard limit.
    Hung,
}

/// The result of one call.
#[derive(Clone, Debug)]
pub(super) struct Done {
    pub job: Job,
    pub ending: Ending,
    pub elapsed: Duration,
    /// Requests the guard refused (the call tried to leave the local servers).
    pub refused: Vec<Refusal>,
    /// Requests the guard let through.
    pub sent: usize,
}

/// What a worker sends back: its number and the result.
type Report = (u64, Done);

thread_local! {
    /// The message and location of the last panic on this thread (set by the panic hook).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Set on worker threads: their panics are reported, not printed.
    static IS_WORKER: RefCell<bool> = const { RefCell::new(false) };
}

/// Installs a panic hook that keeps worker panics (message and location) for the report and
/// hands the others to the previous hook.
pub(super) fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if IS_WORKER.with(|w| *w.borrow()) {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
        } else {
            previous(info);
        }
    }));
}

/// A running worker thread, as the coordinator sees it.
struct Slot {
    /// The worker's number (a replacement gets a new one).
    number: u64,
    jobs: Sender<Job>,
    cancelled: Arc<AtomicBool>,
    /// The schema calls still to be given to this worker.
    queue: VecDeque<Job>,
    /// The call it is running and when it started.
    running: Option<(Job, Instant)>,
}

/// Runs `groups` (one schema's calls each) and returns every call's result in completion order.
/// `progress` is called after each call with the number done.
pub(super) fn run_all(
    setup: &Setup,
    groups: Vec<Vec<Job>>,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Done>, String> {
    let (report_tx, report_rx): (Sender<Report>, Receiver<Report>) = channel();
    let mut pending: VecDeque<VecDeque<Job>> = groups.into_iter().map(VecDeque::from).collect();
    let mut next_number = 0u64;
    let mut slots: Vec<Slot> = Vec::new();
    for _ in 0..setup.workers.max(1) {
        slots.push(spawn(setup, &report_tx, &mut next_number, VecDeque::new())?);
    }
    let mut done: Vec<Done> = Vec::new();
    loop {
        for slot in &mut slots {
            feed(slot, &mut pending);
        }
        let Some(deadline) = slots
            .iter()
            .filter_map(|s| s.running.as_ref().map(|(_, t)| *t + setup.hard_limit))
            .min()
        else {
            break;
        };
        let wait = deadline.saturating_duration_since(Instant::now());
        match report_rx.recv_timeout(wait) {
            Ok((number, result)) => {
                let slot = slots.iter_mut().find(|s| {
                    s.number == number
                        && s.running
                            .as_ref()
                            .is_some_and(|(j, _)| j.id == result.job.id)
                });
                // A late answer from an abandoned worker: its call was reported as a hang.
                if let Some(slot) = slot {
                    slot.running = None;
                    done.push(result);
                    progress(done.len());
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                for slot in &mut slots {
                    let overdue = slot
                        .running
                        .as_ref()
                        .is_some_and(|(_, t)| t.elapsed() >= setup.hard_limit);
                    if overdue {
                        done.push(abandon(setup, slot, &report_tx, &mut next_number)?);
                        progress(done.len());
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Err("the workers are gone".into()),
        }
    }
    Ok(done)
}

/// Gives an idle worker its next call: from its schema, else the next schema.
fn feed(slot: &mut Slot, pending: &mut VecDeque<VecDeque<Job>>) {
    if slot.running.is_some() {
        return;
    }
    if slot.queue.is_empty()
        && let Some(next) = pending.pop_front()
    {
        slot.queue = next;
    }
    if let Some(job) = slot.queue.pop_front() {
        // Should the thread be gone, the watchdog reports the call as hung and replaces it.
        let _ = slot.jobs.send(job.clone());
        slot.running = Some((job, Instant::now()));
    }
}

/// Reports the running call of `slot` as a hang and replaces the worker by a fresh one that takes
/// over the schema's remaining calls.
fn abandon(
    setup: &Setup,
    slot: &mut Slot,
    report_tx: &Sender<Report>,
    next_number: &mut u64,
) -> Result<Done, String> {
    slot.cancelled.store(true, Ordering::SeqCst);
    let queue = std::mem::take(&mut slot.queue);
    let (job, started) = slot
        .running
        .take()
        .ok_or("internal error: abandoning an idle worker")?;
    *slot = spawn(setup, report_tx, next_number, queue)?;
    Ok(Done {
        job,
        ending: Ending::Hung,
        elapsed: started.elapsed(),
        refused: Vec::new(),
        sent: 0,
    })
}

fn spawn(
    setup: &Setup,
    report_tx: &Sender<Report>,
    next_number: &mut u64,
    queue: VecDeque<Job>,
) -> Result<Slot, String> {
    let number = *next_number;
    *next_number += 1;
    let (tx, rx) = channel::<Job>();
    let cancelled = Arc::new(AtomicBool::new(false));
    let ctx = WorkerCtx {
        setup: setup.clone(),
        number,
        cancelled: cancelled.clone(),
        reports: report_tx.clone(),
    };
    std::thread::Builder::new()
        .name(format!("sweep-worker-{number}"))
        .stack_size(16 << 20)
        .spawn(move || worker(ctx, rx))
        .map_err(|e| format!("cannot start a worker thread: {e}"))?;
    Ok(Slot {
        number,
        jobs: tx,
        cancelled,
        queue,
        running: None,
    })
}

struct WorkerCtx {
    setup: Setup,
    number: u64,
    cancelled: Arc<AtomicBool>,
    reports: Sender<Report>,
}

fn worker(ctx: WorkerCtx, jobs: Receiver<Job>) {
    IS_WORKER.with(|w| *w.borrow_mut() = true);
    let set: &Toolset = &ctx.setup.set;
    let transport = GuardTransport::new(
        ctx.setup.transport.clone(),
        ctx.setup.ports.clone(),
        ctx.setup.canaries.clone(),
        ctx.cancelled.clone(),
    );
    let logs: Rc<RefCell<Vec<String>>> = Rc::new(RefCell::new(Vec::new()));
    let mut current: Option<(usize, Runner<'_>)> = None;
    while let Ok(job) = jobs.recv() {
        if current.as_ref().is_none_or(|(s, _)| *s != job.schema) {
            // The previous schema's hosts go first.
            drop(current.take());
            let sink = logs.clone();
            let runner = Runner::with_log(
                set,
                &transport,
                runner_options(&ctx.setup),
                Box::new(move |l: &str| sink.borrow_mut().push(l.to_string())),
            );
            current = Some((job.schema, runner));
        }
        let Some((_, runner)) = current.as_ref() else {
            break;
        };
        transport.begin(job.id);
        logs.borrow_mut().clear();
        LAST_PANIC.with(|p| p.borrow_mut().take());
        let started = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            runner.call_json(&job.wire, &job.inputs)
        }));
        let elapsed = started.elapsed();
        let (refused, sent) = transport.finish();
        let ending = match result {
            Ok(env) => Ending::Returned {
                envelope: env.to_json().to_string(),
                status: env.status(),
                failure: env.failure().cloned(),
                logs: logs.borrow_mut().split_off(0),
            },
            Err(payload) => {
                // The runner may be left half-way; the next call gets a new one.
                current = None;
                Ending::Panicked(panic_text(payload.as_ref()))
            }
        };
        let done = Done {
            job,
            ending,
            elapsed,
            refused,
            sent,
        };
        if ctx.reports.send((ctx.number, done)).is_err() {
            break;
        }
    }
}

fn runner_options(setup: &Setup) -> RunnerOptions {
    {
        let mut built = RunnerOptions::default();
        for (namespace, url) in &setup.upstreams {
            // The sweep's own local servers: loopback http, which the runtime accepts.
            if let Err(e) = built.add_upstream(namespace, url) {
                eprintln!("sweep: upstream {namespace}={url}: {e}");
            }
        }
        built.cache = None;
        built.cache_mode = CacheMode::Off;
        built.call_timeout = setup.call_timeout;
        built.timeout = setup.call_timeout;
        built.libraries = setup.libraries.clone();
        built
    }
}

/// The hook's message (with the location), else the payload's text.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = LAST_PANIC.with(|p| p.borrow_mut().take()) {
        return text;
    }
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::Code;
    use serde_json::Map;

    #[test]
    fn worker_panics_are_caught_with_their_location() {
        install_panic_hook();
        let text = std::thread::spawn(|| {
            IS_WORKER.with(|w| *w.borrow_mut() = true);
            let r = catch_unwind(|| panic!("boom {}", 42));
            r.err().map(|p| panic_text(p.as_ref()))
        })
        .join()
        .ok()
        .flatten()
        .unwrap_or_default();
        assert!(text.contains("boom 42"), "{text}");
        assert!(text.contains("worker.rs"), "{text}");
    }

    #[test]
    fn every_call_is_answered_once() {
        let setup = Setup {
            set: Arc::new(Toolset::default()),
            transport: Arc::new(UreqTransport::default()),
            ports: Vec::new(),
            canaries: Arc::new(Canaries::default()),
            upstreams: BTreeMap::new(),
            call_timeout: Duration::from_secs(1),
            hard_limit: Duration::from_secs(10),
            workers: 2,
            libraries: None,
        };
        let job = |id: u64, schema: usize| Job {
            id,
            tool: 0,
            schema,
            wire: format!("missing{id}"),
            inputs: Map::new(),
            label: "{}".into(),
        };
        let groups = vec![vec![job(1, 0), job(2, 0)], vec![job(3, 1)]];
        let mut seen = 0;
        let done = run_all(&setup, groups, |n| seen = n).unwrap_or_default();
        assert_eq!(seen, 3);
        let mut ids: Vec<u64> = done.iter().map(|d| d.job.id).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 2, 3]);
        for d in &done {
            let Ending::Returned { failure, .. } = &d.ending else {
                panic!("{:?}", d.ending);
            };
            assert_eq!(
                failure.as_ref().map(Failure::code),
                Some(Code::E007),
                "{failure:?}"
            );
        }
    }
}
