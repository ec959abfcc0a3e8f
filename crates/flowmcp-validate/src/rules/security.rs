//! Security rules evaluated on `main`: SEC020, and SEC022–SEC024 on `main.auth` (the static scan
//! and SEC017 run in the loader).

use flowmcp_spec::{Code, diagnostic::Collector};
use serde_json::Value;

use super::{SchemaCtx, SchemaRule, main_path};

/// The rules of this module, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::SEC020],
        check: sec020_library_allowlist,
    },
    SchemaRule {
        codes: &[Code::SEC022, Code::SEC023, Code::SEC024],
        check: sec022_to_sec024_auth,
    },
];

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
    let Some(Value::Array(libs)) = ctx.main_field("requiredLibraries") else {
        return;
    };
    for (i, lib) in libs.iter().enumerate() {
        let Some(name) = lib.as_str() else { continue };
        if !ctx.options().library_allowed(name) {
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

/// SEC022–SEC024 on `main.auth`, read by the one reader the runtime uses too
/// ([`flowmcp_spec::model::auth::parse`]).
///
/// SEC022: `main.auth`, this project's extension (`docs/decisions.md`, D138), is not an object,
/// has no `kind` or one that is not `signature`, `aws-sigv4`, `basic` or
/// `oauth2-client-credentials`, misses a field its kind needs (a signature's `digest`, `parts` and
/// `header`, an HMAC digest's `key`; `accessKey`, `secretKey`, `region` and `service`; `username`
/// and `password`; `tokenUrl`, `clientId` and `clientSecret`), has a field its kind does not
/// know, or a value that is not one of the listed words (`digest`: `sha1`, `sha256`,
/// `hmac-sha1`, `hmac-sha256`; `output`: `hex`, `base64`; a part: `time`, `method`, `path`,
/// `query`, `body` or a server parameter; `clientAuth`: `basic`, `post`). Reported under both
/// profiles: the extension adds to what a schema may say, and a declaration the runtime cannot
/// read would send unauthenticated requests.
///
/// # Why
///
/// The runtime signs or authenticates every request of the schema from this declaration after
/// the last handler has run. A misspelt field would silently send requests without the
/// signature or token the API needs, so a declaration that does not read makes the schema's
/// tools not callable.
///
/// SEC023: A field of `main.auth` that holds a secret (`key`, a server-parameter part,
/// `accessKey`, `secretKey`, `username`, `password`, `clientId`, `clientSecret`) is not exactly
/// one `{{SERVER_PARAM:KEY}}` placeholder, or names a key that `requiredServerParams` does not
/// declare; or a field sent as written (`prefix`, `region`, `service`, `tokenUrl`, `scope`) holds a
/// placeholder.
///
/// # Why
///
/// Secrets reach the runtime only as server parameters, and a schema gets only the ones it
/// declares (the same promise VAL083 keeps for the request). A secret written as text in the file
/// is no secret, and a placeholder in a plain field would never be filled.
///
/// SEC024: `main.auth.tokenUrl` is not an `https://` URL with a host, or carries user
/// information or a fragment.
///
/// # Why
///
/// The client secret (and the token that comes back) travel to the token URL: over plain HTTP
/// anyone on the path reads them. A token endpoint on the local machine is reached by
/// replacing the namespace's root with an upstream: a token URL of the root's origin follows it.
pub(super) fn sec022_to_sec024_auth(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(main) = ctx.main_view() else { return };
    let Some(auth) = main.field("auth").filter(|a| !a.is_null()) else {
        return;
    };
    let required: Vec<String> = match main.field("requiredServerParams") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if let Err(problems) = flowmcp_spec::model::auth::parse(auth, &main_path("auth"), &required) {
        for p in problems {
            c.emit(p.code, Some(&p.path), p.message);
        }
    }
}
