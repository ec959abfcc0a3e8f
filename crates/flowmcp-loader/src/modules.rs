//! Loading npm libraries into a handler sandbox: the QuickJS module resolver and loader over one
//! [`LibraryDir`], the CommonJS wrapper, and the bytecode cache.
//!
//! Inside the sandbox a library file is known by a *virtual name*: its path relative to the
//! library directory, with `/` separators and a leading `/` (`/node_modules/ethers/lib.esm/index.js`).
//! The user's own paths never reach JavaScript. Only names the resolver produced (and so checked
//! to lie inside the directory) can be loaded; the [`LibraryDir`] resolver refuses everything else.
//!
//! - ES modules are compiled by QuickJS itself (and their bytecode kept in the directory's cache).
//! - A CommonJS file is run through `js/cjs.js`: wrapped in `function (exports, require, module,
//!   __filename, __dirname)`, evaluated once, with a `require` confined to the directory; an ES
//!   module importing it sees `module.exports` as its default export and its identifier-named
//!   properties as named exports (taken when it is first imported, as Node does).
//! - A JSON file is a module whose default export is its value; a file the package's `browser`
//!   map removes is an empty object.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::{Declared, WriteOptions};
use rquickjs::{Ctx, Error, Exception, Function, Module, Object, Value};

use crate::libs::{LibError, LibraryDir, ModuleFormat, Resolved};

/// The module name of the entry the host declares to import the requested libraries.
pub(crate) const ENTRY_MODULE: &str = "flowmcp:libraries";
/// The hidden global holding the CommonJS loader (non-writable, non-configurable).
pub(crate) const REQUIRE_GLOBAL: &str = "__flowmcpRequire";

/// The CommonJS loader and the browser globals libraries expect (`js/cjs.js`).
const CJS_JS: &str = include_str!("js/cjs.js");

/// What the resolver learned, shared with the loader and the CommonJS host functions.
pub(crate) struct ModuleState {
    dir: LibraryDir,
    /// Virtual name → format, for every file the resolver handed out.
    formats: RefCell<HashMap<String, ModuleFormat>>,
    /// The first resolution or reading failure (kept because QuickJS reports only a generic
    /// message for a failed import).
    failure: RefCell<Option<LibError>>,
    /// Modules compiled from source (not taken from the bytecode cache) in this sandbox.
    compiled: Cell<usize>,
}

impl ModuleState {
    pub(crate) fn new(dir: LibraryDir) -> Rc<ModuleState> {
        Rc::new(ModuleState {
            dir,
            formats: RefCell::new(HashMap::new()),
            failure: RefCell::new(None),
            compiled: Cell::new(0),
        })
    }

    /// The first failure recorded while resolving or loading, if any.
    pub(crate) fn take_failure(&self) -> Option<LibError> {
        self.failure.borrow_mut().take()
    }

    /// How many modules were compiled from source (the rest came from the bytecode cache).
    pub(crate) fn compiled(&self) -> usize {
        self.compiled.get()
    }

    fn record(&self, e: LibError) -> LibError {
        let mut slot = self.failure.borrow_mut();
        if slot.is_none() {
            *slot = Some(e.clone());
        }
        e
    }

    /// The virtual name of a resolved file.
    fn virtual_name(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(self.dir.root()).ok()?;
        let mut name = String::new();
        for part in rel.components() {
            name.push('/');
            name.push_str(part.as_os_str().to_str()?);
        }
        Some(name)
    }

    /// The file behind a virtual name the resolver handed out, with its format.
    fn file(&self, name: &str) -> Option<(PathBuf, ModuleFormat)> {
        let format = *self.formats.borrow().get(name)?;
        let path = self.dir.root().join(name.trim_start_matches('/'));
        Some((path, format))
    }

    /// Resolves `specifier` imported by the module `base` (a virtual name, or the entry).
    fn resolve(&self, base: &str, specifier: &str) -> Result<(String, ModuleFormat), LibError> {
        let (importer, format) = if base.starts_with(ENTRY_MODULE) {
            (self.dir.root().join("(entry)"), ModuleFormat::Esm)
        } else {
            self.file(base).ok_or_else(|| LibError::NotFound {
                specifier: specifier.to_string(),
                from: PathBuf::from(base),
            })?
        };
        let Resolved { path, format } = self
            .dir
            .resolve(specifier, &importer, format)
            .map_err(|e| self.record(e))?;
        let name = self.virtual_name(&path).ok_or_else(|| {
            self.record(LibError::Escapes {
                specifier: specifier.to_string(),
            })
        })?;
        // The first way a file was reached decides its format for the whole sandbox.
        let format = *self
            .formats
            .borrow_mut()
            .entry(name.clone())
            .or_insert(format);
        Ok((name, format))
    }

    /// The text of the module at `path` (resolved and confined to the library directory),
    /// read through the library directory's handle, so that a folder swapped for a link after
    /// the module was resolved is not followed out of it.
    fn read(&self, name: &str, path: &Path) -> Result<String, LibError> {
        let unreadable = |reason: String| {
            self.record(LibError::Unreadable {
                file: name.to_string(),
                reason,
            })
        };
        let bytes = flowmcp_files::read_found(Some(self.dir.root()), path, MAX_MODULE_BYTES)
            .map_err(|e| unreadable(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| unreadable(e.to_string()))
    }
}

/// The largest library module read (a bundled library is at most a few MiB).
const MAX_MODULE_BYTES: u64 = 64 << 20;

fn format_name(f: ModuleFormat) -> &'static str {
    match f {
        ModuleFormat::Esm => "esm",
        ModuleFormat::CommonJs => "cjs",
        ModuleFormat::Json => "json",
        ModuleFormat::Empty => "empty",
    }
}

fn throw(ctx: &Ctx<'_>, e: &LibError) -> Error {
    Exception::throw_message(ctx, &e.to_string())
}

/// Installs the CommonJS loader and the library globals. Run once per sandbox that loads
/// libraries, before any library code.
pub(crate) fn install<'js>(ctx: &Ctx<'js>, state: &Rc<ModuleState>) -> rquickjs::Result<()> {
    let s = state.clone();
    let host_resolve = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, specifier: String, from: String| -> rquickjs::Result<Vec<String>> {
            let (name, format) = s.resolve(&from, &specifier).map_err(|e| throw(&ctx, &e))?;
            Ok(vec![name, format_name(format).to_string()])
        },
    )?;
    let s = state.clone();
    let host_compile = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, name: String| -> rquickjs::Result<Value<'js>> {
            let Some((path, format)) = s.file(&name) else {
                return Err(Exception::throw_message(&ctx, "unknown module"));
            };
            let text = s.read(&name, &path).map_err(|e| throw(&ctx, &e))?;
            match format {
                ModuleFormat::Json => ctx.json_parse(text),
                _ => {
                    let mut options = rquickjs::context::EvalOptions::default();
                    options.strict = false;
                    options.filename = Some(name.clone());
                    let wrapped = format!(
                        "(function (exports, require, module, __filename, __dirname) {{{text}\n}})"
                    );
                    ctx.eval_with_options(wrapped, options)
                }
            }
        },
    )?;
    let make: Function = ctx.eval(CJS_JS)?;
    let require: Function = make.call((host_resolve, host_compile))?;
    let object: Object = ctx.globals().get("Object")?;
    let define: Function = object.get("defineProperty")?;
    let descriptor = Object::new(ctx.clone())?;
    descriptor.set("value", require)?;
    let _: Value = define.call((ctx.globals(), REQUIRE_GLOBAL, descriptor))?;
    Ok(())
}

/// The resolver half of the sandbox's module system.
pub(crate) struct LibResolver(pub(crate) Rc<ModuleState>);

impl Resolver for LibResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        self.0
            .resolve(base, name)
            .map(|(n, _)| n)
            .map_err(|e| throw(ctx, &e))
    }
}

/// The loader half: ES modules from source or the bytecode cache, CommonJS, JSON and empty
/// modules as ES modules.
pub(crate) struct LibLoader(pub(crate) Rc<ModuleState>);

/// Whether `key` can be written as a named export without quoting.
fn plain_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && key != "default"
}

impl Loader for LibLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        let state = &self.0;
        let Some((path, format)) = state.file(name) else {
            return Err(Exception::throw_message(ctx, "unknown module"));
        };
        let quoted = serde_json::to_string(name).unwrap_or_default();
        match format {
            ModuleFormat::Esm => load_esm(ctx, state, name, &path),
            ModuleFormat::Empty => Module::declare(ctx.clone(), name, "export default {};"),
            ModuleFormat::Json | ModuleFormat::CommonJs => {
                // Run it now (once; the loader caches it) to learn the names it exports.
                let require: Function = ctx.globals().get(REQUIRE_GLOBAL)?;
                let value: Value = require.call((name, format_name(format)))?;
                let mut source = format!(
                    "const m = globalThis.{REQUIRE_GLOBAL}({quoted}, {:?});\nexport default m;\n",
                    format_name(format)
                );
                if let Some(obj) = value
                    .as_object()
                    .filter(|_| format == ModuleFormat::CommonJs)
                {
                    let keys: Vec<String> = obj
                        .keys::<String>()
                        .filter_map(Result::ok)
                        .filter(|k| plain_identifier(k))
                        .collect();
                    for (i, key) in keys.iter().enumerate() {
                        source.push_str(&format!(
                            "const e{i} = m[{}];\nexport {{ e{i} as {key} }};\n",
                            serde_json::to_string(key).unwrap_or_default()
                        ));
                    }
                }
                Module::declare(ctx.clone(), name, source)
            }
        }
    }
}

fn load_esm<'js>(
    ctx: &Ctx<'js>,
    state: &ModuleState,
    name: &str,
    path: &Path,
) -> rquickjs::Result<Module<'js, Declared>> {
    let stamp = flowmcp_files::named::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()));
    if let Some(bytes) = state.dir.cached_bytecode(path, stamp) {
        // SAFETY: the bytes were written by `Module::write` in this process, by the same
        // QuickJS build, for the file at `path` with this length and modification time; nothing
        // else can put bytes into the cache (it lives in memory only). QuickJS-NG copies the
        // buffer while reading (its "ROM data" mode is a no-op), so no lifetime ties the module
        // to `bytes`.
        return unsafe { Module::load(ctx.clone(), &bytes) };
    }
    let text = state.read(name, path).map_err(|e| throw(ctx, &e))?;
    let module = Module::declare(ctx.clone(), name, text)?;
    state.compiled.set(state.compiled.get() + 1);
    if let Some(stamp) = stamp
        && state.dir.caches_bytecode()
        && let Ok(bytes) = module.write(WriteOptions::default())
    {
        state.dir.store_bytecode(path, stamp, Arc::from(bytes));
    }
    Ok(module)
}
