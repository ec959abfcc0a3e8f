//! Rules on parameters: VAL040–VAL050, VAL082–VAL085, PH004.
//!
//! The placeholder rules (VAL047 outside `z`, VAL050 from the path side, VAL083, VAL085, PH004)
//! share one reading of every `{{...}}` found in the five places a placeholder may stand:
//! `main.root`, each tool's `path`, `main.headers`, each tool's `headers` and each parameter's
//! `position.value`. Each placeholder gets exactly one [`Verdict`], so a defect is reported under
//! one code only.

use flowmcp_loader::HandlersExport;
use flowmcp_spec::placeholder::{
    InterpolationKind, colon_key_matches, colon_names, find_interpolations,
};
use flowmcp_spec::zod::{EnumItem, Options, ZodError, enum_has_padded_values};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::Value;

use super::Field as _;
use super::context::{Place, Site, has_open_pair, insert_params};
use super::{
    ParamRef, ParamSource, SchemaCtx, SchemaRule, each_parameter, each_tool,
    required_server_params, shown, type_name,
};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL040],
        check: val040_position_and_z,
    },
    SchemaRule {
        codes: &[Code::VAL041],
        check: val041_position_key,
    },
    SchemaRule {
        codes: &[Code::VAL042],
        check: val042_position_value,
    },
    SchemaRule {
        codes: &[Code::VAL043],
        check: val043_position_location,
    },
    SchemaRule {
        codes: &[Code::VAL044],
        check: val044_primitive,
    },
    SchemaRule {
        codes: &[Code::VAL045],
        check: val045_options,
    },
    SchemaRule {
        codes: &[Code::VAL046],
        check: val046_empty_enum,
    },
    SchemaRule {
        codes: &[Code::VAL047],
        check: val047_interpolation_outside_enum,
    },
    SchemaRule {
        codes: &[Code::VAL048],
        check: val048_list_declared,
    },
    SchemaRule {
        codes: &[Code::VAL050],
        check: val050_insert_placeholders,
    },
    SchemaRule {
        codes: &[Code::VAL082],
        check: val082_body_on_get_delete,
    },
    SchemaRule {
        codes: &[Code::VAL083],
        check: val083_server_param_declared,
    },
    SchemaRule {
        codes: &[Code::VAL084],
        check: val084_fixed_value_fits_z,
    },
    SchemaRule {
        codes: &[Code::VAL085],
        check: val085_unknown_placeholder,
    },
    SchemaRule {
        codes: &[Code::PH004],
        check: ph004_prompt_placeholders_in_main,
    },
];

/// The three values `position.location` may take.
pub(super) const LOCATIONS: &[&str] = &["insert", "query", "body"];

/// The types of prompt placeholders (`{{type:ref}}` and `{{type:ref:field}}`).
pub(super) const PROMPT_PLACEHOLDER_TYPES: &[&str] =
    &["tool", "resource", "prompt", "skill", "input", "prefill"];

// ---------------------------------------------------------------------------------------
// VAL040–VAL043: the shape of a parameter
// ---------------------------------------------------------------------------------------

/// VAL040: A parameter is not an object, or lacks a `position` object or a `z` object.
///
/// # Why
///
/// `position` says where the value goes in the request and `z` how it is validated; the
/// specification rejects a parameter without either at load time.
pub(super) fn val040_position_and_z(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (_, tool, tool_path) in each_tool(ctx) {
        let Some(Value::Array(params)) = tool.field("parameters") else {
            continue;
        };
        for (i, p) in params.iter().enumerate() {
            let path = tool_path.key("parameters").index(i);
            let Some(param) = p.as_object() else {
                c.emit(
                    Code::VAL040,
                    Some(&path),
                    format!(
                        "Must be an object with position and z (found {})",
                        type_name(p)
                    ),
                );
                continue;
            };
            for block in ["position", "z"] {
                match param.field(block) {
                    None => {
                        c.emit(
                            Code::VAL040,
                            Some(&path.key(block)),
                            format!("Missing required field \"{block}\""),
                        );
                    }
                    Some(Value::Object(_)) => {}
                    Some(other) => {
                        c.emit(
                            Code::VAL040,
                            Some(&path.key(block)),
                            format!("Must be an object (found {})", type_name(other)),
                        );
                    }
                }
            }
        }
    }
}

/// Reports `position.<field>` when it is missing or not a string; returns the string otherwise.
fn check_position_string<'a>(
    p: &ParamRef<'a>,
    c: &mut Collector<'_>,
    code: Code,
    field: &str,
) -> Option<&'a str> {
    let position = p.position()?;
    // Built only for a finding: most parameters have none.
    let path = || p.path.key("position").key(field);
    match position.field(field) {
        None => {
            c.emit(
                code,
                Some(&path()),
                format!("Missing required field \"{field}\""),
            );
            None
        }
        Some(Value::String(s)) => Some(s.as_str()),
        Some(other) => {
            c.emit(
                code,
                Some(&path()),
                format!("Must be a string (found {})", type_name(other)),
            );
            None
        }
    }
}

/// VAL041: `position.key` is missing, empty or not a string.
///
/// # Why
///
/// The key names the query field, the body field or the path placeholder, and it is the input name
/// AI clients see.
pub(super) fn val041_position_key(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        if check_position_string(p, c, Code::VAL041, "key") == Some("") {
            c.emit(
                Code::VAL041,
                Some(&p.path.key("position").key("key")),
                "Must not be empty (found \"\")",
            );
        }
    }
}

/// VAL042: `position.value` is missing or not a string.
///
/// # Why
///
/// The value says where the parameter's value comes from: `{{USER_PARAM}}` (the caller), a
/// server-parameter placeholder (the environment) or a fixed string.
pub(super) fn val042_position_value(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        check_position_string(p, c, Code::VAL042, "value");
    }
}

/// VAL043: `position.location` is not one of `insert`, `query` and `body`.
///
/// # Why
///
/// The location decides whether the value is substituted into the path, appended as a query
/// parameter or sent in the JSON body; anything else cannot be placed.
pub(super) fn val043_position_location(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        let Some(position) = p.position() else {
            continue;
        };
        let path = || p.path.key("position").key("location");
        match position.field("location") {
            None => {
                c.emit(
                    Code::VAL043,
                    Some(&path()),
                    "Missing required field \"location\"",
                );
            }
            Some(Value::String(l)) if LOCATIONS.contains(&l.as_str()) => {}
            Some(other) => {
                c.emit(
                    Code::VAL043,
                    Some(&path()),
                    format!(
                        "Must be one of insert, query, body (found {})",
                        shown(other)
                    ),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// VAL044–VAL048: the z block
// ---------------------------------------------------------------------------------------

/// `z.primitive` when it is a string.
fn primitive_text<'a>(p: &ParamRef<'a>) -> Option<&'a str> {
    p.z_primitive()?.as_str()
}

/// `z.options` when it is an array: each entry with its index, strings only.
fn option_texts<'a>(p: &ParamRef<'a>) -> Option<Vec<(usize, &'a str)>> {
    let options = p.z_options()?.as_array()?;
    Some(
        options
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.as_str().map(|s| (i, s)))
            .collect(),
    )
}

/// Whether the parameter's options include a `values(...)` option that supplies enum values
/// (compat only; under spec `values(...)` is itself a VAL045 error).
fn has_values_option(ctx: &SchemaCtx<'_>, p: &ParamRef<'_>) -> bool {
    if !ctx.is_compat() {
        return false;
    }
    p.options_parsed()
        .is_some_and(|(parsed, _)| !parsed.values_items().is_empty())
}

/// True for the text between `{{` and `}}` of a prompt placeholder: `tool:…`, `resource:…`,
/// `prompt:…`, `skill:…`, `input:…` or `prefill:…` (PH004's business wherever it appears in `main`).
fn is_prompt_placeholder(inner: &str) -> bool {
    inner
        .trim()
        .split_once(':')
        .is_some_and(|(t, _)| PROMPT_PLACEHOLDER_TYPES.contains(&t.trim()))
}

/// True when a primitive error is caused by a prompt placeholder (reported by PH004 instead).
fn caused_by_prompt_placeholder(text: &str) -> bool {
    find_interpolations(text)
        .iter()
        .any(|i| is_prompt_placeholder(&i.inner))
}

/// VAL044: `z.primitive` is missing, not a string, or not one of `string()`, `number()`,
/// `boolean()`, `enum(…)`, `array()` and `object()` (names are case-sensitive). Under `spec`, enum
/// values padded with spaces (`enum(GET, POST)`) are invalid too. An empty `enum()` is VAL046 and a
/// list interpolation outside `enum()` is VAL047.
///
/// # Why
///
/// The primitive is the parameter's type and becomes the tool's input schema. The JavaScript
/// reference silently falls back to `string()` on an unknown name, which hides typos such as
/// `Number()`.
pub(super) fn val044_primitive(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        if p.z().is_none() {
            continue;
        }
        // The path and the quoted text are made only for a finding: most parameters have none.
        let path = || p.path.key("z").key("primitive");
        let text = match p.z_primitive() {
            None => {
                c.emit(
                    Code::VAL044,
                    Some(&path()),
                    "Missing required field \"primitive\"",
                );
                continue;
            }
            Some(Value::String(t)) => t,
            Some(other) => {
                c.emit(
                    Code::VAL044,
                    Some(&path()),
                    format!("Must be a string (found {})", type_name(other)),
                );
                continue;
            }
        };
        let found = || shown(&Value::String(text.clone()));
        let Some(parsed) = p.primitive_parsed() else {
            continue;
        };
        match parsed {
            Ok(_) => {
                if !ctx.is_compat() && enum_has_padded_values(text) {
                    c.emit_help(
                        Code::VAL044,
                        Some(&path()),
                        format!(
                            "Must not have spaces around enum values (found {})",
                            found()
                        ),
                        Some("write enum(a,b) without spaces around the commas".to_string()),
                    );
                }
            }
            Err(ZodError::EmptyEnum | ZodError::InterpolationOutsideEnum { .. }) => {}
            Err(_) if caused_by_prompt_placeholder(text) => {}
            Err(e) => {
                c.emit(Code::VAL044, Some(&path()), primitive_message(e, &found()));
            }
        }
    }
}

/// The VAL044 message for a primitive that does not parse; `found` is the quoted text.
fn primitive_message(e: &ZodError, found: &str) -> String {
    let quote = |t: &str| shown(&Value::String(t.to_string()));
    match e {
        ZodError::UnknownPrimitive { .. } => format!(
            "Must be string(), number(), boolean(), enum(...), array() or object() (found {found})"
        ),
        ZodError::MissingParentheses { name } => {
            format!("Must be written with parentheses, {name}() (found {found})")
        }
        ZodError::UnexpectedArgument { name, .. } => {
            format!("Must be {name}() without an argument (found {found})")
        }
        ZodError::EmptyEnumValue { position } => {
            format!("Must not have an empty enum value (found {found}: value #{position} is empty)")
        }
        ZodError::InvalidListInterpolation { item } => format!(
            "Must write list values as {{{{listName:fieldName}}}} (found {})",
            quote(item)
        ),
        other => format!("Must be a valid primitive (found {found}: {other})"),
    }
}

/// The VAL045 message for an option error.
fn option_message(e: &ZodError) -> String {
    let quote = |t: &str| shown(&Value::String(t.to_string()));
    match e {
        ZodError::EmptyOption { .. } => "Must not be empty (found \"\")".to_string(),
        ZodError::UnknownOption {
            option, expected, ..
        } => format!("Must be one of {expected} (found {})", quote(option)),
        ZodError::CompatOnlyOption { option, name, .. } => format!(
            "Must be one of min(n), max(n), length(n), optional(), default(value) (found {}; only the compat profile accepts {name}(...))",
            quote(option)
        ),
        ZodError::MalformedOption { option, reason, .. } => {
            format!(
                "Must be a well-formed option (found {}: {reason})",
                quote(option)
            )
        }
        ZodError::InvalidRegex { option, reason, .. } => {
            format!(
                "Must be a valid pattern (found {}: {reason})",
                quote(option)
            )
        }
        ZodError::InvalidDefault {
            option,
            primitive,
            reason,
            ..
        } => format!(
            "Must be a default that fits {primitive} (found {}: {reason})",
            quote(option)
        ),
        other => format!("Must be a well-formed option ({other})"),
    }
}

/// VAL045: `z.options` is not an array of strings, or contains an option that is unknown or
/// malformed. The known options are `min(n)`, `max(n)`, `length(n)`, `optional()` and
/// `default(value)`; under `compat`, `values(…)` (extra enum values) and `regex(…)` are accepted as
/// well. A `default(…)` must be readable as a value of the primitive's type.
///
/// # Why
///
/// Options are constraints enforced before the request is sent. An option the runtime does not
/// understand would be ignored, so a constraint the author relies on would silently not apply. The
/// specification leaves out regular expressions on purpose; real catalogs use them, which is why
/// `compat` accepts them.
pub(super) fn val045_options(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        if p.z().is_none() {
            continue;
        }
        let path = || p.path.key("z").key("options");
        let items = match p.z_options() {
            None => {
                c.emit(
                    Code::VAL045,
                    Some(&path()),
                    "Missing required field \"options\" (use [] for none)",
                );
                continue;
            }
            Some(Value::Array(items)) => items,
            Some(other) => {
                c.emit(
                    Code::VAL045,
                    Some(&path()),
                    format!("Must be an array of strings (found {})", type_name(other)),
                );
                continue;
            }
        };
        let mut all_strings = true;
        for (i, item) in items.iter().enumerate() {
            if !item.is_string() {
                all_strings = false;
                c.emit(
                    Code::VAL045,
                    Some(&path().index(i)),
                    format!("Must be a string (found {})", type_name(item)),
                );
            }
        }
        // Option errors count the string options only: the `local`-th string and its index
        // among all the options (looked up for a finding only).
        let string_at = |local: usize| {
            items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.as_str().map(|t| (i, t)))
                .nth(local)
        };
        let errors = p.options_parsed().map_or(&[][..], |(_, e)| e.as_slice());
        let had_errors = !errors.is_empty();
        for e in errors {
            let Some(local) = option_error_index(e) else {
                continue;
            };
            let string = string_at(local);
            let index = string.map_or(local, |(i, _)| i);
            // Several options in one string (`'optional(), default(1000)'`): the reference reads
            // the first by its prefix; a warning under compat (variant "joined").
            let joined = string.is_some_and(|(_, t)| t.contains("),"));
            c.emit_variant(
                Code::VAL045,
                joined.then_some("joined"),
                Some(&path().index(index)),
                option_message(e),
            );
        }
        // A default(...) that cannot be read as the primitive's type; only judged when the
        // primitive and every option are otherwise fine (other codes report those).
        if had_errors || !all_strings {
            continue;
        }
        if let Some(Err(e @ ZodError::InvalidDefault { .. })) = p.ztype()
            && let Some(local) = option_error_index(e)
        {
            let index = string_at(local).map_or(local, |(i, _)| i);
            c.emit(Code::VAL045, Some(&path().index(index)), option_message(e));
        }
    }
}

/// The index into the string options of an option error.
fn option_error_index(e: &ZodError) -> Option<usize> {
    match e {
        ZodError::EmptyOption { index }
        | ZodError::UnknownOption { index, .. }
        | ZodError::CompatOnlyOption { index, .. }
        | ZodError::MalformedOption { index, .. }
        | ZodError::InvalidRegex { index, .. }
        | ZodError::InvalidDefault { index, .. } => Some(*index),
        _ => None,
    }
}

/// VAL046: An `enum(…)` primitive lists no values (`enum()`). Under `compat` a `values(…)` option
/// may supply them.
///
/// # Why
///
/// An enum without values accepts no input, so the tool could never be called.
pub(super) fn val046_empty_enum(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        let Some(text) = primitive_text(p) else {
            continue;
        };
        if p.primitive_parsed() != Some(&Err(ZodError::EmptyEnum)) || has_values_option(ctx, p) {
            continue;
        }
        let help = if ctx.is_compat() {
            "list the values, enum(a,b), or add a values(a,b) option"
        } else {
            "list the values: enum(a,b)"
        };
        c.emit_help(
            Code::VAL046,
            Some(&p.path.key("z").key("primitive")),
            format!(
                "Must list at least one enum value (found {})",
                shown(&Value::String(text.to_string()))
            ),
            Some(help.to_string()),
        );
    }
}

/// VAL047: A shared-list interpolation `{{list:field}}` appears anywhere but inside `enum(…)`
/// (under `compat` also inside a `values(…)` option): in another primitive such as
/// `string({{evmChains:alias}})`, in another option, or in `root`, a `path`, headers or
/// `position.value`.
///
/// # Why
///
/// Interpolation expands to the comma-separated field values of the list's entries, which only
/// makes sense as the values of an enum.
pub(super) fn val047_interpolation_outside_enum(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        if let Some(Err(ZodError::InterpolationOutsideEnum {
            name,
            interpolation,
        })) = p.primitive_parsed()
            && !caused_by_prompt_placeholder(interpolation)
        {
            c.emit(
                Code::VAL047,
                Some(&p.path.key("z").key("primitive")),
                format!(
                    "List interpolation must be inside enum() (found {interpolation} in {name}())"
                ),
            );
        }
        for (i, option) in option_texts(p).unwrap_or_default() {
            let name = option.trim().split('(').next().unwrap_or("").trim();
            if ctx.is_compat() && name == "values" {
                continue;
            }
            for found in find_interpolations(option) {
                if is_list_interpolation(&found.inner) {
                    c.emit(
                        Code::VAL047,
                        Some(&p.path.key("z").key("options").index(i)),
                        format!(
                            "List interpolation must be inside enum() (found {} in option {})",
                            found.text(),
                            shown(&Value::String(option.to_string()))
                        ),
                    );
                }
            }
        }
    }
    for site in ctx.placeholder_sites() {
        for found in &site.found {
            if site.verdict(ctx, &found.inner) == Verdict::List {
                c.emit(
                    Code::VAL047,
                    Some(&site.path()),
                    format!(
                        "List interpolation must be inside enum() (found {} in {})",
                        found.text(),
                        site.place.describe()
                    ),
                );
            }
        }
    }
}

/// True for `{{list:field}}` (two names), excluding prompt placeholders.
fn is_list_interpolation(inner: &str) -> bool {
    matches!(
        InterpolationKind::of(inner),
        InterpolationKind::ListRef { .. }
    ) && !is_prompt_placeholder(inner)
}

/// The list names declared in `main.sharedLists`: each entry's `ref` (or its `name`, as the
/// parameters chapter writes it, when `ref` is absent).
fn declared_lists<'a>(ctx: &SchemaCtx<'a>) -> Vec<&'a str> {
    let Some(Value::Array(entries)) = ctx.main_field("sharedLists") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|e| {
            e.field("ref")
                .and_then(Value::as_str)
                .or_else(|| e.field("name").and_then(Value::as_str))
        })
        .collect()
}

/// VAL048: An interpolation `{{list:field}}` names a list that no entry of `main.sharedLists`
/// references.
///
/// # Why
///
/// Lists are resolved, version-checked and filtered from the `main.sharedLists` declarations at
/// load time; a list that is not declared cannot be resolved.
pub(super) fn val048_list_declared(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let declared = declared_lists(ctx);
    for p in each_parameter(ctx) {
        let mut refs: Vec<(JsonPath, String, String)> = Vec::new();
        if let Some(Ok(primitive)) = p.primitive_parsed() {
            for (list, field) in primitive.list_refs() {
                refs.push((
                    p.path.key("z").key("primitive"),
                    list.to_string(),
                    field.to_string(),
                ));
            }
        }
        if ctx.is_compat() {
            for (i, option) in option_texts(p).unwrap_or_default() {
                // A list item of `values(...)` is written `{{list:field}}`: an option without a
                // `{{` names no list, and most options are not parsed at all.
                if !has_open_pair(option) {
                    continue;
                }
                let Ok(parsed) = Options::parse(&[option], true) else {
                    continue;
                };
                for item in parsed.values_items() {
                    if let EnumItem::List { list, field } = item {
                        refs.push((
                            p.path.key("z").key("options").index(i),
                            list.clone(),
                            field.clone(),
                        ));
                    }
                }
            }
        }
        for (path, list, field) in refs {
            if PROMPT_PLACEHOLDER_TYPES.contains(&list.as_str())
                || declared.contains(&list.as_str())
            {
                continue;
            }
            c.emit_help(
                Code::VAL048,
                Some(&path),
                format!(
                    "Shared list \"{list}\" must be declared in main.sharedLists (found {{{{{list}:{field}}}}})"
                ),
                Some(format!(
                    "add {{ ref: '{list}', version: '…' }} to main.sharedLists"
                )),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// VAL050, VAL082: locations
// ---------------------------------------------------------------------------------------

/// Whether `path` has `:key` as a whole name (compat `:key` placeholders, replaced anywhere in the
/// path; see [`colon_key_matches`]).
fn has_colon_placeholder(path: &str, key: &str) -> bool {
    !colon_key_matches(path, &[key]).is_empty()
}

/// The `/:name` segments of a path whose name matches no insert key (compat): `(name)` for each.
/// Colons elsewhere (`claims:search`, `/Things(:id)` without an `id` insert parameter) are literal
/// text, and so is a `/:` not followed by a letter or `_`.
fn unmatched_colon_segments<'a>(path: &'a str, keys: &[&str]) -> Vec<&'a str> {
    let matched: Vec<usize> = colon_key_matches(path, keys)
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    colon_names(path)
        .into_iter()
        .filter(|(at, _)| *at > 0 && path.as_bytes()[at - 1] == b'/' && !matched.contains(at))
        .map(|(_, name)| name)
        .filter(|name| name.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_'))
        .collect()
}

/// The handler hooks of a tool: `Some(hooks)` when known (empty when there is no handler), `None`
/// when the `handlers` factory could not be inspected (it threw or needs real shared lists).
fn tool_hooks<'a>(ctx: &SchemaCtx<'a>, tool: &str) -> Option<Vec<&'a str>> {
    match ctx.handlers() {
        HandlersExport::Function { shape: Ok(entries) } => Some(
            entries
                .iter()
                .filter(|(name, _)| name == tool)
                .flat_map(|(_, hooks)| hooks.iter().map(String::as_str))
                .collect(),
        ),
        HandlersExport::Function { shape: Err(_) } => None,
        HandlersExport::Absent | HandlersExport::NotFunction(_) => Some(Vec::new()),
    }
}

/// VAL050: Insert parameters and path placeholders must match both ways: every parameter with
/// `location: 'insert'` needs a `{{key}}` in the tool's `path`, and every `{{key}}` in the path
/// needs an insert parameter. Under `compat`, `:key` segments (`/feed/:city`) count as `{{key}}` (a
/// `:name` segment that names no insert parameter is reported too), a bare `{{KEY}}` naming a
/// `requiredServerParams` entry is that server parameter, and an insert parameter without a
/// placeholder is accepted when the tool's `preRequest` or `executeRequest` handler may consume it
/// or the handlers cannot be inspected.
///
/// # Why
///
/// An insert parameter without a placeholder is never put into the URL, and a placeholder without a
/// parameter is sent literally. Either way the request goes to the wrong URL.
pub(super) fn val050_insert_placeholders(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let compat = ctx.is_compat();
    for (name, tool, tool_path) in each_tool(ctx) {
        let Some(Value::String(path)) = tool.field("path") else {
            continue;
        };
        let inserts = insert_params(ctx, name);
        let keys: Vec<&str> = inserts.iter().map(|(k, _)| *k).collect();
        // Insert parameter → placeholder.
        let handled_by_hooks = compat
            && tool_hooks(ctx, name).is_none_or(|hooks| {
                hooks
                    .iter()
                    .any(|h| *h == "preRequest" || *h == "executeRequest")
            });
        for (key, p) in &inserts {
            let braces = find_interpolations(path).iter().any(|i| i.inner == *key);
            if braces || (compat && has_colon_placeholder(path, key)) || handled_by_hooks {
                continue;
            }
            let expected = if compat {
                format!("{{{{{key}}}}} or :{key}")
            } else {
                format!("{{{{{key}}}}}")
            };
            let help = (!compat && has_colon_placeholder(path, key)).then(|| {
                format!(
                    "`:{key}` is the JavaScript reference's form; the compat profile accepts it"
                )
            });
            // Variant "unused-insert": the reference drops such a value silently; a warning under
            // compat, where the value is not sent either.
            let help = help.or_else(|| compat.then(|| "the value is not sent".to_string()));
            if let Some(d) = c.emit_variant(
                Code::VAL050,
                Some("unused-insert"),
                Some(&p.path.key("position").key("key")),
                format!(
                    "Insert parameter \"{key}\" must have a {expected} placeholder in the path (found {})",
                    shown(&Value::String(path.clone()))
                ),
            ) {
                d.help = help;
            }
        }
        // Placeholder → insert parameter.
        let site = Site {
            place: Place::Path,
            base: tool_path.clone(),
            keys: [Some("path"), None],
            text: path,
            insert_keys: keys.clone(),
            found: find_interpolations(path),
        };
        for found in &site.found {
            if let Verdict::PathWithoutInsert(x) = site.verdict(ctx, &found.inner) {
                let help = (!compat && required_server_params(ctx).contains(&x.as_str()))
                    .then(|| format!("a server param is written {{{{SERVER_PARAM:{x}}}}}"));
                c.emit_help(
                    Code::VAL050,
                    Some(&site.path()),
                    format!(
                        "Placeholder {} must name an insert parameter (found none with key \"{x}\")",
                        found.text()
                    ),
                    help,
                );
            }
        }
        if compat {
            for seg in unmatched_colon_segments(path, &keys) {
                c.emit(
                    Code::VAL050,
                    Some(&site.path()),
                    format!(
                        "Path segment :{seg} must name an insert parameter (found none with key \"{seg}\")"
                    ),
                );
            }
        }
    }
}

/// VAL082: A parameter with `location: 'body'` on a `GET` or `DELETE` tool. Under `compat` this is
/// a warning and the parameter is not sent, as in the JavaScript reference.
///
/// # Why
///
/// Only `POST` and `PUT` requests carry a body (chapter 02); the specification calls a body
/// parameter on another method a load-time error, so the value is not silently dropped.
pub(super) fn val082_body_on_get_delete(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for (name, tool, _) in each_tool(ctx) {
        let Some(method @ ("GET" | "DELETE")) = tool.field("method").and_then(Value::as_str) else {
            continue;
        };
        for p in each_parameter(ctx).iter().filter(|p| p.tool == *name) {
            if p.position_str("location") != Some("body") {
                continue;
            }
            let key = p.position_str("key").unwrap_or("?");
            let help = ctx
                .is_compat()
                .then(|| "the parameter is not sent on GET and DELETE".to_string());
            c.emit_help(
                Code::VAL082,
                Some(&p.path.key("position").key("location")),
                format!("Body parameter \"{key}\" must be on a POST or PUT tool (found {method})"),
                help,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Placeholders in root, path, headers and position.value
// ---------------------------------------------------------------------------------------

/// What one `{{...}}` in a [`Site`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// A placeholder that belongs here.
    Known,
    /// A prompt placeholder (PH004).
    Prompt,
    /// A shared-list interpolation outside `enum()` (VAL047).
    List,
    /// `{{SERVER_PARAM:KEY}}` with KEY not in `requiredServerParams` (VAL083).
    UndeclaredServer(String),
    /// `{{x}}` in a path with no insert parameter `x` (VAL050).
    PathWithoutInsert(String),
    /// Anything else (VAL085).
    Unknown,
}

impl Site<'_> {
    fn verdict(&self, ctx: &SchemaCtx<'_>, inner: &str) -> Verdict {
        if is_prompt_placeholder(inner) {
            return Verdict::Prompt;
        }
        let declared = |k: &str| required_server_params(ctx).contains(&k);
        match InterpolationKind::of(inner) {
            InterpolationKind::ServerParam(k) if declared(k) => Verdict::Known,
            InterpolationKind::ServerParam(k) => Verdict::UndeclaredServer(k.to_string()),
            InterpolationKind::ListRef { .. } => Verdict::List,
            InterpolationKind::UserParam if self.place == Place::Value => Verdict::Known,
            InterpolationKind::UserParam | InterpolationKind::Bare(_) => {
                let insert_key = self.place == Place::Path && self.insert_keys.contains(&inner);
                if insert_key || (ctx.is_compat() && declared(inner)) {
                    Verdict::Known
                } else if self.place == Place::Path {
                    Verdict::PathWithoutInsert(inner.to_string())
                } else {
                    Verdict::Unknown
                }
            }
            InterpolationKind::Other(_) => Verdict::Unknown,
        }
    }
}

/// VAL083: A server-parameter placeholder `{{SERVER_PARAM:KEY}}` in `root`, a `path`, headers or
/// `position.value` whose `KEY` is not listed in `main.requiredServerParams`. Under `compat` a bare
/// `{{KEY}}` is a server parameter only when it is declared, so it is never reported here.
///
/// # Why
///
/// The runtime reads only declared variables from the environment and hides tools whose variables
/// are missing. An undeclared key would be sent literally or as an empty value.
pub(super) fn val083_server_param_declared(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for site in ctx.placeholder_sites() {
        for found in &site.found {
            if let Verdict::UndeclaredServer(key) = site.verdict(ctx, &found.inner) {
                c.emit_help(
                    Code::VAL083,
                    Some(&site.path()),
                    format!(
                        "Server param \"{key}\" must be declared in main.requiredServerParams (found {})",
                        found.text()
                    ),
                    Some(format!("add '{key}' to main.requiredServerParams")),
                );
            }
        }
    }
}

/// VAL085: A `{{…}}` placeholder in `root`, `path`, headers or `position.value` that is none of
/// `{{USER_PARAM}}` (as a `position.value`), a server parameter, an insert key (in a `path`;
/// elsewhere VAL050 applies) or a shared-list interpolation (inside an enum; elsewhere VAL047
/// applies). Under `compat` this is a warning, a bare `{{KEY}}` naming a `requiredServerParams`
/// entry is that server parameter, and an undeclared bare `{{X}}` used as the whole
/// `position.value` makes the parameter a user parameter named by `position.key`.
///
/// # Why
///
/// An unknown placeholder reaches the API literally, braces and all. It is almost always a typo or
/// a forgotten declaration.
pub(super) fn val085_unknown_placeholder(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let compat = ctx.is_compat();
    let declared = required_server_params(ctx);
    for site in ctx.placeholder_sites() {
        for found in &site.found {
            if site.verdict(ctx, &found.inner) != Verdict::Unknown {
                continue;
            }
            let text = found.text();
            let expected = match site.place {
                Place::Value => "{{USER_PARAM}}, {{SERVER_PARAM:KEY}} or fixed text",
                _ => "{{SERVER_PARAM:KEY}} with KEY in main.requiredServerParams",
            };
            let whole_value =
                site.place == Place::Value && found.start == 0 && found.end == site.text.len();
            let help = if declared.contains(&found.inner.as_str()) && !compat {
                Some(format!(
                    "a server param is written {{{{SERVER_PARAM:{}}}}}",
                    found.inner
                ))
            } else if found.inner == "USER_PARAM" {
                Some("{{USER_PARAM}} is only meaningful as a whole position.value".to_string())
            } else if compat && whole_value {
                Some(
                    "compat reads it as a user parameter named by position.key; write {{USER_PARAM}}"
                        .to_string(),
                )
            } else {
                None
            };
            c.emit_help(
                Code::VAL085,
                Some(&site.path()),
                format!(
                    "Placeholder in {} must be {expected} (found {text})",
                    site.place.describe()
                ),
                help,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// VAL084: fixed values
// ---------------------------------------------------------------------------------------

/// VAL084: A parameter with a fixed `position.value` (neither `{{USER_PARAM}}` nor a server
/// parameter) whose value fails the parameter's own `z`: the text is read as a value of the
/// primitive's type and then validated, so `'abc'` with `number()` fails, as does a value that is
/// not in its `enum(…)`. Values that contain placeholders are templates and are not checked, nor
/// are parameters whose `z` is itself invalid (VAL044–VAL047). A warning under `compat`.
///
/// # Why
///
/// Chapter 02 requires fixed values to pass their validation at load time. A failing value means
/// every call sends something the schema itself declares invalid.
pub(super) fn val084_fixed_value_fits_z(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for p in each_parameter(ctx) {
        let Some(ParamSource::Fixed(value)) = p.source() else {
            continue;
        };
        if !find_interpolations(value).is_empty() {
            continue;
        }
        // Only a `z` with an options array (all strings) is judged here.
        if !matches!(p.z_options(), Some(Value::Array(_))) {
            continue;
        }
        let Some(Ok(zt)) = p.ztype() else {
            continue;
        };
        let result = zt
            .coerce_str(value)
            .and_then(|typed| zt.validate(&typed).map(|()| typed));
        if let Err(e) = result {
            c.emit(
                Code::VAL084,
                Some(&p.path.key("position").key("value")),
                format!(
                    "Fixed value {} must satisfy its z {}: {e}",
                    shown(&Value::String(value.to_string())),
                    zt.primitive,
                ),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// PH004: prompt placeholders in main
// ---------------------------------------------------------------------------------------

/// PH004: A prompt placeholder (`{{tool:…}}`, `{{resource:…}}`, `{{prompt:…}}`, `{{skill:…}}`,
/// `{{input:…}}` or `{{prefill:…}}`) in any string inside the schema's `main` block, for example in
/// a description or a parameter value.
///
/// # Why
///
/// Inside `main`, `{{…}}` means request construction (`{{USER_PARAM}}`, server parameters, list
/// interpolation). Prompt placeholders are resolved only when prompt or skill content is rendered,
/// so in `main` they would reach the API verbatim.
pub(super) fn ph004_prompt_placeholders_in_main(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    // Most schemas have none: find that out without building a path for every value.
    let found = ctx.paired_strings().iter().any(|(_, s)| {
        find_interpolations(s)
            .iter()
            .any(|f| is_prompt_placeholder(&f.inner))
    });
    // Only then is `main` read as a whole (the paired strings are a read of their own).
    if !found {
        return;
    }
    let Some(main) = ctx.export("main") else {
        return;
    };
    // An explicit stack: `main` may be nested arbitrarily deep.
    let mut stack: Vec<(JsonPath, &Value)> = vec![(JsonPath::root("main"), main)];
    let mut found_strings: Vec<(JsonPath, &str)> = Vec::new();
    while let Some((path, value)) = stack.pop() {
        match value {
            Value::String(s) if has_open_pair(s) => found_strings.push((path, s)),
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().rev() {
                    stack.push((path.index(i), v));
                }
            }
            Value::Object(map) => {
                let entries: Vec<_> = map.iter().collect();
                for (k, v) in entries.into_iter().rev() {
                    stack.push((path.key(k), v));
                }
            }
            _ => {}
        }
    }
    for (path, text) in found_strings {
        for found in find_interpolations(text) {
            if is_prompt_placeholder(&found.inner) {
                c.emit_help(
                    Code::PH004,
                    Some(&path),
                    format!(
                        "Must not contain prompt placeholders in main (found {})",
                        found.text()
                    ),
                    Some(
                        "prompt placeholders belong in prompt and skill content files".to_string(),
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_pairs() {
        for yes in ["{{x}}", "a {{", "{ {{", "{x}{{y}}", "é{{"] {
            assert!(has_open_pair(yes), "{yes}");
        }
        for no in ["", "{", "{x}", "{ {", "}}", "a{b{c", "é{"] {
            assert!(!has_open_pair(no), "{no}");
        }
    }

    #[test]
    fn prompt_placeholders() {
        assert!(is_prompt_placeholder("tool:getX"));
        assert!(is_prompt_placeholder("input:address"));
        assert!(is_prompt_placeholder("prefill:ns/tool/x:field"));
        assert!(is_prompt_placeholder("tool:"));
        assert!(!is_prompt_placeholder("evmChains:alias"));
        assert!(!is_prompt_placeholder("SERVER_PARAM:KEY"));
        assert!(!is_prompt_placeholder("USER_PARAM"));
        assert!(!is_prompt_placeholder("tools"));
    }

    #[test]
    fn colon_placeholders() {
        assert!(has_colon_placeholder("/feed/:city/", "city"));
        assert!(has_colon_placeholder("/feed/:city", "city"));
        assert!(has_colon_placeholder("/Things(:id)", "id"));
        assert!(!has_colon_placeholder("/feed/:cityName", "city"));
        assert!(!has_colon_placeholder("/v1/claims:search", "city"));
        assert!(has_colon_placeholder("/v1/claims:search", "search"));
        assert!(!has_colon_placeholder("/x", ""));
    }

    #[test]
    fn colon_segments() {
        assert_eq!(
            unmatched_colon_segments("/a/:id/b/:other", &["id"]),
            vec!["other"]
        );
        assert!(unmatched_colon_segments("/v1alpha1/claims:search", &[]).is_empty());
        assert!(unmatched_colon_segments("/Things(:id)", &[]).is_empty());
        // `-` ends a name, as the reference reads it: `:from-date` is `:from` and text.
        assert_eq!(unmatched_colon_segments("/x/:from-date", &[]), vec!["from"]);
        assert!(unmatched_colon_segments("/x/:from-date", &["from"]).is_empty());
        assert!(unmatched_colon_segments("/x/:from-date", &["from-date"]).is_empty());
        assert!(unmatched_colon_segments("/x/:1", &[]).is_empty());
        assert!(unmatched_colon_segments("/x/:", &[]).is_empty());
    }
}
