//! Every rule, one function each, registered once in [`SCHEMA_RULES`].
//!
//! A rule reads the loaded exports through [`SchemaCtx`] and reports through a [`Collector`], which
//! applies the profile's severity (or drops the diagnostic when the rule is off). Rules never panic
//! and never assume a field has the right type: each checks what it needs and stays quiet about what
//! another rule reports.

mod handlers;
mod main_fields;
mod security;
mod tools;

use flowmcp_loader::Exports;
use flowmcp_loader::file::LoadedFile;
use flowmcp_spec::{Code, Collector, JsonPath};
use serde_json::{Map, Value};

use crate::Options;

/// What a schema rule sees.
pub struct SchemaCtx<'a> {
    pub exports: &'a Exports,
    pub opts: &'a Options,
    pub loaded: &'a LoadedFile,
}

impl<'a> SchemaCtx<'a> {
    /// `main` when it is an object.
    pub fn main(&self) -> Option<&'a Map<String, Value>> {
        self.exports.get("main").and_then(Value::as_object)
    }

    /// The tools (`main.tools`, or the deprecated `main.routes` when `tools` is absent) when they are
    /// an object, with the key they live under.
    pub fn tools(&self) -> Option<(&'static str, &'a Map<String, Value>)> {
        let main = self.main()?;
        if let Some(t) = main.get("tools") {
            return t.as_object().map(|o| ("tools", o));
        }
        main.get("routes")
            .and_then(Value::as_object)
            .map(|o| ("routes", o))
    }

    pub fn is_compat(&self) -> bool {
        self.opts.settings.profile.is_compat()
    }
}

/// A registered rule: the codes it can emit and its check.
pub struct SchemaRule {
    pub codes: &'static [Code],
    pub check: fn(&SchemaCtx<'_>, &mut Collector<'_>),
}

/// All schema rules, in the order they run.
pub static SCHEMA_RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL001],
        check: main_fields::val001_main_export,
    },
    SchemaRule {
        codes: &[Code::VAL002],
        check: main_fields::val002_main_object,
    },
    SchemaRule {
        codes: &[Code::VAL003],
        check: main_fields::val003_unknown_main_keys,
    },
    SchemaRule {
        codes: &[Code::VAL004],
        check: handlers::val004_handlers_function,
    },
    SchemaRule {
        codes: &[Code::VAL005],
        check: handlers::val005_handler_keys,
    },
    SchemaRule {
        codes: &[Code::VAL010],
        check: main_fields::val010_namespace_required,
    },
    SchemaRule {
        codes: &[Code::VAL011],
        check: main_fields::val011_namespace_format,
    },
    SchemaRule {
        codes: &[Code::VAL012],
        check: main_fields::val012_name_required,
    },
    SchemaRule {
        codes: &[Code::VAL013],
        check: main_fields::val013_description_required,
    },
    SchemaRule {
        codes: &[Code::VAL014],
        check: main_fields::val014_version,
    },
    SchemaRule {
        codes: &[Code::VAL015],
        check: main_fields::val015_root_required,
    },
    SchemaRule {
        codes: &[Code::VAL016],
        check: main_fields::val016_tools_object,
    },
    SchemaRule {
        codes: &[Code::VAL017],
        check: main_fields::val017_tools_and_routes,
    },
    SchemaRule {
        codes: &[Code::VAL018],
        check: main_fields::val018_routes_deprecated,
    },
    SchemaRule {
        codes: &[Code::VAL020],
        check: main_fields::val020_docs,
    },
    SchemaRule {
        codes: &[Code::VAL021],
        check: main_fields::val021_tags,
    },
    SchemaRule {
        codes: &[Code::VAL022],
        check: main_fields::val022_required_server_params,
    },
    SchemaRule {
        codes: &[Code::VAL023],
        check: main_fields::val023_headers,
    },
    SchemaRule {
        codes: &[Code::VAL024],
        check: main_fields::val024_shared_lists,
    },
    SchemaRule {
        codes: &[Code::VAL025],
        check: main_fields::val025_required_libraries,
    },
    SchemaRule {
        codes: &[Code::VAL080],
        check: main_fields::val080_root_https,
    },
    SchemaRule {
        codes: &[Code::VAL081],
        check: main_fields::val081_root_trailing_slash,
    },
    SchemaRule {
        codes: &[Code::SEC020],
        check: security::sec020_library_allowlist,
    },
    SchemaRule {
        codes: &[Code::VAL003],
        check: tools::val003_unknown_tool_keys,
    },
    SchemaRule {
        codes: &[Code::VAL030],
        check: tools::val030_tool_name,
    },
    SchemaRule {
        codes: &[Code::VAL031],
        check: tools::val031_max_tools,
    },
    SchemaRule {
        codes: &[Code::VAL032],
        check: tools::val032_method,
    },
    SchemaRule {
        codes: &[Code::VAL033],
        check: tools::val033_path,
    },
    SchemaRule {
        codes: &[Code::VAL034],
        check: tools::val034_description,
    },
    SchemaRule {
        codes: &[Code::VAL035],
        check: tools::val035_parameters,
    },
    SchemaRule {
        codes: &[Code::VAL036],
        check: tools::val036_output_recommended,
    },
    SchemaRule {
        codes: &[Code::VAL037],
        check: tools::val037_async_reserved,
    },
];

/// Runs every schema rule.
pub fn run_schema_rules(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    for rule in SCHEMA_RULES {
        (rule.check)(ctx, c);
    }
}

/// Every code some registered rule (or the loader) can emit; used to check the registry's statuses.
pub fn emitted_codes() -> Vec<Code> {
    let mut v: Vec<Code> = SCHEMA_RULES
        .iter()
        .flat_map(|r| r.codes.iter().copied())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// `main.<key>` as a path.
pub(crate) fn main_path(key: &str) -> JsonPath {
    JsonPath::root("main").key(key)
}

/// A short description of a JSON value's type for messages: `string`, `number`, `array` …
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value quoted for a message, shortened when long.
pub(crate) fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
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
