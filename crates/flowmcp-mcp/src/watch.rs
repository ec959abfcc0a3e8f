//! What a client hears of a tool call while it runs (docs/decisions.md, D129): its phases as
//! `notifications/progress` when the call carries a progress token, and as
//! `notifications/message` at `info` when the session asked for log messages at that level, and
//! the call's log line when it ends (the fields of the JSON log's `tool call` line: the tool's ID,
//! the outcome code and the duration). Phases and log lines are fixed texts and codes: never an
//! argument, a result or a server parameter.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); the protocol still has it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::json;
use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::Peer;
use tokio::task::JoinHandle;

use crate::request::Phases;

/// The logger name of the call's phases (the JSON logs' target of the runtime's notes).
const PHASE_LOGGER: &str = crate::request::RUNTIME_NOTES;
/// The logger name of the call's log line (the JSON logs' target of the `tool call` line).
const CALL_LOGGER: &str = "flowmcp::call";

/// The level a session's client asked for with `logging/setLevel`; none until it asks.
#[derive(Debug, Default)]
pub(crate) struct LogLevel(Mutex<Option<LoggingLevel>>);

impl LogLevel {
    /// Records the level the client asked for.
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// Whether a message at `level` goes to the client.
    pub(crate) fn wants(&self, level: LoggingLevel) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|min| severity(level) >= severity(min))
    }

    /// The level one request's messages go at: the level its own `_meta` names
    /// (`io.modelcontextprotocol/logLevel`, SEP-2575: how a client without a session asks),
    /// else the session's.
    pub(crate) fn for_request(&self, asked: Option<LoggingLevel>) -> LogLevel {
        let own = asked.or(*self.0.lock().unwrap_or_else(PoisonError::into_inner));
        LogLevel(Mutex::new(own))
    }
}

/// How long a principal's level is remembered over HTTP after its last `logging/setLevel`.
const REMEMBERED_FOR: Duration = Duration::from_secs(3600);
/// The most principals whose levels one server remembers in memory (a new one beyond it is not
/// remembered until older ones expire).
const MAX_REMEMBERED: usize = 10_000;

/// The levels principals asked for over stateless HTTP (D135), where a request is its own
/// session: `logging/setLevel` is remembered for its principal (the endpoint and credential,
/// [`RequestInfo::owner`](crate::server::RequestInfo)) for an hour, in memory, or in the preload
/// cache's Redis so that every replica knows it.
#[derive(Default)]
pub(crate) struct Levels {
    memory: Mutex<HashMap<Arc<str>, (LoggingLevel, Instant)>>,
    #[cfg(feature = "redis")]
    shared: Option<flowmcp_catalog::runtime::RedisCache>,
}

impl std::fmt::Debug for Levels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Levels")
    }
}

/// The Redis key of a principal's level.
#[cfg(feature = "redis")]
fn level_key(owner: &str) -> String {
    format!("flowmcp:loglevel:v1:{owner}")
}

impl Levels {
    /// Levels kept in `cache` (the preload cache's Redis), shared by every replica that uses it.
    #[cfg(feature = "redis")]
    pub(crate) fn shared_in(cache: flowmcp_catalog::runtime::RedisCache) -> Levels {
        Levels {
            shared: Some(cache),
            ..Levels::default()
        }
    }

    /// Remembers that `owner` asked for `level`.
    pub(crate) fn set(&self, owner: &Arc<str>, level: LoggingLevel) {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            let Ok(text) = flowmcp_catalog::serde_json::to_vec(&level) else {
                return;
            };
            if let Err(e) = redis.put_value(&level_key(owner), &text, REMEMBERED_FOR) {
                tracing::warn!(target: "flowmcp::call", "the log level store: {e}");
            }
            return;
        }
        let now = Instant::now();
        let mut memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
        if memory.len() >= MAX_REMEMBERED && !memory.contains_key(owner) {
            memory.retain(|_, (_, at)| now.duration_since(*at) < REMEMBERED_FOR);
            if memory.len() >= MAX_REMEMBERED {
                return;
            }
        }
        memory.insert(Arc::clone(owner), (level, now));
    }

    /// The level `owner` asked for within the last hour, if any.
    pub(crate) fn get(&self, owner: &str) -> Option<LoggingLevel> {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            return match redis.get_value(&level_key(owner)) {
                Ok(bytes) => bytes.and_then(|b| flowmcp_catalog::serde_json::from_slice(&b).ok()),
                Err(e) => {
                    tracing::warn!(target: "flowmcp::call", "the log level store: {e}");
                    None
                }
            };
        }
        let memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
        memory
            .get(owner)
            .filter(|(_, at)| at.elapsed() < REMEMBERED_FOR)
            .map(|(level, _)| *level)
    }
}

/// RFC 5424's order, least severe first.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// One call's listener: forwards its phases while it runs, then says how it ended.
pub(crate) struct Watch {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    /// Whether the session wants the end line at `info` (a success) and at `warning` (a failure).
    end_logged: (bool, bool),
    tool: String,
    forward: Option<JoinHandle<u32>>,
}

impl Watch {
    /// A listener for a call of the tool `tool` (its ID): `None` when the client neither gave
    /// a progress token nor asked for messages. The first phase (`preparing`) is sent now.
    pub(crate) fn start(
        peer: &Peer<RoleServer>,
        token: Option<ProgressToken>,
        level: &LogLevel,
        tool: &str,
    ) -> Option<(Watch, Phases)> {
        let phases_logged = level.wants(LoggingLevel::Info);
        let end_logged = (phases_logged, level.wants(LoggingLevel::Warning));
        if token.is_none() && !end_logged.1 {
            return None;
        }
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<&'static str>();
        let _ = tx.send("preparing the call");
        let (p, t, id) = (peer.clone(), token.clone(), tool.to_string());
        let forward = tokio::spawn(async move {
            let mut step = 0u32;
            while let Some(phase) = rx.recv().await {
                step += 1;
                if let Some(t) = &t {
                    let _ = p
                        .notify_progress(
                            ProgressNotificationParam::new(t.clone(), f64::from(step))
                                .with_message(phase),
                        )
                        .await;
                }
                if phases_logged {
                    let data = json!({"tool": id, "phase": phase});
                    let _ = p
                        .notify_logging_message(
                            LoggingMessageNotificationParam::new(LoggingLevel::Info, data)
                                .with_logger(PHASE_LOGGER),
                        )
                        .await;
                }
            }
            step
        });
        Some((
            Watch {
                peer: peer.clone(),
                token,
                end_logged,
                tool: tool.to_string(),
                forward: Some(forward),
            },
            tx,
        ))
    }

    /// The call ended with `outcome` (`None`: it succeeded) after `took`: the last progress
    /// (`done`, with the total now known) and the call's log line (`info` when it succeeded,
    /// `warning` when it failed).
    pub(crate) async fn end(mut self, outcome: Option<&str>, took: std::time::Duration) {
        let steps = match self.forward.take() {
            Some(f) => f.await.unwrap_or(0),
            None => 0,
        };
        if let Some(t) = &self.token {
            let last = f64::from(steps + 1);
            let message = match outcome {
                None => "done".to_string(),
                Some(code) => format!("done: failed with {code}"),
            };
            let _ = self
                .peer
                .notify_progress(
                    ProgressNotificationParam::new(t.clone(), last)
                        .with_total(last)
                        .with_message(message),
                )
                .await;
        }
        let (level, wanted) = match outcome {
            None => (LoggingLevel::Info, self.end_logged.0),
            Some(_) => (LoggingLevel::Warning, self.end_logged.1),
        };
        if wanted {
            let data = json!({
                "message": "tool call",
                "tool": self.tool,
                "outcome": outcome.unwrap_or("ok"),
                "duration_ms": took.as_secs_f64() * 1000.0,
            });
            let _ = self
                .peer
                .notify_logging_message(
                    LoggingMessageNotificationParam::new(level, data).with_logger(CALL_LOGGER),
                )
                .await;
        }
    }
}
