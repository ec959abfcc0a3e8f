//! The grading transport, scoring protocol v1 (chapter 22): `prompts.json` for an external
//! grader, and the grade report from the `scores.json` it returns.
//!
//! Prompt generation and grade calculation are deterministic; scoring is the grader's (an LLM).
//! `prompts.json` depends only on the schema file: the same file gives the same bytes.

use std::path::{Path, PathBuf};

use flowmcp_spec::FileReport;
use flowmcp_spec::id::IdType;
use serde_json::{Map, Value, json};

/// The protocol version this implementation speaks.
pub const SCORING_PROTOCOL: &str = "v1";

/// The dimensions protocol v1 rates, in order.
pub const DIMENSIONS: [&str; 2] = ["whenToUse", "parameters"];

/// The instructions every grader gets with the prompts.
pub const INSTRUCTIONS: &str = "You rate one FlowMCP schema. Judge only from the information given \
below, without outside knowledge or guesses about its context, each prompt on its own. Answer \
with a JSON array of objects: [ { \"dimension\": \"…\", \"score\": <1.0-5.0>, \"reasoning\": \
\"…\" }, … ], one per prompt.";

/// A schema file loaded once for grading: its [`GradedSchema`] and the same evaluation,
/// validated later for the grade report (the file is not read or run a second time).
#[derive(Debug)]
pub struct GradedFile {
    path: PathBuf,
    display: String,
    loaded: flowmcp_loader::LoadedFile,
    schema: GradedSchema,
}

impl GradedFile {
    /// Loads the schema file at `path` (shown as `display`) within `options`' limits.
    /// [`GradeError::NotASchema`] (naming `display`) when it has no `main`.
    pub fn load(
        path: &Path,
        display: &str,
        options: &flowmcp_validate::Options,
    ) -> Result<GradedFile, GradeError> {
        let loaded = flowmcp_loader::load_file(path, display, &options.limits, &options.settings);
        let main = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("main"))
            .cloned()
            .ok_or_else(|| GradeError::NotASchema(display.to_string()))?;
        let schema = GradedSchema::new(path, main)?;
        Ok(GradedFile {
            path: path.to_path_buf(),
            display: display.to_string(),
            loaded,
            schema,
        })
    }

    /// What is graded: the schema's ID, its tools and the prompts for them.
    pub fn schema(&self) -> &GradedSchema {
        &self.schema
    }

    /// The validation the grade report records, of the evaluation [`GradedFile::load`] made,
    /// with `options` and the shared lists the file sees.
    pub fn validate(&mut self, options: &flowmcp_validate::Options) -> FileReport {
        let lists = crate::ListDiscovery::new().scope_for(&self.path, &self.display, options);
        flowmcp_validate::validate_loaded_mut(&mut self.loaded, options, &lists, Some(&self.path))
    }
}

/// Why grading failed.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// The file has no readable `main` with a `namespace`.
    #[error("{0}: no `export const main` with a namespace: not a schema file")]
    NotASchema(String),
    /// `scores.json` names a protocol this implementation does not speak.
    #[error("scores.json: unknown scoringProtocol {0:?} (this implementation speaks \"v1\")")]
    Protocol(String),
    /// `scores.json` is for another schema.
    #[error("scores.json is for {found:?}, not {expected:?}")]
    OtherSchema {
        /// The schema's slug.
        expected: String,
        /// The slug in `scores.json`.
        found: String,
    },
    /// `scores.json` is not what protocol v1 describes.
    #[error("scores.json: {0}")]
    Scores(String),
}

/// The validator version a grade report names (`validatorVersion`): this validator implements the
/// rules of specification 4.2.
pub const VALIDATOR_VERSION: &str = "validation/4.2";

/// A schema file as grading names it.
#[derive(Clone, Debug)]
pub struct GradedSchema {
    /// The Schema-File-ID, `namespace/file-base`.
    pub id: String,
    /// The ID with `/` replaced by `_`, for file names.
    pub slug: String,
    /// The file's absolute path, as the reports show it.
    pub path: String,
    /// The schema's `main`.
    pub main: Value,
}

impl GradedSchema {
    /// The schema of the file at `path` whose `main` is `main`.
    pub fn new(path: &Path, main: Value) -> Result<GradedSchema, GradeError> {
        let shown = path.display().to_string();
        let namespace = main
            .get("namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| GradeError::NotASchema(shown.clone()))?;
        let base = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| GradeError::NotASchema(shown.clone()))?;
        let id = format!("{namespace}/{base}");
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(GradedSchema {
            slug: id.replace('/', "_"),
            id,
            path: absolute.display().to_string(),
            main,
        })
    }

    /// The `prompts.json` of protocol v1 for this schema.
    pub fn prompts(&self) -> Value {
        let text = |key: &str| self.main.get(key).and_then(Value::as_str).unwrap_or("");
        let when = format!(
            "Rate, on a scale from 1.0 to 5.0, how clearly and specifically the following schema \
             description tells a language model when to use this schema (and when not).\n\
             Schema: {}\nDescription: {}",
            text("name"),
            json!(text("description"))
        );
        let parameters = format!(
            "Rate, on a scale from 1.0 to 5.0, how well the descriptions of the tools and their \
             parameters below let a language model call each tool correctly (which values, in \
             which format, what each one does).\nTools: {}",
            self.tool_summary()
        );
        json!({
            "schemaId": self.id,
            "schemaIdSlug": self.slug,
            "schemaPath": self.path,
            "scoringProtocol": SCORING_PROTOCOL,
            "scoringInstructions": INSTRUCTIONS,
            "prompts": [
                {"dimension": DIMENSIONS[0], "prompt": when},
                {"dimension": DIMENSIONS[1], "prompt": parameters},
            ]
        })
    }

    /// The Primitive-IDs the schema defines, in file order: its tools (and 3.x `routes`), its
    /// resources and its prompts.
    pub fn primitives(&self) -> Vec<String> {
        let namespace = self
            .main
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut out = Vec::new();
        for (key, kind) in [
            ("tools", IdType::Tool),
            ("routes", IdType::Tool),
            ("resources", IdType::Resource),
            ("prompts", IdType::Prompt),
        ] {
            for name in self
                .main
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(Map::keys)
            {
                out.push(flowmcp_spec::id::id_text(namespace, kind, name));
            }
        }
        out
    }

    /// The tools with their descriptions and parameters (key, type, options, description), as
    /// compact JSON in file order.
    fn tool_summary(&self) -> String {
        let mut tools = Map::new();
        for (name, tool) in self
            .main
            .get("tools")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let params: Vec<Value> = tool
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|p| {
                    p.pointer("/position/value").and_then(Value::as_str) == Some("{{USER_PARAM}}")
                })
                .map(|p| {
                    json!({
                        "key": p.pointer("/position/key"),
                        "type": p.pointer("/z/primitive"),
                        "options": p.pointer("/z/options"),
                        "description": p.get("description"),
                    })
                })
                .collect();
            tools.insert(
                name.clone(),
                json!({"description": tool.get("description"), "parameters": params}),
            );
        }
        Value::Object(tools).to_string()
    }

    /// The grade report from `scores` (a parsed `scores.json`), the file's validation report, the
    /// SHA-256 of its bytes, and the times (RFC 3339) grading started and ended.
    pub fn grade(
        &self,
        scores: &Value,
        validation: &FileReport,
        file_sha256: &str,
        started_at: &str,
        now: &str,
    ) -> Result<Value, GradeError> {
        let protocol = scores
            .get("scoringProtocol")
            .and_then(Value::as_str)
            .ok_or_else(|| GradeError::Scores("no scoringProtocol".into()))?;
        if protocol != SCORING_PROTOCOL {
            return Err(GradeError::Protocol(protocol.to_string()));
        }
        let slug = scores.get("schemaIdSlug").and_then(Value::as_str);
        if let Some(found) = slug.filter(|s| *s != self.slug) {
            return Err(GradeError::OtherSchema {
                expected: self.slug.clone(),
                found: found.to_string(),
            });
        }
        let list = scores
            .get("scores")
            .and_then(Value::as_array)
            .ok_or_else(|| GradeError::Scores("no `scores` array".into()))?;
        let mut dimensions = Vec::new();
        for d in DIMENSIONS {
            let entry = list
                .iter()
                .find(|s| s.get("dimension").and_then(Value::as_str) == Some(d))
                .ok_or_else(|| GradeError::Scores(format!("no score for the dimension {d}")))?;
            let score = entry
                .get("score")
                .and_then(Value::as_f64)
                .filter(|s| (1.0..=5.0).contains(s))
                .ok_or_else(|| {
                    GradeError::Scores(format!("{d}: `score` must be a number from 1.0 to 5.0"))
                })?;
            dimensions.push((d, score, entry.clone()));
        }
        if let Some(other) = list
            .iter()
            .filter_map(|s| s.get("dimension").and_then(Value::as_str))
            .find(|d| !DIMENSIONS.contains(d))
        {
            return Err(GradeError::Scores(format!(
                "unknown dimension {other:?} (protocol v1 rates {})",
                DIMENSIONS.join(", ")
            )));
        }
        let mean = dimensions.iter().map(|(_, s, _)| s).sum::<f64>() / dimensions.len() as f64;
        let score = (mean * 100.0).round() / 100.0;
        // `CODE message` of each finding of one severity.
        let findings = |severity: flowmcp_spec::Severity| -> Vec<String> {
            validation
                .diagnostics()
                .iter()
                .filter(|d| d.severity == severity)
                .map(|d| format!("{} {}", d.code.as_str(), d.message))
                .collect()
        };
        let errors = findings(flowmcp_spec::Severity::Error);
        let warnings = findings(flowmcp_spec::Severity::Warning);
        let passed = errors.is_empty();
        Ok(json!({
            "schemaId": self.id,
            "schemaIdSlug": self.slug,
            "schemaPath": self.path,
            "schemaHash": format!("sha256:{file_sha256}"),
            "date": now.get(..10).unwrap_or(now),
            "grade": letter(passed, score),
            "score": score,
            "scoringProtocol": SCORING_PROTOCOL,
            "creator": scores.get("creator").cloned().unwrap_or(Value::Null),
            "harness": scores.get("harness").cloned().unwrap_or(Value::Null),
            "timestamps": {
                "startedAt": started_at,
                "scoredAt": scores.get("timestamp").cloned().unwrap_or(Value::Null),
                "gradedAt": now,
                "reportedAt": now,
            },
            "dimensions": dimensions.into_iter().map(|(_, _, e)| e).collect::<Vec<_>>(),
            "validationPassed": passed,
            "validationErrors": errors,
            // The validation-strategy chapter's report fields, beside the scoring protocol's.
            "validatorVersion": VALIDATOR_VERSION,
            "timestamp": now,
            "deterministic": {
                "status": if passed { "PASS" } else { "FAIL" },
                "errors": errors,
                "warnings": warnings,
            },
            "probabilistic": { "score": score },
            "primitives": self.primitives(),
        }))
    }
}

/// The grade of a mean score: F when validation failed, else A (≥ 4.0), B (≥ 3.0), C (≥ 2.0)
/// or D — the validation-strategy chapter's bands.
pub fn letter(validation_passed: bool, score: f64) -> &'static str {
    match (validation_passed, score) {
        (false, _) => "F",
        (true, s) if s >= 4.0 => "A",
        (true, s) if s >= 3.0 => "B",
        (true, s) if s >= 2.0 => "C",
        _ => "D",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_follow_the_bands_and_a_failed_validation_is_f() {
        assert_eq!(letter(true, 4.0), "A");
        assert_eq!(letter(true, 3.99), "B");
        assert_eq!(letter(true, 3.0), "B");
        assert_eq!(letter(true, 2.0), "C");
        assert_eq!(letter(true, 1.99), "D");
        assert_eq!(letter(false, 5.0), "F");
    }
}
