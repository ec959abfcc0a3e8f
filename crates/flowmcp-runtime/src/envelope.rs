//! The response envelope `{ status, messages, data[, warnings] }` and the runtime error codes
//! E001–E009. The specification shows only `E001 <tool>: API returned <status>` (output-schema
//! chapter); this project numbers the other runtime failures E002–E009 in the same style.

use std::fmt;

use flowmcp_spec::Code;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a call failed, as data: the registry code, the tool (or resource) it concerns and what
/// went wrong. [`Failure`]'s `Display` is the message the envelope carries,
/// `<code> <tool>: <message>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    code: Code,
    tool: String,
    message: String,
}

impl Failure {
    /// A failure of `tool` with `code`; `message` says what went wrong (without the code or the
    /// tool).
    pub fn new(code: Code, tool: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            code,
            tool: tool.into(),
            message: message.into(),
        }
    }

    /// The registry code: `E001`…`E009`, or the code of a resource engine (`RES033`, `MD004`, …).
    pub fn code(&self) -> Code {
        self.code
    }

    /// The tool (or resource entry) that failed, as the message names it.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// What went wrong, without the code and the tool.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.code, self.tool, self.message)
    }
}

/// The result of a tool call.
///
/// A failed call carries its [`Failure`] as data ([`Envelope::failure`]); [`Envelope::messages`]
/// starts with its rendering, `<code> <tool>: <message>`, which is all the JSON shows. An envelope
/// read back from JSON has no typed failure: the wire carries only the rendering.
///
/// The fields are read through methods: an envelope is made only by [`Envelope::ok`],
/// [`Envelope::error`] and [`Envelope::failed`], so its status, messages and failure always agree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    status: bool,
    messages: Vec<String>,
    data: Value,
    /// Non-fatal notes; left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    /// The failure of a failed call; not part of the JSON.
    #[serde(skip)]
    failure: Option<Failure>,
}

impl Envelope {
    /// A success with `data`.
    pub fn ok(data: Value) -> Self {
        Envelope {
            status: true,
            messages: Vec::new(),
            data,
            warnings: Vec::new(),
            failure: None,
        }
    }

    /// A failure whose one message is `<code> <tool>: <message>`; `data` is `null`.
    pub fn error(code: Code, tool: &str, message: &str) -> Self {
        Envelope::failed(Failure::new(code, tool, message))
    }

    /// A failed call: `status` false, `data` `null`, and one message, the failure's rendering.
    pub fn failed(failure: Failure) -> Self {
        Envelope {
            status: false,
            messages: vec![failure.to_string()],
            data: Value::Null,
            warnings: Vec::new(),
            failure: Some(failure),
        }
    }

    /// Whether the call succeeded (`status` in the JSON).
    pub fn status(&self) -> bool {
        self.status
    }

    /// What went wrong: for a failed call, the failure's rendering first, then any further notes
    /// ([`Envelope::with_message`]); empty for a success.
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// The result (`null` for a failed call).
    pub fn data(&self) -> &Value {
        &self.data
    }

    /// How the result differs from `schema`, a tool's declared output schema (in its JSON Schema
    /// form), one line per mismatch naming its JSON pointer and the problem; empty when it matches.
    /// Values are never quoted (they may be large or sensitive); only types are named.
    pub fn output_mismatches(&self, schema: &Value) -> Vec<String> {
        crate::output::check_output(schema, &self.data)
    }

    /// The result, taken out of the envelope.
    pub fn into_data(self) -> Value {
        self.data
    }

    /// Non-fatal notes about the call (a cache fallback, a truncated result, …).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Adds a further message after the failure's rendering (builder style); a success keeps
    /// its empty messages, so the note is dropped.
    pub fn with_message(mut self, message: String) -> Self {
        if !self.status {
            self.messages.push(message);
        }
        self
    }

    /// Why the call failed: `None` for a success (and for an envelope read from JSON).
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// The failure's code: `None` for a success (and for an envelope read from JSON).
    pub fn code(&self) -> Option<Code> {
        self.failure.as_ref().map(Failure::code)
    }

    /// Adds warnings (builder style).
    pub fn with_warnings(mut self, warnings: impl IntoIterator<Item = String>) -> Self {
        self.warnings.extend(warnings);
        self
    }

    /// The envelope with its data fitted into `max_bytes` of JSON inside `schema` (the tool's
    /// declared output schema, if any; see [`budget::fit`](crate::budget::fit)), and a warning
    /// saying what was cut and how large the data was: for `flowmcp call` and the agent runner,
    /// which hand the envelope on whole. A failed envelope, and data within the budget, are
    /// returned as they are.
    pub fn within(self, max_bytes: usize, schema: Option<&Value>) -> Self {
        if !self.status {
            return self;
        }
        let fitted = crate::budget::fit(&self.data, schema, max_bytes);
        if !fitted.is_cut() {
            return self;
        }
        let note = format!(
            "result cut to fit {max_bytes} bytes ({} bytes of JSON became {}{}): {}",
            fitted.original_bytes,
            fitted.bytes,
            if fitted.fits { "" } else { ", still over" },
            fitted.describe()
        );
        let mut out = Envelope::ok(fitted.data).with_warnings(self.warnings);
        out.warnings.push(note);
        out
    }

    /// The envelope as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::json!(self)
    }
}

/// A failed call, with any code (`E001`…, or a resource's: `RES020`, `RES033`, `MD004`…).
pub(crate) struct Coded(pub(crate) Code, pub(crate) String);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i44_an_envelope_within_a_budget_cuts_its_data_and_says_so() {
        let e = Envelope::ok(json!({"list": (0..1000).collect::<Vec<_>>()}))
            .with_warnings(["earlier".to_string()]);
        let cut = e.clone().within(500, None);
        assert!(serde_json::to_vec(cut.data()).map_or(0, |v| v.len()) <= 500);
        assert_eq!(cut.warnings()[0], "earlier");
        assert!(
            cut.warnings()[1].starts_with("result cut to fit 500 bytes (")
                && cut.warnings()[1].ends_with("became 500): /list: 150 of 1000 elements"),
            "{:?}",
            cut.warnings()
        );
        assert_eq!(e.clone().within(1 << 20, None), e);
        let failed = Envelope::error(Code::E001, "t", "API returned 500");
        assert_eq!(failed.clone().within(10, None), failed);
    }

    /// Issue #40: a result is checked against a declared output schema by the envelope itself.
    #[test]
    fn i40_output_mismatches_name_the_pointer_and_the_type() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "number"}}});
        assert!(
            Envelope::ok(json!({"n": 1}))
                .output_mismatches(&schema)
                .is_empty()
        );
        let found = Envelope::ok(json!({"n": "one"})).output_mismatches(&schema);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("/n: expected number"), "{found:?}");
        assert!(
            !found[0].contains("one"),
            "the value is never quoted: {found:?}"
        );
    }

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
        let e = Envelope::error(Code::E001, "getTokenPrice", "API returned 404");
        assert!(!e.status);
        assert_eq!(e.messages, vec!["E001 getTokenPrice: API returned 404"]);
        assert_eq!(e.data, Value::Null);
        assert_eq!(
            e.to_json(),
            json!({"status": false, "messages": ["E001 getTokenPrice: API returned 404"], "data": null})
        );
    }

    /// Issue 29, item 3: a failed envelope carries its failure as data, and `messages` is its
    /// rendering; the JSON is unchanged and reading it back leaves the typed failure empty.
    #[test]
    fn i29_3_the_envelope_carries_a_typed_failure() {
        let e = Envelope::error(Code::MD004, "guide", "no section `Setup`");
        let f = e.failure().cloned().unwrap_or_else(|| panic!("no failure"));
        assert_eq!(
            (f.code(), f.tool(), f.message()),
            (Code::MD004, "guide", "no section `Setup`")
        );
        assert_eq!(e.code(), Some(Code::MD004));
        assert_eq!(e.messages, vec![f.to_string()]);
        assert_eq!(e.messages, vec!["MD004 guide: no section `Setup`"]);
        assert_eq!(
            e.to_json(),
            json!({"status": false, "messages": ["MD004 guide: no section `Setup`"], "data": null})
        );
        let text = e.to_json().to_string();
        let back: Envelope = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.messages, e.messages);
        assert_eq!(back.failure(), None);
        assert_eq!(Envelope::ok(Value::Null).failure(), None);
    }
}
