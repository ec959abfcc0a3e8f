//! Every rule, one function each, registered once in its family module's `RULES` table
//! (see [`rule_tables`]).
//!
//! A rule reads the loaded exports through [`SchemaCtx`] and reports through a [`Collector`], which
//! applies the profile's severity (or drops the diagnostic when the rule is off). Rules never panic
//! and never assume a field has the right type: each checks what it needs and stays quiet about what
//! another rule reports.

mod agents;
mod handlers;
mod lists;
mod main_fields;
mod meta;
mod output;
mod params;
mod preload;
pub(crate) mod prompts;
mod queries;
mod resources;
mod security;
pub(crate) mod selections;
mod skills;
mod tool_tests;
mod tools;

use std::cell::OnceCell;
use std::path::Path;

use flowmcp_loader::Exports;
use flowmcp_loader::LoadedFile;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use crate::Options;
use crate::lists::{ListRef, ListRegistry, ListScope, Resolved};

/// The scope of a context built without one.
static NOT_SEARCHED: ListScope = ListScope::NotSearched;

/// What a schema rule sees.
pub(crate) struct SchemaCtx<'a> {
    pub exports: &'a Exports,
    pub opts: &'a Options,
    pub loaded: &'a LoadedFile,
    /// The shared lists the schema sees (a `_lists/` found by walking up, or a catalog's).
    pub lists: &'a ListScope,
    /// The schema file on disk, when the caller named one (see [`SchemaCtx::schema_dir`]).
    pub(crate) file: Option<&'a Path>,
    tools_cache: OnceCell<Vec<ToolRef<'a>>>,
    params_cache: OnceCell<Vec<ParamRef<'a>>>,
    list_refs_cache: OnceCell<Vec<ListRef>>,
    resolved_cache: OnceCell<Option<Resolved<'a>>>,
    sites_cache: OnceCell<Vec<params::Site<'a>>>,
    /// [`user_params`] of every tool, in order.
    user_params_cache: OnceCell<Vec<(&'a str, ParamRef<'a>)>>,
    dir_cache: OnceCell<Option<&'a Path>>,
}

/// `(name, tool, path)` of a tool that is an object.
pub(crate) type ToolRef<'a> = (&'a String, &'a Map<String, Value>, JsonPath);

impl<'a> SchemaCtx<'a> {
    pub(crate) fn new(exports: &'a Exports, opts: &'a Options, loaded: &'a LoadedFile) -> Self {
        SchemaCtx {
            exports,
            opts,
            loaded,
            lists: &NOT_SEARCHED,
            file: None,
            tools_cache: OnceCell::new(),
            params_cache: OnceCell::new(),
            list_refs_cache: OnceCell::new(),
            resolved_cache: OnceCell::new(),
            sites_cache: OnceCell::new(),
            user_params_cache: OnceCell::new(),
            dir_cache: OnceCell::new(),
        }
    }

    /// The same context with the shared lists of `lists`.
    pub(crate) fn with_lists(mut self, lists: &'a ListScope) -> Self {
        self.lists = lists;
        self.resolved_cache = OnceCell::new();
        self
    }

    /// The same context for the schema file at `file` (the rules that look at files beside the
    /// schema use its directory).
    pub(crate) fn with_file(mut self, file: Option<&'a Path>) -> Self {
        self.file = file;
        self.dir_cache = OnceCell::new();
        self
    }

    /// The directory of the schema file, when the schema was read from a file that exists on disk.
    /// Only then do rules look at other files (databases beside the schema or named by a path); a
    /// schema validated from a string (`validate_str`, whose path is only a name) touches no disk.
    /// Asked of the disk once per file.
    pub(crate) fn schema_dir(&self) -> Option<&'a Path> {
        *self.dir_cache.get_or_init(|| {
            let file = self.file.filter(|f| flowmcp_files::named::is_file(f))?;
            match file.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => Some(dir),
                _ => Some(Path::new(".")),
            }
        })
    }

    /// The list registry, when the schema sees one.
    pub(crate) fn registry(&self) -> Option<&'a ListRegistry> {
        self.lists.registry()
    }

    /// The entries of `main.sharedLists` that name a list. Computed once per file.
    pub(crate) fn list_refs(&self) -> &[ListRef] {
        self.list_refs_cache.get_or_init(|| {
            self.exports
                .get("main")
                .map(ListRef::from_main)
                .unwrap_or_default()
        })
    }

    /// The schema's shared lists resolved against the registry (filters applied), when there is a
    /// registry. Computed once per file.
    pub(crate) fn resolved_lists(&self) -> Option<&Resolved<'a>> {
        self.resolved_cache
            .get_or_init(|| {
                let registry = self.registry()?;
                Some(registry.resolve(self.list_refs()))
            })
            .as_ref()
    }

    /// Every string placeholders may appear in (`root`, paths, headers, `position.value`), with
    /// the `{{…}}` found in each. Computed once per file.
    pub(crate) fn placeholder_sites(&self) -> &[params::Site<'a>] {
        self.sites_cache
            .get_or_init(|| params::placeholder_sites(self))
    }

    /// `main` when it is an object.
    pub(crate) fn main(&self) -> Option<&'a Map<String, Value>> {
        self.exports.get("main").and_then(Value::as_object)
    }

    /// The tools (`main.tools`, or the deprecated `main.routes` when `tools` is absent) when they are
    /// an object, with the key they live under.
    pub(crate) fn tools(&self) -> Option<(&'static str, &'a Map<String, Value>)> {
        let main = self.main()?;
        if let Some(t) = main.get("tools") {
            return t.as_object().map(|o| ("tools", o));
        }
        main.get("routes")
            .and_then(Value::as_object)
            .map(|o| ("routes", o))
    }

    pub(crate) fn is_compat(&self) -> bool {
        self.opts.settings.profile.is_compat()
    }
}

/// A registered rule: the codes it can emit and its check.
pub(crate) struct SchemaRule {
    /// The codes the check can emit (a test holds the registry to them).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) codes: &'static [Code],
    pub(crate) check: fn(&SchemaCtx<'_>, &mut Collector<'_>),
}

/// The rules of each family module, in the order they run. Each module declares its own `RULES`
/// table, so adding a rule touches only its module.
pub(crate) fn rule_tables() -> [&'static [SchemaRule]; 12] {
    [
        main_fields::RULES,
        handlers::RULES,
        security::RULES,
        tools::RULES,
        params::RULES,
        output::RULES,
        preload::RULES,
        resources::RULES,
        meta::RULES,
        lists::RULES,
        tool_tests::RULES,
        prompts::RULES,
    ]
}

/// Every registered schema rule.
pub(crate) fn schema_rules() -> impl Iterator<Item = &'static SchemaRule> {
    rule_tables().into_iter().flatten()
}

/// Runs every schema rule.
pub(crate) fn run_schema_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in schema_rules() {
        (rule.check)(ctx, c);
    }
}

/// The rules of a skill file (`export const skill`), in the order they run.
pub(crate) fn skill_rules() -> impl Iterator<Item = &'static SchemaRule> {
    skills::RULES.iter()
}

/// Runs every skill-file rule.
pub(crate) fn run_skill_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in skill_rules() {
        (rule.check)(ctx, c);
    }
}

/// The rules of a prompt file (`export const prompt`), a content file (`export const content`)
/// and a selection file, in the order they run.
#[cfg(test)]
pub(crate) fn prompt_file_rules() -> impl Iterator<Item = &'static SchemaRule> {
    prompts::FILE_RULES
        .iter()
        .chain(prompts::CONTENT_RULES)
        .chain(selections::RULES)
        .chain(agents::RULES)
}

/// Runs the rules of a prompt file.
pub(crate) fn run_prompt_file_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in prompts::FILE_RULES {
        (rule.check)(ctx, c);
    }
}

/// Runs the rules of an agent manifest.
pub(crate) fn run_agent_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in agents::RULES {
        (rule.check)(ctx, c);
    }
}

/// Runs the rules of a selection file.
pub(crate) fn run_selection_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in selections::RULES {
        (rule.check)(ctx, c);
    }
}

/// Runs the rules of a content file.
pub(crate) fn run_content_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in prompts::CONTENT_RULES {
        (rule.check)(ctx, c);
    }
}

#[cfg(test)]
mod registry_tests {
    use flowmcp_spec::registry::Status;

    use super::{prompt_file_rules, schema_rules, skill_rules};

    #[test]
    fn every_code_a_rule_emits_is_implemented_in_the_registry() {
        for rule in schema_rules()
            .chain(skill_rules())
            .chain(prompt_file_rules())
        {
            for code in rule.codes {
                assert_eq!(code.info().status, Status::Implemented, "{code}");
            }
        }
    }
}

/// `main.<key>` as a path.
pub(crate) fn main_path(key: &str) -> JsonPath {
    JsonPath::root("main").key(key)
}

pub(crate) use crate::quote::shown;
pub(crate) use flowmcp_spec::diagnostic::json_type as type_name;

/// A required string field: `value` (the field `key`, found at `path`) when it is a string;
/// otherwise `code` is reported ("Missing required field" or "Must be a string") and `None` given.
pub(crate) fn required_string<'a>(
    value: Option<&'a Value>,
    path: &JsonPath,
    key: &str,
    code: Code,
    c: &mut Collector<'_>,
) -> Option<&'a str> {
    match value {
        None => {
            c.emit(
                code,
                Some(path),
                format!("Missing required field \"{key}\""),
            );
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            c.emit(
                code,
                Some(path),
                format!("Must be a string (found {})", type_name(other)),
            );
            None
        }
    }
}

/// Checks that `main.<key>`, when present, is an array of strings; reports `code` otherwise.
pub(crate) fn check_string_array(
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    key: &str,
    code: Code,
) {
    let Some(main) = ctx.main() else { return };
    let Some(value) = main.get(key) else { return };
    let path = main_path(key);
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    c.emit(
                        code,
                        Some(&path.index(i)),
                        format!("Must be a string (found {})", type_name(item)),
                    );
                }
            }
        }
        other => {
            c.emit(
                code,
                Some(&path),
                format!("Must be an array of strings (found {})", type_name(other)),
            );
        }
    }
}

/// Every tool that is an object: `(name, tool, path)` with path `main.tools.<name>`. Computed once
/// per file.
pub(crate) fn each_tool<'s, 'a>(ctx: &'s SchemaCtx<'a>) -> &'s [ToolRef<'a>] {
    ctx.tools_cache.get_or_init(|| {
        let Some((key, tools)) = ctx.tools() else {
            return Vec::new();
        };
        let base = main_path(key);
        tools
            .iter()
            .filter_map(|(name, t)| t.as_object().map(|o| (name, o, base.key(name))))
            .collect()
    })
}

/// One parameter of a tool, when the parameter is an object.
#[derive(Clone)]
pub(crate) struct ParamRef<'a> {
    pub tool: &'a String,
    pub param: &'a Map<String, Value>,
    /// `main.tools.<tool>.parameters[<index>]`
    pub path: JsonPath,
}

impl<'a> ParamRef<'a> {
    /// `position` when it is an object.
    pub(crate) fn position(&self) -> Option<&'a Map<String, Value>> {
        self.param.get("position").and_then(Value::as_object)
    }
    /// `position.<field>` when it is a string.
    pub(crate) fn position_str(&self, field: &str) -> Option<&'a str> {
        self.position()
            .and_then(|p| p.get(field))
            .and_then(Value::as_str)
    }
    /// `z` when it is an object.
    pub(crate) fn z(&self) -> Option<&'a Map<String, Value>> {
        self.param.get("z").and_then(Value::as_object)
    }
}

/// Every parameter object of every tool. Computed once per file.
pub(crate) fn each_parameter<'s, 'a>(ctx: &'s SchemaCtx<'a>) -> &'s [ParamRef<'a>] {
    ctx.params_cache.get_or_init(|| {
        let mut out = Vec::new();
        for (tool, t, tool_path) in each_tool(ctx) {
            let Some(Value::Array(params)) = t.get("parameters") else {
                continue;
            };
            let base = tool_path.key("parameters");
            for (index, p) in params.iter().enumerate() {
                if let Some(param) = p.as_object() {
                    out.push(ParamRef {
                        tool,
                        path: base.index(index),
                        param,
                    });
                }
            }
        }
        out
    })
}

/// How a parameter gets its value: the one classification the validator, the descriptors and the
/// request builder share.
pub(crate) use flowmcp_spec::placeholder::ParamRole as ParamSource;

/// `main.requiredServerParams` entries that are strings.
pub(crate) fn required_server_params<'a>(ctx: &SchemaCtx<'a>) -> Vec<&'a str> {
    ctx.main()
        .and_then(|m| m.get("requiredServerParams"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The source of a parameter's value under the active profile. `None` when `position.value` is
/// missing or not a string (VAL042's business).
pub(crate) fn param_source<'a>(ctx: &SchemaCtx<'a>, p: &ParamRef<'a>) -> Option<ParamSource<'a>> {
    let value = p.position_str("value")?;
    let declared = required_server_params(ctx);
    Some(flowmcp_spec::placeholder::param_role(
        value,
        |k| declared.contains(&k),
        ctx.opts.settings.profile,
    ))
}

/// The user-facing parameters of a tool: `(position.key, param)` for each parameter whose source is
/// [`ParamSource::User`] and whose key is a string.
pub(crate) fn user_params<'a>(ctx: &SchemaCtx<'a>, tool: &str) -> Vec<(&'a str, ParamRef<'a>)> {
    ctx.user_params_cache
        .get_or_init(|| {
            each_parameter(ctx)
                .iter()
                .filter(|p| param_source(ctx, p) == Some(ParamSource::User))
                .filter_map(|p| p.position_str("key").map(|k| (k, p.clone())))
                .collect()
        })
        .iter()
        .filter(|(_, p)| p.tool == tool)
        .cloned()
        .collect()
}
