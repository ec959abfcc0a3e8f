//! # flowmcp-agent
//!
//! Runs a FlowMCP agent (chapter 06): its tool loop against any OpenAI-compatible
//! chat-completions endpoint (OpenRouter, as the specification assumes, or a local server), with
//! the tools its activation brings called through the catalog, and its tests checked.
//!
//! - [`Endpoint`]: where the model is (`FLOWMCP_LLM_BASE_URL`, default OpenRouter's API, with
//!   `/chat/completions` appended) and the key sent as a bearer token (`OPENROUTER_API_KEY`).
//! - [`AgentRunner`]: one agent of a catalog, activated; [`AgentRunner::run`] answers one input,
//!   [`AgentRunner::test`] runs the agent's tests.
//!
//! The loop: the system prompt and the input go to the model with the agent's tools offered as
//! `function` tools named by their wire names; each tool call the model asks for runs through the
//! catalog (so inputs are checked, secrets filled in and redacted as in any call) and its result
//! envelope goes back as a `tool` message; this repeats until the model answers without tool calls
//! or `maxRounds` rounds of tool calls have run. Every request, reply, tool call and timing is kept
//! in a transcript; the key is never part of it.
//!
//! The endpoint is not trusted with the key's secrecy: a gateway may echo it. Everything it sends
//! back is redacted ([`Endpoint::redactor`]: the key and flowmcp's other credentials, in every
//! form the runtime knows) before anything is derived from it — error texts, the answer, the
//! transcript, and the arguments of the tool calls it asks for (which would carry the key to a
//! tool's API).
//!
//! ```
//! use flowmcp_agent::{AgentRunner, Endpoint};
//! use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
//! # use std::io::{Read, Write};
//! # // A stand-in for the model on loopback: it answers once, without tool calls.
//! # let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! # let base_url = format!("http://{}", listener.local_addr()?);
//! # std::thread::spawn(move || {
//! #     let (mut socket, _) = listener.accept().expect("a request");
//! #     let mut request = Vec::new();
//! #     let mut buf = [0u8; 4096];
//! #     while let Ok(n) = socket.read(&mut buf) {
//! #         request.extend_from_slice(&buf[..n]);
//! #         let text = String::from_utf8_lossy(&request);
//! #         let Some(end) = text.find("\r\n\r\n") else { continue };
//! #         let length = text.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0))).unwrap_or(0);
//! #         if request.len() >= end + 4 + length { break }
//! #     }
//! #     let body = r#"{"choices":[{"message":{"role":"assistant","content":"Nine, from New Year to Christmas."}}]}"#;
//! #     let _ = write!(socket, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
//! # });
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/catalog");
//! let catalog = Catalog::open(dir.as_ref(), &CatalogOptions::new(Profile::Spec))?;
//! // `Endpoint::from_env()` reads FLOWMCP_LLM_BASE_URL and OPENROUTER_API_KEY; here a local model.
//! let mut endpoint = Endpoint::from_env();
//! endpoint.base_url = base_url;
//! let runner = AgentRunner::new(&catalog, "holiday-planner", endpoint)?;
//! let outcome = runner.run("Which public holidays does Germany have in 2026?")?;
//! assert_eq!(outcome.answer, "Nine, from New Year to Christmas.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `tls` (default): HTTPS to model endpoints and upstream APIs (the catalog's `tls`).
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Activation, Catalog, Code, Envelope};
use flowmcp_runtime::{secret::MODEL_KEY, secret::Redactor};
use flowmcp_spec::model::{AgentManifest, AgentTest};

/// OpenRouter's OpenAI-compatible API, the default base URL.
pub const DEFAULT_BASE_URL: &str = "https://openrouter.ai/api/v1";

/// The largest model reply read, in bytes.
const MAX_REPLY_BYTES: u64 = 16 * 1024 * 1024;

/// Why an agent could not run or answer. Each message starts with its registry code
/// ([`AgentError::code`], `AGENT001`…`AGENT005`).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The agent cannot be activated (see `Catalog::activate_agent`).
    #[error("{} {}", Code::AGENT001, .0)]
    Activation(flowmcp_catalog::ActivationError),
    /// The manifest lacks what a run needs (`model`, `systemPrompt`).
    #[error("{} {}", Code::AGENT002, .0)]
    Manifest(String),
    /// The model endpoint could not be reached, or answered with an HTTP error.
    #[error("{} {}", Code::AGENT003, .0)]
    Endpoint(String),
    /// The model's reply is not a chat completion this runner can read.
    #[error("{} {}", Code::AGENT004, .0)]
    Reply(String),
    /// The model still asked for tools after `maxRounds` rounds.
    #[error("{} the model still asked for tools after {} rounds (maxRounds)", Code::AGENT005, .0)]
    MaxRounds(usize),
}

impl AgentError {
    /// The registry code of this failure.
    pub fn code(&self) -> Code {
        match self {
            AgentError::Activation(_) => Code::AGENT001,
            AgentError::Manifest(_) => Code::AGENT002,
            AgentError::Endpoint(_) => Code::AGENT003,
            AgentError::Reply(_) => Code::AGENT004,
            AgentError::MaxRounds(_) => Code::AGENT005,
        }
    }
}

/// Where the model is and how to authenticate. Start from [`Endpoint::new`] or
/// [`Endpoint::from_env`] and set fields.
#[derive(Clone)]
#[non_exhaustive]
pub struct Endpoint {
    /// The base URL; `/chat/completions` is appended.
    pub base_url: String,
    /// The bearer token, if any (never printed).
    pub api_key: Option<String>,
    /// How long one model request may take.
    pub timeout: Duration,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Endpoint {
    /// The endpoint at `base_url`, without a key; 120 s per request.
    pub fn new(base_url: impl Into<String>) -> Endpoint {
        Endpoint {
            base_url: base_url.into(),
            api_key: None,
            timeout: Duration::from_secs(120),
        }
    }

    /// From the environment: `FLOWMCP_LLM_BASE_URL` (default [`DEFAULT_BASE_URL`]) and
    /// `OPENROUTER_API_KEY`; 120 s per request.
    pub fn from_env() -> Endpoint {
        let mut endpoint = Endpoint::new(
            std::env::var("FLOWMCP_LLM_BASE_URL")
                .ok()
                .filter(|u| !u.is_empty())
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
        );
        endpoint.api_key = std::env::var(MODEL_KEY).ok().filter(|k| !k.is_empty());
        endpoint
    }

    /// The chat-completions URL.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// An HTTP client for this endpoint: HTTP errors are answers, each request bounded by
    /// [`Endpoint::timeout`].
    fn client(&self) -> ureq::Agent {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(self.timeout))
            .build();
        ureq::Agent::new_with_config(config)
    }

    /// What hides the key in everything derived from the endpoint's replies: the key, and the
    /// values of flowmcp's own credentials in the process environment
    /// ([`flowmcp_runtime::secret::PRODUCT_CREDENTIALS`]), in every form the runtime writes values in.
    pub fn redactor(&self) -> Redactor {
        let mut r = Redactor::with_values(self.api_key.as_deref());
        r.hide_product_credentials(|k| std::env::var(k).ok());
        r
    }

    /// Sends one chat-completions request (`body` as the OpenAI-compatible API takes it) and
    /// returns the reply as JSON; the key goes only as `Authorization: Bearer …` to
    /// [`Endpoint::url`]. The reply and every error are redacted ([`Endpoint::redactor`]), so
    /// an endpoint that echoes the key cannot put it into what the caller derives from them.
    /// Replies are read up to 16 MiB.
    pub fn complete(&self, body: &Value) -> Result<Value, AgentError> {
        complete(&self.client(), self, body, &self.redactor())
    }

    /// The text of the first choice of a chat-completions `reply` (AGENT004 when there is none).
    pub fn reply_text(reply: &Value) -> Result<String, AgentError> {
        reply
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| AgentError::Reply("no `choices[0].message.content` text".into()))
    }
}

/// One chat-completions request with `http` to `endpoint`. The reply is redacted by `redactor`
/// before it is returned, and so is every error text (the error body is redacted whole before it
/// is shortened, so that no part of a key at the cut shows).
fn complete(
    http: &ureq::Agent,
    endpoint: &Endpoint,
    body: &Value,
    redactor: &Redactor,
) -> Result<Value, AgentError> {
    let url = endpoint.url();
    let endpoint_error = |text: String| AgentError::Endpoint(redactor.redact(&text));
    let mut request = http.post(&url).header("Content-Type", "application/json");
    if let Some(key) = &endpoint.api_key {
        request = request.header("Authorization", &format!("Bearer {key}"));
    }
    let mut response = request
        .send(body.to_string())
        .map_err(|e| endpoint_error(format!("{url}: {e}")))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES)
        .read_to_string()
        .map_err(|e| endpoint_error(format!("{url}: reading the reply: {e}")))?;
    if !(200..300).contains(&status) {
        let shown: String = redactor.redact(&text).chars().take(300).collect();
        return Err(endpoint_error(format!("{url}: HTTP {status}: {shown}")));
    }
    let mut reply: Value = serde_json::from_str(&text)
        .map_err(|e| AgentError::Reply(redactor.redact(&format!("the reply is not JSON: {e}"))))?;
    redactor.redact_json(&mut reply);
    Ok(reply)
}

/// One tool call the agent made. Made only by the runner; its fields are for reading.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's Primitive-ID (its wire name when the model named no served tool).
    pub id: String,
    /// The arguments the model gave.
    pub arguments: Value,
    /// Whether the call succeeded (its envelope's [`Envelope::status`]).
    pub ok: bool,
    /// The registry code of the failure when it failed ([`Envelope::code`]).
    pub failure: Option<Code>,
    /// How long it took.
    pub elapsed: Duration,
}

/// What one run gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The model's final answer.
    pub answer: String,
    /// Every tool call, in order.
    pub calls: Vec<ToolCall>,
    /// Rounds of tool calls.
    pub rounds: usize,
    /// Tokens the endpoint reported, `(prompt, completion)`.
    pub usage: (u64, u64),
    /// Every request body, reply, tool call and timing, as JSON (no key).
    pub transcript: Vec<Value>,
}

/// The result of one of the agent's tests.
#[derive(Clone, Debug)]
pub struct TestOutcome {
    /// The test's `_description`.
    pub description: String,
    /// `None` when it passed, else why not.
    pub failure: Option<String>,
    /// The tool IDs the agent called.
    pub called: Vec<String>,
}

/// An activated agent of a catalog, ready to run.
pub struct AgentRunner<'c> {
    catalog: &'c Catalog,
    name: String,
    model: String,
    system_prompt: String,
    max_rounds: usize,
    max_tokens: u64,
    /// The manifest's tests, typed ([`AgentManifest::tests`]).
    tests: Vec<AgentTest>,
    /// `(wire name, Primitive-ID)` of every tool offered.
    tools: Vec<(String, String)>,
    /// The `function` tools offered to the model.
    offered: Vec<Value>,
    endpoint: Endpoint,
    http: ureq::Agent,
    /// Hides the key in the endpoint's replies ([`Endpoint::redactor`], built once).
    redactor: Redactor,
    /// What activation noticed (a hash mismatch, parts not served).
    pub warnings: Vec<String>,
    /// Where the tool calls' notes go (cache notes, handler `console.*` lines); standard error
    /// when unset ([`AgentRunner::with_notes`]).
    notes: Option<Notes>,
    /// The most bytes of JSON one tool result may take in the model's context
    /// ([`AgentRunner::with_result_budget`]).
    result_budget: Option<usize>,
}

/// A sink for the notes of the agent's tool calls, shared by the threads that call tools.
type Notes = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

impl<'c> AgentRunner<'c> {
    /// Activates the agent `name` of `catalog` and prepares its tools.
    pub fn new(
        catalog: &'c Catalog,
        name: &str,
        endpoint: Endpoint,
    ) -> Result<AgentRunner<'c>, AgentError> {
        let Activation {
            tools: tool_ids,
            resources,
            warnings,
            ..
        } = catalog
            .activate_agent(name)
            .map_err(AgentError::Activation)?;
        let AgentManifest {
            model,
            system_prompt,
            max_rounds,
            max_tokens,
            tests,
            ..
        } = catalog.agent_manifest(name).ok_or_else(|| {
            AgentError::Activation(flowmcp_catalog::ActivationError::UnknownAgent {
                name: name.to_string(),
                known: Vec::new(),
            })
        })?;
        let needed = |value: Option<String>, k: &str| {
            value.ok_or_else(|| AgentError::Manifest(format!("agent {name:?} has no `{k}`")))
        };
        let mut tools = Vec::new();
        let mut offered = Vec::new();
        for e in catalog.list().iter().filter(|e| e.descriptor.is_exposed()) {
            let id = e.descriptor.id.to_string();
            let wanted = match e.descriptor.kind {
                flowmcp_catalog::runtime::Kind::Tool => tool_ids.contains(&id),
                _ => resources.contains(&id),
            };
            if !wanted {
                continue;
            }
            let d = &e.descriptor;
            offered.push(json!({
                "type": "function",
                "function": {
                    "name": d.wire_name,
                    "description": d.description,
                    "parameters": d.input_schema,
                }
            }));
            tools.push((d.wire_name.clone(), d.lookup_key()));
        }
        Ok(AgentRunner {
            catalog,
            name: name.to_string(),
            model: needed(model, "model")?,
            system_prompt: needed(system_prompt, "systemPrompt")?,
            max_rounds: max_rounds
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(10),
            max_tokens: max_tokens.unwrap_or(AgentManifest::DEFAULT_MAX_TOKENS),
            tests,
            tools,
            offered,
            http: endpoint.client(),
            redactor: endpoint.redactor(),
            endpoint,
            warnings,
            notes: None,
            result_budget: None,
        })
    }

    /// Sends the notes of the agent's tool calls (the preload cache's notes, handler
    /// `console.*` lines) to `notes` instead of standard error: a server writing structured logs
    /// hands them to its logger, so that every line it writes keeps its format.
    pub fn with_notes(mut self, notes: impl Fn(&str) + Send + Sync + 'static) -> AgentRunner<'c> {
        self.notes = Some(std::sync::Arc::new(notes));
        self
    }

    /// Bounds what one tool result may take in the model's context to `max_bytes` of JSON
    /// (`None`: no bound, the default): a larger result is cut inside the tool's output schema
    /// and a warning in its envelope says what was cut ([`Envelope::within`]).
    pub fn with_result_budget(mut self, max_bytes: Option<usize>) -> AgentRunner<'c> {
        self.result_budget = max_bytes;
        self
    }

    /// A caller of the catalog whose notes go where [`AgentRunner::with_notes`] said.
    fn caller(&self) -> flowmcp_catalog::Caller<'c> {
        match &self.notes {
            Some(notes) => {
                let notes = std::sync::Arc::clone(notes);
                self.catalog
                    .caller_with_log(Box::new(move |line: &str| notes(line)))
            }
            None => self.catalog.caller(),
        }
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Answers `input`: the tool loop until the model answers without tool calls.
    pub fn run(&self, input: &str) -> Result<Outcome, AgentError> {
        self.run_observed(input, &mut |_| {})
    }

    /// [`AgentRunner::run`], telling `progress` what happens: each model reply and each tool call,
    /// as one line (for progress reports of long runs).
    pub fn run_observed(
        &self,
        input: &str,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Outcome, AgentError> {
        let caller = self.caller();
        let mut messages = vec![
            json!({"role": "system", "content": self.system_prompt}),
            json!({"role": "user", "content": input}),
        ];
        let mut outcome = Outcome {
            answer: String::new(),
            calls: Vec::new(),
            rounds: 0,
            usage: (0, 0),
            transcript: Vec::new(),
        };
        loop {
            let mut body = json!({
                "model": self.model,
                "messages": messages,
                "max_tokens": self.max_tokens,
            });
            if !self.offered.is_empty() {
                body["tools"] = Value::Array(self.offered.clone());
            }
            let started = Instant::now();
            let reply = complete(&self.http, &self.endpoint, &body, &self.redactor)?;
            outcome.transcript.push(json!({
                "request": body,
                "reply": reply,
                "ms": started.elapsed().as_millis() as u64,
            }));
            if let Some(u) = reply.get("usage") {
                outcome.usage.0 += u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
                outcome.usage.1 += u
                    .get("completion_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
            }
            let message = reply
                .get("choices")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("message"))
                .and_then(Value::as_object)
                .ok_or_else(|| AgentError::Reply("the reply has no `choices[0].message`".into()))?;
            let calls = match message.get("tool_calls") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(c)) => c.clone(),
                Some(_) => {
                    return Err(AgentError::Reply("`tool_calls` is not an array".into()));
                }
            };
            if calls.is_empty() {
                outcome.answer = match message.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    _ => {
                        return Err(AgentError::Reply(
                            "the final message has no text `content`".into(),
                        ));
                    }
                };
                return Ok(outcome);
            }
            if outcome.rounds >= self.max_rounds {
                return Err(AgentError::MaxRounds(self.max_rounds));
            }
            outcome.rounds += 1;
            progress(&format!(
                "round {}: the model asks for {} tool call{}",
                outcome.rounds,
                calls.len(),
                if calls.len() == 1 { "" } else { "s" }
            ));
            messages.push(Value::Object(message.clone()));
            let mut parsed = Vec::with_capacity(calls.len());
            for call in &calls {
                let (call_id, wire, raw_args) = read_call(call)?;
                let arguments: Value = if raw_args.trim().is_empty() {
                    json!({})
                } else {
                    serde_json::from_str(&raw_args).unwrap_or(Value::String(raw_args.clone()))
                };
                parsed.push((call_id, wire, arguments));
            }
            // Calls to tools that are all concurrency-safe run at the same time, each on a
            // thread of its own (a caller belongs to one thread); anything else in order.
            let parallel = parsed.len() > 1
                && parsed
                    .iter()
                    .all(|(_, wire, _)| self.concurrency_safe(wire));
            let results: Vec<(String, Envelope, Duration)> = if parallel {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = parsed
                        .iter()
                        .map(|(_, wire, args)| {
                            scope.spawn(move || self.call_tool(&self.caller(), wire, args))
                        })
                        .collect();
                    handles
                        .into_iter()
                        .zip(&parsed)
                        .map(|(h, (_, wire, _))| {
                            h.join().unwrap_or_else(|_| {
                                (
                                    wire.clone(),
                                    Envelope::error(Code::E005, wire, "the call failed internally"),
                                    Duration::ZERO,
                                )
                            })
                        })
                        .collect()
                })
            } else {
                parsed
                    .iter()
                    .map(|(_, wire, args)| self.call_tool(&caller, wire, args))
                    .collect()
            };
            for ((call_id, _, arguments), (id, envelope, elapsed)) in
                parsed.into_iter().zip(results)
            {
                let ok = envelope.status();
                let result = envelope.to_json();
                outcome.transcript.push(json!({
                    "toolCall": {"id": id, "arguments": arguments, "ok": ok, "ms": elapsed.as_millis() as u64, "result": result}
                }));
                progress(&format!(
                    "called {id} ({})",
                    if ok { "ok" } else { "failed" }
                ));
                outcome.calls.push(ToolCall {
                    id,
                    arguments,
                    ok,
                    failure: envelope.code(),
                    elapsed,
                });
                messages.push(json!({
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": result.to_string(),
                }));
            }
        }
    }

    /// Whether the tool with this wire name is one of the agent's and may run at the same time as
    /// others ([`flowmcp_runtime::ToolDescriptor::concurrency_safe`], the MCP server's rule too).
    fn concurrency_safe(&self, wire: &str) -> bool {
        self.tools.iter().any(|(w, _)| w == wire)
            && self
                .catalog
                .find(wire)
                .is_some_and(|e| e.descriptor.concurrency_safe())
    }

    /// One tool call the model asked for: `(ID, envelope, time taken)`; a tool the agent does
    /// not have is an `E007` envelope.
    fn call_tool(
        &self,
        caller: &flowmcp_catalog::Caller<'_>,
        wire: &str,
        arguments: &Value,
    ) -> (String, Envelope, Duration) {
        let started = Instant::now();
        let (id, envelope) = match self.tools.iter().find(|(w, _)| w == wire) {
            Some((_, id)) => {
                let args = arguments.as_object().cloned().unwrap_or_else(Map::new);
                let envelope = caller.call_json(wire, &args);
                let envelope = match self.result_budget {
                    Some(max) => {
                        let schema = self
                            .catalog
                            .find(wire)
                            .and_then(|e| e.descriptor.output_schema.as_ref())
                            .map(|s| s.value());
                        envelope.within(max, schema)
                    }
                    None => envelope,
                };
                (id.clone(), envelope)
            }
            None => (
                wire.to_string(),
                Envelope::error(Code::E007, wire, "not a tool of this agent"),
            ),
        };
        (id, envelope, started.elapsed())
    }

    /// Runs every test of the agent: each passes when the agent called every tool in
    /// `expectedTools` and its answer contains every `expectedContent` text (case ignored).
    pub fn test(&self) -> Vec<TestOutcome> {
        self.tests
            .iter()
            .map(|t| {
                let description = t
                    .description
                    .as_deref()
                    .unwrap_or("(no description)")
                    .to_string();
                let input = t.input.as_deref().unwrap_or_default();
                match self.run(input) {
                    Err(e) => TestOutcome {
                        description,
                        failure: Some(e.to_string()),
                        called: Vec::new(),
                    },
                    Ok(o) => {
                        let called: BTreeSet<String> =
                            o.calls.iter().map(|c| c.id.clone()).collect();
                        let missing: Vec<String> = t
                            .expected_tools
                            .iter()
                            .filter(|t| !called.contains(*t))
                            .cloned()
                            .collect();
                        let answer = o.answer.to_lowercase();
                        let absent: Vec<String> = t
                            .expected_content
                            .iter()
                            .filter(|c| !answer.contains(&c.to_lowercase()))
                            .cloned()
                            .collect();
                        let mut why = Vec::new();
                        if !missing.is_empty() {
                            why.push(format!(
                                "expected tools not called: {} (called: {})",
                                missing.join(", "),
                                if called.is_empty() {
                                    "none".to_string()
                                } else {
                                    called.iter().cloned().collect::<Vec<_>>().join(", ")
                                }
                            ));
                        }
                        if !absent.is_empty() {
                            why.push(format!("answer lacks: {}", absent.join(", ")));
                        }
                        TestOutcome {
                            description,
                            failure: (!why.is_empty()).then(|| why.join("; ")),
                            called: called.into_iter().collect(),
                        }
                    }
                }
            })
            .collect()
    }
}

/// `(tool_call_id, function name, arguments text)` of one tool call of a reply.
fn read_call(call: &Value) -> Result<(String, String, String), AgentError> {
    let bad = || AgentError::Reply(format!("a tool call the runner cannot read: {call}"));
    let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
    let f = call.get("function").ok_or_else(bad)?;
    let name = f.get("name").and_then(Value::as_str).ok_or_else(bad)?;
    let args = match f.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    Ok((id.to_string(), name.to_string(), args))
}
