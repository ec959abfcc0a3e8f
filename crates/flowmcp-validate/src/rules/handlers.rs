//! Rules on the `handlers` export: VAL004, VAL005.

use flowmcp_loader::HandlersExport;
use flowmcp_spec::{Code, Collector, JsonPath};

use super::{SchemaCtx, SchemaRule};

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::VAL004],
        check: val004_handlers_function,
    },
    SchemaRule {
        codes: &[Code::VAL005],
        check: val005_handler_keys,
    },
];

/// VAL004: `handlers`, when exported, is a function.
pub fn val004_handlers_function(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    if let HandlersExport::NotFunction(t) = &ctx.exports.handlers {
        c.emit_help(
            Code::VAL004,
            Some(&JsonPath::root("handlers")),
            format!("Must be a function (found {t})"),
            Some("export a factory: `export const handlers = ( { sharedLists, libraries } ) => ( { toolName: { postRequest } } )`".into()),
        );
    }
}

/// VAL005: the object the factory returns has only keys that name tools. (A factory that throws is
/// a runtime failure, SEC104, reported when the handlers are used.)
pub fn val005_handler_keys(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let HandlersExport::Function { shape: Ok(entries) } = &ctx.exports.handlers else {
        return;
    };
    let tools = ctx.tools().map(|(_, t)| t);
    for (name, _) in entries {
        let known = tools.is_some_and(|t| t.contains_key(name));
        if !known {
            c.emit(
                Code::VAL005,
                Some(&JsonPath::root("handlers").key(name)),
                format!("Handler \"{name}\" does not match any tool in main.tools"),
            );
        }
    }
}
