//! MCP Tasks in the 2025-11-25 shape (SEP-1686): a `tools/call` whose params carry `task: {ttl}`
//! answers at once with the task while the call runs on the worker threads; `tasks/get`,
//! `tasks/result`, `tasks/list` and `tasks/cancel` read and end it (D131).
//!
//! rmcp 3.11 knows only the newer SEP-2663 shape, drops the `task` field of `tools/call` when it
//! decodes the request and has no `tasks` server capability nor a tool's `execution`, so this
//! layer works on the JSON-RPC messages around rmcp: [`plan`] sorts each incoming message, the
//! task messages are answered here ([`answer`]), and the answers to `initialize` and
//! `tools/list` are completed with the `tasks` capability and each tool's
//! `execution.taskSupport` ([`decorate`]). Over HTTP the listener does this per request (the
//! request itself passes rmcp's transport checks as a `ping`); over stdio a line pump between
//! the client's stream and rmcp does (`McpServer::serve_io`).
//!
//! A task belongs to the principal that created it (an HTTP endpoint and its credential, or one
//! stdio session): another principal gets the answer of an unknown task id. Records hold the
//! task's state and the call's result, never a credential (the principal is a digest).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flowmcp_catalog::serde_json::value::RawValue;
use flowmcp_catalog::serde_json::{Map, Value, json};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

#[cfg(feature = "metrics")]
use crate::metrics::Metrics;

/// What serves the tasks: the MCP server (`McpServer`; a trait, so that this module does not
/// depend on the server's).
pub(crate) trait Host: Clone + Send + Sync + 'static {
    /// What the listener knows of a request (its id, route and metrics).
    type Info: Clone + Send + Sync + 'static;
    /// The tasks of this server.
    fn tasks(&self) -> &Tasks;
    /// Whether the tool `name` may, must or must not be called as a task.
    fn task_support(&self, name: &str) -> Support;
    /// Where the events of a request with `info` are counted.
    fn events(info: Option<&Self::Info>) -> Events;
    /// Runs the tool call `name` of a task: the `CallToolResult` as JSON, `Err` when the call
    /// failed internally, `None` when `stop` was signalled first.
    fn call_for_task(
        &self,
        name: &str,
        args: Map<String, Value>,
        info: Option<Self::Info>,
        stop: Arc<Notify>,
    ) -> impl std::future::Future<Output = Option<Result<Value, String>>> + Send;
}

/// The longest a task is kept, in milliseconds (a client's larger `ttl` is cut to it): one hour.
pub(crate) const MAX_TTL_MS: u64 = 3_600_000;
/// How long a task is kept when the client names no `ttl`: ten minutes.
pub(crate) const DEFAULT_TTL_MS: u64 = 600_000;
/// The polling interval suggested to clients, in milliseconds.
pub(crate) const POLL_INTERVAL_MS: u64 = 500;
/// How many tasks one page of `tasks/list` holds.
const LIST_PAGE: usize = 100;
/// The `_meta` key that ties a message to its task.
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// JSON-RPC error codes.
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// Whether a tool may, must or must not be called as a task (its `execution.taskSupport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Support {
    Forbidden,
    /// No `async` field: a client may ask for a task (2025-11-25); the server does not offer one
    /// on its own (SEP-2663).
    Optional,
    /// `async` says `optional`: as [`Support::Optional`], and a SEP-2663 client's call of it is
    /// answered as a task (D132).
    Offered,
    Required,
}

impl Support {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Support::Forbidden => "forbidden",
            Support::Optional | Support::Offered => "optional",
            Support::Required => "required",
        }
    }

    /// A catalog tool's support, from its reserved `async` field (chapter 07): the text
    /// `"required"`, `"optional"` or `"forbidden"`, or an object whose `taskSupport` is one of
    /// them; anything else (absent, `{"reserved": true}`) is `optional` (D131).
    pub(crate) fn of(async_field: Option<&Value>) -> Support {
        let named = match async_field {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Object(o)) => o.get("taskSupport").and_then(Value::as_str),
            _ => None,
        };
        match named {
            Some("required") => Support::Required,
            Some("forbidden") => Support::Forbidden,
            Some("optional") => Support::Offered,
            _ => Support::Optional,
        }
    }
}

/// A task's status (the 2025-11-25 names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn terminal(self) -> bool {
        self != Status::Working
    }
}

/// What is kept of one task: its state, its owner's digest and, once it completed, the call's
/// result (the `CallToolResult` as JSON). Never an argument or a credential.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    pub(crate) created_ms: u64,
    pub(crate) updated_ms: u64,
    pub(crate) ttl_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
    /// The shape its client speaks (D132); the 2025-11-25 one for records written before.
    #[serde(default)]
    pub(crate) shape: Shape,
}

/// Which of the two Tasks shapes a task is answered in (D132).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Shape {
    /// MCP 2025-11-25 (SEP-1686): the client asks with `task: {ttl}`; `tasks/get` gives the task,
    /// `tasks/result` the result.
    #[default]
    Spec2025,
    /// The `io.modelcontextprotocol/tasks` extension (SEP-2663, protocol 2026-07-28): the server
    /// answers `resultType: "task"`; `tasks/get` carries the result inline; `tasks/cancel` and
    /// `tasks/update` are acknowledged.
    Extension,
}

/// The SEP-2663 extension's identifier, as clients declare it in their capabilities.
const TASKS_EXTENSION: &str = rmcp::model::TASKS_EXTENSION_ID;

/// Whether a request's own `_meta` declares the client's support of the SEP-2663 tasks
/// extension (protocol 2026-07-28 clients send their capabilities with every request).
fn extension_client(params: &Map<String, Value>) -> bool {
    params
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
        .and_then(|c| c.get("extensions"))
        .and_then(Value::as_object)
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

impl Record {
    fn expired(&self, now: u64) -> bool {
        now >= self.created_ms.saturating_add(self.ttl_ms)
    }

    /// The task as SEP-2663 shows it (rmcp's model: `ttlMs`, `pollIntervalMs`).
    fn extension_task(&self) -> rmcp::model::Task {
        let status = match self.status {
            Status::Working => rmcp::model::TaskStatus::Working,
            Status::Completed => rmcp::model::TaskStatus::Completed,
            Status::Failed => rmcp::model::TaskStatus::Failed,
            Status::Cancelled => rmcp::model::TaskStatus::Cancelled,
        };
        let mut t = rmcp::model::Task::new(
            self.id.clone(),
            status,
            iso(self.created_ms),
            iso(self.updated_ms),
        )
        .with_ttl_ms(self.ttl_ms)
        .with_poll_interval_ms(POLL_INTERVAL_MS);
        if let Some(m) = &self.message {
            t = t.with_status_message(m.clone());
        }
        t
    }

    /// The `tasks/get` answer of SEP-2663: the task with its result (or error) inline.
    fn extension_detail(&self) -> Value {
        use rmcp::model::{DetailedTask, GetTaskResult, TaskPayload};
        let payload = match (self.status, &self.result) {
            (Status::Working, _) => TaskPayload::Working,
            (Status::Cancelled, _) => TaskPayload::Cancelled,
            (Status::Completed, Some(Value::Object(result))) => TaskPayload::Completed {
                result: result.clone(),
            },
            (Status::Completed | Status::Failed, _) => {
                let mut error = Map::new();
                error.insert("code".into(), json!(INTERNAL_ERROR));
                error.insert(
                    "message".into(),
                    json!(self.message.as_deref().unwrap_or("the task failed")),
                );
                TaskPayload::Failed { error }
            }
        };
        let detail = GetTaskResult::new(DetailedTask::new(self.extension_task(), payload));
        flowmcp_catalog::serde_json::to_value(detail).unwrap_or(Value::Null)
    }

    /// The task as the protocol shows it.
    fn task(&self) -> Map<String, Value> {
        let mut t = Map::new();
        t.insert("taskId".into(), json!(self.id));
        t.insert("status".into(), json!(self.status));
        if let Some(m) = &self.message {
            t.insert("statusMessage".into(), json!(m));
        }
        t.insert("createdAt".into(), json!(iso(self.created_ms)));
        t.insert("lastUpdatedAt".into(), json!(iso(self.updated_ms)));
        t.insert("ttl".into(), json!(self.ttl_ms));
        t.insert("pollInterval".into(), json!(POLL_INTERVAL_MS));
        t
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn iso(ms: u64) -> String {
    flowmcp_catalog::timestamp(UNIX_EPOCH + Duration::from_millis(ms))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tasks of one server: their records (in memory, or in Redis shared by replicas), and a
/// signal per running task that cancels it.
#[derive(Default)]
pub(crate) struct Tasks {
    records: Mutex<HashMap<String, Record>>,
    running: Mutex<HashMap<String, Arc<Notify>>>,
    made: AtomicU64,
    /// Serialises the read-modify-writes of records in this process.
    writing: Mutex<()>,
    /// The preload cache's Redis: records live there, readable by every replica.
    #[cfg(feature = "redis")]
    shared: Option<flowmcp_catalog::runtime::RedisCache>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tasks")
    }
}

/// The Redis key of a task's record, and of an owner's index of task ids.
#[cfg(feature = "redis")]
fn record_key(id: &str) -> String {
    format!("flowmcp:task:v1:{id}")
}

#[cfg(feature = "redis")]
fn owner_key(owner: &str) -> String {
    format!("flowmcp:tasks:v1:{owner}")
}

impl Tasks {
    /// Tasks kept in `cache` (the preload cache's Redis), shared by every replica that uses it.
    #[cfg(feature = "redis")]
    pub(crate) fn shared_in(cache: flowmcp_catalog::runtime::RedisCache) -> Tasks {
        Tasks {
            shared: Some(cache),
            ..Tasks::default()
        }
    }

    /// Whether the records live where other replicas read them.
    fn is_shared(&self) -> bool {
        #[cfg(feature = "redis")]
        {
            self.shared.is_some()
        }
        #[cfg(not(feature = "redis"))]
        {
            false
        }
    }

    /// A new task id ([`unguessable_id`]).
    fn new_id(&self) -> String {
        unguessable_id(self.made.fetch_add(1, Ordering::Relaxed), &[])
    }

    /// The record `id`, whoever owns it (expired ones included).
    fn load(&self, id: &str) -> Option<Record> {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            return match redis.get_value(&record_key(id)) {
                Ok(bytes) => bytes.and_then(|b| flowmcp_catalog::serde_json::from_slice(&b).ok()),
                Err(e) => {
                    tracing::warn!(target: "flowmcp::task", "the task store: {e}");
                    None
                }
            };
        }
        lock(&self.records).get(id).cloned()
    }

    /// Stores `r` (in Redis until its ttl has passed).
    fn save(&self, r: &Record) -> Result<(), String> {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            let left = r
                .created_ms
                .saturating_add(r.ttl_ms)
                .saturating_sub(now_ms())
                .max(1);
            let bytes = flowmcp_catalog::serde_json::to_vec(r)
                .map_err(|e| format!("the task store: {e}"))?;
            redis
                .put_value(&record_key(&r.id), &bytes, Duration::from_millis(left))
                .and_then(|()| {
                    redis.add_member(
                        &owner_key(&r.owner),
                        &r.id,
                        Duration::from_millis(MAX_TTL_MS),
                    )
                })
                .map_err(|e| format!("the task store: {e}"))?;
            return Ok(());
        }
        lock(&self.records).insert(r.id.clone(), r.clone());
        Ok(())
    }

    /// The record `id` when `owner` owns it and it has not expired. An expired record is removed
    /// (and counted) here; Redis drops expired records by itself.
    fn get(&self, id: &str, owner: &str, events: &Events) -> Option<Record> {
        let r = self.load(id)?;
        if r.expired(now_ms()) {
            if lock(&self.records).remove(id).is_some() {
                events.emit("expired", id);
            }
            return None;
        }
        (r.owner == owner).then_some(r)
    }

    #[cfg(test)]
    fn put(&self, r: Record) {
        let _ = self.save(&r);
    }

    /// The live tasks of `owner`, oldest first; expired ones are removed (and counted).
    fn list(&self, owner: &str, events: &Events) -> Vec<Record> {
        let now = now_ms();
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            let ids = redis.members(&owner_key(owner)).unwrap_or_else(|e| {
                tracing::warn!(target: "flowmcp::task", "the task store: {e}");
                Vec::new()
            });
            let mut mine: Vec<Record> = ids
                .iter()
                .filter_map(|id| self.load(id))
                .filter(|r| r.owner == owner && !r.expired(now))
                .collect();
            mine.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
            return mine;
        }
        let mut gone = Vec::new();
        let mut mine: Vec<Record> = {
            let mut records = lock(&self.records);
            records.retain(|id, r| {
                let keep = !r.expired(now);
                if !keep {
                    gone.push(id.clone());
                }
                keep
            });
            records
                .values()
                .filter(|r| r.owner == owner)
                .cloned()
                .collect()
        };
        for id in &gone {
            events.emit("expired", id);
        }
        mine.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
        mine
    }

    /// Ends a working task with `status`; `false` when it is not working any more (cancelled
    /// meanwhile, or gone).
    fn finish(
        &self,
        id: &str,
        status: Status,
        message: Option<String>,
        result: Option<Value>,
    ) -> bool {
        lock(&self.running).remove(id);
        // One writer at a time in this process; across replicas the last write wins.
        let _one = lock(&self.writing);
        let Some(mut r) = self.load(id) else {
            return false;
        };
        if r.status.terminal() {
            return false;
        }
        r.status = status;
        r.message = message;
        r.result = result;
        r.updated_ms = now_ms();
        match self.save(&r) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(target: "flowmcp::task", "{e}");
                false
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A new id nobody can guess (a task's, a kept result's): a digest of a per-process random
/// seed, the caller's counter `n`, the time, the process and `extra`, as 32 hex digits.
pub(crate) fn unguessable_id(n: u64, extra: &[u8]) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut seed = std::collections::hash_map::RandomState::new().build_hasher();
    seed.write_u64(n);
    let mut h = Sha256::new();
    h.update(seed.finish().to_le_bytes());
    h.update(n.to_le_bytes());
    h.update(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
            .to_le_bytes(),
    );
    h.update(std::process::id().to_le_bytes());
    h.update(extra);
    hex(&h.finalize()[..16])
}

/// Who a request comes from, as a task owner: a digest, never the credential itself.
pub(crate) fn principal(kind: &str, route: &str, credential: Option<&[u8]>) -> Arc<str> {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update([0]);
    h.update(route.as_bytes());
    h.update([0]);
    if let Some(c) = credential {
        h.update(c);
    }
    Arc::from(format!("{kind}:{}", hex(&h.finalize()[..16])))
}

/// A new stdio session's principal (each session its own).
pub(crate) fn stdio_principal() -> Arc<str> {
    static SESSIONS: AtomicU64 = AtomicU64::new(0);
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
    principal(
        "stdio",
        &format!("{}:{n}", std::process::id()),
        Some(&now_ms().to_le_bytes()),
    )
}

/// Where task events are counted: the request's metrics (over HTTP), and the log.
pub(crate) struct Events {
    #[cfg(feature = "metrics")]
    metrics: Option<Metrics>,
    route: Arc<str>,
}

impl Events {
    /// Events counted in `metrics` (when given) and logged with `route` (`None`: stdio).
    pub(crate) fn new(
        #[cfg(feature = "metrics")] metrics: Option<Metrics>,
        route: Option<Arc<str>>,
    ) -> Events {
        Events {
            #[cfg(feature = "metrics")]
            metrics,
            route: route.unwrap_or_else(|| Arc::from("stdio")),
        }
    }

    /// Counts `event` of task `id` and writes its log line (`flowmcp::task`, at `info`).
    fn emit(&self, event: &'static str, id: &str) {
        #[cfg(feature = "metrics")]
        if let Some(m) = &self.metrics {
            m.task(event);
        }
        tracing::info!(
            target: "flowmcp::task",
            route = &*self.route,
            task_id = id,
            event,
            "task {event}"
        );
    }
}

/// What to do with one incoming JSON-RPC message.
#[derive(Debug)]
pub(crate) enum Plan {
    /// Hand it to rmcp unchanged.
    Pass,
    /// Hand it to rmcp and complete the answer ([`decorate`]).
    Decorate(Decoration),
    /// Answer it here ([`answer`]).
    Answer(Call),
}

/// Which answer [`decorate`] completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoration {
    Initialize,
    ToolsList,
}

/// A request answered here.
#[derive(Debug)]
pub(crate) struct Call {
    pub(crate) id: Value,
    method: String,
    params: Map<String, Value>,
}

#[cfg(feature = "http")]
impl Call {
    /// The method of the request rmcp's HTTP transport checks in this one's place: `ping`, or
    /// under protocol 2026-07-28 (which has no `ping`) `server/discover`; both answer at once.
    pub(crate) fn stand_in_method(modern: bool) -> &'static str {
        if modern { "server/discover" } else { "ping" }
    }

    /// That request: [`Call::stand_in_method`] with this one's id and `_meta` (protocol
    /// 2026-07-28 wants the protocol version and capabilities there).
    pub(crate) fn stand_in(&self, modern: bool) -> Value {
        let method = Call::stand_in_method(modern);
        let mut ping = json!({"jsonrpc": "2.0", "id": self.id, "method": method});
        if let Some(meta) = self.params.get("_meta") {
            ping["params"] = json!({ "_meta": meta });
        }
        ping
    }
}

/// Sorts `message` (one parsed JSON-RPC message).
pub(crate) fn plan(message: &Value, server: &impl Host) -> Plan {
    let Some(obj) = message.as_object() else {
        return Plan::Pass;
    };
    let (Some(method), Some(id)) = (obj.get("method").and_then(Value::as_str), obj.get("id"))
    else {
        return Plan::Pass;
    };
    let params = obj
        .get("params")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let call = || {
        Plan::Answer(Call {
            id: id.clone(),
            method: method.to_string(),
            params: params.clone(),
        })
    };
    match method {
        "initialize" => Plan::Decorate(Decoration::Initialize),
        "tools/list" => Plan::Decorate(Decoration::ToolsList),
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" | "tasks/update" => call(),
        "tools/call" => {
            if params.get("task").is_some_and(Value::is_object) {
                return call();
            }
            let support = params
                .get("name")
                .and_then(Value::as_str)
                .map_or(Support::Optional, |n| server.task_support(n));
            // A SEP-2663 client gets a task for a tool that requires or offers one (D132); a
            // plain call of a tool that requires one is refused in `create`.
            let offered = extension_client(&params) && support == Support::Offered;
            if support == Support::Required || offered {
                call()
            } else {
                Plan::Pass
            }
        }
        _ => Plan::Pass,
    }
}

/// Completes rmcp's answer `text` (one JSON-RPC message) to a request sorted as `what`: the
/// `tasks` capability in `initialize`, each tool's `execution.taskSupport` in `tools/list`. The
/// completed text, or `None` when there is nothing to complete (`text` is not an answer with a
/// result of the expected shape) and `text` stands as it is.
///
/// A `tools/list` answer is edited as text: the members of the message, of its result and of
/// each tool are kept as rmcp wrote them ([`RawObject`]) and only `execution` is added, so a
/// page of a few hundred tools is not parsed into values and written again (#46). The text is
/// the one the value edit gives: rmcp writes compact JSON, which reads back and writes again
/// unchanged.
pub(crate) fn decorate(what: Decoration, text: &str, server: &impl Host) -> Option<String> {
    match what {
        Decoration::Initialize => {
            let mut message = flowmcp_catalog::serde_json::from_str::<Value>(text).ok()?;
            let caps = message
                .get_mut("result")?
                .get_mut("capabilities")?
                .as_object_mut()?;
            caps.insert(
                "tasks".into(),
                json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
            );
            // And the SEP-2663 extension, for clients that speak it (D132).
            if let Some(extensions) = caps
                .entry("extensions")
                .or_insert_with(|| json!({}))
                .as_object_mut()
            {
                extensions.insert(TASKS_EXTENSION.into(), json!({}));
            }
            Some(message.to_string())
        }
        Decoration::ToolsList => decorate_tools(text, &|name| server.task_support(name)),
    }
}

/// A JSON object with its members' values as written: duplicate names keep the last value at the
/// first one's place, as `serde_json::Map` does.
type RawObject<'a> = indexmap::IndexMap<String, &'a RawValue>;

/// [`decorate`] of a `tools/list` answer, with `support` giving each tool's task support by its
/// name (a tool without a string name is `forbidden`; an entry that is not an object is kept).
///
/// The message is read once, as it is written out: its members and its result's are taken as
/// they stand except `result` and `result.tools`, which are completed as they are read. So the
/// page is not first split into raw pieces level by level and then written again each level up
/// (five passes over half a megabyte for 500 tools, on the thread that answers: D172).
fn decorate_tools(text: &str, support: &dyn Fn(&str) -> Support) -> Option<String> {
    use serde::de::Deserializer as _;
    let mut reader = flowmcp_catalog::serde_json::Deserializer::from_str(text);
    let completed = reader
        .deserialize_any(Complete {
            level: Level::Message,
            support,
            room: text.len() + text.len() / 16,
        })
        .ok()??;
    reader.end().ok()?;
    String::from_utf8(completed).ok()
}

/// Which object [`Complete`] reads: the message, its `result`, or the `result.tools` array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Message,
    Result,
    Tools,
}

impl Level {
    /// The member completed one level down, and that level.
    fn inner(self) -> Option<(&'static str, Level)> {
        match self {
            Level::Message => Some(("result", Level::Result)),
            Level::Result => Some(("tools", Level::Tools)),
            Level::Tools => None,
        }
    }
}

/// Reads one JSON value at `level` and gives its completed text, or `None` when it is not of the
/// kind that level completes (an object, or the array of tools), or when what it must contain is
/// missing. Anything else is read and dropped, as a value of the wrong kind is in the value edit.
struct Complete<'s> {
    level: Level,
    support: &'s dyn Fn(&str) -> Support,
    /// Room for the completed text: the message's length and a sixteenth (`execution` adds
    /// about 40 bytes to a tool of a few hundred), so no level's text grows by copying.
    room: usize,
}

/// One member of an object being completed: as written, or completed one level down.
enum Piece<'a> {
    Raw(&'a RawValue),
    Done(Option<Vec<u8>>),
}

impl<'de> serde::de::DeserializeSeed<'de> for Complete<'_> {
    type Value = Option<Vec<u8>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Complete<'_> {
    type Value = Option<Vec<u8>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((inner, level)) = self.level.inner() else {
            while map
                .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                .is_some()
            {}
            return Ok(None);
        };
        let mut members: Vec<(String, Piece<'de>)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let piece = if key == inner {
                Piece::Done(map.next_value_seed(Complete {
                    level,
                    support: self.support,
                    room: self.room,
                })?)
            } else {
                Piece::Raw(map.next_value::<&'de RawValue>()?)
            };
            put_member(&mut members, key, piece);
        }
        let mut out = Vec::with_capacity(self.room);
        out.push(b'{');
        let mut found = false;
        for (i, (key, piece)) in members.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_key(&mut out, key);
            match piece {
                Piece::Raw(raw) => out.extend_from_slice(raw.get().as_bytes()),
                Piece::Done(Some(done)) => {
                    found = true;
                    out.extend_from_slice(done);
                }
                Piece::Done(None) => return Ok(None),
            }
        }
        out.push(b'}');
        Ok(found.then_some(out))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if self.level != Level::Tools {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            return Ok(None);
        }
        let mut out = Vec::with_capacity(self.room);
        out.push(b'[');
        let mut first = true;
        loop {
            let at = out.len();
            if !first {
                out.push(b',');
            }
            let entry = ToolEntry {
                out: &mut out,
                support: self.support,
            };
            if seq.next_element_seed(entry)?.is_none() {
                out.truncate(at);
                break;
            }
            first = false;
        }
        out.push(b']');
        Ok(Some(out))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Adds a member read from an object to `members`, as `RawObject` (and `serde_json::Map`) does: a
/// repeated name keeps the last value at the first one's place.
fn put_member<V>(members: &mut Vec<(String, V)>, key: String, value: V) {
    match members.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => members.push((key, value)),
    }
}

/// Writes `key` as serde_json writes an object's member name, and the `:` after it.
fn push_key(out: &mut Vec<u8>, key: &str) {
    // Writing a string into a vector cannot fail.
    let _ = flowmcp_catalog::serde_json::to_writer(&mut *out, key);
    out.push(b':');
}

/// Writes one entry of the tools array as it is read: an object with `execution` set (its task
/// support by its name; duplicate names keep the last value at the first one's place), anything
/// else as its value is written.
struct ToolEntry<'o, 's> {
    out: &'o mut Vec<u8>,
    support: &'s dyn Fn(&str) -> Support,
}

impl ToolEntry<'_, '_> {
    /// Writes a value that is not an object.
    fn value<E: serde::de::Error>(self, value: Value) -> Result<(), E> {
        flowmcp_catalog::serde_json::to_writer(&mut *self.out, &value).map_err(E::custom)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for ToolEntry<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ToolEntry<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut members: Vec<(String, &'de RawValue)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<&'de RawValue>()?;
            put_member(&mut members, key, value);
        }
        let support = members
            .iter()
            .find(|(k, _)| k == "name")
            .and_then(|(_, n)| flowmcp_catalog::serde_json::from_str::<String>(n.get()).ok())
            .map_or(Support::Forbidden, |n| (self.support)(&n));
        let execution = format!(r#"{{"taskSupport":"{}"}}"#, support.as_str());
        let out = self.out;
        out.push(b'{');
        let mut written = false;
        for (i, (key, value)) in members.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_key(out, key);
            if key == "execution" {
                written = true;
                out.extend_from_slice(execution.as_bytes());
            } else {
                out.extend_from_slice(value.get().as_bytes());
            }
        }
        if !written {
            if !members.is_empty() {
                out.push(b',');
            }
            push_key(out, "execution");
            out.extend_from_slice(execution.as_bytes());
        }
        out.push(b'}');
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let value = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        self.value(value)
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<(), E> {
        self.value(Value::from(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<(), E> {
        self.value(Value::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<(), E> {
        self.value(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        self.value(Value::from(v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.value(Value::from(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.value(Value::Null)
    }
}

fn error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// SEP-2663's acknowledgement of `tasks/cancel` and `tasks/update`.
fn ack() -> Value {
    flowmcp_catalog::serde_json::to_value(rmcp::model::TaskAckResult::new())
        .unwrap_or_else(|_| json!({}))
}

/// The answer of an unknown task id, also given for another principal's task.
fn unknown(id: &Value) -> Value {
    error(id, INVALID_PARAMS, "unknown task id")
}

/// Answers `call` (a request [`plan`] sorted as [`Plan::Answer`]) from `owner`: the whole
/// JSON-RPC response.
pub(crate) async fn answer<H: Host>(
    server: &H,
    call: Call,
    owner: Arc<str>,
    info: Option<H::Info>,
) -> Value {
    let Call { id, method, params } = call;
    let events = H::events(info.as_ref());
    let tasks = server.tasks();
    let task_id = params.get("taskId").and_then(Value::as_str);
    match method.as_str() {
        "tools/call" => create(server, &id, params, owner, info, events),
        "tasks/get" => match task_id.and_then(|t| tasks.get(t, &owner, &events)) {
            Some(r) if r.shape == Shape::Extension => reply(&id, r.extension_detail()),
            Some(r) => reply(&id, Value::Object(r.task())),
            None => unknown(&id),
        },
        // SEP-2663: answers to input requests. No FlowMCP task asks for input, so there is
        // nothing outstanding: an empty answer is acknowledged, any other refused.
        "tasks/update" => match task_id.and_then(|t| tasks.get(t, &owner, &events)) {
            Some(r) if r.shape == Shape::Extension => {
                let answered = params
                    .get("inputResponses")
                    .and_then(Value::as_object)
                    .is_some_and(|m| !m.is_empty());
                if answered {
                    error(
                        &id,
                        INVALID_PARAMS,
                        "the task has no outstanding input requests",
                    )
                } else {
                    reply(&id, ack())
                }
            }
            Some(_) => error(
                &id,
                METHOD_NOT_FOUND,
                "tasks/update belongs to the tasks extension (SEP-2663); this task was created \
                 with `task` in tools/call",
            ),
            None => unknown(&id),
        },
        "tasks/result" => {
            let Some(task_id) = task_id else {
                return unknown(&id);
            };
            // Waits until the task ends (or is gone).
            loop {
                let Some(r) = tasks.get(task_id, &owner, &events) else {
                    return unknown(&id);
                };
                match (r.status, r.result) {
                    (Status::Working, _) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    (Status::Completed, Some(mut result)) => {
                        if let Some(obj) = result.as_object_mut() {
                            let meta = obj
                                .entry("_meta")
                                .or_insert_with(|| Value::Object(Map::new()));
                            if let Some(meta) = meta.as_object_mut() {
                                meta.insert(RELATED_TASK.into(), json!({"taskId": r.id}));
                            }
                        }
                        return reply(&id, result);
                    }
                    (Status::Cancelled, _) => {
                        return error(&id, INTERNAL_ERROR, "the task was cancelled");
                    }
                    (_, _) => {
                        let m = r.message.unwrap_or_else(|| "the task failed".into());
                        return error(&id, INTERNAL_ERROR, m);
                    }
                }
            }
        }
        "tasks/list" => {
            let all = tasks.list(&owner, &events);
            let start = match params.get("cursor") {
                None | Some(Value::Null) => 0,
                Some(c) => match c.as_str().and_then(|c| c.parse::<usize>().ok()) {
                    Some(n) if n <= all.len() => n,
                    _ => return error(&id, INVALID_PARAMS, "unknown cursor"),
                },
            };
            let end = (start + LIST_PAGE).min(all.len());
            let page: Vec<Value> = all[start..end]
                .iter()
                .map(|r| Value::Object(r.task()))
                .collect();
            let mut result = json!({ "tasks": page });
            if end < all.len() {
                result["nextCursor"] = json!(end.to_string());
            }
            reply(&id, result)
        }
        "tasks/cancel" => {
            let Some(r) = task_id.and_then(|t| tasks.get(t, &owner, &events)) else {
                return unknown(&id);
            };
            if r.status.terminal() {
                return error(
                    &id,
                    INVALID_PARAMS,
                    format!(
                        "the task is {} already",
                        json!(r.status).as_str().unwrap_or("")
                    ),
                );
            }
            // The running call is stopped (its upstream requests end), then the record ends.
            let stop = lock(&tasks.running).remove(&r.id);
            if let Some(stop) = stop {
                stop.notify_one();
            }
            if tasks.finish(
                &r.id,
                Status::Cancelled,
                Some("cancelled by the client".into()),
                None,
            ) {
                events.emit("cancelled", &r.id);
            }
            match tasks.get(&r.id, &owner, &events) {
                Some(r) if r.shape == Shape::Extension => reply(&id, ack()),
                Some(r) => reply(&id, Value::Object(r.task())),
                None => unknown(&id),
            }
        }
        _ => error(&id, METHOD_NOT_FOUND, format!("unknown method {method}")),
    }
}

/// A `tools/call`: as a task when its params ask for one; a plain call of a tool that requires a
/// task is refused.
fn create<H: Host>(
    server: &H,
    id: &Value,
    mut params: Map<String, Value>,
    owner: Arc<str>,
    info: Option<H::Info>,
    events: Events,
) -> Value {
    let Some(name) = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return error(
            id,
            INVALID_PARAMS,
            "`name` (the tool's name, a string) is required",
        );
    };
    let support = server.task_support(&name);
    let extension = extension_client(&params);
    let (task, shape) = match params.remove("task") {
        Some(Value::Object(task)) => (task, Shape::Spec2025),
        // A SEP-2663 client asks for nothing: the server offers the task (D132).
        _ if extension => (Map::new(), Shape::Extension),
        _ => {
            return error(
                id,
                METHOD_NOT_FOUND,
                format!(
                    "tool {name} requires task augmentation (execution.taskSupport: required): \
                 call it with `task` in the params"
                ),
            );
        }
    };
    if support == Support::Forbidden {
        return error(
            id,
            METHOD_NOT_FOUND,
            format!(
                "tool {name} cannot be called as a task (execution.taskSupport: forbidden): \
                 call it without `task`"
            ),
        );
    }
    let args = match params.remove("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a,
        Some(_) => return error(id, INVALID_PARAMS, "`arguments` must be an object"),
    };
    let ttl_ms = task
        .get("ttl")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_TTL_MS)
        .min(MAX_TTL_MS);
    let tasks = server.tasks();
    let now = now_ms();
    let record = Record {
        id: tasks.new_id(),
        owner: owner.to_string(),
        status: Status::Working,
        message: None,
        created_ms: now,
        updated_ms: now,
        ttl_ms,
        result: None,
        shape,
    };
    let task_id = record.id.clone();
    let shown = match shape {
        Shape::Spec2025 => json!({ "task": record.task() }),
        Shape::Extension => flowmcp_catalog::serde_json::to_value(
            rmcp::model::CreateTaskResult::new(record.extension_task()),
        )
        .unwrap_or(Value::Null),
    };
    if let Err(e) = tasks.save(&record) {
        return error(id, INTERNAL_ERROR, e);
    }
    let stop = Arc::new(Notify::new());
    lock(&tasks.running).insert(task_id.clone(), Arc::clone(&stop));
    events.emit("created", &task_id);
    if tasks.is_shared() {
        // A cancel through another replica reaches the call through the shared record.
        let server = server.clone();
        let (task_id, stop) = (task_id.clone(), Arc::clone(&stop));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(POLL_INTERVAL_MS)).await;
                let tasks = server.tasks();
                if !lock(&tasks.running).contains_key(&task_id) {
                    break;
                }
                if tasks
                    .load(&task_id)
                    .is_none_or(|r| r.status == Status::Cancelled)
                {
                    if let Some(stop) = lock(&tasks.running).remove(&task_id) {
                        stop.notify_one();
                    }
                    break;
                }
            }
            drop(stop);
        });
    }
    let server = server.clone();
    tokio::spawn(async move {
        let outcome = server.call_for_task(&name, args, info, stop).await;
        let tasks = server.tasks();
        let (status, message, result, event) = match outcome {
            Some(Ok(r)) => (Status::Completed, None, Some(r), "completed"),
            Some(Err(m)) => (Status::Failed, Some(m), None, "failed"),
            // Cancelled: `tasks/cancel` has ended the record.
            None => return,
        };
        if tasks.finish(&task_id, status, message, result) {
            events.emit(event, &task_id);
        }
    });
    reply(id, shown)
}

/// The id of the JSON-RPC message `text` as the key of `pending` in [`pump`] (its JSON text as
/// `serde_json` writes it), without building the rest of the message.
fn reply_id(text: &str) -> Option<String> {
    let message: RawObject = flowmcp_catalog::serde_json::from_str(text).ok()?;
    let id: Value = flowmcp_catalog::serde_json::from_str(message.get("id")?.get()).ok()?;
    Some(id.to_string())
}

/// Writes `line` and a newline to `out` and flushes; `false` when the stream is gone.
async fn write<W: tokio::io::AsyncWrite + Unpin>(
    out: Arc<tokio::sync::Mutex<W>>,
    line: String,
) -> bool {
    use tokio::io::AsyncWriteExt;
    let mut w = out.lock().await;
    let ok = w.write_all(line.as_bytes()).await.is_ok() && w.write_all(b"\n").await.is_ok();
    ok && w.flush().await.is_ok()
}

/// Carries newline-delimited JSON-RPC between the client's stream `io` and rmcp's end of a pipe
/// `rmcp` for one stdio session: task requests are answered here ([`answer`], each on a task of
/// its own: `tasks/result` waits), the answers to `initialize` and `tools/list` are completed
/// ([`decorate`]), everything else passes unchanged. Ends when both directions have ended.
pub(crate) async fn pump<H: Host, T>(server: H, io: T, rmcp: tokio::io::DuplexStream)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let owner = stdio_principal();
    let (client_read, client_write) = tokio::io::split(io);
    let (rmcp_read, mut rmcp_write) = tokio::io::split(rmcp);
    let out = Arc::new(tokio::sync::Mutex::new(client_write));
    let pending: Arc<Mutex<HashMap<String, Decoration>>> = Arc::default();
    // Client to rmcp.
    let inbound = {
        let out = Arc::clone(&out);
        let pending = Arc::clone(&pending);
        let server = server.clone();
        async move {
            let mut lines = BufReader::new(client_read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message = flowmcp_catalog::serde_json::from_str::<Value>(&line).ok();
                let plan = message.as_ref().map_or(Plan::Pass, |m| plan(m, &server));
                match plan {
                    Plan::Answer(call) => {
                        let (server, owner, out) =
                            (server.clone(), Arc::clone(&owner), Arc::clone(&out));
                        tokio::spawn(async move {
                            let reply = answer(&server, call, owner, None::<H::Info>).await;
                            write(out, reply.to_string()).await;
                        });
                        continue;
                    }
                    Plan::Decorate(what) => {
                        if let Some(id) = message.as_ref().and_then(|m| m.get("id")) {
                            lock(&pending).insert(id.to_string(), what);
                        }
                    }
                    Plan::Pass => {}
                }
                if rmcp_write.write_all(line.as_bytes()).await.is_err()
                    || rmcp_write.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
            // The client closed its stream: rmcp sees the end too.
            let _ = rmcp_write.shutdown().await;
        }
    };
    let inbound = tokio::spawn(inbound);
    // rmcp to client.
    let mut lines = BufReader::new(rmcp_read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        // Most lines answer nothing waiting to be completed, and are not read.
        let what = if lock(&pending).is_empty() {
            None
        } else {
            reply_id(&line).and_then(|key| lock(&pending).remove(&key))
        };
        let line = match what.and_then(|what| decorate(what, &line, &server)) {
            Some(completed) => completed,
            None => line,
        };
        if !write(Arc::clone(&out), line).await {
            break;
        }
    }
    inbound.abort();
    let _ = out.lock().await.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i43_task_support_comes_from_the_reserved_async_field() {
        assert_eq!(Support::of(None), Support::Optional);
        assert_eq!(
            Support::of(Some(&json!({"reserved": true}))),
            Support::Optional
        );
        assert_eq!(Support::of(Some(&json!("required"))), Support::Required);
        assert_eq!(
            Support::of(Some(&json!({"taskSupport": "forbidden"}))),
            Support::Forbidden
        );
        assert_eq!(Support::of(Some(&json!("nonsense"))), Support::Optional);
        assert_eq!(Support::of(Some(&json!("optional"))), Support::Offered);
        assert_eq!(Support::Offered.as_str(), "optional");
    }

    #[test]
    fn i43_a_task_is_its_owners_only_and_expires() {
        let tasks = Tasks::default();
        let events = Events::new(
            #[cfg(feature = "metrics")]
            None,
            None,
        );
        let now = now_ms();
        let mut r = Record {
            id: tasks.new_id(),
            owner: "a".into(),
            status: Status::Working,
            message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: 60_000,
            result: None,
            shape: Shape::Spec2025,
        };
        assert_eq!(r.id.len(), 32);
        assert_ne!(r.id, tasks.new_id());
        tasks.put(r.clone());
        assert!(tasks.get(&r.id, "a", &events).is_some());
        assert!(tasks.get(&r.id, "b", &events).is_none());
        assert_eq!(tasks.list("a", &events).len(), 1);
        assert!(tasks.list("b", &events).is_empty());
        r.created_ms = now - 61_000;
        tasks.put(r.clone());
        assert!(tasks.get(&r.id, "a", &events).is_none());
        assert!(lock(&tasks.records).is_empty(), "an expired task is gone");
        let shown = r.task();
        assert_eq!(shown["status"], "working");
        assert_eq!(shown["ttl"], 60_000);
        assert_eq!(shown["pollInterval"], POLL_INTERVAL_MS);
        assert!(shown["createdAt"].as_str().unwrap().ends_with('Z'));
    }

    /// The `tools/list` answer completed as text is, byte for byte, the answer read as a value,
    /// given each object tool with a string name its support's `execution` (appended, or in
    /// place of one it had), written again.
    #[test]
    fn i46_a_tools_list_answer_is_completed_as_text_as_its_value_would_be() {
        let support = |name: &str| match name {
            "req" => Support::Required,
            "off" => Support::Offered,
            "opt\u{e9}\"q" => Support::Optional,
            _ => Support::Forbidden,
        };
        let tools = json!([
            {"name": "req", "inputSchema": {"type": "object"}, "_meta": {"a": [1, 2.5, -0.0, 1e300]}},
            {"name": "off", "title": "t", "description": "line\nbreak \u{1} \\ /"},
            {"name": "opt\u{e9}\"q", "outputSchema": {"properties": {"b": {}, "a": {}}}},
            {"name": "other", "execution": {"taskSupport": "required"}, "z": null},
            {"name": 7, "x": true},
            {"description": "no name"},
            {},
            "not an object",
            [1, 2, {"name": "req"}, [-0.0]],
            3.5,
            null,
            true,
            -7,
            {"name": "req", "name2": u64::MAX, "neg": i64::MIN, "f": 0.1}
        ]);
        let mut texts: Vec<String> = [
            json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools.clone(), "nextCursor": "c"}}),
            json!({"jsonrpc": "2.0", "id": "s", "result": {"nextCursor": null, "tools": []}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": tools}}),
        ]
        .iter()
        .map(Value::to_string)
        .collect();
        // Repeated names: the last value counts, at the first one's place, at every level.
        texts.extend(
            [
                r#"{"jsonrpc":"2.0","id":4,"result":7,"result":{"tools":[{"name":"req"}]}}"#,
                r#"{"id":5,"result":{"tools":[{"name":"req"}],"x":[],"tools":[{"name":"off","name":"req"}]}}"#,
                r#"{"id":6,"result":{"tools":{"a":1},"tools":[{"name":"x","execution":1,"execution":2}]},"id":7}"#,
                r#"{"id":8,"result":{"tools":[[{"name":"req"}],{"tools":[]}],"next\u0043ursor":"é"}}"#,
            ]
            .map(str::to_string),
        );
        for text in texts {
            let mut expected: Value = serde_json::from_str(&text).unwrap();
            for tool in expected["result"]["tools"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .filter_map(Value::as_object_mut)
            {
                let s = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .map_or(Support::Forbidden, support);
                tool.insert("execution".into(), json!({"taskSupport": s.as_str()}));
            }
            assert_eq!(
                decorate_tools(&text, &support).as_deref(),
                Some(expected.to_string().as_str()),
                "{text}"
            );
        }
        // Nothing to complete: not an object, no result, a result without a list of tools.
        for text in [
            "[1]",
            "not json",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":[]}"#,
            r#"{"id":1,"result":{"tools":[]},"result":null}"#,
            r#"{"id":1,"result":{"tools":[],"tools":5}}"#,
            r#"{"id":1,"result":{"a":{"tools":[]}}}"#,
            r#"{"id":1,"result":{"tools":[]}} x"#,
            r#"{"id":1,"result":{"tools":[1,}}"#,
        ] {
            assert_eq!(decorate_tools(text, &support), None, "{text}");
        }
        // The id is read as the pump keys what it waits for.
        assert_eq!(
            reply_id(r#"{"id":"a\u0062","result":{}}"#).as_deref(),
            Some(r#""ab""#)
        );
        assert_eq!(reply_id(r#"{"id":2,"id":3}"#).as_deref(), Some("3"));
        assert_eq!(reply_id(r#"{"method":"x"}"#), None);
    }

    #[test]
    fn i43_principals_are_digests_that_differ_by_credential_and_route() {
        let a = principal("http", "/mcp", Some(b"secret-token"));
        assert!(!a.contains("secret"));
        assert_ne!(a, principal("http", "/mcp", Some(b"other")));
        assert_ne!(a, principal("http", "/other", Some(b"secret-token")));
        assert_eq!(a, principal("http", "/mcp", Some(b"secret-token")));
        assert_ne!(stdio_principal(), stdio_principal());
    }
}
