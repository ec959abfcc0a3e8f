//! The npm library directory handlers load `requiredLibraries` from (an npm prefix): which
//! libraries a catalog's schemas need, the state of each in the directory, and what may be handed
//! to `npm install`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flowmcp_loader::libs::{check_install_spec, is_builtin};
use serde_json::Value;

/// The library directory: an npm prefix whose `node_modules/` holds the packages
/// ([`RunnerOptions::libraries`](crate::runtime::RunnerOptions::libraries)).
pub use flowmcp_loader::libs::LibraryDir;

/// What is known of one required library in a library directory.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LibraryState {
    /// A Node built-in module (`fs`, `node:path`, …): the sandbox has none.
    Builtin,
    /// Not on the allowlist (SEC020 under the `spec` profile).
    NotAllowlisted,
    /// Installed, but a native addon the sandbox cannot run.
    Native {
        /// The package's folder.
        package: PathBuf,
    },
    /// Installed, and it loads in the sandbox as a handler would get it.
    Installed {
        /// The version its `package.json` declares, when it declares one.
        version: Option<String>,
    },
    /// Installed, but loading it in the sandbox fails.
    Fails {
        /// The version its `package.json` declares, when it declares one.
        version: Option<String>,
        /// The loader's reason.
        reason: String,
    },
    /// Not in the directory (or there is no directory).
    Missing,
}

/// Why a name may not be handed to `npm install`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InstallRefusal {
    /// A Node built-in module.
    #[error("{0} is a Node built-in module: there is nothing to install")]
    Builtin(String),
    /// Not a registry package name with an optional semver version, range or tag (an option, a
    /// URL, a path or a git source).
    #[error("{0}")]
    Spec(String),
}

/// Checks that `name` is what may be handed to `npm install`: not a Node built-in module, and a
/// registry package name (`left-pad`, `@scope/pkg`) with an optional `@` and a semver version,
/// range or dist-tag. Options, tarball URLs, `file:` paths, git sources and GitHub shorthands are
/// refused, so nothing a catalog writes can change how npm runs or where a package comes from.
pub fn check_install(name: &str) -> Result<(), InstallRefusal> {
    if is_builtin(name) {
        return Err(InstallRefusal::Builtin(name.to_string()));
    }
    check_install_spec(name).map_err(|e| InstallRefusal::Spec(e.to_string()))
}

/// The libraries the schema `files` (each a path and the name it is shown by) declare in
/// `requiredLibraries`: for each, how many of the files declare it and its state in the library
/// directory `dir` (none: every library that is allowed and not built in is
/// [`LibraryState::Missing`]). Each installed library is loaded into a sandbox the way a
/// schema's handlers would get it (the `spec` profile's limits, no stand-ins), so any failure
/// shows. Files are read within `options`' limits; under the `spec` profile a library off the
/// allowlist (`options`' allowed libraries included) is [`LibraryState::NotAllowlisted`].
pub fn needs(
    files: &[(PathBuf, String)],
    dir: Option<&Path>,
    options: &flowmcp_validate::Options,
) -> BTreeMap<String, (usize, LibraryState)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (path, display) in files {
        let loaded = flowmcp_loader::load_file(path, display, &options.limits, &options.settings);
        let libs = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("main"))
            .and_then(|m| m.get("requiredLibraries"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for name in libs.iter().filter_map(Value::as_str) {
            *counts.entry(name.to_string()).or_default() += 1;
        }
    }
    let lib_dir = dir.and_then(|d| LibraryDir::new(d).ok());
    let spec = !options.settings.profile.is_compat();
    counts
        .into_iter()
        .map(|(name, schemas)| {
            let state = if is_builtin(&name) {
                LibraryState::Builtin
            } else if spec && !options.library_allowed(&name) {
                LibraryState::NotAllowlisted
            } else {
                match lib_dir.as_ref().map(|l| (l.package_dir(&name), l)) {
                    Some((Ok(package), l)) if l.is_native(&name) => {
                        LibraryState::Native { package }
                    }
                    Some((Ok(package), l)) => {
                        let version =
                            flowmcp_files::named::read_to_string(package.join("package.json"))
                                .ok()
                                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                                .and_then(|m| {
                                    m.get("version").and_then(Value::as_str).map(str::to_string)
                                });
                        match load_check(&name, l) {
                            Ok(()) => LibraryState::Installed { version },
                            Err(reason) => LibraryState::Fails { version, reason },
                        }
                    }
                    _ => LibraryState::Missing,
                }
            };
            (name, (schemas, state))
        })
        .collect()
}

/// Loads the library `name` from `dir` into a sandbox the way a schema's handlers would get it
/// (the `spec` profile's limits, no stand-ins), so that any failure shows: `Err` carries the
/// loader's reason.
fn load_check(name: &str, dir: &LibraryDir) -> Result<(), String> {
    let names = [name.to_string()];
    flowmcp_loader::HandlerHost::load(
        "libs-status.mjs",
        "export const main = { namespace: 'libs-status', tools: {} };",
        &serde_json::json!({}),
        flowmcp_loader::Libraries::new(&names, Some(dir)),
        &[],
        flowmcp_loader::HostConfig::spec(),
    )
    .map(|_| ())
    .map_err(|e| match e {
        flowmcp_loader::HostError::Library { message, .. } => message,
        other => other.to_string(),
    })
}
