//! Calling a tool: input validation, request building, handlers, HTTP, cache and the envelope.
//!
//! The steps of one call ([`Runner::call_json`], [`Runner::call_strings`]):
//!
//! 1. find the tool (wire name or Primitive-ID); a tool with a missing server parameter is not
//!    called (E006 naming the variables);
//! 2. validate the inputs (E007, before anything else happens);
//! 3. build the request struct: server parameters are this call's slot tokens (see
//!    [`crate::request`]);
//! 4. `preRequest({ struct, payload })` → `{ struct, payload }`. `url`, `headers` and
//!    `body` of the returned struct replace the request's; `method` cannot be changed;
//! 5. the raw response: from the preload cache when the tool has `preload.enabled` and an entry
//!    this tool's definition wrote is fresh (within the tool's own ttl too), else from `executeRequest({ struct, payload })` → `{ response }` when the tool has
//!    one, else from the HTTP request (secrets filled in only now, and only if the URL keeps the
//!    schema's origin: E009 otherwise). Non-2xx is E001; the body is decoded by MIME type (E004
//!    when it cannot be). A fresh raw response is stored in the cache (raw: before
//!    `postRequest`, so that handlers run on every hit);
//! 6. `postRequest({ response, struct, payload })` → `{ response }`;
//! 7. the data is checked against `output.schema`; mismatches become `warnings`.
//!
//! The whole call — handlers, `fetch`es, timers and the HTTP request together — runs against one
//! wall-clock deadline, [`RunnerOptions::timeout`] (E003 when it passes).
//!
//! Secrets: every message, warning and log line is passed through
//! [`ServerParams::redact`]; the response data is redacted too (an upstream that echoes a key
//! back cannot leak it into the envelope or the cache), and JavaScript only ever sees slot
//! tokens. Under compat, `fetch` in `executeRequest` gets secrets filled in only for requests to
//! the schema's origin; a request to another origin that carries a token is refused (E009), and
//! one without reaches only public addresses (or the `--upstream` of the schema's own namespace).
//!
//! Threading: a [`Runner`] owns the JavaScript hosts of the schemas whose handlers it has called,
//! so it is not `Send`; servers keep one runner per worker thread over a shared [`Toolset`].
//! A host is built on its schema's first handler call and rebuilt after any limit breach.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use flowmcp_loader::libs::LibraryDir;
use flowmcp_loader::{
    HandlerHost, HostConfig, HostError, Libraries, host::FetchError, host::FetchRequest,
    host::FetchResponse, host::HandlerKeys, host::HostBridge, host::Phase,
    host::resource_handler_key,
};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::auth::AuthInputs;
use crate::cache::{CacheKey, Lookup, PreloadCache, Stored};
use crate::descriptor::{Builtin, Kind};
use crate::encoding::Encoding;
use crate::envelope::{Coded, Envelope, Failure};
use crate::input::{Inputs, validate_json, validate_strings};
use crate::output::check_output;
use crate::request::{PreparedRequest, SecretSlots, finalize_with};
use crate::resource::{
    Access, OpenResources, ResourceOptions, TransportFetcher, bound_values, markdown_error,
    sql_error,
};
use crate::schema::LoadedSchema;
use crate::secret::{ServerParams, missing_params_message};
use crate::toolset::{ToolEntry, Toolset};
use crate::transport::{
    HeaderValue, HttpRequest, HttpResponse, Method, Observer, REQUEST_ID_HEADER, Transport,
    TransportError, decode_body, is_base64_mime,
};
use flowmcp_resources::sqlite::{Cut, MAX_ROWS, QueryLimits};
use flowmcp_spec::Code;

mod authed;

/// What to do with the preload cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// Serve fresh entries, store misses.
    #[default]
    Use,
    /// Neither read nor write (`--no-cache`).
    Off,
    /// Always fetch, then store (`--refresh`).
    Refresh,
}

/// Settings of a [`Runner`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunnerOptions {
    /// The base URL replacing a namespace's `root`, each checked by [`RunnerOptions::add_upstream`]
    /// (the only way in).
    upstreams: BTreeMap<String, String>,
    /// The preload cache, if any: a directory, or Redis shared by several processes.
    pub cache: Option<PreloadCache>,
    pub cache_mode: CacheMode,
    /// JavaScript limits per handler call: memory, stack and CPU time.
    pub memory_bytes: usize,
    pub stack_bytes: usize,
    pub call_timeout: Duration,
    /// Wall-clock limit of a whole call: handlers, `fetch`es, timers and the HTTP request
    /// together (E003). The transport's own per-request limit still applies within it.
    pub timeout: Duration,
    /// Most `fetch` requests one `executeRequest` call may make (compat).
    pub max_fetches: usize,
    /// Attempts of a tool's own read-only request (GET, HEAD) that got 429, 502, 503, 504 or a
    /// network failure, the first included: `1` sends it once; more than 10 count as 10 (D136).
    /// Other methods are always sent once.
    pub max_attempts: u32,
    /// Each namespace's rate and concurrency limits on the tools' own requests, waited for
    /// before each request until the call's deadline (E003 after), counted together by every
    /// runner given a clone (D137).
    pub limits: crate::UpstreamLimits,
    /// Where resources live and the limits of a call into one.
    pub resources: ResourceOptions,
    /// Where the npm packages of `requiredLibraries` are installed (`--libs`); `None` fails
    /// the handlers of a schema that needs any (SEC103).
    pub libraries: Option<LibraryDir>,
    /// Told about upstream answers, preload cache lookups and sandbox rebuilds, and asked for
    /// the id of the request a call serves (a server's metrics and logs); `None` tells no one.
    pub observer: Option<Arc<dyn Observer>>,
    /// The time `main.auth` signs requests with and judges tokens by; `None` is the system clock.
    pub clock: Option<Arc<dyn crate::auth::Clock>>,
}

impl RunnerOptions {
    /// The base URLs replacing namespaces' `root`, by namespace.
    pub fn upstreams(&self) -> &BTreeMap<String, String> {
        &self.upstreams
    }

    /// Sends `namespace`'s requests to `base_url` instead of its schemas' `root`, once
    /// [`check_upstream`](crate::transport::check_upstream) accepts the URL (absolute `https://`,
    /// or plain `http://` to a loopback host, without user info, query or fragment). Returns
    /// whether it is plain HTTP to loopback: the transport must then allow that
    /// ([`TransportConfig::allow_http_loopback`](crate::transport::TransportConfig::allow_http_loopback)).
    pub fn add_upstream(
        &mut self,
        namespace: &str,
        base_url: &str,
    ) -> Result<bool, crate::transport::UpstreamError> {
        let loopback_http = crate::transport::check_upstream(base_url)?;
        self.upstreams
            .insert(namespace.to_string(), base_url.to_string());
        Ok(loopback_http)
    }
}

impl Default for RunnerOptions {
    fn default() -> Self {
        let host = HostConfig::default();
        RunnerOptions {
            upstreams: BTreeMap::new(),
            cache: None,
            cache_mode: CacheMode::Use,
            memory_bytes: host.memory_bytes,
            stack_bytes: host.stack_bytes,
            call_timeout: host.call_timeout,
            timeout: Duration::from_secs(30),
            max_fetches: host.max_fetches,
            max_attempts: crate::upstream::DEFAULT_MAX_ATTEMPTS,
            limits: crate::UpstreamLimits::default(),
            resources: ResourceOptions::default(),
            libraries: None,
            observer: None,
            clock: None,
        }
    }
}

/// Where log lines (handler `console.*`, cache messages) go.
pub type LogSink = Box<dyn FnMut(&str)>;

/// A host slot: built lazily; `Err` keeps a factory failure so it is not retried on every call.
type HostSlot = Result<HandlerHost, HostError>;

/// Calls tools of one [`Toolset`].
pub struct Runner<'t> {
    set: &'t Toolset,
    transport: &'t dyn Transport,
    opts: RunnerOptions,
    hosts: RefCell<HashMap<usize, HostSlot>>,
    /// The resources this runner has opened (databases, documents).
    resources: OpenResources,
    log: RefCell<LogSink>,
    /// The server parameters of the calls made now, when they are not the toolset's
    /// ([`Runner::with_server_params`]).
    call_params: RefCell<Option<Arc<ServerParams>>>,
}

/// The server parameters a call uses: the toolset's, or those given for the call.
enum CallParams<'t> {
    Set(&'t ServerParams),
    Call(Arc<ServerParams>),
}

impl std::ops::Deref for CallParams<'_> {
    type Target = ServerParams;
    fn deref(&self) -> &ServerParams {
        match self {
            CallParams::Set(p) => p,
            CallParams::Call(p) => p,
        }
    }
}

/// Puts back the parameters a runner had before [`Runner::with_server_params`], also when the
/// call panics.
struct Restore<'r>(
    &'r RefCell<Option<Arc<ServerParams>>>,
    Option<Arc<ServerParams>>,
);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        *self.0.borrow_mut() = self.1.take();
    }
}

/// A failed step: the code and the message after `<code> <tool>: `.
struct Fail(Code, String);

impl From<Fail> for Coded {
    fn from(Fail(code, message): Fail) -> Coded {
        Coded(code, message)
    }
}

impl<'t> Runner<'t> {
    /// A runner that logs to standard error.
    pub fn new(set: &'t Toolset, transport: &'t dyn Transport, opts: RunnerOptions) -> Self {
        Runner::with_log(
            set,
            transport,
            opts,
            Box::new(|line: &str| eprintln!("{line}")),
        )
    }

    /// A runner with its own log sink.
    pub fn with_log(
        set: &'t Toolset,
        transport: &'t dyn Transport,
        opts: RunnerOptions,
        log: LogSink,
    ) -> Self {
        Runner {
            set,
            transport,
            opts,
            hosts: RefCell::new(HashMap::new()),
            resources: OpenResources::default(),
            log: RefCell::new(log),
            call_params: RefCell::new(None),
        }
    }

    /// Runs `f` with `params` as the server parameters of every call it makes on this runner,
    /// instead of the toolset's: the values requests are filled and signed with, the preload
    /// cache entry is bound to, OAuth tokens are kept under, and redaction hides. A tool whose
    /// `requiredServerParams` have no value in `params` fails with E006, whether or not the
    /// toolset has them. Build `params` with [`ServerParams::overlaid`] over the toolset's to
    /// keep its values (D142).
    pub fn with_server_params<R>(&self, params: Arc<ServerParams>, f: impl FnOnce() -> R) -> R {
        let before = self.call_params.borrow_mut().replace(params);
        let _restore = Restore(&self.call_params, before);
        f()
    }

    /// The server parameters of the call made now.
    fn params(&self) -> CallParams<'t> {
        match &*self.call_params.borrow() {
            Some(p) => CallParams::Call(Arc::clone(p)),
            None => CallParams::Set(self.set.server_params()),
        }
    }

    /// The toolset.
    pub fn toolset(&self) -> &'t Toolset {
        self.set
    }

    fn log_line(&self, line: &str) {
        let text = self.params().redact(line);
        if let Ok(mut log) = self.log.try_borrow_mut() {
            (log)(&text);
        }
    }

    /// Calls `name` with JSON inputs (strict types).
    ///
    /// Under `compat`, input keys the tool does not declare are dropped with a warning (the
    /// reference strips them); under `spec` they are E007.
    pub fn call_json(&self, name: &str, inputs: &Map<String, Value>) -> Envelope {
        match self.set.find(name) {
            Some(entry) => self.call_entry_json(entry, inputs),
            None => self.unknown(name),
        }
    }

    /// [`Runner::call_json`] of an entry of this runner's toolset, already found (a server that
    /// resolved the name once, when it chose what to serve).
    pub fn call_entry_json(&self, entry: &ToolEntry, inputs: &Map<String, Value>) -> Envelope {
        let compat = self.set.profile().is_compat();
        self.call_found(entry, |entry, warnings| {
            if compat && inputs.keys().any(|k| entry.descriptor.param(k).is_none()) {
                let mut kept = Map::new();
                for (k, v) in inputs {
                    let alias_of = || {
                        let d = &entry.descriptor;
                        d.params
                            .iter()
                            .find(|p| p.alias.as_deref() == Some(k.as_str()))
                    };
                    if entry.descriptor.param(k).is_some() {
                        kept.insert(k.clone(), v.clone());
                    } else if let Some(param) = alias_of() {
                        // Given by the placeholder's name: `CITY` for `value: '{{CITY}}'`.
                        if !inputs.contains_key(&param.key) {
                            kept.insert(param.key.clone(), v.clone());
                        }
                    } else {
                        warnings.push(format!(
                            "input \"{k}\" is not a parameter of the tool; ignored"
                        ));
                    }
                }
                return validate_json(&entry.descriptor, &kept)
                    .map_err(|e| Fail(Code::E007, e.to_string()));
            }
            validate_json(&entry.descriptor, inputs).map_err(|e| Fail(Code::E007, e.to_string()))
        })
    }

    /// Calls `name` with text inputs (`--arg k=v`), converted to each parameter's type. A key
    /// given twice keeps its last value.
    pub fn call_strings<K, V>(
        &self,
        name: &str,
        inputs: impl IntoIterator<Item = (K, V)>,
    ) -> Envelope
    where
        K: Into<String>,
        V: Into<String>,
    {
        let inputs: IndexMap<String, String> = inputs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let Some(entry) = self.set.find(name) else {
            return self.unknown(name);
        };
        self.call_found(entry, |entry, _| {
            validate_strings(&entry.descriptor, &inputs)
                .map_err(|e| Fail(Code::E007, e.to_string()))
        })
    }

    /// E007 for a name that finds nothing.
    fn unknown(&self, name: &str) -> Envelope {
        self.fail(name, Coded(Code::E007, self.set.explain_unknown(name)))
    }

    fn call_found(
        &self,
        entry: &ToolEntry,
        validate: impl FnOnce(&ToolEntry, &mut Vec<String>) -> Result<Inputs, Fail>,
    ) -> Envelope {
        let tool = &entry.descriptor.tool;
        let mut warnings = entry.descriptor.warnings.clone();
        let deadline = Instant::now() + self.opts.timeout;
        let result = match entry.descriptor.kind {
            Kind::Tool => self
                .run(entry, validate, &mut warnings, deadline)
                .map_err(Coded::from),
            _ => self.run_resource(entry, validate, &mut warnings, deadline),
        };
        match result {
            Ok(data) => {
                let warnings = warnings.into_iter().map(|w| self.params().redact(&w));
                Envelope::ok(data).with_warnings(warnings)
            }
            Err(f) => self.fail(tool, f),
        }
    }

    fn fail(&self, tool: &str, Coded(code, msg): Coded) -> Envelope {
        Envelope::failed(Failure::new(code, tool, self.params().redact(&msg)))
    }

    /// E003 once the call's deadline has passed.
    fn check_deadline(&self, deadline: Instant) -> Result<(), Fail> {
        if Instant::now() >= deadline {
            return Err(self.deadline_fail());
        }
        Ok(())
    }

    fn deadline_fail(&self) -> Fail {
        Fail(
            Code::E003,
            format!(
                "the call did not finish within {} ms",
                self.opts.timeout.as_millis()
            ),
        )
    }

    fn run(
        &self,
        entry: &ToolEntry,
        validate: impl FnOnce(&ToolEntry, &mut Vec<String>) -> Result<Inputs, Fail>,
        warnings: &mut Vec<String>,
        deadline: Instant,
    ) -> Result<Value, Fail> {
        let d = &entry.descriptor;
        let missing = match &*self.call_params.borrow() {
            Some(p) => Cow::Owned(p.missing(d.required_server_params.iter().map(String::as_str))),
            None => Cow::Borrowed(&d.missing_server_params),
        };
        if !missing.is_empty() {
            return Err(Fail(Code::E006, missing_params_message(&missing)));
        }
        let inputs = validate(entry, warnings)?;
        let schema = self.set.schema_of(entry);
        let main = &schema.main;
        let plan = d
            .request
            .as_ref()
            .ok_or_else(|| Fail(Code::E007, "tool does not exist".into()))?;
        let root_override = self.opts.upstreams.get(&main.namespace).map(String::as_str);
        let mut prepared = plan
            .build(&inputs, &self.params(), root_override)
            .map_err(|e| Fail(e.code(), e.to_string()))?;
        warnings.extend(prepared.warnings().iter().cloned());
        let mut payload =
            Value::Object(inputs.iter().map(|(k, v)| (k.clone(), v.clone())).collect());

        let phases = self.phases(entry, schema)?;
        // Handler results have exactly the ruled shape under `spec` (SEC101).
        let strict = !self.set.profile().is_compat();

        if phases.pre {
            let arg = object([
                ("struct", prepared.to_struct_json()),
                ("payload", payload.clone()),
            ]);
            let out =
                self.call_handler(entry, Phase::PreRequest, &arg, Some(&prepared), deadline)?;
            let obj = shape(&out, Phase::PreRequest, strict)?;
            if let Some(s) = obj.get("struct") {
                prepared.apply_struct(s).map_err(|what| {
                    Fail(
                        Code::E005,
                        format!("preRequest SEC101 returned a struct whose {what}"),
                    )
                })?;
            }
            if let Some(p) = obj.get("payload").filter(|p| p.is_object()) {
                payload = p.clone();
            }
        }

        // The struct handlers see after `preRequest`, only when a later handler reads it.
        let struct_json = (phases.exec || phases.post).then(|| prepared.to_struct_json());
        // The cache is consulted only for preloaded tools, and not at all with `--no-cache`.
        let cached = match (&self.opts.cache, plan.preload_ttl()) {
            (Some(cache), Some(ttl)) if self.opts.cache_mode != CacheMode::Off => {
                let root = root_override
                    .map(str::to_string)
                    .or_else(|| main.root.clone())
                    .unwrap_or_default();
                let params = inputs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                // Bound to this definition: another catalog's schema with the same namespace,
                // tool and root cannot have written it.
                let key = CacheKey::new(main.namespace.clone(), d.tool.as_str(), root, params)
                    .with_definition(schema.cache_definition(&d.tool).unwrap_or_default());
                // And to the server-parameter values the request is sent with: another API key
                // (another account) never reads this one's entry.
                let params = self.params();
                let values: Map<String, Value> = d
                    .required_server_params
                    .iter()
                    .filter_map(|name| {
                        let value = params.get(name)?.expose();
                        Some((name.clone(), Value::String(value.to_string())))
                    })
                    .collect();
                // One client's values (D142) get entries of their own: clients do not
                // replace each other's.
                let bound = if self.call_params.borrow().is_some() {
                    cache.bind_apart(key, &Value::Object(values))
                } else {
                    cache.bind(key, &Value::Object(values))
                };
                match bound {
                    Ok(key) => Some((cache, key, ttl)),
                    Err(why) => {
                        self.log_line(&format!("the preload cache is not used: {why}"));
                        None
                    }
                }
            }
            _ => None,
        };
        let mut raw: Option<Value> = None;
        let mut fill = None;
        if let Some((cache, key, ttl)) = &cached {
            if self.opts.cache_mode == CacheMode::Refresh {
                self.log_line(&crate::cache::refreshing_message());
            } else {
                let found = cache.lookup(key, *ttl, SystemTime::now(), deadline);
                if let Some(warning) = &found.warning {
                    self.log_line(warning);
                }
                // Held until the store below (or the failure that skips it): other replicas
                // wait for this fetch instead of making their own.
                fill = found.fill;
                match found.lookup {
                    Lookup::Hit {
                        data,
                        fetched_at,
                        expires_at,
                    } => {
                        self.log_line(&crate::cache::hit_message(
                            &fetched_at,
                            &expires_at,
                            plan.preload_note(),
                        ));
                        raw = Some(data);
                    }
                    Lookup::Expired => self.log_line(&crate::cache::expired_message()),
                    Lookup::Miss => self.log_line(&crate::cache::fetching_message()),
                }
                if let Some(o) = &self.opts.observer {
                    o.preload_cache(raw.is_some());
                }
            }
        }
        let from_cache = raw.is_some();
        // Waiting for another process's fetch may have used the call's time up.
        if !from_cache && cached.is_some() {
            self.check_deadline(deadline)?;
        }
        let mut raw = match raw {
            Some(v) => v,
            None if phases.exec => {
                let st = struct_json.clone().unwrap_or(Value::Null);
                let arg = if self.set.profile().is_compat() {
                    let tokens = d
                        .required_server_params
                        .iter()
                        .map(|k| (k.clone(), Value::String(prepared.token(k))))
                        .collect();
                    reference_execute_arg(st, &payload, &inputs, tokens)
                } else {
                    object([("struct", st), ("payload", payload.clone())])
                };
                let out = self.call_handler(
                    entry,
                    Phase::ExecuteRequest,
                    &arg,
                    Some(&prepared),
                    deadline,
                )?;
                let obj = shape(&out, Phase::ExecuteRequest, strict)?;
                execute_result(obj)?
            }
            None => self.authed_http(
                &prepared,
                &main.namespace,
                main.root.as_deref(),
                root_override,
                deadline,
            )?,
        };
        self.params().redact_json(&mut raw);
        if !from_cache && let Some((cache, key, ttl)) = &cached {
            match cache.store(key, *ttl, &raw, SystemTime::now(), deadline) {
                Stored::Yes => self.log_line(&crate::cache::cached_for_message(*ttl)),
                Stored::Failed(e) => {
                    warnings.push(format!("the response could not be cached: {e}"))
                }
                // Redis is down: the call goes on without the cache, warned about once.
                Stored::Unavailable(warning) => {
                    if let Some(warning) = warning {
                        self.log_line(&warning);
                    }
                }
            }
        }
        // Releasing the claim (Redis) lets the replicas that wait for this entry read it.
        #[cfg(feature = "redis")]
        drop(fill);
        #[cfg(not(feature = "redis"))]
        let _ = fill;

        let data = match struct_json.filter(|_| phases.post) {
            Some(st) => {
                let arg = object([("response", raw), ("struct", st), ("payload", payload)]);
                let out =
                    self.call_handler(entry, Phase::PostRequest, &arg, Some(&prepared), deadline)?;
                shape(&out, Phase::PostRequest, strict)?;
                let mut data = post_result(out, arg, warnings);
                self.params().redact_json(&mut data);
                data
            }
            None => raw,
        };
        if let Some(schema) = &d.output_schema {
            warnings.extend(check_output(schema.value(), &data));
        }
        Ok(data)
    }

    /// Calls a resource entry: a query of a SQLite-backed resource, or a markdown document.
    /// The inputs are checked as a tool's are; a query's rows then pass its `postRequest`
    /// handler (the only resource hook) and are checked against its output schema.
    fn run_resource(
        &self,
        entry: &ToolEntry,
        validate: impl FnOnce(&ToolEntry, &mut Vec<String>) -> Result<Inputs, Fail>,
        warnings: &mut Vec<String>,
        deadline: Instant,
    ) -> Result<Value, Coded> {
        let inputs = validate(entry, warnings)?;
        let schema = self.set.schema_of(entry);
        let d = &entry.descriptor;
        let ropts = &self.opts.resources;
        let (resource, builtin) = match &d.kind {
            Kind::Query { resource, builtin } => (resource, *builtin),
            Kind::Document { resource } => {
                let r = schema
                    .resources
                    .get(resource)
                    .ok_or_else(|| gone(resource))?;
                let doc = self.resources.document(schema, resource, r, ropts)?;
                let args: Map<String, Value> = inputs.into_iter().collect();
                let access = flowmcp_resources::markdown::Access::from_arguments(&args)
                    .map_err(|e| markdown_error(&e))?;
                return doc.access(&access).map_err(|e| markdown_error(&e));
            }
            Kind::Tool => return Err(gone(&d.tool)),
        };
        let r = schema
            .resources
            .get(resource)
            .ok_or_else(|| gone(resource))?;
        let limits = |rows: usize| {
            let mut l = QueryLimits::default();
            l.rows = rows;
            // Only the input check ran before the statement: the call's own limit is all left.
            l.timeout = ropts.query_timeout.min(self.opts.timeout);
            l.max_bytes = ropts.max_result_bytes;
            l
        };
        let query = r.queries.get(&d.tool);
        let bindings = d.query.as_deref().unwrap_or(&[]);
        let fetcher = TransportFetcher {
            transport: self.transport,
            deadline,
        };
        let access = Access {
            opts: ropts,
            fetcher: &fetcher,
            upstream: self
                .opts
                .upstreams
                .get(&schema.main.namespace)
                .map(String::as_str),
        };
        let rows =
            self.resources
                .with_db(entry.schema, schema, resource, r, &access, warnings, |db| {
                    let result = match (builtin, query) {
                        (_, Some(q)) => {
                            db.query(&q.sql, &bound_values(bindings, &inputs), &limits(MAX_ROWS))
                        }
                        (Some(Builtin::RunSql), None) => {
                            let sql = inputs.get("sql").and_then(Value::as_str).unwrap_or("");
                            let wanted = inputs.get("limit").and_then(Value::as_f64).map(|n| {
                                // A fraction counts as the whole number below it; at least 1 row.
                                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                                let whole = n.max(1.0).min(u64::MAX as f64) as u64;
                                whole
                            });
                            let rows = QueryLimits::with_requested_rows(wanted).rows;
                            db.query(sql, &[], &limits(rows))
                        }
                        (Some(Builtin::DescribeTables), None) => {
                            db.describe_tables(&limits(usize::MAX))
                        }
                        (None, None) => return Err(gone(&d.tool)),
                    };
                    result.map_err(|e| sql_error(&e))
                })?;
        match rows.cut {
            Some(Cut::Rows) => warnings.push(format!(
                "only the first {} rows are returned; more rows match (narrow the query{})",
                rows.rows.len(),
                if builtin == Some(Builtin::RunSql) {
                    format!(", or ask for up to {MAX_ROWS} with `limit`")
                } else {
                    String::new()
                }
            )),
            Some(Cut::Bytes) => warnings.push(format!(
                "only the first {} rows are returned: more would pass the result cap of {} bytes",
                rows.rows.len(),
                ropts.max_result_bytes
            )),
            None => {}
        }
        // A statement that returns no columns (a write) reports what it changed.
        let wrote = rows.columns.is_empty();
        let mut data = if wrote {
            json!({ "changes": rows.changes })
        } else {
            rows.into_json()
        };
        let handled = query.is_some() && self.phases(entry, schema)?.post;
        if handled {
            let arg = object([
                ("response", data),
                (
                    "struct",
                    json!({ "queryName": d.tool, "sql": query.map(|q| q.sql.as_str()) }),
                ),
                (
                    "payload",
                    Value::Object(inputs.into_iter().collect::<Map<String, Value>>()),
                ),
            ]);
            let out = self.call_handler(entry, Phase::PostRequest, &arg, None, deadline)?;
            shape(&out, Phase::PostRequest, !self.set.profile().is_compat())?;
            data = post_result(out, arg, warnings);
        }
        // The output schema describes rows (RES021: an array); a write's `{changes}` is not
        // checked against it unless a handler made the data.
        if let Some(schema) = d.output_schema.as_ref().filter(|_| !wrote || handled) {
            warnings.extend(check_output(schema.value(), &data));
        }
        Ok(data)
    }

    /// Sends the finalized request (with `main.auth` applied from `auth`) and decodes the body.
    /// With `token_retry`, a 401 fails with [`crate::auth::REFUSED_TOKEN`] so the caller can
    /// fetch a new token and send once more (`authed`). `namespace` names the limits to wait for.
    fn http(
        &self,
        prepared: &PreparedRequest,
        namespace: &str,
        auth: &AuthInputs,
        token_retry: bool,
        deadline: Instant,
    ) -> Result<Value, Fail> {
        self.check_deadline(deadline)?;
        let params = &self.params();
        let fin =
            finalize_with(prepared, params, auth).map_err(|e| Fail(e.code(), e.to_string()))?;
        // What `main.auth` added (a signature, a token) is hidden like a secret in the answer.
        let hide =
            crate::secret::Redactor::with_values(fin.auth_secrets.iter().map(|s| s.expose()));
        let mut req = HttpRequest::new(fin.method, fin.url.expose());
        req.deadline = Some(deadline);
        // Errors show the query with only the secrets hidden (issue #28 item 7d).
        req.redactor = Some(params.shared_redactor());
        for (k, v) in &fin.headers {
            let hv = if fin.secret_headers.iter().any(|s| s == k) {
                HeaderValue::secret(v.expose())
            } else {
                HeaderValue::plain(v.expose())
            };
            req.headers.push((k.clone(), hv));
        }
        // The request id goes only on the schema's own request (its origin was checked above),
        // and never over a header the schema sets itself.
        let observer = self.opts.observer.as_deref();
        if let Some(id) = observer.and_then(|o| o.request_id())
            && crate::transport::is_request_id(&id)
            && !req
                .headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case(REQUEST_ID_HEADER))
        {
            req.headers
                .push((REQUEST_ID_HEADER.to_string(), HeaderValue::plain(&id)));
        }
        // GET and DELETE never carry a body (as the reference), whatever a handler set.
        if let Some(b) = fin.body.as_ref().filter(|_| fin.method.allows_body()) {
            req.body = Some(b.expose().as_bytes().to_vec());
            req.body_is_secret = fin.body_has_secret;
        }
        // A read-only request is tried again after an answer that says "busy" or "try later"
        // (429, 502, 503, 504) or a network failure, within the deadline (D136).
        let attempts = if crate::upstream::is_read_only(fin.method) {
            self.opts
                .max_attempts
                .clamp(1, crate::upstream::MAX_ATTEMPTS)
        } else {
            1
        };
        let mut attempt = 1;
        loop {
            // The namespace's limits are waited for before every attempt; its place under the
            // concurrency cap is held while the request is in flight (D137).
            let slot = self
                .opts
                .limits
                .acquire(namespace, deadline, &mut |key, ttl| {
                    self.count_shared(key, ttl, deadline)
                })
                .map_err(|r| Fail(Code::E003, r.message(namespace, self.opts.timeout)))?;
            let sent = Instant::now();
            let resp = self.transport.send(&req);
            drop(slot);
            if let Some(o) = observer {
                o.upstream(resp.as_ref().ok().map(|r| r.status), sent.elapsed());
            }
            // The failure, and whether (and after how long) it is worth another attempt.
            let (fail, again): (Fail, Option<Option<Duration>>) = match resp {
                Ok(resp) if (200..300).contains(&resp.status) => {
                    let mut data = decode_response(&resp, params).map_err(|(c, m)| Fail(c, m))?;
                    hide.redact_json(&mut data);
                    return Ok(data);
                }
                Ok(resp) if resp.status == 401 && token_retry => {
                    return Err(Fail(Code::E001, crate::auth::REFUSED_TOKEN.into()));
                }
                Ok(resp) => {
                    let wait = resp
                        .retry_after
                        .as_deref()
                        .and_then(|t| crate::upstream::retry_after(t, SystemTime::now()));
                    let cut = crate::upstream::body_cut(&resp.body, params, &hide);
                    let text = crate::upstream::status_text(resp.status, wait, &cut);
                    let again = crate::upstream::is_retryable_status(resp.status).then_some(wait);
                    (Fail(Code::E001, text), again)
                }
                Err(e) => {
                    let again = matches!(e, TransportError::Network { .. }).then_some(None);
                    let fail = match e.code() {
                        Code::E003 if Instant::now() >= deadline => self.deadline_fail(),
                        code => Fail(code, e.to_string()),
                    };
                    (fail, again)
                }
            };
            let Some(asked) = again.filter(|_| attempt < attempts) else {
                return Err(fail);
            };
            // The upstream's own `Retry-After` wins over the backoff; a wait that would end at or
            // after the deadline is not begun: the last failure is the answer at once.
            let pause = asked.unwrap_or_else(|| crate::upstream::backoff(attempt));
            if pause >= deadline.saturating_duration_since(Instant::now())
                || !crate::transport::pause_unless_cancelled(pause)
            {
                return Err(fail);
            }
            attempt += 1;
        }
    }

    /// Counts a request start at `key` in the Redis of the preload cache, when it is there and
    /// answers (D137); `None` otherwise (the limit then counts in this process).
    fn count_shared(&self, key: &str, ttl: Duration, deadline: Instant) -> Option<i64> {
        #[cfg(feature = "redis")]
        if let Some(PreloadCache::Redis(redis)) = &self.opts.cache {
            return match redis.count(key, ttl, deadline) {
                Ok(n) => Some(n),
                Err(warning) => {
                    if let Some(w) = warning {
                        self.log_line(&w);
                    }
                    None
                }
            };
        }
        let _ = (key, ttl, deadline);
        None
    }

    /// Which handler phases the tool has. Builds the schema's host (loading its libraries) when
    /// needed; a host that failed to build fails every tool of the schema with E005.
    fn phases(&self, entry: &ToolEntry, schema: &LoadedSchema) -> Result<Phases, Fail> {
        if !schema.has_handlers() {
            return Ok(Phases::default());
        }
        let mut hosts = self.hosts.borrow_mut();
        let needs_build = match hosts.get(&entry.schema) {
            None => true,
            Some(Ok(h)) => h.is_poisoned(),
            Some(Err(_)) => false,
        };
        if needs_build
            && hosts.contains_key(&entry.schema)
            && let Some(o) = &self.opts.observer
        {
            o.sandbox_rebuilt();
        }
        if needs_build {
            let built = self.build_host(schema);
            hosts.insert(entry.schema, built);
        }
        let key = handler_key(entry);
        let tool = key.as_ref();
        match hosts.get(&entry.schema) {
            Some(Ok(h)) => Ok(Phases {
                pre: h.has(tool, Phase::PreRequest),
                exec: h.has(tool, Phase::ExecuteRequest),
                post: h.has(tool, Phase::PostRequest),
            }),
            Some(Err(e)) => {
                let mut text = host_error_text(e, None);
                if let Some(note) = &schema.lists_note {
                    text.push_str(&format!(" ({note})"));
                }
                Err(Fail(Code::E005, text))
            }
            None => Ok(Phases::default()),
        }
    }

    fn build_host(&self, schema: &LoadedSchema) -> HostSlot {
        let source = schema.handlers_source.as_deref().unwrap_or_default();
        let tool_names: Vec<String> = schema.main.tools.keys().cloned().collect();
        let resources: Vec<(String, Vec<String>)> = schema
            .resources
            .iter()
            .map(|(name, r)| (name.clone(), r.queries.keys().cloned().collect()))
            .collect();
        let keys = HandlerKeys {
            tools: &tool_names,
            resources: &resources,
        };
        let compat = self.set.profile().is_compat();
        let mut config = if compat {
            HostConfig::compat()
        } else {
            HostConfig::spec()
        };
        config.memory_bytes = self.opts.memory_bytes;
        config.stack_bytes = self.opts.stack_bytes;
        config.call_timeout = self.opts.call_timeout;
        HandlerHost::load_with(
            &schema.display,
            source,
            &schema.shared_lists,
            Libraries::new(
                &schema.main.required_libraries,
                self.opts.libraries.as_ref(),
            ),
            &keys,
            config,
        )
        .map(|mut host| {
            let name = &schema.display;
            for (level, text) in host.take_load_logs() {
                self.log_line(&format!("[{name}] {level}: {text}"));
            }
            if !host.unknown_keys().is_empty() {
                self.log_line(&format!(
                    "[{name}] VAL005 the handlers name no tool: {}",
                    host.unknown_keys().join(", ")
                ));
            }
            for note in host.shape_notes() {
                self.log_line(&format!("[{name}] {note}"));
            }
            host
        })
    }

    fn call_handler(
        &self,
        entry: &ToolEntry,
        phase: Phase,
        arg: &Value,
        prepared: Option<&PreparedRequest>,
        deadline: Instant,
    ) -> Result<Value, Fail> {
        self.check_deadline(deadline)?;
        let schema = self.set.schema_of(entry);
        let mut hosts = self.hosts.borrow_mut();
        let Some(Ok(host)) = hosts.get_mut(&entry.schema) else {
            return Err(Fail(
                Code::E005,
                format!("{}: the handlers are not loaded", phase.as_str()),
            ));
        };
        let mut bridge = Bridge {
            runner: self,
            schema,
            phase,
            prepared,
            deadline,
            refused: None,
        };
        let result = host.call(&handler_key(entry), phase, arg, &mut bridge);
        if let Some(why) = bridge.refused {
            return Err(Fail(Code::E009, format!("{} {why}", phase.as_str())));
        }
        match result {
            Ok(v) => Ok(v),
            Err(HostError::Deadline) => Err(self.deadline_fail()),
            Err(e) => Err(Fail(Code::E005, host_error_text(&e, Some(phase)))),
        }
    }
}

/// The name the schema's handlers know an entry by: a tool's name, or a resource query's
/// [`resource_handler_key`].
fn handler_key(entry: &ToolEntry) -> Cow<'_, str> {
    match &entry.descriptor.kind {
        Kind::Query { resource, .. } => {
            Cow::Owned(resource_handler_key(resource, &entry.descriptor.tool))
        }
        _ => Cow::Borrowed(entry.descriptor.tool.as_str()),
    }
}

/// The failure for an entry whose resource or query is not in its schema (which the toolset
/// never builds).
fn gone(name: &str) -> Coded {
    Coded(Code::E007, format!("\"{name}\" is not in the schema"))
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Phases {
    pre: bool,
    exec: bool,
    post: bool,
}

/// The message of a handler failure, with the SEC code of the rule it broke.
fn host_error_text(e: &HostError, phase: Option<Phase>) -> String {
    let what = match e {
        HostError::Timeout => "passed its CPU time limit".to_string(),
        HostError::Deadline => "passed the call's time limit".to_string(),
        HostError::Memory(m) => format!("passed its memory or stack limit ({m})"),
        HostError::Threw(m) if m.trim().is_empty() => "threw an error without a message".to_string(),
        HostError::Threw(m) => format!("threw: {m}"),
        HostError::SharedListMutation(m) => format!("SEC102 tried to modify sharedLists ({m})"),
        HostError::FetchForbidden => {
            "SEC100 called fetch, which is not available here (handlers have no network access; under compat only executeRequest may fetch)".to_string()
        }
        HostError::FactoryThrew(m) => format!("SEC104 the handlers factory threw: {m}"),
        HostError::FactoryShape(m) => format!("SEC104 the handlers factory returned {m}"),
        HostError::NotSerializable(m) => format!("SEC101 returned a value that is not JSON data ({m})"),
        HostError::BadReturn(m) => format!("SEC101 must return an object ({m})"),
        HostError::ModuleThrew(m) => format!("the module threw while loading: {m}"),
        HostError::NeverSettles => "returned a promise that never settles".to_string(),
        HostError::NoHandler(m) => format!("no such handler ({m})"),
        HostError::Poisoned => "the sandbox was reset after a limit breach".to_string(),
        HostError::Engine(m) => format!("the JavaScript engine failed: {m}"),
        HostError::Library { package, message } => {
            format!("SEC103 the library \"{package}\" could not be loaded: {message}")
        }
    };
    match phase {
        Some(p) => format!("{} {what}", p.as_str()),
        None => what,
    }
}

/// The `executeRequest` argument under compat: the specification's `{ struct, payload }` extended
/// with what handlers written for the JavaScript reference read — `struct.status`,
/// `struct.messages`, `struct.data`, and `payload.url`, `.method`, `.headers`, `.body`,
/// `.userParams`, `.serverParams`. Server parameters are this call's slot tokens, filled in by the
/// runtime when the handler fetches from the schema's origin; JavaScript never sees a value.
fn reference_execute_arg(
    struct_json: Value,
    payload: &Value,
    inputs: &Inputs,
    server_tokens: Map<String, Value>,
) -> Value {
    let mut pl = payload.as_object().cloned().unwrap_or_default();
    for key in ["url", "method", "headers", "body"] {
        pl.insert(
            key.into(),
            struct_json.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    pl.insert(
        "userParams".into(),
        Value::Object(inputs.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
    );
    pl.insert("serverParams".into(), Value::Object(server_tokens));
    let mut st = match struct_json {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    st.insert("status".into(), Value::Bool(true));
    st.insert("messages".into(), Value::Array(Vec::new()));
    st.insert("data".into(), Value::Null);
    st.insert("dataAsString".into(), Value::Null);
    object([
        ("struct", Value::Object(st)),
        ("payload", Value::Object(pl)),
    ])
}

/// A JSON object from `pairs`, in their order (moves the values; `json!` would copy them).
fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// The data an `executeRequest` result carries: `response` (the shape the specification's handler
/// signature returns), else — as handlers written for the reference return it — `struct.data`; a
/// returned `struct` whose `status` is `false` is a failure carrying its `messages`.
fn execute_result(obj: &Map<String, Value>) -> Result<Value, Fail> {
    let returned = obj.get("struct").and_then(Value::as_object);
    if let Some(st) = returned
        && st.get("status") == Some(&Value::Bool(false))
    {
        let messages: Vec<String> = st
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| {
                m.iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        return Err(Fail(
            Code::E005,
            format!(
                "executeRequest reported a failure: {}",
                if messages.is_empty() {
                    "(no message)".to_string()
                } else {
                    messages.join("; ")
                }
            ),
        ));
    }
    if let Some(r) = obj.get("response") {
        return Ok(r.clone());
    }
    Ok(returned
        .and_then(|st| st.get("data"))
        .cloned()
        .unwrap_or(Value::Null))
}

/// The keys a hook returns (the handler tables of chapters 01 and 05): `preRequest` → `{ struct, payload }`,
/// `executeRequest` and `postRequest` → `{ response }`.
fn return_keys(phase: Phase) -> &'static [&'static str] {
    match phase {
        Phase::PreRequest => &["struct", "payload"],
        Phase::ExecuteRequest | Phase::PostRequest => &["response"],
    }
}

/// Checks a handler's return value (SEC101) and returns it as an object.
///
/// Both profiles: an object, and `preRequest`'s `struct`, when present, an object. With `strict`
/// (profile `spec`) also exactly the keys of [`return_keys`], `preRequest`'s both objects: a
/// missing or an unknown key fails the call. Under `compat` a missing key is read as the
/// reference reads it (nothing changes).
fn shape(out: &Value, phase: Phase, strict: bool) -> Result<&Map<String, Value>, Fail> {
    let keys = return_keys(phase);
    let fail = |why: String| {
        Fail(
            Code::E005,
            format!(
                "{} SEC101 must return an object {{ {} }} ({why})",
                phase.as_str(),
                keys.join(", ")
            ),
        )
    };
    let Some(o) = out.as_object() else {
        return Err(fail(format!("found {}", type_name(out))));
    };
    if phase == Phase::PreRequest {
        let checked: &[&str] = if strict { keys } else { &["struct"] };
        for key in checked {
            if let Some(v) = o.get(*key).filter(|v| !v.is_object()) {
                return Err(fail(format!("its \"{key}\" is {}", type_name(v))));
            }
        }
    }
    if strict {
        if let Some(key) = keys.iter().find(|k| !o.contains_key(**k)) {
            return Err(fail(format!("\"{key}\" is missing")));
        }
        if let Some(key) = o.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(fail(format!("unexpected key \"{key}\"")));
        }
    }
    Ok(o)
}

/// The data after a `postRequest` that returned `out` for the argument `arg`: its `response`.
/// Under `compat` a result without `response` leaves the data as it was, as the reference does
/// (`result.response !== undefined`), with a warning; under `spec` [`shape`] has refused it.
fn post_result(mut out: Value, mut arg: Value, warnings: &mut Vec<String>) -> Value {
    if let Some(response) = out.get_mut("response") {
        return response.take();
    }
    warnings.push(
        "postRequest returned no \"response\": the data is passed on unchanged (SEC101 under profile spec)"
            .to_string(),
    );
    arg.get_mut("response")
        .map(Value::take)
        .unwrap_or(Value::Null)
}

/// A value's type with its article, for messages: `a string`, `an array`, `null or undefined`
/// (JavaScript's `undefined` arrives as `null`).
fn type_name(v: &Value) -> String {
    match flowmcp_spec::diagnostic::json_type(v) {
        "null" => "null or undefined".to_string(),
        t @ ("array" | "object") => format!("an {t}"),
        t => format!("a {t}"),
    }
}

/// Decodes a response body ([`decode_body`]); a body that is turned into base64 text (binary
/// MIME types) has secrets replaced in its bytes first, since base64 would hide them from
/// redaction. JSON and text are redacted after decoding ([`ServerParams::redact_json`]).
fn decode_response(resp: &HttpResponse, params: &ServerParams) -> Result<Value, (Code, String)> {
    if !params.redactor().is_empty() && is_base64_mime(resp.content_type.as_deref()) {
        let redacted = HttpResponse {
            body: params.redact_bytes(&resp.body),
            ..resp.clone()
        };
        return decode_body(&redacted);
    }
    decode_body(resp)
}

/// The host's view of the runtime during one handler call: `fetch` (compat, `executeRequest`)
/// goes through the runtime's transport, logs go to the sink.
///
/// A `fetch` to the schema's origin gets this call's slot tokens filled in (URL, headers, body). A
/// `fetch` to any other origin is sent as written, reaching only public addresses unless its
/// origin is the `--upstream` of the schema's own namespace; if it carries a token it is not sent
/// at all, and the call fails with E009 whatever the handler does with the rejected promise.
struct Bridge<'r, 't> {
    runner: &'r Runner<'t>,
    schema: &'r LoadedSchema,
    phase: Phase,
    /// The tool's request; `None` for a resource query (whose handlers never fetch).
    prepared: Option<&'r PreparedRequest>,
    deadline: Instant,
    /// Set when a request was refused for carrying a secret elsewhere (E009).
    refused: Option<String>,
}

impl Bridge<'_, '_> {
    /// Whether `url` (as the handler wrote it) is of the schema's origin, comparing the parsed
    /// origins after the slots are filled.
    fn same_origin(&self, prepared: &PreparedRequest, url: &str) -> Result<bool, String> {
        let params = &self.runner.params();
        let slots = prepared.slots();
        let origin = prepared
            .origin(params)
            .map_err(|e| params.redact(&e.to_string()))?;
        let mut missing = Vec::new();
        let (filled, _) = slots.fill(url, params, Encoding::Segment, &mut missing);
        Ok(url::Url::parse(&filled).is_ok_and(|u| u.origin() == origin))
    }

    /// Whether `url` is of the origin of the `--upstream` of the schema's own namespace (never
    /// another namespace's: that would let one schema reach the private address of another).
    fn is_own_upstream(&self, url: &str) -> bool {
        let Ok(target) = url::Url::parse(url) else {
            return false;
        };
        self.runner
            .opts
            .upstreams
            .get(&self.schema.main.namespace)
            .and_then(|u| url::Url::parse(u).ok())
            .is_some_and(|u| u.origin() == target.origin())
    }
}

impl HostBridge for Bridge<'_, '_> {
    fn fetch(&mut self, req: FetchRequest) -> Result<FetchResponse, FetchError> {
        let params = &self.runner.params();
        let prepared = match self.prepared {
            Some(p)
                if self.phase == Phase::ExecuteRequest && self.runner.set.profile().is_compat() =>
            {
                p
            }
            _ => return Err("fetch is not available here".into()),
        };
        let method = match req.method.as_str() {
            "" => Method::Get,
            m => Method::parse(m).ok_or_else(|| format!("method {m} is not supported"))?,
        };
        let slots: &SecretSlots = prepared.slots();
        let mut http = if self.same_origin(prepared, &req.url)? {
            let mut missing = Vec::new();
            let (url, _) = slots.fill(&req.url, params, Encoding::Segment, &mut missing);
            let mut http = HttpRequest::new(method, url);
            for (k, v) in &req.headers {
                let (value, secret) = slots.fill(v, params, Encoding::Raw, &mut missing);
                let value = if secret {
                    HeaderValue::secret(value)
                } else {
                    HeaderValue::plain(value)
                };
                http.headers.push((k.clone(), value));
            }
            if let Some(b) = &req.body {
                let (body, secret) = slots.fill(b, params, Encoding::Raw, &mut missing);
                http.body = Some(body.into_bytes());
                http.body_is_secret = secret;
            }
            if let Some(k) = missing.first() {
                return Err(format!("missing server parameter {k}").into());
            }
            http
        } else {
            let carries = slots.occurs_in(&req.url)
                || req
                    .headers
                    .iter()
                    .any(|(k, v)| slots.occurs_in(k) || slots.occurs_in(v))
                || req.body.as_deref().is_some_and(|b| slots.occurs_in(b));
            if carries {
                // The URL as written, each token shown as the parameter it stands for.
                let why = format!(
                    "refused a fetch to {}: a request that leaves the schema's origin cannot carry a server parameter",
                    slots.display(&crate::transport::shown_url(
                        &req.url,
                        Some(params.redactor())
                    ))
                );
                self.refused.get_or_insert(why.clone());
                return Err(format!("{} {why}", Code::E009).into());
            }
            let mut http = HttpRequest::new(method, req.url.clone());
            http.public_only = !self.is_own_upstream(&req.url);
            for (k, v) in &req.headers {
                http.headers
                    .push((k.clone(), HeaderValue::plain(v.clone())));
            }
            http.body = req.body.as_ref().map(|b| b.clone().into_bytes());
            http
        };
        http.deadline = Some(self.deadline);
        http.redactor = Some(params.shared_redactor());
        let resp = self
            .runner
            .transport
            .send(&http)
            .map_err(|e| params.redact(&format!("{} {e}", e.code())))?;
        Ok(FetchResponse {
            status: resp.status,
            status_text: String::new(),
            headers: resp
                .content_type
                .iter()
                .map(|c| ("content-type".to_string(), c.clone()))
                .collect(),
            body: redact_body(params, &resp.body),
        })
    }

    fn log(&mut self, level: &str, text: &str) {
        self.runner
            .log_line(&format!("[{}] {level}: {text}", self.schema.display));
    }

    fn deadline(&self) -> Option<Instant> {
        Some(self.deadline)
    }
}

/// A response body as handlers may see it: JSON is parsed, redacted and written again (so no
/// escaped form of a secret, `\/` or `\u0041`, survives to be decoded in JavaScript); other text
/// is redacted as text, in every form [`ServerParams::redact`] knows.
fn redact_body(params: &ServerParams, body: &[u8]) -> Vec<u8> {
    if params.redactor().is_empty() {
        return body.to_vec();
    }
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        params.redact_json(&mut v);
        return v.to_string().into_bytes();
    }
    params.redact_bytes(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_reaches_nested_strings_and_keys() {
        let mut p = ServerParams::new();
        p.insert("K", "s3cret");
        let mut v = json!({"a": ["x s3cret y"], "s3cret": 1, "n": 2});
        p.redact_json(&mut v);
        assert_eq!(v, json!({"a": ["x [redacted] y"], "[redacted]": 1, "n": 2}));
        // A numeric key echoed back as a JSON number.
        let mut n = ServerParams::new();
        n.insert("PIN", "4242424242");
        let mut v = json!({"echo": 4242424242u64, "other": 7, "f": 14242424242.5});
        n.redact_json(&mut v);
        assert_eq!(
            v,
            json!({"echo": "[redacted]", "other": 7, "f": "1[redacted].5"})
        );
    }
}
