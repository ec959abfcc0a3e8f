//! Elicitation for an agent served with `--agent` (chapter 06, `agent.elicitation`): when a call
//! to one of its tools lacks required parameters and the client can show a form, the server asks
//! the user for them with `elicitation/create` — the agent's own `requestedSchemas` template whose
//! properties name a missing parameter, or else a form made from the tool's own parameters — and
//! runs the call with what the user gave.
//!
//! Clients on protocol 2026-07-28 or later get the request inside an `InputRequiredResult` and
//! send the answer back with the retried call; older clients get a server-to-client request on
//! the same connection (stdio). `maxRounds` bounds how many times one session asks; a stateless
//! HTTP request is a session of its own, and one call asks at most once.

use std::sync::atomic::{AtomicU32, Ordering};

use flowmcp_catalog::serde_json::{self, Map, Value, json};
use flowmcp_spec::model::AgentManifest;
use rmcp::model::{
    ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, JsonObject,
};

/// The key of the server's elicitation in an `InputRequiredResult` and in the client's answer.
pub(crate) const INPUT_KEY: &str = "flowmcp-elicitation";

/// An agent's elicitation settings, when it enables elicitation.
#[derive(Clone, Debug)]
pub(crate) struct Elicitation {
    /// How many times one session may ask (`maxRounds`, at least 1).
    max_rounds: u32,
    /// `requestedSchemas`: the message and the restricted schema of each template.
    templates: Vec<(String, Value)>,
}

/// What one session has used.
#[derive(Debug, Default)]
pub(crate) struct Rounds(AtomicU32);

impl Rounds {
    /// Takes one round if fewer than `max` were taken.
    fn take(&self, max: u32) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }
}

/// What the server knows of the client for one call.
pub(crate) struct Client<'a> {
    /// The answers the call carries (`inputResponses`, protocol 2026-07-28 and later).
    pub(crate) answers: Option<&'a InputResponses>,
    /// What the client said it can do.
    pub(crate) capabilities: Option<&'a ClientCapabilities>,
    /// Whether it speaks protocol 2026-07-28 or later.
    pub(crate) modern: bool,
    /// Whether server-to-client requests can reach it (older protocols, not stateless HTTP).
    pub(crate) requests: bool,
}

/// What to do with a call after looking at its missing parameters.
pub(crate) enum Step {
    /// Run it with these arguments (completed from the user's answer, or as they were).
    Run(Map<String, Value>, Option<String>),
    /// Send this to the client first (protocol 2026-07-28 or later).
    Ask(InputRequiredResult),
    /// Ask the client with a server-to-client request, then run.
    Request(ElicitRequestParams, Map<String, Value>),
}

impl Elicitation {
    /// The settings of the agent manifest `agent`, when `elicitation.enabled` is `true`.
    pub(crate) fn of(agent: &AgentManifest) -> Option<Elicitation> {
        let e = agent.elicitation.as_ref()?;
        if e.get("enabled").and_then(Value::as_bool) != Some(true) {
            return None;
        }
        let max_rounds = e
            .get("maxRounds")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1)?;
        let templates = e
            .get("requestedSchemas")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let message = t.get("message")?.as_str()?.to_string();
                let schema = t.get("requestedSchema").filter(|s| s.is_object())?.clone();
                Some((message, schema))
            })
            .collect();
        Some(Elicitation {
            max_rounds,
            templates,
        })
    }

    /// The form that asks for the required parameters of the tool `name` (whose input schema is
    /// `schema`) that `args` lacks: a template naming one of them, or one made from the tool's
    /// parameters of a simple type. `None` when nothing is missing or nothing missing can be
    /// asked for in a form.
    pub(crate) fn form(
        &self,
        name: &str,
        schema: &JsonObject,
        args: &Map<String, Value>,
    ) -> Option<ElicitRequestParams> {
        let missing: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|k| !args.contains_key(*k))
            .collect();
        if missing.is_empty() {
            return None;
        }
        let template = self.templates.iter().find(|(_, s)| {
            s.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| missing.iter().any(|m| p.contains_key(*m)))
        });
        let request = match template {
            Some((message, schema)) => json!({"message": message, "requestedSchema": schema}),
            None => {
                let props = schema.get("properties").and_then(Value::as_object)?;
                let mut fields = Map::new();
                for name in &missing {
                    let p = props.get(*name)?;
                    let simple = matches!(
                        p.get("type").and_then(Value::as_str),
                        Some("string" | "number" | "integer" | "boolean")
                    );
                    if !simple {
                        return None;
                    }
                    let mut field = Map::new();
                    for key in [
                        "type",
                        "description",
                        "enum",
                        "minimum",
                        "maximum",
                        "minLength",
                        "maxLength",
                        "default",
                    ] {
                        if let Some(v) = p.get(key) {
                            field.insert(key.to_string(), v.clone());
                        }
                    }
                    field.insert("title".into(), Value::String((*name).to_string()));
                    fields.insert((*name).to_string(), Value::Object(field));
                }
                json!({
                    "message": format!("{name} needs {}", missing.join(", ")),
                    "requestedSchema": {"type": "object", "properties": fields, "required": missing},
                })
            }
        };
        match serde_json::from_value::<ElicitRequestParams>(request) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!("elicitation for {name}: the form cannot be sent: {e}");
                None
            }
        }
    }

    /// The next step for a call of the tool `name` (whose input schema is `schema`) with `args`
    /// from `client`: run it (with the answer the client sent back merged in), or ask first,
    /// taking one of the session's `rounds`.
    pub(crate) fn step(
        &self,
        name: &str,
        schema: &JsonObject,
        mut args: Map<String, Value>,
        client: &Client<'_>,
        rounds: &Rounds,
    ) -> Step {
        if let Some(answer) = client.answers.and_then(|a| a.get(INPUT_KEY)) {
            let note = match serde_json::from_value::<ElicitResult>(answer.clone()) {
                Ok(result) => apply(schema, &mut args, result),
                Err(e) => Some(format!("the answer to the elicitation cannot be read: {e}")),
            };
            return Step::Run(args, note);
        }
        let can_form = client
            .capabilities
            .and_then(|c| c.elicitation.as_ref())
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        if !can_form || !(client.modern || client.requests) {
            return Step::Run(args, None);
        }
        let Some(form) = self.form(name, schema, &args) else {
            return Step::Run(args, None);
        };
        if !rounds.take(self.max_rounds) {
            return Step::Run(
                args,
                Some(format!(
                    "not asked: this session used its {} elicitation round(s)",
                    self.max_rounds
                )),
            );
        }
        if client.modern {
            let mut requests = InputRequests::new();
            requests.insert(
                INPUT_KEY.to_string(),
                InputRequest::Elicitation(ElicitRequest::new(form)),
            );
            Step::Ask(InputRequiredResult::from_input_requests(requests))
        } else {
            Step::Request(form, args)
        }
    }
}

/// Puts what the user accepted into `args` (only the parameters of the tool's input `schema`);
/// says why nothing was put when the user declined or cancelled.
pub(crate) fn apply(
    schema: &JsonObject,
    args: &mut Map<String, Value>,
    result: ElicitResult,
) -> Option<String> {
    match result.action {
        ElicitationAction::Accept => {
            let params = schema.get("properties").and_then(Value::as_object);
            if let (Some(Value::Object(content)), Some(params)) = (result.content, params) {
                for (k, v) in content {
                    if params.contains_key(&k) && !args.contains_key(&k) {
                        args.insert(k, v);
                    }
                }
            }
            None
        }
        ElicitationAction::Decline => Some("the user declined to give the missing input".into()),
        ElicitationAction::Cancel => Some("the user cancelled the request for input".into()),
        _ => Some(
            "the client answered the elicitation with an action this server does not know".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a panic in a test is a failed test
    use super::*;
    use rmcp::model::Tool;
    use std::sync::Arc;

    fn tool() -> Tool {
        let schema = json!({"type": "object", "properties": {
            "year": {"type": "integer", "description": "The year"},
            "countryCode": {"type": "string", "description": "ISO code"},
            "filters": {"type": "array"}
        }, "required": ["year", "countryCode"]});
        Tool::new(
            "getPublicHolidays_holidaykit-net",
            "Holidays",
            Arc::new(schema.as_object().cloned().unwrap()),
        )
    }

    fn settings(templates: Value) -> Elicitation {
        let agent = json!({"name": "a", "elicitation": {"enabled": true, "maxRounds": 1, "requestedSchemas": templates}});
        Elicitation::of(&AgentManifest::from_json(&agent).unwrap()).unwrap()
    }

    #[test]
    fn disabled_or_without_rounds_is_no_elicitation() {
        for agent in [
            json!({"name": "a", "elicitation": {"enabled": false, "maxRounds": 2}}),
            json!({"name": "a", "elicitation": {"enabled": true, "maxRounds": 0}}),
            json!({"name": "a"}),
        ] {
            assert!(Elicitation::of(&AgentManifest::from_json(&agent).unwrap()).is_none());
        }
    }

    #[test]
    fn a_template_naming_a_missing_parameter_is_used_else_a_form_is_made() {
        let t = tool();
        let e = settings(json!([{"message": "Which country?", "requestedSchema": {
            "type": "object", "properties": {"countryCode": {"type": "string"}}, "required": ["countryCode"]}}]));
        let args = json!({"year": 2026}).as_object().cloned().unwrap();
        let form = serde_json::to_value(e.form(&t.name, &t.input_schema, &args).unwrap()).unwrap();
        assert_eq!(form["message"], "Which country?");
        let e = settings(json!([]));
        let form = serde_json::to_value(e.form(&t.name, &t.input_schema, &args).unwrap()).unwrap();
        assert_eq!(form["requestedSchema"]["required"], json!(["countryCode"]));
        assert_eq!(
            form["requestedSchema"]["properties"]["countryCode"]["type"],
            "string"
        );
        let full = json!({"year": 2026, "countryCode": "DE"})
            .as_object()
            .cloned()
            .unwrap();
        assert!(e.form(&t.name, &t.input_schema, &full).is_none());
    }

    #[test]
    fn rounds_are_bounded_and_answers_are_merged() {
        let t = tool();
        let e = settings(json!([]));
        let rounds = Rounds::default();
        let caps: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let args = Map::new();
        let mut client = Client {
            answers: None,
            capabilities: Some(&caps),
            modern: true,
            requests: false,
        };
        assert!(matches!(
            e.step(&t.name, &t.input_schema, args.clone(), &client, &rounds),
            Step::Ask(_)
        ));
        assert!(matches!(
            e.step(&t.name, &t.input_schema, args.clone(), &client, &rounds),
            Step::Run(_, Some(_))
        ));
        let mut answers = InputResponses::new();
        answers.insert(
            INPUT_KEY.into(),
            json!({"action": "accept", "content": {"year": 2026, "countryCode": "AT", "other": 1}}),
        );
        client.answers = Some(&answers);
        let Step::Run(args, None) = e.step(&t.name, &t.input_schema, args, &client, &rounds) else {
            panic!("an answer runs the call");
        };
        assert_eq!(
            Value::Object(args),
            json!({"year": 2026, "countryCode": "AT"})
        );
    }
}
