//! Rules on prompt definitions (chapter 12) and on the placeholders of prompt and skill content
//! (chapters 02 and 18) that a file can be checked for on its own: the fields of each
//! `main.prompts` entry, of a prompt file (`export const prompt`), and the syntax of every
//! `{{type:…}}` in `content`. Whether references resolve, and what a `contentFile` holds, need
//! the catalog ([`crate::prompts`]).
//!
//! Each rule reads the JSON it checks when it has the right shape and stays quiet about what
//! another rule reports.

use flowmcp_spec::placeholder::{ContentPlaceholder, ContentType, find_interpolations};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, main_path, required_string, type_name};

/// The rules that run on a schema's `main.prompts`, in order.
pub(super) static RULES: &[SchemaRule] = &[SchemaRule {
    codes: &[
        Code::PRM001,
        Code::PRM002,
        Code::PRM003,
        Code::PRM004,
        Code::PRM005,
        Code::PRM010,
        Code::PRM011,
        Code::PRM013,
    ],
    check: provider_prompts,
}];

/// The rules that run on a prompt file (`export const prompt`), in order.
pub(super) static FILE_RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[
            Code::PRM001,
            Code::PRM002,
            Code::PRM003,
            Code::PRM004,
            Code::PRM005,
            Code::PRM010,
            Code::PRM011,
            Code::PRM013,
        ],
        check: prompt_file,
    },
    SchemaRule {
        codes: &[Code::PH001, Code::PH002, Code::PH003],
        check: prompt_file_placeholders,
    },
];

/// The rules that run on a content file (`export const content`), in order.
pub(super) static CONTENT_RULES: &[SchemaRule] = &[SchemaRule {
    codes: &[Code::PH001, Code::PH002, Code::PH003],
    check: content_file_placeholders,
}];

/// The version every prompt declares.
pub(crate) const PROMPT_VERSION: &str = "flowmcp-prompt/1.0.0";

/// Where a prompt definition is written, which decides the rules its fields follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form<'a> {
    /// An entry of `main.prompts` in the schema of this namespace: a provider prompt, content
    /// in a `contentFile`.
    Provider(&'a str),
    /// A standalone file exporting `prompt`: an agent prompt (content inline). Under `compat`, a
    /// 3.0 provider prompt file (`provider` or `namespace`, content inline) too.
    File,
}

/// Whether `name` is a prompt name: `^[a-z][a-z0-9-]*$`.
pub(crate) fn is_prompt_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The owner a prompt definition names: `(namespace, agent)`, each when it is a string (a valid
/// definition sets one). Under `compat` a 3.0 prompt file's `provider` stands for `namespace`.
pub(crate) fn prompt_owner(def: &Map<String, Value>, compat: bool) -> (Option<&str>, Option<&str>) {
    let namespace = def.field("namespace").and_then(Value::as_str).or_else(|| {
        compat
            .then(|| def.field("provider").and_then(Value::as_str))
            .flatten()
    });
    (namespace, def.field("agent").and_then(Value::as_str))
}

/// Checks the fields of one prompt definition at `path`.
///
/// PRM001: The prompt's `name` is missing, not a string, or not `^[a-z][a-z0-9-]*$`.
///
/// # Why
///
/// The name is the last segment of the prompt's ID (`{owner}/prompt/{name}`), which clients see
/// as the MCP prompt name and placeholders and `references[]` use: lower-case letters, digits
/// and hyphens keep it safe in URLs, file names and IDs.
///
/// PRM002: The prompt's `version` is missing or not `flowmcp-prompt/1.0.0`.
///
/// # Why
///
/// The version says which prompt format the definition follows; it is the only one there is.
///
/// PRM003: A prompt sets both `namespace` and `agent`, or neither; or a provider prompt's
/// `namespace` is not the namespace of the schema that defines it.
///
/// # Why
///
/// The owner decides everything else: a provider prompt is model-neutral and names its
/// namespace's tools by bare name; an agent prompt is tested with one model and names tools by
/// full ID. A prompt must be one or the other, and a provider prompt belongs to its schema's
/// namespace.
///
/// PRM004: An agent prompt has no `testedWith`, or a provider prompt has one.
///
/// # Why
///
/// Agent prompts are tuned for one model and say which; provider prompts work with any model, so
/// naming one would mislead.
///
/// PRM005: `testedWith` does not contain `/` (an OpenRouter model ID is `organization/model`).
///
/// # Why
///
/// A model named without its organization (`gpt-4o` instead of `openai/gpt-4o`) cannot be looked
/// up, so the record of what the prompt was tested with is lost.
///
/// PRM010: An agent prompt has no non-empty string `content`, or a provider prompt has a
/// `content` (its text lives in its `contentFile`).
///
/// # Why
///
/// A prompt without text has nothing to deliver. Provider prompt definitions stay small and
/// hashable in `main`; their long text lives in a file of its own.
///
/// PRM011: A provider prompt has no `contentFile`, or it is not a relative path ending in
/// `.mjs`; or an agent prompt has one. (That the file exists and exports `content` is checked
/// with the catalog: PRM011 and PRM012.)
///
/// # Why
///
/// The content file is loaded like every other `.mjs` file, through the static scan and the
/// sandbox, and only from inside the catalog.
///
/// PRM013: `references` is missing or not an array of strings.
///
/// # Why
///
/// Whether a prompt composes others is stated, never implied: `[]` when it composes none.
pub(crate) fn check_definition(
    def: &Map<String, Value>,
    path: &JsonPath,
    form: Form<'_>,
    compat: bool,
    c: &mut Collector<'_>,
) {
    // PRM001
    let name_path = path.key("name");
    if let Some(name) = required_string(def.field("name"), &name_path, "name", Code::PRM001, c)
        && !is_prompt_name(name)
    {
        c.emit(
            Code::PRM001,
            Some(&name_path),
            format!("Must match ^[a-z][a-z0-9-]*$ (found {name:?})"),
        );
    }
    // PRM002
    let version_path = path.key("version");
    if let Some(v) = required_string(
        def.field("version"),
        &version_path,
        "version",
        Code::PRM002,
        c,
    ) && v != PROMPT_VERSION
    {
        c.emit(
            Code::PRM002,
            Some(&version_path),
            format!("Must be {PROMPT_VERSION:?} (found {v:?})"),
        );
    }
    // PRM003
    let (namespace, agent) = prompt_owner(def, compat);
    let has_ns = def.contains_key("namespace") || (compat && def.contains_key("provider"));
    let has_agent = def.contains_key("agent");
    let agent_prompt = match (has_ns, has_agent) {
        (true, true) => {
            c.emit(
                Code::PRM003,
                Some(path),
                "Sets both `namespace` and `agent`; a prompt belongs to a provider or to an agent",
            );
            return;
        }
        (false, false) => {
            let hint = if def.contains_key("provider") {
                " (`provider` is the 3.0 name of `namespace`; the `compat` profile reads it)"
            } else {
                ""
            };
            c.emit(
                Code::PRM003,
                Some(path),
                format!("Sets neither `namespace` nor `agent`{hint}"),
            );
            return;
        }
        (_, true) => {
            if agent.is_none() {
                c.emit(Code::PRM003, Some(&path.key("agent")), "Must be a string");
            }
            true
        }
        (true, _) => {
            let key = if def.contains_key("namespace") {
                "namespace"
            } else {
                "provider"
            };
            match (namespace, form) {
                (None, _) => {
                    c.emit(Code::PRM003, Some(&path.key(key)), "Must be a string");
                }
                (Some(ns), Form::Provider(schema_ns)) if ns != schema_ns => {
                    c.emit(
                        Code::PRM003,
                        Some(&path.key(key)),
                        format!(
                            "Is {ns:?}, but the schema's namespace is {schema_ns:?}; a provider prompt belongs to its schema's namespace"
                        ),
                    );
                }
                _ => {}
            }
            false
        }
    };
    // A 3.0 provider prompt file read under compat keeps its inline content and model.
    let file_provider = !agent_prompt && form == Form::File;
    let lenient = file_provider && compat;
    // PRM004, PRM005
    let tested_path = path.key("testedWith");
    match def.field("testedWith") {
        None if agent_prompt => {
            c.emit(
                Code::PRM004,
                Some(path),
                "An agent prompt needs `testedWith` (the model it was tested with)",
            );
        }
        Some(_) if !agent_prompt && !lenient => {
            c.emit(
                Code::PRM004,
                Some(&tested_path),
                "A provider prompt is model-neutral and must not have `testedWith`",
            );
        }
        Some(Value::String(m)) if !m.contains('/') => {
            c.emit(
                Code::PRM005,
                Some(&tested_path),
                format!("Must be an OpenRouter model ID `organization/model` (found {m:?})"),
            );
        }
        Some(other) if !other.is_string() => {
            c.emit(
                Code::PRM005,
                Some(&tested_path),
                format!("Must be a string (found {})", type_name(other)),
            );
        }
        _ => {}
    }
    // PRM010, PRM011
    let inline = agent_prompt || file_provider;
    let content_path = path.key("content");
    match def.field("content") {
        Some(_) if !inline => {
            c.emit(
                Code::PRM010,
                Some(&content_path),
                "A provider prompt's text lives in its `contentFile`; remove `content`",
            );
        }
        None if inline => {
            c.emit(
                Code::PRM010,
                Some(path),
                "Missing required field \"content\" (the prompt's text)",
            );
        }
        Some(Value::String(s)) if inline && s.trim().is_empty() => {
            c.emit(Code::PRM010, Some(&content_path), "Must not be empty");
        }
        Some(other) if inline && !other.is_string() => {
            c.emit(
                Code::PRM010,
                Some(&content_path),
                format!("Must be a string (found {})", type_name(other)),
            );
        }
        _ => {}
    }
    let file_path = path.key("contentFile");
    match def.field("contentFile") {
        Some(_) if inline => {
            c.emit(
                Code::PRM011,
                Some(&file_path),
                "A prompt file holds its text in `content`; remove `contentFile`",
            );
        }
        None if !inline => {
            c.emit(
                Code::PRM011,
                Some(path),
                "Missing required field \"contentFile\" (a relative path to a .mjs file exporting `content`)",
            );
        }
        Some(Value::String(f)) if !inline => {
            if let Some(why) = content_file_problem(f) {
                c.emit(Code::PRM011, Some(&file_path), why);
            }
        }
        Some(other) if !inline => {
            c.emit(
                Code::PRM011,
                Some(&file_path),
                format!("Must be a string (found {})", type_name(other)),
            );
        }
        _ => {}
    }
    // PRM013
    let refs_path = path.key("references");
    match def.field("references") {
        None => {
            c.emit(
                Code::PRM013,
                Some(path),
                "Missing required field \"references\" (write [] when the prompt composes none)",
            );
        }
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    c.emit(
                        Code::PRM013,
                        Some(&refs_path.index(i)),
                        format!("Must be a string (found {})", type_name(item)),
                    );
                }
            }
        }
        Some(other) => {
            c.emit(
                Code::PRM013,
                Some(&refs_path),
                format!("Must be an array (found {})", type_name(other)),
            );
        }
    }
}

/// Why `file` cannot be a `contentFile` (a relative `.mjs` path that stays inside the catalog),
/// or `None`.
pub(crate) fn content_file_problem(file: &str) -> Option<String> {
    if !file.ends_with(".mjs") {
        return Some(format!("Must end with .mjs (found {file:?})"));
    }
    if file.starts_with('/') || file.contains('\\') || file.get(1..3) == Some(":\\") {
        return Some(format!(
            "Must be a relative path with `/` separators (found {file:?})"
        ));
    }
    None
}

/// PRM001–PRM005, PRM010, PRM011, PRM013 on every entry of `main.prompts`.
fn provider_prompts(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    let Some(prompts) = main.field("prompts").and_then(Value::as_object) else {
        return;
    };
    let Some(ns) = main.field("namespace").and_then(Value::as_str) else {
        return;
    };
    let compat = ctx.is_compat();
    for (key, def) in prompts {
        let path = main_path("prompts").key(key);
        match def.as_object() {
            Some(def) => check_definition(def, &path, Form::Provider(ns), compat, c),
            None => {
                c.emit(
                    Code::PRM001,
                    Some(&path),
                    format!("Must be an object (found {})", type_name(def)),
                );
            }
        }
    }
}

/// The fields of `export const prompt`.
fn prompt_file(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(def) = ctx.export("prompt") else {
        return;
    };
    let path = JsonPath::root("prompt");
    match def.as_object() {
        Some(def) => check_definition(def, &path, Form::File, ctx.is_compat(), c),
        None => {
            c.emit(
                Code::PRM001,
                Some(&path),
                format!("Must be an object (found {})", type_name(def)),
            );
        }
    }
}

/// The placeholders of a prompt file's `content`.
fn prompt_file_placeholders(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if let Some(text) = ctx
        .export("prompt")
        .and_then(|p| p.field("content"))
        .and_then(Value::as_str)
    {
        check_syntax(text, &JsonPath::root("prompt").key("content"), c);
    }
}

/// The placeholders of a content file's `content`.
fn content_file_placeholders(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if let Some(text) = ctx.export("content").and_then(Value::as_str) {
        check_syntax(text, &JsonPath::root("content"), c);
    }
}

/// Reports every content placeholder of `text` that does not read (its reason in the message).
///
/// PH001: A placeholder of a known type names nothing: `{{tool:}}`, `{{skill:}}`, ….
///
/// # Why
///
/// An empty reference cannot resolve; it is almost always an unfinished edit.
///
/// PH002: A placeholder reference does not resolve. Found on its own, a reference of a known
/// type that does not read (`{{tool:a/b/c/d}}`, `{{tool:x:size}}`, a three-segment ID of
/// another type); with the catalog, a tool, resource, prompt, prefill or shared list that is not
/// there (a bare name in the same namespace or scope, a name with `/` anywhere in the catalog).
/// In a prompt's content the catalog's finding is PRM009, and a skill that is not registered is
/// SKL022.
///
/// # Why
///
/// A reference that does not resolve renders as `[ERROR: …]` text in the delivered prompt: the
/// agent gets no tool block, no parameters and no call line where the author meant it to.
///
/// PH003: An `{{input:key}}` key does not match `^[a-z][a-zA-Z0-9]*$`. (A well-formed key that
/// the skill's `input` does not declare is SKL008.)
///
/// # Why
///
/// Input keys become MCP prompt argument names; the skill input rule (SKL012) fixes their shape,
/// and a key no input can have can never be filled.
pub(crate) fn check_syntax(text: &str, path: &JsonPath, c: &mut Collector<'_>) {
    for found in find_interpolations(text) {
        let Some(ContentPlaceholder::Malformed { ty, reason }) =
            ContentPlaceholder::of(&found.inner)
        else {
            continue;
        };
        let shown = found.text();
        let empty = found
            .inner
            .split_once(':')
            .is_some_and(|(_, rest)| rest.is_empty() || rest.starts_with(':'));
        let code = if empty {
            Code::PH001
        } else if ty == ContentType::Input {
            Code::PH003
        } else {
            Code::PH002
        };
        let message = if empty {
            format!("`{shown}` names nothing")
        } else {
            format!("`{shown}` does not read: {reason}")
        };
        c.emit(code, Some(path), message);
    }
}
