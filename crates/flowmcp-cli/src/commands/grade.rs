//! `flowmcp grade`: the grading transport of scoring protocol v1 (chapter 22): `prompts.json` for
//! an external grader, the grade report from its `scores.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;
use flowmcp_catalog::grading::{GradedFile, GradedSchema};
use serde_json::Value;

use crate::context::{ModelArgs, ProfileArg, config, plain_validation, profile_of};
use crate::output::{shown, write_json, write_stdout};

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
    `--llm` scores the prompts itself with a model of an OpenAI-compatible endpoint (OpenRouter \
    by default, or --llm-base-url), each prompt in a request of its own, writes the scores.json \
    it got and then the grade report.\n\n\
    Exit codes: 0 written, 1 refused scores (unknown protocol, another schema, missing or \
    out-of-range scores), 2 usage error or unreadable schema."
)]
#[command(group(
    clap::ArgGroup::new("mode")
        .required(true)
        .args(["emit_prompts", "consume_scores", "llm"])
))]
pub(crate) struct GradeArgs {
    /// The schema file.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Write prompts.json.
    #[arg(long)]
    emit_prompts: bool,
    /// Score the prompts with a model of an OpenAI-compatible endpoint (each prompt in a request
    /// of its own), write its scores.json, then the grade report.
    #[arg(long)]
    llm: bool,
    /// The model `--llm` asks (OpenRouter syntax, e.g. `anthropic/claude-sonnet-4-5`).
    #[arg(
        long,
        value_name = "MODEL",
        default_value = "anthropic/claude-sonnet-4-5"
    )]
    model: String,
    #[command(flatten)]
    endpoint: ModelArgs,
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
    let started = flowmcp_catalog::timestamp(SystemTime::now());
    let cfg = config(false)?;
    let opts = plain_validation(&cfg, profile_of(a.profile, &cfg));
    let display = a.schema.display().to_string();
    let bytes = flowmcp_files::named::read(&a.schema).map_err(|e| format!("{display}: {e}"))?;
    let mut graded = GradedFile::load(&a.schema, &display, &opts).map_err(|e| e.to_string())?;
    let schema = graded.schema().clone();
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("."));
    if a.emit_prompts {
        let path = out.join("prompts.json");
        write_json(&path, &schema.prompts())?;
        write_stdout(&format!(
            "wrote {} for {}\n",
            flowmcp_spec::diagnostic::display_path(&path),
            shown(&schema.id)
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let scores: Value = if a.llm {
        let endpoint = a.endpoint.endpoint(&cfg);
        match score_with_llm(&schema, &endpoint, &a.model) {
            Ok(v) => {
                let path = out.join("scores.json");
                write_json(&path, &v)?;
                v
            }
            Err(e) => {
                eprintln!("flowmcp: {e}");
                return Ok(ExitCode::from(1));
            }
        }
    } else {
        let Some(scores_path) = &a.consume_scores else {
            return Err("give --emit-prompts, --consume-scores FILE or --llm".into());
        };
        let text = flowmcp_files::named::read_to_string(scores_path)
            .map_err(|e| format!("{}: {e}", scores_path.display()))?;
        match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("flowmcp: {}: not JSON: {e}", scores_path.display());
                return Ok(ExitCode::from(1));
            }
        }
    };
    // The same evaluation of the file is validated (not a second load).
    let validation = graded.validate(&opts);
    let now = flowmcp_catalog::timestamp(SystemTime::now());
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

/// The `scores.json` a model gives: each prompt of `prompts.json` sent on its own (isolated
/// context, temperature 0) with the scoring instructions, its reply read as the JSON the
/// instructions ask for.
fn score_with_llm(
    schema: &GradedSchema,
    endpoint: &flowmcp_agent::Endpoint,
    model: &str,
) -> Result<Value, String> {
    let prompts = schema.prompts();
    let mut scores = Vec::new();
    for p in prompts["prompts"].as_array().into_iter().flatten() {
        let dimension = p["dimension"].as_str().unwrap_or_default();
        let body = serde_json::json!({
            "model": model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": flowmcp_catalog::grading::INSTRUCTIONS},
                {"role": "user", "content": p["prompt"]},
            ],
        });
        let reply = endpoint.complete(&body).map_err(|e| e.to_string())?;
        let text = flowmcp_agent::Endpoint::reply_text(&reply).map_err(|e| e.to_string())?;
        let (score, reasoning) = read_score(&text, dimension).ok_or_else(|| {
            flowmcp_agent::AgentError::Reply(format!(
                "the model's answer for {dimension} is not the JSON the instructions ask for: {}",
                text.chars().take(200).collect::<String>()
            ))
            .to_string()
        })?;
        scores.push(
            serde_json::json!({"dimension": dimension, "score": score, "reasoning": reasoning}),
        );
    }
    let now = flowmcp_catalog::timestamp(SystemTime::now());
    let version = env!("CARGO_PKG_VERSION");
    Ok(serde_json::json!({
        "schemaIdSlug": schema.slug,
        "scoringProtocol": flowmcp_catalog::grading::SCORING_PROTOCOL,
        "creator": {"skill": "flowmcp grade --llm", "skillVersion": version, "session": now},
        "harness": {"name": "flowmcp", "version": version, "model": model},
        "timestamp": now,
        "scores": scores,
    }))
}

/// The score and reasoning for `dimension` in a model's answer: the JSON array (or object) in
/// its text, the entry naming the dimension (or the first).
fn read_score(text: &str, dimension: &str) -> Option<(Value, Value)> {
    let start = text.find(['[', '{'])?;
    let end = text.rfind([']', '}'])?;
    let parsed: Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    let entries = match parsed {
        Value::Array(items) => items,
        one => vec![one],
    };
    let entry = entries
        .iter()
        .find(|e| e.get("dimension").and_then(Value::as_str) == Some(dimension))
        .or_else(|| entries.first())?;
    let score = entry.get("score").filter(|s| s.is_number())?.clone();
    Some((
        score,
        entry.get("reasoning").cloned().unwrap_or(Value::Null),
    ))
}
