//! The worker threads that run tool calls, off the async threads.
//!
//! Each worker keeps one [`Caller`](flowmcp_catalog::Caller) of the shared catalog (JavaScript
//! sandboxes belong to a thread) and takes calls from one queue. Tools whose `meta` says
//! `isConcurrencySafe: false` run one at a time: a worker holds the serial lock while it runs one.
//! Prompts and resources, which may block as well, run here too.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use flowmcp_catalog::serde_json::{Map, Value};
use flowmcp_catalog::{Caller, Catalog, ECode, Envelope};
use tokio::sync::oneshot;

/// Work that needs the catalog on the worker's thread (rendering a prompt, reading a resource).
type Task = Box<dyn FnOnce(&Catalog, &Caller<'_>) + Send>;

/// One piece of work for a worker.
enum Job {
    /// A tool call, by the tool's wire name.
    Call {
        name: String,
        args: Map<String, Value>,
        reply: oneshot::Sender<Envelope>,
    },
    /// Anything else; it sends its own reply.
    Task(Task),
}

/// A fixed set of worker threads over one catalog.
pub(crate) struct Pool {
    queue: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    /// Starts `threads` workers (at least one). `serial` holds the wire names of the tools that
    /// must not run concurrently.
    pub(crate) fn start(catalog: Arc<Catalog>, threads: usize, serial: HashSet<String>) -> Pool {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let serial = Arc::new(serial);
        let serial_lock = Arc::new(Mutex::new(()));
        let workers = (0..threads.max(1))
            .filter_map(|i| {
                let catalog = Arc::clone(&catalog);
                let rx = Arc::clone(&rx);
                let serial = Arc::clone(&serial);
                let serial_lock = Arc::clone(&serial_lock);
                std::thread::Builder::new()
                    .name(format!("flowmcp-call-{i}"))
                    .spawn(move || work(&catalog, &rx, &serial, &serial_lock))
                    .ok()
            })
            .collect();
        Pool {
            queue: Some(tx),
            workers,
        }
    }

    /// Queues a call of the tool with wire name `name`; the envelope arrives on the receiver
    /// (which reports an error if the worker could not answer).
    pub(crate) fn submit(
        &self,
        name: String,
        args: Map<String, Value>,
    ) -> oneshot::Receiver<Envelope> {
        let (reply, rx) = oneshot::channel();
        self.send(Job::Call { name, args, reply });
        rx
    }

    /// Runs `f` on a worker with the catalog and the worker's caller; its result arrives on the
    /// receiver (an error if the worker could not answer).
    pub(crate) fn run<T, F>(&self, f: F) -> oneshot::Receiver<T>
    where
        T: Send + 'static,
        F: FnOnce(&Catalog, &Caller<'_>) -> T + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        self.send(Job::Task(Box::new(move |catalog, caller| {
            // The requester may have stopped waiting.
            let _ = reply.send(f(catalog, caller));
        })));
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

fn work(
    catalog: &Catalog,
    rx: &Mutex<Receiver<Job>>,
    serial: &HashSet<String>,
    serial_lock: &Mutex<()>,
) {
    let caller = catalog.caller();
    loop {
        let job = lock(rx).recv();
        let Ok(job) = job else { return };
        match job {
            Job::Call { name, args, reply } => {
                let _one_at_a_time = serial.contains(&name).then(|| lock(serial_lock));
                let envelope =
                    std::panic::catch_unwind(AssertUnwindSafe(|| caller.call_json(&name, &args)))
                        .unwrap_or_else(|_| {
                            Envelope::error(ECode::E005, &name, "the call failed internally")
                        });
                // The client may have cancelled the call and stopped waiting.
                let _ = reply.send(envelope);
            }
            // A panic drops the reply, which the requester sees as an internal error.
            Job::Task(task) => {
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| task(catalog, &caller)));
            }
        }
    }
}
