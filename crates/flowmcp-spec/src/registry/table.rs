//! The registry table. One line per code; see `declare_rules!` in `mod.rs` for the format:
//! `CODE: Family, Origin, "section", spec/compat, status, "summary" [, [ "variant" => spec/compat: "summary" ]];`

use super::Status::{Implemented, NotEmitted, Planned};
use super::declare_rules;

declare_rules! {
    VAL001: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "Schema must export `main` as a named export";
    VAL002: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`main` must be an object";
    VAL003: Val, Spec, "09-validation-rules.md", Error/Warning, Implemented, "`main`, tools and parameters must not contain unknown fields (N-19)";
    VAL004: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`handlers` (if exported) must be a function";
    VAL005: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "`handlers` must return an object whose keys name tools";
    VAL007: Val, Spec, "08-migration.md", Off/Off, NotEmitted("CC-02"), "Route count exceeds 8 (migration guide numbering; VAL031 is emitted)";
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
    VAL026: Val, Spec, "09-validation-rules.md", Off/Off, NotEmitted("CC-32"), "`requiredLibraries` entry not on the allowlist (SEC020 is emitted instead)";
    VAL030: Val, Spec, "09-validation-rules.md", Error/Warning, Implemented, "Tool name must match ^[a-z][a-zA-Z0-9]*$";
    VAL031: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "At most 8 tools per schema";
    VAL032: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.method` is required: GET, POST, PUT or DELETE";
    VAL033: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.path` is required: a string starting with /";
    VAL034: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.description` is required and must be a string";
    VAL035: Val, Spec, "09-validation-rules.md", Error/Error, Implemented, "`tool.parameters` is required and must be an array";
    VAL036: Val, Spec, "09-validation-rules.md", Warning/Warning, Implemented, "`tool.output` is recommended";
    VAL037: Val, Spec, "09-validation-rules.md", Info/Info, Implemented, "`tool.async` is reserved and not executed";
    VAL080: Val, Extension, "RULINGS.md", Error/Error, Implemented, "`root` must start with https://", [
        "handlers-only" => Error/Warning: "empty `root` while every tool has `executeRequest`",
    ];
    VAL081: Val, Extension, "RULINGS.md", Error/Error, Implemented, "`root` must not end with /";
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
    SEC020: Sec, Spec, "05-security.md", Error/Warning, Implemented, "`requiredLibraries` entry is not on the allowlist";
    SEC200: Sec, Spec, "05-security.md", Error/Error, Implemented, "Function definition in a shared list";
    SEC201: Sec, Spec, "05-security.md", Error/Error, Implemented, "Arrow function in a shared list";
    SEC202: Sec, Spec, "05-security.md", Error/Error, Implemented, "async/await in a shared list";
    SEC203: Sec, Spec, "05-security.md", Error/Error, Implemented, "Template literal with an expression in a shared list";
    SEC204: Sec, Spec, "05-security.md", Error/Error, Implemented, "Forbidden pattern (as SEC001–SEC016) in a shared list";
    LDR001: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "File is not valid UTF-8";
    LDR002: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "File is larger than the configured cap";
    LDR003: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "JavaScript syntax error";
    LDR004: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "Module threw while evaluating";
    LDR005: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "Evaluation passed its time limit";
    LDR006: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "Evaluation passed its memory or stack limit";
    LDR007: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "Top-level await that never settles";
    LDR008: Ldr, Extension, "RULINGS.md", Error/Error, Implemented, "No recognised export";
    TST001: Tst, Spec, "10-tests.md", Error/Warning, Planned(3), "At least 3 tests per tool, resource query and agent", [
        "none" => Error/Error: "no tests at all",
    ];
    E001: E, Extension, "RULINGS.md", Error/Error, Planned(5), "Upstream returned a non-success status";
}
