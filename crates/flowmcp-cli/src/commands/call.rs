//! `flowmcp call`: one tool of a catalog called, its result envelope printed.

use std::process::ExitCode;

use clap::Args;
use flowmcp_spec::Code;
use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::context::{BudgetArgs, RunArgs, SourceArgs, config, open, profile_of};
use crate::output::{print_problems, write_stdout};

#[derive(Args, Debug)]
#[command(
    about = "Call a tool and print its result envelope as JSON",
    long_about = "Call a tool and print its result envelope as JSON: \
    {\"status\": true|false, \"messages\": [...], \"data\": ..., \"warnings\": [...]}. \
    Failures carry a runtime code in `messages` (E001 upstream status, E002 network, E003 timeout, \
    E004 invalid body, E005 handler, E006 missing server parameter, E007 invalid input, \
    E008 response too large, E009 refused request).\n\n\
    Inputs: `--arg key=value` (repeatable; converted to the parameter's type: `5` for numbers, \
    `true` for booleans, JSON text for arrays and objects) or `--input '{\"key\": 5}'` (strict JSON \
    types). Both may be combined for different keys.\n\n\
    Local demo: `flowmcp call skycast-io/tool/getForecast --catalog examples/catalog \
    --upstream skycast-io=http://127.0.0.1:8080 --arg city=Berlin` sends the request to a local \
    server instead of the schema's root (plain http is accepted for loopback hosts only).\n\n\
    Exit codes: 0 status true, 1 status false, 2 usage error."
)]
pub(crate) struct CallArgs {
    /// The tool: its ID (`namespace/tool/name`) or wire name (`name_namespace`, see `flowmcp list`).
    #[arg(value_name = "TOOL")]
    tool: String,
    /// An input value, `key=value`. Repeatable.
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    args: Vec<String>,
    /// All inputs as one JSON object.
    #[arg(long, value_name = "JSON")]
    input: Option<String>,
    /// The result budget (no bound unless given): the data is cut inside the tool's output
    /// schema and a warning says what was cut.
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: CallArgs) -> Result<ExitCode, String> {
    let cfg = config(a.source.anchor(&[]))?;
    let (transport, runner) = a.run.settings(&cfg)?;
    let resources = runner.resources.clone();
    let mut inputs: Map<String, Value> = match &a.input {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err("--input must be a JSON object".into()),
            Err(e) => return Err(format!("--input is not valid JSON: {e}")),
        },
        None => Map::new(),
    };
    let mut text_args: IndexMap<String, String> = IndexMap::new();
    for kv in &a.args {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| format!("--arg {kv:?}: expected KEY=VALUE"))?;
        if inputs.contains_key(k) {
            return Err(format!(
                "input \"{k}\" is given twice, by --input and by --arg; give it once"
            ));
        }
        if text_args.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("--arg {k} is given more than once"));
        }
    }
    let profile = profile_of(a.source.profile, &cfg);
    let libraries = runner.libraries.clone();
    let catalog = open(&a.source, &[], false, &cfg, profile, transport, runner)?;
    let entry = catalog.find(&a.tool);
    if entry.is_none() && catalog.rejected(&a.tool).is_none() {
        let hint = catalog
            .search(&a.tool)
            .first()
            .map(|(_, t)| format!(" (did you mean {}?)", t.descriptor.wire_name))
            .unwrap_or_default();
        print_problems(&catalog);
        let why = catalog.toolset().explain_unknown(&a.tool);
        return Err(format!("{why} in the catalog{hint}"));
    }
    let caller = catalog.caller();
    let envelope = if text_args.is_empty() {
        caller.call_json(&a.tool, &inputs)
    } else if inputs.is_empty() {
        caller.call_strings(&a.tool, &text_args)
    } else {
        // Both, for different keys: text values are converted by the tool's types.
        for (k, v) in &text_args {
            let value = match entry.and_then(|e| e.descriptor.param(k)) {
                Some(p) => {
                    p.z.coerce_str(v)
                        .unwrap_or_else(|_| Value::String(v.clone()))
                }
                None => Value::String(v.clone()),
            };
            inputs.insert(k.clone(), value);
        }
        caller.call_json(&a.tool, &inputs)
    };
    let envelope = match a.budget.bytes(cfg.max_result_bytes) {
        Some(max) => {
            let schema = entry
                .and_then(|e| e.descriptor.output_schema.as_ref())
                .map(|s| s.value());
            envelope.within(max, schema)
        }
        None => envelope,
    };
    let text = serde_json::to_string_pretty(&envelope.to_json())
        .map_err(|e| format!("cannot print the envelope: {e}"))?;
    write_stdout(&format!("{text}\n"))?;
    // A tool of a file with errors (E007, facts only): the command that shows the findings.
    if entry.is_none()
        && let Some(r) = catalog.rejected(&a.tool)
    {
        eprintln!("flowmcp: {}", crate::advice::rejected(&r.file));
    }
    // A library the schema requires that cannot be found (SEC103 in the envelope, facts only):
    // how to choose the library directory and install into it.
    if !envelope.status()
        && let Some(entry) = entry
        && catalog
            .toolset()
            .schema_of(entry)
            .main
            .required_libraries
            .iter()
            .any(|name| {
                libraries
                    .as_ref()
                    .is_none_or(|dir| dir.package_dir(name).is_err())
            })
    {
        eprintln!("flowmcp: {}", crate::advice::LIBS);
    }
    // A file-based database that does not exist yet: the command that creates it.
    if let Some(entry) = entry
        && envelope.code() == Some(Code::RES020)
        && let Ok(file) = catalog
            .toolset()
            .database_file(&entry.descriptor.id.to_string(), &resources)
        && file.writable
        && flowmcp_files::named::symlink_metadata(&file.path).is_err()
    {
        eprintln!(
            "flowmcp: create it with `flowmcp resource init {}`",
            file.id
        );
    }
    Ok(if envelope.status() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
