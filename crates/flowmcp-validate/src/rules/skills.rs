//! Rules on skill files (chapter 14): the SKL codes a skill file can be checked for on its own —
//! its fields, its `input` entries, and the `{{input:…}}` placeholders of its content. The codes
//! that need other files (the namespace's tools and resources, the registration, other skills)
//! come with the catalog's skill loading.
//!
//! Each rule reads the JSON of `export const skill` when it is an object and stays quiet about
//! what another rule reports.

use flowmcp_spec::placeholder::{ContentPlaceholder, find_interpolations, is_input_key};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, required_string, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::SKL002],
        check: skl002_name,
    },
    SchemaRule {
        codes: &[Code::SKL004],
        check: skl004_version,
    },
    SchemaRule {
        codes: &[Code::SKL007],
        check: skl007_description,
    },
    SchemaRule {
        codes: &[Code::SKL010],
        check: skl010_content,
    },
    SchemaRule {
        codes: &[Code::SKL011],
        check: skl011_output,
    },
    SchemaRule {
        codes: &[Code::VAL091],
        check: val091_when_to_use,
    },
    SchemaRule {
        codes: &[Code::VAL092],
        check: val092_type,
    },
    SchemaRule {
        codes: &[Code::VAL093],
        check: val093_unknown_keys,
    },
    SchemaRule {
        codes: &[Code::SKL012, Code::SKL013, Code::SKL014, Code::SKL015],
        check: skl012_to_skl015_input_fields,
    },
    SchemaRule {
        codes: &[Code::SKL009],
        check: skl009_enum_values,
    },
    SchemaRule {
        codes: &[Code::SKL008],
        check: skl008_input_placeholders,
    },
    SchemaRule {
        codes: &[Code::PH001, Code::PH002, Code::PH003],
        check: content_placeholders,
    },
];

/// PH001–PH003 on the placeholders of `skill.content` (see [`super::prompts::check_syntax`]).
fn content_placeholders(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if let Some(text) = skill(ctx)
        .and_then(|s| s.field("content"))
        .and_then(Value::as_str)
    {
        super::prompts::check_syntax(text, &skill_path("content"), c);
    }
}

/// The version a skill file declares.
const SKILL_VERSION: &str = "flowmcp/4.0.0";

/// The version the migration accepts with a warning.
const DEPRECATED_SKILL_VERSION: &str = "flowmcp-skill/1.0.0";

/// The longest description, in characters.
const MAX_DESCRIPTION: usize = 1024;

/// The values of `skill.type`.
const SKILL_TYPES: [&str; 3] = ["namespace", "selection", "agent"];

/// The keys of `export const skill`, and those of its `requires`.
const SKILL_KEYS: [&str; 10] = [
    "name",
    "version",
    "description",
    "output",
    "content",
    "whenToUse",
    "type",
    "requires",
    "input",
    "prefill",
];
const REQUIRES_KEYS: [&str; 3] = ["tools", "resources", "external"];

/// The input types a skill may declare.
const INPUT_TYPES: [&str; 4] = ["string", "number", "boolean", "enum"];

/// `skill` when it is an object.
fn skill<'a>(ctx: &SchemaCtx<'a>) -> Option<&'a Map<String, Value>> {
    ctx.export("skill").and_then(Value::as_object)
}

/// `skill.<key>` as a path.
fn skill_path(key: &str) -> JsonPath {
    JsonPath::root("skill").key(key)
}

/// The entries of `skill.input` that are objects, with their paths (a non-array `input` or a
/// non-object entry is SKL012's).
fn inputs(s: &Map<String, Value>) -> Vec<(&Map<String, Value>, JsonPath)> {
    let Some(items) = s.field("input").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some((v.as_object()?, skill_path("input").index(i))))
        .collect()
}

/// SKL002: `skill.name` is missing, not a string, or not `^[a-z][a-z0-9-]{0,63}$`.
///
/// # Why
///
/// The name becomes the skill's ID (`{owner}/skill/{name}`) and its MCP prompt name: lower-case
/// letters, digits and hyphens, starting with a letter, at most 64 characters.
pub(super) fn skl002_name(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    let path = skill_path("name");
    let Some(name) = required_string(s.field("name"), &path, "name", Code::SKL002, c) else {
        return;
    };
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(|ch| ch.is_ascii_lowercase())
        && chars.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
        && name.chars().count() <= 64;
    if !ok {
        c.emit(
            Code::SKL002,
            Some(&path),
            format!("Must match ^[a-z][a-z0-9-]{{0,63}}$ (found {name:?})"),
        );
    }
}

/// SKL004: `skill.version` is missing or not `flowmcp/4.0.0`; `flowmcp-skill/1.0.0` is accepted
/// with a deprecation warning (variant `deprecated-version`).
///
/// # Why
///
/// The version says which skill format the file follows; the older `flowmcp-skill/1.0.0` still
/// reads the same way during the migration.
pub(super) fn skl004_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    let path = skill_path("version");
    let Some(version) = required_string(s.field("version"), &path, "version", Code::SKL004, c)
    else {
        return;
    };
    if version == DEPRECATED_SKILL_VERSION {
        c.emit_variant(
            Code::SKL004,
            Some("deprecated-version"),
            Some(&path),
            format!("{DEPRECATED_SKILL_VERSION:?} is deprecated; write {SKILL_VERSION:?}"),
        );
    } else if version != SKILL_VERSION {
        c.emit(
            Code::SKL004,
            Some(&path),
            format!("Must be {SKILL_VERSION:?} (found {version:?})"),
        );
    }
}

/// SKL007: `skill.description` is missing, not a string, or longer than 1024 characters.
///
/// # Why
///
/// The description is what a client shows in its prompt list; it must be there and stay short.
pub(super) fn skl007_description(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    let path = skill_path("description");
    let Some(d) = required_string(
        s.field("description"),
        &path,
        "description",
        Code::SKL007,
        c,
    ) else {
        return;
    };
    let n = d.chars().count();
    if n > MAX_DESCRIPTION {
        c.emit(
            Code::SKL007,
            Some(&path),
            format!("Must be at most {MAX_DESCRIPTION} characters (found {n})"),
        );
    }
}

/// A required non-empty string field of `skill`, reported as `code`.
fn non_empty(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>, key: &str, code: Code) {
    let Some(s) = skill(ctx) else { return };
    let path = skill_path(key);
    if let Some(text) = required_string(s.field(key), &path, key, code, c)
        && text.trim().is_empty()
    {
        c.emit(code, Some(&path), "Must not be empty");
    }
}

/// SKL010: `skill.content` is missing, not a string, or empty.
///
/// # Why
///
/// The content is the skill: the instructions an agent receives. A skill without it renders to
/// nothing.
pub(super) fn skl010_content(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    non_empty(ctx, c, "content", Code::SKL010);
}

/// SKL011: `skill.output` is missing, not a string, or empty.
///
/// # Why
///
/// The output says what the agent has when it followed the skill; it is how a client decides
/// whether the skill answers its question.
pub(super) fn skl011_output(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    non_empty(ctx, c, "output", Code::SKL011);
}

/// VAL091: `skill.whenToUse` is missing, not a string, or empty.
///
/// # Why
///
/// `whenToUse` is the one sentence that tells an agent when to activate the skill; catalogs rank
/// skills by it. Chapter 14 makes it required but gives it no code. Under `compat` this is a
/// warning: skills written for the JavaScript reference (3.0 skills) have no such field.
pub(super) fn val091_when_to_use(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    non_empty(ctx, c, "whenToUse", Code::VAL091);
}

/// VAL092: `skill.type` is missing, not a string, or not `namespace`, `selection` or `agent`.
///
/// # Why
///
/// The type says which scope the skill is written for (any user of a namespace, one selection,
/// one agent); chapter 14 requires it, with these three bare values, but gives it no code. Under
/// `compat` this is a warning: 3.0 skills have no such field.
pub(super) fn val092_type(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    let path = skill_path("type");
    if let Some(ty) = required_string(s.field("type"), &path, "type", Code::VAL092, c)
        && !SKILL_TYPES.contains(&ty)
    {
        c.emit(
            Code::VAL092,
            Some(&path),
            format!("Must be \"namespace\", \"selection\" or \"agent\" (found {ty:?})"),
        );
    }
}

/// VAL093: A key of `export const skill` other than `name`, `version`, `description`, `output`,
/// `content`, `whenToUse`, `type`, `requires`, `input` and `prefill`, or a key of `skill.requires`
/// other than `tools`, `resources` and `external`.
///
/// # Why
///
/// A misspelt key (`whenTouse`, `require`) does nothing: the skill is served without what the
/// author meant to declare. Schemas have VAL003 for this; skills get the same check. Under
/// `compat` this is a warning, as 3.0 skills may carry keys of their own format.
pub(super) fn val093_unknown_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    for key in s.keys().filter(|k| !SKILL_KEYS.contains(&k.as_str())) {
        c.emit(
            Code::VAL093,
            Some(&skill_path(key)),
            format!("\"{key}\" is not a field of a skill"),
        );
    }
    if let Some(requires) = s.field("requires").and_then(Value::as_object) {
        for key in requires
            .keys()
            .filter(|k| !REQUIRES_KEYS.contains(&k.as_str()))
        {
            c.emit(
                Code::VAL093,
                Some(&skill_path("requires").key(key)),
                format!("\"{key}\" is not a field of skill.requires"),
            );
        }
    }
}

/// SKL012: A `skill.input` entry whose `key` is missing, not a string or not
/// `^[a-z][a-zA-Z0-9]*$`, an entry that is not an object, or an `input` that is not an array.
///
/// # Why
///
/// Inputs become the MCP prompt's arguments: the key is the argument's name and what
/// `{{input:key}}` in the content names, so it must be a plain camelCase name.
///
/// SKL013: A `skill.input` entry whose `type` is missing or not `string`, `number`, `boolean` or
/// `enum`.
///
/// # Why
///
/// The type tells a client what kind of value to give; these four are the ones a prompt argument
/// can carry and a renderer can place into text.
///
/// SKL014: A `skill.input` entry whose `description` is missing, not a string or empty.
///
/// # Why
///
/// The description is what a client shows next to the argument; without it the user cannot tell
/// what to give.
///
/// SKL015: A `skill.input` entry whose `required` is missing or not a boolean.
///
/// # Why
///
/// `required` becomes the prompt argument's flag: a client asks for a required argument before it
/// gets the prompt, and may leave out one that is not.
pub(super) fn skl012_to_skl015_input_fields(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    match s.field("input") {
        None | Some(Value::Array(_)) => {}
        Some(other) => {
            c.emit(
                Code::SKL012,
                Some(&skill_path("input")),
                format!("Must be an array of inputs (found {})", type_name(other)),
            );
            return;
        }
    }
    if let Some(items) = s.field("input").and_then(Value::as_array) {
        for (i, item) in items.iter().enumerate().filter(|(_, v)| !v.is_object()) {
            c.emit(
                Code::SKL012,
                Some(&skill_path("input").index(i)),
                format!("Must be an object (found {})", type_name(item)),
            );
        }
    }
    for (input, path) in inputs(s) {
        let key_path = path.key("key");
        if let Some(key) = required_string(input.field("key"), &key_path, "key", Code::SKL012, c)
            && !is_input_key(key)
        {
            c.emit(
                Code::SKL012,
                Some(&key_path),
                format!("Must match ^[a-z][a-zA-Z0-9]*$ (found {key:?})"),
            );
        }
        let type_path = path.key("type");
        if let Some(t) = required_string(input.field("type"), &type_path, "type", Code::SKL013, c)
            && !INPUT_TYPES.contains(&t)
        {
            c.emit(
                Code::SKL013,
                Some(&type_path),
                format!("Must be string, number, boolean or enum (found {t:?})"),
            );
        }
        let desc_path = path.key("description");
        if let Some(d) = required_string(
            input.field("description"),
            &desc_path,
            "description",
            Code::SKL014,
            c,
        ) && d.trim().is_empty()
        {
            c.emit(Code::SKL014, Some(&desc_path), "Must not be empty");
        }
        let req_path = path.key("required");
        match input.field("required") {
            Some(Value::Bool(_)) => {}
            None => {
                c.emit(
                    Code::SKL015,
                    Some(&req_path),
                    "Missing required field \"required\"",
                );
            }
            Some(other) => {
                c.emit(
                    Code::SKL015,
                    Some(&req_path),
                    format!("Must be a boolean (found {})", shown(other)),
                );
            }
        }
    }
}

/// SKL009: an `enum` input without `values` (or with `values` that is not a non-empty array of
/// strings), or another input with `values`.
///
/// # Why
///
/// The values of an enum input are the choices a client offers; any other type has none, and
/// `values` there would suggest a restriction that nothing applies.
pub(super) fn skl009_enum_values(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    for (input, path) in inputs(s) {
        let Some(t) = input.field("type").and_then(Value::as_str) else {
            continue;
        };
        let values_path = path.key("values");
        match (t, input.field("values")) {
            ("enum", None) => {
                c.emit(
                    Code::SKL009,
                    Some(&values_path),
                    "An enum input needs `values`",
                );
            }
            ("enum", Some(Value::Array(items)))
                if !items.is_empty() && items.iter().all(Value::is_string) => {}
            ("enum", Some(other)) => {
                c.emit(
                    Code::SKL009,
                    Some(&values_path),
                    format!(
                        "Must be a non-empty array of strings (found {})",
                        shown(other)
                    ),
                );
            }
            (_, Some(_)) => {
                c.emit(
                    Code::SKL009,
                    Some(&values_path),
                    format!("Only enum inputs take `values` (this one is {t:?})"),
                );
            }
            (_, None) => {}
        }
    }
}

/// SKL008: an `{{input:key}}` placeholder in `content` whose key no `skill.input` entry has.
///
/// # Why
///
/// An input placeholder is filled from the arguments the skill is rendered with; a key that is
/// not declared can never be given, so the text would keep a hole.
pub(super) fn skl008_input_placeholders(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = skill(ctx) else { return };
    let Some(content) = s.field("content").and_then(Value::as_str) else {
        return;
    };
    let declared: Vec<&str> = inputs(s)
        .iter()
        .filter_map(|(i, _)| i.field("key").and_then(Value::as_str))
        .collect();
    let mut reported: Vec<String> = Vec::new();
    for found in find_interpolations(content) {
        if let Some(ContentPlaceholder::Input(key)) = ContentPlaceholder::of(&found.inner)
            && !declared.contains(&key)
            && !reported.iter().any(|r| r == key)
        {
            reported.push(key.to_string());
            c.emit(
                Code::SKL008,
                Some(&skill_path("content")),
                format!("`{{{{input:{key}}}}}` has no entry in `skill.input`"),
            );
        }
    }
}
