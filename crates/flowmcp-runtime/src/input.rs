//! Validating call inputs against a tool's user parameters.
//!
//! JSON inputs (MCP, `--json`) are strict: the JSON type must match ([`ZType::validate`](flowmcp_spec::zod::ZType::validate)). Text
//! inputs from the command line are converted first ([`ZType::coerce_str`](flowmcp_spec::zod::ZType::coerce_str)). Then defaults are
//! applied, omitted optional parameters stay omitted, unknown keys are rejected, and every
//! problem is collected into one [`InputError`] (envelope message `E007 <tool>: …`).
//!
//! A JSON `null` counts as "not given" (clients often send `null` for optional fields).

use flowmcp_spec::zod::ZValueError;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::descriptor::{ToolDescriptor, UserParam};
use crate::envelope::Envelope;
use flowmcp_spec::Code;

/// Validated inputs: parameter key → value, in parameter order, defaults filled in.
pub type Inputs = IndexMap<String, Value>;

/// Every problem found in a call's inputs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub struct InputError {
    /// The tool name (as written in `main.tools`).
    pub tool: String,
    /// One line per problem, e.g. `year: must be at most 2100 (found 2200)`.
    pub problems: Vec<String>,
}

impl InputError {
    /// The runtime code, always [`Code::E007`].
    pub fn code(&self) -> Code {
        Code::E007
    }

    /// The failure envelope `E007 <tool>: <problem>; <problem>…`.
    pub fn envelope(&self) -> Envelope {
        Envelope::error(Code::E007, &self.tool, &self.to_string())
    }
}

fn problem(key: &str, e: &ZValueError) -> String {
    format!("{key}: {e}")
}

/// Validates JSON inputs strictly (`null` counts as not given).
pub fn validate_json(
    desc: &ToolDescriptor,
    inputs: &Map<String, Value>,
) -> Result<Inputs, InputError> {
    check(desc, inputs.keys(), |p| {
        inputs
            .get(&p.key)
            .filter(|v| !v.is_null())
            .map(|v| Ok(v.clone()))
    })
}

/// Validates text inputs (command line): each value is converted to the parameter's type, then
/// checked like JSON.
pub fn validate_strings(
    desc: &ToolDescriptor,
    inputs: &IndexMap<String, String>,
) -> Result<Inputs, InputError> {
    check(desc, inputs.keys(), |p| {
        inputs.get(&p.key).map(|t| p.z.coerce_str(t))
    })
}

/// The checks both entry points share: unknown keys, then per parameter the given value (or its
/// default), validated when it was given. `given(param)` yields the value as the caller read it.
fn check<'k>(
    desc: &ToolDescriptor,
    keys: impl Iterator<Item = &'k String>,
    given: impl Fn(&UserParam) -> Option<Result<Value, ZValueError>>,
) -> Result<Inputs, InputError> {
    let mut problems = Vec::new();
    for key in keys {
        if desc.param(key).is_none() {
            problems.push(format!("unknown parameter \"{key}\""));
        }
    }
    let mut out = Inputs::new();
    for p in &desc.params {
        let value = match given(p) {
            Some(Ok(v)) => Some(v),
            Some(Err(e)) => {
                problems.push(problem(&p.key, &e));
                continue;
            }
            None => None,
        };
        match p.z.apply_default(value.as_ref()) {
            Ok(Some(v)) => {
                // Defaults come from the schema; only given values are validated.
                if value.is_some()
                    && let Err(e) = p.z.validate(&v)
                {
                    problems.push(problem(&p.key, &e));
                    continue;
                }
                out.insert(p.key.clone(), v);
            }
            Ok(None) => {}
            Err(e) => problems.push(problem(&p.key, &e)),
        }
    }
    finish(desc, out, problems)
}

fn finish(desc: &ToolDescriptor, out: Inputs, problems: Vec<String>) -> Result<Inputs, InputError> {
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(InputError {
            tool: desc.tool.clone(),
            problems,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::{DescribeOptions, describe_tool};
    use crate::secret::ServerParams;
    use flowmcp_spec::model::SchemaMain;
    use serde_json::json;

    fn desc() -> ToolDescriptor {
        let main = SchemaMain::from_json(&json!({
            "namespace": "ns", "name": "N", "description": "d", "version": "4.2.0",
            "root": "https://x.example",
            "tools": {"getThing": {"method": "GET", "path": "/x", "description": "D", "parameters": [
                {"position": {"key": "year", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "number()", "options": ["min(1900)", "max(2100)"]}},
                {"position": {"key": "kind", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "enum(a,b)", "options": ["default(a)"]}},
                {"position": {"key": "flag", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "boolean()", "options": ["optional()"]}},
                {"position": {"key": "ids", "value": "{{USER_PARAM}}", "location": "query"},
                 "z": {"primitive": "array()", "options": ["optional()"]}}
            ]}}
        }))
        .expect("schema");
        describe_tool(
            &main,
            "getThing",
            &ServerParams::new(),
            DescribeOptions::default(),
        )
        .expect("descriptor")
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn json_valid_with_defaults_and_omitted_optionals() {
        let d = desc();
        let r = validate_json(&d, &obj(json!({"year": 2024, "flag": null}))).expect("valid");
        assert_eq!(r.keys().collect::<Vec<_>>(), vec!["year", "kind"]);
        assert_eq!(r["kind"], json!("a"));
    }

    #[test]
    fn json_is_strict_and_collects_every_problem() {
        let d = desc();
        let e = validate_json(&d, &obj(json!({"year": "2024", "kind": "c", "extra": 1})))
            .expect_err("invalid");
        assert_eq!(e.problems.len(), 3, "{:?}", e.problems);
        assert!(e.problems[0].contains("unknown parameter \"extra\""));
        assert!(e.problems[1].starts_with("year: expected a number"));
        assert!(e.problems[2].starts_with("kind: "));
        let env = e.envelope();
        assert!(env.messages()[0].starts_with("E007 getThing: unknown parameter"));
        let missing = validate_json(&d, &Map::new()).expect_err("missing");
        assert_eq!(missing.problems, vec!["year: a value is required"]);
        let range = validate_json(&d, &obj(json!({"year": 2200}))).expect_err("range");
        assert!(range.problems[0].contains("at most 2100"));
    }

    #[test]
    fn strings_are_coerced() {
        let d = desc();
        let mut m = IndexMap::new();
        m.insert("year".to_string(), " 2024 ".to_string());
        m.insert("flag".to_string(), "true".to_string());
        m.insert("ids".to_string(), "[\"x\",\"y\"]".to_string());
        let r = validate_strings(&d, &m).expect("valid");
        assert_eq!(r["year"], json!(2024));
        assert_eq!(r["flag"], json!(true));
        assert_eq!(r["ids"], json!(["x", "y"]));
        m.insert("flag".to_string(), "yes".to_string());
        m.insert("year".to_string(), "1800".to_string());
        m.insert("nope".to_string(), "1".to_string());
        let e = validate_strings(&d, &m).expect_err("invalid");
        assert_eq!(e.problems.len(), 3, "{:?}", e.problems);
    }
}
