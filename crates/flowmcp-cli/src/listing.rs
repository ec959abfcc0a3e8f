//! How listings show what a catalog holds: prompts and skills, by `flowmcp prompt list` and by
//! `flowmcp list` (the MCP `prompts/list` entry as JSON and the human listing), and the kind of a
//! tool entry in `list` and `search`.

use flowmcp_catalog::{Catalog, primitives::PromptInfo, runtime::Kind};
use serde_json::{Value, json};

use crate::output::shown;

/// The MCP `prompts/list` entry of a prompt.
pub(crate) fn prompt_json(p: &PromptInfo) -> Value {
    let args: Vec<Value> = p
        .arguments
        .iter()
        .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
        .collect();
    json!({
        "name": p.name,
        "title": p.title,
        "description": p.description,
        "arguments": args,
        "_meta": p.meta,
    })
}

/// The kind of a listed prompt (`skill`, `provider-prompt`, `agent-prompt`).
pub(crate) fn kind_of(p: &PromptInfo) -> &str {
    p.meta
        .get("flowmcp/kind")
        .and_then(Value::as_str)
        .unwrap_or("prompt")
}

/// The human listing: `ID  kind  arguments`, then a count.
pub(crate) fn listing(catalog: &Catalog, prompts: &[PromptInfo]) -> String {
    let width = prompts.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for p in prompts {
        let args: Vec<String> = p
            .arguments
            .iter()
            .map(|a| {
                if a.required {
                    format!("{}*", shown(&a.name))
                } else {
                    shown(&a.name).into_owned()
                }
            })
            .collect();
        out.push_str(&format!(
            "{:<width$}  {:<15}  {}\n",
            shown(&p.name),
            shown(kind_of(p)),
            args.join(" ")
        ));
    }
    let skills = prompts.iter().filter(|p| kind_of(p) == "skill").count();
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    out.push_str(&format!(
        "{} and {}{}\n",
        plural(prompts.len() - skills, "prompt"),
        plural(skills, "skill"),
        if catalog.has_errors() {
            " (the catalog has errors: see `flowmcp validate`)"
        } else {
            ""
        }
    ));
    out
}

/// How `--json` listings name an entry's kind: `tool`, `query` (a resource query) or `document`
/// (a markdown resource).
pub(crate) fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Tool => "tool",
        Kind::Query { .. } => "query",
        Kind::Document { .. } => "document",
    }
}
