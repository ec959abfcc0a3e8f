//! Rules on `main` itself: VAL001–VAL003 (main level), VAL010–VAL025, VAL080, VAL081.

use flowmcp_loader::HandlersExport;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::Value;

use super::{SchemaCtx, SchemaRule, check_string_array, main_path, shown, type_name};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL001],
        check: val001_main_export,
    },
    SchemaRule {
        codes: &[Code::VAL002],
        check: val002_main_object,
    },
    SchemaRule {
        codes: &[Code::VAL003],
        check: val003_unknown_main_keys,
    },
    SchemaRule {
        codes: &[Code::VAL010],
        check: val010_namespace_required,
    },
    SchemaRule {
        codes: &[Code::VAL011],
        check: val011_namespace_format,
    },
    SchemaRule {
        codes: &[Code::VAL012],
        check: val012_name_required,
    },
    SchemaRule {
        codes: &[Code::VAL013],
        check: val013_description_required,
    },
    SchemaRule {
        codes: &[Code::VAL014],
        check: val014_version,
    },
    SchemaRule {
        codes: &[Code::VAL015],
        check: val015_root_required,
    },
    SchemaRule {
        codes: &[Code::VAL016],
        check: val016_tools_object,
    },
    SchemaRule {
        codes: &[Code::VAL017],
        check: val017_tools_and_routes,
    },
    SchemaRule {
        codes: &[Code::VAL018],
        check: val018_routes_deprecated,
    },
    SchemaRule {
        codes: &[Code::VAL020],
        check: val020_docs,
    },
    SchemaRule {
        codes: &[Code::VAL021],
        check: val021_tags,
    },
    SchemaRule {
        codes: &[Code::VAL089],
        check: val089_tag_pattern,
    },
    SchemaRule {
        codes: &[Code::VAL090],
        check: val090_informational_fields,
    },
    SchemaRule {
        codes: &[Code::VAL022],
        check: val022_required_server_params,
    },
    SchemaRule {
        codes: &[Code::VAL023],
        check: val023_headers,
    },
    SchemaRule {
        codes: &[Code::VAL024],
        check: val024_shared_lists,
    },
    SchemaRule {
        codes: &[Code::VAL025],
        check: val025_required_libraries,
    },
    SchemaRule {
        codes: &[Code::VAL080],
        check: val080_root_https,
    },
    SchemaRule {
        codes: &[Code::VAL081],
        check: val081_root_trailing_slash,
    },
];

/// The keys `main` may hold: the specification lists them in several chapters (chapter 01's field
/// table lacks `prompts`, for one), so the allowed set is their union. `skills` is VAL016, not
/// VAL003.
pub(super) const MAIN_KEYS: &[&str] = &[
    "namespace",
    "name",
    "description",
    "version",
    "schemaVersion",
    "schemaHash",
    "root",
    "tools",
    "routes",
    "resources",
    "prompts",
    "docs",
    "tags",
    "termsOfService",
    "termsOfServiceCheckedAt",
    "termsOfServiceLanguage",
    "dataLicense",
    "dataLicenseName",
    "requiredServerParams",
    "requiredLibraries",
    "headers",
    "sharedLists",
    // This project's extension (D138), checked by SEC022–SEC024.
    "auth",
];

/// VAL001: A module that looks like a schema, because it exports `handlers`, but has no named
/// `main` export. A file with no recognised export at all is LDR008 instead.
///
/// # Why
///
/// `main` is the declarative part of a schema: namespace, tools, parameters. Without it the runtime
/// has nothing to register and the handlers have no tools to attach to.
pub(super) fn val001_main_export(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if !ctx.has_export("main") && ctx.has_export("handlers") {
        c.emit(
            Code::VAL001,
            None,
            "Schema must export `main` as a named export (`export const main = { … }`)",
        );
    }
}

/// VAL002: `main` is exported but is not a plain object (an array, a string, `null`, …). A `main`
/// that cannot be serialised at all, such as a function, is reported as SEC017 instead.
///
/// # Why
///
/// Every other schema rule reads fields of `main`, and the runtime hashes and ships it as a JSON
/// object.
pub(super) fn val002_main_object(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    // An object `main` stays one when its members change: that is not a read of them.
    if ctx.main_view().is_some() {
        return;
    }
    let Some(main) = ctx.export("main") else {
        return;
    };
    // A non-serialisable `main` (a function, say) is SEC017 at `main`; do not report it twice.
    let root_unserializable = ctx
        .unserializable()
        .iter()
        .any(|u| u.export == "main" && u.path.is_empty());
    if !main.is_object() && !root_unserializable {
        c.emit(
            Code::VAL002,
            Some(&JsonPath::root("main")),
            format!("Must be an object (found {})", type_name(main)),
        );
    }
}

/// VAL003: Keys of `main`, of each tool and of each parameter that the specification does not
/// define. `main` may hold `namespace`, `name`, `description`, `version`, `schemaVersion`,
/// `schemaHash`, `root`, `tools`, `routes`, `resources`, `prompts`, `docs`, `tags`,
/// `termsOfService`, `termsOfServiceCheckedAt`, `termsOfServiceLanguage`, `dataLicense`,
/// `dataLicenseName`, `requiredServerParams`, `requiredLibraries`, `headers`, `sharedLists` and
/// `auth` (this project's extension, checked by SEC022–SEC024, under both profiles); a
/// tool `method`, `path`, `description`, `parameters`, `output`, `preload`, `tests`, `meta`,
/// `headers` and `async`; a parameter `position`, `z` and `description`. Each unknown key is
/// reported at its JSON path; `main.meta`, `main.handlers` and a tool's `outputSchema` get a hint
/// saying where they belong. `main.skills` is VAL016's business.
///
/// # Why
///
/// A misspelt or misplaced key (`desciption`, a tool's `outputSchema`) does nothing: the runtime
/// ignores it while the author believes it is in effect. Under `compat` this is a warning because
/// catalogs written for the JavaScript reference carry such keys, and `outputSchema` is read as
/// `output` when `output` is absent.
pub(super) fn val003_unknown_main_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    for key in main.keys() {
        if key == "skills" || MAIN_KEYS.contains(&key.as_str()) {
            continue;
        }
        let help = match key.as_str() {
            "meta" => Some("`meta` belongs on each tool (`main.tools.<name>.meta`), not on `main`"),
            "handlers" => Some(
                "handlers are a separate export: `export const handlers = ( { sharedLists, libraries } ) => ( { … } )`",
            ),
            _ => None,
        };
        c.emit_help(
            Code::VAL003,
            Some(&main_path(key)),
            format!("\"{key}\" is not a valid field of main"),
            help.map(str::to_string),
        );
    }
}

/// `main.<key>` when it is a string; reports `code` when it is missing or not a string.
fn required_string(
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    key: &str,
    code: Code,
) -> Option<String> {
    let main = ctx.main_view()?;
    super::required_string(main.field(key), &main_path(key), key, code, c).map(str::to_string)
}

/// VAL010: `main.namespace` is missing or not a string.
///
/// # Why
///
/// The namespace identifies the provider. It prefixes every ID (`namespace/tool/name`) and every
/// MCP wire name, so no schema can do without one.
pub(super) fn val010_namespace_required(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    required_string(ctx, c, "namespace", Code::VAL010);
}

pub(super) use flowmcp_spec::catalog::is_namespace;

/// VAL011: `main.namespace` does not match `^[a-z][a-z0-9-]*$`: lowercase letters, digits and
/// hyphens, starting with a letter.
///
/// # Why
///
/// Namespaces appear in IDs, directory names and MCP tool names (`getAbi_etherscan-io`). A small
/// alphabet keeps them portable across file systems and clients and unambiguous to parse.
pub(super) fn val011_namespace_format(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(Value::String(ns)) = ctx.main_field("namespace") else {
        return;
    };
    if !is_namespace(ns) {
        c.emit(
            Code::VAL011,
            Some(&main_path("namespace")),
            format!(
                "Must match ^[a-z][a-z0-9-]*$ (found {})",
                shown(&Value::String(ns.clone()))
            ),
        );
    }
}

/// VAL012: `main.name` is missing or not a string.
///
/// # Why
///
/// The human-readable name is what catalogs and tool listings show for the provider.
pub(super) fn val012_name_required(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    required_string(ctx, c, "name", Code::VAL012);
}

/// VAL013: `main.description` is missing or not a string.
///
/// # Why
///
/// The description tells people and AI clients what the provider offers; catalogs use it for
/// discovery.
pub(super) fn val013_description_required(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    required_string(ctx, c, "description", Code::VAL013);
}

/// `major.minor.patch` with a given major, digits only.
fn version_with_major(v: &str, major: &str) -> bool {
    let mut parts = v.split('.');
    parts.next() == Some(major)
        && (0..2).all(|_| {
            parts
                .next()
                .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
        && parts.next().is_none()
}

/// VAL014: `main.version` is missing, not a string, or not of the form `4.x.y` (digits only). A
/// `3.x.y` version is the `v3` variant: accepted with a deprecation warning.
///
/// # Why
///
/// The version says which edition of the specification the schema follows. Version 4 changed
/// formats (tools instead of routes, `meta` blocks, factory handlers), so the runtime must know
/// which rules apply. Most 3.x schemas still load, hence only a warning for them.
pub(super) fn val014_version(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(version) = required_string(ctx, c, "version", Code::VAL014) else {
        return;
    };
    if version_with_major(&version, "4") {
        return;
    }
    let path = main_path("version");
    let found = shown(&Value::String(version.clone()));
    if version_with_major(&version, "3") {
        c.emit_variant(
            Code::VAL014,
            Some("v3"),
            Some(&path),
            format!("Version {found} is a v3 schema; migrate to ^4\\.\\d+\\.\\d+$"),
        );
    } else {
        c.emit(
            Code::VAL014,
            Some(&path),
            format!("Must match ^4\\.\\d+\\.\\d+$ (found {found})"),
        );
    }
}

/// Whether every tool has an `executeRequest` handler (then `root` is not used under compat).
fn all_tools_execute(ctx: &SchemaCtx<'_>) -> bool {
    let Some((_, tools)) = ctx.tools() else {
        return false;
    };
    let HandlersExport::Function {
        shape: Ok(handlers),
    } = ctx.handlers()
    else {
        return false;
    };
    !tools.is_empty()
        && tools.keys().all(|t| {
            handlers
                .iter()
                .any(|(name, hooks)| name == t && hooks.iter().any(|h| h == "executeRequest"))
        })
}

fn has_tools(ctx: &SchemaCtx<'_>) -> bool {
    ctx.tools().is_some_and(|(_, t)| !t.is_empty())
}

/// VAL015: `main.root` is missing or empty while `main.tools` has entries, or it is not a string.
/// When every tool has an `executeRequest` handler, a missing or empty root is the `handlers-only`
/// variant, a warning under `compat`.
///
/// # Why
///
/// Every request URL is `root` + `path`; without a root the runtime cannot call the API. Schemas
/// whose handlers perform every request never use the root, which the JavaScript reference
/// tolerates, hence the `compat` relaxation.
pub(super) fn val015_root_required(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    let path = main_path("root");
    match main.field("root") {
        Some(Value::String(r)) if !r.is_empty() => {}
        Some(Value::String(_)) | None => {
            if has_tools(ctx) {
                let variant = all_tools_execute(ctx).then_some("handlers-only");
                let msg = if main.contains_key("root") {
                    "Must not be empty when main.tools is not empty"
                } else {
                    "Missing required field \"root\" (main.tools is not empty)"
                };
                c.emit_variant(Code::VAL015, variant, Some(&path), msg);
            }
        }
        Some(other) => {
            c.emit(
                Code::VAL015,
                Some(&path),
                format!("Must be a string (found {})", type_name(other)),
            );
        }
    }
}

/// VAL016: `main.tools` (or the deprecated `main.routes`) is missing, not an object, or has an
/// entry that is not an object. An empty `{}` is accepted only when the schema defines `resources`
/// or `prompts`. `main.skills` is reported here too: skills are registered in selections, agents or
/// `providers/<namespace>/skills/`.
///
/// # Why
///
/// Tools are what a schema provides; a schema with nothing to offer is almost certainly a mistake.
/// Skills moved out of `main` in version 4.
pub(super) fn val016_tools_object(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    if main.contains_key("skills") {
        c.emit_help(
            Code::VAL016,
            Some(&main_path("skills")),
            "main.skills is not allowed in v4",
            Some(
                "register skills in a selection or agent (`skills: { name: { file } }`) \
                 or place them under providers/<namespace>/skills/"
                    .into(),
            ),
        );
    }
    let key = if main.contains_key("tools") {
        "tools"
    } else {
        "routes"
    };
    let has_other_primitives = main.contains_key("resources") || main.contains_key("prompts");
    match main.field(key) {
        None => {
            if !has_other_primitives {
                c.emit(
                    Code::VAL016,
                    Some(&main_path("tools")),
                    "Missing required field \"tools\"",
                );
            }
        }
        Some(Value::Object(tools)) => {
            if tools.is_empty() && !has_other_primitives {
                c.emit(
                    Code::VAL016,
                    Some(&main_path(key)),
                    format!("main.{key} is empty and the schema defines no resources or prompts"),
                );
            }
            for (name, tool) in tools {
                if !tool.is_object() {
                    c.emit(
                        Code::VAL016,
                        Some(&main_path(key).key(name)),
                        format!("Tool must be an object (found {})", type_name(tool)),
                    );
                }
            }
        }
        Some(other) => {
            c.emit(
                Code::VAL016,
                Some(&main_path(key)),
                format!("Must be an object (found {})", type_name(other)),
            );
        }
    }
}

/// VAL017: `main` defines both `tools` and `routes`.
///
/// # Why
///
/// `routes` is the old name of `tools`. With both present it is unclear which set the runtime
/// should register.
pub(super) fn val017_tools_and_routes(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    if main.contains_key("tools") && main.contains_key("routes") {
        c.emit(
            Code::VAL017,
            Some(&main_path("routes")),
            "main.tools and main.routes must not both be defined",
        );
    }
}

/// VAL018: `main.routes` is used instead of `main.tools` (a warning).
///
/// # Why
///
/// `routes` still loads, but the specification and current tooling use `tools`; the rename is
/// mechanical.
pub(super) fn val018_routes_deprecated(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    if main.contains_key("routes") && !main.contains_key("tools") {
        c.emit(
            Code::VAL018,
            Some(&main_path("routes")),
            "main.routes is deprecated, use main.tools",
        );
    }
}

/// VAL020: `main.docs`, when present, is not an array, or one of its entries is not a string (each
/// bad entry is reported with its index).
///
/// # Why
///
/// Documentation links are rendered and checked by catalogs, which expects plain URL strings.
pub(super) fn val020_docs(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_string_array(ctx, c, "docs", Code::VAL020);
}

/// VAL021: `main.tags`, when present, is not an array, or one of its entries is not a string.
///
/// # Why
///
/// Tags drive search and grouping in catalogs and are compared as strings.
pub(super) fn val021_tags(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_string_array(ctx, c, "tags", Code::VAL021);
}

/// VAL089: A `main.tags` entry that is a string but does not match `^[a-z][a-z0-9-]*$` (lower-case
/// letters, digits and hyphens, starting with a letter). Entries that are not strings are VAL021's.
///
/// # Why
///
/// Tags are compared as plain words by catalogs and search: `Weather`, `weather` and `weather_data`
/// would be three different tags. The schema format fixes one spelling. Under `compat` this is a
/// warning, as the JavaScript reference does not check tag spelling and real catalogs use tags
/// such as `cacheTtlDaily`.
pub(super) fn val089_tag_pattern(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(tags) = ctx.main_field("tags").and_then(Value::as_array) else {
        return;
    };
    for (i, tag) in tags.iter().enumerate() {
        if let Some(tag) = tag.as_str()
            && !flowmcp_spec::catalog::is_namespace(tag)
        {
            c.emit(
                Code::VAL089,
                Some(&main_path("tags").index(i)),
                format!("Must match ^[a-z][a-z0-9-]*$ (found {tag:?})"),
            );
        }
    }
}

/// VAL090: `termsOfService`, `termsOfServiceCheckedAt`, `termsOfServiceLanguage`, `dataLicense` or
/// `dataLicenseName` of `main` is neither a string nor `null`; or `termsOfServiceCheckedAt` is a
/// string that is not a `YYYY-MM-DD` date; or `termsOfServiceLanguage` is a string that is neither
/// two lower-case letters nor `multi`.
///
/// # Why
///
/// These fields are informational: FlowMCP does not interpret a provider's terms. But catalogs
/// show them and compare the date of the last check, so each has one shape: a URL or name as a
/// string, a calendar date, a language code. Under `compat` this is a warning, as the JavaScript
/// reference checks none of them.
pub(super) fn val090_informational_fields(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    for key in [
        "termsOfService",
        "termsOfServiceCheckedAt",
        "termsOfServiceLanguage",
        "dataLicense",
        "dataLicenseName",
    ] {
        let path = || main_path(key);
        let text = match main.field(key) {
            None | Some(Value::Null) => continue,
            Some(Value::String(text)) => text.as_str(),
            Some(other) => {
                c.emit(
                    Code::VAL090,
                    Some(&path()),
                    format!("Must be a string or null (found {})", type_name(other)),
                );
                continue;
            }
        };
        let problem = match key {
            "termsOfServiceCheckedAt" if !flowmcp_spec::catalog::is_iso_date(text) => {
                Some("Must be a date written YYYY-MM-DD")
            }
            "termsOfServiceLanguage"
                if text != "multi"
                    && !(text.len() == 2 && text.bytes().all(|b| b.is_ascii_lowercase())) =>
            {
                Some("Must be a two-letter language code (such as \"en\") or \"multi\"")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            c.emit(
                Code::VAL090,
                Some(&path()),
                format!("{problem} (found {text:?})"),
            );
        }
    }
}

/// VAL022: `main.requiredServerParams`, when present, is not an array, or one of its entries is not
/// a string.
///
/// # Why
///
/// The runtime reads each named variable from the environment, substitutes it into URLs and
/// headers, and hides the tools whose variables are missing. It needs plain names.
pub(super) fn val022_required_server_params(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_string_array(ctx, c, "requiredServerParams", Code::VAL022);
}

/// VAL023: `main.headers`, when present, is not a plain object, or one of its values is not a
/// string.
///
/// # Why
///
/// These headers are sent with every request of the schema, and HTTP header values are text.
pub(super) fn val023_headers(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(headers) = ctx.main_field("headers") else {
        return;
    };
    let path = main_path("headers");
    match headers {
        Value::Object(map) => {
            for (k, v) in map {
                if !v.is_string() {
                    c.emit(
                        Code::VAL023,
                        Some(&path.key(k)),
                        format!("Header value must be a string (found {})", type_name(v)),
                    );
                }
            }
        }
        other => {
            c.emit(
                Code::VAL023,
                Some(&path),
                format!("Must be a plain object (found {})", type_name(other)),
            );
        }
    }
}

/// VAL024: `main.sharedLists`, when present, is not an array, or one of its entries is not an
/// object.
///
/// # Why
///
/// Each entry is a reference `{ ref, version, filter }` that the runtime resolves, version-checks
/// and filters at load time.
pub(super) fn val024_shared_lists(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(lists) = ctx.main_field("sharedLists") else {
        return;
    };
    let path = main_path("sharedLists");
    match lists {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_object() {
                    c.emit(
                        Code::VAL024,
                        Some(&path.index(i)),
                        format!("Must be an object (found {})", type_name(item)),
                    );
                }
            }
        }
        other => {
            c.emit(
                Code::VAL024,
                Some(&path),
                format!("Must be an array of objects (found {})", type_name(other)),
            );
        }
    }
}

/// VAL025: `main.requiredLibraries`, when present, is not an array, or one of its entries is not a
/// string.
///
/// # Why
///
/// Each entry names an npm package that is checked against the allowlist (SEC020) and injected into
/// the `handlers` factory by name.
pub(super) fn val025_required_libraries(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    check_string_array(ctx, c, "requiredLibraries", Code::VAL025);
}

/// VAL080: `main.root` is a non-empty string that does not start with `https://` (an empty root is
/// VAL015's business). When every tool has an `executeRequest` handler, which never uses the root,
/// this is the `handlers-only` variant, a warning under `compat`.
///
/// # Why
///
/// Requests carry API keys and user input, which plain HTTP would expose. The runtime speaks HTTPS
/// only and also refuses redirects that leave HTTPS.
pub(super) fn val080_root_https(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(Value::String(root)) = ctx.main_field("root") else {
        return;
    };
    if root.is_empty() || root.starts_with("https://") {
        return;
    }
    let variant = all_tools_execute(ctx).then_some("handlers-only");
    c.emit_variant(
        Code::VAL080,
        variant,
        Some(&main_path("root")),
        format!(
            "Must start with https:// (found {})",
            shown(&Value::String(root.clone()))
        ),
    );
}

/// VAL081: `main.root` ends with `/`.
///
/// # Why
///
/// Paths start with `/` (VAL033), so a root that ends with one produces `//` in every URL, which
/// many servers treat as a different resource.
pub(super) fn val081_root_trailing_slash(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(Value::String(root)) = ctx.main_field("root") else {
        return;
    };
    if root.ends_with('/') {
        c.emit(
            Code::VAL081,
            Some(&main_path("root")),
            format!(
                "Must not end with / (found {})",
                shown(&Value::String(root.clone()))
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(version_with_major("4.2.0", "4"));
        assert!(version_with_major("4.10.3", "4"));
        assert!(!version_with_major("4.2", "4"));
        assert!(!version_with_major("4.2.0-beta", "4"));
        assert!(!version_with_major("14.2.0", "4"));
        assert!(version_with_major("3.0.0", "3"));
    }

    #[test]
    fn namespaces() {
        assert!(is_namespace("etherscan-io"));
        assert!(is_namespace("a1"));
        assert!(!is_namespace("1a"));
        assert!(!is_namespace("Etherscan"));
        assert!(!is_namespace(""));
        assert!(!is_namespace("a_b"));
    }
}
