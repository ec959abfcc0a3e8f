//! Where the npm libraries of `requiredLibraries` come from, and how a module specifier inside
//! them is resolved to a file — confined to one library directory.
//!
//! A library directory is an npm prefix: packages live in `DIR/node_modules/<name>` (scoped ones
//! in `DIR/node_modules/@scope/name`), their own dependencies possibly nested in
//! `…/<name>/node_modules/`. Resolution follows the npm conventions a browser bundler uses, since
//! the sandbox is not Node:
//!
//! - a bare specifier (`ethers`, `@scope/pkg/sub`) is looked up in the `node_modules` folders from
//!   the importing file's folder up to the library directory (never above it);
//! - a package's `exports` map is read with the conditions `browser`, `import`, `module` and
//!   `default` (in the map's own key order; `require` only when none of them matches; never
//!   `node`), with `*` patterns; without `exports`, `module`, then `main`, then `index`. A
//!   `require()` from a CommonJS file asks for `browser`, `require` and `default` first and
//!   skips the `module` field, so that it gets the package's CommonJS build;
//! - a package's `browser` object replaces files with others (or with an empty module, `false`);
//! - a file is tried as written, then with `.js`, `.mjs`, `.cjs`, `.json`, then as a folder (its
//!   `index`);
//! - Node's built-in modules (`fs`, `crypto`, `node:…`) are refused;
//! - every result is checked after following symbolic links: a path that ends outside the library
//!   directory is refused.
//!
//! A file's format is ESM for `.mjs`, CommonJS for `.cjs`, JSON for `.json`; a `.js` file is ESM
//! when its package says `"type": "module"`, when it was reached through the `import` or `module`
//! conditions or the `module` field, or when an ESM file of the same package imports it; otherwise
//! CommonJS.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use flowmcp_spec::paths::fold_dots;
use serde_json::Value;

/// Node's built-in modules: the sandbox has none of them.
pub const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// How a resolved file is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleFormat {
    /// An ES module.
    Esm,
    /// A CommonJS module (`module.exports`, `require`).
    CommonJs,
    /// A JSON file (its value is the module's export).
    Json,
    /// A file the package's `browser` map replaces with nothing (an empty module).
    Empty,
}

/// A specifier resolved to a file of the library directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The file, with symbolic links followed (inside the library directory).
    pub path: PathBuf,
    /// How to evaluate it.
    pub format: ModuleFormat,
}

/// Why a specifier does not resolve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LibError {
    /// The library directory is not there.
    #[error("the library directory {0} does not exist")]
    NoDirectory(PathBuf),
    /// A package is not installed in the library directory.
    #[error("the package {package} is not installed in {dir}")]
    NotInstalled {
        /// The package name.
        package: String,
        /// The library directory.
        dir: PathBuf,
    },
    /// A Node built-in module: the sandbox has none.
    #[error("{0} is a Node built-in module, which the sandbox does not have")]
    Builtin(String),
    /// The specifier resolves to a path outside the library directory (`../`, an absolute path,
    /// or a symbolic link pointing out).
    #[error("{specifier} resolves outside the library directory")]
    Escapes {
        /// The specifier as written.
        specifier: String,
    },
    /// Nothing is found for the specifier.
    #[error("cannot resolve {specifier} from {from}")]
    NotFound {
        /// The specifier as written.
        specifier: String,
        /// The importing file.
        from: PathBuf,
    },
    /// The package does not export the requested subpath (its `exports` map has no such entry).
    #[error("the package {package} does not export {subpath}")]
    NotExported {
        /// The package name.
        package: String,
        /// The subpath (`.` for the package itself).
        subpath: String,
    },
    /// A resolved file could not be read.
    #[error("cannot read {file}: {reason}")]
    Unreadable {
        /// The file, relative to the library directory.
        file: String,
        /// Why.
        reason: String,
    },
}

/// The length and modification time a cached module was compiled from.
#[cfg(feature = "quickjs")]
pub(crate) type Stamp = (u64, Option<std::time::SystemTime>);

/// Compiled ES modules and resolved specifiers of one library directory, kept in memory and
/// shared by every clone of the [`LibraryDir`] (so by every sandbox of a process that uses it).
#[derive(Debug, Default)]
struct Cache {
    #[cfg(feature = "quickjs")]
    modules: HashMap<PathBuf, (Stamp, Arc<[u8]>)>,
    /// (importer, specifier, importer's format) → what it resolved to.
    resolved: HashMap<(PathBuf, String, ModuleFormat), Resolved>,
    /// Package name → whether it is a native addon.
    native: HashMap<String, bool>,
}

/// A library directory (an npm prefix holding `node_modules/`).
///
/// Clones share one in-memory cache of compiled modules (QuickJS bytecode) and of resolved
/// specifiers, so a sandbox that loads a library already loaded by another one in the same
/// process skips resolving, parsing and compiling it. Compiled modules are checked against each
/// file's length and modification time (a resolved file that is gone fails when it is read).
#[derive(Clone, Debug)]
pub struct LibraryDir {
    /// The directory, with symbolic links followed.
    root: PathBuf,
    /// `None`: resolve and compile every time (see [`LibraryDir::without_cache`]).
    cache: Option<Arc<Mutex<Cache>>>,
}

/// Whether `name` is a valid npm package name for a lookup (no path tricks).
fn valid_package_name(name: &str) -> bool {
    let ok_part = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, pkg)| ok_part(scope) && ok_part(pkg)),
        None => ok_part(name),
    }
}

/// The longest npm package name, as the registry allows it.
const MAX_PACKAGE_NAME_LEN: usize = 214;

/// Why a text cannot be handed to `npm install`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstallSpecError {
    /// Not a package name the npm registry accepts.
    #[error(
        "{0:?} is not an npm registry package name (letters, digits, `-`, `.`, `_`, `~`, an optional          `@scope/`, not starting with `.`, `_` or `-`, at most 214 characters)"
    )]
    Name(String),
    /// The part after the name's `@` is not a version, a range or a tag.
    #[error(
        "{0:?} has a version that is not a semver version, range or tag (URLs, paths and git          sources are not installed)"
    )]
    Version(String),
}

/// Checks that `spec` is what `flowmcp libs install` may hand to npm: a registry package name
/// (`left-pad`, `@scope/pkg`) with an optional `@` and a semver version, range or dist-tag
/// (`ethers@6.17.0`, `moment@^2.30`, `x@>=1 <2`, `x@latest`). Everything else is refused —
/// options such as `--ignore-scripts=false`, tarball URLs, `file:` paths, git sources and
/// GitHub shorthands — so nothing a catalog writes can change how npm runs or where a package
/// comes from.
pub fn check_install_spec(spec: &str) -> Result<(), InstallSpecError> {
    let (name, version) = match spec.strip_prefix('@') {
        Some(rest) => match rest.split_once('@') {
            Some((name, version)) => (&spec[..name.len() + 1], Some(version)),
            None => (spec, None),
        },
        None => match spec.split_once('@') {
            Some((name, version)) => (name, Some(version)),
            None => (spec, None),
        },
    };
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '_', '-'])
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    let name_ok = name.len() <= MAX_PACKAGE_NAME_LEN
        && !is_builtin(name)
        && match name.strip_prefix('@') {
            Some(scoped) => scoped
                .split_once('/')
                .is_some_and(|(scope, pkg)| part_ok(scope) && part_ok(pkg)),
            None => part_ok(name) && !matches!(name, "node_modules" | "favicon.ico"),
        };
    if !name_ok {
        return Err(InstallSpecError::Name(spec.to_string()));
    }
    if let Some(v) = version {
        let version_ok = !v.is_empty()
            && !v.starts_with('-')
            && v.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || matches!(
                        c,
                        '.' | '-' | '+' | '^' | '~' | '<' | '>' | '=' | '*' | '|' | ' '
                    )
            });
        if !version_ok {
            return Err(InstallSpecError::Version(spec.to_string()));
        }
    }
    Ok(())
}

/// `@scope/pkg/sub/path` → (`@scope/pkg`, `./sub/path`); `pkg` → (`pkg`, `.`).
fn split_bare(specifier: &str) -> Option<(String, String)> {
    let mut parts = specifier.splitn(if specifier.starts_with('@') { 3 } else { 2 }, '/');
    let name = if specifier.starts_with('@') {
        format!("{}/{}", parts.next()?, parts.next()?)
    } else {
        parts.next()?.to_string()
    };
    let sub = parts
        .next()
        .map_or_else(|| ".".to_string(), |s| format!("./{s}"));
    valid_package_name(&name).then_some((name, sub))
}

/// Whether `specifier` names a Node built-in module.
pub fn is_builtin(specifier: &str) -> bool {
    if specifier.starts_with("node:") {
        return true;
    }
    let first = specifier.split('/').next().unwrap_or(specifier);
    NODE_BUILTINS.contains(&first)
}

fn read_json(path: &Path) -> Option<Value> {
    let text = flowmcp_files::named::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The conditions an `exports` target is chosen with, in two passes.
const CONDITIONS: [&[&str]; 2] = [&["browser", "import", "module", "default"], &["require"]];
/// The same for a `require()` from a CommonJS file: `require` first, the ES conditions last.
const REQUIRE_CONDITIONS: [&[&str]; 2] =
    [&["browser", "require", "default"], &["import", "module"]];

/// The target of an `exports` value for `conditions` (a string, an object of conditions, an
/// array of alternatives), and whether an ESM condition chose it.
fn pick_target(v: &Value, conditions: &[&str], esm: bool) -> Option<(String, bool)> {
    match v {
        Value::String(s) => Some((s.clone(), esm)),
        Value::Array(items) => items.iter().find_map(|i| pick_target(i, conditions, esm)),
        Value::Object(m) => m.iter().find_map(|(k, sub)| {
            conditions
                .contains(&k.as_str())
                .then(|| pick_target(sub, conditions, esm || k == "import" || k == "module"))
                .flatten()
        }),
        _ => None,
    }
}

/// The `exports` entry for `subpath` (exact, or the longest `*` pattern), with the text the `*`
/// stands for.
fn exports_entry<'a>(exports: &'a Value, subpath: &str) -> Option<(&'a Value, Option<String>)> {
    let Value::Object(m) = exports else {
        return (subpath == ".").then_some((exports, None));
    };
    if !m.keys().any(|k| k.starts_with('.')) {
        // Conditions for the package itself.
        return (subpath == ".").then_some((exports, None));
    }
    if let Some(v) = m.get(subpath) {
        return Some((v, None));
    }
    m.iter()
        .filter_map(|(k, v)| {
            let (prefix, suffix) = k.split_once('*')?;
            let middle = subpath.strip_prefix(prefix)?.strip_suffix(suffix)?;
            Some((prefix.len(), v, middle.to_string()))
        })
        .max_by_key(|(len, _, _)| *len)
        .map(|(_, v, middle)| (v, Some(middle)))
}

impl LibraryDir {
    /// The library directory `dir` (it must exist).
    pub fn new(dir: &Path) -> Result<LibraryDir, LibError> {
        let root = flowmcp_files::named::canonical(dir)
            .map_err(|_| LibError::NoDirectory(dir.to_path_buf()))?;
        Ok(LibraryDir {
            root,
            cache: Some(Arc::default()),
        })
    }

    /// The same directory without the cache: every sandbox resolves and compiles its libraries
    /// afresh (for measurements, or to rule the cache out).
    pub fn without_cache(mut self) -> LibraryDir {
        self.cache = None;
        self
    }

    /// Whether compiled modules are kept.
    #[cfg(feature = "quickjs")]
    pub(crate) fn caches_bytecode(&self) -> bool {
        self.cache.is_some()
    }

    /// The bytecode compiled from `path` when it had this `stamp`.
    #[cfg(feature = "quickjs")]
    pub(crate) fn cached_bytecode(&self, path: &Path, stamp: Option<Stamp>) -> Option<Arc<[u8]>> {
        let stamp = stamp?;
        let cache = self.cache.as_ref()?.lock().ok()?;
        let (have, bytes) = cache.modules.get(path)?;
        (*have == stamp).then(|| bytes.clone())
    }

    /// Keeps the bytecode compiled from `path`.
    #[cfg(feature = "quickjs")]
    pub(crate) fn store_bytecode(&self, path: &Path, stamp: Stamp, bytes: Arc<[u8]>) {
        if let Some(cache) = &self.cache
            && let Ok(mut cache) = cache.lock()
        {
            cache.modules.insert(path.to_path_buf(), (stamp, bytes));
        }
    }

    /// The directory, with symbolic links followed.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` after following symbolic links, when it exists and stays inside the directory.
    fn confined(&self, path: &Path, specifier: &str) -> Result<Option<PathBuf>, LibError> {
        match flowmcp_files::named::canonical(path) {
            Ok(real) if real.starts_with(&self.root) => Ok(Some(real)),
            Ok(_) => Err(LibError::Escapes {
                specifier: specifier.to_string(),
            }),
            Err(_) => Ok(None),
        }
    }

    /// The folder of the installed package `name` (top level of the directory).
    pub fn package_dir(&self, name: &str) -> Result<PathBuf, LibError> {
        let not_installed = || LibError::NotInstalled {
            package: name.to_string(),
            dir: self.root.clone(),
        };
        if !valid_package_name(name) {
            return Err(not_installed());
        }
        self.confined(&self.root.join("node_modules").join(name), name)?
            .filter(|p| flowmcp_files::named::is_dir(p))
            .ok_or_else(not_installed)
    }

    /// Whether the installed package `name` is a native addon (a `binding.gyp`, or `.node`
    /// files), which cannot run in the sandbox.
    pub fn is_native(&self, name: &str) -> bool {
        if let Some(cache) = &self.cache
            && let Ok(cache) = cache.lock()
            && let Some(&hit) = cache.native.get(name)
        {
            return hit;
        }
        let native = self.is_native_uncached(name);
        if let Some(cache) = &self.cache
            && let Ok(mut cache) = cache.lock()
        {
            cache.native.insert(name.to_string(), native);
        }
        native
    }

    fn is_native_uncached(&self, name: &str) -> bool {
        let Ok(dir) = self.package_dir(name) else {
            return false;
        };
        if flowmcp_files::named::is_file(dir.join("binding.gyp")) {
            return true;
        }
        let mut stack = vec![(dir, 0usize)];
        while let Some((d, depth)) = stack.pop() {
            let Ok(entries) = flowmcp_files::named::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let Ok(kind) = e.file_type() else { continue };
                if kind.is_file() && p.extension().is_some_and(|x| x == "node") {
                    return true;
                }
                if kind.is_dir() && depth < 4 && e.file_name() != "node_modules" {
                    stack.push((p, depth + 1));
                }
            }
        }
        false
    }

    /// The entry of the installed package `name`, as `import name` would load it.
    pub fn entry(&self, name: &str) -> Result<Resolved, LibError> {
        let dir = self.package_dir(name)?;
        self.resolve_in_package(&dir, name, ".", name, false)
    }

    /// Resolves `specifier` as written in the file `importer` (inside the directory), whose
    /// format is `importer_format`.
    pub fn resolve(
        &self,
        specifier: &str,
        importer: &Path,
        importer_format: ModuleFormat,
    ) -> Result<Resolved, LibError> {
        let key = (
            importer.to_path_buf(),
            specifier.to_string(),
            importer_format,
        );
        if let Some(cache) = &self.cache
            && let Ok(cache) = cache.lock()
            && let Some(hit) = cache.resolved.get(&key)
        {
            return Ok(hit.clone());
        }
        let found = self.resolve_uncached(specifier, importer, importer_format)?;
        if let Some(cache) = &self.cache
            && let Ok(mut cache) = cache.lock()
        {
            cache.resolved.insert(key, found.clone());
        }
        Ok(found)
    }

    fn resolve_uncached(
        &self,
        specifier: &str,
        importer: &Path,
        importer_format: ModuleFormat,
    ) -> Result<Resolved, LibError> {
        if is_builtin(specifier) {
            return Err(LibError::Builtin(specifier.to_string()));
        }
        let from = importer.parent().unwrap_or(&self.root);
        if specifier.starts_with("./") || specifier.starts_with("../") || specifier == "." {
            let joined = fold_dots(&from.join(specifier)).ok_or_else(|| LibError::Escapes {
                specifier: specifier.to_string(),
            })?;
            if !joined.starts_with(&self.root) {
                return Err(LibError::Escapes {
                    specifier: specifier.to_string(),
                });
            }
            let esm = importer_format == ModuleFormat::Esm;
            let found =
                self.file_or_dir(&joined, specifier)?
                    .ok_or_else(|| LibError::NotFound {
                        specifier: specifier.to_string(),
                        from: importer.to_path_buf(),
                    })?;
            return self.finish(found, specifier, esm);
        }
        if specifier.starts_with('/') || Path::new(specifier).is_absolute() {
            return Err(LibError::Escapes {
                specifier: specifier.to_string(),
            });
        }
        let (name, sub) = split_bare(specifier).ok_or_else(|| LibError::NotFound {
            specifier: specifier.to_string(),
            from: importer.to_path_buf(),
        })?;
        // The node_modules folders from the importer's folder up to the library directory.
        let mut dir = Some(from);
        while let Some(d) = dir {
            if !d.starts_with(&self.root) {
                break;
            }
            let candidate = d.join("node_modules").join(&name);
            if let Some(pkg) = self
                .confined(&candidate, specifier)?
                .filter(|p| flowmcp_files::named::is_dir(p))
            {
                let cjs = importer_format == ModuleFormat::CommonJs;
                return self.resolve_in_package(&pkg, &name, &sub, specifier, cjs);
            }
            dir = d.parent();
        }
        Err(LibError::NotInstalled {
            package: name,
            dir: self.root.clone(),
        })
    }

    /// `subpath` (`.` or `./…`) of the package in `pkg`; `cjs`: asked for by a CommonJS
    /// `require()`, which prefers the `require` condition and skips the `module` field.
    fn resolve_in_package(
        &self,
        pkg: &Path,
        name: &str,
        subpath: &str,
        specifier: &str,
        cjs: bool,
    ) -> Result<Resolved, LibError> {
        let manifest = read_json(&pkg.join("package.json")).unwrap_or(Value::Null);
        if let Some(exports) = manifest.get("exports").filter(|e| !e.is_null()) {
            let not_exported = || LibError::NotExported {
                package: name.to_string(),
                subpath: subpath.to_string(),
            };
            let (entry, star) = exports_entry(exports, subpath).ok_or_else(not_exported)?;
            let conditions = if cjs { REQUIRE_CONDITIONS } else { CONDITIONS };
            let (target, esm) = conditions
                .iter()
                .find_map(|c| pick_target(entry, c, false))
                .ok_or_else(not_exported)?;
            let target = match star {
                Some(middle) => target.replace('*', &middle),
                None => target,
            };
            let path = fold_dots(&pkg.join(&target))
                .filter(|p| p.starts_with(pkg))
                .ok_or_else(|| LibError::Escapes {
                    specifier: specifier.to_string(),
                })?;
            let found = self
                .confined(&path, specifier)?
                .filter(|p| flowmcp_files::named::is_file(p))
                .ok_or_else(|| LibError::NotFound {
                    specifier: specifier.to_string(),
                    from: pkg.join("package.json"),
                })?;
            return self.finish(found, specifier, esm);
        }
        if subpath != "." {
            let found = self
                .file_or_dir(&pkg.join(&subpath[2..]), specifier)?
                .ok_or_else(|| LibError::NotFound {
                    specifier: specifier.to_string(),
                    from: pkg.join("package.json"),
                })?;
            return self.finish(found, specifier, false);
        }
        let field = |k: &str| manifest.get(k).and_then(Value::as_str).map(str::to_string);
        for (target, esm) in [
            (field("browser"), false),
            (field("module").filter(|_| !cjs), true),
            (field("main"), false),
        ] {
            let Some(target) = target else { continue };
            let path = fold_dots(&pkg.join(&target))
                .filter(|p| p.starts_with(pkg))
                .ok_or_else(|| LibError::Escapes {
                    specifier: specifier.to_string(),
                })?;
            if let Some(found) = self.file_or_dir(&path, specifier)? {
                return self.finish(found, specifier, esm);
            }
        }
        let found = self
            .file_or_dir(&pkg.join("index"), specifier)?
            .ok_or_else(|| LibError::NotFound {
                specifier: specifier.to_string(),
                from: pkg.join("package.json"),
            })?;
        self.finish(found, specifier, false)
    }

    /// `path` as a file (as written, then with an extension) or a folder (its `package.json`
    /// `main`, else its `index`).
    fn file_or_dir(&self, path: &Path, specifier: &str) -> Result<Option<PathBuf>, LibError> {
        if let Some(p) = self
            .confined(path, specifier)?
            .filter(|p| flowmcp_files::named::is_file(p))
        {
            return Ok(Some(p));
        }
        for ext in ["js", "mjs", "cjs", "json"] {
            let mut with = path.as_os_str().to_owned();
            with.push(format!(".{ext}"));
            if let Some(p) = self
                .confined(Path::new(&with), specifier)?
                .filter(|p| flowmcp_files::named::is_file(p))
            {
                return Ok(Some(p));
            }
        }
        if flowmcp_files::named::is_dir(path) {
            if let Some(main) = read_json(&path.join("package.json"))
                .and_then(|m| m.get("main").and_then(Value::as_str).map(str::to_string))
                && let Some(p) = fold_dots(&path.join(main))
                && p != path
                && let Some(found) = self.file_or_dir(&p, specifier)?
            {
                return Ok(Some(found));
            }
            for index in ["index.js", "index.mjs", "index.cjs", "index.json"] {
                if let Some(p) = self
                    .confined(&path.join(index), specifier)?
                    .filter(|p| flowmcp_files::named::is_file(p))
                {
                    return Ok(Some(p));
                }
            }
        }
        Ok(None)
    }

    /// The package folder a file belongs to: the nearest folder above it with a `package.json`.
    fn owning_package(&self, file: &Path) -> Option<(PathBuf, Value)> {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if !d.starts_with(&self.root) {
                return None;
            }
            if let Some(m) = read_json(&d.join("package.json")) {
                return Some((d.to_path_buf(), m));
            }
            dir = d.parent();
        }
        None
    }

    /// Applies the package's `browser` file map to `file` and decides its format (`esm`: reached
    /// through an ESM condition or field, or imported by an ESM file of the package).
    fn finish(&self, file: PathBuf, specifier: &str, esm: bool) -> Result<Resolved, LibError> {
        let owner = self.owning_package(&file);
        let mut file = file;
        if let Some((pkg, manifest)) = &owner
            && let Some(Value::Object(map)) = manifest.get("browser")
            && let Ok(rel) = file.strip_prefix(pkg)
        {
            let key = format!("./{}", rel.to_string_lossy().replace('\\', "/"));
            match map.get(&key) {
                Some(Value::Bool(false)) => {
                    return Ok(Resolved {
                        path: file,
                        format: ModuleFormat::Empty,
                    });
                }
                Some(Value::String(other)) => {
                    let replaced = fold_dots(&pkg.join(other))
                        .filter(|p| p.starts_with(pkg))
                        .ok_or_else(|| LibError::Escapes {
                            specifier: specifier.to_string(),
                        })?;
                    if let Some(p) = self.file_or_dir(&replaced, specifier)? {
                        file = p;
                    }
                }
                _ => {}
            }
        }
        let format = match file.extension().and_then(|e| e.to_str()) {
            Some("mjs") => ModuleFormat::Esm,
            Some("cjs") => ModuleFormat::CommonJs,
            Some("json") => ModuleFormat::Json,
            _ => {
                let typed_module = owner
                    .as_ref()
                    .and_then(|(_, m)| m.get("type").and_then(Value::as_str))
                    == Some("module");
                if typed_module || esm {
                    ModuleFormat::Esm
                } else {
                    ModuleFormat::CommonJs
                }
            }
        };
        Ok(Resolved { path: file, format })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_registry_names_and_versions_reach_npm() {
        for ok in [
            "left-pad",
            "ethers@6.17.0",
            "moment@^2.30.1",
            "x@>=1.0.0 <2",
            "x@1 || 2",
            "x@latest",
            "@thanpolas/univ3prices",
            "@scope/pkg@~1.2",
            "JSONStream",
            "lodash.get",
        ] {
            assert_eq!(check_install_spec(ok), Ok(()), "{ok}");
        }
        for bad in [
            "--ignore-scripts=false",
            "-g",
            "https://evil.example/pkg.tgz",
            "file:../evil",
            "../evil",
            "/tmp/evil",
            "git+ssh://git@evil.example/x.git",
            "github:evil/pkg",
            "evil/pkg",
            "pkg@file:../x",
            "pkg@github:evil/x",
            "pkg@evil/x",
            "pkg@",
            "pkg@--foo",
            "@scope",
            "@/pkg",
            ".hidden",
            "_private",
            "fs",
            "node:fs",
            "node_modules",
            "",
            "a b",
            "pkg\nx",
        ] {
            assert!(check_install_spec(bad).is_err(), "{bad:?}");
        }
        assert!(check_install_spec(&"a".repeat(215)).is_err());
    }
}
