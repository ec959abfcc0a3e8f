//! Migrating a schema file to a newer major version of the specification, as a rewrite of its
//! text: every character the steps do not change stays as it was (comments, formatting, key
//! order), since each step edits byte ranges found by the loader's edit reader.
//!
//! The steps (the migration chapter, 08, and what the 1.x and 3.x catalogs need beyond it):
//! - **1 → 2**: `export const schema` (or `const schema` with a later `export { schema }`) becomes
//!   `export const main`; `flowMCP: '1.x'` becomes `version: '2.0.0'` (a schema's own `version`
//!   becomes `schemaVersion`); the 1.x tool fields `requestMethod` and `route` become `method`
//!   and `path`; a parameter without `z` (a fixed value) gets a `string()` one; `handlers` leaves
//!   `main` and becomes the factory `export const handlers = ( { sharedLists, libraries } ) => …`,
//!   whose tools call the 1.x handlers their `modifiers` named (the `modifiers` are removed);
//!   every `import` becomes a TODO comment with the suggested shared-list reference (or library),
//!   as the chapter says (imports are flagged, not converted). Reviewed: a namespace that is not
//!   kebab-case is made so; a file without one gets its directory's name.
//! - **2 → 3**: `main.routes` becomes `main.tools`; the version becomes `3.0.0`.
//! - **3 → 4** (the chapter leaves it to the author; every drafted value is marked): the version
//!   becomes `4.0.0`; `main.skills` is removed (its text kept in a comment, to be registered in a
//!   selection or an agent manifest); every tool without `meta` gets one drafted from its method,
//!   path and description; tool names that are not camelCase are renamed (handler keys follow).
//!   Mechanical syntax: `:key` in a path becomes `{{key}}`; `{{KEY}}` of a server parameter
//!   becomes `{{SERVER_PARAM:KEY}}`; a user parameter written `{{NAME}}` becomes `{{USER_PARAM}}`
//!   (test keys follow); an enum written as an option (`enum()` + `values(a,b)`, or `string()` +
//!   `enum(a,b)`) becomes `primitive: 'enum(a,b)'`; a decimal string in a test of a `number()`
//!   parameter becomes the number; output type `integer` becomes `number`; `root` loses a trailing
//!   `/`; `{key}` in a path becomes `{{key}}`; a `regex(…)` option is removed; an insert parameter
//!   without a placeholder, in a file with handlers, becomes a query parameter.
//! - **Any step**: a schema with more than [`MAX_TOOLS`] tools is split ([`Migration::parts`]); a
//!   1.x import whose module declares the binding as plain data has that data copied in
//!   ([`migrate_reading`]).
//! - **Agents and prompts** (chapter 08, steps 6 and 7): [`agent_manifest`] writes the `agent.mjs`
//!   for a 2.x `manifest.json`; a prompt or skill file's `[[…]]` placeholders become `{{type:name}}`.
//!
//! Every drafted value and every TODO carries a `// REVIEW:` or `// TODO:` comment, and is listed
//! in [`Migration::reviews`] with its line, so that a person confirms it.

use std::ops::Range;

use flowmcp_loader::edit::{self, EditError, Member};
use flowmcp_spec::diagnostic::{Applicability, Edit as FixEdit, Fix, Seg};
use flowmcp_spec::{Code, FileReport, Level, RuleSettings};
use serde_json::Value;

/// The newest major version of the specification migrations lead to.
pub const LATEST: u8 = 4;

/// What [`migrate`] did to one file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    /// The major version the text was written for.
    pub from: u8,
    /// The major version of the new text (`from` when nothing was to be done).
    pub to: u8,
    /// The new text.
    pub text: String,
    /// What was changed, one sentence each, in order.
    pub changes: Vec<String>,
    /// What a person has to look at: the line (1-based, in the new text) and why.
    pub reviews: Vec<Review>,
    /// When the migrated schema has more tools than one schema may hold ([`MAX_TOOLS`]), `text`
    /// keeps the first of them and these further files the rest, in order (the CLI names them
    /// `<stem>-part2.mjs`, `-part3.mjs` …), each with its own reviews. Tool IDs do not name the
    /// file, so every tool keeps its ID.
    pub parts: Vec<(String, Vec<Review>)>,
}

/// The most tools one schema may define (version 2 and later).
pub const MAX_TOOLS: usize = 8;

/// One thing of a migrated file that needs a person's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    /// 1-based line in the migrated text.
    pub line: usize,
    /// What to check.
    pub message: String,
}

/// Why a file could not be migrated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MigrateError {
    /// No `export const schema = { … }` (1.x) or `export const main = { … }` (2.x and later).
    #[error(
        "not a schema file: no `export const main = {{ … }}` or 1.x `export const schema = {{ … }}`"
    )]
    NotASchema,
    /// `main.version` is missing or not a version this migration knows.
    #[error("cannot tell the version: {0}")]
    UnknownVersion(String),
    /// The file is newer than the requested target.
    #[error("the file is version {found}, newer than the target {target}")]
    Newer {
        /// The file's major version.
        found: u8,
        /// The requested major version.
        target: u8,
    },
    /// A step met text it cannot rewrite safely (the reason says where).
    #[error("{0}")]
    Edit(String),
}

impl From<EditError> for MigrateError {
    fn from(e: EditError) -> Self {
        MigrateError::Edit(e.to_string())
    }
}

/// The major version `source` was written for: 1 for a 1.x `export const schema` (with
/// `flowMCP`, or without `main`), else the major of `main.version`.
pub fn detect(source: &str) -> Result<u8, MigrateError> {
    if let Some(text) = exported_later(source) {
        return detect(&text);
    }
    if edit::find_export(source, "main").is_none() {
        return match edit::find_export(source, "schema") {
            Some(_) => {
                let members = edit::object_members(source, "schema", &[])?;
                // The chapter's 3.x example nests `main` inside `schema`; that is not 1.x.
                if members.iter().any(|m| m.name == "main")
                    && !members.iter().any(|m| m.name == "flowMCP")
                {
                    return Err(MigrateError::UnknownVersion(
                        "`export const schema = { main: … }` is not a layout any version defines; \
                         export `main` on its own"
                            .into(),
                    ));
                }
                Ok(1)
            }
            None => Err(MigrateError::NotASchema),
        };
    }
    let members = edit::object_members(source, "main", &[])?;
    let version = members
        .iter()
        .find(|m| m.name == "version")
        .and_then(|m| string_value(source, m))
        .ok_or_else(|| MigrateError::UnknownVersion("`main.version` is not a string".into()))?;
    match version.split('.').next().and_then(|n| n.parse::<u8>().ok()) {
        Some(n @ 2..=LATEST) => Ok(n),
        _ => Err(MigrateError::UnknownVersion(format!(
            "`main.version` is `{version}`"
        ))),
    }
}

/// Rewrites `source` step by step up to the major version `target` (2, 3 or 4). A file already at
/// `target` comes back unchanged, with no changes listed. `dir_name`, the name of the directory
/// the file is in, is the namespace a 1.x file without one gets (under a `// REVIEW:` comment).
pub fn migrate(
    source: &str,
    target: u8,
    dir_name: Option<&str>,
) -> Result<Migration, MigrateError> {
    migrate_reading(source, target, dir_name, &|_| None)
}

/// [`migrate`], where the 1 → 2 step may read the modules the file imports: `read_import` gets an
/// import's specifier as written (`'../_shared/evmChains.mjs'`) and returns that module's text, or
/// `None` when it may not or cannot be read. A binding whose module declares it as a pure data
/// literal (`const EVM_CHAINS = [ … ]`, no code) is copied into the file in place of the import, so
/// that module-level code using it keeps working; the TODO comment stays, with a `// REVIEW:`
/// saying where the data came from. Anything else is left to the TODO comment alone.
pub fn migrate_reading(
    source: &str,
    target: u8,
    dir_name: Option<&str>,
    read_import: &dyn Fn(&str) -> Option<String>,
) -> Result<Migration, MigrateError> {
    let from = match detect(source) {
        Err(MigrateError::NotASchema) => {
            return content_placeholders(source, target).ok_or(MigrateError::NotASchema);
        }
        other => other?,
    };
    if from > target {
        return Err(MigrateError::Newer {
            found: from,
            target,
        });
    }
    let mut text = source.to_string();
    let mut changes = Vec::new();
    for step in from..target {
        text = match step {
            1 => v1_to_v2(&text, dir_name, read_import, &mut changes)?,
            2 => v2_to_v3(&text, &mut changes)?,
            _ => v3_to_v4(&text, &mut changes)?,
        };
    }
    let mut parts = Vec::new();
    if target >= 2 && from < target {
        let mut split = split_tools(&text, MAX_TOOLS)?;
        if split.len() > 1 {
            changes.push(format!(
                "split into {} files of at most {MAX_TOOLS} tools each (tool IDs unchanged)",
                split.len()
            ));
            let old = OldMarkers::of(source);
            parts = split
                .drain(1..)
                .map(|t| {
                    let r = new_markers(&old, &t);
                    (t, r)
                })
                .collect();
            text = split.remove(0);
        }
    }
    let reviews = new_markers(&OldMarkers::of(source), &text);
    Ok(Migration {
        from,
        to: target.max(from),
        text,
        changes,
        reviews,
        parts,
    })
}

/// Chapter 08 step 7 for a prompt or skill file (`export const prompt`, `skill` or `content`):
/// every `[[…]]` placeholder inside a string becomes the typed form, `[[namespace/tool]]` a tool
/// (`{{tool:namespace/tool}}` in a prompt, which references tools by ID; `{{tool:tool}}` in a
/// skill, which names its own schema's tools) and `[[name]]` an input (`{{input:name}}`), under a
/// REVIEW comment. `None` when the file is neither, or has no such placeholder.
fn content_placeholders(source: &str, target: u8) -> Option<Migration> {
    if target < 3 {
        return None;
    }
    let blanked = flowmcp_loader::scan::blank_aligned(source);
    let kind = ["prompt", "skill", "content"].into_iter().find(|k| {
        blanked.contains(&format!("export const {k} ="))
            || blanked.contains(&format!("export const {k}="))
    })?;
    let mut edits = Edits::default();
    let mut count = 0;
    let mut from = 0;
    while let Some(i) = source[from..].find("[[").map(|i| from + i) {
        from = i + 2;
        let Some(len) = source[from..].find("]]") else {
            break;
        };
        let inner = &source[from..from + len];
        // Inside a string or template literal: blanked there, written in the source.
        let in_text = blanked.as_bytes().get(i) == Some(&b' ');
        let well_formed = !inner.is_empty()
            && inner.split('/').count() <= 2
            && inner.split('/').all(|p| {
                !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            });
        if !in_text || !well_formed {
            continue;
        }
        let typed = match inner.split_once('/') {
            Some((_, tool)) if kind == "skill" => format!("{{{{tool:{tool}}}}}"),
            Some(_) => format!("{{{{tool:{inner}}}}}"),
            None => format!("{{{{input:{inner}}}}}"),
        };
        edits.put(i..from + len + 2, typed);
        from += len + 2;
        count += 1;
    }
    if count == 0 {
        return None;
    }
    let statement = blanked.find(&format!("export const {kind}"))?;
    let top = source[..statement].rfind('\n').map_or(0, |i| i + 1);
    edits.put(
        top..top,
        format!(
            "// REVIEW: {count} placeholder(s) `[[…]]` became `{{{{type:name}}}}`: with a namespace a tool, without one an input; check each\n"
        ),
    );
    let text = edits.apply(source).ok()?;
    let reviews = new_markers(&OldMarkers::of(source), &text);
    Some(Migration {
        from: 2,
        to: target,
        text,
        changes: vec![format!(
            "{count} placeholder(s) `[[…]]` in the {kind}'s text became `{{{{type:name}}}}`"
        )],
        reviews,
        parts: Vec::new(),
    })
}

/// Chapter 08 step 6: the text of the `agent.mjs` that replaces a 2.x agent `manifest.json`
/// (whose text is `json`): `version` becomes `flowmcp/4.0.0`; the `tools` array an object of
/// tool IDs (`namespace/name` written `namespace/tool/name`) to `null`; the `prompts` array of `{
/// name, file }` an object of names to `{ file }`; each test written as a sentence `{
/// _description, input, expectedTools: [] }`; every other field as it was, in order. Reviews
/// mark what an author has to complete. [`MigrateError::NotASchema`] when `json` is not an agent
/// manifest (an object with a `name` and a `tools` array or a `systemPrompt`).
pub fn agent_manifest(json: &str) -> Result<Migration, MigrateError> {
    let Ok(Value::Object(manifest)) = serde_json::from_str::<Value>(json) else {
        return Err(MigrateError::NotASchema);
    };
    if !manifest.get("name").is_some_and(Value::is_string)
        || !(manifest.get("tools").is_some_and(Value::is_array)
            || manifest.contains_key("systemPrompt"))
    {
        return Err(MigrateError::NotASchema);
    }
    let mut notes: Vec<String> = Vec::new();
    let mut agent = serde_json::Map::new();
    for (key, value) in &manifest {
        let value = match (key.as_str(), value) {
            ("version", _) => Value::String("flowmcp/4.0.0".into()),
            ("tools", Value::Array(ids)) => {
                let mut tools = serde_json::Map::new();
                for id in ids.iter().filter_map(Value::as_str) {
                    let full = match id.split('/').collect::<Vec<_>>()[..] {
                        [ns, name] => {
                            flowmcp_spec::id::id_text(ns, flowmcp_spec::id::IdType::Tool, name)
                        }
                        _ => id.to_string(),
                    };
                    tools.insert(full, Value::Null);
                }
                Value::Object(tools)
            }
            ("prompts", Value::Array(items)) => {
                let mut prompts = serde_json::Map::new();
                for item in items {
                    if let (Some(name), Some(file)) = (
                        item.get("name").and_then(Value::as_str),
                        item.get("file").cloned(),
                    ) {
                        prompts.insert(name.to_string(), serde_json::json!({ "file": file }));
                    }
                }
                Value::Object(prompts)
            }
            ("tests", Value::Array(tests)) => {
                let written: Vec<Value> = tests
                    .iter()
                    .map(|t| match t {
                        Value::String(s) => serde_json::json!({
                            "_description": s,
                            "input": s,
                            "expectedTools": []
                        }),
                        other => other.clone(),
                    })
                    .collect();
                if tests.iter().any(Value::is_string) {
                    notes.push("each test sentence became { _description, input, expectedTools: [] }: list the tools each test expects".into());
                }
                if written.len() < 3 {
                    notes.push(format!(
                        "an agent needs at least 3 tests (found {})",
                        written.len()
                    ));
                }
                Value::Array(written)
            }
            _ => value.clone(),
        };
        agent.insert(key.clone(), value);
    }
    if !agent.contains_key("version") {
        agent.insert("version".into(), Value::String("flowmcp/4.0.0".into()));
    }
    if !agent.contains_key("tests") {
        notes.push("an agent needs at least 3 tests (found none)".into());
    }
    let mut text = String::from(
        "// REVIEW: converted from the 2.x manifest.json next to this file (which is kept: delete it once this is confirmed)\n",
    );
    for n in &notes {
        text.push_str(&format!("// REVIEW: {n}\n"));
    }
    text.push_str(&format!(
        "export const agent = {}\n",
        edit::js_literal(&Value::Object(agent), "", "    ")
    ));
    let reviews = new_markers(&OldMarkers::of(""), &text);
    Ok(Migration {
        from: 2,
        to: LATEST,
        text,
        changes: vec!["the agent's manifest.json became agent.mjs (`export const agent`)".into()],
        reviews,
        parts: Vec::new(),
    })
}

/// `text` (a version 2+ schema) as one text per group of at most `max` consecutive tools: each
/// is the whole file without the other groups' tools, its `main.name` marked with the part's
/// number, under a REVIEW comment. One text (`text` itself) when there are `max` tools or fewer.
fn split_tools(text: &str, max: usize) -> Result<Vec<String>, MigrateError> {
    let Ok(members) = edit::object_members(text, "main", &[]) else {
        return Ok(vec![text.to_string()]);
    };
    let Some(key) = ["tools", "routes"].into_iter().find(|k| {
        members
            .iter()
            .any(|m| m.name == *k && text[m.value.clone()].starts_with('{'))
    }) else {
        return Ok(vec![text.to_string()]);
    };
    let tools = edit::object_members(text, "main", &[key])?;
    if tools.len() <= max || max == 0 {
        return Ok(vec![text.to_string()]);
    }
    let count = tools.len().div_ceil(max);
    let size = tools.len().div_ceil(count);
    let name = members.iter().find(|m| m.name == "name");
    let export = edit::find_export(text, "main").ok_or(MigrateError::NotASchema)?;
    let statement = text[..export.name.start]
        .rfind("export")
        .unwrap_or(export.name.start);
    let top = text[..statement].rfind('\n').map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(count);
    for part in 0..count {
        let (from, to) = (part * size, ((part + 1) * size).min(tools.len()));
        let mut edits = Edits::default();
        edits.put(
            top..top,
            format!(
                "// REVIEW: part {} of {count}: the {} tools were split into files of at most {max} (the most one schema may hold); tool IDs are unchanged\n",
                part + 1,
                tools.len()
            ),
        );
        if let Some(n) = name
            && let Some(old) = string_value(text, n)
        {
            let pascal = old.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && old.chars().all(|c| c.is_ascii_alphanumeric());
            let new = if pascal {
                format!("{old}Part{}", part + 1)
            } else {
                format!("{old} (Part {})", part + 1)
            };
            edits.put(n.value.clone(), quoted(&new));
        }
        if from > 0 {
            edits.put(run_removal(text, &tools[0], &tools[from - 1]), "");
        }
        if to < tools.len() {
            edits.put(run_removal(text, &tools[to], &tools[tools.len() - 1]), "");
        }
        out.push(edits.apply(text)?);
    }
    Ok(out)
}

/// The byte range that removes the consecutive members `first` to `last` of one object (with the
/// comma after `last`, if any, and their lines when they stand on lines of their own). A comma
/// left before the closing brace is valid JavaScript.
fn run_removal(source: &str, first: &Member, last: &Member) -> Range<usize> {
    let line_start = source[..first.key.start].rfind('\n').map_or(0, |i| i + 1);
    let own_line = source[line_start..first.key.start].trim().is_empty();
    let start = if own_line {
        line_start
    } else {
        first.key.start
    };
    let bytes = source.as_bytes();
    let mut end = last.value.end;
    let mut after = end;
    while after < bytes.len() && matches!(bytes[after], b' ' | b'\t') {
        after += 1;
    }
    if bytes.get(after) == Some(&b',') {
        end = after + 1;
    }
    let rest_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    if own_line && source[end..rest_end].trim().is_empty() {
        end = (rest_end + 1).min(source.len());
    }
    start..end
}

/// The marker lines (`// REVIEW:`, `// TODO:`) of a text, trimmed, with how often each occurs:
/// what [`new_markers`] compares against. Only marker lines can make a line of the new text a
/// new marker, so only they are kept, and a source is read for them once however many texts
/// (split parts) are compared with it.
struct OldMarkers<'s>(std::collections::HashMap<&'s str, usize>);

const MARKS: [&str; 2] = ["// REVIEW:", "// TODO:"];

impl<'s> OldMarkers<'s> {
    fn of(before: &'s str) -> OldMarkers<'s> {
        let mut seen = std::collections::HashMap::new();
        for t in before.lines().map(str::trim) {
            if MARKS.iter().any(|m| t.starts_with(m)) {
                *seen.entry(t).or_insert(0) += 1;
            }
        }
        OldMarkers(seen)
    }
}

/// The `// REVIEW:` and `// TODO:` lines of `after` that the text of `before` did not have (each
/// line of `before` accounts for one equal line of `after`), with their line numbers.
fn new_markers(before: &OldMarkers<'_>, after: &str) -> Vec<Review> {
    let mut old = before.0.clone();
    let mut out = Vec::new();
    for (i, line) in after.lines().enumerate() {
        let t = line.trim();
        let Some(mark) = MARKS.iter().find(|m| t.starts_with(*m)) else {
            continue;
        };
        if let Some(n) = old.get_mut(t).filter(|n| **n > 0) {
            *n -= 1;
            continue;
        }
        if let Some(rest) = t.strip_prefix(mark) {
            out.push(Review {
                line: i + 1,
                message: rest.trim().to_string(),
            });
        }
    }
    out
}

/// What a rewrite of the 3 → 4 step repairs, for [`attach_fixes`]: the codes whose findings it
/// cures, the tool it belongs to (`None`: the whole file) and whether it is safe unreviewed.
#[derive(Clone, Debug)]
struct Tag {
    codes: &'static [Code],
    tool: Option<String>,
    safe: bool,
}

/// Replacements of byte ranges of one text, applied together (they must not overlap), each with
/// the [`Tag`] that was current when it was put.
#[derive(Default)]
struct Edits {
    list: Vec<(Range<usize>, String, Option<Tag>)>,
    tag: Option<Tag>,
    /// The codes the tags from now on must be among (empty: any), so that a part of the
    /// rewrites skipped unless one of its codes is wanted cannot tag another.
    within: &'static [Code],
}

impl Edits {
    fn put(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.list.push((range, text.into(), self.tag.clone()));
    }
    /// The edits put from now on repair findings of `codes` (of `tool`, or of the file).
    fn tag(&mut self, codes: &'static [Code], tool: Option<&str>, safe: bool) {
        // `has_fixable` finds fixable reports by the fix table.
        debug_assert!(
            codes
                .iter()
                .all(|c| flowmcp_spec::registry::fixes::fixes_of(*c).next().is_some()),
            "a rewrite cures {codes:?}, which the fix table does not list"
        );
        debug_assert!(
            self.within.is_empty() || codes.iter().all(|c| self.within.contains(c)),
            "a rewrite cures {codes:?}, outside the codes of its part ({:?})",
            self.within
        );
        self.tag = Some(Tag {
            codes,
            tool: tool.map(str::to_string),
            safe,
        });
    }
    fn apply(mut self, source: &str) -> Result<String, MigrateError> {
        self.list.sort_by_key(|(r, _, _)| (r.start, r.end));
        let mut out = String::with_capacity(source.len() + 256);
        let mut at = 0;
        for (r, text, _) in &self.list {
            if r.start < at || r.end > source.len() {
                let line = source[..r.start.min(source.len())].matches('\n').count() + 1;
                return Err(MigrateError::Edit(format!(
                    "two rewrites of the text at line {line} overlap; migrate this file by hand"
                )));
            }
            out.push_str(&source[at..r.start]);
            out.push_str(text);
            at = r.end;
        }
        out.push_str(&source[at..]);
        Ok(out)
    }
}

/// Gives the findings of `report` (the report of the schema named `display` whose text is
/// `source`) the fixes that the mechanical rewrites of the 3 → 4 step make, wherever their
/// pattern is found, whatever version the file declares. A finding of a code a rewrite cures is
/// offered the rewrites of that code in its tool and in the file as a whole, the safe ones alone
/// first, then all of them; it gets an offer as its fix only when the validation of the text with
/// them applied (as `report`'s was made: with the shared lists of `scope` and `opts`, without
/// source positions, which the check never reads) no longer reports it, by code and place, and
/// reports no more errors in all: a fix cures its finding and makes no new ones. The offers are
/// checked all at once (one validation), and one by one only when together they do not apply or
/// make more errors. Findings of one place may share edits (applying them applies each edit
/// once). A finding that has a fix keeps it. Only the rewrites of the codes of findings without a
/// fix are looked for: the tools are not read for a report whose findings no rewrite of a tool
/// cures. Nothing happens when the text is not a schema with a literal `main`, or the part of it
/// the wanted rewrites read cannot be read.
pub fn attach_fixes(
    report: &mut FileReport,
    source: &str,
    display: &str,
    scope: &flowmcp_validate::ListScope,
    opts: &flowmcp_validate::Options,
) {
    attach_fixes_loaded(report, source, None, display, scope, opts);
}

/// [`attach_fixes`] with `loaded`, a loading of the file with `opts`' limits and profile, and
/// the [`flowmcp_validate::RuleTrace`] of its validation with `scope` and `opts`' settings (an
/// empty one when it was not traced): when it is the loading of exactly `source` (not after a
/// byte-order mark, which the loader leaves out, nor of a file changed in between; the fixes'
/// offsets are in `source`), the rewrites are found on its blanking instead of a new one, and a
/// fixed text is validated from it when only its literal `main` changed
/// ([`flowmcp_validate::validate_edited`]), running again only the rules that read what changed.
pub(crate) fn attach_fixes_loaded(
    report: &mut FileReport,
    source: &str,
    loaded: Option<(
        &mut flowmcp_loader::LoadedFile,
        &flowmcp_validate::RuleTrace<'_>,
    )>,
    display: &str,
    scope: &flowmcp_validate::ListScope,
    opts: &flowmcp_validate::Options,
) {
    let (loaded, trace) = match loaded {
        Some((loaded, trace)) => (Some(loaded), Some(trace)),
        None => (None, None),
    };
    let mut loaded = loaded.filter(|l| l.source.as_deref() == Some(source));
    // Finding the rewrites reads the whole text: not for a report nothing could be fixed in.
    if !has_fixable(report) {
        return;
    }
    // Only rewrites of the codes of findings without a fix could be offered, and only codes the
    // fix table lists have rewrites: the check needs no other code than those and the errors.
    let mut wanted: Vec<Code> = report
        .diagnostics()
        .iter()
        .filter(|d| fixable(d))
        .map(|d| d.code)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let blanked = loaded.as_deref().and_then(|l| l.blanked.as_deref());
    let literal = loaded
        .as_deref()
        .and_then(|l| l.main_literal.as_ref().map(|m| m.range.start));
    let Ok(edits) = v3_to_v4_edits(
        source,
        blanked,
        literal,
        &mut Vec::new(),
        Purpose::Fix(&wanted),
    ) else {
        return;
    };
    if edits.list.is_empty() {
        return;
    }
    let mut unplaced = opts.clone();
    unplaced.positions = false;
    unplaced.settings = check_settings(&opts.settings, &wanted);
    let mut check = |edits: &[&FixEdit]| {
        let again = loaded.as_deref_mut().and_then(|first| {
            flowmcp_validate::validate_edited(first, trace, edits, display, scope, &unplaced)
        });
        again.unwrap_or_else(|| {
            let text = flowmcp_spec::diagnostic::apply_edits(source, edits);
            flowmcp_validate::validate_str(&text, display, scope, &unplaced)
        })
    };
    let mut diagnostics = report.diagnostics().to_vec();
    let errors = report.counts().errors;
    // First the safe edits alone, then, for the findings they do not cure, all of them.
    let mut changed = false;
    // A finding whose code no rewrite cures gets no offer: passed over before its tool is read
    // from its pointer.
    let cured = |code: &Code| {
        edits
            .list
            .iter()
            .any(|(_, _, tag)| tag.as_ref().is_some_and(|t| t.codes.contains(code)))
    };
    for with_unsafe in [false, true] {
        let mut offers: Vec<(Fix, Vec<usize>)> = Vec::new();
        for (i, d) in diagnostics
            .iter()
            .enumerate()
            .filter(|(_, d)| d.fix.is_none() && cured(&d.code))
        {
            let tool = d
                .pointer
                .as_ref()
                .and_then(|p| match p.segments().as_slice() {
                    [Seg::Key(m), Seg::Key(t), Seg::Key(name), ..]
                        if m == "main" && t == "tools" =>
                    {
                        Some(name.clone())
                    }
                    _ => None,
                });
            let mine: Vec<&(Range<usize>, String, Option<Tag>)> = edits
                .list
                .iter()
                .filter(|(_, _, tag)| {
                    tag.as_ref().is_some_and(|t| {
                        t.codes.contains(&d.code)
                            && (t.tool.is_none() || t.tool == tool)
                            && (with_unsafe || t.safe)
                    })
                })
                .collect();
            let safe = mine
                .iter()
                .all(|(_, _, t)| t.as_ref().is_some_and(|t| t.safe));
            // The second pass offers only what the first did not.
            if mine.is_empty() || (with_unsafe && safe) {
                continue;
            }
            let fix = Fix::new(
                if safe {
                    Applicability::Safe
                } else {
                    Applicability::Unsafe
                },
                mine.iter()
                    .map(|(r, text, _)| FixEdit {
                        start: r.start,
                        end: r.end,
                        text: text.clone(),
                    })
                    .collect(),
            );
            match offers.iter_mut().find(|(f, _)| *f == fix) {
                Some((_, to)) => to.push(i),
                None => offers.push((fix, vec![i])),
            }
        }
        changed |= try_offers(&offers, &mut diagnostics, source, errors, &mut check);
    }
    if changed {
        report.set_diagnostics(diagnostics);
    }
}

/// The settings a fix is checked with: `settings`, with every code turned off that is neither
/// an error under them (in any variant) nor among `wanted` (sorted). The check reads nothing
/// else of the fixed text's report: its number of errors, and whether the findings being fixed
/// are still there (D178); a rule all of whose codes are off does not run.
fn check_settings(settings: &RuleSettings, wanted: &[Code]) -> RuleSettings {
    // A run checks fixes of many files with the same settings and mostly the same few codes: the
    // last answer of this thread is kept and given again for the same question.
    type Last = Option<(RuleSettings, Vec<Code>, RuleSettings)>;
    thread_local! {
        static LAST: std::cell::RefCell<Last> = const { std::cell::RefCell::new(None) };
    }
    let known = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(s, w, _)| s == settings && w == wanted)
            .map(|(_, _, out)| out.clone())
    });
    if let Some(out) = known {
        return out;
    }
    let out = check_settings_anew(settings, wanted);
    LAST.set(Some((settings.clone(), wanted.to_vec(), out.clone())));
    out
}

/// [`check_settings`], worked out.
fn check_settings_anew(settings: &RuleSettings, wanted: &[Code]) -> RuleSettings {
    let mut out = settings.clone();
    for info in flowmcp_spec::registry::RULES {
        let code = info.code;
        let error = settings.level(code, None) == Level::Error
            || info
                .variants
                .iter()
                .any(|v| settings.level(code, Some(v.name)) == Level::Error);
        if !error && wanted.binary_search(&code).is_err() {
            out.overrides.set(code, Level::Off);
        }
    }
    out
}

/// Whether `report` has a finding without a fix whose code the fix table lists: only such a
/// report can get fixes from [`attach_fixes`] (every [`Tag`]'s codes are in the table).
pub(crate) fn has_fixable(report: &FileReport) -> bool {
    report.diagnostics().iter().any(fixable)
}

/// Whether `d` has no fix yet and its code is one the fix table lists (every [`Tag`]'s codes
/// are): a finding [`attach_fixes`] could give a fix.
fn fixable(d: &flowmcp_spec::Diagnostic) -> bool {
    d.fix.is_none()
        && flowmcp_spec::registry::fixes::fixes_of(d.code)
            .next()
            .is_some()
}

/// Gives each finding of `diagnostics` named by an offer the offer's fix when the text with it
/// applied no longer shows the finding (by code and place) and has no more than `errors` errors.
/// The offers are checked all at once (one validation), and one by one only when together they
/// do not apply or make more errors. Whether a finding got a fix.
fn try_offers(
    offers: &[(Fix, Vec<usize>)],
    diagnostics: &mut [flowmcp_spec::Diagnostic],
    source: &str,
    errors: usize,
    check: &mut dyn FnMut(&[&FixEdit]) -> FileReport,
) -> bool {
    if offers.is_empty() {
        return false;
    }
    let (edits, applied) =
        flowmcp_spec::diagnostic::fix_edits(source, offers.iter().map(|(f, _)| f));
    let together = applied.iter().all(|a| *a).then(|| check(&edits));
    let trials: Vec<(Vec<usize>, FileReport)> = match together {
        Some(after) if after.counts().errors <= errors => {
            vec![((0..offers.len()).collect(), after)]
        }
        _ => offers
            .iter()
            .enumerate()
            .filter_map(|(k, (fix, _))| {
                let (edits, applied) = flowmcp_spec::diagnostic::fix_edits(source, [fix]);
                let after = (applied == [true]).then(|| check(&edits))?;
                (after.counts().errors <= errors).then_some((vec![k], after))
            })
            .collect(),
    };
    let mut changed = false;
    for (ks, after) in trials {
        for k in ks {
            let Some((fix, to)) = offers.get(k) else {
                continue;
            };
            for &i in to {
                let Some(d) = diagnostics.get(i) else {
                    continue;
                };
                let still = after
                    .diagnostics()
                    .iter()
                    .any(|a| a.code == d.code && a.pointer == d.pointer);
                if !still && let Some(d) = diagnostics.get_mut(i) {
                    d.fix = Some(fix.clone());
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The text of a member's value when it is a plain string literal (no substitutions).
fn string_value(source: &str, m: &Member) -> Option<String> {
    let raw = source.get(m.value.clone())?;
    let q = raw.chars().next()?;
    if !matches!(q, '\'' | '"' | '`') || raw.len() < 2 || !raw.ends_with(q) {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    if q == '`' && inner.contains("${") {
        return None;
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A string as a single-quoted JavaScript literal.
fn quoted(s: &str) -> String {
    edit::js_literal(&Value::String(s.to_string()), "", "    ")
}

/// The literal data value of a member (an object or array literal of plain data), if it is one.
fn data_value(source: &str, m: &Member) -> Option<Value> {
    flowmcp_loader::literal::read_literal(source, m.value.start)
        .ok()
        .map(|(v, _)| v)
}

/// The byte range that removes member `m` from its object: with its comma (the following one, or
/// for the last member the preceding one) and, when it stands on lines of its own, those lines.
fn removal(source: &str, m: &Member) -> Range<usize> {
    let bytes = source.as_bytes();
    let mut end = m.value.end;
    let mut after = end;
    while after < bytes.len() && matches!(bytes[after], b' ' | b'\t' | b'\r' | b'\n') {
        after += 1;
    }
    let mut start = m.key.start;
    if bytes.get(after) == Some(&b',') {
        end = after + 1;
    } else {
        let mut before = start;
        while before > 0 && matches!(bytes[before - 1], b' ' | b'\t' | b'\r' | b'\n') {
            before -= 1;
        }
        if before > 0 && bytes[before - 1] == b',' {
            return before - 1..end;
        }
    }
    // Whole lines when the member has its lines to itself.
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let rest_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    if source[line_start..start].trim().is_empty() && source[end..rest_end].trim().is_empty() {
        start = line_start;
        end = (rest_end + 1).min(source.len());
    }
    start..end
}

/// The indentation of the line `at` is on.
fn indent_at(source: &str, at: usize) -> String {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    source[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// `text` as comment lines (`// ` before each), indented by `indent`.
fn commented(text: &str, indent: &str) -> String {
    text.lines()
        .map(|l| format!("{indent}// {}\n", l.trim_end()))
        .collect()
}

// ---------------------------------------------------------------- 1.x → 2.0.0

/// A 1.x file written as `const schema = { … }` and `export { schema }`, rewritten as `export
/// const schema = { … }` (the `export { schema }` statement removed); `None` for any other file.
fn exported_later(source: &str) -> Option<String> {
    let blanked = flowmcp_loader::scan::blank_aligned(source);
    // The statement's range and what stays of it (`export { feeds }` of `export { schema, feeds }`).
    let mut statement = None;
    let mut from = 0;
    while let Some(i) = blanked[from..].find("export") {
        let at = from + i;
        from = at + "export".len();
        let rest = blanked[from..].trim_start();
        let Some(inner) = rest.strip_prefix('{') else {
            continue;
        };
        let Some(close) = inner.find('}') else {
            continue;
        };
        let names: Vec<&str> = inner[..close].split(',').map(str::trim).collect();
        if names.contains(&"schema") {
            let mut end = blanked.len() - inner.len() + close + 1;
            if blanked[end..].starts_with(';') {
                end += 1;
            }
            let others: Vec<&str> = names
                .into_iter()
                .filter(|n| *n != "schema" && !n.is_empty())
                .collect();
            let keep = if others.is_empty() {
                String::new()
            } else {
                format!("export {{ {} }}", others.join(", "))
            };
            statement = Some((at..end, keep));
            break;
        }
    }
    let (statement, keep) = statement?;
    let declaration = blanked
        .match_indices("const schema")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || blanked.as_bytes()[i - 1] == b'\n')?;
    let mut text = String::with_capacity(source.len() + 8);
    text.push_str(&source[..declaration]);
    text.push_str("export ");
    text.push_str(&source[declaration..statement.start]);
    if keep.is_empty() {
        text.push_str(
            source[statement.end..]
                .strip_prefix('\n')
                .unwrap_or(&source[statement.end..]),
        );
    } else {
        text.push_str(&keep);
        text.push_str(&source[statement.end..]);
    }
    Some(text)
}

fn v1_to_v2(
    source: &str,
    dir_name: Option<&str>,
    read_import: &dyn Fn(&str) -> Option<String>,
    changes: &mut Vec<String>,
) -> Result<String, MigrateError> {
    if let Some(text) = exported_later(source) {
        changes.push("`const schema` and `export { schema }` became `export const schema`".into());
        return v1_to_v2(&text, dir_name, read_import, changes);
    }
    let export = edit::find_export(source, "schema").ok_or(MigrateError::NotASchema)?;
    let members = edit::object_members(source, "schema", &[])?;
    let view = Text::new(source);
    let mut edits = Edits::default();
    edits.put(export.name.clone(), "main");
    changes.push("`export const schema` became `export const main`".into());

    // The version.
    let flow = members.iter().find(|m| m.name == "flowMCP");
    if let Some(own) = members.iter().find(|m| m.name == "version") {
        edits.put(own.key.clone(), "schemaVersion");
        changes.push("the schema's own `version` became `schemaVersion`".into());
    }
    match flow {
        Some(f) => {
            edits.put(f.key.start..f.value.end, "version: '2.0.0'");
            changes.push("`flowMCP` became `version: '2.0.0'`".into());
        }
        None => {
            let open = export.object.start + 1;
            let first = members.first().map(|m| m.key.start);
            let text = match first {
                Some(at) if source[open..at].contains('\n') => {
                    format!("\n{}version: '2.0.0',", indent_at(source, at))
                }
                _ => " version: '2.0.0',".to_string(),
            };
            edits.put(open..open, text);
            changes.push("`version: '2.0.0'` added".into());
        }
    }

    // A namespace from the directory's name, when there is none.
    if !members.iter().any(|m| m.name == "namespace")
        && let Some(dir) = dir_name
        && let ns = kebab_namespace(dir)
        && !ns.is_empty()
    {
        let open = export.object.start + 1;
        let text = match members.first().map(|m| m.key.start) {
            Some(at) if source[open..at].contains('\n') => {
                let indent = indent_at(source, at);
                format!(
                    "\n{indent}// REVIEW: namespace taken from the directory name; confirm it\n{indent}namespace: {},",
                    quoted(&ns)
                )
            }
            _ => format!(" namespace: {},", quoted(&ns)),
        };
        edits.put(open..open, text);
        changes.push(format!("`namespace: '{ns}'` added (the directory's name)"));
    }

    // The namespace: lowercase letters, digits and dashes from 2.0.0 on.
    if let Some(ns) = members.iter().find(|m| m.name == "namespace")
        && let Some(name) = string_value(source, ns)
    {
        let kebab = kebab_namespace(&name);
        if kebab != name && !kebab.is_empty() {
            let indent = indent_at(source, ns.key.start);
            let line_start = source[..ns.key.start].rfind('\n').map_or(0, |i| i + 1);
            if source[line_start..ns.key.start].trim().is_empty() {
                edits.put(
                    line_start..line_start,
                    format!(
                        "{indent}// REVIEW: namespace was '{name}' (2.0.0 wants lowercase letters, digits and dashes); tool IDs change with it\n"
                    ),
                );
            }
            edits.put(ns.value.clone(), quoted(&kebab));
            changes.push(format!("namespace `{name}` became `{kebab}`"));
        }
    }

    // The tools: 1.x field names, and which handlers their modifiers call.
    let mut wiring: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut fixed = 0;
    // (Some 1.x files already call the container `tools`.)
    let container = if members.iter().any(|m| m.name == "routes") {
        Some("routes")
    } else if members.iter().any(|m| m.name == "tools") {
        Some("tools")
    } else {
        None
    };
    if let Some(container) = container {
        for route in edit::object_members(source, "schema", &[container])? {
            if !source[route.value.clone()].starts_with('{') {
                continue;
            }
            let fields = view.members_at(route.value.start)?;
            for f in &fields {
                match f.name.as_str() {
                    "requestMethod" if !fields.iter().any(|g| g.name == "method") => {
                        edits.put(f.key.clone(), "method")
                    }
                    "route" if !fields.iter().any(|g| g.name == "path") => {
                        edits.put(f.key.clone(), "path")
                    }
                    "parameters" => {
                        for open in view.array_objects(f.value.clone()) {
                            let members = view.members_at(open)?;
                            if let Some(position) = members.iter().find(|m| m.name == "position")
                                && !members.iter().any(|m| m.name == "z")
                            {
                                let at = position.value.end;
                                edits.put(at..at, ", z: { primitive: 'string()', options: [] }");
                                fixed += 1;
                            }
                        }
                    }
                    "modifiers" => {
                        let calls: Vec<(String, String)> = data_value(source, f)
                            .and_then(|v| v.as_array().cloned())
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|m| {
                                Some((
                                    m.get("phase")?.as_str()?.to_string(),
                                    m.get("handlerName")?.as_str()?.to_string(),
                                ))
                            })
                            .collect();
                        edits.put(removal(source, f), "");
                        wiring.push((route.name.clone(), calls));
                    }
                    _ => {}
                }
            }
        }
        changes.push("tool fields `requestMethod` and `route` became `method` and `path`".into());
        if fixed > 0 {
            changes.push(format!(
                "{fixed} parameter(s) without `z` (fixed values) got `z: {{ primitive: 'string()', options: [] }}`"
            ));
        }
    }

    // Handlers leave `main` and become a factory.
    let mut factory = String::new();
    if let Some(h) = members.iter().find(|m| m.name == "handlers") {
        let unit = edit::indent_unit(source);
        let legacy = reindent(
            &source[h.value.clone()],
            &indent_at(source, h.key.start),
            &unit,
        );
        factory = handlers_factory(&legacy, &wiring, &unit);
        edits.put(removal(source, h), "");
        changes.push(
            "`handlers` left `main` and became the factory `export const handlers = ( { sharedLists, libraries } ) => …`, \
             its tools calling the handlers their `modifiers` named"
                .into(),
        );
    } else if wiring.iter().any(|(_, calls)| !calls.is_empty()) {
        changes.push("`modifiers` removed: the file has no `handlers` they could call".into());
    }
    if !factory.is_empty() {
        edits.put(
            export.object.end..export.object.end,
            format!("\n\n\n{factory}"),
        );
    }

    // Imports become TODO comments.
    for (range, statement, specifier) in imports(source) {
        let suggestion = if specifier.starts_with('.') {
            let stem = specifier
                .rsplit('/')
                .next()
                .unwrap_or(&specifier)
                .trim_end_matches(".mjs")
                .trim_end_matches(".js");
            format!(
                "// TODO: Convert import to shared list reference\n// Original: {statement}\n// Suggested: main.sharedLists: [{{ ref: '{}', version: '1.0.0' }}]",
                lower_camel(stem)
            )
        } else {
            format!(
                "// TODO: Convert import to an injected library\n// Original: {statement}\n// Suggested: main.requiredLibraries: [ '{specifier}' ], used as `libraries` in the handlers factory"
            )
        };
        match inlined_data(&statement, &specifier, read_import) {
            Some(data) => {
                edits.put(range, format!("{suggestion}\n{data}"));
                changes.push(format!(
                    "import of `{specifier}` turned into a TODO comment; its data copied into the file"
                ));
            }
            None => {
                edits.put(range, suggestion);
                changes.push(format!(
                    "import of `{specifier}` turned into a TODO comment"
                ));
            }
        }
    }
    edits.apply(source)
}

/// The declarations that replace a relative `import { A, B as C } from '…'` whose module declares
/// each imported name as a pure data literal (`const A = [ … ]`): a `// REVIEW:` line naming the
/// module, then `const A = <the literal's text, comments and all>` per binding. `None` when the
/// statement has another form, the module cannot be read, or any binding is not plain data.
fn inlined_data(
    statement: &str,
    specifier: &str,
    read_import: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if !specifier.starts_with('.') {
        return None;
    }
    let names = statement
        .strip_prefix("import")?
        .trim_start()
        .strip_prefix('{')?
        .split_once('}')?
        .0;
    let module = read_import(specifier)?;
    let blanked = flowmcp_loader::scan::blank_aligned(&module);
    let mut out = format!(
        "// REVIEW: the data below was copied from {specifier} so that this file loads on its own; replace it with the shared list"
    );
    let mut any = false;
    for binding in names.split(',').map(str::trim).filter(|b| !b.is_empty()) {
        let (name, local) = match binding.split_once(" as ") {
            Some((n, l)) => (n.trim(), l.trim()),
            None => (binding, binding),
        };
        let ident = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        };
        if !ident(name) || !ident(local) {
            return None;
        }
        let text = data_declaration(&module, &blanked, name)?;
        out.push_str(&format!("\nconst {local} = {text}"));
        any = true;
    }
    any.then_some(out)
}

/// The text of the pure data literal a top-level `const <name> = …` (or `let`, `var`, with or
/// without `export`) of `module` is initialised with.
fn data_declaration<'m>(module: &'m str, blanked: &str, name: &str) -> Option<&'m str> {
    let mut from = 0;
    while let Some(i) = blanked[from..].find(name).map(|i| from + i) {
        from = i + name.len();
        let before = blanked[..i].trim_end();
        let declared = ["const", "let", "var"].iter().any(|kw| {
            before
                .strip_suffix(kw)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with(|c: char| c.is_whitespace()))
        });
        // Top level: the declaration starts a line.
        let line_start = blanked[..i].rfind('\n').map_or(0, |n| n + 1);
        let head = blanked[line_start..i].trim_start();
        if !declared
            || !(head.starts_with("const")
                || head.starts_with("let")
                || head.starts_with("var")
                || head.starts_with("export"))
        {
            continue;
        }
        let rest = &blanked[from..];
        let eq = rest.len() - rest.trim_start().len();
        if !rest[eq..].starts_with('=') || rest[eq..].starts_with("==") {
            continue;
        }
        let after_eq = from + eq + 1;
        let open = after_eq + (blanked[after_eq..].len() - blanked[after_eq..].trim_start().len());
        let (_, end) = flowmcp_loader::literal::read_literal(module, open).ok()?;
        return Some(&module[open..end]);
    }
    None
}

/// The top-level `import` statements of `source`: their byte range, their text on one line, and
/// the module specifier.
fn imports(source: &str) -> Vec<(Range<usize>, String, String)> {
    let blanked = flowmcp_loader::scan::blank_aligned(source);
    let mut out = Vec::new();
    let mut at = 0;
    for line in blanked.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start();
        if !(trimmed.starts_with("import ") || trimmed.starts_with("import{")) {
            continue;
        }
        if start
            < out
                .last()
                .map_or(0, |(r, _, _): &(Range<usize>, String, String)| r.end)
        {
            continue;
        }
        let begin = start + (line.len() - trimmed.len());
        // The specifier: the first string after `from`, or right after `import`.
        let Some(quote) = blanked[begin..].find(['\'', '"']).map(|i| begin + i) else {
            continue;
        };
        let q = blanked.as_bytes()[quote];
        let Some(close) = blanked[quote + 1..].find(q as char).map(|i| quote + 1 + i) else {
            continue;
        };
        let mut end = close + 1;
        if source[end..].starts_with(';') {
            end += 1;
        }
        let statement = source[begin..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let specifier = source[quote + 1..close].to_string();
        out.push((begin..end, statement, specifier));
    }
    out
}

/// `berlinDenkmale` → `berlin-denkmale`, `My_Api` → `my-api`: lowercase letters, digits and
/// single dashes, starting with a letter.
fn kebab_namespace(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
            prev_lower = true;
        } else if !out.ends_with('-') {
            out.push('-');
            prev_lower = false;
        }
    }
    out.trim_start_matches(|c: char| !c.is_ascii_lowercase())
        .trim_end_matches('-')
        .to_string()
}

/// One migration step's reading of its source: the edit view and the byte-aligned blanked text,
/// each computed once per step, so that a file with many tools or parameters costs one pass
/// per step rather than one per object.
struct Text<'s> {
    src: &'s str,
    view: edit::EditView<'s>,
}

impl<'s> Text<'s> {
    fn new(src: &'s str) -> Text<'s> {
        Text::with_blanked(src, None)
    }

    /// The reading of `src` from `blanked`, its [`flowmcp_loader::scan::blank_aligned`] form,
    /// when the caller has it (a text of another length is not taken: `src` is blanked again).
    fn with_blanked(src: &'s str, blanked: Option<&'s str>) -> Text<'s> {
        let view = match blanked {
            Some(b) if b.len() == src.len() => edit::EditView::with_aligned(src, b),
            _ => edit::EditView::new(src),
        };
        Text { src, view }
    }

    /// The members of the object literal whose `{` is at byte `open`.
    fn members_at(&self, open: usize) -> Result<Vec<Member>, EditError> {
        self.view.members_at(open)
    }

    /// The byte offsets of the `{` of the object literals that are elements of the array
    /// literal `range` ([`edit::EditView::array_objects`]).
    fn array_objects(&self, range: Range<usize>) -> Vec<usize> {
        self.view.array_objects(range)
    }

    /// Where `export const handlers` starts, if the file has it.
    fn handlers_start(&self) -> Option<usize> {
        memchr::memmem::find(self.view.blanked().as_bytes(), b"export const handlers")
    }
}

/// `evm-chains` → `evmChains`, `EVM_CHAINS` → `evmChains`, `evmChains` → `evmChains`.
fn lower_camel(name: &str) -> String {
    let parts: Vec<&str> = name
        .split(['-', '_', '.'])
        .filter(|p| !p.is_empty())
        .collect();
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        let shouting = p.chars().all(|c| !c.is_lowercase());
        let word: String = if shouting {
            p.to_lowercase()
        } else {
            p.to_string()
        };
        let mut cs = word.chars();
        if let Some(first) = cs.next() {
            if i == 0 {
                out.extend(first.to_lowercase());
            } else {
                out.extend(first.to_uppercase());
            }
            out.push_str(cs.as_str());
        }
    }
    out
}

/// Moves the lines after the first of `text` from below `from` to one `unit` below the start of
/// a line (where the factory's `const legacy = ` puts them).
fn reindent(text: &str, from: &str, unit: &str) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            match line.strip_prefix(from) {
                Some(rest) if !line.trim().is_empty() => {
                    out.push_str(unit);
                    out.push_str(rest);
                }
                _ => out.push_str(line),
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The 2.0.0 handlers factory around the 1.x handlers object `legacy`: each tool gets a
/// `preRequest`, `postRequest` or `executeRequest` that runs the 1.x handlers its modifiers named
/// for that phase, in order. A 1.x handler reads `struct` as the result (`{ status, messages,
/// data }`), `payload` as the request (`url`, `headers`, `body`) and `userParams` as the inputs;
/// the factory's `v1` builds that shape from the 2.0.0 arguments (whose `struct` is the request
/// and `payload` the inputs), and each wrapper turns the result back.
fn handlers_factory(legacy: &str, wiring: &[(String, Vec<(String, String)>)], u: &str) -> String {
    let mut tools = Vec::new();
    for (tool, calls) in wiring {
        let mut phases = Vec::new();
        for (phase, head, data, tail) in [
            (
                "pre",
                "preRequest: async ( { struct, payload } ) => {",
                "null",
                "return { struct: { ...struct, ...current.payload }, payload }",
            ),
            (
                "post",
                "postRequest: async ( { response, struct, payload } ) => {",
                "response",
                "return { response: current.struct.data }",
            ),
            (
                "execute",
                "executeRequest: async ( { struct, payload } ) => {",
                "null",
                "return { response: current.struct.data }",
            ),
        ] {
            let names: Vec<&str> = calls
                .iter()
                .filter(|(p, _)| p == phase)
                .map(|(_, n)| n.as_str())
                .collect();
            if names.is_empty() {
                continue;
            }
            let mut body = format!(
                "{u}{u}{u}{head}\n{u}{u}{u}{u}let current = v1( struct, payload, {data} )\n"
            );
            for n in names {
                body.push_str(&format!(
                    "{u}{u}{u}{u}current = {{ ...current, ...( await legacy[ {} ]( current ) ) }}\n",
                    quoted(n)
                ));
            }
            body.push_str(&format!("{u}{u}{u}{u}{tail}\n{u}{u}{u}}}"));
            phases.push(body);
        }
        if phases.is_empty() {
            continue;
        }
        let key = edit::js_literal(&serde_json::json!({ tool: 0 }), "", u);
        let key = key
            .trim_start_matches("{ ")
            .trim_end_matches(": 0 }")
            .to_string();
        tools.push(format!("{u}{u}{key}: {{\n{}\n{u}{u}}}", phases.join(",\n")));
    }
    format!(
        "// REVIEW: the 1.x handlers, now called by the tools their `modifiers` named (check the arguments each expects)\n\
         export const handlers = ( {{ sharedLists, libraries }} ) => {{\n\
         {u}const legacy = {legacy}\n\n\
         {u}// 1.x handlers read `struct` as the result, `payload` as the request, `userParams` as the inputs.\n\
         {u}const v1 = ( struct, payload, data ) => ( {{\n\
         {u}{u}struct: {{ status: true, messages: [], data }},\n\
         {u}{u}payload: {{ ...struct, ...( payload && payload.url !== undefined ? payload : {{}} ) }},\n\
         {u}{u}userParams: ( payload && payload.userParams ) || payload || {{}}\n\
         {u}}} )\n\n\
         {u}return {{\n{}\n{u}}}\n}}\n",
        tools.join(",\n")
    )
}

// ---------------------------------------------------------------- 2.x → 3.0.0

fn v2_to_v3(source: &str, changes: &mut Vec<String>) -> Result<String, MigrateError> {
    let members = edit::object_members(source, "main", &[])?;
    let mut edits = Edits::default();
    set_version(source, &members, "3.0.0", &mut edits, changes)?;
    match (
        members.iter().find(|m| m.name == "routes"),
        members.iter().any(|m| m.name == "tools"),
    ) {
        (Some(_), true) => {
            return Err(MigrateError::Edit(
                "`main` has both `routes` and `tools`; merge them by hand".into(),
            ));
        }
        (Some(r), false) => {
            edits.put(r.key.clone(), "tools");
            changes.push("`main.routes` became `main.tools`".into());
        }
        _ => {}
    }
    edits.apply(source)
}

fn set_version(
    source: &str,
    members: &[Member],
    version: &str,
    edits: &mut Edits,
    changes: &mut Vec<String>,
) -> Result<(), MigrateError> {
    let v = members
        .iter()
        .find(|m| m.name == "version")
        .ok_or_else(|| MigrateError::UnknownVersion("`main.version` is missing".into()))?;
    edits.put(v.value.clone(), quoted(version));
    changes.push(format!(
        "`main.version` {} → {version}",
        string_value(source, v).unwrap_or_default()
    ));
    Ok(())
}

// ---------------------------------------------------------------- 3.x → 4.0.0

fn v3_to_v4(source: &str, changes: &mut Vec<String>) -> Result<String, MigrateError> {
    v3_to_v4_edits(source, None, None, changes, Purpose::Migrate)?.apply(source)
}

/// What the rewrites of the 3 → 4 step are looked for.
#[derive(Clone, Copy)]
enum Purpose<'a> {
    /// A migration: every rewrite, and the new `version`.
    Migrate,
    /// Fixes for findings of these codes: only the rewrites tagged with one of them (no other
    /// could be offered to a finding), and the `version` stays.
    Fix(&'a [Code]),
}

impl Purpose<'_> {
    /// Whether rewrites that cure findings of one of `codes` are looked for.
    fn wants(self, codes: &[Code]) -> bool {
        match self {
            Purpose::Migrate => true,
            Purpose::Fix(wanted) => codes.iter().any(|c| wanted.contains(c)),
        }
    }
}

/// What the rewrites of `main.root`, `main.tags` and `main.skills` cure.
const ROOT_CODES: &[Code] = &[Code::VAL081];
const TAG_CODES: &[Code] = &[Code::VAL089];
const SKILL_CODES: &[Code] = &[Code::VAL016];
/// Every code the rewrites of tools (and the server-parameter placeholders and handler keys that
/// follow from them) are tagged with: the tools are read only when one of them is wanted. A tag
/// outside this list is caught by [`Edits::tag`] in debug builds.
const TOOL_CODES: &[Code] = &[
    Code::VAL050,
    Code::VAL085,
    Code::TST006,
    Code::VAL030,
    Code::VAL061,
    Code::VAL100,
    Code::VAL045,
    Code::VAL046,
    Code::TST004,
];

/// The edits of the 3 → 4 step for `purpose`, each tagged with the codes it cures; `blanked` is
/// `source`'s aligned blanking when the caller has it, and `literal` the byte offset of the `{`
/// of `main`'s object literal when a loader has read it whole.
fn v3_to_v4_edits(
    source: &str,
    blanked: Option<&str>,
    literal: Option<usize>,
    changes: &mut Vec<String>,
    purpose: Purpose<'_>,
) -> Result<Edits, MigrateError> {
    // One reading of the text serves every lookup below.
    let view = Text::with_blanked(source, blanked);
    // Fixes of `main.root` and `main.tags` alone read `main` only as far as those members when
    // it is a literal read whole (closed, so the members read are the first of its list); the
    // rest of the text is not read at all (D185).
    let (export, members) = match (purpose, literal) {
        (Purpose::Fix(_), Some(literal))
            if !purpose.wants(SKILL_CODES) && !purpose.wants(TOOL_CODES) =>
        {
            let names: Vec<&str> = [("root", ROOT_CODES), ("tags", TAG_CODES)]
                .into_iter()
                .filter(|(_, codes)| purpose.wants(codes))
                .map(|(name, _)| name)
                .collect();
            (None, view.view.leading_members("main", literal, &names)?)
        }
        _ => {
            let export = view
                .view
                .find_export("main")
                .ok_or(MigrateError::NotASchema)?;
            (Some(export), view.view.object_members("main", &[])?)
        }
    };
    let mut edits = Edits::default();
    if matches!(purpose, Purpose::Migrate) {
        set_version(source, &members, "4.0.0", &mut edits, changes)?;
    }

    // `root` without a trailing `/` (paths start with one).
    if purpose.wants(ROOT_CODES)
        && let Some(root) = members.iter().find(|m| m.name == "root")
        && let Some(url) = string_value(source, root)
        && url.len() > "https://".len()
        && url.ends_with('/')
        && !source[root.value.clone()].starts_with('`')
    {
        let trimmed = url.trim_end_matches('/');
        edits.tag(ROOT_CODES, None, true);
        edits.put(root.value.clone(), quoted(trimmed));
        changes.push(format!("`main.root` lost its trailing `/` ({trimmed})"));
    }

    // Tags in the pattern v4 requires (`cacheTtlDaily` → `cache-ttl-daily`). The array is
    // written anew on one line, so one with comments inside is left for a person.
    if purpose.wants(TAG_CODES)
        && let Some(tags) = members.iter().find(|m| m.name == "tags")
        && let Some(Value::Array(items)) = data_value(source, tags)
        && !source[tags.value.clone()].contains("//")
        && !source[tags.value.clone()].contains("/*")
    {
        let mut out: Vec<String> = Vec::new();
        let mut renamed = Vec::new();
        let mut plain = true;
        for item in &items {
            let Some(tag) = item.as_str() else {
                plain = false;
                break;
            };
            let fixed = if flowmcp_spec::catalog::is_namespace(tag) {
                tag.to_string()
            } else {
                match kebab_namespace(tag) {
                    k if flowmcp_spec::catalog::is_namespace(&k) => {
                        renamed.push(format!("{tag} → {k}"));
                        k
                    }
                    // Nothing usable is left (`2024`): kept for a person to decide.
                    _ => tag.to_string(),
                }
            };
            if !out.contains(&fixed) {
                out.push(fixed);
            }
        }
        if plain && !renamed.is_empty() {
            edits.tag(TAG_CODES, None, true);
            let list: Vec<String> = out.iter().map(|t| quoted(t)).collect();
            edits.put(tags.value.clone(), format!("[ {} ]", list.join(", ")));
            changes.push(format!("tags in the v4 pattern ({})", renamed.join(", ")));
        }
    }

    // `main.skills` leaves (kept in a comment above `main`).
    if purpose.wants(SKILL_CODES)
        && let Some(export) = &export
        && let Some(s) = members.iter().find(|m| m.name == "skills")
    {
        let statement = source[..export.name.start]
            .rfind("export")
            .unwrap_or(export.name.start);
        let line_start = source[..statement].rfind('\n').map_or(0, |i| i + 1);
        let note = format!(
            "// REVIEW: `main.skills` was removed (v4 forbids it): register these skills in a selection or an agent manifest. It was:\n{}",
            commented(&source[s.key.start..s.value.end], "")
        );
        edits.tag(SKILL_CODES, None, false);
        edits.put(line_start..line_start, note);
        edits.put(removal(source, s), "");
        changes.push("`main.skills` removed (kept in a comment above `main`)".into());
    }

    // Everything below rewrites tools or follows from their rewrites (and has read the export
    // whole: a reading of the leading members wants no tool).
    let Some(export) = export.filter(|_| purpose.wants(TOOL_CODES)) else {
        return Ok(edits);
    };
    edits.within = TOOL_CODES;

    // Server-parameter placeholders, anywhere in `main`'s text.
    let server: Vec<String> = members
        .iter()
        .find(|m| m.name == "requiredServerParams")
        .and_then(|m| data_value(source, m))
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    // (Rewritten below, after the tools: a path the tools' step rewrites whole gets them there.)
    let mut rewritten_paths: Vec<Range<usize>> = Vec::new();

    // Tools: `:key` path segments and drafted `meta`.
    let namespace = members
        .iter()
        .find(|m| m.name == "namespace")
        .and_then(|m| string_value(source, m))
        .unwrap_or_default();
    let tools_key = if members.iter().any(|m| m.name == "tools") {
        "tools"
    } else {
        "routes"
    };
    let mut drafted = 0;
    let mut paths = 0;
    let mut user_params = 0;
    let mut placeholders = 0;
    let mut integers = 0;
    let mut enum_values = 0;
    let mut test_numbers = 0;
    let mut regex_options = 0;
    let mut handler_inserts = 0;
    let mut renames: Vec<(String, String)> = Vec::new();
    if members.iter().any(|m| m.name == tools_key)
        && members
            .iter()
            .find(|m| m.name == tools_key)
            .is_some_and(|m| source[m.value.clone()].starts_with('{'))
    {
        let unit = edit::indent_unit(source);
        let has_handlers = view.handlers_start().is_some();
        let tools = view.view.object_members("main", &[tools_key])?;
        let mut tool_names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        for tool in tools {
            if !source[tool.value.clone()].starts_with('{') {
                continue;
            }
            let fields = view.members_at(tool.value.start)?;
            let mut tool_fields = ToolFields::new(&fields);
            let get = |name: &str| {
                fields
                    .iter()
                    .find(|f| f.name == name)
                    .and_then(|f| string_value(source, f))
            };
            // The path with its placeholders in the v4 form (empty without a plain string path).
            let mut migrated_path = String::new();
            // Each rewrite below is looked for only when a code it cures is wanted (the path's
            // is also what the handlers' inserts are read against).
            if purpose.wants(&[Code::VAL050, Code::VAL085])
                && let Some(p) = fields.iter().find(|f| f.name == "path")
                && let Some(path) = string_value(source, p)
            {
                let new = colon_paths(&path, &insert_keys(&view, &mut tool_fields)?);
                if new != path && !source[p.value.clone()].starts_with('`') {
                    let with_server = server_placeholders(&new, &server);
                    placeholders += with_server.1;
                    edits.tag(&[Code::VAL050, Code::VAL085], Some(&tool.name), true);
                    edits.put(p.value.clone(), quoted(&with_server.0));
                    rewritten_paths.push(p.value.clone());
                    paths += 1;
                }
                migrated_path = new;
            }
            if has_handlers && purpose.wants(&[Code::VAL050]) {
                edits.tag(&[Code::VAL050], Some(&tool.name), false);
                handler_inserts +=
                    handler_read_inserts(&view, &mut tool_fields, &migrated_path, &mut edits)?;
            }
            if purpose.wants(&[Code::VAL085, Code::TST006]) {
                edits.tag(&[Code::VAL085, Code::TST006], Some(&tool.name), true);
                user_params += named_user_params(&view, &mut tool_fields, &server, &mut edits)?;
            }
            if purpose.wants(&[Code::VAL045, Code::VAL046, Code::TST004]) {
                let (v, n, r) =
                    enum_values_and_test_numbers(&view, &mut tool_fields, &tool.name, &mut edits)?;
                enum_values += v;
                test_numbers += n;
                regex_options += r;
            }
            let camel = camel_tool_name(&tool.name);
            if purpose.wants(&[Code::VAL030]) && camel != tool.name && !tool_names.contains(&camel)
            {
                let line_start = source[..tool.key.start].rfind('\n').map_or(0, |i| i + 1);
                edits.tag(&[Code::VAL030], Some(&tool.name), false);
                if source[line_start..tool.key.start].trim().is_empty() {
                    edits.put(
                        line_start..line_start,
                        format!(
                            "{}// REVIEW: tool '{}' renamed '{camel}' (tool names are camelCase); its ID changes\n",
                            indent_at(source, tool.key.start),
                            tool.name
                        ),
                    );
                }
                edits.put(tool.key.clone(), camel.clone());
                tool_names.push(camel.clone());
                renames.push((tool.name.clone(), camel));
            }
            if purpose.wants(&[Code::VAL061])
                && let Some(output) = fields.iter().find(|f| f.name == "output")
            {
                edits.tag(&[Code::VAL061], Some(&tool.name), true);
                for at in integer_types(source, output.value.clone()) {
                    edits.put(at..at + "integer".len(), "number");
                    integers += 1;
                }
            }
            // A drafted `meta` cures VAL100 alone: not drafted when that is not wanted.
            if fields.iter().any(|f| f.name == "meta") || !purpose.wants(&[Code::VAL100]) {
                continue;
            }
            let method = get("method").unwrap_or_else(|| "GET".into()).to_uppercase();
            let description = get("description").unwrap_or_default();
            let path = get("path").unwrap_or_default();
            let (meta, why) = draft_meta(&namespace, &tool.name, &method, &path, &description);
            let Some(last) = fields.last() else { continue };
            let indent = if source[tool.value.start..last.key.start].contains('\n') {
                indent_at(source, last.key.start)
            } else {
                format!("{}{unit}", indent_at(source, tool.key.start))
            };
            let mut at = last.value.end;
            let rest = &source[at..tool.value.end];
            let comma = rest.trim_start().starts_with(',');
            if comma {
                at += rest.find(',').map_or(0, |i| i + 1);
            }
            let literal = edit::js_literal(&meta, &indent, &unit);
            edits.tag(&[Code::VAL100], Some(&tool.name), false);
            edits.put(
                at..at,
                format!(
                    "{}\n{indent}// REVIEW: meta drafted by migration ({why}); confirm each value\n{indent}meta: {literal}{}",
                    if comma { "" } else { "," },
                    if comma { "," } else { "" }
                ),
            );
            drafted += 1;
        }
    }
    if paths > 0 {
        changes.push(format!(
            "{paths} path(s): `:key` segments became `{{{{key}}}}`"
        ));
    }
    let main_text = &source[export.object.clone()];
    for key in server.iter().filter(|_| purpose.wants(&[Code::VAL085])) {
        let old = format!("{{{{{key}}}}}");
        for (i, _) in main_text.match_indices(&old) {
            let at = export.object.start + i;
            if rewritten_paths.iter().any(|r| r.contains(&at)) {
                continue;
            }
            edits.tag(&[Code::VAL085], None, true);
            edits.put(at..at + old.len(), format!("{{{{SERVER_PARAM:{key}}}}}"));
            placeholders += 1;
        }
    }
    if placeholders > 0 {
        changes.push(format!(
            "{placeholders} server-parameter placeholder(s) `{{{{KEY}}}}` became `{{{{SERVER_PARAM:KEY}}}}`"
        ));
    }

    // Handler keys follow renamed tools.
    if !renames.is_empty() {
        if let Some(start) = view.handlers_start() {
            let region = &source[start..];
            for (old, new) in &renames {
                edits.tag(&[Code::VAL030], Some(old), false);
                let mut forms = vec![format!("'{old}':"), format!("\"{old}\":")];
                if old
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                {
                    forms.push(format!("{old}:"));
                }
                for form in forms {
                    for (i, _) in region.match_indices(&form) {
                        let before = region[..i].chars().last();
                        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                            continue;
                        }
                        edits.put(start + i..start + i + form.len(), format!("{new}:"));
                    }
                }
            }
        }
        changes.push(format!(
            "{} tool name(s) made camelCase: {}",
            renames.len(),
            renames
                .iter()
                .map(|(o, n)| format!("{o} → {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if user_params > 0 {
        changes.push(format!(
            "{user_params} user parameter(s) written `{{{{NAME}}}}` became `{{{{USER_PARAM}}}}` (test keys renamed to the parameter keys)"
        ));
    }
    if enum_values > 0 {
        changes.push(format!(
            "{enum_values} enum parameter(s) written with an option (`values(…)` or `enum(…)`) became `primitive: 'enum(…)'`"
        ));
    }
    if test_numbers > 0 {
        changes.push(format!(
            "{test_numbers} test value(s) of number parameters written as strings became numbers"
        ));
    }
    if regex_options > 0 {
        changes.push(format!(
            "{regex_options} `regex(…)` option(s) removed (v4 has no pattern option; each kept in a REVIEW comment)"
        ));
    }
    if handler_inserts > 0 {
        changes.push(format!(
            "{handler_inserts} insert parameter(s) without a path placeholder, read by the handlers, became `location: 'query'`"
        ));
    }
    if integers > 0 {
        changes.push(format!(
            "{integers} output schema type(s) `integer` became `number`"
        ));
    }
    if drafted > 0 {
        changes.push(format!("`meta` drafted for {drafted} tool(s)"));
    }
    Ok(edits)
}

/// In a file with handlers, a tool's insert parameters with no `{{key}}` in its `path` (as
/// migrated) are values a handler reads from `payload` (3.x sent them nowhere). v4 requires the
/// placeholder of every insert parameter, so they become `location: 'query'`, under a REVIEW
/// comment: they are now also sent as query parameters unless the handler builds `struct.url`
/// itself or the tool's `executeRequest` makes no request. Returns how many.
fn handler_read_inserts(
    view: &Text<'_>,
    tool_params: &mut ToolFields<'_>,
    path: &str,
    edits: &mut Edits,
) -> Result<usize, MigrateError> {
    let source = view.src;
    let Some(params) = tool_params.member else {
        return Ok(0);
    };
    // The REVIEW comment goes on its own line above `parameters`; without one, nothing moves.
    let at = source[..params.key.start].rfind('\n').map_or(0, |i| i + 1);
    if !source[at..params.key.start].trim().is_empty() {
        return Ok(0);
    }
    let mut moved: Vec<String> = Vec::new();
    for param in tool_params.get(view)? {
        let Some(pos) = &param.position else {
            continue;
        };
        let (Some(key), Some(location)) = (
            pos.iter()
                .find(|m| m.name == "key")
                .and_then(|m| string_value(source, m)),
            pos.iter().find(|m| m.name == "location"),
        ) else {
            continue;
        };
        if string_value(source, location).as_deref() == Some("insert")
            && !path.contains(&format!("{{{{{key}}}}}"))
        {
            edits.put(location.value.clone(), quoted("query"));
            moved.push(key);
        }
    }
    if !moved.is_empty() {
        edits.put(
            at..at,
            format!(
                "{}// REVIEW: {} had `location: 'insert'` without a {{{{key}}}} in the path (a handler reads them from `payload`); now `location: 'query'`, so they are also sent as query parameters unless the handler sets `struct.url` or `executeRequest` makes no request\n",
                indent_at(source, params.key.start),
                moved.join(", ")
            ),
        );
    }
    Ok(moved.len())
}

/// A tool's user parameters whose `position.value` is a named placeholder `{{NAME}}` (not a server
/// parameter): the value becomes `{{USER_PARAM}}` and the tests' key `NAME` the parameter's key.
/// Returns how many parameters were rewritten.
fn named_user_params(
    view: &Text<'_>,
    tool_params: &mut ToolFields<'_>,
    server: &[String],
    edits: &mut Edits,
) -> Result<usize, MigrateError> {
    let source = view.src;
    let fields = tool_params.fields;
    let mut renamed: Vec<(String, String)> = Vec::new();
    if tool_params.member.is_none() {
        return Ok(0);
    }
    for param in tool_params.get(view)? {
        let Some(pos) = &param.position else {
            continue;
        };
        let key = pos
            .iter()
            .find(|m| m.name == "key")
            .and_then(|m| string_value(source, m));
        let Some(value) = pos.iter().find(|m| m.name == "value") else {
            continue;
        };
        if let Some(key) = key
            && let Some(v) = string_value(source, value)
            && let Some(name) = v.strip_prefix("{{").and_then(|r| r.strip_suffix("}}"))
            && name != "USER_PARAM"
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !server.iter().any(|s| s == name)
        {
            edits.put(value.value.clone(), "'{{USER_PARAM}}'");
            renamed.push((name.to_string(), key));
        }
    }
    if let Some(tests) = fields.iter().find(|f| f.name == "tests")
        && !renamed.is_empty()
    {
        for open in view.array_objects(tests.value.clone()) {
            let members = view.members_at(open)?;
            for m in &members {
                if let Some((_, key)) = renamed.iter().find(|(n, k)| *n == m.name && *k != m.name)
                    && !members.iter().any(|o| o.name == *key)
                {
                    let written = edit::js_literal(&serde_json::json!({ key.as_str(): 0 }), "", "");
                    let written = written
                        .trim_start_matches("{ ")
                        .trim_end_matches(": 0 }")
                        .to_string();
                    edits.put(m.key.clone(), written);
                }
            }
        }
    }
    Ok(renamed.len())
}

/// Three rewrites of a tool's parameters: `primitive: 'enum()'` with an option `values(a,b)`
/// becomes `primitive: 'enum(a,b)'` (the option removed); a `regex(…)` option is removed (v4 has
/// none; a REVIEW comment keeps the pattern); a test value of a `number()` parameter written as a
/// string of decimal digits (`'10'`) becomes the number. Returns how many of each.
fn enum_values_and_test_numbers(
    view: &Text<'_>,
    tool_params: &mut ToolFields<'_>,
    tool: &str,
    edits: &mut Edits,
) -> Result<(usize, usize, usize), MigrateError> {
    let source = view.src;
    let (mut values, mut numbers, mut regexes) = (0, 0, 0);
    let fields = tool_params.fields;
    let Some(params) = tool_params.member else {
        return Ok((0, 0, 0));
    };
    let mut number_keys: Vec<String> = Vec::new();
    for param in tool_params.get(view)? {
        let (Some(pos), Some(z)) = (
            &param.position,
            param.members.iter().find(|m| m.name == "z"),
        ) else {
            continue;
        };
        if !source[z.value.clone()].starts_with('{') {
            continue;
        }
        let open = param.open;
        let zm = view.members_at(z.value.start)?;
        let primitive = zm.iter().find(|m| m.name == "primitive");
        let prim = primitive
            .and_then(|m| string_value(source, m))
            .unwrap_or_default();
        if prim.starts_with("number(") {
            for name in ["key", "value"] {
                if let Some(v) = pos
                    .iter()
                    .find(|m| m.name == name)
                    .and_then(|m| string_value(source, m))
                {
                    let v = v
                        .strip_prefix("{{")
                        .and_then(|r| r.strip_suffix("}}"))
                        .map_or(v.clone(), str::to_string);
                    number_keys.push(v);
                }
            }
        }
        // `enum()` + `values(a,b)` (3.x), or `string()` + the option `enum(a,b)` (1.x).
        let option = match prim.as_str() {
            "enum()" => Some("values("),
            "string()" => Some("enum("),
            _ => None,
        };
        let Some(options) = zm.iter().find(|m| m.name == "options") else {
            continue;
        };
        let Some(Value::Array(items)) = data_value(source, options) else {
            continue;
        };
        let mut rest = items.clone();
        if let Some(option) = option
            && let Some(primitive) = primitive
            && let Some(listed) = items.iter().find_map(|i| {
                i.as_str()
                    .and_then(|s| s.strip_prefix(option))
                    .and_then(|s| s.strip_suffix(')'))
            })
        {
            rest.retain(|i| !i.as_str().is_some_and(|s| s.starts_with(option)));
            edits.tag(&[Code::VAL045, Code::VAL046], Some(tool), true);
            edits.put(primitive.value.clone(), quoted(&format!("enum({listed})")));
            values += 1;
        }
        // `regex(…)`: v4 has no pattern option. The pattern is kept in a REVIEW comment.
        let patterns: Vec<String> = items
            .iter()
            .filter_map(|i| i.as_str().filter(|s| s.starts_with("regex(")))
            .map(|s| s.replace(['\n', '\r'], " "))
            .collect();
        if !patterns.is_empty() {
            rest.retain(|i| !i.as_str().is_some_and(|s| s.starts_with("regex(")));
            let line_start = source[..open].rfind('\n').map_or(0, |i| i + 1);
            let at = if source[line_start..open].trim().is_empty() {
                line_start
            } else {
                source[..params.key.start].rfind('\n').map_or(0, |i| i + 1)
            };
            let indent = indent_at(
                source,
                if at == line_start {
                    open
                } else {
                    params.key.start
                },
            );
            edits.tag(&[Code::VAL045], Some(tool), false);
            edits.put(
                at..at,
                format!(
                    "{indent}// REVIEW: option {} removed (v4 has no pattern option): check the value in a preRequest handler or say it in the description\n",
                    patterns.join(", ")
                ),
            );
            regexes += patterns.len();
        }
        if rest.len() != items.len() {
            edits.tag(
                &[Code::VAL045, Code::VAL046],
                Some(tool),
                patterns.is_empty(),
            );
            edits.put(
                options.value.clone(),
                edit::js_literal(&Value::Array(rest), "", "    "),
            );
        }
    }
    if let Some(tests) = fields.iter().find(|f| f.name == "tests")
        && !number_keys.is_empty()
    {
        for open in view.array_objects(tests.value.clone()) {
            for m in view.members_at(open)? {
                if !number_keys.contains(&m.name) {
                    continue;
                }
                if let Some(v) = string_value(source, &m)
                    && is_decimal(&v)
                {
                    edits.tag(&[Code::TST004], Some(tool), true);
                    edits.put(m.value.clone(), v);
                    numbers += 1;
                }
            }
        }
    }
    Ok((values, numbers, regexes))
}

/// `10`, `-3`, `0.5`: an optional minus, digits, optionally a dot and digits (no exponent, no
/// leading zeros that JavaScript would read differently).
fn is_decimal(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, "0"));
    !int.is_empty()
        && int.chars().all(|c| c.is_ascii_digit())
        && (int == "0" || !int.starts_with('0'))
        && !frac.is_empty()
        && frac.chars().all(|c| c.is_ascii_digit())
}

/// The byte offsets of the word `integer` written as the value of a `type` member inside `range`
/// (`type: 'integer'`, `"type":"integer"`).
fn integer_types(source: &str, range: Range<usize>) -> Vec<usize> {
    let text = &source[range.clone()];
    let mut out = Vec::new();
    for (i, _) in text.match_indices("integer") {
        let before = &text[..i];
        let after = &text[i + "integer".len()..];
        let Some(q) = before.chars().last().filter(|c| matches!(c, '\'' | '"')) else {
            continue;
        };
        if !after.starts_with(q) {
            continue;
        }
        let lead = before[..before.len() - 1].trim_end();
        let Some(lead) = lead.strip_suffix(':') else {
            continue;
        };
        let lead = lead.trim_end().trim_end_matches(['\'', '"']);
        if lead.ends_with("type")
            && !lead[..lead.len() - 4]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            out.push(range.start + i);
        }
    }
    out
}

/// A tool name in camelCase (`^[a-z][a-zA-Z0-9]*$`): `markets_festivals` → `marketsFestivals`,
/// `/block/:number` → `blockNumber`; a name that is already camelCase is returned as it is.
fn camel_tool_name(name: &str) -> String {
    let valid = |n: &str| {
        n.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && n.chars().all(|c| c.is_ascii_alphanumeric())
    };
    if valid(name) {
        return name.to_string();
    }
    let mut out = String::new();
    for word in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut cs = word.chars();
        if let Some(first) = cs.next() {
            if out.is_empty() {
                out.push(first.to_ascii_lowercase());
            } else {
                out.push(first.to_ascii_uppercase());
            }
            out.push_str(cs.as_str());
        }
    }
    if !out.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
        out.insert_str(0, "tool");
    }
    out
}

/// `text` with each `{{KEY}}` of a server parameter written `{{SERVER_PARAM:KEY}}`, and how many.
fn server_placeholders(text: &str, server: &[String]) -> (String, usize) {
    let mut out = text.to_string();
    let mut n = 0;
    for key in server {
        let old = format!("{{{{{key}}}}}");
        n += out.matches(&old).count();
        out = out.replace(&old, &format!("{{{{SERVER_PARAM:{key}}}}}"));
    }
    (out, n)
}

/// One object of a tool's `parameters` array, read once for the rewrites that look at it.
struct Param {
    /// Byte offset of its `{`.
    open: usize,
    /// Its members.
    members: Vec<Member>,
    /// The members of its `position`, when that is an object literal.
    position: Option<Vec<Member>>,
}

/// A tool's members, and its parameters read from the text the first time a rewrite asks for
/// them: every rewrite of the tool reads the same ones.
struct ToolFields<'m> {
    fields: &'m [Member],
    /// The `parameters` member.
    member: Option<&'m Member>,
    read: Option<Vec<Param>>,
}

impl<'m> ToolFields<'m> {
    fn new(fields: &'m [Member]) -> Self {
        ToolFields {
            fields,
            member: fields.iter().find(|f| f.name == "parameters"),
            read: None,
        }
    }

    /// The parameters (none without a `parameters` member); reading them fails as
    /// [`parameters`] does, each time it is asked.
    fn get(&mut self, view: &Text<'_>) -> Result<&[Param], MigrateError> {
        let Some(member) = self.member else {
            return Ok(&[]);
        };
        if self.read.is_none() {
            self.read = Some(parameters(view, member)?);
        }
        Ok(self.read.as_deref().unwrap_or_default())
    }
}

/// The objects of the `parameters` array `params` (a tool's member).
fn parameters(view: &Text<'_>, params: &Member) -> Result<Vec<Param>, MigrateError> {
    let source = view.src;
    let mut out = Vec::new();
    for open in view.array_objects(params.value.clone()) {
        let members = view.members_at(open)?;
        let position = match members.iter().find(|m| m.name == "position") {
            Some(p) if source[p.value.clone()].starts_with('{') => {
                Some(view.members_at(p.value.start)?)
            }
            _ => None,
        };
        out.push(Param {
            open,
            members,
            position,
        });
    }
    Ok(out)
}

/// The keys of a tool's `insert` parameters.
fn insert_keys(
    view: &Text<'_>,
    tool_params: &mut ToolFields<'_>,
) -> Result<Vec<String>, MigrateError> {
    let source = view.src;
    let mut keys = Vec::new();
    for param in tool_params.get(view)? {
        let Some(pos) = &param.position else {
            continue;
        };
        let get = |n: &str| {
            pos.iter()
                .find(|m| m.name == n)
                .and_then(|m| string_value(source, m))
        };
        if get("location").as_deref() == Some("insert")
            && let Some(key) = get("key")
        {
            keys.push(key);
        }
    }
    Ok(keys)
}

/// `/users/:id/posts` → `/users/{{id}}/posts`: whole segments that start with `:`, and `:key` of
/// an insert parameter `key` anywhere (`/geo::lat;:lon/`, `/item/:id.json`), where no letter,
/// digit or `_` follows; and `{key}` with single braces (`/accounts/{hash}`) of an insert parameter.
fn colon_paths(path: &str, insert: &[String]) -> String {
    let mut path = path.to_string();
    let mut keys: Vec<&String> = insert.iter().filter(|k| !k.is_empty()).collect();
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    for key in &keys {
        let single = format!("{{{key}}}");
        let mut out = String::with_capacity(path.len() + 8);
        let mut rest = path.as_str();
        while let Some(i) = rest.find(&single) {
            let doubled = rest[..i].ends_with('{') || rest[i + single.len()..].starts_with('}');
            out.push_str(&rest[..i]);
            if doubled {
                out.push_str(&single);
            } else {
                out.push_str(&format!("{{{{{key}}}}}"));
            }
            rest = &rest[i + single.len()..];
        }
        out.push_str(rest);
        path = out;
    }
    for key in keys {
        let needle = format!(":{key}");
        let mut out = String::with_capacity(path.len() + 8);
        let mut rest = path.as_str();
        while let Some(i) = rest.find(&needle) {
            let after = &rest[i + needle.len()..];
            out.push_str(&rest[..i]);
            if after
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                out.push_str(&needle);
            } else {
                out.push_str(&format!("{{{{{key}}}}}"));
            }
            rest = after;
        }
        out.push_str(rest);
        path = out;
    }
    path.split('/')
        .map(|seg| match seg.strip_prefix(':') {
            Some(name)
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                format!("{{{{{name}}}}}")
            }
            _ => seg.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Words a search hint gains nothing from.
const STOP_WORDS: &[&str] = &[
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "by",
    "for",
    "from",
    "get",
    "gets",
    "in",
    "into",
    "is",
    "it",
    "its",
    "of",
    "on",
    "or",
    "the",
    "this",
    "to",
    "via",
    "with",
    "returns",
    "return",
    "structured",
    "json",
    "response",
    "data",
    "using",
    "given",
    "all",
    "be",
    "can",
    "that",
];

/// A drafted `meta` for one tool and a short reason: reads are `GET`/`HEAD`/`OPTIONS`, and `POST`
/// tools whose path or description says they query (GraphQL, RPC, search); only `DELETE` or a
/// description that says it deletes is destructive; concurrency safety follows read-only-ness; the
/// search hint is the description's distinctive words (or the tool name's), at most 100 characters.
fn draft_meta(
    namespace: &str,
    tool: &str,
    method: &str,
    path: &str,
    description: &str,
) -> (Value, String) {
    let lower = format!("{} {}", path, description).to_lowercase();
    let querying = [
        "graphql", "rpc", "search", "query", "lookup", "find", "fetch", "list",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let (read_only, why) = match method {
        "GET" | "HEAD" | "OPTIONS" => (true, format!("{method}: read-only")),
        "POST" if querying => (true, "POST that queries: read-only".to_string()),
        m => (false, format!("{m}: writes")),
    };
    let destructive = method == "DELETE"
        || ["delete", "remove", "destroy", "revoke", "cancel"]
            .iter()
            .any(|w| {
                description
                    .to_lowercase()
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|x| x == *w)
            });
    let mut words: Vec<String> = Vec::new();
    let source_words = if description.trim().is_empty() {
        split_camel(tool)
    } else {
        description
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .map(str::to_lowercase)
            .collect()
    };
    for w in std::iter::once(namespace.to_string()).chain(source_words) {
        let w = w.trim_matches('-').to_string();
        if w.len() < 2 || STOP_WORDS.contains(&w.as_str()) || words.contains(&w) {
            continue;
        }
        if words.iter().map(|x| x.len() + 1).sum::<usize>() + w.len() > 100 {
            break;
        }
        words.push(w);
    }
    if words.is_empty() {
        words.push(tool.to_string());
    }
    let meta = serde_json::json!({
        "isReadOnly": read_only,
        "isConcurrencySafe": read_only,
        "isDestructive": destructive,
        "searchHint": words.join(" "),
        "aliases": [],
        "alwaysLoad": false,
    });
    (meta, why)
}

/// `getTokenPrice` → `get`, `token`, `price`.
fn split_camel(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in name.chars() {
        if (c.is_uppercase() || c == '_') && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if c != '_' {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const V1: &str = "import { EVM_CHAINS } from '../_shared/evm-chains.mjs'\n\n// the schema\nexport const schema = {\n    namespace: \"demo\",\n    name: \"Demo\",\n    flowMCP: \"1.2.0\",\n    root: \"https://api.example.com\",\n    routes: {\n        getThing: {\n            requestMethod: \"GET\",\n            route: \"/thing/:id\", // keep me\n            parameters: [],\n            modifiers: [ { phase: \"post\", handlerName: \"shape\" } ]\n        }\n    },\n    handlers: {\n        shape: async ( { struct, payload } ) => {\n            return { struct, payload }\n        }\n    }\n}\n";

    #[test]
    fn i31_1_v1_wraps_fields_in_main() {
        assert_eq!(detect(V1).unwrap(), 1);
        let m = migrate(V1, 2, None).unwrap();
        assert_eq!((m.from, m.to), (1, 2));
        assert!(m.text.contains("export const main = {"), "{}", m.text);
        assert!(m.text.contains("    version: '2.0.0',\n"), "{}", m.text);
        assert!(!m.text.contains("flowMCP"));
        // Field names, comment and order kept.
        assert!(
            m.text.contains(
                "            method: \"GET\",\n            path: \"/thing/:id\", // keep me\n"
            ),
            "{}",
            m.text
        );
        assert!(!m.text.contains("modifiers: ["));
        assert!(m.text.contains("// the schema\n"));
        // Handlers: a factory after `main`, calling the 1.x handler.
        let main_end = m.text.find("\n}\n").unwrap();
        let factory = m
            .text
            .find("export const handlers = ( { sharedLists, libraries } ) => {")
            .unwrap();
        assert!(factory > main_end, "{}", m.text);
        assert!(
            m.text
                .contains("current = { ...current, ...( await legacy[ 'shape' ]( current ) ) }")
        );
        assert!(
            m.text
                .contains("postRequest: async ( { response, struct, payload } ) => {")
        );
        // The 1.x argument shape is rebuilt from the 2.0.0 one.
        assert!(
            m.text
                .contains("let current = v1( struct, payload, response )"),
            "{}",
            m.text
        );
        // The routes stay `routes` in 2.0.0.
        assert!(m.text.contains("    routes: {"));
        assert_eq!(detect(&m.text).unwrap(), 2);
    }

    #[test]
    fn i31_1_v1_imports_become_todo_comments() {
        let m = migrate(V1, 2, None).unwrap();
        assert!(
            !m.text.contains("\nimport") && !m.text.starts_with("import"),
            "{}",
            m.text
        );
        assert!(m.text.starts_with(
            "// TODO: Convert import to shared list reference\n// Original: import { EVM_CHAINS } from '../_shared/evm-chains.mjs'\n// Suggested: main.sharedLists: [{ ref: 'evmChains', version: '1.0.0' }]\n"
        ), "{}", m.text);
        assert!(
            m.reviews
                .iter()
                .any(|r| r.line == 1 && r.message.starts_with("Convert import"))
        );
    }

    #[test]
    fn i31_1_v1_declared_then_exported() {
        let src = "const schema = {\n    namespace: 'demo',\n    flowMCP: '1.2.0',\n    routes: {}\n}\n\nexport { schema };\n";
        let m = migrate(src, 2, None).unwrap();
        assert_eq!(
            m.text,
            "export const main = {\n    namespace: 'demo',\n    version: '2.0.0',\n    routes: {}\n}\n\n"
        );
    }

    const V2: &str = "export const main = {\n    namespace: 'demo',\n    version: '2.1.0', // old\n    routes: {\n        a: { method: 'GET', path: '/a' }\n    }\n}\n";

    #[test]
    fn i31_1_v2_renames_routes_and_bumps_the_version() {
        let m = migrate(V2, 3, None).unwrap();
        assert_eq!(
            m.text,
            "export const main = {\n    namespace: 'demo',\n    version: '3.0.0', // old\n    tools: {\n        a: { method: 'GET', path: '/a' }\n    }\n}\n"
        );
        assert!(m.reviews.is_empty());
        let both = V2.replace("    routes:", "    tools: {},\n    routes:");
        assert!(matches!(
            migrate(&both, 3, None),
            Err(MigrateError::Edit(_))
        ));
    }

    const V3: &str = "export const main = {\n    namespace: 'demo',\n    version: '3.0.0',\n    root: 'https://api.example.com',\n    tags: [ 'cacheTtlDaily', 'open_data', 'weather', 'cache-ttl-daily' ],\n    requiredServerParams: [ 'API_KEY' ],\n    headers: { 'X-Key': '{{API_KEY}}' },\n    skills: [ { name: 'x', file: './x.mjs' } ],\n    tools: {\n        getUser: {\n            method: 'GET',\n            path: '/users/:id/posts',\n            description: 'Get the posts of a user',\n            parameters: []\n        },\n        removeUser: { method: 'DELETE', path: '/users', description: 'Delete a user', meta: { isReadOnly: false } }\n    }\n}\n";

    #[test]
    fn i31_1_v3_drafts_meta_and_rewrites_old_syntax() {
        let m = migrate(V3, 4, None).unwrap();
        let t = &m.text;
        assert!(t.contains("    version: '4.0.0',\n"), "{t}");
        assert!(t.contains("path: '/users/{{id}}/posts',"), "{t}");
        assert!(
            t.contains("headers: { 'X-Key': '{{SERVER_PARAM:API_KEY}}' },"),
            "{t}"
        );
        assert!(!t.contains("    skills: ["), "{t}");
        assert!(t.starts_with("// REVIEW: `main.skills` was removed"), "{t}");
        assert!(
            t.contains("// skills: [ { name: 'x', file: './x.mjs' } ]\n"),
            "{t}"
        );
        assert!(t.contains(
            "            parameters: [],\n            // REVIEW: meta drafted by migration (GET: read-only); confirm each value\n            meta: {\n                isReadOnly: true,\n                isConcurrencySafe: true,\n                isDestructive: false,\n                searchHint: 'demo posts user',\n                aliases: [],\n                alwaysLoad: false\n            }\n        },"
        ), "{t}");
        // Tags in the v4 pattern, duplicates folded.
        assert!(
            t.contains("    tags: [ 'cache-ttl-daily', 'open-data', 'weather' ],\n"),
            "{t}"
        );
        // A tool that has `meta` keeps it.
        assert_eq!(t.matches("meta:").count(), 2, "{t}");
        assert_eq!(m.reviews.len(), 2, "{:?}", m.reviews);
        assert_eq!(detect(t).unwrap(), 4);
        // Nothing left to do at the target.
        let again = migrate(t, 4, None).unwrap();
        assert_eq!(again.text, *t);
        assert!(again.changes.is_empty());
        assert!(matches!(
            migrate(t, 3, None),
            Err(MigrateError::Newer {
                found: 4,
                target: 3
            })
        ));
    }

    #[test]
    fn i31_1_steps_chain_from_1_to_4() {
        let m = migrate(V1, 4, None).unwrap();
        assert_eq!((m.from, m.to), (1, 4));
        assert!(m.text.contains("    version: '4.0.0',\n"));
        assert!(m.text.contains("    tools: {\n"));
        assert!(
            m.text.contains("path: \"/thing/{{id}}\", // keep me")
                || m.text.contains("path: '/thing/{{id}}', // keep me"),
            "{}",
            m.text
        );
        assert!(m.text.contains("meta: {"));
        assert!(matches!(
            detect("export const list = {}"),
            Err(MigrateError::NotASchema)
        ));
    }

    #[test]
    fn i31_1_multibyte_text_does_not_shift_edits() {
        let src = "const schema = {\n    description: 'Größe — ü',\n    flowMCP: '1.2.0',\n    routes: {}\n}\nexport { schema }\n";
        let m = migrate(src, 2, None).unwrap();
        assert_eq!(
            m.text,
            "export const main = {\n    description: 'Größe — ü',\n    version: '2.0.0',\n    routes: {}\n}\n"
        );
    }

    #[test]
    fn i31_1_v1_fixed_parameters_get_z_and_namespaces_become_kebab_case() {
        let src = "export const schema = {\n    namespace: \"berlinDenkmale\",\n    flowMCP: \"1.2.0\",\n    routes: {\n        a: {\n            requestMethod: \"GET\",\n            route: \"/\",\n            parameters: [\n                { position: { key: \"module\", value: \"contract\", location: \"query\" } },\n                { position: { key: \"q\", value: \"{{USER_PARAM}}\", location: \"query\" }, z: { primitive: \"string()\", options: [] } }\n            ]\n        }\n    }\n}\n";
        let m = migrate(src, 2, None).unwrap();
        assert!(m.text.contains("{ position: { key: \"module\", value: \"contract\", location: \"query\" }, z: { primitive: 'string()', options: [] } },\n"), "{}", m.text);
        assert_eq!(m.text.matches("z: {").count(), 2, "{}", m.text);
        assert!(
            m.text
                .contains("    // REVIEW: namespace was 'berlinDenkmale'"),
            "{}",
            m.text
        );
        assert!(
            m.text.contains("    namespace: 'berlin-denkmale',\n"),
            "{}",
            m.text
        );
        assert_eq!(kebab_namespace("My_API2x"), "my-api2x");
    }

    /// Fixes found on the loader's blanking of the text are the fixes found on a new one; a
    /// blanking of another length is not taken (issue #46: the fixes of a report no longer blank
    /// the text a second time).
    #[test]
    fn i46_fixes_found_on_the_loaders_blanking_are_the_same() {
        let opts = flowmcp_validate::Options::default();
        let scope = flowmcp_validate::ListScope::NotFound {
            searched_from: ".".into(),
        };
        let fixed = |src: &str, loaded: Option<&mut flowmcp_loader::LoadedFile>| {
            let mut report = flowmcp_validate::validate_str(src, "s.mjs", &scope, &opts);
            let untraced = flowmcp_validate::RuleTrace::default();
            let loaded = loaded.map(|l| (l, &untraced));
            attach_fixes_loaded(&mut report, src, loaded, "s.mjs", &scope, &opts);
            serde_json::to_string(report.diagnostics()).unwrap_or_default()
        };
        let shifted = format!("// é, ü: characters of several bytes before it all\n{V3}");
        for src in [V3, shifted.as_str()] {
            let plain = fixed(src, None);
            assert!(plain.contains("\"fix\""), "{plain}");
            let path = std::path::Path::new("s.mjs");
            let mut loaded =
                flowmcp_loader::load_source(path, "s.mjs", src, &opts.limits, &opts.settings);
            assert_eq!(
                loaded.blanked.as_deref(),
                Some(flowmcp_loader::scan::blank_aligned(src).as_str())
            );
            assert_eq!(fixed(src, Some(&mut loaded)), plain);
            // Not the blanking of this text: blanked again.
            loaded.blanked = Some("export const main = {}".into());
            assert_eq!(fixed(src, Some(&mut loaded)), plain);
        }
    }

    /// Fixes checked from the report's own loaded file (D180: a fixed text whose edits are
    /// inside `main` is loaded from it) are the fixes checked from the fixed text alone, for
    /// every failing fixture of a code with fixes, under the fixture's profile; and the loaded
    /// file has its exports back as they were.
    #[test]
    fn i46_fixes_checked_from_the_loaded_file_are_the_same() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../flowmcp-validate/tests/fixtures");
        let mut codes: Vec<Code> = flowmcp_spec::registry::fixes::FIXES
            .iter()
            .map(|f| f.code)
            .collect();
        codes.dedup();
        let (mut compared, mut with_fixes) = (0, 0);
        for code in codes {
            let Ok(dir) = std::fs::read_dir(fixtures.join(code.as_str())) else {
                continue;
            };
            for path in dir.flatten().map(|e| e.path()) {
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if !name.starts_with("fail") || !name.ends_with(".mjs") {
                    continue;
                }
                let src = std::fs::read_to_string(&path).unwrap();
                let profile = if src.contains("// profile: compat") {
                    flowmcp_spec::Profile::Compat
                } else {
                    flowmcp_spec::Profile::Spec
                };
                let opts = flowmcp_validate::Options::new(profile);
                let scope = flowmcp_validate::ListScope::NotFound {
                    searched_from: ".".into(),
                };
                let display = path.display().to_string();
                let mut loaded = flowmcp_loader::load_source(
                    &path,
                    &display,
                    &src,
                    &opts.limits,
                    &opts.settings,
                );
                let before = loaded.exports.clone();
                let (mut report, trace) =
                    flowmcp_validate::validate_loaded_traced(&mut loaded, &opts, &scope, None);
                let mut plain = report.clone();
                attach_fixes(&mut plain, &src, &display, &scope, &opts);
                let mut untraced = report.clone();
                attach_fixes_loaded(
                    &mut untraced,
                    &src,
                    Some((&mut loaded, &flowmcp_validate::RuleTrace::default())),
                    &display,
                    &scope,
                    &opts,
                );
                assert_eq!(untraced, plain, "{display}");
                // Rules that read nothing the fix changed are not run again (D186).
                attach_fixes_loaded(
                    &mut report,
                    &src,
                    Some((&mut loaded, &trace)),
                    &display,
                    &scope,
                    &opts,
                );
                assert_eq!(report, plain, "{display}");
                assert_eq!(loaded.exports, before, "{display}");
                compared += 1;
                with_fixes += usize::from(report.diagnostics().iter().any(|d| d.fix.is_some()));
            }
        }
        assert!(
            compared > 20 && with_fixes > 10,
            "{compared} compared, {with_fixes} with fixes"
        );
    }

    /// A fixed text validated under a check's settings (D178) shows what the check reads exactly
    /// as under the report's own settings: the number of errors, and each finding of the codes
    /// being fixed, by code and place. For texts before and after the 3 → 4 rewrites and the
    /// example catalog's schemas, under both profiles and with overrides that raise a note to an
    /// error and turn an error off.
    #[test]
    fn i46_a_fix_check_reads_the_same_under_its_settings() {
        let scope = flowmcp_validate::ListScope::NotFound {
            searched_from: ".".into(),
        };
        let mut texts = vec![V3.to_string()];
        let edits = v3_to_v4_edits(V3, None, None, &mut Vec::new(), Purpose::Migrate).unwrap();
        texts.push(edits.apply(V3).unwrap());
        let examples =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog");
        for path in flowmcp_files::walk::mjs_files(&examples, &|_| false).unwrap() {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
        assert!(texts.len() > 8, "{} texts", texts.len());
        let mut settings = Vec::new();
        for profile in [flowmcp_spec::Profile::Compat, flowmcp_spec::Profile::Spec] {
            settings.push(RuleSettings::new(profile));
            let mut raised = RuleSettings::new(profile);
            raised.overrides.set(Code::TST008, Level::Error);
            raised.overrides.set(Code::VAL001, Level::Off);
            settings.push(raised);
        }
        let mut compared = 0;
        for text in &texts {
            for settings in &settings {
                let mut opts = flowmcp_validate::Options::new(settings.profile);
                opts.settings = settings.clone();
                opts.positions = false;
                let full = flowmcp_validate::validate_str(text, "s.mjs", &scope, &opts);
                // Every code the report shows, and none, as the codes being fixed.
                let mut shown: Vec<Code> = full.diagnostics().iter().map(|d| d.code).collect();
                shown.sort_unstable();
                shown.dedup();
                for wanted in [shown.clone(), Vec::new()] {
                    let mut narrow = opts.clone();
                    narrow.settings = check_settings(settings, &wanted);
                    let checked = flowmcp_validate::validate_str(text, "s.mjs", &scope, &narrow);
                    assert_eq!(checked.counts().errors, full.counts().errors);
                    let places = |r: &FileReport| -> Vec<String> {
                        let mut v: Vec<String> = r
                            .diagnostics()
                            .iter()
                            .filter(|d| wanted.contains(&d.code))
                            .map(|d| format!("{} {:?}", d.code, d.pointer))
                            .collect();
                        v.sort();
                        v
                    };
                    assert_eq!(places(&checked), places(&full));
                    compared += 1;
                }
            }
        }
        assert!(compared >= 40, "{compared}");
    }

    /// The settings a check is made with are the same when this thread asked the same before
    /// and when it asked something else in between (the last answer is kept).
    #[test]
    fn i46_check_settings_kept_are_the_settings_worked_out() {
        let mut raised = RuleSettings::new(flowmcp_spec::Profile::Compat);
        raised.overrides.set(Code::TST008, Level::Error);
        let all = [
            RuleSettings::new(flowmcp_spec::Profile::Compat),
            RuleSettings::new(flowmcp_spec::Profile::Spec),
            raised,
        ];
        let wanted: [&[Code]; 3] = [&[Code::VAL089], &[Code::TST008, Code::VAL089], &[]];
        for round in 0..3 {
            for (i, settings) in all.iter().enumerate() {
                for (j, codes) in wanted.iter().enumerate() {
                    let asked = check_settings(settings, codes);
                    assert_eq!(
                        asked,
                        check_settings_anew(settings, codes),
                        "{round} {i} {j}"
                    );
                    assert_eq!(asked, check_settings(settings, codes), "{round} {i} {j}");
                }
            }
        }
    }

    /// Rewrites looked for fixes of some codes are exactly the rewrites of those codes a
    /// migration finds (issue #46: fixes for a report whose findings no rewrite of a tool cures
    /// do not read the tools), for every code alone and for all of them together.
    #[test]
    fn i46_rewrites_for_some_codes_are_the_migrations_rewrites_of_those_codes() {
        let v3_tools = "export const main = {\n    namespace: 'demo',\n    version: '3.0.0',\n    tags: [ 'openData' ],\n    requiredServerParams: [ 'KEY' ],\n    tools: {\n        get_item: {\n            method: 'GET',\n            path: '/item/:id.json?k={{KEY}}',\n            parameters: [\n                { position: { key: 'id', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } },\n                { position: { key: 'limit', value: '{{LIMIT}}', location: 'query' }, z: { primitive: 'number()', options: [] } },\n                { position: { key: 'g', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'enum()', options: ['values(1,2,3)', 'regex(^a$)'] } }\n            ],\n            tests: [ { _description: 'x', id: 'a', LIMIT: '10', g: '1' } ],\n            output: { mimeType: 'application/json', schema: { type: 'object', properties: { n: { type: 'integer' } } } }\n        }\n    }\n}\nexport const handlers = ( { sharedLists } ) => ({\n    get_item: { postRequest: async ( { response } ) => ( { response } ) }\n})\n";
        // The rewrites of `e` that cure a finding of one of `ask`.
        let of = |e: &Edits, ask: &[Code]| -> Vec<String> {
            e.list
                .iter()
                .filter(|(_, _, tag)| {
                    tag.as_ref()
                        .is_some_and(|t| t.codes.iter().any(|c| ask.contains(c)))
                })
                .map(|(r, t, tag)| format!("{r:?} {t:?} {tag:?}"))
                .collect()
        };
        // `root` and `tags` after other members and before `skills` and the tools.
        let v3_root = "export const main = {\n    namespace: 'demo',\n    name: 'Demo',\n    version: '3.0.0',\n    headers: { 'X-A': [ 1, { b: '}' } ] },\n    root: 'https://api.example.com/v1/',\n    tags: [ 'openData', \"cacheTtlDaily\" ],\n    skills: [ { name: 'x' } ],\n    tools: {}\n}\n";
        let settings = flowmcp_spec::RuleSettings::default();
        let mut seen = 0;
        let mut leading = 0;
        for src in [V3, v3_tools, v3_root] {
            // The loader's reading of the text: its blanking and the range of its literal `main`.
            let loaded = flowmcp_loader::load_source(
                std::path::Path::new("s.mjs"),
                "s.mjs",
                src,
                &flowmcp_loader::Limits::default(),
                &settings,
            );
            assert!(loaded.main_literal.is_some(), "{src}");
            let all = v3_to_v4_edits(src, None, None, &mut Vec::new(), Purpose::Migrate).unwrap();
            let mut codes: Vec<Code> = all
                .list
                .iter()
                .filter_map(|(_, _, tag)| tag.as_ref())
                .flat_map(|t| t.codes.iter().copied())
                .collect();
            codes.sort_unstable();
            codes.dedup();
            let mut asks: Vec<Vec<Code>> = codes.iter().map(|c| vec![*c]).collect();
            asks.push(codes.clone());
            asks.push(vec![Code::VAL001]);
            asks.push([ROOT_CODES, TAG_CODES].concat());
            for ask in asks {
                let some =
                    v3_to_v4_edits(src, None, None, &mut Vec::new(), Purpose::Fix(&ask)).unwrap();
                let expected = of(&all, &ask);
                assert_eq!(of(&some, &ask), expected, "{ask:?}");
                // With the loader's literal (fixes of `root` and `tags` alone then read `main` only
                // as far as those members: D185), exactly the same rewrites.
                let read = v3_to_v4_edits(
                    src,
                    loaded.blanked.as_deref(),
                    loaded.main_literal.as_ref().map(|m| m.range.start),
                    &mut Vec::new(),
                    Purpose::Fix(&ask),
                )
                .unwrap();
                assert_eq!(
                    format!("{:?}", read.list),
                    format!("{:?}", some.list),
                    "{ask:?}"
                );
                if !ask
                    .iter()
                    .any(|c| TOOL_CODES.contains(c) || SKILL_CODES.contains(c))
                {
                    leading += read.list.len();
                }
                seen += expected.len();
                // Without a code of the tools' rewrites, nothing of the tools is read.
                if !ask.iter().any(|c| TOOL_CODES.contains(c)) {
                    assert_eq!(some.list.len(), expected.len(), "{ask:?}");
                }
            }
            assert!(codes.len() >= 3, "{codes:?}");
        }
        assert!(seen > 20, "{seen}");
        // Root and tag rewrites were found by the leading reading.
        assert!(leading >= 4, "{leading}");
    }

    #[test]
    fn i31_1_v3_parameter_syntax_becomes_v4_syntax() {
        let src = "export const main = {\n    namespace: 'demo',\n    version: '3.0.0',\n    requiredServerParams: [ 'KEY' ],\n    tools: {\n        get_item: {\n            method: 'GET',\n            path: '/item/:id.json?k={{KEY}}',\n            parameters: [\n                { position: { key: 'id', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } },\n                { position: { key: 'limit', value: '{{LIMIT}}', location: 'query' }, z: { primitive: 'number()', options: [] } },\n                { position: { key: 'g', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'enum()', options: ['values(1,2,3)', 'optional()'] } }\n            ],\n            tests: [ { _description: 'x', id: 'a', LIMIT: '10', g: '1' } ],\n            output: { mimeType: 'application/json', schema: { type: 'object', properties: { n: { type: 'integer' }, integer: { type: 'string' } } } }\n        }\n    }\n}\nexport const handlers = ( { sharedLists } ) => ({\n    get_item: { postRequest: async ( { response } ) => ( { response } ) }\n})\n";
        let m = migrate(src, 4, None).unwrap();
        let t = &m.text;
        assert!(
            t.contains("path: '/item/{{id}}.json?k={{SERVER_PARAM:KEY}}',"),
            "{t}"
        );
        assert!(
            t.contains("value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'number()'"),
            "{t}"
        );
        assert!(
            t.contains("{ _description: 'x', id: 'a', limit: 10, g: '1' }"),
            "{t}"
        );
        assert!(
            t.contains("z: { primitive: 'enum(1,2,3)', options: [ 'optional()' ] }"),
            "{t}"
        );
        assert!(
            t.contains("n: { type: 'number' }, integer: { type: 'string' }"),
            "{t}"
        );
        // The tool name becomes camelCase, in `main` and in the handlers.
        assert!(
            t.contains("        // REVIEW: tool 'get_item' renamed 'getItem'"),
            "{t}"
        );
        assert!(t.contains("        getItem: {\n"), "{t}");
        assert!(t.contains("    getItem: { postRequest:"), "{t}");
        assert!(!t.contains("get_item:"), "{t}");
    }

    #[test]
    fn i31_1_v3_regex_options_single_braces_and_handler_inserts() {
        let src = "export const main = {\n    namespace: 'demo',\n    version: '3.0.0',\n    tools: {\n        getAccount: {\n            method: 'GET',\n            path: '/accounts/{hash}',\n            parameters: [\n                { position: { key: 'hash', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [ 'regex(^0x[a-f0-9]{4}$)', 'min(6)' ] } },\n                { position: { key: 'chain', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } }\n            ]\n        }\n    }\n}\n";
        let with_handlers = format!(
            "{src}export const handlers = ( {{ sharedLists }} ) => ({{\n    getAccount: {{ preRequest: async ( {{ struct, payload }} ) => ( {{ struct, payload }} ) }}\n}})\n"
        );
        let m = migrate(&with_handlers, 4, None).unwrap();
        let t = &m.text;
        // `{hash}` names an insert parameter: it becomes `{{hash}}`.
        assert!(t.contains("path: '/accounts/{{hash}}',"), "{t}");
        // The pattern leaves the options and stays in a REVIEW comment.
        assert!(t.contains("options: [ 'min(6)' ] }"), "{t}");
        assert!(
            t.contains("                // REVIEW: option regex(^0x[a-f0-9]{4}$) removed"),
            "{t}"
        );
        // `chain` has no placeholder and the file has handlers: it becomes a query parameter.
        assert!(
            t.contains("{ position: { key: 'chain', value: '{{USER_PARAM}}', location: 'query' }"),
            "{t}"
        );
        assert!(
            t.contains("            // REVIEW: chain had `location: 'insert'` without"),
            "{t}"
        );
        assert!(
            t.contains("{ position: { key: 'hash', value: '{{USER_PARAM}}', location: 'insert' }"),
            "{t}"
        );
        assert!(
            m.reviews
                .iter()
                .any(|r| r.message.starts_with("option regex("))
        );
        assert!(m.changes.iter().any(|c| c.contains("`regex(…)` option")));
        // Without handlers nothing could read `chain`: it is left for the author (VAL050).
        let plain = migrate(src, 4, None).unwrap();
        assert!(
            plain.text.contains(
                "{ position: { key: 'chain', value: '{{USER_PARAM}}', location: 'insert' }"
            ),
            "{}",
            plain.text
        );
    }

    #[test]
    fn i31_1_v1_imported_data_is_copied_when_the_module_is_plain_data() {
        let modules = |spec: &str| {
            match spec {
            "../_shared/evm-chains.mjs" => Some(
                "// chains\nconst EVM_CHAINS = [\n    { alias: 'ETH' }, // main net\n    { alias: 'BASE' }\n]\n\nexport { EVM_CHAINS }\n"
                    .to_string(),
            ),
            _ => None,
        }
        };
        let m = migrate_reading(V1, 2, None, &modules).unwrap();
        assert!(
            m.text.contains("// Suggested: main.sharedLists: [{ ref: 'evmChains', version: '1.0.0' }]\n// REVIEW: the data below was copied from ../_shared/evm-chains.mjs"),
            "{}",
            m.text
        );
        assert!(
            m.text.contains(
                "const EVM_CHAINS = [\n    { alias: 'ETH' }, // main net\n    { alias: 'BASE' }\n]"
            ),
            "{}",
            m.text
        );
        // A module whose binding is code, not data, is only flagged.
        let code = |_: &str| Some("const EVM_CHAINS = load()\nexport { EVM_CHAINS }\n".to_string());
        let m = migrate_reading(V1, 2, None, &code).unwrap();
        assert!(!m.text.contains("const EVM_CHAINS"), "{}", m.text);
        assert!(
            m.text
                .contains("// TODO: Convert import to shared list reference")
        );
    }

    #[test]
    fn i31_1_a_schema_with_more_than_8_tools_is_split() {
        let tools: String = (0..10)
            .map(|i| format!("        t{i}: {{\n            method: 'GET',\n            path: '/t{i}'\n        }}{}\n", if i < 9 { "," } else { "" }))
            .collect();
        let src = format!(
            "export const main = {{\n    namespace: 'demo',\n    name: 'Demo',\n    version: '3.0.0',\n    tools: {{\n{tools}    }}\n}}\n"
        );
        let m = migrate(&src, 4, None).unwrap();
        assert_eq!(m.parts.len(), 1);
        let first = &m.text;
        let second = &m.parts[0].0;
        for i in 0..5 {
            assert!(first.contains(&format!("        t{i}: {{")), "{first}");
            assert!(!second.contains(&format!("        t{i}: {{")), "{second}");
        }
        for i in 5..10 {
            assert!(second.contains(&format!("        t{i}: {{")), "{second}");
            assert!(!first.contains(&format!("        t{i}: {{")), "{first}");
        }
        assert!(first.contains("name: 'DemoPart1',"), "{first}");
        assert!(second.contains("name: 'DemoPart2',"), "{second}");
        assert!(
            second.starts_with("// REVIEW: part 2 of 2: the 10 tools were split"),
            "{second}"
        );
        assert!(
            m.parts[0]
                .1
                .iter()
                .any(|r| r.message.starts_with("part 2 of 2"))
        );
        // Each part is a schema the loader reads, with 5 tools.
        for text in [first, second] {
            let tools = edit::object_members(text, "main", &["tools"]).unwrap();
            assert_eq!(tools.len(), 5, "{text}");
        }
        // At 8 tools nothing is split.
        let eight: String = (0..8)
            .map(|i| format!("t{i}: {{ method: 'GET', path: '/t{i}' }}, "))
            .collect();
        let src = format!(
            "export const main = {{ namespace: 'demo', version: '3.0.0', tools: {{ {eight} }} }}\n"
        );
        assert!(migrate(&src, 4, None).unwrap().parts.is_empty());
    }

    #[test]
    fn i31_1_prompt_and_skill_placeholders_become_typed() {
        let prompt = "export const prompt = {\n    name: 'p',\n    // [[not/touched]] in a comment is text too\n    content: `Use [[coingecko/simplePrice]] for [[tokenSymbol]]; keep a[[0]]`\n}\n";
        let m = migrate(prompt, 4, None).unwrap();
        assert!(
            m.text.contains("content: `Use {{tool:coingecko/simplePrice}} for {{input:tokenSymbol}}; keep a{{input:0}}`"),
            "{}",
            m.text
        );
        assert!(m.text.starts_with("// REVIEW: "), "{}", m.text);
        let skill = "const content = `Call [[coingecko/simplePrice]] now`\nexport const skill = { name: 's', content }\n";
        let m = migrate(skill, 4, None).unwrap();
        assert!(
            m.text.contains("`Call {{tool:simplePrice}} now`"),
            "{}",
            m.text
        );
        // Code, not text: `[[1, 2]]` in an expression stays.
        let code = "export const prompt = { name: 'p', content: 'x', grid: [[1]] }\n";
        assert_eq!(migrate(code, 4, None), Err(MigrateError::NotASchema));
        // A shared list without placeholders is still no schema.
        assert_eq!(
            migrate("export const list = { entries: [] }\n", 4, None),
            Err(MigrateError::NotASchema)
        );
    }

    #[test]
    fn i31_1_agent_manifest_becomes_agent_mjs() {
        let json = r#"{ "name": "crypto-analyst", "description": "Analyzes crypto markets", "model": "m", "version": "2.0.0", "systemPrompt": "You are…", "tools": [ "etherscan/getContractAbi", "coingecko-com/tool/simplePrice" ], "prompts": [ { "name": "market-summary", "file": "./prompts/market-summary.mjs" } ], "tests": [ "analyze BTC", "check ETH gas" ], "sharedLists": [ "evmChains" ] }"#;
        let m = agent_manifest(json).unwrap();
        let t = &m.text;
        assert!(
            t.contains("export const agent = {\n    name: 'crypto-analyst',"),
            "{t}"
        );
        assert!(t.contains("version: 'flowmcp/4.0.0',"), "{t}");
        assert!(t.contains("'etherscan/tool/getContractAbi': null,"), "{t}");
        assert!(t.contains("'coingecko-com/tool/simplePrice': null"), "{t}");
        assert!(
            t.contains("'market-summary': { file: './prompts/market-summary.mjs' }"),
            "{t}"
        );
        assert!(t.contains("_description: 'analyze BTC',\n            input: 'analyze BTC',\n            expectedTools: []"), "{t}");
        assert!(
            t.contains("sharedLists: [ 'evmChains' ]") || t.contains("sharedLists: [\n"),
            "{t}"
        );
        assert!(
            m.reviews
                .iter()
                .any(|r| r.message.contains("at least 3 tests (found 2)"))
        );
        // The order of the fields is kept.
        assert!(
            t.find("description:") < t.find("model:") && t.find("model:") < t.find("version:"),
            "{t}"
        );
        assert_eq!(
            agent_manifest(r#"{ "name": "x" }"#),
            Err(MigrateError::NotASchema)
        );
        assert_eq!(agent_manifest("[]"), Err(MigrateError::NotASchema));
    }

    #[test]
    fn i31_1_duplicate_tool_keys_do_not_make_edits_overlap() {
        let src = "export const schema = {\n    flowMCP: '1.2.0',\n    routes: {\n        a: { requestMethod: 'GET', route: '/1' },\n        a: { requestMethod: 'GET', route: '/2' }\n    }\n}\n";
        let m = migrate(src, 2, None).unwrap();
        assert_eq!(
            m.text.matches("method: 'GET', path:").count(),
            2,
            "{}",
            m.text
        );
    }

    #[test]
    fn i31_1_v1_0_files_get_a_namespace_enum_primitive_and_a_clean_root() {
        let src = "export const schema = {\n    name: \"News\",\n    version: \"1.0.0\",\n    flowMCP: \"1.0.0\",\n    root: \"https://api.example.com/\",\n    routes: {\n        getNews: {\n            requestMethod: \"GET\",\n            route: \"/\",\n            parameters: [\n                { position: { key: \"kind\", value: \"{{USER_PARAM}}\", location: \"query\" }, z: { primitive: \"string()\", options: [\"enum(news,media)\", \"default(news)\"] } }\n            ]\n        }\n    }\n}\n";
        let m = migrate(src, 4, Some("cryptopanic-com")).unwrap();
        let t = &m.text;
        assert!(t.starts_with("export const main = {\n    // REVIEW: namespace taken from the directory name; confirm it\n    namespace: 'cryptopanic-com',\n    name: \"News\",\n    schemaVersion: \"1.0.0\",\n    version: '4.0.0',\n    root: 'https://api.example.com',\n"), "{t}");
        assert!(
            t.contains("z: { primitive: 'enum(news,media)', options: [ 'default(news)' ] }"),
            "{t}"
        );
        // Without a directory name nothing is invented.
        let m = migrate(src, 2, None).unwrap();
        assert!(!m.text.contains("namespace"), "{}", m.text);
    }
}
