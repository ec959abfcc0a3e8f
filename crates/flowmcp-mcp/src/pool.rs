//! The worker threads that run tool calls, off the async threads.
//!
//! Each job carries the catalog it is for (a reload may replace the catalog while calls run). A
//! worker keeps one [`Caller`](flowmcp_catalog::Caller) of the catalog of its last job — JavaScript
//! sandboxes belong to a thread and are reused call after call — and makes a new one when a job
//! comes for another catalog. Tools whose `meta` says `isConcurrencySafe: false` run one at a
//! time: a worker holds the serial lock while it runs one. Prompts and resources, which may block
//! as well, run here too.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use flowmcp_catalog::runtime::CancelScope;
use flowmcp_catalog::serde_json::{Map, Value};
use flowmcp_catalog::{Caller, Catalog, Code, Envelope};
use tokio::sync::oneshot;

use crate::client_params::ClientParams;
use crate::request::Phases;

/// Work that needs the catalog on the worker's thread (rendering a prompt, reading a resource).
type Task = Box<dyn FnOnce(&Catalog, &Caller<'_>) + Send>;

/// What a job asks for.
enum Work {
    /// A tool call, by the tool's wire name; `serial` when it must not run alongside another
    /// serial call.
    Call {
        name: String,
        /// Its place in the catalog's list, when the server found it already.
        entry: Option<usize>,
        serial: bool,
        args: Map<String, Value>,
        /// The id of the MCP request it serves, if any (sent to the upstream).
        request_id: Option<Arc<str>>,
        /// Where its phases go, when its client listens.
        phases: Option<Phases>,
        /// A task's call: its upstream requests end when the scope is cancelled.
        scope: Option<CancelScope>,
        /// The server-parameter values its client brought (D142).
        params: Option<ClientParams>,
        reply: oneshot::Sender<Envelope>,
    },
    /// Anything else; it sends its own reply.
    Task(Task),
}

/// One piece of work for a worker, and the catalog it is for.
struct Job {
    catalog: Arc<Catalog>,
    work: Work,
}

/// Who waits for a call: the id of the MCP request it serves, if any (sent to the upstream), and
/// where its phases go when its client listens.
pub(crate) struct Requester {
    pub(crate) request_id: Option<Arc<str>>,
    pub(crate) phases: Option<Phases>,
    /// A task's call: its upstream requests end when the scope is cancelled (D131).
    pub(crate) scope: Option<CancelScope>,
    /// The server-parameter values the client brought for its own calls (D142): laid over the
    /// catalog's for this call only.
    pub(crate) params: Option<ClientParams>,
}

/// A fixed set of worker threads.
pub(crate) struct Pool {
    queue: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    /// Starts `threads` workers (at least one).
    pub(crate) fn start(threads: usize) -> Pool {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let serial_lock = Arc::new(Mutex::new(()));
        let workers = (0..threads.max(1))
            .filter_map(|i| {
                let rx = Arc::clone(&rx);
                let serial_lock = Arc::clone(&serial_lock);
                std::thread::Builder::new()
                    .name(format!("flowmcp-call-{i}"))
                    .spawn(move || work(&rx, &serial_lock))
                    .ok()
            })
            .collect();
        Pool {
            queue: Some(tx),
            workers,
        }
    }

    /// Queues a call of the tool with wire name `name` in `catalog`; the envelope arrives on the
    /// receiver (which reports an error if the worker could not answer).
    pub(crate) fn submit(
        &self,
        catalog: Arc<Catalog>,
        name: String,
        entry: Option<usize>,
        serial: bool,
        args: Map<String, Value>,
        from: Requester,
    ) -> oneshot::Receiver<Envelope> {
        let Requester {
            request_id,
            phases,
            scope,
            params,
        } = from;
        let (reply, rx) = oneshot::channel();
        let work = Work::Call {
            name,
            entry,
            serial,
            args,
            request_id,
            phases,
            scope,
            params,
            reply,
        };
        self.send(Job { catalog, work });
        rx
    }

    /// Runs `f` on a worker with `catalog` and the worker's caller for it; its result arrives on
    /// the receiver (an error if the worker could not answer).
    pub(crate) fn run<T, F>(&self, catalog: Arc<Catalog>, f: F) -> oneshot::Receiver<T>
    where
        T: Send + 'static,
        F: FnOnce(&Catalog, &Caller<'_>) -> T + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        let work = Work::Task(Box::new(move |catalog, caller| {
            // The requester may have stopped waiting.
            let _ = reply.send(f(catalog, caller));
        }));
        self.send(Job { catalog, work });
        rx
    }

    fn send(&self, job: Job) {
        if let Some(q) = &self.queue {
            // A send fails only when every worker is gone; the dropped reply says so.
            let _ = q.send(job);
        }
    }
}

impl Drop for Pool {
    /// Closes the queue and waits for the workers to finish the calls they have started.
    fn drop(&mut self) {
        self.queue.take();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn work(rx: &Mutex<Receiver<Job>>, serial_lock: &Mutex<()>) {
    let next = || lock(rx).recv().ok();
    let Some(mut job) = next() else { return };
    loop {
        // One caller per catalog: kept while the jobs are for the same catalog.
        let catalog = Arc::clone(&job.catalog);
        // The runtime's notes (preload cache hits and misses, Redis warnings, handler messages
        // at load) are log events of the server, never bare lines on stderr.
        let caller = catalog.caller_with_log(Box::new(|line: &str| {
            tracing::info!(target: crate::request::RUNTIME_NOTES, "{line}");
            crate::request::note(line);
        }));
        loop {
            run(job.work, &catalog, &caller, serial_lock);
            let Some(j) = next() else { return };
            job = j;
            if !Arc::ptr_eq(&job.catalog, &catalog) {
                break;
            }
        }
    }
}

fn run(work: Work, catalog: &Catalog, caller: &Caller<'_>, serial_lock: &Mutex<()>) {
    match work {
        Work::Call {
            name,
            entry,
            serial,
            args,
            request_id,
            phases,
            scope,
            params,
            reply,
        } => {
            // A task cancelled while its call waited in the queue is not started.
            if scope.as_ref().is_some_and(CancelScope::is_cancelled) {
                return;
            }
            let _one_at_a_time = serial.then(|| lock(serial_lock));
            let call = || {
                crate::request::with_phases(phases, || {
                    crate::request::with_request_id(request_id, || {
                        let call = || match entry.and_then(|i| catalog.list().get(i)) {
                            Some(e) => caller.call_entry_json(e, &args),
                            None => caller.call_json(&name, &args),
                        };
                        // The client's own values, for this call only.
                        let run = || match &params {
                            Some(p) => caller.with_server_params(p.over(catalog.toolset()), call),
                            None => call(),
                        };
                        match &scope {
                            Some(s) => s.enter(run),
                            None => run(),
                        }
                    })
                })
            };
            let envelope = std::panic::catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| {
                Envelope::error(Code::E005, &name, "the call failed internally")
            });
            // The client may have cancelled the call and stopped waiting.
            let _ = reply.send(envelope);
        }
        // A panic drops the reply, which the requester sees as an internal error.
        Work::Task(task) => {
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| task(catalog, caller)));
        }
    }
}
