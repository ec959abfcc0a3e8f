//! The catalog's prompts and skills as a [`PromptSource`]: listed by their IDs, rendered with
//! their arguments — prefill run through the caller, every placeholder replaced in one pass.
//!
//! Rendering reads the content once, left to right, and replaces each placeholder with what it
//! names; the text it inserts (an input value, a prefill result, a tool block) is never read for
//! placeholders again, so an argument cannot smuggle a `{{…}}` of its own into the prompt. A
//! placeholder that cannot be resolved becomes `[ERROR: …]` text and the prompt is still
//! delivered; text that is not a content placeholder (`{{USER_PARAM}}`, `{{ x }}`) stays as it is.
//!
//! The formats the specification leaves open (a tool block, a parameter table, a call line) are
//! decided here and recorded in `docs/decisions.md` (D47).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use flowmcp_spec::lists::ListScope;
use flowmcp_spec::placeholder::{ContentPlaceholder, ContentType, find_interpolations};
use flowmcp_validate::prompts::{EntryKind, Library};
use serde_json::{Map, Value};

use crate::caller::{Caller, Tools};
use crate::primitives::{
    PrimitiveError, PromptArgument, PromptInfo, PromptMessage, PromptSource, RenderedPrompt,
    Speaker,
};
use crate::{ToolEntry, runtime::Kind};

/// The library of a catalog's prompts, skills and selections ([`crate::Catalog::library`]), as
/// validation builds it.
pub use flowmcp_validate::prompts::{
    EntryKind as PromptKind, Library as PromptLibrary, PrefillCall, PromptEntry, SelectionEntry,
    SkillInput,
};

/// The most text one prefill result puts into a prompt; more is cut with a note.
const MAX_PREFILL_BYTES: usize = 64 * 1024;

/// The catalog's prompts and skills.
#[derive(Debug)]
pub(crate) struct CatalogPrompts {
    library: Arc<Library>,
    lists: ListScope,
}

impl CatalogPrompts {
    pub(crate) fn new(library: Arc<Library>, lists: ListScope) -> CatalogPrompts {
        CatalogPrompts { library, lists }
    }
}

/// The listing of one entry.
pub(crate) fn info(entry: &PromptEntry) -> PromptInfo {
    let mut meta = Map::new();
    meta.insert("flowmcp/id".into(), Value::String(entry.id.clone()));
    let kind = match entry.kind {
        EntryKind::ProviderPrompt => "provider-prompt",
        EntryKind::AgentPrompt => "agent-prompt",
        EntryKind::Skill => "skill",
    };
    meta.insert("flowmcp/kind".into(), Value::String(kind.into()));
    for (key, value) in [
        ("flowmcp/whenToUse", &entry.when_to_use),
        ("flowmcp/output", &entry.output),
        ("flowmcp/testedWith", &entry.tested_with),
    ] {
        if let Some(v) = value {
            meta.insert(key.into(), Value::String(v.clone()));
        }
    }
    if !entry.prefill.is_empty() {
        meta.insert(
            "flowmcp/prefill".into(),
            Value::Array(
                entry
                    .prefill
                    .iter()
                    .map(|p| Value::String(p.tool.clone()))
                    .collect(),
            ),
        );
    }
    PromptInfo {
        name: entry.id.clone(),
        title: Some(entry.name.clone()),
        description: (!entry.description.is_empty()).then(|| entry.description.clone()),
        arguments: entry
            .inputs
            .iter()
            .map(|i| PromptArgument {
                name: i.key.clone(),
                description: Some(argument_description(i)),
                required: i.required,
            })
            .collect(),
        meta,
    }
}

/// An input's description with its type: `What to check (number)`, `Network (one of: a, b)`.
fn argument_description(i: &SkillInput) -> String {
    let ty = if i.ty == "enum" {
        format!("one of: {}", i.values.join(", "))
    } else {
        i.ty.clone()
    };
    if i.description.is_empty() {
        format!("({ty})")
    } else {
        format!("{} ({ty})", i.description)
    }
}

impl PromptSource for CatalogPrompts {
    fn prompts(&self) -> Vec<PromptInfo> {
        self.library.entries().iter().map(info).collect()
    }

    fn render(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        caller: &Caller<'_>,
    ) -> Result<Option<RenderedPrompt>, PrimitiveError> {
        let Some(entry) = self.library.get(name) else {
            return Ok(None);
        };
        let inputs = arguments_of(entry, arguments)?;
        let prefilled = run_prefill(entry, &inputs, caller);
        let renderer = Renderer {
            tools: caller.tools(),
            library: &self.library,
            lists: &self.lists,
            inputs: &inputs,
            prefilled: &prefilled,
        };
        let mut messages = vec![PromptMessage {
            speaker: Speaker::User,
            text: renderer.text(entry, 0),
        }];
        // Composed prompts come along as context, one level deep.
        for r in &entry.references {
            let text = match self.library.get(r) {
                Some(target) if target.kind != EntryKind::Skill => format!(
                    "Context from prompt `{}`:\n\n{}",
                    target.id,
                    renderer.text(target, 1)
                ),
                _ => format!("[ERROR: Prompt '{r}' not found]"),
            };
            messages.push(PromptMessage {
                speaker: Speaker::User,
                text,
            });
        }
        Ok(Some(RenderedPrompt {
            description: (!entry.description.is_empty()).then(|| entry.description.clone()),
            messages,
        }))
    }
}

/// The arguments of a rendering, checked against the entry's inputs and converted to their
/// types (MCP gives every argument as text).
fn arguments_of(
    entry: &PromptEntry,
    given: &Map<String, Value>,
) -> Result<Map<String, Value>, PrimitiveError> {
    let keys = || {
        entry
            .inputs
            .iter()
            .map(|i| i.key.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for key in given.keys() {
        if !entry.inputs.iter().any(|i| &i.key == key) {
            return Err(PrimitiveError::InvalidArguments(
                if entry.inputs.is_empty() {
                    format!("{}: takes no arguments (got `{key}`)", entry.id)
                } else {
                    format!(
                        "{}: unknown argument `{key}`; it takes {}",
                        entry.id,
                        keys()
                    )
                },
            ));
        }
    }
    // Every missing required argument, named at once.
    let missing: Vec<String> = entry
        .inputs
        .iter()
        .filter(|i| i.required && given.get(&i.key).is_none_or(Value::is_null))
        .map(|i| {
            let sep = if i.description.is_empty() { " " } else { ": " };
            format!("`{}`{sep}{}", i.key, argument_description(i))
        })
        .collect();
    if !missing.is_empty() {
        return Err(PrimitiveError::InvalidArguments(format!(
            "{}: missing required argument{} {}",
            entry.id,
            if missing.len() == 1 { "" } else { "s" },
            missing.join("; ")
        )));
    }
    let mut out = Map::new();
    for input in &entry.inputs {
        let Some(value) = given.get(&input.key).filter(|v| !v.is_null()) else {
            continue;
        };
        let bad = |what: &str| {
            PrimitiveError::InvalidArguments(format!(
                "{}: argument `{}` must be {what} (got {})",
                entry.id, input.key, value
            ))
        };
        let typed = match (input.ty.as_str(), value) {
            ("number", Value::Number(_)) => value.clone(),
            ("number", Value::String(s)) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(|f| {
                    // Keep integers integral.
                    if f.fract() == 0.0 && f.abs() < 9.0e15 {
                        Some(Value::from(f as i64))
                    } else {
                        serde_json::Number::from_f64(f).map(Value::Number)
                    }
                })
                .ok_or_else(|| bad("a number"))?,
            ("number", _) => return Err(bad("a number")),
            ("boolean", Value::Bool(_)) => value.clone(),
            ("boolean", Value::String(s)) if s == "true" || s == "false" => {
                Value::Bool(s == "true")
            }
            ("boolean", _) => return Err(bad("true or false")),
            ("enum", _) => {
                let text = text_of(value);
                if !input.values.contains(&text) {
                    return Err(bad(&format!("one of {}", input.values.join(", "))));
                }
                Value::String(text)
            }
            _ => Value::String(text_of(value)),
        };
        out.insert(input.key.clone(), typed);
    }
    Ok(out)
}

/// A value as text: strings as they are, anything else as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Runs a skill's `prefill[]` in order, with `{{input:…}}` in their params substituted: each
/// tool's result as text, or why it failed.
fn run_prefill(
    entry: &PromptEntry,
    inputs: &Map<String, Value>,
    caller: &Caller<'_>,
) -> HashMap<String, Result<String, String>> {
    let mut out = HashMap::new();
    for call in &entry.prefill {
        let mut params = Map::new();
        for (key, value) in &call.params {
            if let Some(v) = substitute_inputs(value, inputs) {
                params.insert(key.clone(), v);
            }
        }
        if let Some(why) = changes_things(caller.tools(), &call.tool) {
            out.entry(call.tool.clone()).or_insert(Err(why));
            continue;
        }
        let envelope = caller.call_json(&call.tool, &params);
        let result = if envelope.status() {
            Ok(result_text(envelope.data()))
        } else {
            Err(envelope.messages().join("; "))
        };
        // The first run of a tool is the one its placeholder shows.
        out.entry(call.tool.clone()).or_insert(result);
    }
    out
}

/// Why a prefill may not run `tool`: rendering a prompt must change nothing, so a tool whose
/// annotations say it may (`readOnlyHint: false` or `destructiveHint: true`) is refused. `None`
/// when it may run (also when it is unknown: the call then says why it fails).
fn changes_things(tools: &Tools, tool: &str) -> Option<String> {
    let annotations = tools.find(tool)?.descriptor.annotations.as_ref()?;
    let flag = |k: &str| annotations.get(k).and_then(Value::as_bool);
    (flag("readOnlyHint") == Some(false) || flag("destructiveHint") == Some(true)).then(|| {
        format!(
            "refused: {tool} may change data (it is not marked read-only), and rendering a prompt changes nothing"
        )
    })
}

/// A prefill parameter with its `{{input:…}}` replaced: a value that is exactly one input
/// placeholder takes the input's typed value (and is left out when the input was not given);
/// inside longer text each is replaced by the value's text.
fn substitute_inputs(value: &Value, inputs: &Map<String, Value>) -> Option<Value> {
    let Value::String(s) = value else {
        return Some(value.clone());
    };
    let found = find_interpolations(s);
    if let [only] = found.as_slice()
        && only.start == 0
        && only.end == s.len()
        && let Some(ContentPlaceholder::Input(key)) = ContentPlaceholder::of(&only.inner)
    {
        return inputs.get(key).cloned();
    }
    let mut text = String::with_capacity(s.len());
    let mut at = 0;
    for f in &found {
        text.push_str(&s[at..f.start]);
        match ContentPlaceholder::of(&f.inner) {
            Some(ContentPlaceholder::Input(key)) => {
                text.push_str(&inputs.get(key).map(text_of).unwrap_or_default());
            }
            _ => text.push_str(&s[f.start..f.end]),
        }
        at = f.end;
    }
    text.push_str(&s[at..]);
    Some(Value::String(text))
}

/// A tool's result as prompt text: a string as it is, anything else as a JSON block; cut at
/// [`MAX_PREFILL_BYTES`].
fn result_text(data: &Value) -> String {
    let mut text = match data {
        Value::String(s) => s.clone(),
        other => {
            let json = serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string());
            format!("```json\n{json}\n```")
        }
    };
    if text.len() > MAX_PREFILL_BYTES {
        let mut cut = MAX_PREFILL_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let total = text.len();
        text.truncate(cut);
        let _ = write!(
            text,
            "\n… [cut: the result has {total} bytes; the first {cut} are shown]"
        );
    }
    text
}

/// Everything one rendering needs.
struct Renderer<'a> {
    tools: &'a Tools,
    library: &'a Library,
    lists: &'a ListScope,
    inputs: &'a Map<String, Value>,
    prefilled: &'a HashMap<String, Result<String, String>>,
}

impl Renderer<'_> {
    /// `entry`'s content with every placeholder replaced (`depth` 1: a composed prompt or an
    /// inlined skill, whose own skill references and prefills do not expand).
    fn text(&self, entry: &PromptEntry, depth: u8) -> String {
        let content = &entry.content;
        let mut out = String::with_capacity(content.len() * 2);
        let mut at = 0;
        for found in find_interpolations(content) {
            out.push_str(&content[at..found.start]);
            at = found.end;
            let shown = found.text();
            let Some(placeholder) = ContentPlaceholder::of(&found.inner) else {
                out.push_str(&shown);
                continue;
            };
            let replacement = match placeholder {
                ContentPlaceholder::Input(key) => {
                    Ok(self.inputs.get(key).map(text_of).unwrap_or_default())
                }
                ContentPlaceholder::Malformed { reason, .. } => {
                    Err(format!("{shown} does not read: {reason}"))
                }
                ContentPlaceholder::ListAlias { list, alias } => self
                    .lists
                    .registry()
                    .and_then(|r| r.field_values(list, alias))
                    .map(|v| v.join(", "))
                    .ok_or_else(|| format!("Shared list '{list}' with field '{alias}' not found")),
                ContentPlaceholder::Reference { ty, target, field } => {
                    let id = entry.target_id(ty, &target);
                    match ty {
                        ContentType::Tool => self.tool(&id, field),
                        ContentType::Resource => self.resource(&id),
                        ContentType::Prompt => match self.library.get(&id) {
                            Some(p) if p.kind != EntryKind::Skill => Ok(reference_line(
                                "Prompt",
                                p,
                                "its text comes with this prompt when `references` lists it",
                            )),
                            _ => Err(format!("Prompt '{id}' not found")),
                        },
                        ContentType::Skill => match self.library.get(&id) {
                            Some(s) if s.kind == EntryKind::Skill && depth == 0 => Ok(format!(
                                "**Skill `{}`** — {}\n\n{}",
                                s.id,
                                s.description,
                                self.text(s, depth + 1)
                            )),
                            Some(s) if s.kind == EntryKind::Skill => Err(format!(
                                "Skill '{}' is not expanded: skill references are one level deep",
                                s.id
                            )),
                            _ => Err(format!("Skill '{id}' not found")),
                        },
                        ContentType::Prefill => match (depth, self.prefilled.get(&id)) {
                            (0, Some(Ok(text))) => Ok(text.clone()),
                            (0, Some(Err(why))) => Err(format!("Prefill execution failed: {why}")),
                            (0, None) => Err(format!("Prefill '{id}': no prefill[] entry runs it")),
                            _ => Err(format!(
                                "Prefill '{id}' runs only when {} itself is requested",
                                entry.id
                            )),
                        },
                        ContentType::Input => Ok(String::new()),
                    }
                }
            };
            match replacement {
                Ok(text) => out.push_str(&text),
                Err(why) => {
                    let _ = write!(out, "[ERROR: {why}]");
                }
            }
        }
        out.push_str(&content[at..]);
        out
    }

    /// A tool placeholder: the whole block, or one field.
    fn tool(&self, id: &str, field: Option<&str>) -> Result<String, String> {
        let Some(entry) = self
            .tools
            .find(id)
            .filter(|e| matches!(e.descriptor.kind, Kind::Tool))
        else {
            return Err(match self.tools.rejected(id) {
                Some(r) => format!("Tool '{id}' is not callable: {}", r.reason()),
                None => format!("Tool '{id}' not found"),
            });
        };
        let d = &entry.descriptor;
        Ok(match field {
            Some("description") => d.description.clone(),
            Some("parameters") => parameter_table(&d.input_schema),
            Some("test") => self.example(entry),
            Some("meta") => self.meta_line(entry),
            Some("call") => self.call_line(entry),
            _ => format!(
                "### `{}` (MCP tool `{}`)\n\n{}\n\n**Parameters:**\n\n{}\n\n**Example call:**\n\n```sh\n{}\n```",
                d.id,
                d.wire_name,
                d.description,
                parameter_table(&d.input_schema),
                self.call_line(entry).trim_matches('`')
            ),
        })
    }

    /// The first test's arguments (its `_description` above them).
    fn first_test(&self, entry: &ToolEntry) -> Option<(String, Map<String, Value>)> {
        let schema = self.tools.toolset().schema_of(entry);
        let test = schema
            .main
            .tools
            .get(&entry.descriptor.tool)?
            .tests
            .first()?;
        let about = test
            .get("_description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let args = test
            .iter()
            .filter(|(k, _)| !k.starts_with('_'))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some((about, args))
    }

    /// `{{tool:…:test}}`: the first test as an example.
    fn example(&self, entry: &ToolEntry) -> String {
        match self.first_test(entry) {
            Some((about, args)) => {
                let json = serde_json::to_string_pretty(&Value::Object(args))
                    .unwrap_or_else(|_| "{}".into());
                if about.is_empty() {
                    format!("```json\n{json}\n```")
                } else {
                    format!("{about}:\n\n```json\n{json}\n```")
                }
            }
            None => format!("_No tests defined for {}_", entry.descriptor.id),
        }
    }

    /// `{{tool:…:call}}`: a command that calls the tool with its first test's arguments, as
    /// inline code (the tool block puts it in a fenced block); `flowmcp call ID --input 'JSON'`,
    /// exactly what the CLI accepts.
    fn call_line(&self, entry: &ToolEntry) -> String {
        let args = self
            .first_test(entry)
            .map(|(_, a)| Value::Object(a))
            .unwrap_or_else(|| Value::Object(Map::new()));
        format!(
            "`flowmcp call {} --input '{}'`",
            entry.descriptor.id,
            args.to_string().replace('\'', "'\\''")
        )
    }

    /// `{{tool:…:meta}}`: the tool's meta flags.
    fn meta_line(&self, entry: &ToolEntry) -> String {
        // The entry's own typed meta (a resource query named like a tool has none of its own).
        match entry.descriptor.tool_meta.as_ref() {
            Some(m) => format!(
                "isReadOnly: {} | isConcurrencySafe: {} | isDestructive: {} | alwaysLoad: {}",
                m.is_read_only, m.is_concurrency_safe, m.is_destructive, m.always_load
            ),
            None => "_No meta defined_".into(),
        }
    }

    /// A resource placeholder: what the resource is and how to read it.
    fn resource(&self, id: &str) -> Result<String, String> {
        let entries: Vec<&ToolEntry> = self
            .tools
            .toolset()
            .tools()
            .iter()
            .filter(|e| e.descriptor.id.to_string() == id)
            .collect();
        let Some(first) = entries.first() else {
            return Err(format!("Resource '{id}' not found"));
        };
        let description = first
            .descriptor
            .meta
            .as_ref()
            .and_then(|m| m.get("anthropic/searchHint"))
            .and_then(Value::as_str)
            .unwrap_or(&first.descriptor.description);
        let mut text = format!("**Resource `{id}`** — {description}");
        match &first.descriptor.kind {
            Kind::Document { .. } => {
                let _ = write!(
                    text,
                    "\n\nRead it as the MCP resource `flowmcp://{id}`, or call `{}` (optional `section`, `lines` or `search`).",
                    first.descriptor.wire_name
                );
            }
            _ => {
                text.push_str("\n\nQueries:");
                for e in &entries {
                    let _ = write!(
                        text,
                        "\n- `{}` (`{}`): {}",
                        e.descriptor.wire_name,
                        e.descriptor.lookup_key(),
                        e.descriptor.description
                    );
                }
            }
        }
        Ok(text)
    }
}

/// The catalog's prompts and skills ranked by how well they match `query`: each query word
/// found in the ID or name scores 3, in `whenToUse` 2, in the description 1 (case-insensitive);
/// entries that match no word are left out. Ties keep catalog order.
pub(crate) fn search<'l>(library: &'l Library, query: &str) -> Vec<(u32, &'l PromptEntry)> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect();
    let mut hits: Vec<(u32, &PromptEntry)> = library
        .entries()
        .iter()
        .filter_map(|e| {
            let id = e.id.to_lowercase();
            let when = e.when_to_use.as_deref().unwrap_or_default().to_lowercase();
            let about = e.description.to_lowercase();
            let score: u32 = words
                .iter()
                .map(|w| {
                    if id.contains(w.as_str()) {
                        3
                    } else if when.contains(w.as_str()) {
                        2
                    } else {
                        u32::from(about.contains(w.as_str()))
                    }
                })
                .sum();
            (score > 0).then_some((score, e))
        })
        .collect();
    hits.sort_by_key(|h| std::cmp::Reverse(h.0));
    hits
}

/// `**Prompt `id`** — description (note)`.
fn reference_line(what: &str, entry: &PromptEntry, note: &str) -> String {
    if entry.description.is_empty() {
        format!("**{what} `{}`** ({note})", entry.id)
    } else {
        format!("**{what} `{}`** — {} ({note})", entry.id, entry.description)
    }
}

/// A tool's parameters as a Markdown table, from its input schema.
fn parameter_table(schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return "_No parameters._".into();
    };
    if props.is_empty() {
        return "_No parameters._".into();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from(
        "| Parameter | Type | Required | Description |\n|-----------|------|----------|-------------|",
    );
    for (name, p) in props {
        let _ = write!(
            out,
            "\n| `{}` | {} | {} | {} |",
            name,
            cell(&type_text(p)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            cell(p.get("description").and_then(Value::as_str).unwrap_or(""))
        );
    }
    out
}

/// A parameter's type as a table shows it: `string`, `number (1900–2100)`, `one of: a, b`.
fn type_text(p: &Value) -> String {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = values.iter().map(|v| format!("`{}`", text_of(v))).collect();
        return format!("one of: {}", shown.join(", "));
    }
    let mut ty = match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".into(),
    };
    if ty == "array"
        && let Some(items) = p.get("items")
    {
        ty = format!("array of {}", type_text(items));
    }
    let (min, max) = (p.get("minimum"), p.get("maximum"));
    match (min, max) {
        (Some(a), Some(b)) => {
            let _ = write!(ty, " ({a}–{b})");
        }
        (Some(a), None) => {
            let _ = write!(ty, " (≥ {a})");
        }
        (None, Some(b)) => {
            let _ = write!(ty, " (≤ {b})");
        }
        _ => {}
    }
    if let Some(d) = p.get("default") {
        let _ = write!(ty, ", default {d}");
    }
    ty
}

/// Text safe inside a table cell (no `|`, no line breaks).
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parameter_tables_show_types_and_requirement() {
        let schema = json!({
            "type": "object",
            "properties": {
                "year": {"type": "number", "minimum": 1900, "maximum": 2100, "description": "Year"},
                "kind": {"type": "string", "enum": ["a", "b"], "description": "A | B"}
            },
            "required": ["year"]
        });
        let t = parameter_table(&schema);
        assert!(
            t.contains("| `year` | number (1900–2100) | yes | Year |"),
            "{t}"
        );
        assert!(
            t.contains("| `kind` | one of: `a`, `b` | no | A \\| B |"),
            "{t}"
        );
        assert_eq!(
            parameter_table(&json!({"type": "object"})),
            "_No parameters._"
        );
    }

    #[test]
    fn prefill_params_take_typed_inputs_and_drop_missing_ones() {
        let inputs = json!({"year": 2026, "cc": "DE"});
        let inputs = inputs.as_object().cloned().unwrap_or_default();
        assert_eq!(
            substitute_inputs(&json!("{{input:year}}"), &inputs),
            Some(json!(2026))
        );
        assert_eq!(
            substitute_inputs(&json!("{{input:cc}}-x"), &inputs),
            Some(json!("DE-x"))
        );
        assert_eq!(
            substitute_inputs(&json!("{{input:missing}}"), &inputs),
            None
        );
        assert_eq!(substitute_inputs(&json!(5), &inputs), Some(json!(5)));
    }

    #[test]
    fn long_results_are_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_PREFILL_BYTES);
        let text = result_text(&Value::String(long));
        assert!(text.contains("[cut: the result has"));
        assert!(text.len() < MAX_PREFILL_BYTES + 200);
    }
}
