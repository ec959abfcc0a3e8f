//! `flowmcp search`: the tools, prompts and skills of a catalog that match some words, ranked.

use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use crate::context::{ResultCacheArg, SourceArgs, open_to_read};
use crate::listing::kind_name;
use crate::output::{shown, write_stdout};

#[derive(Args, Debug)]
#[command(
    about = "Search tools by name, aliases, search hint, tags and description",
    long_about = "Search the tools of a catalog by name, aliases, search hint, tags, namespace and \
    description. Results are ranked: an exact name beats an alias, which beats the search hint, tags, \
    namespace and description; every query word adds to the score."
)]
pub(crate) struct SearchArgs {
    /// Words to search for.
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    results: ResultCacheArg,
    #[command(flatten)]
    source: SourceArgs,
}

pub(crate) fn run(a: SearchArgs) -> Result<ExitCode, String> {
    let catalog = open_to_read(&a.source, &[], a.results.runner())?;
    let query = a.query.join(" ");
    let hits = catalog.search(&query);
    let prompt_hits = catalog.search_prompts(&query);
    if a.json {
        let mut items: Vec<Value> = hits
            .iter()
            .take(a.limit)
            .map(|(score, t)| {
                let d = &t.descriptor;
                json!({"id": d.id.to_string(), "name": d.lookup_key(), "kind": kind_name(&d.kind),
                       "wireName": d.wire_name, "score": score,
                       "exposed": d.is_exposed(), "description": d.description})
            })
            .collect();
        items.extend(prompt_hits.iter().take(a.limit).map(|(score, e)| {
            json!({"id": e.id, "name": e.name, "kind": e.kind.id_type(), "score": score,
                   "description": e.description})
        }));
        let text = serde_json::to_string_pretty(&Value::Array(items)).map_err(|e| e.to_string())?;
        write_stdout(&format!("{text}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for (score, t) in hits.iter().take(a.limit) {
        let d = &t.descriptor;
        let hidden = if d.is_exposed() { "" } else { " [hidden]" };
        let first_line = d.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{score:>3}  {}  {}{hidden}\n     {}\n",
            shown(&d.lookup_key()),
            shown(&d.wire_name),
            shown(first_line)
        ));
    }
    if !prompt_hits.is_empty() {
        out.push_str("prompts and skills:\n");
    }
    for (score, e) in prompt_hits.iter().take(a.limit) {
        let first_line = e.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{score:>3}  {}  ({})\n     {}\n",
            shown(&e.id),
            e.kind.id_type(),
            shown(first_line)
        ));
    }
    if hits.is_empty() && prompt_hits.is_empty() {
        out.push_str(&format!(
            "no tool, prompt or skill matches \"{}\"\n",
            shown(&query)
        ));
    }
    write_stdout(&out)?;
    Ok(if hits.is_empty() && prompt_hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
