//! `flowmcp grade`: the grading transport of scoring protocol v1 (chapter 22): `prompts.json` for
//! an external grader, the grade report from its `scores.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;
use flowmcp_catalog::grading::{GradeError, GradedFile, GradedSchema};
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
    SCHEMA may be a directory: every schema file under it is graded (files without a `main`, \
    such as shared lists, prompts and skills, are passed over), each into OUT/<slug>/ as one \
    file would be (`prompts.json`, `scores.json`, `<slug>.grade.json`); --consume-scores then \
    names a directory of the same layout (SCORES/<slug>/scores.json), and OUT/grades.json lists \
    every file's grade, score and report (or why it was refused).\n\n\
    `--llm` scores the prompts itself with a model of an OpenAI-compatible endpoint (OpenRouter \
    by default, or --llm-base-url), each prompt in a request of its own, writes the scores.json \
    it got and then the grade report.\n\n\
    Exit codes: 0 written, 1 refused scores (unknown protocol, another schema, missing or \
    out-of-range scores; with a directory: any file refused), 2 usage error or unreadable schema."
)]
#[command(group(
    clap::ArgGroup::new("mode")
        .required(true)
        .args(["emit_prompts", "consume_scores", "llm"])
))]
pub(crate) struct GradeArgs {
    /// The schema file, or a directory of them.
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
    /// Read the grader's scores.json and write the grade report (with a directory as SCHEMA: a
    /// directory holding `<slug>/scores.json`).
    #[arg(long, value_name = "FILE")]
    consume_scores: Option<PathBuf>,
    /// Where to write (default: the current directory).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// `spec` or `compat`: the validation the grade report records. Default: spec, or the config.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// `html` also writes each grade report as a self-contained HTML page beside its JSON
    /// (`<slug>.grade.html`; for a directory, `grades.html` too).
    #[arg(long, value_enum, default_value_t = GradeFormat::Json)]
    format: GradeFormat,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GradeFormat {
    /// The grade report as JSON only.
    Json,
    /// The JSON report and an HTML page of it, in the look of `flowmcp catalog site`.
    Html,
}

pub(crate) fn run(a: GradeArgs) -> Result<ExitCode, String> {
    let cfg = config(false)?;
    let opts = plain_validation(&cfg, profile_of(a.profile, &cfg));
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("."));
    flowmcp_files::named::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    if flowmcp_files::named::is_dir(&a.schema) {
        return run_dir(&a, &cfg, &opts, &out);
    }
    if a.consume_scores
        .as_deref()
        .is_some_and(flowmcp_files::named::is_dir)
    {
        return Err(
            "--consume-scores names a directory: give a directory as SCHEMA too, or \
                    the scores.json of this schema"
                .into(),
        );
    }
    let display = a.schema.display().to_string();
    let graded = GradedFile::load(&a.schema, &display, &opts).map_err(|e| e.to_string())?;
    match grade_one(
        &a,
        &cfg,
        &opts,
        graded,
        &a.schema,
        &out,
        a.consume_scores.as_deref(),
    )? {
        One::Prompts(path, id) => write_stdout(&format!(
            "wrote {} for {}\n",
            flowmcp_spec::diagnostic::display_path(&path),
            shown(&id)
        ))?,
        One::Graded { line, .. } => write_stdout(&format!("{line}\n"))?,
        One::Refused(e) => {
            eprintln!("flowmcp: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What grading one schema file gave.
enum One {
    /// `prompts.json` written there, for the schema of this ID.
    Prompts(PathBuf, String),
    /// The grade report: its JSON, where it was written and the line that says so.
    Graded {
        report: Value,
        path: PathBuf,
        line: String,
    },
    /// Scores refused, or the model's answer unusable: why.
    Refused(String),
}

/// Grades one loaded schema file (`--emit-prompts`, `--llm` or `--consume-scores scores`),
/// writing into `out`.
fn grade_one(
    a: &GradeArgs,
    cfg: &crate::context::Config,
    opts: &flowmcp_validate::Options,
    mut graded: GradedFile,
    path: &std::path::Path,
    out: &std::path::Path,
    scores: Option<&std::path::Path>,
) -> Result<One, String> {
    let started = flowmcp_catalog::timestamp(SystemTime::now());
    let bytes = flowmcp_files::named::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let schema = graded.schema().clone();
    if a.emit_prompts {
        let prompts = out.join("prompts.json");
        write_json(&prompts, &schema.prompts())?;
        return Ok(One::Prompts(prompts, schema.id));
    }
    let scores: Value = if a.llm {
        let endpoint = a.endpoint.endpoint(cfg);
        match score_with_llm(&schema, &endpoint, &a.model) {
            Ok(v) => {
                write_json(&out.join("scores.json"), &v)?;
                v
            }
            Err(e) => return Ok(One::Refused(e)),
        }
    } else {
        let Some(scores_path) = scores else {
            return Err("give --emit-prompts, --consume-scores FILE or --llm".into());
        };
        let text = flowmcp_files::named::read_to_string(scores_path)
            .map_err(|e| format!("{}: {e}", scores_path.display()))?;
        match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                return Ok(One::Refused(format!(
                    "{}: not JSON: {e}",
                    scores_path.display()
                )));
            }
        }
    };
    // The same evaluation of the file is validated (not a second load).
    let validation = graded.validate(opts);
    let now = flowmcp_catalog::timestamp(SystemTime::now());
    let sha = flowmcp_spec::hash::sha256_hex(&bytes);
    match schema.grade(&scores, &validation, &sha, &started, &now) {
        Ok(report) => {
            let path = out.join(format!("{}.grade.json", schema.slug));
            write_json(&path, &report)?;
            if a.format == GradeFormat::Html {
                write_html(
                    &out.join(format!("{}.grade.html", schema.slug)),
                    &crate::site::report::grades(std::slice::from_ref(&report)),
                )?;
            }
            let line = format!(
                "{}: grade {} (score {}, validation {}); wrote {}",
                shown(&schema.id),
                report["grade"].as_str().unwrap_or("?"),
                report["score"],
                if report["validationPassed"] == Value::Bool(true) {
                    "passed"
                } else {
                    "failed"
                },
                path.display()
            );
            Ok(One::Graded { report, path, line })
        }
        Err(e) => Ok(One::Refused(e.to_string())),
    }
}

/// `flowmcp grade DIR`: every schema file under `DIR` (files without a `main`, such as shared
/// lists, prompts and skills, are passed over), each into `OUT/<slug>/` as one file would be,
/// its scores read from `SCORES/<slug>/scores.json`; then `OUT/grades.json`, one row per file.
fn run_dir(
    a: &GradeArgs,
    cfg: &crate::context::Config,
    opts: &flowmcp_validate::Options,
    out: &std::path::Path,
) -> Result<ExitCode, String> {
    let scores_dir = match &a.consume_scores {
        Some(p) if !flowmcp_files::named::is_dir(p) => {
            return Err(format!(
                "{} is a directory: --consume-scores must name a directory too, holding \
                 <slug>/scores.json for each schema (the layout --emit-prompts writes)",
                a.schema.display()
            ));
        }
        other => other.clone(),
    };
    let files = crate::walk::collect(std::slice::from_ref(&a.schema))?;
    let mut rows = Vec::new();
    // For the HTML page: each grade report whole, each refusal as its row.
    let mut full = Vec::new();
    let mut seen = std::collections::BTreeMap::new();
    let (mut written, mut refused, mut passed_over) = (0usize, 0usize, 0usize);
    let total = files.len();
    for (i, f) in files.iter().enumerate() {
        let graded = match GradedFile::load(&f.path, &f.display, opts) {
            Ok(g) => g,
            // Shared lists, prompts, skills and agents have no `main`; a file that declares one
            // but could not be read or run is refused, not passed over.
            Err(GradeError::NotASchema(_))
                if !flowmcp_files::named::read_to_string(&f.path)
                    .is_ok_and(|t| t.contains("export const main")) =>
            {
                passed_over += 1;
                continue;
            }
            Err(e @ GradeError::NotASchema(_)) => {
                eprintln!("flowmcp: [{}/{total}] {}", i + 1, shown(&e.to_string()));
                let row = serde_json::json!({"file": f.display, "error": e.to_string()});
                full.push(row.clone());
                rows.push(row);
                refused += 1;
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        let slug = graded.schema().slug.clone();
        let id = graded.schema().id.clone();
        // The slug names a folder: one plain component, and one file per slug.
        let component = std::path::Path::new(&slug);
        let mut parts = component.components();
        if !matches!(
            (parts.next(), parts.next()),
            (Some(std::path::Component::Normal(_)), None)
        ) {
            eprintln!(
                "flowmcp: {}: {} cannot name a folder; passed over",
                shown(&f.display),
                shown(&slug)
            );
            refused += 1;
            continue;
        }
        if let Some(other) = seen.insert(slug.clone(), f.display.clone()) {
            eprintln!(
                "flowmcp: {}: the same ID {} as {}; passed over",
                shown(&f.display),
                shown(&id),
                shown(&other)
            );
            refused += 1;
            continue;
        }
        let dir = out.join(&slug);
        flowmcp_files::named::create_dir_all(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let scores = scores_dir
            .as_ref()
            .map(|d| d.join(&slug).join("scores.json"));
        if let Some(s) = &scores
            && !flowmcp_files::named::exists(s)
        {
            eprintln!(
                "flowmcp: [{}/{total}] {}: no {}",
                i + 1,
                shown(&id),
                s.display()
            );
            let row = serde_json::json!({"file": f.display, "id": id, "error": "no scores.json"});
            full.push(row.clone());
            rows.push(row);
            refused += 1;
            continue;
        }
        match grade_one(a, cfg, opts, graded, &f.path, &dir, scores.as_deref())? {
            One::Prompts(path, _) => {
                eprintln!("flowmcp: [{}/{total}] wrote {}", i + 1, path.display());
                written += 1;
            }
            One::Graded { report, path, line } => {
                eprintln!("flowmcp: [{}/{total}] {line}", i + 1);
                full.push(report.clone());
                rows.push(serde_json::json!({
                    "file": f.display, "id": id, "grade": report["grade"], "score": report["score"],
                    "validationPassed": report["validationPassed"],
                    "report": path.display().to_string(),
                }));
                written += 1;
            }
            One::Refused(e) => {
                eprintln!("flowmcp: [{}/{total}] {}: {}", i + 1, shown(&id), shown(&e));
                let row = serde_json::json!({"file": f.display, "id": id, "error": e});
                full.push(row.clone());
                rows.push(row);
                refused += 1;
            }
        }
    }
    let mut summary = format!(
        "{written} schema files {}, {refused} refused, {passed_over} files without a schema passed over",
        if a.emit_prompts {
            "with prompts written"
        } else {
            "graded"
        }
    );
    if !a.emit_prompts {
        let path = out.join("grades.json");
        write_json(&path, &serde_json::json!({"grades": rows}))?;
        summary.push_str(&format!("; wrote {}", path.display()));
        if a.format == GradeFormat::Html {
            let path = out.join("grades.html");
            write_html(&path, &crate::site::report::grades(&full))?;
            summary.push_str(&format!(" and {}", path.display()));
        }
    }
    write_stdout(&format!("{summary}\n"))?;
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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

/// Writes an HTML report page atomically.
fn write_html(path: &std::path::Path, html: &str) -> Result<(), String> {
    flowmcp_files::named::write_atomic(path, html.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}
