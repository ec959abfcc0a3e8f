//! The registry table. One line per code; see `declare_rules!` below for the format:
//! `CODE: Family, Origin, "section", spec/compat, status, "summary" [, [ "variant" => spec/compat: "summary" ]];`
//!
//! `section` is the specification chapter that defines the code, or `"flowmcp-rs"`
//! ([`super::PROJECT_SECTION`]) for a code this project adds. A `NotEmitted` status says in a few
//! words why the code is never reported.
//!
//! A code's prose for `docs/rules/` (what it checks, and why) is the `/// CODE: …` doc comment next to
//! the code that checks it (see `cargo xtask docs`). The codes that no check in the validator carries
//! have it here, as the doc comment of their line (and so of their [`Code`] variant): the runtime's
//! codes, and the codes that are never emitted.

use serde::Serialize;

use super::kinds::Status::{Implemented, NotEmitted};
use super::kinds::{Family, Origin, PROJECT_SECTION, Status, Variant};
use crate::level::Level;

/// Everything known about one code.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RuleInfo {
    pub code: Code,
    pub family: Family,
    pub origin: Origin,
    /// The specification file that defines it (`09-validation-rules.md`), or [`PROJECT_SECTION`]
    /// for a code this project defines.
    pub section: &'static str,
    /// Severity under profile `spec`.
    pub spec: Level,
    /// Severity under profile `compat`.
    pub compat: Level,
    pub status: Status,
    pub summary: &'static str,
    pub variants: &'static [Variant],
}

impl RuleInfo {
    /// Whether this project, not a chapter of the specification, defines the code.
    pub fn defined_by_project(&self) -> bool {
        self.section == PROJECT_SECTION
    }

    /// Whether the code is reported when something runs (a tool or resource call: E001–E009,
    /// SEC100–SEC104 inside an E005 message, MD001–MD007; an agent run: AGENT001–AGENT005),
    /// never in a validation report, so that a rule override does not change it.
    pub fn is_runtime(&self) -> bool {
        matches!(self.family, Family::E | Family::Md | Family::Agent)
            || matches!(
                self.code,
                Code::SEC100 | Code::SEC101 | Code::SEC102 | Code::SEC103 | Code::SEC104
            )
    }

    pub fn variant(&self, name: &str) -> Option<&'static Variant> {
        self.variants.iter().find(|v| v.name == name)
    }
}

macro_rules! declare_rules {
    ( $(
        $( #[$attr:meta] )*
        $code:ident : $fam:ident, $origin:ident, $section:literal, $spec:ident / $compat:ident, $status:expr,
        $summary:literal
        $( , [ $( $vname:literal => $vspec:ident / $vcompat:ident : $vsum:literal ),* $(,)? ] )?
        ;
    )* ) => {
        /// Every diagnostic code known to flowmcp-rs. Generated from the registry table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Code { $( $( #[$attr] )* $code ),* }

        impl Code {
            /// The code as text, e.g. `"VAL014"`.
            pub const fn as_str(self) -> &'static str {
                match self { $( Code::$code => stringify!($code) ),* }
            }
        }

        /// The registry, in declaration order.
        pub static RULES: &[$crate::registry::RuleInfo] = &[ $(
            $crate::registry::RuleInfo {
                code: Code::$code,
                family: $crate::registry::Family::$fam,
                origin: $crate::registry::Origin::$origin,
                section: $section,
                spec: $crate::level::Level::$spec,
                compat: $crate::level::Level::$compat,
                status: $status,
                summary: $summary,
                variants: &[ $( $( $crate::registry::Variant {
                    name: $vname,
                    spec: $crate::level::Level::$vspec,
                    compat: $crate::level::Level::$vcompat,
                    summary: $vsum,
                } ),* )? ],
            }
        ),* ];
    };
}

declare_rules! {
    VAL001: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Schema must export `main` as a named export";
    VAL002: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main` must be an object";
    VAL003: Val, Spec, "09-validation-rules.md", Error/Warning, Implemented, "`main`, tools and parameters must not contain unknown fields";
    VAL004: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`handlers` (if exported) must be a function";
    VAL005: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "`handlers` must return an object whose keys name tools";
    /// VAL007: A schema with more than 8 routes, as the migration guide (chapter 08) numbers the
    /// check.
    ///
    /// # Why
    ///
    /// The validation-rules chapter numbers the same check VAL031. One check gets one code, so a
    /// schema with too many tools is reported as VAL031, never as VAL007.
    VAL007: Val, Spec, "08-migration.md", Off/Off, NotEmitted("VAL031 reports the check"), "Route count exceeds 8 (migration guide numbering; VAL031 is emitted)";
    VAL010: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.namespace` is required and must be a string";
    VAL011: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.namespace` must match ^[a-z][a-z0-9-]*$";
    VAL012: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.name` is required and must be a string";
    VAL013: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.description` is required and must be a string";
    VAL014: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.version` is required and must match ^4\\.\\d+\\.\\d+$", [
        "v3" => Warning/Warning: "a 3.x version is accepted with a deprecation warning",
    ];
    VAL015: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.root` is required when `main.tools` is not empty", [
        "handlers-only" => Error/Warning: "empty `root` while every tool has `executeRequest`",
    ];
    VAL016: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.tools` must be an object (may be `{}` with resources); `main.skills` is forbidden";
    VAL017: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.tools` and `main.routes` must not both be defined";
    VAL018: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "`main.routes` is deprecated, use `main.tools`";
    VAL020: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.docs` must be an array of strings";
    VAL021: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.tags` must be an array of strings";
    VAL022: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.requiredServerParams` must be an array of strings";
    VAL023: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.headers` must be a plain object";
    VAL024: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.sharedLists` must be an array of objects";
    VAL025: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main.requiredLibraries` must be an array of strings";
    /// VAL026: An entry of `main.requiredLibraries` that is not on the allowlist, as chapter 09
    /// numbers the check.
    ///
    /// # Why
    ///
    /// The security chapter defines the same check as SEC020. Reporting one finding under two codes
    /// would count it twice, so it is reported as SEC020 only.
    VAL026: Val, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SEC020 reports the check"), "`requiredLibraries` entry not on the allowlist (SEC020 is emitted instead)";
    VAL030: Val, Spec, "09-validation-rules.md", Error/Warning, Implemented, "Tool name must match ^[a-z][a-zA-Z0-9]*$";
    VAL031: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "At most 8 tools per schema";
    VAL032: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.method` is required: GET, POST, PUT or DELETE";
    VAL033: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.path` is required: a string starting with /";
    VAL034: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.description` is required and must be a string";
    VAL035: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.parameters` is required and must be an array";
    VAL036: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "`tool.output` is recommended";
    VAL037: Val, Spec, "09-validation-rules.md", Info/Info, Implemented, "`tool.async` is reserved and not executed";
    VAL040: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Each parameter must have `position` and `z` objects";
    VAL041: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`position.key` is required and must be a string";
    VAL042: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`position.value` is required and must be a string";
    VAL043: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`position.location` must be insert, query or body";
    VAL044: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`z.primitive` is required and must be a valid primitive";
    VAL045: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`z.options` must be an array of known option strings (compat accepts `values(...)`, `regex(...)`)", [
        "joined" => Error/Warning: "several options in one string (the reference reads the first by its prefix)",
    ];
    VAL046: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`enum()` must not be empty";
    VAL047: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Shared-list interpolation `{{list:field}}` is only allowed inside `enum()`";
    VAL048: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "An interpolated shared list must be declared in `main.sharedLists`";
    VAL049: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "An interpolated field must exist in the list's `meta.fields`";
    VAL050: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Insert parameters and `{{key}}` placeholders in `path` must match both ways (compat reads `:key` as `{{key}}`)", [
        "unused-insert" => Error/Warning: "an insert parameter with no placeholder (its value is not sent)",
    ];
    VAL060: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`output.mimeType` must be a supported MIME type";
    VAL061: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`output.schema` must be a valid schema definition";
    VAL062: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`output.schema.type` must fit the MIME type";
    VAL063: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "Output schema nests deeper than 4 levels";
    VAL064: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`properties` is only valid when `type` is object";
    VAL065: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`items` is only valid when `type` is array";
    VAL070: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`sharedLists[].ref` is required and must be a string";
    VAL071: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`sharedLists[].version` is required and must be semver";
    VAL072: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Referenced shared list must exist in the list registry";
    VAL073: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Referenced shared-list version must match";
    VAL074: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`sharedLists[].filter` must have a valid `key` (`field` accepted as alias)";
    VAL075: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "Shared list declared but used by no parameter or handler";
    VAL080: Val, Extension, "flowmcp-rs", Error/Error, Implemented, "`root` must start with https://", [
        "handlers-only" => Error/Warning: "a `root` that is not HTTPS while every tool has `executeRequest`",
    ];
    VAL081: Val, Extension, "flowmcp-rs", Error/Error, Implemented, "`root` must not end with /";
    VAL082: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "`body` parameter on a GET or DELETE tool (compat: not sent)";
    VAL083: Val, Extension, "flowmcp-rs", Error/Error, Implemented, "Server-param placeholder names a key missing from `requiredServerParams`";
    VAL084: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "A fixed parameter value fails its own `z`";
    VAL085: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "Unknown placeholder (not user param, server param, insert key or list interpolation)";
    VAL086: Val, Extension, "flowmcp-rs", Error/Error, Implemented, "`main.schemaVersion` is not semver";
    VAL087: Val, Extension, "flowmcp-rs", Warning/Warning, Implemented, "`main.schemaHash` differs from the recomputed hash";
    VAL088: Val, Extension, "flowmcp-rs", Info/Info, Implemented, "Shared-list rules skipped: the schema is outside any catalog (no `_lists/` found)";
    VAL089: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "A `main.tags` entry must match `^[a-z][a-z0-9-]*$`";
    VAL090: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "Terms-of-service and data-licence fields must be strings or null (`termsOfServiceCheckedAt` a `YYYY-MM-DD` date, `termsOfServiceLanguage` a two-letter code or `multi`)";
    VAL091: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "`skill.whenToUse` must be a non-empty string";
    VAL092: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "`skill.type` must be `namespace`, `selection` or `agent`";
    VAL093: Val, Extension, "flowmcp-rs", Error/Warning, Implemented, "A key of `export const skill` that chapter 14 does not define";
    VAL100: Val, Spec, "19-mcp-integration.md", Error/Off, Implemented, "Every tool must have a `meta` block (compat: optional, checked when present)", [
        "not-object" => Error/Error: "`meta` is present but not an object",
    ];
    VAL101: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.isReadOnly` is required and must be a boolean";
    VAL102: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.isConcurrencySafe` is required and must be a boolean";
    VAL103: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.isDestructive` is required and must be a boolean";
    VAL104: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.searchHint` is required and must be a non-empty string";
    VAL105: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.aliases` is required and must be an array of strings";
    VAL106: Val, Spec, "19-mcp-integration.md", Error/Error, Implemented, "`meta.alwaysLoad` is required and must be a boolean";
    VAL107: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Hardcoded enum values that duplicate a shared list must use `{{list:alias}}`";
    VAL110: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Slash rule: reference keys must contain /, inline skill keys must not (object form)";
    SEC001: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `import` (static, dynamic or `import{`)";
    SEC002: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `require(` call";
    SEC003: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `eval(` call";
    SEC004: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `Function(` constructor";
    SEC005: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `new Function`";
    SEC006: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `process.` / `process[` access";
    SEC007: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `child_process`";
    SEC008: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `fs.` access";
    SEC009: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `node:fs`";
    SEC010: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `fs/promises`";
    SEC011: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `globalThis.` / `globalThis[` access";
    SEC012: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `global.` / `global[` access";
    SEC013: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `__dirname`";
    SEC014: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden `__filename`";
    SEC015: Sec, Spec, "05-security.md", Error/Off, Implemented, "Forbidden `setTimeout` (not reported under compat)";
    SEC016: Sec, Spec, "05-security.md", Error/Off, Implemented, "Forbidden `setInterval` (not reported under compat)";
    SEC017: Sec, Spec, "09-validation-rules.md", Error/Error, Implemented, "An export contains a value that does not survive a JSON round trip";
    /// SEC018: A shared list that contains a forbidden pattern, as chapter 09 summarises the check.
    ///
    /// # Why
    ///
    /// The security chapter splits the shared-list scan into SEC200–SEC204, which say precisely
    /// what was found: a function, an arrow function, `async` or `await`, a template expression, or
    /// a pattern forbidden in schemas. Those codes are reported instead of this summary code.
    SEC018: Sec, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SEC200–SEC204 report the check"), "Shared list contains a forbidden pattern (SEC200–SEC204 are emitted instead)";
    /// SEC019: A shared list that contains executable code, as chapter 09 summarises the check.
    ///
    /// # Why
    ///
    /// The security chapter splits the shared-list scan into SEC200–SEC204, which say precisely
    /// what was found: a function, an arrow function, `async` or `await`, a template expression, or
    /// a pattern forbidden in schemas. Those codes are reported instead of this summary code.
    SEC019: Sec, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SEC200–SEC204 report the check"), "Shared list contains executable code (SEC200–SEC204 are emitted instead)";
    SEC020: Sec, Spec, "05-security.md", Error/Warning, Implemented, "`requiredLibraries` entry is not on the allowlist";
    SEC021: Sec, Extension, "flowmcp-rs", Error/Error, Implemented, "A resource's file path (`path`, `database`) must stay inside its folder";
    SEC022: Sec, Extension, "flowmcp-rs", Error/Error, Implemented, "`main.auth` (this project's extension) must have a known `kind` and that kind's fields";
    SEC023: Sec, Extension, "flowmcp-rs", Error/Error, Implemented, "A secret of `main.auth` must be one `{{SERVER_PARAM:KEY}}` placeholder whose key `requiredServerParams` declares";
    SEC024: Sec, Extension, "flowmcp-rs", Error/Error, Implemented, "`main.auth.tokenUrl` must be an https:// URL without credentials or fragment";
    /// SEC100: A handler called `fetch` where no network is allowed: any handler under `spec`, and
    /// `preRequest`/`postRequest` under `compat` (there `executeRequest` may fetch, through the
    /// runtime's own HTTP client). Reported at call time inside an E005 message.
    ///
    /// # Why
    ///
    /// Handlers run untrusted schema code. All network traffic goes through the runtime, which
    /// enforces HTTPS, timeouts and size caps and keeps secrets out of JavaScript.
    SEC100: Sec, Spec, "05-security.md", Error/Error, Implemented, "Handler called `fetch()` at run time (compat: allowed in `executeRequest`)";
    /// SEC101: A handler returned something other than the shape its phase requires: `preRequest` →
    /// `{ struct, payload }` (both objects), `executeRequest` and `postRequest` → `{ response }`;
    /// under `spec` a missing or an unknown key fails the call too. Under `compat` only a result
    /// that is not an object (or a `preRequest` `struct` that is not one) fails; a missing key is
    /// read as the JavaScript reference reads it (nothing changes), and a `postRequest` without
    /// `response` passes the data on unchanged with a warning in the envelope. Reported at call
    /// time inside an E005 message.
    ///
    /// # Why
    ///
    /// A wrong shape would otherwise become `undefined` data or a broken request; failing with a
    /// named rule tells the schema author what to return.
    SEC101: Sec, Spec, "05-security.md", Error/Error, Implemented, "Handler returned an invalid shape";
    /// SEC102: A handler (or the `handlers` factory) tried to change `sharedLists`, which is
    /// deep-frozen: assigning, adding or deleting a property. Reported at call time inside an E005
    /// message.
    ///
    /// # Why
    ///
    /// Shared lists are shared by every schema that references them; one schema changing them would
    /// change the behaviour of others.
    SEC102: Sec, Spec, "05-security.md", Error/Error, Implemented, "Handler tried to mutate the frozen `sharedLists`";
    /// SEC103: A tool with handlers belongs to a schema whose `requiredLibraries` cannot be loaded.
    /// Loading npm packages into the sandbox is not supported yet, so the call fails with E005
    /// naming the libraries; tools of the schema without handlers still run.
    ///
    /// # Why
    ///
    /// The handler would fail anyway when it reaches for the library; failing up front names the
    /// real cause.
    SEC103: Sec, Spec, "05-security.md", Error/Error, Implemented, "An approved library failed to load";
    /// SEC104: The `handlers({ sharedLists, libraries })` factory threw, or returned something
    /// other than a plain object, when the runtime built it (on the schema's first handler call).
    /// Calls of the schema's handler tools fail with E005.
    ///
    /// # Why
    ///
    /// Without a factory result there are no handlers to run; the error says why instead of
    /// silently calling the tool without its transformation.
    SEC104: Sec, Spec, "05-security.md", Error/Error, Implemented, "The `handlers()` factory threw during initialisation";
    SEC200: Sec, Spec, "05-security.md", Error/Error, Implemented, "Function definition in a shared list";
    SEC201: Sec, Spec, "05-security.md", Error/Error, Implemented, "Arrow function in a shared list";
    SEC202: Sec, Spec, "05-security.md", Error/Error, Implemented, "async/await in a shared list";
    SEC203: Sec, Spec, "05-security.md", Error/Error, Implemented, "Template literal with an expression in a shared list";
    SEC204: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden pattern (as SEC001–SEC016) in a shared list";
    LST001: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "List file must export `list` as a named export";
    LST002: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "`list.meta.name` is required and must be unique";
    LST003: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "`list.meta.version` is required and must be semver";
    LST004: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "`list.meta.fields` is required and must be a non-empty array";
    LST005: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "Each field needs `key`, `type` and `description`";
    LST006: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "`list.entries` is required and must be a non-empty array";
    LST007: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "Each entry must have every required field";
    LST008: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "Entry field values must match the `meta.fields` types";
    LST009: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "`dependsOn` must name existing lists";
    LST010: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "Circular list dependencies are forbidden";
    LST011: Lst, Spec, "09-validation-rules.md", Error/Error, Implemented, "List dependency depth is at most 3";
    RES001: Res, Spec, "13-resources.md", Error/Error, Implemented, "`source` must be sqlite, sqlite-gtfs, markdown or http";
    RES002: Res, Spec, "13-resources.md", Error/Error, Implemented, "Resource `description` must be a non-empty string";
    RES003: Res, Spec, "09-validation-rules.md", Error/Error, Implemented, "Resource `name` must end in .db";
    RES004: Res, Spec, "09-validation-rules.md", Error/Error, Implemented, "Resource `name` must not contain a path separator or `..`";
    RES005: Res, Spec, "13-resources.md", Error/Error, Implemented, "At most 2 resources per schema";
    /// RES006: A resource with more than 4 queries, as chapter 09 states the limit.
    ///
    /// # Why
    ///
    /// The resources chapter sets the limit at 7 schema-defined queries per resource, `runSql` and
    /// `describeTables` not counted (RES028). The two limits contradict each other; the resources
    /// chapter's applies, so this code is never reported.
    RES006: Res, Spec, "09-validation-rules.md", Off/Off, NotEmitted("RES028's limit of 7 applies"), "At most 4 queries per resource (RES028's limit of 7 applies)";
    RES007: Res, Spec, "13-resources.md", Error/Error, Implemented, "Each query must have `sql` (string)";
    RES008: Res, Spec, "13-resources.md", Error/Error, Implemented, "Each query must have `description` (string)";
    RES009: Res, Spec, "13-resources.md", Error/Error, Implemented, "Each query must have a `parameters` array";
    RES010: Res, Spec, "13-resources.md", Error/Error, Implemented, "Each query must have `output` with `mimeType` and `schema`";
    RES011: Res, Spec, "13-resources.md", Error/Error, Implemented, "A query has no tests at all (fewer than 3 is TST001)";
    /// RES012: The SQL of a resource query that does not begin with `SELECT`, as chapter 09 states
    /// the rule.
    ///
    /// # Why
    ///
    /// The resources chapter requires in-memory and http SQL to start with `SELECT` or `WITH`
    /// (RES029), which also admits read-only queries with common table expressions. RES029 applies
    /// instead of this stricter, contradicting rule.
    RES012: Res, Spec, "09-validation-rules.md", Off/Off, NotEmitted("RES029 reports the check"), "SQL must begin with SELECT (RES029 applies instead)";
    RES013: Res, Spec, "09-validation-rules.md", Error/Error, Implemented, "SQL must not use ATTACH or LOAD_EXTENSION";
    RES014: Res, Spec, "13-resources.md", Error/Error, Implemented, "Parameter count must equal the number of `?` placeholders";
    RES015: Res, Spec, "13-resources.md", Error/Error, Implemented, "Resource parameters must not have `position.location`";
    RES016: Res, Spec, "13-resources.md", Error/Error, Implemented, "Resource parameters must not use server-param placeholders";
    RES017: Res, Spec, "13-resources.md", Error/Error, Implemented, "Resource name must match ^[a-z][a-zA-Z0-9]*$";
    RES018: Res, Spec, "13-resources.md", Error/Error, Implemented, "Query name must match ^[a-z][a-zA-Z0-9]*$";
    RES019: Res, Spec, "13-resources.md", Error/Error, Implemented, "Resource parameter primitives must be scalar (string, number, boolean, enum)";
    RES020: Res, Spec, "13-resources.md", Warning/Warning, Implemented, "Inline in-memory sqlite database does not exist beside the schema at validation time";
    RES021: Res, Spec, "13-resources.md", Error/Error, Implemented, "Query `output.schema.type` must be array";
    RES022: Res, Spec, "13-resources.md", Error/Error, Implemented, "Query test values must pass `z` validation";
    RES023: Res, Spec, "13-resources.md", Error/Error, Implemented, "Query tests must be JSON-serializable";
    RES024: Res, Spec, "13-resources.md", Error/Error, Implemented, "http resource needs an HTTPS `url`", [
        "local-path" => Error/Off: "http resource with a `path` but no `url` (compat accepts a local file)",
    ];
    RES025: Res, Spec, "13-resources.md", Error/Error, Implemented, "sqlite resource needs `mode`: in-memory or file-based";
    RES026: Res, Spec, "13-resources.md", Error/Error, Implemented, "`origin` is required: global, project or inline";
    RES027: Res, Spec, "13-resources.md", Error/Error, Implemented, "`name` is required, non-empty, with the right extension (.db or .md)";
    RES028: Res, Spec, "13-resources.md", Error/Error, Implemented, "At most 7 schema-defined queries per resource; runSql/describeTables not counted";
    RES029: Res, Spec, "13-resources.md", Error/Error, Implemented, "in-memory and http SQL must start with SELECT or WITH";
    RES030: Res, Spec, "13-resources.md", Error/Error, Implemented, "sqlite-gtfs requires `mode: 'file-based'`";
    RES031: Res, Spec, "13-resources.md", Error/Error, Implemented, "sqlite-gtfs requires `addon`";
    RES032: Res, Spec, "13-resources.md", Error/Error, Implemented, "sqlite-gtfs database lacks the seal: `meta.qualitySeal = 'sqlite-gtfs'` and the ten required meta keys";
    RES033: Res, Spec, "13-resources.md", Error/Error, Implemented, "sqlite-gtfs database at `path` cannot be opened (missing, not a database, corrupt)";
    RES034: Res, Spec, "13-resources.md", Warning/Warning, Implemented, "sqlite-gtfs `meta.specRevision` is not a supported revision date (YYYY-MM-DD)";
    RES035: Res, Spec, "13-resources.md", Error/Error, Implemented, "Path variable in a sqlite-gtfs `path` cannot be resolved (unknown, or no env var and no home)";
    /// RES036: An http resource without `path`.
    ///
    /// # Why
    ///
    /// The resources chapter also makes `url` the required field of an http resource (RES024) and
    /// `path` optional. A rule requiring `path` contradicts that, so this code is never reported.
    RES036: Res, Spec, "13-resources.md", Off/Off, NotEmitted("`path` is optional for http resources"), "http resource needs `path` (`path` is optional, `url` required)";
    RES037: Res, Spec, "13-resources.md", Error/Error, Implemented, "file-based mode requires `origin: 'project'`";
    RES038: Res, Spec, "13-resources.md", Error/Error, Implemented, "markdown resource must not have `mode`";
    RES039: Res, Spec, "13-resources.md", Error/Error, Implemented, "markdown resource must not have `queries`";
    RES040: Res, Spec, "13-resources.md", Warning/Warning, Implemented, "sqlite resource with `origin: 'inline'` is not recommended";
    RES041: Res, Spec, "13-resources.md", Error/Error, Implemented, "A field required for this resource source is missing";
    RES042: Res, Spec, "13-resources.md", Info/Info, Implemented, "file-based sqlite resource may define a `getSchema` query";
    SKL001: Skl, Spec, "14-skills.md", Error/Error, Implemented, "Skill file must export `skill` as a named export";
    SKL002: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.name` must match ^[a-z][a-z0-9-]{0,63}$";
    SKL003: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.name` must equal its registration key or file basename";
    SKL004: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.version` must be flowmcp/4.0.0", [
        "deprecated-version" => Warning/Warning: "`flowmcp-skill/1.0.0` is accepted with a deprecation warning",
    ];
    SKL005: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`requires.tools` entry is not a known tool";
    SKL006: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`requires.resources` entry is not a known resource";
    SKL007: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.description` is required, at most 1024 characters";
    SKL008: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`{{input:key}}` in content has no matching `input` entry";
    SKL009: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`input[].values` is required for enum inputs and forbidden otherwise";
    SKL010: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.content` is required and must be a non-empty string";
    SKL011: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`skill.output` is required and must be a non-empty string";
    SKL012: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`input[].key` must match ^[a-z][a-zA-Z0-9]*$";
    SKL013: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`input[].type` must be string, number, boolean or enum";
    SKL014: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`input[].description` must be a non-empty string";
    SKL015: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`input[].required` must be a boolean";
    SKL016: Skl, Spec, "14-skills.md", Error/Error, Implemented, "Skill registration `file` must end in .mjs";
    SKL017: Skl, Spec, "14-skills.md", Error/Error, Implemented, "Skill registration `file` must exist";
    SKL018: Skl, Spec, "14-skills.md", Error/Error, Implemented, "At most 4 skills per selection or agent";
    SKL020: Skl, Spec, "14-skills.md", Warning/Warning, Implemented, "`{{tool:x}}` in content is not listed in `requires.tools`";
    SKL021: Skl, Spec, "14-skills.md", Warning/Warning, Implemented, "`{{resource:x}}` in content is not listed in `requires.resources`";
    SKL022: Skl, Spec, "14-skills.md", Error/Error, Implemented, "`{{skill:x}}` names a skill not registered in scope";
    SKL023: Skl, Spec, "14-skills.md", Error/Error, Implemented, "A skill referenced via `{{skill:x}}` must not reference skills itself";
    SKL024: Skl, Spec, "14-skills.md", Warning/Warning, Implemented, "`requires.tools` entry is never referenced in content";
    SKL025: Skl, Spec, "14-skills.md", Warning/Warning, Implemented, "`requires.resources` entry is never referenced in content";
    /// DEP001: A `requires.tools` entry of a skill that names no known tool, as chapter 09 numbers
    /// the check.
    ///
    /// # Why
    ///
    /// The skills chapter defines the same check as SKL005. One finding gets one code, so it is
    /// reported as SKL005 only.
    DEP001: Dep, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SKL005 reports the check"), "Duplicate of SKL005 (not emitted)";
    /// DEP002: A `requires.resources` entry of a skill that names no known resource, as chapter 09
    /// numbers the check.
    ///
    /// # Why
    ///
    /// The skills chapter defines the same check as SKL006. One finding gets one code, so it is
    /// reported as SKL006 only.
    DEP002: Dep, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SKL006 reports the check"), "Duplicate of SKL006 (not emitted)";
    /// DEP003: A `{{tool:x}}` placeholder in skill content whose tool is not listed in
    /// `requires.tools`, as chapter 09 numbers the check.
    ///
    /// # Why
    ///
    /// The skills chapter defines the same check as SKL020. One finding gets one code, so it is
    /// reported as SKL020 only.
    DEP003: Dep, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SKL020 reports the check"), "Duplicate of SKL020 (not emitted)";
    /// DEP004: A `{{resource:x}}` placeholder in skill content whose resource is not listed in
    /// `requires.resources`, as chapter 09 numbers the check.
    ///
    /// # Why
    ///
    /// The skills chapter defines the same check as SKL021. One finding gets one code, so it is
    /// reported as SKL021 only.
    DEP004: Dep, Spec, "09-validation-rules.md", Off/Off, NotEmitted("SKL021 reports the check"), "Duplicate of SKL021 (not emitted)";
    PRM001: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Prompt `name` must match ^[a-z][a-z0-9-]*$";
    PRM002: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Prompt `version` must be flowmcp-prompt/1.0.0";
    PRM003: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Exactly one of `namespace` or `agent` must be set";
    PRM004: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "`testedWith` is required for agent prompts, forbidden for provider prompts";
    PRM005: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "`testedWith` must contain /";
    PRM006: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Each `dependsOn` entry must resolve to an existing tool";
    PRM007: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Each `references[]` entry must resolve to an existing prompt";
    PRM008: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "A referenced prompt must not have references itself";
    PRM009: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "tool/resource/prompt placeholders in content must resolve";
    PRM010: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Agent prompts need non-empty `content`; provider prompts must not have it";
    PRM011: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Provider prompts need a relative .mjs `contentFile`; agent prompts must not";
    PRM012: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "Content file must `export const content`";
    PRM013: Prm, Spec, "12-prompt-architecture.md", Error/Error, Implemented, "`references` is required and must be an array";
    AGT001: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `name` must match ^[a-z][a-z0-9-]*$ and equal the directory name";
    AGT002: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `description` must be a non-empty string";
    AGT003: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `model` is required and must contain /";
    AGT004: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `version` must be flowmcp/4.0.0", [
        "v3" => Warning/Warning: "`flowmcp/3.0.0` is accepted with a deprecation warning",
    ];
    AGT005: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `systemPrompt` must be a non-empty string";
    AGT006: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `tools` must be a non-empty object";
    AGT007: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Slash tool key must be a valid ns/type/name ID that resolves";
    AGT008: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent needs at least 3 `tests`", [
        "few" => Error/Warning: "one or two tests (none, or no array, is an error in both profiles)",
    ];
    AGT009: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Each agent test needs `input` (string)";
    AGT010: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Each agent test needs a non-empty `expectedTools` array";
    AGT011: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Each `expectedTools` entry must be a valid ID";
    AGT012: Agt, Spec, "06-agents.md", Warning/Warning, Implemented, "Agent tests should cover different tool combinations";
    AGT013: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `prompts` must be an object: slash keys null, inline keys `{ file }`";
    AGT014: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `skills` must be an object of `{ file }` with no slash keys";
    AGT015: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent `resources` must be an object: slash keys null, inline keys resources";
    AGT016: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Referenced prompt and skill files must exist and end in .mjs";
    AGT017: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent prompt files must export `prompt` (object) or `content` (string)";
    AGT018: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Agent skill files must export `skill`";
    AGT019: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Inline tool needs a definition with `method`, `path`, `description`";
    AGT020: Agt, Spec, "06-agents.md", Error/Error, Implemented, "A slash key must have the value null";
    AGT030: Agt, Spec, "06-agents.md", Error/Error, Implemented, "Every `agent.selections` ID must resolve to a selection";
    AGT031: Agt, Spec, "06-agents.md", Error/Error, Implemented, "`elicitation.maxRounds` must be a positive integer";
    SEL001: Sel, Spec, "17-selections.md", Error/Error, Implemented, "Selection `whenToUse` must be a non-empty string";
    SEL002: Sel, Spec, "17-selections.md", Error/Error, Implemented, "Selection must include at least one primitive";
    SEL003: Sel, Spec, "17-selections.md", Error/Error, Implemented, "Every referenced primitive ID must resolve in the catalog";
    SEL004: Sel, Spec, "17-selections.md", Info/Info, Implemented, "Inline skills were validated with the skill rules";
    CAT001: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "`registry.json` must exist in the catalog root";
    CAT002: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "Registry `name` must equal the catalog directory name";
    CAT003: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "Every `shared[].file` must exist";
    CAT004: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "Every `schemas[].file` must exist";
    CAT005: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "Every `agents[].manifest` must exist";
    CAT006: Cat, Spec, "15-catalog.md", Warning/Warning, Implemented, "File in the catalog is not listed in `registry.json`";
    CAT007: Cat, Spec, "15-catalog.md", Error/Error, Implemented, "`schemaSpec` must be a concrete FlowMCP spec version";
    CAT008: Cat, Extension, "flowmcp-rs", Error/Error, Implemented, "registry.json `contentHash` does not match the recomputed hash";
    CAT009: Cat, Extension, "flowmcp-rs", Info/Info, Implemented, "Other files refer to what a file that cannot be loaded would define (their findings about it are left out)";
    CAT010: Cat, Extension, "flowmcp-rs", Info/Info, Implemented, "Checks across files were not run: the file was validated alone, outside a catalog";
    ID001: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "Wrong segment count: Primitive-ID needs 3, Schema-File-ID 2";
    ID002: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "ID namespace must match ^[a-z][a-z0-9-]*$";
    ID003: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "ID type must be tool, resource, prompt, list, skill, selection or agent";
    ID004: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "ID name must not be empty";
    ID005: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "Short-form IDs are not supported";
    ID006: Id, Spec, "16-id-schema.md", Error/Error, Implemented, "Full-form IDs are required everywhere";
    PH001: Ph, Spec, "02-parameters.md", Error/Error, Implemented, "Placeholder `{{type:ref}}` must not have an empty ref";
    PH002: Ph, Spec, "02-parameters.md", Error/Error, Implemented, "Placeholder reference must resolve: bare name in scope, slash name in catalog";
    PH003: Ph, Spec, "02-parameters.md", Error/Error, Implemented, "`{{input:key}}` key must match ^[a-z][a-zA-Z0-9]*$ and be declared";
    PH004: Ph, Spec, "02-parameters.md", Error/Error, Implemented, "Prompt placeholders are only allowed in prompt/skill content, not in `main`";
    TST001: Tst, Spec, "10-tests.md", Error/Warning, Implemented, "At least 3 tests per tool, resource query and agent", [
        "none" => Error/Error: "no tests at all",
    ];
    TST002: Tst, Spec, "10-tests.md", Error/Error, Implemented, "Each test needs a `_description` string";
    TST003: Tst, Spec, "10-tests.md", Error/Warning, Implemented, "Each test must give every required user parameter";
    TST004: Tst, Spec, "10-tests.md", Error/Warning, Implemented, "Test parameter values must pass `z` validation";
    TST005: Tst, Spec, "10-tests.md", Error/Error, Implemented, "Tests must be JSON-serializable";
    TST006: Tst, Spec, "10-tests.md", Error/Warning, Implemented, "Test keys must be user-parameter keys or `_description`";
    TST007: Tst, Spec, "10-tests.md", Warning/Warning, Implemented, "Enum parameters should be tested with several values";
    TST008: Tst, Spec, "10-tests.md", Info/Info, Implemented, "Consider tests that use optional parameters";
    /// TST009: An agent test without an `input` string, as the tests chapter numbers the check.
    ///
    /// # Why
    ///
    /// The agents chapter defines the same check as AGT009. One finding gets one code, so it is
    /// reported as AGT009 only.
    TST009: Tst, Spec, "10-tests.md", Off/Off, NotEmitted("AGT009 reports the check"), "Duplicate of AGT009 (not emitted)";
    /// TST010: An agent test without a non-empty `expectedTools` array, as the tests chapter
    /// numbers the check.
    ///
    /// # Why
    ///
    /// The agents chapter defines the same check as AGT010. One finding gets one code, so it is
    /// reported as AGT010 only.
    TST010: Tst, Spec, "10-tests.md", Off/Off, NotEmitted("AGT010 reports the check"), "Duplicate of AGT010 (not emitted)";
    /// TST011: An `expectedTools` entry of an agent test that is not a valid ID, as the tests
    /// chapter numbers the check.
    ///
    /// # Why
    ///
    /// The agents chapter defines the same check as AGT011. One finding gets one code, so it is
    /// reported as AGT011 only.
    TST011: Tst, Spec, "10-tests.md", Off/Off, NotEmitted("AGT011 reports the check"), "Duplicate of AGT011 (not emitted)";
    /// TST012: Agent tests that do not cover different tool combinations, as the tests chapter
    /// numbers the check.
    ///
    /// # Why
    ///
    /// The agents chapter defines the same check as AGT012. One finding gets one code, so it is
    /// reported as AGT012 only.
    TST012: Tst, Spec, "10-tests.md", Off/Off, NotEmitted("AGT012 reports the check"), "Duplicate of AGT012 (not emitted)";
    TST013: Tst, Spec, "10-tests.md", Info/Info, Implemented, "Consider adding `expectedContent` assertions to agent tests";
    PRE001: Pre, Extension, "11-preload.md", Error/Error, Implemented, "`preload` must be a plain object (chapter 11's VAL060)";
    PRE002: Pre, Extension, "11-preload.md", Error/Error, Implemented, "`preload.enabled` must be a boolean (chapter 11's VAL061)";
    PRE003: Pre, Extension, "11-preload.md", Error/Error, Implemented, "`preload.ttl` must be a positive integer (chapter 11's VAL062)";
    PRE004: Pre, Extension, "11-preload.md", Warning/Warning, Implemented, "`preload.description` must be a string (chapter 11's VAL063)";
    PRE005: Pre, Extension, "11-preload.md", Info/Info, Implemented, "Preloaded tool without parameters is an ideal cache candidate (chapter 11's VAL064)";
    PRE006: Pre, Extension, "11-preload.md", Warning/Warning, Implemented, "Preloaded tool with required parameters should document caching (chapter 11's VAL065)";
    LDR001: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "File is not valid UTF-8";
    LDR002: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "File is larger than the configured cap";
    LDR003: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "JavaScript syntax error";
    LDR004: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "Module threw while evaluating";
    LDR005: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "Evaluation passed its time limit";
    LDR006: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "Evaluation passed its memory or stack limit";
    LDR007: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "Top-level await that never settles";
    LDR008: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "No recognised export";
    LDR009: Ldr, Extension, "flowmcp-rs", Error/Error, Implemented, "Not evaluated: this build has no JavaScript engine";
    /// E001: The upstream API answered with a non-2xx status: `E001 <tool>: API returned <status>`.
    ///
    /// # Why
    ///
    /// The output-schema chapter defines this message; the status tells the caller whether to
    /// retry, fix the input or give up.
    E001: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Upstream returned a non-success status";
    /// E002: The request failed on the network: DNS, connection, TLS, protocol, or more redirects
    /// than allowed. The message names the URL without its query string.
    ///
    /// # Why
    ///
    /// Callers need to tell a broken upstream from a wrong input; query strings may carry keys, so
    /// they never appear in messages.
    E002: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Network failure reaching the upstream";
    /// E003: The request did not finish within the connect or total timeout.
    ///
    /// # Why
    ///
    /// A tool call must never hang an agent; the timeout is configurable (`--timeout-ms`).
    E003: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Upstream request timed out";
    /// E004: The response body cannot be decoded: invalid JSON for `application/json`, invalid
    /// UTF-8 for text, or broken compression. The message never quotes the body.
    ///
    /// # Why
    ///
    /// Handing half-parsed data to an agent is worse than a clear failure.
    E004: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Upstream response body is invalid (e.g. not JSON)";
    /// E005: A handler failed: it threw, passed its CPU-time or memory limit, returned a promise
    /// that never settles, or broke one of SEC100–SEC104 (named in the message).
    ///
    /// # Why
    ///
    /// Handler code is untrusted; its failures are contained in the sandbox and reported with the
    /// phase (`preRequest`, `executeRequest`, `postRequest`) that failed.
    E005: E, Extension, "flowmcp-rs", Error/Error, Implemented, "A handler failed";
    /// E006: A server parameter the tool needs has no value in the environment, the env file or the
    /// configuration. The message names the variables, never values; such tools are also hidden
    /// from `flowmcp list`.
    ///
    /// # Why
    ///
    /// Sending a request with an empty key only produces a confusing upstream error (the
    /// reference's behaviour); naming the variable tells the user what to set.
    E006: E, Extension, "flowmcp-rs", Error/Error, Implemented, "A required server parameter is missing";
    /// E007: The call's inputs do not satisfy the tool's parameters (type, enum, bounds, unknown or
    /// missing keys), or the tool does not exist. Checked before any network traffic.
    ///
    /// # Why
    ///
    /// Invalid input never reaches the upstream; every problem is listed at once.
    E007: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Tool input failed validation";
    /// E008: The response body is larger than the configured cap.
    ///
    /// # Why
    ///
    /// An unbounded body could exhaust memory; the cap protects the runtime and the agent.
    E008: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Upstream response is too large";
    /// E009: The request was refused before it was sent: the URL is not HTTPS (plain http only to
    /// loopback hosts with `--upstream`); a redirect leaves HTTPS, or would send a body carrying a
    /// secret to another origin; the URL (after a `preRequest` handler, or built from user input)
    /// leaves the schema's origin — its `root`, or the `--upstream` that replaces it; a compat
    /// `fetch` to another origin carries a server parameter; or a compat `fetch` to another origin
    /// names a loopback, private or otherwise non-public address that is not an `--upstream`.
    ///
    /// # Why
    ///
    /// Server parameters must go only where the schema's own request goes, and never in clear text:
    /// a handler, a user input or a redirect must not be able to move an API key to another host,
    /// and handler code must not reach the user's internal network.
    E009: E, Extension, "flowmcp-rs", Error/Error, Implemented, "Request refused: not HTTPS, a non-public address, a redirect that leaves HTTPS, or a request that leaves the schema's origin or would carry a secret elsewhere";
    /// MD001: A markdown resource's document is larger than the size limit, so it is not read.
    /// Reported when the resource is called, for example `MD001 guide: docs/guide.md: the
    /// document is larger than the limit of 10485760 bytes (12000000 bytes)`.
    ///
    /// # Why
    ///
    /// A document is read whole before a section, a line range or a search is cut from it; a cap
    /// keeps one oversized file from exhausting memory. Split the document or make it smaller.
    MD001: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown document is larger than the size limit";
    /// MD002: A markdown resource's document cannot be read: it is missing, is not a regular
    /// file, or the operating system refused to open it. The message names the file and the
    /// system's reason, for example `MD002 guide: docs/guide.md: cannot read the document: No
    /// such file or directory (os error 2)`.
    ///
    /// # Why
    ///
    /// The resource promises a document; saying which file failed and why points at the fix
    /// (restore the file, correct the resource's path or its permissions).
    MD002: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown document cannot be read";
    /// MD003: A markdown resource's document is not valid UTF-8; the message gives the offset of
    /// the first byte that is not, for example `MD003 guide: docs/guide.md: the document is not
    /// valid UTF-8 (at byte 812)`.
    ///
    /// # Why
    ///
    /// Markdown is served as text to agents; guessing an encoding could change what the document
    /// says. Save the file as UTF-8.
    MD003: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown document is not valid UTF-8";
    /// MD004: The requested `section` names no heading of the document. The message lists
    /// headings with the same text at another level and the first headings of the document, for
    /// example ``MD004 guide: no section `Setup`; did you mean `## Setup`?``.
    ///
    /// # Why
    ///
    /// The caller asked for a part that does not exist; listing the headings that do lets the
    /// caller (often an agent) correct the request instead of guessing. It is the caller's error,
    /// so an MCP client gets an invalid-arguments answer.
    MD004: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Requested markdown section does not exist";
    /// MD005: The `lines` argument is not a line range this reader understands (`n`, `from-to` or
    /// `from-`, counted from 1), or it is reversed, for example ``MD005 guide: lines `9-3`: the
    /// first line is after the last``.
    ///
    /// # Why
    ///
    /// A range that cannot be read is refused rather than guessed at, so that the caller never
    /// gets different lines than it asked for. Write the range as `from-to` with `from` ≤ `to`.
    MD005: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown line range is malformed";
    /// MD006: The `lines` argument reaches beyond the last line of the document (an empty
    /// document has no lines to give), for example `MD006 guide: lines 500-510: the document has
    /// 120 lines`.
    ///
    /// # Why
    ///
    /// An empty answer would look like an empty part of the document; naming the document's
    /// length tells the caller which ranges exist.
    MD006: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown line range is beyond the document";
    /// MD007: An access argument of a markdown resource is missing, empty, of the wrong type or
    /// unknown, or more than one of `section`, `lines` and `search` is given. The message names the
    /// argument and what is wrong with it, for example `MD007 guide: search: must not be
    /// empty`.
    ///
    /// # Why
    ///
    /// A document is read whole, by one section, by one line range or by one search; a request
    /// that mixes them, or that names something else, has no single meaning, so it is refused
    /// before the document is read.
    MD007: Md, Extension, "flowmcp-rs", Error/Error, Implemented, "Markdown access arguments are invalid";
    /// AGENT001: The agent cannot be activated: the catalog has no agent of that name, its
    /// manifest has errors, a tool, prompt, resource or selection it names is not there, or a
    /// server parameter of a schema it uses has no value. The message says which, for example
    /// `AGENT001 no agent "planner" in the catalog (it has trip-helper)`. Reported before the
    /// model is asked anything.
    ///
    /// # Why
    ///
    /// An agent runs only with the tools its manifest names; if they are not all there, its
    /// answers could not be trusted, so the run does not start. Check the agent's name and its
    /// manifest's references, and validate the catalog.
    AGENT001: Agent, Extension, "flowmcp-rs", Error/Error, Implemented, "Agent cannot be activated";
    /// AGENT002: The agent's manifest lacks something a run needs, such as its `model` or its
    /// `systemPrompt`, for example ``AGENT002 agent "planner" has no `model` ``.
    ///
    /// # Why
    ///
    /// The runner does not pick a model or a system prompt on the agent's behalf; add the missing
    /// field to the agent's manifest.
    AGENT002: Agent, Extension, "flowmcp-rs", Error/Error, Implemented, "Agent manifest lacks what a run needs";
    /// AGENT003: The model endpoint could not be reached, timed out, or answered with an HTTP
    /// error. The message gives the URL and the status or the network error, with the model key
    /// hidden.
    ///
    /// # Why
    ///
    /// Without the model there is no run; separating this from a bad reply tells the user to
    /// check the endpoint's address, the key and the network rather than the agent.
    AGENT003: Agent, Extension, "flowmcp-rs", Error/Error, Implemented, "Model endpoint unreachable or answered with an error";
    /// AGENT004: The model's reply is not a chat completion the runner can read: not JSON, no
    /// `choices[0].message`, a tool call without a name or with arguments that are not a JSON
    /// object, a final message without text, or (when grading) an answer that is not the JSON
    /// the grading instructions ask for, for example ``AGENT004 the reply has no
    /// `choices[0].message` ``.
    ///
    /// # Why
    ///
    /// The runner acts on the reply (it calls the tools the model asks for), so a reply it
    /// cannot read exactly is refused rather than guessed at. Usually the model or the endpoint
    /// does not support OpenAI-style tool calls; choose another model.
    AGENT004: Agent, Extension, "flowmcp-rs", Error/Error, Implemented, "Model reply cannot be read";
    /// AGENT005: The model still asked for tools after the agent's `maxRounds` rounds of tool
    /// calls, so the run stopped without an answer: `AGENT005 the model still asked for tools
    /// after 10 rounds (maxRounds)`.
    ///
    /// # Why
    ///
    /// A bound on rounds keeps a looping model from calling tools (and spending money) forever.
    /// Raise `maxRounds` in the agent's manifest if the task really needs more, or make the
    /// system prompt more direct.
    AGENT005: Agent, Extension, "flowmcp-rs", Error/Error, Implemented, "Agent still asked for tools after maxRounds rounds";
}
