//! A long-lived sandbox that runs a schema's `handlers` at call time.
//!
//! [`HandlerHost::load`] evaluates the module in a fresh QuickJS runtime (the same reduced
//! intrinsics, import-less loader, memory/stack caps and interrupt deadline as [`crate::eval`]),
//! calls the `handlers` factory once with deep-frozen `sharedLists` and `libraries`, and keeps the
//! returned hook functions. [`HandlerHost::call`] then runs one hook, with the signatures of the
//! schema-format and security chapters (the shared-lists chapter's alias example uses other
//! shapes; these win): `preRequest({ struct, payload })`, `executeRequest({ struct, payload })` or
//! `postRequest({ response, struct, payload })`. It drives its promise to completion and hands back
//! the returned value as JSON.
//!
//! # Threading
//!
//! A host owns a `rquickjs` runtime and `Rc` state, so it is `!Send`: the runtime keeps one host
//! per schema file per thread and never moves it.
//!
//! # State between calls
//!
//! The module is evaluated once and the factory called once, so module-level variables (a counter,
//! a cache) and closures made by the factory persist from one call to the next, for the lifetime
//! of the host. Pending timers and un-run `fetch` requests do not: they are discarded when a call
//! ends (a `fetch` that was never awaited is never sent). Promise jobs still queued when a call's
//! own promise settles stay in the engine's job queue and run at the start of the next call.
//!
//! # Limits and what counts against the deadline
//!
//! - Memory and stack caps are runtime-wide ([`HostConfig::memory_bytes`],
//!   [`HostConfig::stack_bytes`]).
//! - [`HostConfig::factory_timeout`] covers evaluating the module and calling the factory;
//!   [`HostConfig::call_timeout`] is reset at the start of every call. Both count wall-clock time
//!   spent executing JavaScript (and the host's own work between jobs); time spent blocked inside
//!   [`HostBridge::fetch`] or sleeping for a timer is added back to the deadline, so it does not
//!   count. Timer sleeps are themselves bounded by the call's wall-clock deadline (below).
//! - [`HostBridge::deadline`] is a hard wall-clock deadline for the whole call: nothing is added
//!   back to it. JavaScript is interrupted, timers stop waiting and no further `fetch` is started
//!   once it has passed ([`HostError::Deadline`]); the bridge bounds its own `fetch` by it.
//! - At most [`HostConfig::max_fetches`] `fetch` requests per call; beyond that `fetch` throws.
//! - A breached limit (timeout, deadline, out of memory, stack overflow) or an internal engine
//!   failure *poisons* the host: [`HandlerHost::is_poisoned`] turns true and every later call
//!   returns [`HostError::Poisoned`]; the caller drops the host and loads a new one. A thrown
//!   `null` is out of memory: the engine throws it when it cannot allocate even its out-of-memory
//!   error, often after the memory is given back. After a failed load and after every call the
//!   engine's memory is measured: a failure while the heap is nearly full is out of memory too (a
//!   module, library or handler may catch the engine's error and throw something else), and a
//!   heap that stays more than half full after a garbage collection poisons the host, so memory a
//!   handler holds on to is given back by a rebuild.
//!
//! # Network, timers, console
//!
//! - `fetch` always exists. Calling it fails (SEC100, [`HostError::FetchForbidden`], even if the
//!   handler catches the exception) unless [`HostConfig::allow_fetch`] is set (profile `compat`)
//!   *and* the running hook is `executeRequest`. Allowed requests are queued and performed by
//!   [`HostBridge::fetch`] when the JavaScript job queue is idle, one at a time.
//! - With [`HostConfig::timers`] (profile `compat`) `setTimeout`/`clearTimeout` exist. A timer's
//!   delay is honoured up to [`HostConfig::max_timer_delay`], and timer sleeps in one call never
//!   go past the call's wall-clock deadline (`call start + call_timeout`, plus time blocked in
//!   `fetch`): after that, due timers fire without waiting. `setInterval` runs its callback
//!   **once** (like `setTimeout`) and `clearInterval` is `clearTimeout`. An exception thrown by a
//!   timer callback is logged (level `error`) and otherwise ignored, as a browser does. Without
//!   `timers` (profile `spec`) none of the four globals exist.
//! - `console.log/info/warn/error/debug/trace` go to [`HostBridge::log`] (`trace` as `debug`),
//!   never to stdout. At most [`MAX_LOG_MESSAGES`] messages per call (each cut to
//!   `MAX_LOG_CHARS` characters) are kept; the rest are counted in one closing `warn` message.
//!   Messages logged while loading are kept for [`HandlerHost::take_load_logs`].
//!
//! Argument values are never logged by the host (they may carry `{{SERVER_PARAM:…}}`
//! placeholders), and error messages carry the thrown message only, never a stack.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::function::This;
use rquickjs::object::Filter;
use rquickjs::promise::PromiseState;
use rquickjs::{
    Array, CatchResultExt, CaughtError, Context, Ctx, Exception, Function, Module, Object,
    Persistent, Promise, Runtime, Value,
};
use serde_json::Value as Json;

use crate::engine::{THROWN_NULL, describe_thrown, is_exhaustion_message};
use crate::extract::{Intrinsics, factory_arg, frozen_json};
use crate::libs::LibraryDir;
use crate::modules::{ENTRY_MODULE, LibLoader, LibResolver, ModuleState};

/// Why a native addon cannot be loaded.
const NATIVE_ADDON: &str =
    "it is a native addon (compiled code for Node), which cannot run in the sandbox";

/// Why no library can be loaded without a library directory (facts only: how to choose one is
/// the embedding program's to say, D74).
const NO_DIRECTORY: &str = "no library directory is configured";

/// The maker of stand-ins for libraries that cannot be loaded (`js/stand_in.js`).
const STAND_IN: &str = include_str!("js/stand_in.js");

/// Largest number of console messages kept per call (or per load).
pub const MAX_LOG_MESSAGES: usize = 1000;
/// Longest console message kept, in characters; longer ones are cut.
pub(crate) const MAX_LOG_CHARS: usize = 8192;
pub(crate) use crate::engine::MAX_PENDING_TIMERS;
/// Largest number of `fetch` requests waiting to be performed at once; `fetch` throws beyond it.
pub(crate) const MAX_PENDING_FETCHES: usize = 1024;
/// Default for [`HostConfig::max_fetches`].
pub(crate) const DEFAULT_MAX_FETCHES: usize = 50;

/// The three hooks a handler entry may define.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// `preRequest({ struct, payload })`: may change the request before it is sent.
    PreRequest,
    /// `executeRequest({ struct, payload })`: performs the request itself (the only hook that may
    /// call `fetch`, in profile `compat`).
    ExecuteRequest,
    /// `postRequest({ response, struct, payload })`: may change the response.
    PostRequest,
}

impl Phase {
    /// The three hooks, in the order a call runs them.
    pub const ALL: [Phase; 3] = [Phase::PreRequest, Phase::ExecuteRequest, Phase::PostRequest];

    /// The hook's name in JavaScript: `preRequest`, `executeRequest`, `postRequest`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::PreRequest => "preRequest",
            Phase::ExecuteRequest => "executeRequest",
            Phase::PostRequest => "postRequest",
        }
    }

    fn index(self) -> usize {
        match self {
            Phase::PreRequest => 0,
            Phase::ExecuteRequest => 1,
            Phase::PostRequest => 2,
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Limits and profile switches of a host.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostConfig {
    /// QuickJS heap cap for the whole runtime, in bytes.
    pub memory_bytes: usize,
    /// QuickJS stack cap, in bytes (must stay well below the thread's own stack).
    pub stack_bytes: usize,
    /// Deadline of one call (JavaScript execution; blocked `fetch` and timer sleeps excluded).
    pub call_timeout: Duration,
    /// Deadline of module evaluation plus the factory call.
    pub factory_timeout: Duration,
    /// Profile `compat`: `executeRequest` may call `fetch`, routed to [`HostBridge::fetch`].
    pub allow_fetch: bool,
    /// Profile `compat`: `setTimeout`/`clearTimeout` (and a run-once `setInterval`) exist.
    pub timers: bool,
    /// Longest delay honoured per timer.
    pub max_timer_delay: Duration,
    /// Most `fetch` requests one call may make; further calls of `fetch` throw a `TypeError`.
    pub max_fetches: usize,
    /// Profile `compat`: a library that cannot be loaded (not installed, a native addon, no
    /// library directory, a module that fails to resolve or throws) does not stop loading; the
    /// factory gets a stand-in whose every use throws `SEC103 …` with the reason, and a warning
    /// is logged, so the tools that do not use it still run (schemas often offer a library as one
    /// choice among several). A limit breached while loading still fails. Profile `spec`: the
    /// first such library fails loading ([`HostError::Library`]).
    pub library_stand_ins: bool,
    /// The heap cap of a sandbox that loads libraries, when larger than
    /// [`HostConfig::memory_bytes`]: libraries and their tables count against it (ethers'
    /// ENS normaliser alone builds tables of some 90 MiB in QuickJS on first use).
    pub library_memory_bytes: usize,
    /// Time added to [`HostConfig::factory_timeout`] for loading the schema's libraries (parsing
    /// and evaluating them), when it has any.
    pub library_timeout: Duration,
}

impl Default for HostConfig {
    /// Profile `spec`: no `fetch`, no timers; memory, stack and time as for loading a file.
    fn default() -> Self {
        let limits = crate::eval::Limits::default();
        HostConfig {
            memory_bytes: limits.memory_bytes,
            stack_bytes: limits.stack_bytes,
            call_timeout: limits.eval_timeout,
            factory_timeout: limits.eval_timeout,
            allow_fetch: false,
            timers: false,
            max_timer_delay: crate::engine::MAX_TIMER_DELAY,
            max_fetches: DEFAULT_MAX_FETCHES,
            library_stand_ins: false,
            library_memory_bytes: 256 * 1024 * 1024,
            library_timeout: Duration::from_secs(10),
        }
    }
}

impl HostConfig {
    /// Profile `spec`: the defaults.
    pub fn spec() -> Self {
        HostConfig::default()
    }

    /// Profile `compat`: `fetch` in `executeRequest`, and capped timers.
    pub fn compat() -> Self {
        HostConfig {
            allow_fetch: true,
            timers: true,
            library_stand_ins: true,
            ..HostConfig::default()
        }
    }
}

/// A request made by `fetch` in `executeRequest` (profile `compat`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchRequest {
    /// The URL as the handler passed it (a string, a `Request`-like object's `url`, or
    /// `String(resource)`).
    pub url: String,
    /// Upper-cased; `GET` when not given.
    pub method: String,
    /// In the order given, names as written.
    pub headers: Vec<(String, String)>,
    /// The body as a string (non-string bodies are converted with `String(body)`).
    pub body: Option<String>,
}

/// What the bridge answers to a [`FetchRequest`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchResponse {
    /// The HTTP status code (`ok` is true for 200–299).
    pub status: u16,
    /// The reason phrase (`statusText`).
    pub status_text: String,
    /// Response headers as name–value pairs; looked up case-insensitively, repeated names joined
    /// with `, `.
    pub headers: Vec<(String, String)>,
    /// Decoded as UTF-8 (lossily) for `text()` and `json()`.
    pub body: Vec<u8>,
}

/// Why the bridge did not perform a [`FetchRequest`]: rejects the handler's `fetch` promise with a
/// `TypeError` whose message is exactly this error's [`Display`](fmt::Display) text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FetchError {
    message: String,
}

impl FetchError {
    /// An error with this message (seen by the handler as the `TypeError`'s message).
    pub fn new(message: impl Into<String>) -> Self {
        FetchError {
            message: message.into(),
        }
    }

    /// The message, as the handler sees it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message, by value.
    pub fn into_message(self) -> String {
        self.message
    }
}

impl From<String> for FetchError {
    fn from(message: String) -> Self {
        FetchError::new(message)
    }
}

impl From<&str> for FetchError {
    fn from(message: &str) -> Self {
        FetchError::new(message)
    }
}

/// The runtime's side of a call: the HTTP client and the log sink.
pub trait HostBridge {
    /// Performs a request; an `Err` rejects the `fetch` promise with a `TypeError` of that message.
    fn fetch(&mut self, req: FetchRequest) -> Result<FetchResponse, FetchError>;
    /// A console message; `level` is `log`, `info`, `warn`, `error` or `debug`.
    fn log(&mut self, level: &str, text: &str);
    /// The wall-clock instant by which the whole call must end, if any (see the module
    /// documentation). The bridge's own `fetch` must respect it too.
    fn deadline(&self) -> Option<Instant> {
        None
    }
}

/// Why loading or calling failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    /// The CPU-time deadline passed (the host is poisoned).
    Timeout,
    /// The caller's wall-clock deadline for the whole call ([`HostBridge::deadline`]) passed (the
    /// host is poisoned).
    Deadline,
    /// Out of memory or stack (the host is poisoned).
    Memory(String),
    /// The hook threw or its promise rejected: the message only.
    Threw(String),
    /// SEC102: the code tried to change the frozen `sharedLists` (or `libraries`): assigning to a
    /// read-only property, adding a property to a non-extensible object, or deleting one.
    SharedListMutation(String),
    /// SEC100: `fetch` was called where the profile or phase does not allow it.
    FetchForbidden,
    /// SEC104: the `handlers` factory threw.
    FactoryThrew(String),
    /// The `handlers` export is not a function, or the factory did not return a plain object.
    FactoryShape(String),
    /// The module itself threw while being evaluated (or could not be parsed).
    ModuleThrew(String),
    /// SEC101: the hook returned (or resolved to) something that is not a plain object.
    BadReturn(String),
    /// The returned object cannot be turned into JSON (a cycle, a BigInt, a throwing `toJSON`).
    NotSerializable(String),
    /// The hook's promise can never settle (no jobs, timers or requests left).
    NeverSettles,
    /// No such tool, or the tool defines no such hook.
    NoHandler(String),
    /// The host hit a limit earlier and must be rebuilt.
    Poisoned,
    /// An engine or binding failure (the host is poisoned).
    Engine(String),
    /// SEC103: a library of `requiredLibraries` could not be loaded (not installed, a native
    /// addon, a module that does not resolve or threw while being evaluated).
    Library {
        /// The package, as `requiredLibraries` names it.
        package: String,
        /// Why.
        message: String,
    },
}

impl HostError {
    /// The security code this failure corresponds to, if any.
    pub fn sec_code(&self) -> Option<&'static str> {
        match self {
            HostError::FetchForbidden => Some("SEC100"),
            HostError::BadReturn(_) => Some("SEC101"),
            HostError::SharedListMutation(_) => Some("SEC102"),
            HostError::Library { .. } => Some("SEC103"),
            HostError::FactoryThrew(_) => Some("SEC104"),
            _ => None,
        }
    }

    /// Whether the failure poisons the host.
    pub fn poisons(&self) -> bool {
        matches!(
            self,
            HostError::Timeout | HostError::Deadline | HostError::Memory(_) | HostError::Engine(_)
        )
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Timeout => f.write_str("the handler ran past its deadline"),
            HostError::Deadline => f.write_str("the call ran past its wall-clock deadline"),
            HostError::Memory(m) => write!(f, "the handler ran out of memory or stack: {m}"),
            HostError::Threw(m) => write!(f, "the handler threw: {m}"),
            HostError::SharedListMutation(m) => {
                write!(f, "the handler tried to change the frozen sharedLists: {m}")
            }
            HostError::FetchForbidden => {
                f.write_str("fetch is not available here (no network inside handlers)")
            }
            HostError::FactoryThrew(m) => write!(f, "the handlers factory threw: {m}"),
            HostError::FactoryShape(m) => write!(f, "{m}"),
            HostError::ModuleThrew(m) => write!(f, "the module threw: {m}"),
            HostError::BadReturn(m) => write!(f, "the handler {m}"),
            HostError::NotSerializable(m) => {
                write!(f, "the handler's result is not JSON-serializable: {m}")
            }
            HostError::NeverSettles => f.write_str("the handler's promise never settles"),
            HostError::NoHandler(m) => write!(f, "{m}"),
            HostError::Poisoned => f.write_str("the handler host hit a limit and must be rebuilt"),
            HostError::Engine(m) => write!(f, "JavaScript engine failure: {m}"),
            HostError::Library { package, message } => {
                write!(f, "the library {package} could not be loaded: {message}")
            }
        }
    }
}

impl std::error::Error for HostError {}

/// A `fetch` waiting for the job queue to go idle.
struct PendingFetch {
    req: FetchRequest,
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

struct Timer {
    id: i32,
    seq: u64,
    due: Instant,
    callback: Persistent<Function<'static>>,
    args: Persistent<Array<'static>>,
}

/// State shared between the host and the Rust functions installed in the engine.
struct Shared {
    /// Interrupt deadline; `None` between calls.
    deadline: Cell<Option<Instant>>,
    /// The caller's hard wall-clock deadline ([`HostBridge::deadline`]); never extended.
    hard_deadline: Cell<Option<Instant>>,
    /// Whether the interrupt handler fired.
    fired: Cell<bool>,
    /// Whether it fired because of the hard deadline.
    hard_fired: Cell<bool>,
    /// `fetch` calls in this call, and the most allowed.
    fetch_count: Cell<usize>,
    max_fetches: usize,
    /// The hook running, `None` while loading.
    phase: Cell<Option<Phase>>,
    allow_fetch: bool,
    max_timer_delay: Duration,
    /// Set when `fetch` was called where it is not allowed.
    fetch_forbidden: Cell<bool>,
    fetches: RefCell<VecDeque<PendingFetch>>,
    timers: RefCell<Vec<Timer>>,
    timer_seq: Cell<u64>,
    logs: RefCell<Vec<(String, String)>>,
    /// Messages logged in this call or load (kept or not).
    log_count: Cell<usize>,
}

impl Shared {
    fn new(config: &HostConfig) -> Self {
        Shared {
            deadline: Cell::new(None),
            hard_deadline: Cell::new(None),
            fired: Cell::new(false),
            hard_fired: Cell::new(false),
            fetch_count: Cell::new(0),
            max_fetches: config.max_fetches,
            phase: Cell::new(None),
            allow_fetch: config.allow_fetch,
            max_timer_delay: config.max_timer_delay,
            fetch_forbidden: Cell::new(false),
            fetches: RefCell::new(VecDeque::new()),
            timers: RefCell::new(Vec::new()),
            timer_seq: Cell::new(0),
            logs: RefCell::new(Vec::new()),
            log_count: Cell::new(0),
        }
    }

    /// Drops every JavaScript value held on the Rust side (before the runtime goes).
    fn clear_pending(&self) {
        self.fetches.borrow_mut().clear();
        self.timers.borrow_mut().clear();
    }

    fn begin(&self, phase: Option<Phase>, timeout: Duration, hard: Option<Instant>) {
        self.fired.set(false);
        self.hard_fired.set(false);
        self.fetch_forbidden.set(false);
        self.fetch_count.set(0);
        self.phase.set(phase);
        self.log_count.set(0);
        self.deadline.set(Some(Instant::now() + timeout));
        self.hard_deadline.set(hard);
    }

    fn end(&self) {
        self.deadline.set(None);
        self.hard_deadline.set(None);
        self.phase.set(None);
        self.clear_pending();
    }

    /// `at`, or the hard deadline when that comes first.
    fn cap(&self, at: Instant) -> Instant {
        self.hard_deadline.get().map_or(at, |h| h.min(at))
    }

    /// Moves the deadline by time spent blocked outside JavaScript.
    fn extend_deadline(&self, by: Duration) {
        if let Some(d) = self.deadline.get() {
            self.deadline.set(Some(d + by));
        }
    }

    fn past_deadline(&self) -> bool {
        if self.fired.get() {
            return true;
        }
        let now = Instant::now();
        if self.hard_deadline.get().is_some_and(|h| now >= h) {
            self.hard_fired.set(true);
            self.fired.set(true);
            return true;
        }
        match self.deadline.get() {
            Some(d) if now > d => {
                self.fired.set(true);
                true
            }
            _ => false,
        }
    }

    /// The timeout error for a fired interrupt: which deadline it was.
    fn timeout_error(&self) -> HostError {
        if self.hard_fired.get() {
            HostError::Deadline
        } else {
            HostError::Timeout
        }
    }

    fn push_log(&self, level: &str, text: &str) {
        let n = self.log_count.get() + 1;
        self.log_count.set(n);
        if n > MAX_LOG_MESSAGES {
            return;
        }
        let text = match text.char_indices().nth(MAX_LOG_CHARS) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_string(),
        };
        self.logs.borrow_mut().push((level.to_string(), text));
    }

    /// Sends kept messages to `sink`; with `last`, also a note about dropped ones.
    fn flush_logs(&self, sink: &mut dyn HostBridge, last: bool) {
        let logs: Vec<(String, String)> = self.logs.borrow_mut().drain(..).collect();
        for (level, text) in logs {
            sink.log(&level, &text);
        }
        if last && self.log_count.get() > MAX_LOG_MESSAGES {
            let dropped = self.log_count.get() - MAX_LOG_MESSAGES;
            sink.log(
                "warn",
                &format!("[{dropped} more console messages dropped]"),
            );
        }
    }
}

/// Host-side JavaScript helpers made by the prelude before any untrusted code runs.
struct Helpers {
    make_response: Persistent<Function<'static>>,
    make_error: Persistent<Function<'static>>,
    apply: Persistent<Function<'static>>,
    resolve: Persistent<Function<'static>>,
}

struct HelpersJs<'js> {
    make_response: Function<'js>,
    make_error: Function<'js>,
    apply: Function<'js>,
    resolve: Function<'js>,
}

impl Helpers {
    fn restore<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<HelpersJs<'js>> {
        Ok(HelpersJs {
            make_response: self.make_response.clone().restore(ctx)?,
            make_error: self.make_error.clone().restore(ctx)?,
            apply: self.apply.clone().restore(ctx)?,
            resolve: self.resolve.clone().restore(ctx)?,
        })
    }
}

/// The names a schema's handlers may use: its tools, and its resources with their queries.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandlerKeys<'a> {
    /// The tools of `main.tools`.
    pub tools: &'a [String],
    /// Each resource of `main.resources` with a query list, and its query names.
    pub resources: &'a [(String, Vec<String>)],
}

/// The name under which [`HandlerHost::has`] and [`HandlerHost::call`] know the handler of
/// `query` of `resource` (a tool name can never take this form).
pub fn resource_handler_key(resource: &str, query: &str) -> String {
    format!("{resource}\u{0}{query}")
}

/// `v` as an object when it is a plain one (not an array or a function).
fn plain_entry<'js>(v: &Value<'js>) -> Option<Object<'js>> {
    match v.as_object() {
        Some(o) if !v.is_array() && !v.is_function() => Some(o.clone()),
        _ => None,
    }
}

/// The npm libraries a schema's handlers receive (its `requiredLibraries`) and the directory they
/// are loaded from.
///
/// Each library is evaluated once, in the sandbox, before the `handlers` factory is called; the
/// factory's `libraries` object maps each name, exactly as written, to the module's default export
/// when that is truthy and to its namespace otherwise (a CommonJS module's `module.exports`). The
/// object itself is frozen; the library values are not (libraries keep internal state).
#[derive(Clone, Copy, Debug, Default)]
pub struct Libraries<'a> {
    /// The package names, in `requiredLibraries` order.
    pub names: &'a [String],
    /// Where they are installed; `None` fails every name with [`HostError::Library`].
    pub dir: Option<&'a LibraryDir>,
}

impl<'a> Libraries<'a> {
    /// No libraries: `libraries` is an empty object.
    pub fn none() -> Libraries<'static> {
        Libraries {
            names: &[],
            dir: None,
        }
    }

    /// `names` from `dir`.
    pub fn new(names: &'a [String], dir: Option<&'a LibraryDir>) -> Libraries<'a> {
        Libraries { names, dir }
    }

    /// Why `name` cannot be loaded at all, found before any code runs: no directory, not
    /// installed, or a native addon.
    fn unusable(&self, name: &str) -> Option<String> {
        let Some(dir) = self.dir else {
            return Some(NO_DIRECTORY.into());
        };
        if let Err(e) = dir.package_dir(name) {
            return Some(e.to_string());
        }
        dir.is_native(name).then(|| NATIVE_ADDON.to_string())
    }
}

/// What loading found out about a schema's libraries before any code ran.
struct LibraryPlan<'a> {
    /// All of them, in order.
    names: &'a [String],
    /// Those that cannot be loaded at all, with the reason (only under stand-ins).
    unusable: &'a [(String, String)],
    /// The module system over the library directory, if there is one.
    modules: Option<&'a Rc<ModuleState>>,
}

/// One tool's entry of the factory result.
struct ToolEntry {
    this: Persistent<Object<'static>>,
    hooks: [Option<Persistent<Function<'static>>>; 3],
}

/// A loaded schema module with its handlers, ready to be called many times.
///
/// `!Send`: keep one per thread.
pub struct HandlerHost {
    // Every field holding engine values comes before `ctx` and `rt`, and `Drop` clears them first.
    tools: HashMap<String, ToolEntry>,
    helpers: Option<Helpers>,
    unknown: Vec<String>,
    notes: Vec<String>,
    load_logs: Vec<(String, String)>,
    shared: Rc<Shared>,
    config: HostConfig,
    poisoned: bool,
    /// The library module system, when the schema has libraries.
    modules: Option<Rc<ModuleState>>,
    ctx: Context,
    /// Kept for the host's lifetime (dropped last).
    rt: Runtime,
}

impl Drop for HandlerHost {
    fn drop(&mut self) {
        self.tools.clear();
        self.helpers = None;
        self.shared.clear_pending();
    }
}

impl fmt::Debug for HandlerHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tools: Vec<&String> = self.tools.keys().collect();
        tools.sort();
        f.debug_struct("HandlerHost")
            .field("tools", &tools)
            .field("unknown", &self.unknown)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// Collects messages while loading (there is no bridge then; nothing may fetch).
#[derive(Default)]
struct LoadSink {
    logs: Vec<(String, String)>,
}

impl HostBridge for LoadSink {
    fn fetch(&mut self, _req: FetchRequest) -> Result<FetchResponse, FetchError> {
        Err("fetch is not available while loading".into())
    }
    fn log(&mut self, level: &str, text: &str) {
        self.logs.push((level.to_string(), text.to_string()));
    }
}

/// An engine failure reduced to strings, before classification.
enum Failure {
    Host(HostError),
    Thrown {
        name: Option<String>,
        message: String,
    },
}

impl Failure {
    fn from_caught(err: CaughtError<'_>) -> Failure {
        match err {
            CaughtError::Error(rquickjs::Error::Allocation) => {
                Failure::Host(HostError::Memory("out of memory".into()))
            }
            CaughtError::Error(e) => Failure::Host(HostError::Engine(e.to_string())),
            CaughtError::Exception(ex) => Failure::from_value(&ex.into_value()),
            CaughtError::Value(v) => Failure::from_value(&v),
        }
    }

    fn from_value(v: &Value<'_>) -> Failure {
        if v.is_null() {
            return Failure::Host(HostError::Memory(THROWN_NULL.into()));
        }
        if let Some(ex) = v.as_exception() {
            return Failure::Thrown {
                name: ex.get::<_, String>("name").ok(),
                message: ex.message().unwrap_or_default(),
            };
        }
        let message = if let Some(b) = v.as_bool() {
            b.to_string()
        } else if let Some(o) = v.as_object() {
            // An object with a string `message` (an error from another realm, or duck-typed).
            match o.get::<_, Value>("message") {
                Ok(m) if m.is_string() => m
                    .as_string()
                    .and_then(|s| s.to_string().ok())
                    .unwrap_or_default(),
                _ => describe_thrown(v),
            }
        } else {
            // Strings and numbers as they are; anything else named by its type.
            describe_thrown(v)
        };
        Failure::Thrown {
            name: None,
            message,
        }
    }
}

/// Whether a `TypeError` message is QuickJS-NG's for writing to frozen data: assigning a read-only
/// property (`'x' is read-only`), adding to a non-extensible object (`object is not extensible`),
/// deleting a non-configurable property (`could not delete property`), or redefining one.
pub(crate) fn is_frozen_mutation_message(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("is read-only")
        || m.contains("read only")
        || m.contains("not extensible")
        || m.contains("could not delete property")
        || m.contains("cannot delete property")
        || m.contains("property is not configurable")
        || m.contains("cannot redefine property")
}

/// What a failure means in a given situation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Module,
    Factory,
    Call,
    Serialize,
}

impl HandlerHost {
    /// Evaluates the module and calls its `handlers` factory with the deep-frozen `shared_lists`
    /// (any JSON value, normally an object) and the loaded `libraries`. `tool_names` are the tools of
    /// `main`: factory keys outside it are listed by [`HandlerHost::unknown_keys`] and ignored.
    /// A module without a `handlers` export loads with no handlers.
    pub fn load(
        name: &str,
        source: &str,
        shared_lists: &Json,
        libraries: Libraries<'_>,
        tool_names: &[String],
        config: HostConfig,
    ) -> Result<HandlerHost, HostError> {
        let keys = HandlerKeys {
            tools: tool_names,
            resources: &[],
        };
        Self::load_with(name, source, shared_lists, libraries, &keys, config)
    }

    /// [`HandlerHost::load`] for a schema that also has resources: a factory key that names a
    /// resource holds one entry per query (`handlers → resource → query → postRequest`, chapter
    /// 13), called as [`resource_handler_key`]`(resource, query)`.
    pub fn load_with(
        name: &str,
        source: &str,
        shared_lists: &Json,
        libraries: Libraries<'_>,
        keys: &HandlerKeys<'_>,
        config: HostConfig,
    ) -> Result<HandlerHost, HostError> {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Self::load_inner(name, source, shared_lists, libraries, keys, config)
        }));
        match outcome {
            Ok(r) => r,
            Err(_) => Err(HostError::Engine(
                "the JavaScript engine failed internally".into(),
            )),
        }
    }

    fn load_inner(
        name: &str,
        source: &str,
        shared_lists: &Json,
        libraries: Libraries<'_>,
        keys: &HandlerKeys<'_>,
        config: HostConfig,
    ) -> Result<HandlerHost, HostError> {
        let mut unusable = Vec::new();
        for name in libraries.names {
            if let Some(why) = libraries.unusable(name) {
                if !config.library_stand_ins {
                    return Err(HostError::Library {
                        package: name.clone(),
                        message: why,
                    });
                }
                unusable.push((name.clone(), why));
            }
        }
        let with_libraries = !libraries.names.is_empty();
        let mut config = config;
        if with_libraries {
            config.memory_bytes = config.memory_bytes.max(config.library_memory_bytes);
        }
        let shared = Rc::new(Shared::new(&config));
        let watch = shared.clone();
        let (rt, ctx) = crate::engine::sandbox(
            config.memory_bytes,
            config.stack_bytes,
            Box::new(move || watch.past_deadline()),
            with_libraries,
        )
        .map_err(|e| HostError::Engine(e.to_string()))?;
        let modules = libraries.dir.filter(|_| with_libraries).map(|dir| {
            let state = ModuleState::new(dir.clone());
            rt.set_loader(LibResolver(state.clone()), LibLoader(state.clone()));
            state
        });
        let mut host = HandlerHost {
            tools: HashMap::new(),
            helpers: None,
            unknown: Vec::new(),
            notes: Vec::new(),
            load_logs: Vec::new(),
            shared,
            config,
            poisoned: false,
            modules: modules.clone(),
            ctx: ctx.clone(),
            rt,
        };
        let budget = host.config.factory_timeout
            + if with_libraries {
                host.config.library_timeout
            } else {
                Duration::ZERO
            };
        host.shared.begin(None, budget, None);
        let mut sink = LoadSink::default();
        let result = ctx.with(|ctx| {
            host.load_in(
                &ctx,
                name,
                source,
                shared_lists,
                LibraryPlan {
                    names: libraries.names,
                    unusable: &unusable,
                    modules: modules.as_ref(),
                },
                keys,
                &mut sink,
            )
        });
        host.shared.flush_logs(&mut sink, true);
        host.shared.end();
        host.load_logs = sink.logs;
        if let Err(mut e) = result {
            host.blame_full_heap(&mut e, "loading");
            return Err(e);
        }
        Ok(host)
    }

    #[allow(clippy::too_many_arguments)]
    fn load_in<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        source: &str,
        shared_lists: &Json,
        libraries: LibraryPlan<'_>,
        names: &HandlerKeys<'_>,
        sink: &mut dyn HostBridge,
    ) -> Result<(), HostError> {
        let shared = self.shared.clone();
        let engine = |e: CaughtError<'_>| -> HostError {
            classify(Failure::from_caught(e), &shared, Stage::Module)
        };
        // Captured, and the prelude run, before any untrusted code.
        let intrinsics = Intrinsics::capture(ctx).catch(ctx).map_err(engine)?;
        let helpers = install_prelude(ctx, &self.shared, self.config.timers)
            .catch(ctx)
            .map_err(engine)?;
        let js = helpers.restore(ctx).catch(ctx).map_err(engine)?;
        self.helpers = Some(helpers);
        let freeze_json = |v: &Json| -> rquickjs::Result<Value<'js>> {
            let text = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
            frozen_json(ctx, &intrinsics, &text)
        };
        let lists = freeze_json(shared_lists).catch(ctx).map_err(engine)?;
        let libs = Object::new(ctx.clone()).catch(ctx).map_err(engine)?;
        let fail = |f: Failure, stage: Stage| classify(f, &shared, stage);
        let LibraryPlan {
            names: lib_names,
            unusable,
            modules,
        } = libraries;
        if !lib_names.is_empty() {
            // Made before any library code runs.
            let stand_in: Function = ctx.eval(STAND_IN).catch(ctx).map_err(engine)?;
            if let Some(state) = modules {
                crate::modules::install(ctx, state)
                    .catch(ctx)
                    .map_err(engine)?;
            }
            let wall = Instant::now() + self.config.library_timeout + self.config.factory_timeout;
            for package in lib_names {
                let known = unusable.iter().find(|(n, _)| n == package);
                let loaded = match (known, modules) {
                    (Some((_, why)), _) => Err(why.clone()),
                    (None, Some(state)) => {
                        match load_library(ctx, &shared, &js, state, package, wall, sink) {
                            Ok(v) => Ok(v),
                            Err(HostError::Library { message, .. })
                                if self.config.library_stand_ins =>
                            {
                                Err(message)
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    (None, None) => Err(NO_DIRECTORY.into()),
                };
                let value = match loaded {
                    Ok(v) => v,
                    Err(why) => {
                        let message =
                            format!("SEC103 the library \"{package}\" cannot be used: {why}");
                        shared.push_log("warn", &message);
                        stand_in.call((message,)).catch(ctx).map_err(engine)?
                    }
                };
                libs.set(package.as_str(), value)
                    .catch(ctx)
                    .map_err(engine)?;
            }
        }
        let _: Value = intrinsics
            .freeze
            .call((libs.clone(),))
            .catch(ctx)
            .map_err(engine)?;

        let wall = Instant::now() + self.config.factory_timeout;
        let declared = Module::declare(ctx.clone(), name, source)
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Module))?;
        let (module, done) = declared
            .eval()
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Module))?;
        drive(ctx, &shared, &js, done.into_value(), wall, sink)
            .map_err(|f| fail(f, Stage::Module))?;
        let ns: Object = module
            .namespace()
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Module))?;
        if !ns
            .contains_key("handlers")
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Module))?
        {
            return Ok(());
        }
        let factory: Value = ns
            .get("handlers")
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Module))?;
        let Some(factory) = factory.as_function() else {
            return Err(HostError::FactoryShape(format!(
                "`handlers` is {}, not a function",
                describe_type(&factory)
            )));
        };
        let factory_fail = |e: CaughtError<'_>| fail(Failure::from_caught(e), Stage::Factory);
        let arg = factory_arg(ctx, &intrinsics, lists, libs.into_value())
            .catch(ctx)
            .map_err(factory_fail)?;
        let made: Value = factory.call((arg,)).catch(ctx).map_err(factory_fail)?;
        if shared.fetch_forbidden.get() {
            return Err(HostError::FetchForbidden);
        }
        let obj = match made.as_object() {
            Some(o) if !made.is_array() && !made.is_function() && !made.is_promise() => o.clone(),
            _ => {
                return Err(HostError::FactoryShape(format!(
                    "the handlers factory returned {}, not a plain object",
                    describe_type(&made)
                )));
            }
        };
        let keys: Vec<String> = obj
            .own_keys::<String>(Filter::default())
            .collect::<rquickjs::Result<Vec<_>>>()
            .catch(ctx)
            .map_err(factory_fail)?;
        for key in keys {
            let is_tool = names.tools.contains(&key);
            let queries = names
                .resources
                .iter()
                .find(|(r, _)| *r == key)
                .map(|(_, q)| q.as_slice());
            if !is_tool && queries.is_none() {
                self.unknown.push(key);
                continue;
            }
            let entry: Value = obj.get(key.as_str()).catch(ctx).map_err(factory_fail)?;
            let Some(entry_obj) = plain_entry(&entry) else {
                self.notes.push(format!(
                    "`{key}`: the entry is {}, not an object; ignored",
                    describe_type(&entry)
                ));
                continue;
            };
            let members: Vec<String> = entry_obj
                .own_keys::<String>(Filter::default())
                .collect::<rquickjs::Result<Vec<_>>>()
                .catch(ctx)
                .map_err(factory_fail)?;
            let queries = queries.unwrap_or(&[]);
            for member in &members {
                let hook = is_tool && Phase::ALL.iter().any(|p| p.as_str() == member);
                if !hook && !queries.contains(member) {
                    self.notes
                        .push(format!("`{key}`: unknown member `{member}` ignored"));
                }
            }
            if is_tool {
                let hooks = self
                    .read_hooks(ctx, &key, &entry_obj, &Phase::ALL)
                    .catch(ctx)
                    .map_err(factory_fail)?;
                self.tools.insert(
                    key.clone(),
                    ToolEntry {
                        this: Persistent::save(ctx, entry_obj.clone()),
                        hooks,
                    },
                );
            }
            for query in queries.iter().filter(|q| members.contains(q)) {
                let label = format!("{key}.{query}");
                let value: Value = entry_obj
                    .get(query.as_str())
                    .catch(ctx)
                    .map_err(factory_fail)?;
                let Some(query_obj) = plain_entry(&value) else {
                    self.notes.push(format!(
                        "`{label}`: the entry is {}, not an object; ignored",
                        describe_type(&value)
                    ));
                    continue;
                };
                let q_members: Vec<String> = query_obj
                    .own_keys::<String>(Filter::default())
                    .collect::<rquickjs::Result<Vec<_>>>()
                    .catch(ctx)
                    .map_err(factory_fail)?;
                for member in q_members.iter().filter(|m| *m != "postRequest") {
                    self.notes.push(format!(
                        "`{label}`: unknown member `{member}` ignored (a resource query has only `postRequest`)"
                    ));
                }
                let hooks = self
                    .read_hooks(ctx, &label, &query_obj, &[Phase::PostRequest])
                    .catch(ctx)
                    .map_err(factory_fail)?;
                self.tools.insert(
                    resource_handler_key(&key, query),
                    ToolEntry {
                        this: Persistent::save(ctx, query_obj),
                        hooks,
                    },
                );
            }
        }
        Ok(())
    }

    /// The `phases` hooks of one entry (`label` names it in notes); members that are not
    /// functions are noted and left out.
    fn read_hooks<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        label: &str,
        entry: &Object<'js>,
        phases: &[Phase],
    ) -> rquickjs::Result<[Option<Persistent<Function<'static>>>; 3]> {
        let mut hooks: [Option<Persistent<Function<'static>>>; 3] = [None, None, None];
        for phase in phases {
            let v: Value = entry.get(phase.as_str())?;
            if v.is_undefined() {
                continue;
            }
            match v.into_function() {
                Some(f) => hooks[phase.index()] = Some(Persistent::save(ctx, f)),
                None => self
                    .notes
                    .push(format!("`{label}.{phase}` is not a function; ignored")),
            }
        }
        Ok(hooks)
    }

    /// Factory keys that are neither tool nor resource names (ignored).
    pub fn unknown_keys(&self) -> &[String] {
        &self.unknown
    }

    /// Remarks about the factory result that did not stop loading: entries that are not objects,
    /// hooks that are not functions, unknown members of an entry.
    pub fn shape_notes(&self) -> &[String] {
        &self.notes
    }

    /// Console messages (level, text) from evaluating the module and calling the factory.
    pub fn take_load_logs(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.load_logs)
    }

    /// The tools the factory defined an entry for, sorted.
    pub fn tools(&self) -> Vec<&str> {
        let mut t: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        t.sort_unstable();
        t
    }

    /// Whether `tool` has a `phase` hook.
    pub fn has(&self, tool: &str, phase: Phase) -> bool {
        self.tools
            .get(tool)
            .is_some_and(|t| t.hooks[phase.index()].is_some())
    }

    /// How many library modules this sandbox compiled from source while loading; the others came
    /// from the library directory's bytecode cache (0 when the schema has no libraries).
    pub fn compiled_library_modules(&self) -> usize {
        self.modules.as_ref().map_or(0, |m| m.compiled())
    }

    /// Whether a limit was breached: every further call fails with [`HostError::Poisoned`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The configuration the host was loaded with.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// Calls `tool`'s `phase` hook with `arg` (a fresh, unfrozen copy of the JSON value), waits for
    /// its promise if it returns one, and returns the value as JSON (`JSON.stringify` semantics:
    /// `toJSON` is honoured, `undefined`/function members are dropped).
    ///
    /// The result must be a plain object (any keys: checking the shape the phase must return is the
    /// caller's job); `undefined`, `null`, arrays and primitives give [`HostError::BadReturn`].
    pub fn call(
        &mut self,
        tool: &str,
        phase: Phase,
        arg: &Json,
        bridge: &mut dyn HostBridge,
    ) -> Result<Json, HostError> {
        if self.poisoned {
            return Err(HostError::Poisoned);
        }
        let Some(entry) = self.tools.get(tool) else {
            return Err(HostError::NoHandler(format!(
                "no handler entry for tool `{tool}`"
            )));
        };
        let Some(hook) = entry.hooks[phase.index()].clone() else {
            return Err(HostError::NoHandler(format!(
                "tool `{tool}` has no `{phase}` handler"
            )));
        };
        let this = entry.this.clone();
        let arg_text = serde_json::to_string(arg).map_err(|e| HostError::Engine(e.to_string()))?;
        let ctx = self.ctx.clone();
        self.shared
            .begin(Some(phase), self.config.call_timeout, bridge.deadline());
        let wall = self.shared.cap(Instant::now() + self.config.call_timeout);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.with(|ctx| self.call_in(&ctx, hook, this, &arg_text, wall, bridge))
        }));
        self.shared.flush_logs(bridge, true);
        self.shared.end();
        let mut result = match outcome {
            Ok(r) => r,
            Err(_) => Err(HostError::Engine(
                "the JavaScript engine failed internally".into(),
            )),
        };
        self.check_memory(&mut result);
        if let Err(e) = &result
            && e.poisons()
        {
            self.poisoned = true;
        }
        result
    }

    /// Measures the heap after a call (see the module documentation): a failure while the heap is
    /// nearly full becomes [`HostError::Memory`], and a heap still more than half full after a
    /// garbage collection poisons the host.
    fn check_memory(&mut self, result: &mut Result<Json, HostError>) {
        let limit = self.config.memory_bytes as i64;
        if limit <= 0 || self.rt.memory_usage().malloc_size < limit / 2 {
            return;
        }
        if let Err(e) = result {
            self.blame_full_heap(e, "the handler");
        }
        self.rt.run_gc();
        if self.rt.memory_usage().malloc_size >= limit / 2 {
            self.poisoned = true;
        }
    }

    /// Reports `error` as [`HostError::Memory`] when it is not already a breached limit and the
    /// engine's heap is nearly full (90 % of [`HostConfig::memory_bytes`]): `who` failed because
    /// memory ran out, even when what it threw was something else (a caught and replaced
    /// out-of-memory error, or `null` when not even the error could be allocated).
    fn blame_full_heap(&self, error: &mut HostError, who: &str) {
        let limit = self.config.memory_bytes as i64;
        if limit > 0 && !error.poisons() && self.rt.memory_usage().malloc_size >= limit / 10 * 9 {
            *error = HostError::Memory(format!(
                "out of memory (the heap was full when {who} failed)"
            ));
        }
    }

    fn call_in<'js>(
        &self,
        ctx: &Ctx<'js>,
        hook: Persistent<Function<'static>>,
        this: Persistent<Object<'static>>,
        arg_text: &str,
        wall: Instant,
        bridge: &mut dyn HostBridge,
    ) -> Result<Json, HostError> {
        let shared = &self.shared;
        let fail = |f: Failure, stage: Stage| classify(f, shared, stage);
        let caught = |e: CaughtError<'_>| fail(Failure::from_caught(e), Stage::Call);
        let helpers = self
            .helpers
            .as_ref()
            .ok_or_else(|| HostError::Engine("the host was not initialised".into()))?;
        let js = helpers.restore(ctx).catch(ctx).map_err(caught)?;
        let hook = hook.restore(ctx).catch(ctx).map_err(caught)?;
        let this = this.restore(ctx).catch(ctx).map_err(caught)?;
        let arg = ctx.json_parse(arg_text).catch(ctx).map_err(caught)?;
        let returned: Value = hook.call((This(this), arg)).catch(ctx).map_err(caught)?;
        let value =
            drive(ctx, shared, &js, returned, wall, bridge).map_err(|f| fail(f, Stage::Call))?;
        if shared.fetch_forbidden.get() {
            return Err(HostError::FetchForbidden);
        }
        if !value.is_object() || value.is_array() || value.is_function() {
            return Err(HostError::BadReturn(format!(
                "returned {}, not an object",
                describe_type(&value)
            )));
        }
        let text = ctx
            .json_stringify(value)
            .catch(ctx)
            .map_err(|e| fail(Failure::from_caught(e), Stage::Serialize))?;
        let text = match text {
            Some(s) => s
                .to_string()
                .map_err(|e| HostError::NotSerializable(e.to_string()))?,
            None => {
                return Err(HostError::BadReturn(
                    "returned a value JSON.stringify turns into undefined".into(),
                ));
            }
        };
        if shared.past_deadline() {
            return Err(shared.timeout_error());
        }
        serde_json::from_str(&text).map_err(|e| HostError::NotSerializable(e.to_string()))
    }
}

/// `undefined`, `null`, `an array`, `a string`, `a Promise` … for messages.
fn describe_type(v: &Value<'_>) -> String {
    if v.is_undefined() {
        "undefined".into()
    } else if v.is_null() {
        "null".into()
    } else if v.is_array() {
        "an array".into()
    } else if v.is_promise() {
        "a Promise".into()
    } else if v.is_function() {
        "a function".into()
    } else if v.is_object() {
        "an object".into()
    } else {
        match v.type_of() {
            rquickjs::Type::Int | rquickjs::Type::Float => "a number".into(),
            rquickjs::Type::Bool => "a boolean".into(),
            rquickjs::Type::String => "a string".into(),
            rquickjs::Type::Symbol => "a symbol".into(),
            rquickjs::Type::BigInt => "a bigint".into(),
            _ => format!("a {}", v.type_name()),
        }
    }
}

/// Evaluates one library in the sandbox and returns what the factory receives for it: the
/// module's default export when truthy, else its namespace. A limit breached while loading stays
/// that breach; any other failure is [`HostError::Library`] naming the package.
fn load_library<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    js: &HelpersJs<'js>,
    state: &Rc<ModuleState>,
    package: &str,
    wall: Instant,
    sink: &mut dyn HostBridge,
) -> Result<Value<'js>, HostError> {
    let fail = |f: Failure| {
        let e = classify(f, shared, Stage::Module);
        if e.poisons() {
            return e;
        }
        let message = match (state.take_failure(), e) {
            (Some(why), _) => why.to_string(),
            (None, HostError::ModuleThrew(m)) => format!("it threw while loading: {m}"),
            (None, other) => other.to_string(),
        };
        HostError::Library {
            package: package.to_string(),
            message,
        }
    };
    let quoted = serde_json::to_string(package).unwrap_or_default();
    let entry = format!("{ENTRY_MODULE}:{package}");
    // The reference's `mod.default || mod`, in JavaScript's own notion of truthy.
    let source = format!("import * as ns from {quoted};\nexport default ns.default || ns;\n");
    let declared = Module::declare(ctx.clone(), entry, source)
        .catch(ctx)
        .map_err(|e| fail(Failure::from_caught(e)))?;
    let (module, done) = declared
        .eval()
        .catch(ctx)
        .map_err(|e| fail(Failure::from_caught(e)))?;
    drive(ctx, shared, js, done.into_value(), wall, sink).map_err(fail)?;
    module
        .get("default")
        .catch(ctx)
        .map_err(|e| fail(Failure::from_caught(e)))
}

/// Turns a failure into the error kind the stage calls for.
fn classify(f: Failure, shared: &Shared, stage: Stage) -> HostError {
    if shared.fired.get() {
        return shared.timeout_error();
    }
    let (name, message) = match f {
        Failure::Host(HostError::Memory(m)) => return HostError::Memory(m),
        Failure::Host(e) => {
            if shared.fetch_forbidden.get() {
                return HostError::FetchForbidden;
            }
            return e;
        }
        Failure::Thrown { name, message } => (name, message),
    };
    let lower = message.to_ascii_lowercase();
    let engine_error = matches!(name.as_deref(), Some("InternalError" | "RangeError") | None);
    if engine_error && is_exhaustion_message(&lower) {
        return HostError::Memory(message);
    }
    if shared.fetch_forbidden.get() {
        return HostError::FetchForbidden;
    }
    if name.as_deref() == Some("TypeError") && is_frozen_mutation_message(&message) {
        return HostError::SharedListMutation(message);
    }
    match stage {
        Stage::Module => HostError::ModuleThrew(message),
        Stage::Factory => HostError::FactoryThrew(message),
        Stage::Call => HostError::Threw(message),
        Stage::Serialize => HostError::NotSerializable(message),
    }
}

/// Runs the job queue, pending `fetch` requests and timers until `value` (a promise or thenable;
/// anything else is returned at once) settles.
fn drive<'js>(
    ctx: &Ctx<'js>,
    shared: &Shared,
    js: &HelpersJs<'js>,
    value: Value<'js>,
    mut wall: Instant,
    bridge: &mut dyn HostBridge,
) -> Result<Value<'js>, Failure> {
    let caught = |e: CaughtError<'js>| Failure::from_caught(e);
    let promise: Promise<'js> = if let Some(p) = value.as_promise() {
        p.clone()
    } else {
        let thenable = value
            .as_object()
            .and_then(|o| o.get::<_, Value>("then").ok())
            .is_some_and(|t| t.is_function());
        if !thenable {
            return Ok(value);
        }
        let p: Value = js.resolve.call((value,)).catch(ctx).map_err(caught)?;
        match p.into_promise() {
            Some(p) => p,
            None => {
                return Err(Failure::Host(HostError::Engine(
                    "Promise.resolve returned something else".into(),
                )));
            }
        }
    };
    loop {
        while ctx.execute_pending_job() {
            if shared.fired.get() {
                return Err(Failure::Host(shared.timeout_error()));
            }
        }
        if shared.past_deadline() {
            return Err(Failure::Host(shared.timeout_error()));
        }
        shared.flush_logs(bridge, false);
        match promise.state() {
            PromiseState::Resolved => {
                return promise
                    .result::<Value>()
                    .unwrap_or_else(|| Err(rquickjs::Error::Unknown))
                    .catch(ctx)
                    .map_err(caught);
            }
            PromiseState::Rejected => {
                let _ = promise.result::<Value>();
                let reason = ctx.catch();
                return Err(Failure::from_value(&reason));
            }
            PromiseState::Pending => {}
        }
        let next_fetch = shared.fetches.borrow_mut().pop_front();
        if let Some(pf) = next_fetch {
            let started = Instant::now();
            let answer = bridge.fetch(pf.req.clone());
            let blocked = started.elapsed();
            shared.extend_deadline(blocked);
            wall = shared.cap(wall + blocked);
            if shared.past_deadline() {
                return Err(Failure::Host(shared.timeout_error()));
            }
            let resolve = pf.resolve.restore(ctx).catch(ctx).map_err(caught)?;
            let reject = pf.reject.restore(ctx).catch(ctx).map_err(caught)?;
            let settled: rquickjs::Result<Value> = match answer {
                Ok(resp) => (|| {
                    let headers = Array::new(ctx.clone())?;
                    for (i, (k, v)) in resp.headers.iter().enumerate() {
                        let pair = Array::new(ctx.clone())?;
                        pair.set(0, k.as_str())?;
                        pair.set(1, v.as_str())?;
                        headers.set(i, pair)?;
                    }
                    let body = String::from_utf8_lossy(&resp.body).into_owned();
                    let response: Value = js.make_response.call((
                        resp.status,
                        resp.status_text.as_str(),
                        headers,
                        body,
                        pf.req.url.as_str(),
                    ))?;
                    resolve.call((response,))
                })(),
                Err(e) => (|| {
                    let err: Value = js.make_error.call(("TypeError", e.into_message()))?;
                    reject.call((err,))
                })(),
            };
            settled.catch(ctx).map_err(caught)?;
            continue;
        }
        let next_timer = {
            let mut timers = shared.timers.borrow_mut();
            let earliest = timers
                .iter()
                .enumerate()
                .min_by_key(|(_, t)| (t.due, t.seq))
                .map(|(i, _)| i);
            earliest.map(|i| timers.swap_remove(i))
        };
        if let Some(timer) = next_timer {
            let now = Instant::now();
            let until = timer.due.min(wall);
            if until > now {
                std::thread::sleep(until - now);
                shared.extend_deadline(until - now);
            }
            let callback = timer.callback.restore(ctx).catch(ctx).map_err(caught)?;
            let args = timer.args.restore(ctx).catch(ctx).map_err(caught)?;
            let ran: rquickjs::Result<Value> =
                js.apply
                    .call((callback, Value::new_undefined(ctx.clone()), args));
            if let Err(e) = ran.catch(ctx) {
                match Failure::from_caught(e) {
                    Failure::Host(h) => return Err(Failure::Host(h)),
                    Failure::Thrown { name, message } => {
                        if shared.fired.get() {
                            return Err(Failure::Host(shared.timeout_error()));
                        }
                        // Exhaustion ends the call as in a hook; other exceptions are logged.
                        if is_exhaustion_message(&message.to_ascii_lowercase()) {
                            return Err(Failure::Thrown { name, message });
                        }
                        shared.push_log(
                            "error",
                            &format!("uncaught exception in a timer callback: {message}"),
                        );
                    }
                }
            }
            continue;
        }
        return Err(Failure::Host(HostError::NeverSettles));
    }
}

/// `URL` and `URLSearchParams`, which handlers written for Node use to build requests. A small
/// subset of the WHATWG API: absolute `http(s)` and similar URLs (a relative one needs a base),
/// the parts as properties, `searchParams` kept in step with `search`, form encoding as
/// `URLSearchParams` does it (space as `+`). Installed before any untrusted code runs.
///
/// The source is `js/url.js`, included at build time.
const WEB_GLOBALS: &str = include_str!("js/url.js");

/// Installs `console`, `fetch` and (with `timers`) the timer globals, and returns the host's own
/// helpers. Runs before any untrusted code, so what it captures is the original built-ins.
///
/// The source is `js/prelude.js`, included at build time: it evaluates to a function that
/// [`install_prelude`] calls with the host's callbacks and that returns
/// `[makeResponse, makeError, apply, resolve]`.
const PRELUDE: &str = include_str!("js/prelude.js");

fn install_prelude<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<Shared>,
    timers: bool,
) -> rquickjs::Result<Helpers> {
    let s = shared.clone();
    let host_fetch = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>,
              url: String,
              method: String,
              headers: Vec<Vec<String>>,
              body: Option<String>|
              -> rquickjs::Result<Promise<'js>> {
            if !(s.allow_fetch && s.phase.get() == Some(Phase::ExecuteRequest)) {
                s.fetch_forbidden.set(true);
                return Err(Exception::throw_type(
                    &ctx,
                    "SEC100: fetch is not available here (no network inside handlers)",
                ));
            }
            let n = s.fetch_count.get() + 1;
            s.fetch_count.set(n);
            if n > s.max_fetches {
                return Err(Exception::throw_type(
                    &ctx,
                    &format!(
                        "fetch: more than {} requests in one call are not allowed",
                        s.max_fetches
                    ),
                ));
            }
            if s.fetches.borrow().len() >= MAX_PENDING_FETCHES {
                return Err(Exception::throw_type(
                    &ctx,
                    "fetch: too many requests pending at once",
                ));
            }
            let headers = headers
                .into_iter()
                .map(|mut p| {
                    let v = if p.len() > 1 {
                        p.swap_remove(1)
                    } else {
                        String::new()
                    };
                    let k = p.into_iter().next().unwrap_or_default();
                    (k, v)
                })
                .collect();
            let (promise, resolve, reject) = ctx.promise()?;
            s.fetches.borrow_mut().push_back(PendingFetch {
                req: FetchRequest {
                    url,
                    method,
                    headers,
                    body,
                },
                resolve: Persistent::save(&ctx, resolve),
                reject: Persistent::save(&ctx, reject),
            });
            Ok(promise)
        },
    )?;
    let s = shared.clone();
    let host_log = Function::new(ctx.clone(), move |level: String, text: String| {
        s.push_log(&level, &text);
    })?;
    let s = shared.clone();
    let host_set_timeout = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>,
              callback: Function<'js>,
              ms: f64,
              args: Array<'js>|
              -> rquickjs::Result<i32> {
            if s.timers.borrow().len() >= MAX_PENDING_TIMERS {
                return Err(Exception::throw_range(
                    &ctx,
                    "setTimeout: too many timers pending",
                ));
            }
            let ms = if ms.is_finite() && ms > 0.0 { ms } else { 0.0 };
            let delay = Duration::from_secs_f64(ms / 1000.0).min(s.max_timer_delay);
            let seq = s.timer_seq.get() + 1;
            s.timer_seq.set(seq);
            let id = (seq % (i32::MAX as u64)) as i32;
            s.timers.borrow_mut().push(Timer {
                id,
                seq,
                due: Instant::now() + delay,
                callback: Persistent::save(&ctx, callback),
                args: Persistent::save(&ctx, args),
            });
            Ok(id)
        },
    )?;
    let s = shared.clone();
    let host_clear_timeout = Function::new(ctx.clone(), move |id: f64| {
        s.timers.borrow_mut().retain(|t| f64::from(t.id) != id);
    })?;
    ctx.eval::<(), _>(WEB_GLOBALS)?;
    let make: Function = ctx.eval(PRELUDE)?;
    let made: Array = make.call((
        host_fetch,
        host_log,
        host_set_timeout,
        host_clear_timeout,
        timers,
    ))?;
    let get = |i: usize| -> rquickjs::Result<Persistent<Function<'static>>> {
        let f: Function = made.get(i)?;
        Ok(Persistent::save(ctx, f))
    };
    Ok(Helpers {
        make_response: get(0)?,
        make_error: get(1)?,
        apply: get(2)?,
        resolve: get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_names() {
        let names: Vec<&str> = Phase::ALL.iter().map(|p| p.as_str()).collect();
        assert_eq!(names, ["preRequest", "executeRequest", "postRequest"]);
        assert_eq!(Phase::PostRequest.to_string(), "postRequest");
    }

    #[test]
    fn frozen_mutation_messages() {
        // The messages QuickJS-NG produces (checked in tests/host.rs end to end).
        assert!(is_frozen_mutation_message("'a' is read-only"));
        assert!(is_frozen_mutation_message("object is not extensible"));
        assert!(is_frozen_mutation_message("could not delete property"));
        assert!(!is_frozen_mutation_message("x is not a function"));
        assert!(!is_frozen_mutation_message(
            "cannot read property 'a' of undefined"
        ));
    }

    #[test]
    fn error_codes_and_poisoning() {
        assert_eq!(HostError::FetchForbidden.sec_code(), Some("SEC100"));
        assert_eq!(
            HostError::BadReturn(String::new()).sec_code(),
            Some("SEC101")
        );
        assert_eq!(
            HostError::SharedListMutation(String::new()).sec_code(),
            Some("SEC102")
        );
        assert_eq!(
            HostError::FactoryThrew(String::new()).sec_code(),
            Some("SEC104")
        );
        assert!(HostError::Timeout.poisons());
        assert!(HostError::Memory(String::new()).poisons());
        assert!(!HostError::Threw(String::new()).poisons());
    }
}
