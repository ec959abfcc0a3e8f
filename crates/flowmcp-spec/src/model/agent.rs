//! The typed model of an agent manifest, `export const agent` (chapter 06).
//!
//! Validation works on the manifest's JSON and reports what is wrong with it (the AGT rules);
//! this model is what runs afterwards (activation's product, the agent runner, an agent served as
//! a tool). Like [`super::SchemaMain`] it is lenient where that is harmless, and it reads a
//! manifest exactly as the runner always read the JSON:
//!
//! * unknown keys are ignored: no rule reports them in a manifest, so they are not an error;
//! * a member of the wrong type reads as absent (`None`, an empty map or list), so that a
//!   manifest whose rule was switched off still reads (`--rule AGT003=off`); whoever needs a
//!   member says so where it is needed (the runner: AGENT002 without `model` or `systemPrompt`);
//! * `maxRounds` and `maxTokens` are whole numbers of at least 1, anything else absent (the
//!   defaults [`AgentManifest::DEFAULT_MAX_ROUNDS`] and [`AgentManifest::DEFAULT_MAX_TOKENS`]
//!   apply);
//! * `tests` keeps every entry, an entry that is not an object as a test with nothing in it;
//!   `expectedTools`, `expectedContent` and `selections` keep their strings.
//!
//! Only `name` is required: a manifest is found by it.

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::{Map, Value};

/// An agent manifest (`export const agent`), typed; see the module documentation for how it
/// reads.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentManifest {
    /// The agent's name (`^[a-z][a-z0-9-]*$`, its directory's name).
    pub name: String,
    /// What the agent is for.
    #[serde(default, deserialize_with = "lenient")]
    pub description: Option<String>,
    /// The manifest format (`flowmcp/4.0.0`).
    #[serde(default, deserialize_with = "lenient")]
    pub version: Option<String>,
    /// The model in OpenRouter syntax (`provider/model-name`).
    #[serde(default, deserialize_with = "lenient")]
    pub model: Option<String>,
    /// The system message of every conversation.
    #[serde(default, deserialize_with = "lenient")]
    pub system_prompt: Option<String>,
    /// `tools` as written: `ns/tool/name: null` references and inline tool definitions
    /// ([`AgentManifest::external_tools`]).
    #[serde(default, deserialize_with = "lenient")]
    pub tools: Map<String, Value>,
    /// The agent's tests, in order.
    #[serde(default, deserialize_with = "lenient_tests")]
    pub tests: Vec<AgentTest>,
    /// Tool-call rounds per conversation, when given as a whole number of at least 1.
    #[serde(default, deserialize_with = "count")]
    pub max_rounds: Option<u64>,
    /// Tokens per model response, when given as a whole number of at least 1.
    #[serde(default, deserialize_with = "count")]
    pub max_tokens: Option<u64>,
    /// `prompts` as written (references and `{ file }` declarations).
    #[serde(default, deserialize_with = "lenient")]
    pub prompts: Map<String, Value>,
    /// `skills` as written (`{ file }` declarations).
    #[serde(default, deserialize_with = "lenient")]
    pub skills: Map<String, Value>,
    /// `resources` as written (references and inline resource definitions).
    #[serde(default, deserialize_with = "lenient")]
    pub resources: Map<String, Value>,
    /// `sharedLists` as written (list names; activation checks them).
    #[serde(default, deserialize_with = "lenient")]
    pub shared_lists: Option<Value>,
    /// The JSON Schema of the agent's input, when it is an object.
    #[serde(default, deserialize_with = "lenient")]
    pub input_schema: Option<Map<String, Value>>,
    /// The selection IDs to load (its strings).
    #[serde(default, deserialize_with = "strings")]
    pub selections: Vec<String>,
    /// `elicitation` as written (its use reads `enabled`, `maxRounds`, `requestedSchemas`).
    #[serde(default, deserialize_with = "lenient")]
    pub elicitation: Option<Value>,
    /// The agent hash the manifest records (`sha256:<hex>`).
    #[serde(default, deserialize_with = "lenient")]
    pub hash: Option<String>,
}

/// One test of an agent (chapter 06, "Test Fields").
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentTest {
    /// What the test demonstrates (`_description`).
    #[serde(rename = "_description", default, deserialize_with = "lenient")]
    pub description: Option<String>,
    /// What the agent is asked.
    #[serde(default, deserialize_with = "lenient")]
    pub input: Option<String>,
    /// The tool IDs the agent should call (its strings).
    #[serde(default, deserialize_with = "strings")]
    pub expected_tools: Vec<String>,
    /// Texts the answer must contain, case ignored (its strings).
    #[serde(default, deserialize_with = "strings")]
    pub expected_content: Vec<String>,
}

impl AgentManifest {
    /// The rounds of tool calls when the manifest gives no `maxRounds` (chapter 06).
    pub const DEFAULT_MAX_ROUNDS: u64 = 10;
    /// The tokens per response when the manifest gives no `maxTokens` (chapter 06).
    pub const DEFAULT_MAX_TOKENS: u64 = 4096;

    /// Reads the `agent` export; fails only when it is not an object with a string `name`.
    pub fn from_json(agent: &Value) -> Result<AgentManifest, serde_json::Error> {
        AgentManifest::deserialize(agent)
    }

    /// `maxRounds`, or its default.
    pub fn max_rounds(&self) -> u64 {
        self.max_rounds.unwrap_or(Self::DEFAULT_MAX_ROUNDS)
    }

    /// `maxTokens`, or its default.
    pub fn max_tokens(&self) -> u64 {
        self.max_tokens.unwrap_or(Self::DEFAULT_MAX_TOKENS)
    }

    /// The IDs of the external tools: the keys of `tools` with `/` whose value is `null`, as
    /// written (a slash key with another value is AGT020 and names nothing).
    pub fn external_tools(&self) -> impl Iterator<Item = &str> {
        self.tools
            .iter()
            .filter(|(key, value)| key.contains('/') && value.is_null())
            .map(|(key, _)| key.as_str())
    }
}

/// A member read as `T`, or `T`'s default when it does not fit.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}

/// A whole number of at least 1, else `None`.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(value.as_u64().filter(|n| *n > 0))
}

/// The strings of an array (other entries left out); empty when it is not an array.
fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(match value {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}

/// Every entry of an array as a test (one that is not an object as an empty test); no tests
/// when it is not an array.
fn lenient_tests<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AgentTest>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(match value {
        Value::Array(items) => items
            .into_iter()
            .map(|v| serde_json::from_value(v).unwrap_or_default())
            .collect(),
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i40_a_manifest_reads_typed_with_the_chapters_fields() {
        let m = AgentManifest::from_json(&json!({
            "name": "crypto-research",
            "description": "Research tokens",
            "version": "flowmcp/4.0.0",
            "model": "anthropic/claude-sonnet-4-5",
            "systemPrompt": "You are a research agent.",
            "tools": {"coingecko-com/tool/simplePrice": null, "custom": {"method": "GET"}, "x/tool/y": {}},
            "tests": [
                {"_description": "price", "input": "ETH?", "expectedTools": ["coingecko-com/tool/simplePrice", 3], "expectedContent": ["USD"]},
                "not a test"
            ],
            "maxRounds": 5,
            "inputSchema": {"type": "object"},
            "selections": ["a/selection/b"],
            "elicitation": {"enabled": true, "maxRounds": 2},
            "hash": "sha256:00",
            "somethingElse": true
        }))
        .unwrap();
        assert_eq!(m.name, "crypto-research");
        assert_eq!(m.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
        assert_eq!(
            m.system_prompt.as_deref(),
            Some("You are a research agent.")
        );
        assert_eq!(
            m.external_tools().collect::<Vec<_>>(),
            ["coingecko-com/tool/simplePrice"]
        );
        assert_eq!(m.max_rounds(), 5);
        assert_eq!(m.max_tokens(), AgentManifest::DEFAULT_MAX_TOKENS);
        assert_eq!(m.tests.len(), 2);
        assert_eq!(m.tests[0].description.as_deref(), Some("price"));
        assert_eq!(
            m.tests[0].expected_tools,
            ["coingecko-com/tool/simplePrice"]
        );
        assert_eq!(m.tests[0].expected_content, ["USD"]);
        assert_eq!(m.tests[1], AgentTest::default());
        assert!(m.input_schema.is_some());
        assert_eq!(m.selections, ["a/selection/b"]);
        assert_eq!(m.hash.as_deref(), Some("sha256:00"));
    }

    #[test]
    fn i40_a_member_of_the_wrong_type_reads_as_absent() {
        let m = AgentManifest::from_json(&json!({
            "name": "a",
            "model": 7,
            "tools": [],
            "tests": "three",
            "maxRounds": 0,
            "maxTokens": "many",
            "inputSchema": "text"
        }))
        .unwrap();
        assert_eq!(m.model, None);
        assert!(m.tools.is_empty() && m.tests.is_empty());
        assert_eq!((m.max_rounds(), m.max_tokens()), (10, 4096));
        assert_eq!(m.input_schema, None);
        // Only a missing name (or a manifest that is not an object) does not read.
        assert!(AgentManifest::from_json(&json!({"model": "a/b"})).is_err());
        assert!(AgentManifest::from_json(&json!([])).is_err());
    }
}
