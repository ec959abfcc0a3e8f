//! Rules on the `handlers` export: VAL004, VAL005.

use flowmcp_loader::HandlersExport;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::Value;

use super::{SchemaCtx, SchemaRule};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL004],
        check: val004_handlers_function,
    },
    SchemaRule {
        codes: &[Code::VAL005],
        check: val005_handler_keys,
    },
];

/// VAL004: The module exports `handlers`, but it is not a function (for example a plain object of
/// hooks).
///
/// # Why
///
/// Handlers are a factory, `handlers( { sharedLists, libraries } )`, so that the runtime can inject
/// the frozen shared lists and the approved libraries. An object cannot receive them.
pub(super) fn val004_handlers_function(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if let HandlersExport::NotFunction(t) = ctx.handlers() {
        c.emit_help(
            Code::VAL004,
            Some(&JsonPath::root("handlers")),
            format!("Must be a function (found {t})"),
            Some("export a factory: `export const handlers = ( { sharedLists, libraries } ) => ( { toolName: { postRequest } } )`".into()),
        );
    }
}

/// VAL005: The `handlers` factory is called once in the sandbox and every key of the object it
/// returns that names no tool in `main.tools` is reported (a warning). If the factory throws, the
/// check is skipped; the runtime reports a throwing factory as SEC104 when the handlers are used.
///
/// # Why
///
/// A handler keyed by a misspelt or removed tool name is never called, so the transformation it
/// implements silently stops applying.
pub(super) fn val005_handler_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let HandlersExport::Function { shape: Ok(entries) } = ctx.handlers() else {
        return;
    };
    let tools = ctx.tools().map(|(_, t)| t);
    // Resource handlers are keyed by resource, then query (chapter 13).
    let resources = ctx.main_field("resources").and_then(Value::as_object);
    for (name, _) in entries {
        let known = tools.is_some_and(|t| t.contains_key(name))
            || resources.is_some_and(|r| r.contains_key(name));
        if !known {
            c.emit(
                Code::VAL005,
                Some(&JsonPath::root("handlers").key(name)),
                format!(
                    "Handler \"{name}\" does not match any tool in main.tools or resource in main.resources"
                ),
            );
        }
    }
}
