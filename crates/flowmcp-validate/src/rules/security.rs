//! Security rules evaluated on `main`: SEC020 (the static scan and SEC017 run in the loader).

use flowmcp_spec::{Code, diagnostic::Collector};
use serde_json::Value;

use super::{SchemaCtx, SchemaRule, main_path};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[SchemaRule {
    codes: &[Code::SEC020],
    check: sec020_library_allowlist,
}];

/// SEC020: An entry of `main.requiredLibraries` that is neither on the default allowlist (`ethers`,
/// `moment`, `indicatorts`, `@erc725/erc725.js`, `ccxt`, `axios`) nor in
/// `security.allowedLibraries` of `.flowmcp/config.json`. A warning under `compat`, where the
/// library must still be installed to run.
///
/// # Why
///
/// Libraries run inside handlers with the full power of JavaScript. The allowlist makes the code a
/// schema can pull in explicit, reviewable and closed by default.
pub(super) fn sec020_library_allowlist(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(Value::Array(libs)) = ctx.main().and_then(|m| m.get("requiredLibraries")) else {
        return;
    };
    for (i, lib) in libs.iter().enumerate() {
        let Some(name) = lib.as_str() else { continue };
        if !ctx.opts.library_allowed(name) {
            c.emit_help(
                Code::SEC020,
                Some(&main_path("requiredLibraries").index(i)),
                format!("Library \"{name}\" is not on the allowlist"),
                Some(format!(
                    "allowed by default: {}; add more under security.allowedLibraries in .flowmcp/config.json",
                    crate::DEFAULT_ALLOWLIST.join(", ")
                )),
            );
        }
    }
}
