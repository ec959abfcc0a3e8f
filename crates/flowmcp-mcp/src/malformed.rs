//! Requests of a method the server serves whose `params` do not decode.
//!
//! rmcp reads a request into the first of its known shapes that fits and falls back to a custom
//! request with the raw method and params; a `tools/call` without `params`, or whose `name` is a
//! number, becomes such a custom request, which rmcp's default answers `-32601` method not found
//! with the method as the whole message. The server's `on_custom_request` asks [`error`] instead:
//! a method it serves gets `-32602` invalid params saying what is wrong, and only a method it
//! does not serve gets `-32601`. Well-formed requests never come here, so the `tools/call` path
//! is unchanged.

use flowmcp_catalog::serde_json::{self, Value};
use flowmcp_spec::diagnostic::json_kind;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestMethod, ConstString, ErrorCode, GetPromptRequestMethod, GetPromptRequestParams,
    InitializeRequestParams, InitializeResultMethod, ListPromptsRequestMethod,
    ListResourceTemplatesRequestMethod, ListResourcesRequestMethod, ListToolsRequestMethod,
    PaginatedRequestParams, PingRequestMethod, ReadResourceRequestMethod,
    ReadResourceRequestParams,
};
use serde::de::DeserializeOwned;

/// Why `params` do not decode as `T`, in serde's words.
type Check = fn(&Value) -> Option<String>;

fn check<T: DeserializeOwned>(params: &Value) -> Option<String> {
    serde_json::from_value::<T>(params.clone())
        .err()
        .map(|e| e.to_string())
}

/// The methods the server serves besides `tools/call`, each with the check of its params (`None`:
/// it takes none).
const SERVED: &[(&str, Option<Check>)] = &[
    (
        InitializeResultMethod::VALUE,
        Some(check::<InitializeRequestParams>),
    ),
    (PingRequestMethod::VALUE, None),
    (
        ListToolsRequestMethod::VALUE,
        Some(check::<PaginatedRequestParams>),
    ),
    (
        ListPromptsRequestMethod::VALUE,
        Some(check::<PaginatedRequestParams>),
    ),
    (
        GetPromptRequestMethod::VALUE,
        Some(check::<GetPromptRequestParams>),
    ),
    (
        ListResourcesRequestMethod::VALUE,
        Some(check::<PaginatedRequestParams>),
    ),
    (
        ListResourceTemplatesRequestMethod::VALUE,
        Some(check::<PaginatedRequestParams>),
    ),
    (
        ReadResourceRequestMethod::VALUE,
        Some(check::<ReadResourceRequestParams>),
    ),
];

/// The answer to a request of `method` with `params` that rmcp could not decode.
pub(crate) fn error(method: &str, params: Option<&Value>) -> ErrorData {
    let why = if method == CallToolRequestMethod::VALUE {
        tools_call(params)
    } else if let Some((_, check)) = SERVED.iter().find(|(m, _)| *m == method) {
        match (params, check) {
            (Some(p), _) if !p.is_object() => {
                format!("`params` must be an object, not {}", json_kind(p))
            }
            (Some(p), Some(check)) => check(p).unwrap_or_else(|| "not understood".to_string()),
            (None, Some(check)) => format!(
                "`params` is missing{}",
                check(&Value::Object(serde_json::Map::new()))
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ),
            (_, None) => "not understood".to_string(),
        }
    } else {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
            None,
        );
    };
    ErrorData::invalid_params(format!("{method}: invalid params: {why}"), None)
}

/// What is wrong with the params of a `tools/call`.
fn tools_call(params: Option<&Value>) -> String {
    let expected = "expected {\"name\": \"<tool>\", \"arguments\": {…}}";
    let Some(params) = params else {
        return format!("`params` is missing; {expected}");
    };
    let Some(fields) = params.as_object() else {
        return format!(
            "`params` must be an object, not {}; {expected}",
            json_kind(params)
        );
    };
    match fields.get("name") {
        None => return format!("`params.name` (the tool to call) is missing; {expected}"),
        Some(Value::String(_)) => {}
        Some(other) => {
            return format!(
                "`params.name` (the tool to call) must be a string, not {}",
                json_kind(other)
            );
        }
    }
    match fields.get("arguments") {
        Some(Value::Object(_) | Value::Null) | None => {}
        Some(other) => {
            return format!(
                "`params.arguments` must be an object of the tool's inputs by name, not {}",
                json_kind(other)
            );
        }
    }
    check::<rmcp::model::CallToolRequestParams>(params)
        .unwrap_or_else(|| "not understood".to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use flowmcp_catalog::serde_json::json;

    fn message(method: &str, params: Option<Value>) -> (i32, String) {
        let e = error(method, params.as_ref());
        (e.code.0, e.message.to_string())
    }

    #[test]
    fn i28_7f_malformed_tools_calls_say_what_is_wrong() {
        let cases = [
            (None, "`params` is missing"),
            (Some(json!([1])), "`params` must be an object, not an array"),
            (
                Some(json!({})),
                "`params.name` (the tool to call) is missing",
            ),
            (
                Some(json!({"name": 42})),
                "`params.name` (the tool to call) must be a string, not a number",
            ),
            (
                Some(json!({"name": "t", "arguments": "x"})),
                "`params.arguments` must be an object of the tool's inputs by name, not a string",
            ),
        ];
        for (params, want) in cases {
            let (code, text) = message("tools/call", params.clone());
            assert_eq!(code, -32602, "{params:?}: {text}");
            assert!(text.starts_with("tools/call: invalid params: "), "{text}");
            assert!(text.contains(want), "{params:?}: {text}");
        }
    }

    #[test]
    fn i28_7f_other_served_methods_are_invalid_params_and_unknown_ones_not_found() {
        let (code, text) = message("prompts/get", Some(json!({"name": 7})));
        assert_eq!(code, -32602, "{text}");
        assert!(text.starts_with("prompts/get: invalid params: "), "{text}");
        let (code, text) = message("resources/read", None);
        assert_eq!(code, -32602, "{text}");
        assert!(text.contains("uri"), "{text}");
        let (code, text) = message("tools/list", Some(json!({"cursor": 5})));
        assert_eq!(code, -32602, "{text}");
        let (code, text) = message("no/such/method", Some(json!({})));
        assert_eq!(code, -32601, "{text}");
        assert_eq!(text, "method not found: no/such/method");
    }
}
