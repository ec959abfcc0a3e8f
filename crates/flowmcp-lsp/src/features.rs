//! What the server answers: findings as protocol diagnostics, hover, completion, definitions and
//! code actions, all from the open document's text and what the validator and the catalog know.

use std::collections::HashMap;
use std::path::Path;

use flowmcp_spec::diagnostic::{Applicability, Fix, apply_fixes};
use flowmcp_spec::lists::SharedList;
use flowmcp_spec::placeholder::{InterpolationKind, find_interpolations};
use flowmcp_spec::registry::fixes::fixes_of;
use flowmcp_spec::{Code, FileReport, Severity};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeDescription,
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse,
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, Location,
    MarkupContent, MarkupKind, NumberOrString, Position, Range, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::Value;

use crate::convert::{LineIndex, is_word};
use crate::state::{Doc, State, file_uri};

/// The report's findings as protocol diagnostics, each with the finding it came from.
pub(crate) fn to_lsp(
    doc: &Doc,
    report: &FileReport,
    root: Option<&Path>,
) -> Vec<(LspDiagnostic, flowmcp_spec::Diagnostic)> {
    let index = LineIndex::new(&doc.text);
    report
        .diagnostics()
        .iter()
        .map(|d| {
            let range = index.finding_range(d.line, d.column);
            let severity = match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info => DiagnosticSeverity::INFORMATION,
            };
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push('\n');
                message.push_str(help);
            }
            let related = root.map(|r| related(&d.message, r)).unwrap_or_default();
            let diagnostic = LspDiagnostic {
                range,
                severity: Some(severity),
                code: Some(NumberOrString::String(d.code.as_str().to_string())),
                code_description: rule_page(d.code).map(|href| CodeDescription { href }),
                source: Some("flowmcp".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: None,
            };
            (diagnostic, d.clone())
        })
        .collect()
}

/// The link to a rule's page.
fn rule_page(code: Code) -> Option<Uri> {
    flowmcp_validate::render::sarif::rule_help_uri(code)
        .parse()
        .ok()
}

/// The other files of the catalog at `root` a finding's message names (a shared list, the schema
/// a selection refers to, …), as related locations at their start.
fn related(message: &str, root: &Path) -> Vec<DiagnosticRelatedInformation> {
    let mut out: Vec<DiagnosticRelatedInformation> = Vec::new();
    for word in message
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '\'' | '"' | '(' | ')' | ',' | ';'))
    {
        let word = word.trim_end_matches(['.', ':']);
        if !(word.ends_with(".mjs") || word.ends_with(".json") || word.ends_with(".md")) {
            continue;
        }
        // A name relative to the catalog, or one under the catalog's display name.
        let rel = word.trim_start_matches("./");
        let candidates = [root.join(rel)];
        for path in candidates {
            if flowmcp_spec::paths::check_relative(rel).is_ok()
                && flowmcp_files::named::is_file(&path)
                && let Some(uri) = file_uri(&path)
                && !out.iter().any(|o| o.location.uri == uri)
            {
                out.push(DiagnosticRelatedInformation {
                    location: Location::new(uri, Range::default()),
                    message: format!("{rel} (named by this finding)"),
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Hover
// ---------------------------------------------------------------------------------------------

pub(crate) fn hover(s: &mut State, p: HoverParams) -> Option<Hover> {
    let at = p.text_document_position_params;
    let doc = s.docs.get(at.text_document.uri.as_str())?;
    let text = doc.text.clone();
    let path = doc.path.clone();
    let index = LineIndex::new(&text);
    let offset = index.offset(at.position);
    let covering: Vec<Code> = doc
        .findings
        .iter()
        .filter(|(d, _)| contains(d.range, at.position))
        .map(|(_, f)| f.code)
        .collect();
    let markdown = |value: String, range: Option<Range>| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range,
    };
    // A placeholder.
    if let Some(found) = find_interpolations(&text)
        .into_iter()
        .find(|i| i.start <= offset && offset < i.end)
    {
        let range = index.range(found.start, found.end);
        let value = placeholder_hover(s, path.as_deref(), &text, &found.inner);
        return Some(markdown(value, Some(range)));
    }
    // A rule code written in the text.
    if let Some((start, end)) = word_at(&text, offset)
        && let Some(code) = text.get(start..end).and_then(Code::parse)
    {
        return Some(markdown(rule_hover(code), Some(index.range(start, end))));
    }
    // A tool ID.
    if let Some((start, end, id)) = string_at(&text, offset)
        && let Some(value) = path.as_deref().and_then(|p| tool_hover(s, p, &id))
    {
        return Some(markdown(value, Some(index.range(start, end))));
    }
    // The rules of the findings under the cursor.
    let mut seen = Vec::new();
    for code in covering {
        if !seen.contains(&code) {
            seen.push(code);
        }
    }
    if seen.is_empty() {
        return None;
    }
    let value = seen
        .into_iter()
        .map(rule_hover)
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    Some(markdown(value, None))
}

fn contains(range: Range, pos: Position) -> bool {
    let after_start = (pos.line, pos.character) >= (range.start.line, range.start.character);
    let before_end = (pos.line, pos.character) <= (range.end.line, range.end.character);
    after_start && before_end
}

/// Each rule's why and the lines of its failing example that the finding points at, made from the
/// rule pages by `cargo xtask docs` (which checks that the file is current).
const RULE_NOTES: &str = include_str!("rule_notes.md");

/// The note of `code` in [`RULE_NOTES`]: its why and failing lines, as Markdown.
fn rule_note(code: Code) -> Option<&'static str> {
    let heading = format!("\n## {}\n\n", code.as_str());
    let start = RULE_NOTES.find(&heading)? + heading.len();
    let rest = &RULE_NOTES[start..];
    let note = rest.find("\n## ").map_or(rest, |end| &rest[..end]).trim();
    (!note.is_empty()).then_some(note)
}

/// A rule explained: its summary, why, a failing example's lines, severities, fixes and page.
fn rule_hover(code: Code) -> String {
    let info = code.info();
    let mut out = format!("**{}** — {}\n\n", info.code, info.summary);
    if let Some(note) = rule_note(code) {
        out.push_str(note);
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "Severity: {} (spec), {} (compat). Status: {}.\n",
        info.spec, info.compat, info.status
    ));
    for v in info.variants {
        out.push_str(&format!(
            "\n- variant `{}`: {} (spec), {} (compat) — {}",
            v.name, v.spec, v.compat, v.summary
        ));
    }
    for f in fixes_of(code) {
        out.push_str(&format!(
            "\n\nFix ({}): {}",
            f.applicability.as_str(),
            f.how
        ));
    }
    if let Some(page) = rule_page(code) {
        out.push_str(&format!(
            "\n\n[The rule's page: the whole failing and passing examples]({})",
            page.as_str()
        ));
    }
    out
}

/// A placeholder explained: its kind, and what it refers to.
fn placeholder_hover(s: &mut State, path: Option<&Path>, text: &str, inner: &str) -> String {
    match InterpolationKind::of(inner) {
        InterpolationKind::UserParam => "**`{{USER_PARAM}}`** — a user parameter: the value comes \
             from the caller's input, under the parameter's `position.key`, checked against its `z` type."
            .into(),
        InterpolationKind::ServerParam(key) => server_param_hover(s, text, key),
        InterpolationKind::ListRef { list, field } => {
            let found = path
                .and_then(|p| s.checker.registry(p))
                .and_then(|r| r.get(list).cloned());
            match found {
                Some(l) => list_hover(&l, Some(field)),
                None => format!(
                    "**`{{{{{list}:{field}}}}}`** — the field `{field}` of the shared list `{list}`, \
                     which the lists this file sees do not have."
                ),
            }
        }
        InterpolationKind::Bare(name) => {
            let list = path
                .and_then(|p| s.checker.registry(p))
                .and_then(|r| r.get(name).cloned());
            match list {
                Some(l) => list_hover(&l, None),
                None if declared_server_params(text).iter().any(|k| k == name) => {
                    server_param_hover(s, text, name)
                }
                None => format!(
                    "**`{{{{{name}}}}}`** — a value inserted by name: a parameter whose \
                     `position.key` is `{name}` (in a path, the parameter's value)."
                ),
            }
        }
        InterpolationKind::Other(t) => format!(
            "**`{{{{{t}}}}}`** — not a placeholder form the specification defines \
             (`{{{{USER_PARAM}}}}`, `{{{{SERVER_PARAM:KEY}}}}`, `{{{{list:field}}}}`)."
        ),
    }
}

fn server_param_hover(s: &State, text: &str, key: &str) -> String {
    let declared = declared_server_params(text).iter().any(|k| k == key);
    let mut out = format!(
        "**`{{{{SERVER_PARAM:{key}}}}}`** — the server parameter `{key}`: a secret or setting the \
         server fills in from its environment, never from the caller.\n\n"
    );
    out.push_str(if declared {
        "Declared in `main.requiredServerParams`."
    } else {
        "**Not declared** in `main.requiredServerParams`."
    });
    if let Some(set) = &s.options.server_param_set {
        out.push_str(if set(key) {
            " Set on this machine."
        } else {
            " **Not set** on this machine: the tools that need it are not served until it is."
        });
    }
    out
}

/// The names in `main.requiredServerParams` as written (read from the text, without running it).
fn declared_server_params(text: &str) -> Vec<String> {
    let Some(at) = text.find("requiredServerParams") else {
        return Vec::new();
    };
    let rest = &text[at..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    if close < open {
        return Vec::new();
    }
    rest[open + 1..close]
        .split(',')
        .map(|s| s.trim().trim_matches(['\'', '"', '`']).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A shared list explained: description, fields (one marked), entries and file.
fn list_hover(list: &SharedList, field: Option<&str>) -> String {
    let mut out = format!("**Shared list `{}`**", list.name);
    if let Some(v) = &list.version {
        out.push_str(&format!(" {v}"));
    }
    out.push_str(&format!(
        " ({} entries, `{}`)\n\n",
        list.entries.len(),
        list.display
    ));
    if let Some(d) = &list.description {
        out.push_str(d);
        out.push_str("\n\n");
    }
    if let Some(f) = field
        && list.field(f).is_none()
    {
        out.push_str(&format!("**The list has no field `{f}`.**\n\n"));
    }
    out.push_str("Fields:\n");
    for f in &list.fields {
        let mark = if Some(f.key.as_str()) == field {
            " ←"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n- `{}`: {}{}{}",
            f.key,
            f.ty.map(|t| t.as_str()).unwrap_or("?"),
            if f.optional { " (optional)" } else { "" },
            mark
        ));
    }
    out
}

/// A tool explained: its description and parameters, from the catalog the file lies in.
fn tool_hover(s: &mut State, path: &Path, id: &str) -> Option<String> {
    if !id.contains('/') {
        return None;
    }
    let place = s.checker.place(path)?;
    let state = s.checker.catalog(&place.root);
    let catalog = state.catalog.as_ref()?;
    let entry = catalog.find(id)?;
    let d = &entry.descriptor;
    let mut out = format!(
        "**{}** (`{}`)\n\n{}\n",
        d.entry_id, d.wire_name, d.description
    );
    let required: Vec<&str> = d
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = d.input_schema.get("properties").and_then(Value::as_object)
        && !props.is_empty()
    {
        out.push_str("\nParameters:\n");
        for (name, schema) in props {
            out.push_str(&format!(
                "\n- `{name}`{}: {}{}",
                schema
                    .get("type")
                    .and_then(Value::as_str)
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default(),
                schema
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                if required.contains(&name.as_str()) {
                    ""
                } else {
                    " — optional"
                }
            ));
        }
    } else {
        out.push_str("\nNo parameters.\n");
    }
    if !d.required_server_params.is_empty() {
        out.push_str(&format!(
            "\n\nServer parameters: {}",
            d.required_server_params.join(", ")
        ));
    }
    Some(out)
}

/// The name or code around `offset`.
fn word_at(text: &str, offset: usize) -> Option<(usize, usize)> {
    let offset = offset.min(text.len());
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map(|(i, _)| i)
        .unwrap_or(offset);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map(|(i, _)| offset + i)
        .unwrap_or(text.len());
    (start < end).then_some((start, end))
}

/// The string literal on the line around `offset`: its content's range and text.
fn string_at(text: &str, offset: usize) -> Option<(usize, usize, String)> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[offset..]
        .find('\n')
        .map(|i| offset + i)
        .unwrap_or(text.len());
    let line = &text[line_start..line_end];
    let mut open: Option<(usize, char)> = None;
    for (i, c) in line.char_indices() {
        match open {
            None if matches!(c, '\'' | '"' | '`') => open = Some((i, c)),
            Some((o, q)) if c == q => {
                let (s, e) = (line_start + o + 1, line_start + i);
                if s <= offset && offset <= e {
                    return Some((s, e, text[s..e].to_string()));
                }
                open = None;
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Completion
// ---------------------------------------------------------------------------------------------

/// The primitives of the `z` grammar, with what each is.
const PRIMITIVES: &[(&str, &str)] = &[
    ("string()", "text"),
    ("number()", "a number"),
    ("boolean()", "true or false"),
    (
        "enum(a,b)",
        "one of the listed values (or `enum({{list:field}})`)",
    ),
    ("array()", "a list of values"),
    ("object()", "an object"),
];

/// The options of the `z` grammar (`values` and `regex` only under compat).
const Z_OPTIONS: &[(&str, &str)] = &[
    ("min(1)", "smallest value, length or size"),
    ("max(100)", "largest value, length or size"),
    ("length(2)", "exact length"),
    ("optional()", "the caller may leave it out"),
    ("default(value)", "the value when left out"),
];

pub(crate) fn completion(s: &mut State, p: CompletionParams) -> Option<CompletionResponse> {
    let at = p.text_document_position;
    let doc = s.docs.get(at.text_document.uri.as_str())?;
    let index = LineIndex::new(&doc.text);
    let offset = index.offset(at.position);
    let line_start = index.line_start(at.position.line as usize);
    let before = doc.text.get(line_start..offset)?.to_string();
    let text = doc.text.clone();
    let path = doc.path.clone();
    let item = |label: &str, kind: CompletionItemKind, detail: &str| CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: (!detail.is_empty()).then(|| detail.to_string()),
        ..CompletionItem::default()
    };
    // Inside `{{`: kinds, lists, a list's fields.
    if let Some(open) = before.rfind("{{")
        && !before[open..].contains("}}")
    {
        let inner = &before[open + 2..];
        let registry = path.as_deref().and_then(|p| s.checker.registry(p));
        if let Some((list, _)) = inner.split_once(':') {
            if list == "SERVER_PARAM" {
                let items = declared_server_params(&text)
                    .iter()
                    .map(|k| item(k, CompletionItemKind::CONSTANT, "declared server parameter"))
                    .collect();
                return Some(CompletionResponse::Array(items));
            }
            let fields = registry
                .as_ref()
                .and_then(|r| r.get(list))
                .map(|l| {
                    l.fields
                        .iter()
                        .map(|f| {
                            item(
                                &f.key,
                                CompletionItemKind::FIELD,
                                f.ty.map(|t| t.as_str()).unwrap_or(""),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            return Some(CompletionResponse::Array(fields));
        }
        let mut items = vec![
            item(
                "USER_PARAM",
                CompletionItemKind::KEYWORD,
                "the caller's value",
            ),
            CompletionItem {
                insert_text: Some("SERVER_PARAM:".into()),
                ..item(
                    "SERVER_PARAM:",
                    CompletionItemKind::KEYWORD,
                    "a server parameter",
                )
            },
        ];
        if let Some(r) = &registry {
            for l in r.lists() {
                items.push(CompletionItem {
                    insert_text: Some(format!("{}:", l.name)),
                    ..item(
                        &l.name,
                        CompletionItemKind::MODULE,
                        l.description.as_deref().unwrap_or("shared list"),
                    )
                });
            }
        }
        return Some(CompletionResponse::Array(items));
    }
    let in_string = before.chars().filter(|c| *c == '\'' || *c == '"').count() % 2 == 1;
    // The nearer of `primitive` and `options` before the cursor (both may be on one line).
    let (primitive, options) = (before.rfind("primitive"), before.rfind("options"));
    if in_string && primitive.is_some() && primitive > options {
        let items = PRIMITIVES
            .iter()
            .map(|(l, d)| item(l, CompletionItemKind::FUNCTION, d))
            .collect();
        return Some(CompletionResponse::Array(items));
    }
    if in_string && options.is_some() {
        let items = Z_OPTIONS
            .iter()
            .map(|(l, d)| item(l, CompletionItemKind::FUNCTION, d))
            .collect();
        return Some(CompletionResponse::Array(items));
    }
    // A `ref:` of `sharedLists`: list names.
    if in_string && before.contains("ref") {
        let registry = path.as_deref().and_then(|p| s.checker.registry(p))?;
        let items = registry
            .lists()
            .iter()
            .map(|l| {
                item(
                    &l.name,
                    CompletionItemKind::MODULE,
                    l.description.as_deref().unwrap_or(""),
                )
            })
            .collect();
        return Some(CompletionResponse::Array(items));
    }
    // Tool IDs in a string of a selection or an agent.
    if in_string
        && (text.contains("export const selection") || text.contains("export const agent"))
        && let Some(place) = path.as_deref().and_then(|p| s.checker.place(p))
    {
        let state = s.checker.catalog(&place.root);
        let catalog = state.catalog.as_ref()?;
        let items = catalog
            .list()
            .iter()
            .map(|t| {
                let d = &t.descriptor;
                item(
                    &d.entry_id.to_string(),
                    CompletionItemKind::REFERENCE,
                    &d.description,
                )
            })
            .collect();
        return Some(CompletionResponse::Array(items));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Go to definition
// ---------------------------------------------------------------------------------------------

pub(crate) fn definition(s: &mut State, p: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let at = p.text_document_position_params;
    let doc = s.docs.get(at.text_document.uri.as_str())?;
    let path = doc.path.clone()?;
    let index = LineIndex::new(&doc.text);
    let offset = index.offset(at.position);
    let text = doc.text.clone();
    // The list a placeholder or a `ref` names.
    let list_name = find_interpolations(&text)
        .into_iter()
        .find(|i| i.start <= offset && offset < i.end)
        .and_then(|i| match InterpolationKind::of(&i.inner) {
            InterpolationKind::ListRef { list, .. } => Some(list.to_string()),
            InterpolationKind::Bare(name) => Some(name.to_string()),
            _ => None,
        })
        .or_else(|| string_at(&text, offset).map(|(_, _, s)| s));
    if let Some(name) = &list_name
        && let Some(list) = s.checker.registry(&path).and_then(|r| r.get(name).cloned())
        && let Some(file) = &list.file
    {
        let uri = file_uri(file)?;
        return Some(GotoDefinitionResponse::Scalar(Location::new(
            uri,
            Range::default(),
        )));
    }
    // The tool an ID names.
    let (_, _, id) = string_at(&text, offset)?;
    let place = s.checker.place(&path)?;
    let state = s.checker.catalog(&place.root);
    let catalog = state.catalog.as_ref()?;
    let entry = catalog.find(&id)?;
    let schema = catalog.toolset().schema_of(entry);
    let source = flowmcp_files::named::read_capped_text(
        &schema.path,
        s.checker.validation.limits.max_file_bytes,
    )
    .ok()?;
    let target = LineIndex::new(&source);
    let tool = &entry.descriptor.tool;
    let at = key_offset(&source, tool).unwrap_or(0);
    let uri = file_uri(&schema.path)?;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        uri,
        target.range(
            at,
            at + if key_offset(&source, tool).is_some() {
                tool.len()
            } else {
                0
            },
        ),
    )))
}

/// Where `key` is written as an object key (`key:` or `'key':`) in `source`.
fn key_offset(source: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(rel) = source[from..].find(key) {
        let at = from + rel;
        let before = source[..at].chars().next_back();
        let after = source[at + key.len()..]
            .trim_start_matches(['\'', '"'])
            .trim_start();
        if !before.is_some_and(is_word) && after.starts_with(':') {
            return Some(at);
        }
        from = at + key.len();
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Code actions
// ---------------------------------------------------------------------------------------------

pub(crate) fn code_actions(s: &mut State, p: CodeActionParams) -> Vec<CodeActionOrCommand> {
    s.ensure_fixes(p.text_document.uri.as_str());
    let Some(doc) = s.docs.get(p.text_document.uri.as_str()) else {
        return Vec::new();
    };
    let wanted = |kind: &CodeActionKind| match &p.context.only {
        None => true,
        Some(only) => only.iter().any(|o| {
            kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str()))
        }),
    };
    let index = LineIndex::new(&doc.text);
    let mut out = Vec::new();
    let edit_of = |fix: &Fix| -> WorkspaceEdit {
        let edits = fix
            .edits
            .iter()
            .map(|e| TextEdit::new(index.range(e.start, e.end), e.text.clone()))
            .collect();
        WorkspaceEdit {
            changes: Some(HashMap::from([(doc.uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }
    };
    if wanted(&CodeActionKind::QUICKFIX) {
        for (d, finding) in &doc.findings {
            let Some(fix) = &finding.fix else { continue };
            if !overlaps(d.range, p.range) {
                continue;
            }
            let safe = fix.applicability == Applicability::Safe;
            let how = fixes_of(finding.code)
                .find(|f| f.applicability == fix.applicability)
                .map(|f| f.how)
                .unwrap_or("apply the fix");
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: if safe {
                    format!("Fix {}: {how}", finding.code)
                } else {
                    format!("Fix {} (unsafe, review the result): {how}", finding.code)
                },
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(edit_of(fix)),
                is_preferred: Some(safe),
                ..CodeAction::default()
            }));
        }
    }
    let whole = |new: String| -> WorkspaceEdit {
        let end = index.position(doc.text.len());
        WorkspaceEdit {
            changes: Some(HashMap::from([(
                doc.uri.clone(),
                vec![TextEdit::new(Range::new(Position::new(0, 0), end), new)],
            )])),
            ..WorkspaceEdit::default()
        }
    };
    if wanted(&CodeActionKind::SOURCE_FIX_ALL) {
        let safe: Vec<&Fix> = doc
            .findings
            .iter()
            .filter_map(|(_, f)| f.fix.as_ref())
            .filter(|f| f.applicability == Applicability::Safe)
            .collect();
        if !safe.is_empty() {
            let (new, _) = apply_fixes(&doc.text, safe);
            if new != doc.text {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: "Fix all safe problems".into(),
                    kind: Some(CodeActionKind::SOURCE_FIX_ALL),
                    edit: Some(whole(new)),
                    ..CodeAction::default()
                }));
            }
        }
    }
    if wanted(&CodeActionKind::REFACTOR_REWRITE)
        && let Ok(from) = flowmcp_catalog::migrate::detect(&doc.text)
        && from < 4
    {
        let dir = doc
            .path
            .as_deref()
            .and_then(|p| p.parent())
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        if let Ok(m) = flowmcp_catalog::migrate::migrate(&doc.text, 4, dir.as_deref())
            && m.parts.is_empty()
            && m.text != doc.text
        {
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Migrate this file from {}.x to version {}", m.from, m.to),
                kind: Some(CodeActionKind::REFACTOR_REWRITE),
                edit: Some(whole(m.text)),
                ..CodeAction::default()
            }));
        }
    }
    out
}

fn overlaps(a: Range, b: Range) -> bool {
    let key = |p: Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cross-file finding (CAT004 names the file that defined an ID first) gets that file as
    /// related information; names that are not files of the catalog, or leave it, get none.
    #[test]
    fn i42_files_a_finding_names_become_related_information() {
        let root = std::env::temp_dir().join(format!("flowmcp-lsp-related-{}", std::process::id()));
        let file = root.join("providers/a/first.mjs");
        flowmcp_files::named::create_dir_all(file.parent().unwrap()).unwrap();
        flowmcp_files::named::write_atomic(&file, b"export const main = {}\n").unwrap();
        let message = "Schema-File-ID \"a/first\" of \"providers/b/first.mjs\" is already defined by \
                       \"providers/a/first.mjs\"; IDs must be unique in the catalog";
        let found = related(message, &root);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].location.uri, file_uri(&file).unwrap());
        assert!(related("see ../outside.mjs and README", &root).is_empty());
        let _ = flowmcp_files::named::remove_dir_all(&root);
    }
}
