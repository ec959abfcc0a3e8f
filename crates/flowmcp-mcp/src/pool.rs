//! The worker threads that run tool calls, off the async threads.
//!
//! Each worker keeps one [`Caller`](flowmcp_catalog::Caller) of the shared catalog (JavaScript
//! sandboxes belong to a thread) and takes calls from one queue. Tools whose `meta` says
//! `isConcurrencySafe: false` run one at a time: a worker holds the serial lock while it runs one.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use flowmcp_catalog::serde_json::{Map, Value};
use flowmcp_catalog::{Catalog, ECode, Envelope};
use tokio::sync::oneshot;

/// One call for a worker.
struct Job {
    /// The tool's wire name.
    name: String,
    args: Map<String, Value>,
    reply: oneshot::Sender<Envelope>,
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
        if let Some(q) = &self.queue {
            // A send fails only when every worker is gone; the dropped reply says so.
            let _ = q.send(Job { name, args, reply });
        }
        rx
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
        let _one_at_a_time = serial.contains(&job.name).then(|| lock(serial_lock));
        let envelope =
            std::panic::catch_unwind(AssertUnwindSafe(|| caller.call_json(&job.name, &job.args)))
                .unwrap_or_else(|_| {
                    Envelope::error(ECode::E005, &job.name, "the call failed internally")
                });
        // The client may have cancelled the call and stopped waiting.
        let _ = job.reply.send(envelope);
    }
}
