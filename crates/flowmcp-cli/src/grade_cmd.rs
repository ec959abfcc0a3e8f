//! `flowmcp grade`: the grading transport of scoring protocol v1 (chapter 22): `prompts.json` for
//! an external grader, the grade report from its `scores.json`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;
use flowmcp_catalog::grading::{GradeError, GradedSchema};
use serde_json::Value;

use crate::run_cmd::config;
use crate::{ProfileArg, profile_of, write_stdout};

#[derive(Args, Debug)]
#[command(
    about = "Grading (scoring protocol v1): emit prompts.json, grade from scores.json",
    long_about = "The grading transport of scoring protocol v1. `--emit-prompts` writes \
    `prompts.json` for an external grader (an LLM harness): the schema's ID and slug, the \
    protocol, the instructions and one prompt per dimension (whenToUse, parameters); the same \
    schema file always gives the same bytes. `--consume-scores scores.json` checks the grader's \
    answer (`scoringProtocol` must be \"v1\", every dimension scored 1.0-5.0) and writes the grade \
    report, `<slug>.grade.json`: the mean score, the grade (F when `flowmcp validate` finds an \
    error; else A >= 4.0, B >= 3.0, C >= 2.0, D below), the dimensions, the SHA-256 of the file, \
    timestamps and the validation errors.\n\n\
    Files are written atomically into the current directory or --out DIR.\n\n\
    Exit codes: 0 written, 1 refused scores (unknown protocol, another schema, missing or \
    out-of-range scores), 2 usage error or unreadable schema."
)]
pub(crate) struct GradeArgs {
    /// The schema file.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Write prompts.json.
    #[arg(
        long,
        conflicts_with = "consume_scores",
        required_unless_present = "consume_scores"
    )]
    emit_prompts: bool,
    /// Read the grader's scores.json and write the grade report.
    #[arg(long, value_name = "FILE")]
    consume_scores: Option<PathBuf>,
    /// Where to write (default: the current directory).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// `spec` or `compat`: the validation the grade report records. Default: spec, or the config.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
}

pub(crate) fn run(a: GradeArgs) -> Result<ExitCode, String> {
    let started = flowmcp_catalog::rfc3339(SystemTime::now());
    let cfg = config(false)?;
    let opts = flowmcp_validate::Options::new(profile_of(a.profile, &cfg));
    let display = a.schema.display().to_string();
    let bytes = std::fs::read(&a.schema).map_err(|e| format!("{display}: {e}"))?;
    let loaded = flowmcp_loader::load_file(&a.schema, &display, &opts.limits, &opts.settings);
    let main = loaded
        .exports
        .as_ref()
        .and_then(|e| e.get("main"))
        .cloned()
        .ok_or_else(|| GradeError::NotASchema(display.clone()).to_string())?;
    let schema = GradedSchema::new(&a.schema, main).map_err(|e| e.to_string())?;
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("."));
    if a.emit_prompts {
        let path = out.join("prompts.json");
        write_json(&path, &schema.prompts())?;
        write_stdout(&format!("wrote {} for {}\n", path.display(), schema.id))?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(scores_path) = &a.consume_scores else {
        return Err("give --emit-prompts or --consume-scores FILE".into());
    };
    let text = std::fs::read_to_string(scores_path)
        .map_err(|e| format!("{}: {e}", scores_path.display()))?;
    let scores: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("flowmcp: {}: not JSON: {e}", scores_path.display());
            return Ok(ExitCode::from(1));
        }
    };
    let validation =
        flowmcp_catalog::ListDiscovery::new().validate_file(&a.schema, &display, &opts);
    let now = flowmcp_catalog::rfc3339(SystemTime::now());
    let sha = flowmcp_spec::hash::sha256_hex(&bytes);
    match schema.grade(&scores, &validation, &sha, &started, &now) {
        Ok(report) => {
            let path = out.join(format!("{}.grade.json", schema.slug));
            write_json(&path, &report)?;
            write_stdout(&format!(
                "{}: grade {} (score {}, validation {}); wrote {}\n",
                schema.id,
                report["grade"].as_str().unwrap_or("?"),
                report["score"],
                if report["validationPassed"] == Value::Bool(true) {
                    "passed"
                } else {
                    "failed"
                },
                path.display()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("flowmcp: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Writes `value` as pretty JSON with a final newline, atomically.
fn write_json(path: &Path, value: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    flowmcp_loader::write_atomic(path, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}
