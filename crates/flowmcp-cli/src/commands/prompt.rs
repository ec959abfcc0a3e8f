//! `flowmcp prompt list` and `flowmcp prompt get`: a catalog's prompts and skills, listed and
//! rendered as an MCP client gets them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_catalog::runtime::RunnerOptions;
use flowmcp_catalog::{primitives::PrimitiveError, primitives::Speaker};
use serde_json::{Map, Value, json};

use crate::context::{RunArgs, SourceArgs, config, open, open_to_read, profile_of};
use crate::listing::{listing, prompt_json};
use crate::output::{shown_block, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct PromptArgs {
    #[command(subcommand)]
    command: PromptCommand,
}

#[derive(Subcommand, Debug)]
enum PromptCommand {
    // The help text is on the arguments struct (its `about` and `long_about`).
    List(ListArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    // Boxed: the call settings make it much larger than `List`.
    Get(Box<GetArgs>),
}

#[derive(Args, Debug)]
#[command(
    about = "List the prompts and skills of a catalog with their arguments",
    long_about = "List the prompts and skills of a catalog: provider prompts (`main.prompts` \
    with a content file), agent prompts (`agents/<name>/prompts/`) and skills \
    (`providers/<namespace>/skills/`), each with its ID — the name MCP clients see — and its \
    arguments (`*` marks a required one). Findings about them are reported by `flowmcp validate`."
)]
struct ListArgs {
    /// The catalog directory, or one or more files (overrides --catalog).
    #[arg(value_name = "DIR|FILE")]
    paths: Vec<PathBuf>,
    /// Print JSON (the MCP `prompts/list` entries).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args, Debug)]
#[command(
    about = "Render a prompt or skill with arguments, as MCP prompts/get returns it",
    long_about = "Render a prompt or skill of the catalog with its arguments and print its \
    messages, as an MCP client's prompts/get gets them. A skill's `prefill[]` tools run first (so \
    the options of `flowmcp call` apply: --upstream, the configuration, server parameters); then \
    every placeholder is replaced: `{{input:key}}` by the argument, `{{tool:…}}` by a tool block \
    (description, parameter table, example call) or one field of it, `{{resource:…}}`, \
    `{{prompt:…}}` and `{{skill:…}}` by what they name, `{{prefill:…}}` by the tool's result. A \
    reference that does not resolve is shown as `[ERROR: …]` and the rest is still delivered.\n\n\
    Arguments: `--arg key=value` (repeatable) or `--input '{\"key\": 5}'`.\n\n\
    Exit codes: 0 rendered, 2 unknown prompt, missing or invalid argument, or usage error."
)]
struct GetArgs {
    /// The prompt or skill: its ID (`namespace/prompt/name`, `namespace/skill/name`).
    #[arg(value_name = "ID")]
    id: String,
    /// An argument, `key=value`. Repeatable.
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    args: Vec<String>,
    /// All arguments as one JSON object.
    #[arg(long, value_name = "JSON")]
    input: Option<String>,
    /// Print JSON (`description` and `messages` with `role` and `text`).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: PromptArgs) -> Result<ExitCode, String> {
    match a.command {
        PromptCommand::List(a) => list(a),
        PromptCommand::Get(a) => get(*a),
    }
}

/// One line per prompt: ID, kind, arguments.
fn list(a: ListArgs) -> Result<ExitCode, String> {
    let catalog = open_to_read(&a.source, &a.paths, RunnerOptions::default())?;
    let prompts = catalog.prompts();
    if a.json {
        let items: Vec<Value> = prompts.iter().map(prompt_json).collect();
        let text = serde_json::to_string_pretty(&json!({ "prompts": items }))
            .map_err(|e| e.to_string())?;
        write_stdout(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    write_stdout(&listing(&catalog, &prompts))?;
    Ok(ExitCode::SUCCESS)
}

/// Renders one prompt and prints its messages.
fn get(a: GetArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&[]))?;
    let (transport, runner) = a.run.settings(&cfg)?;
    let mut args: Map<String, Value> = match &a.input {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err("--input must be a JSON object".into()),
            Err(e) => return Err(format!("--input is not valid JSON: {e}")),
        },
        None => Map::new(),
    };
    for kv in &a.args {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("--arg {kv:?}: expected KEY=VALUE"))?;
        if args
            .insert(k.to_string(), Value::String(v.to_string()))
            .is_some()
        {
            return Err(format!("argument \"{k}\" is given more than once"));
        }
    }
    let profile = profile_of(a.source.profile, &cfg);
    let catalog = open(&a.source, &[], false, &cfg, profile, transport, runner)?;
    let rendered = match catalog.render_prompt(&a.id, &args) {
        Ok(r) => r,
        Err(PrimitiveError::NotFound(id)) => {
            let hint = catalog
                .search_prompts(&id.replace(['/', '-'], " "))
                .first()
                .map(|(_, e)| format!(" (did you mean {}?)", e.id))
                .unwrap_or_default();
            return Err(format!(
                "no prompt or skill {id} in the catalog{hint}; see `flowmcp prompt list`"
            ));
        }
        Err(e) => return Err(e.to_string()),
    };
    let role = |s: Speaker| match s {
        Speaker::User => "user",
        Speaker::Assistant => "assistant",
    };
    if a.json {
        let messages: Vec<Value> = rendered
            .messages
            .iter()
            .map(|m| json!({"role": role(m.speaker), "text": m.text}))
            .collect();
        let text = serde_json::to_string_pretty(
            &json!({"description": rendered.description, "messages": messages}),
        )
        .map_err(|e| e.to_string())?;
        write_stdout(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    let many = rendered.messages.len() > 1;
    for (i, m) in rendered.messages.iter().enumerate() {
        if many {
            out.push_str(&format!(
                "--- message {} ({}) ---\n",
                i + 1,
                role(m.speaker)
            ));
        }
        out.push_str(&shown_block(&m.text));
        if !m.text.ends_with('\n') {
            out.push('\n');
        }
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
