//! The response envelope `{ status, messages, data[, warnings] }` and the runtime error codes
//! E001–E009. The specification shows only `E001 <tool>: API returned <status>` (output-schema
//! chapter); this project numbers the other runtime failures E002–E009 in the same style.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A runtime error family code; each maps to a registry [`flowmcp_spec::Code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ECode {
    /// Upstream status (`E001 <tool>: API returned <status>`).
    E001,
    /// Network failure.
    E002,
    /// Timeout.
    E003,
    /// Invalid response body.
    E004,
    /// Handler failure.
    E005,
    /// Missing server parameter.
    E006,
    /// Invalid input.
    E007,
    /// Response too large.
    E008,
    /// Refused request: not HTTPS, a non-public address, a redirect that leaves HTTPS, or a
    /// request that leaves the schema's origin or would carry a secret elsewhere.
    E009,
}

impl ECode {
    /// Every code, in order.
    pub const ALL: [ECode; 9] = [
        ECode::E001,
        ECode::E002,
        ECode::E003,
        ECode::E004,
        ECode::E005,
        ECode::E006,
        ECode::E007,
        ECode::E008,
        ECode::E009,
    ];

    /// `E001` … `E009`.
    pub fn as_str(self) -> &'static str {
        match self {
            ECode::E001 => "E001",
            ECode::E002 => "E002",
            ECode::E003 => "E003",
            ECode::E004 => "E004",
            ECode::E005 => "E005",
            ECode::E006 => "E006",
            ECode::E007 => "E007",
            ECode::E008 => "E008",
            ECode::E009 => "E009",
        }
    }

    /// The registry code.
    pub fn code(self) -> flowmcp_spec::Code {
        use flowmcp_spec::Code;
        match self {
            ECode::E001 => Code::E001,
            ECode::E002 => Code::E002,
            ECode::E003 => Code::E003,
            ECode::E004 => Code::E004,
            ECode::E005 => Code::E005,
            ECode::E006 => Code::E006,
            ECode::E007 => Code::E007,
            ECode::E008 => Code::E008,
            ECode::E009 => Code::E009,
        }
    }

    /// The meaning, in a few words (the registry's summary says it in full).
    pub fn meaning(self) -> &'static str {
        match self {
            ECode::E001 => "upstream status",
            ECode::E002 => "network failure",
            ECode::E003 => "timeout",
            ECode::E004 => "invalid response body",
            ECode::E005 => "handler failure",
            ECode::E006 => "missing server parameter",
            ECode::E007 => "invalid input",
            ECode::E008 => "response too large",
            ECode::E009 => "refused request",
        }
    }
}

impl fmt::Display for ECode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of a tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub status: bool,
    pub messages: Vec<String>,
    pub data: Value,
    /// Non-fatal notes; left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Envelope {
    /// A success with `data`.
    pub fn ok(data: Value) -> Self {
        Envelope {
            status: true,
            messages: Vec::new(),
            data,
            warnings: Vec::new(),
        }
    }

    /// A failure whose one message is `<code> <tool>: <message>`; `data` is `null`.
    pub fn error(code: ECode, tool: &str, message: &str) -> Self {
        Envelope::failure(code.as_str(), tool, message)
    }

    /// [`Envelope::error`] with a code of another family: a resource's (`RES020`, `RES033`,
    /// `MD004`, …) as well as `E001`…`E009`.
    pub fn failure(code: &str, tool: &str, message: &str) -> Self {
        Envelope {
            status: false,
            messages: vec![format_message(code, tool, message)],
            data: Value::Null,
            warnings: Vec::new(),
        }
    }

    /// Adds warnings (builder style).
    pub fn with_warnings(mut self, warnings: impl IntoIterator<Item = String>) -> Self {
        self.warnings.extend(warnings);
        self
    }

    /// The envelope as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::json!(self)
    }
}

/// `<code> <tool>: <message>`, e.g. `E001 getTokenPrice: API returned 404`.
pub(crate) fn format_message(code: &str, tool: &str, message: &str) -> String {
    format!("{code} {tool}: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ok_serialises_without_warnings() {
        let e = Envelope::ok(json!({"a": 1}));
        assert_eq!(
            serde_json::to_string(&e).ok().as_deref(),
            Some(r#"{"status":true,"messages":[],"data":{"a":1}}"#)
        );
        let w = e.with_warnings(["w1".to_string()]);
        assert_eq!(w.to_json()["warnings"], json!(["w1"]));
    }

    #[test]
    fn error_message_format() {
        let e = Envelope::error(ECode::E001, "getTokenPrice", "API returned 404");
        assert!(!e.status);
        assert_eq!(e.messages, vec!["E001 getTokenPrice: API returned 404"]);
        assert_eq!(e.data, Value::Null);
        assert_eq!(
            e.to_json(),
            json!({"status": false, "messages": ["E001 getTokenPrice: API returned 404"], "data": null})
        );
    }

    #[test]
    fn codes_map_to_registry() {
        for c in ECode::ALL {
            assert_eq!(format!("{:?}", c.code()), c.as_str());
            assert!(!c.meaning().is_empty());
        }
        assert_eq!(ECode::E006.to_string(), "E006");
    }
}
