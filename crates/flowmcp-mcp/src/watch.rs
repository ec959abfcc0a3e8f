//! What a client hears of a tool call while it runs (docs/decisions.md, D129): its phases as
//! `notifications/progress` when the call carries a progress token, and as
//! `notifications/message` at `info` when the session asked for log messages at that level, and
//! the call's log line when it ends (the fields of the JSON log's `tool call` line: the tool's ID,
//! the outcome code and the duration). Phases and log lines are fixed texts and codes: never an
//! argument, a result or a server parameter.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); the protocol still has it.

use std::sync::{Mutex, PoisonError};

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
