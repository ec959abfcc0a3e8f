//! The rule framework every family module uses: what a rule sees ([`SchemaCtx`], with the
//! walks over `main` it computes once per file: tools, parameters, placeholder sites), what a
//! rule is ([`SchemaRule`]) and the small readers rules share. Below the family modules and
//! `rules/mod.rs` (which lists the rules and re-exports this file for them); it uses none of them.

use std::cell::{Cell, OnceCell};
use std::path::Path;
use std::rc::Rc;

use flowmcp_loader::Exports;
use flowmcp_loader::LoadedFile;
use flowmcp_spec::placeholder::{Interpolation, find_interpolations};
use flowmcp_spec::zod::{Options as ZOptions, Primitive, ZType, ZodError};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use crate::Options;
use crate::lists::{ListRef, ListRegistry, ListScope, Resolved};

/// A member of a JSON object by name. Objects in schemas are small, and for a small one a scan of
/// its keys is cheaper than hashing the name (serde_json's maps hash with SipHash); the answer is
/// the same, keys being unique (D182).
pub(crate) trait Field {
    /// The value under `key`, if this is an object that has it.
    fn field(&self, key: &str) -> Option<&Value>;
}

/// Objects up to this many members are scanned rather than hashed.
const SCANNED: usize = 16;

impl Field for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCANNED {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.field(key))
    }
}

/// The scope of a context built without one.
static NOT_SEARCHED: ListScope = ListScope::NotSearched;

/// The members of `main` a rule can be told to have read one by one ([`Reads`]); a member not
/// named here is read as all of `main`.
const MEMBERS: [&str; 23] = [
    "namespace",
    "name",
    "description",
    "version",
    "docs",
    "tags",
    "root",
    "headers",
    "requiredServerParams",
    "requiredLibraries",
    "sharedLists",
    "tools",
    "routes",
    "resources",
    "prompts",
    "skills",
    "auth",
    "schemaVersion",
    "termsOfService",
    "termsOfServiceCheckedAt",
    "termsOfServiceLanguage",
    "dataLicense",
    "dataLicenseName",
];

/// What of its input a rule read while it ran: members of `main` by name, or everything (all of
/// `main`, the file's text, the options, the disk). The shared lists it sees are not counted: a
/// run's findings are taken again only with the very same scope. Recorded by [`SchemaCtx`]'s
/// accessors, which are the only way a rule reaches its input, so a rule that read nothing a
/// change touched reports what it reported before the change (D186).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reads(u32);

impl Reads {
    /// Everything: no change leaves such a rule's findings as they were.
    pub(crate) const ALL: Reads = Reads(1 << 31);

    /// The strings of `main` that hold a `{{`, and the members they are in
    /// ([`SchemaCtx::paired_strings`]).
    pub(crate) const PAIRED: Reads = Reads(1 << 30);

    /// The member `name` of `main` ([`Reads::ALL`] for a member [`MEMBERS`] does not name).
    #[inline]
    pub(crate) fn member(name: &str) -> Reads {
        // Looked up by length first: most names are told apart by it.
        match MEMBERS
            .iter()
            .position(|m| m.len() == name.len() && *m == name)
        {
            Some(i) => Reads(1 << i),
            None => Reads::ALL,
        }
    }

    /// What replacing the value `old` of `main`'s member `member` (`None`: not a member, or
    /// `main` itself) with `new` (`None`: unknown) changes: the member, and the strings holding
    /// a `{{` when either value holds one ([`Reads::PAIRED`]).
    pub(crate) fn replaced(member: Option<&str>, old: &Value, new: Option<&Value>) -> Reads {
        let changed = member.map_or(Reads::ALL, Reads::member);
        if new.is_none_or(holds_open_pair) || holds_open_pair(old) {
            changed.with(Reads::PAIRED)
        } else {
            changed
        }
    }

    /// Both.
    pub(crate) fn with(self, other: Reads) -> Reads {
        Reads(self.0 | other.0)
    }

    /// Whether something read as `self` may have changed in a change of `changed`.
    pub(crate) fn meets(self, changed: Reads) -> bool {
        let all = Reads::ALL.0;
        if self.0 == 0 || changed.0 == 0 {
            return false;
        }
        self.0 & all != 0 || changed.0 & all != 0 || self.0 & changed.0 != 0
    }
}

/// The members the tools are read from.
fn tool_members() -> Reads {
    Reads::member("tools").with(Reads::member("routes"))
}

/// The members a tool's parameters are read from (their roles need `requiredServerParams`).
fn param_members() -> Reads {
    tool_members().with(Reads::member("requiredServerParams"))
}

/// What a schema rule sees. Its fields are private: a rule reads them through the accessors,
/// which record what it read ([`Reads`]).
pub(crate) struct SchemaCtx<'a> {
    exports: &'a Exports,
    opts: &'a Options,
    loaded: &'a LoadedFile,
    /// The shared lists the schema sees (a `_lists/` found by walking up, or a catalog's).
    lists: &'a ListScope,
    /// The schema file on disk, when the caller named one (see [`SchemaCtx::schema_dir`]).
    pub(crate) file: Option<&'a Path>,
    tools_cache: OnceCell<Vec<ToolRef<'a>>>,
    params_cache: OnceCell<Vec<ParamRef<'a>>>,
    list_refs_cache: OnceCell<Vec<ListRef>>,
    resolved_cache: OnceCell<Option<Resolved<'a>>>,
    sites_cache: OnceCell<Vec<Site<'a>>>,
    paired_cache: OnceCell<Vec<(&'a str, &'a str)>>,
    /// [`user_params`] of every tool, in order.
    user_params_cache: OnceCell<Vec<(&'a str, ParamRef<'a>)>>,
    dir_cache: OnceCell<Option<&'a Path>>,
    /// What the running rule has read so far ([`SchemaCtx::take_reads`]).
    reads: Cell<Reads>,
}

/// `(name, tool, path)` of a tool that is an object.
pub(crate) type ToolRef<'a> = (&'a String, &'a Map<String, Value>, JsonPath);

impl<'a> SchemaCtx<'a> {
    pub(crate) fn new(exports: &'a Exports, opts: &'a Options, loaded: &'a LoadedFile) -> Self {
        SchemaCtx {
            exports,
            opts,
            loaded,
            lists: &NOT_SEARCHED,
            file: None,
            tools_cache: OnceCell::new(),
            params_cache: OnceCell::new(),
            list_refs_cache: OnceCell::new(),
            resolved_cache: OnceCell::new(),
            sites_cache: OnceCell::new(),
            paired_cache: OnceCell::new(),
            user_params_cache: OnceCell::new(),
            dir_cache: OnceCell::new(),
            reads: Cell::new(Reads::default()),
        }
    }

    /// Notes that the running rule read `what`.
    fn read(&self, what: Reads) {
        self.reads.set(self.reads.get().with(what));
    }

    /// What was read since the last call, forgotten.
    pub(crate) fn take_reads(&self) -> Reads {
        self.reads.take()
    }

    /// The export `name`. All of `main` when it is `main`; another export is the same in a text
    /// whose `main` changed (the module is not run again for such a change).
    pub(crate) fn export(&self, name: &str) -> Option<&'a Value> {
        if name == "main" {
            self.read(Reads::ALL);
        }
        self.exports.get(name)
    }

    /// Whether the module exports `name` (whatever its value).
    pub(crate) fn has_export(&self, name: &str) -> bool {
        self.exports.has(name)
    }

    /// The `handlers` export. Its shape may come from running the factory again with the
    /// schema's shared lists, so it counts as reading `main.sharedLists`.
    pub(crate) fn handlers(&self) -> &'a flowmcp_loader::HandlersExport {
        self.read(Reads::member("sharedLists"));
        &self.exports.handlers
    }

    /// The values of the exports that JSON cannot hold (functions, symbols, …). A `main` whose
    /// members can be edited without running the module again is pure data, so none of these is
    /// in it, and they are the same in the edited text: not a read of `main`.
    pub(crate) fn unserializable(&self) -> &'a [flowmcp_loader::Unserializable] {
        &self.exports.unserializable
    }

    /// The file as loaded (its text, its blanking, the loader's findings): everything.
    pub(crate) fn loaded(&self) -> &'a LoadedFile {
        self.read(Reads::ALL);
        self.loaded
    }

    /// The options: everything (they hold the disk checks, the allowed libraries, …). The rule
    /// settings and the profile are [`SchemaCtx::profile`] and [`SchemaCtx::is_compat`].
    pub(crate) fn options(&self) -> &'a Options {
        self.read(Reads::ALL);
        self.opts
    }

    /// The active profile.
    pub(crate) fn profile(&self) -> flowmcp_spec::Profile {
        self.opts.settings.profile
    }

    /// The shared lists the schema sees (the same for an edited text: a reuse of findings
    /// requires the very same scope).
    pub(crate) fn lists(&self) -> &'a ListScope {
        self.lists
    }

    /// `main` when it is an object, read member by member ([`MainView`]).
    pub(crate) fn main_view(&self) -> Option<MainView<'_, 'a>> {
        let map = self.exports.get("main").and_then(Value::as_object)?;
        Some(MainView { ctx: self, map })
    }

    /// The member `key` of `main`, when `main` is an object that has it.
    pub(crate) fn main_field(&self, key: &str) -> Option<&'a Value> {
        self.read(Reads::member(key));
        self.exports
            .get("main")
            .and_then(Value::as_object)
            .and_then(|m| m.field(key))
    }

    /// The same context with the shared lists of `lists`.
    pub(crate) fn with_lists(mut self, lists: &'a ListScope) -> Self {
        self.lists = lists;
        self.resolved_cache = OnceCell::new();
        self
    }

    /// The same context for the schema file at `file` (the rules that look at files beside the
    /// schema use its directory).
    pub(crate) fn with_file(mut self, file: Option<&'a Path>) -> Self {
        self.file = file;
        self.dir_cache = OnceCell::new();
        self
    }

    /// The directory of the schema file, when the schema was read from a file that exists on disk.
    /// Only then do rules look at other files (databases beside the schema or named by a path); a
    /// schema validated from a string (`validate_str`, whose path is only a name) touches no disk.
    /// Asked of the disk once per file.
    pub(crate) fn schema_dir(&self) -> Option<&'a Path> {
        self.read(Reads::ALL);
        *self.dir_cache.get_or_init(|| {
            let file = self.file.filter(|f| flowmcp_files::named::is_file(f))?;
            match file.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => Some(dir),
                _ => Some(Path::new(".")),
            }
        })
    }

    /// The list registry, when the schema sees one.
    pub(crate) fn registry(&self) -> Option<&'a ListRegistry> {
        self.lists().registry()
    }

    /// The entries of `main.sharedLists` that name a list. Computed once per file.
    pub(crate) fn list_refs(&self) -> &[ListRef] {
        self.read(Reads::member("sharedLists"));
        self.list_refs_cache.get_or_init(|| {
            self.exports
                .get("main")
                .map(ListRef::from_main)
                .unwrap_or_default()
        })
    }

    /// The schema's shared lists resolved against the registry (filters applied), when there is a
    /// registry. Computed once per file.
    pub(crate) fn resolved_lists(&self) -> Option<&Resolved<'a>> {
        self.read(Reads::member("sharedLists"));
        self.resolved_cache
            .get_or_init(|| {
                let registry = self.registry()?;
                Some(registry.resolve(self.list_refs()))
            })
            .as_ref()
    }

    /// Every string placeholders may appear in (`root`, paths, headers, `position.value`), with
    /// the `{{…}}` found in each. Computed once per file.
    pub(crate) fn placeholder_sites(&self) -> &[Site<'a>] {
        self.read(
            param_members()
                .with(Reads::member("root"))
                .with(Reads::member("headers")),
        );
        self.sites_cache.get_or_init(|| placeholder_sites(self))
    }

    /// Every string of `main` that holds a `{{`, with the name of the member of `main` it is in
    /// (empty when `main` is not an object), as a walk of `main` meets them: where the rules
    /// that look at every string of `main` (PH004, VAL075) look for placeholders. Computed once
    /// per file; read as [`Reads::PAIRED`] (an edit changes it only when a string it replaces, or
    /// one it writes, holds a `{{`: the members are the same and are walked in the same order).
    pub(crate) fn paired_strings(&self) -> &[(&'a str, &'a str)] {
        self.read(Reads::PAIRED);
        self.paired_cache.get_or_init(|| {
            let mut out = Vec::new();
            let Some(main) = self.exports.get("main") else {
                return out;
            };
            let members: Vec<(&str, &Value)> = match main {
                Value::Object(map) => map.iter().map(|(k, v)| (k.as_str(), v)).collect(),
                other => vec![("", other)],
            };
            let mut stack: Vec<&Value> = Vec::new();
            for (member, value) in members {
                open_pair_strings(value, &mut stack, &mut |s| out.push((member, s)));
            }
            out
        })
    }

    /// The tools (`main.tools`, or the deprecated `main.routes` when `tools` is absent) when they are
    /// an object, with the key they live under.
    pub(crate) fn tools(&self) -> Option<(&'static str, &'a Map<String, Value>)> {
        self.read(tool_members());
        let main = self.exports.get("main").and_then(Value::as_object)?;
        if let Some(t) = main.field("tools") {
            return t.as_object().map(|o| ("tools", o));
        }
        main.field("routes")
            .and_then(Value::as_object)
            .map(|o| ("routes", o))
    }

    pub(crate) fn is_compat(&self) -> bool {
        self.opts.settings.profile.is_compat()
    }
}

/// `main`, an object, read member by member: each member read is noted ([`Reads::member`]).
/// That `main` is an object, and which members it has, is the same in a text whose members'
/// values were edited, so neither is noted.
pub(crate) struct MainView<'c, 'a> {
    ctx: &'c SchemaCtx<'a>,
    map: &'a Map<String, Value>,
}

impl<'a> MainView<'_, 'a> {
    /// The member `key`.
    pub(crate) fn field(&self, key: &str) -> Option<&'a Value> {
        self.ctx.read(Reads::member(key));
        self.map.field(key)
    }

    /// Whether there is a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The members' names, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &'a String> + use<'a> {
        self.map.keys()
    }
}

/// Whether `s` contains `{{` (the start of a placeholder); most strings have no `{` at all, which
/// a byte search tells at once.
pub(crate) fn has_open_pair(s: &str) -> bool {
    flowmcp_spec::placeholder::find_double(s, '{').is_some()
}

/// Hands `found` every string of `value` that holds a `{{` ([`has_open_pair`]), in the order a
/// walk meets them (members and items in order, depth first). `stack` is scratch space: `value`
/// may be nested arbitrarily deep.
fn open_pair_strings<'v>(
    value: &'v Value,
    stack: &mut Vec<&'v Value>,
    found: &mut impl FnMut(&'v str),
) {
    stack.clear();
    stack.push(value);
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if has_open_pair(s) => found(s),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
}

/// Whether a string of `value` holds a `{{` ([`SchemaCtx::paired_strings`] may hold it).
fn holds_open_pair(value: &Value) -> bool {
    let mut any = false;
    open_pair_strings(value, &mut Vec::new(), &mut |_| any = true);
    any
}

/// A registered rule: the codes it can emit and its check.
pub(crate) struct SchemaRule {
    /// The codes the check can emit (a test holds the registry to them, and a debug build the
    /// check to them); a rule whose codes are all off does not run.
    pub(crate) codes: &'static [Code],
    pub(crate) check: fn(&SchemaCtx<'_>, &mut Collector<'_>),
}

/// `main.<key>` as a path.
pub(crate) fn main_path(key: &str) -> JsonPath {
    JsonPath::root("main").key(key)
}

pub(crate) use crate::quote::shown;
pub(crate) use flowmcp_spec::diagnostic::json_type as type_name;

/// A required string field: `value` (the field `key`, found at `path`) when it is a string;
/// otherwise `code` is reported ("Missing required field" or "Must be a string") and `None` given.
pub(crate) fn required_string<'a>(
    value: Option<&'a Value>,
    path: &JsonPath,
    key: &str,
    code: Code,
    c: &mut Collector<'_>,
) -> Option<&'a str> {
    match value {
        None => {
            c.emit(
                code,
                Some(path),
                format!("Missing required field \"{key}\""),
            );
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            c.emit(
                code,
                Some(path),
                format!("Must be a string (found {})", type_name(other)),
            );
            None
        }
    }
}

/// Checks that `main.<key>`, when present, is an array of strings; reports `code` otherwise.
pub(crate) fn check_string_array(
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    key: &str,
    code: Code,
) {
    let Some(value) = ctx.main_field(key) else {
        return;
    };
    let path = || main_path(key);
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    c.emit(
                        code,
                        Some(&path().index(i)),
                        format!("Must be a string (found {})", type_name(item)),
                    );
                }
            }
        }
        other => {
            c.emit(
                code,
                Some(&path()),
                format!("Must be an array of strings (found {})", type_name(other)),
            );
        }
    }
}

/// Every tool that is an object: `(name, tool, path)` with path `main.tools.<name>`. Computed once
/// per file.
pub(crate) fn each_tool<'s, 'a>(ctx: &'s SchemaCtx<'a>) -> &'s [ToolRef<'a>] {
    ctx.read(tool_members());
    ctx.tools_cache.get_or_init(|| {
        let Some((key, tools)) = ctx.tools() else {
            return Vec::new();
        };
        let base = main_path(key);
        tools
            .iter()
            .filter_map(|(name, t)| t.as_object().map(|o| (name, o, base.key(name))))
            .collect()
    })
}

/// One parameter of a tool, when the parameter is an object, with what the rules read of it
/// most, looked up once when the list is made ([`each_parameter`]): a rule asks for them once per
/// parameter, and every lookup in a JSON object hashes its key.
#[derive(Clone)]
pub(crate) struct ParamRef<'a> {
    pub tool: &'a String,
    /// `main.tools.<tool>.parameters[<index>]`
    pub path: JsonPath,
    position: Option<&'a Map<String, Value>>,
    z: Option<&'a Map<String, Value>>,
    /// `z.primitive` and `z.options`, whatever their type.
    primitive: Option<&'a Value>,
    options: Option<&'a Value>,
    /// `position.key`, `position.value` and `position.location` when they are strings.
    key: Option<&'a str>,
    value: Option<&'a str>,
    location: Option<&'a str>,
    /// [`ParamRef::source`]'s answer.
    source: Option<ParamSource<'a>>,
    /// Whether the active profile is `compat` (how `z` is parsed).
    compat: bool,
    /// What `z` parses to, worked out when a rule first asks and shared by every copy of this
    /// reference: several rules read the same parameter's `z`.
    parsed: Rc<ZParts>,
}

/// A parameter's `z`, parsed ([`ParamRef::primitive_parsed`], [`ParamRef::options_parsed`],
/// [`ParamRef::ztype`]).
#[derive(Default)]
struct ZParts {
    primitive: OnceCell<Option<Result<Primitive, ZodError>>>,
    options: OnceCell<Option<(ZOptions, Vec<ZodError>)>>,
    ztype: OnceCell<Option<Result<ZType, ZodError>>>,
}

impl<'a> ParamRef<'a> {
    /// The parameter `param` of `tool` at `path`; `declared` is `main.requiredServerParams`.
    fn new(
        tool: &'a String,
        param: &'a Map<String, Value>,
        path: JsonPath,
        declared: &[&str],
        profile: flowmcp_spec::Profile,
    ) -> ParamRef<'a> {
        let position = param.field("position").and_then(Value::as_object);
        let field = |name: &str| position.and_then(|p| p.field(name)).and_then(Value::as_str);
        let value = field("value");
        let z = param.field("z").and_then(Value::as_object);
        ParamRef {
            tool,
            path,
            position,
            z,
            primitive: z.and_then(|z| z.field("primitive")),
            options: z.and_then(|z| z.field("options")),
            key: field("key"),
            location: field("location"),
            source: value.map(|v| {
                flowmcp_spec::placeholder::param_role(v, |k| declared.contains(&k), profile)
            }),
            value,
            compat: profile.is_compat(),
            parsed: Rc::default(),
        }
    }
    /// `position` when it is an object.
    pub(crate) fn position(&self) -> Option<&'a Map<String, Value>> {
        self.position
    }
    /// `position.<field>` when it is a string.
    pub(crate) fn position_str(&self, field: &str) -> Option<&'a str> {
        match field {
            "key" => self.key,
            "value" => self.value,
            "location" => self.location,
            _ => self
                .position
                .and_then(|p| p.field(field))
                .and_then(Value::as_str),
        }
    }
    /// `z` when it is an object.
    pub(crate) fn z(&self) -> Option<&'a Map<String, Value>> {
        self.z
    }
    /// `z.primitive`, whatever its type (`None`: no `z` object, or no `primitive` in it).
    pub(crate) fn z_primitive(&self) -> Option<&'a Value> {
        self.primitive
    }
    /// `z.options`, whatever its type (`None`: no `z` object, or no `options` in it).
    pub(crate) fn z_options(&self) -> Option<&'a Value> {
        self.options
    }
    /// The source of the parameter's value under the active profile. `None` when
    /// `position.value` is missing or not a string (VAL042's business).
    pub(crate) fn source(&self) -> Option<ParamSource<'a>> {
        self.source
    }
    /// [`Primitive::parse`] of `z.primitive`, when it is a string.
    pub(crate) fn primitive_parsed(&self) -> Option<&Result<Primitive, ZodError>> {
        self.parsed
            .primitive
            .get_or_init(|| self.primitive.and_then(Value::as_str).map(Primitive::parse))
            .as_ref()
    }
    /// [`ZOptions::parse_lenient`] of the strings among `z.options` (in their order, without the
    /// entries that are not strings) under the active profile, when `z.options` is an array.
    pub(crate) fn options_parsed(&self) -> Option<&(ZOptions, Vec<ZodError>)> {
        self.parsed
            .options
            .get_or_init(|| {
                let items = self.options?.as_array()?;
                let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                Some(ZOptions::parse_lenient(&texts, self.compat))
            })
            .as_ref()
    }
    /// [`ZType::parse`] of `z.primitive` and `z.options` under the active profile, when the
    /// primitive is a string and `z.options` is absent (no options) or an array of strings only.
    pub(crate) fn ztype(&self) -> Option<&Result<ZType, ZodError>> {
        self.parsed
            .ztype
            .get_or_init(|| {
                let primitive = self.primitive_parsed()?.clone();
                let options = match self.options {
                    None => Ok(ZOptions::default()),
                    Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                        // Every entry is a string, so the lenient parse saw them all, at their own
                        // indices: its first problem is the one a strict parse stops at.
                        let (options, errors) = self.options_parsed()?;
                        match errors.first() {
                            Some(e) => Err(e.clone()),
                            None => Ok(options.clone()),
                        }
                    }
                    Some(_) => return None,
                };
                Some(ZType::from_parts(primitive, options, self.compat))
            })
            .as_ref()
    }
}

/// Every parameter object of every tool. Computed once per file.
pub(crate) fn each_parameter<'s, 'a>(ctx: &'s SchemaCtx<'a>) -> &'s [ParamRef<'a>] {
    ctx.read(param_members());
    ctx.params_cache.get_or_init(|| {
        let declared = required_server_params(ctx);
        let profile = ctx.profile();
        let mut out = Vec::new();
        for (tool, t, tool_path) in each_tool(ctx) {
            let Some(Value::Array(params)) = t.field("parameters") else {
                continue;
            };
            let base = tool_path.key("parameters");
            for (index, p) in params.iter().enumerate() {
                if let Some(param) = p.as_object() {
                    out.push(ParamRef::new(
                        tool,
                        param,
                        base.index(index),
                        &declared,
                        profile,
                    ));
                }
            }
        }
        out
    })
}

/// How a parameter gets its value: the one classification the validator, the descriptors and the
/// request builder share.
pub(crate) use flowmcp_spec::placeholder::ParamRole as ParamSource;

/// `main.requiredServerParams` entries that are strings.
pub(crate) fn required_server_params<'a>(ctx: &SchemaCtx<'a>) -> Vec<&'a str> {
    ctx.main_field("requiredServerParams")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The user-facing parameters of a tool: `(position.key, param)` for each parameter whose source is
/// [`ParamSource::User`] and whose key is a string.
pub(crate) fn user_params<'a>(ctx: &SchemaCtx<'a>, tool: &str) -> Vec<(&'a str, ParamRef<'a>)> {
    ctx.read(param_members());
    ctx.user_params_cache
        .get_or_init(|| {
            each_parameter(ctx)
                .iter()
                .filter(|p| p.source() == Some(ParamSource::User))
                .filter_map(|p| p.position_str("key").map(|k| (k, p.clone())))
                .collect()
        })
        .iter()
        .filter(|(_, p)| p.tool == tool)
        .cloned()
        .collect()
}

/// The insert parameters of a tool: `(position.key, parameter)`.
pub(super) fn insert_params<'a>(ctx: &SchemaCtx<'a>, tool: &str) -> Vec<(&'a str, ParamRef<'a>)> {
    each_parameter(ctx)
        .iter()
        .filter(|p| p.tool == tool && p.position_str("location") == Some("insert"))
        .filter_map(|p| p.position_str("key").map(|k| (k, p.clone())))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Placeholders in root, path, headers and position.value (the rules are in `params.rs`)
// ---------------------------------------------------------------------------------------

/// One of the five places where request placeholders live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Root,
    Path,
    MainHeader,
    ToolHeader,
    Value,
}

impl Place {
    pub(super) fn describe(self) -> &'static str {
        match self {
            Place::Root => "root",
            Place::Path => "a tool path",
            Place::MainHeader => "main.headers",
            Place::ToolHeader => "tool headers",
            Place::Value => "position.value",
        }
    }
}

/// A string in one of the five places.
pub(crate) struct Site<'a> {
    pub(super) place: Place,
    /// Where the string is: `base`, then `keys` ([`Site::path`], made for a finding only).
    pub(super) base: JsonPath,
    pub(super) keys: [Option<&'a str>; 2],
    pub(super) text: &'a str,
    /// The insert keys of the tool (for [`Place::Path`]).
    pub(super) insert_keys: Vec<&'a str>,
    /// The `{{…}}` in `text`.
    pub(super) found: Vec<Interpolation>,
}

impl Site<'_> {
    /// The path of the string.
    pub(super) fn path(&self) -> JsonPath {
        self.keys
            .iter()
            .flatten()
            .fold(self.base.clone(), |p, k| p.key(k))
    }
}

/// Every string in the five places: `main.root`, each tool's `path`, each `main.headers` value,
/// each tool `headers` value and each `position.value`.
/// Computed once per file: [`SchemaCtx::placeholder_sites`].
pub(crate) fn placeholder_sites<'a>(ctx: &SchemaCtx<'a>) -> Vec<Site<'a>> {
    let mut out = Vec::new();
    // What this reads is noted by [`SchemaCtx::placeholder_sites`], the one caller.
    let Some(main) = ctx.exports.get("main").and_then(Value::as_object) else {
        return out;
    };
    if let Some(Value::String(root)) = main.field("root") {
        out.push(Site {
            place: Place::Root,
            base: JsonPath::root("main"),
            keys: [Some("root"), None],
            text: root,
            insert_keys: Vec::new(),
            found: find_interpolations(root),
        });
    }
    let header_sites = |headers: Option<&'a Value>, base: JsonPath, place: Place| {
        headers
            .and_then(Value::as_object)
            .map(|h: &'a Map<String, Value>| {
                h.iter()
                    .filter_map(|(k, v)| {
                        v.as_str().map(|text| Site {
                            place,
                            base: base.clone(),
                            keys: [Some(k.as_str()), None],
                            text,
                            insert_keys: Vec::new(),
                            found: find_interpolations(text),
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    out.extend(header_sites(
        main.field("headers"),
        main_path("headers"),
        Place::MainHeader,
    ));
    for (name, tool, tool_path) in each_tool(ctx) {
        if let Some(Value::String(path)) = tool.field("path") {
            out.push(Site {
                place: Place::Path,
                base: tool_path.clone(),
                keys: [Some("path"), None],
                text: path,
                insert_keys: insert_params(ctx, name)
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect(),
                found: find_interpolations(path),
            });
        }
        out.extend(header_sites(
            tool.field("headers"),
            tool_path.key("headers"),
            Place::ToolHeader,
        ));
    }
    for p in each_parameter(ctx) {
        if let Some(value) = p.position_str("value") {
            out.push(Site {
                place: Place::Value,
                base: p.path.clone(),
                keys: [Some("position"), Some("value")],
                text: value,
                insert_keys: Vec::new(),
                found: find_interpolations(value),
            });
        }
    }
    out
}

/// Runs `rules` in order, passing over a rule every code of which is off under the collector's
/// settings (all it could report would be dropped). In a debug build each rule is held to the
/// codes it declares, which is what makes passing over it exact.
pub(crate) fn run<'r>(
    rules: impl IntoIterator<Item = &'r SchemaRule>,
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
) {
    run_with(rules, ctx, c, Trace::None);
}

/// What one run of a rule read and reported ([`Trace::Record`]).
#[derive(Clone, Debug)]
pub(crate) struct Ran {
    pub(crate) reads: Reads,
    pub(crate) found: Vec<flowmcp_spec::diagnostic::Diagnostic>,
}

/// What [`run_with`] does besides running the rules.
pub(crate) enum Trace<'t> {
    /// Nothing.
    None,
    /// Note, for each rule in order, what it read and reported (`None`: it did not run).
    Record(&'t mut Vec<Option<Ran>>),
    /// Take, for a rule that read nothing of `changed`, what it reported in the run `runs` was
    /// recorded in (made under `settings`, of a text that differs from this one only in the
    /// members of `main` that `changed` names), instead of running it again.
    Reuse {
        runs: &'t [Option<Ran>],
        settings: &'t flowmcp_spec::RuleSettings,
        changed: Reads,
    },
}

/// [`run`], with what `trace` asks for.
pub(crate) fn run_with<'r>(
    rules: impl IntoIterator<Item = &'r SchemaRule>,
    ctx: &SchemaCtx<'_>,
    c: &mut Collector<'_>,
    mut trace: Trace<'_>,
) {
    // Settings that only turn codes off keep every level that is on: no rule's levels need
    // comparing then.
    let narrowed = match &trace {
        Trace::Reuse { settings, .. } => c.settings().only_turns_off(settings),
        _ => false,
    };
    let off = off_codes(c.settings());
    for (i, rule) in rules.into_iter().enumerate() {
        if rule
            .codes
            .iter()
            .all(|&code| off.get(code as usize) == Some(&true))
        {
            if let Trace::Record(runs) = &mut trace {
                runs.push(None);
            }
            continue;
        }
        if let Trace::Reuse {
            runs,
            settings,
            changed,
        } = &trace
            && settings.profile == c.settings().profile
            && let Some(Some(ran)) = runs.get(i)
            && !ran.reads.meets(*changed)
            && (narrowed
                || rule
                    .codes
                    .iter()
                    .all(|&code| levels_kept(settings, c.settings(), code)))
        {
            for d in &ran.found {
                c.push(d.clone());
            }
            continue;
        }
        let before = c.len();
        ctx.take_reads();
        (rule.check)(ctx, c);
        debug_assert!(
            c.codes_since(before).all(|code| rule.codes.contains(&code)),
            "a rule declared {:?} but reported {:?}",
            rule.codes,
            c.codes_since(before).collect::<Vec<_>>()
        );
        if let Trace::Record(runs) = &mut trace {
            runs.push(Some(Ran {
                reads: ctx.take_reads(),
                found: c.since(before).to_vec(),
            }));
        }
    }
}

/// Whether every level of `code` under `now` is off or what it was under `then`: what a rule
/// reported of `code` under `then`, its severities set anew under `now`, is then what it reports
/// under `now`.
fn levels_kept(
    then: &flowmcp_spec::RuleSettings,
    now: &flowmcp_spec::RuleSettings,
    code: Code,
) -> bool {
    let kept = |variant: Option<&str>| {
        let level = now.level(code, variant);
        level == flowmcp_spec::Level::Off || level == then.level(code, variant)
    };
    kept(None) && code.info().variants.iter().all(|v| kept(Some(v.name)))
}

/// [`is_off`] of every code under `settings`, by the code's place in the registry. A thread
/// validates many files under the same few settings (a run's own, and those a fix is checked
/// with): the last few answers are kept and given again for equal settings.
fn off_codes(settings: &flowmcp_spec::RuleSettings) -> std::rc::Rc<Vec<bool>> {
    type Known = Vec<(flowmcp_spec::RuleSettings, std::rc::Rc<Vec<bool>>)>;
    const KEPT: usize = 4;
    thread_local! {
        static KNOWN: std::cell::RefCell<Known> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let known = KNOWN.with_borrow(|known| {
        known
            .iter()
            .find(|(s, _)| s == settings)
            .map(|(_, off)| off.clone())
    });
    if let Some(off) = known {
        return off;
    }
    let off: std::rc::Rc<Vec<bool>> = std::rc::Rc::new(
        flowmcp_spec::registry::RULES
            .iter()
            .map(|info| is_off(settings, info.code))
            .collect(),
    );
    KNOWN.with_borrow_mut(|known| {
        if known.len() == KEPT {
            known.remove(0);
        }
        known.push((settings.clone(), off.clone()));
    });
    off
}

/// Whether `code` is off under `settings` in each of its variants (nothing of it is reported).
pub(crate) fn is_off(settings: &flowmcp_spec::RuleSettings, code: Code) -> bool {
    settings.level(code, None) == flowmcp_spec::Level::Off
        && code
            .info()
            .variants
            .iter()
            .all(|v| settings.level(code, Some(v.name)) == flowmcp_spec::Level::Off)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk for strings holding `{{` finds what a plain recursive walk finds, in the same
    /// order (members and items in order, depth first), on random trees: strings with and without
    /// a pair, at every depth, after and before nested containers, in empty and full containers.
    #[test]
    fn i46_the_walk_for_paired_strings_meets_them_in_document_order() {
        fn reference<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
            match v {
                Value::String(s) if has_open_pair(s) => out.push(s),
                Value::Array(items) => items.iter().for_each(|i| reference(i, out)),
                Value::Object(map) => map.values().for_each(|i| reference(i, out)),
                _ => {}
            }
        }
        let mut below = crate::test_rng::below(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: u64| below(n as usize) as u64;
        let mut counter = 0;
        fn tree(depth: u32, next: &mut impl FnMut(u64) -> u64, counter: &mut u32) -> Value {
            *counter += 1;
            let kind = if depth == 0 { next(3) } else { next(5) };
            match kind {
                0 => Value::String(format!("{{{{s{counter}}}}}")),
                1 => Value::String(format!("plain {counter} {{")),
                2 => Value::from(*counter),
                3 => Value::Array(
                    (0..next(4))
                        .map(|_| tree(depth - 1, next, counter))
                        .collect(),
                ),
                _ => Value::Object(
                    (0..next(4))
                        .map(|i| (format!("k{i}"), tree(depth - 1, next, counter)))
                        .collect(),
                ),
            }
        }
        for round in 0..500 {
            let mut stack = Vec::new();
            let v = tree(1 + round % 6, &mut next, &mut counter);
            let mut want = Vec::new();
            reference(&v, &mut want);
            let mut got = Vec::new();
            open_pair_strings(&v, &mut stack, &mut |s| got.push(s));
            assert_eq!(got, want, "round {round}: {v}");
            assert_eq!(holds_open_pair(&v), !want.is_empty());
        }
    }

    /// The codes kept as off for some settings are the codes off under them, whatever settings
    /// were asked about before (more than are kept, so some are worked out again).
    #[test]
    fn i46_codes_kept_as_off_are_the_codes_off() {
        use flowmcp_spec::{Level, Profile, RuleSettings};
        let mut all = Vec::new();
        for profile in [Profile::Compat, Profile::Spec] {
            all.push(RuleSettings::new(profile));
            for (code, level) in [
                (Code::VAL089, Level::Off),
                (Code::TST008, Level::Error),
                (Code::VAL001, Level::Off),
            ] {
                let mut one = RuleSettings::new(profile);
                one.overrides.set(code, level);
                all.push(one);
            }
        }
        assert!(all.len() > 4);
        for round in 0..3 {
            for settings in all.iter().chain(all.iter().rev()) {
                let off = off_codes(settings);
                let worked: Vec<bool> = flowmcp_spec::registry::RULES
                    .iter()
                    .map(|info| is_off(settings, info.code))
                    .collect();
                assert_eq!(*off, worked, "round {round}: {settings:?}");
            }
        }
    }

    /// A field found by scanning a small object is the one its map finds, on both sides of the
    /// size where the scan stops (issue #46, D182).
    #[test]
    fn i46_a_field_is_what_the_map_holds() {
        for size in [0, 1, SCANNED - 1, SCANNED, SCANNED + 1, 3 * SCANNED] {
            let map: Map<String, Value> = (0..size)
                .map(|i| (format!("k{i}"), Value::from(i)))
                .collect();
            let value = Value::Object(map.clone());
            for key in (0..size + 2)
                .map(|i| format!("k{i}"))
                .chain(["".into(), "k".into()])
            {
                assert_eq!(map.field(&key), map.get(&key), "{size} {key}");
                assert_eq!(value.field(&key), map.get(&key), "{size} {key}");
            }
        }
        assert_eq!(Value::from("k0").field("k0"), None);
    }

    /// What a parameter keeps from the one lookup of its fields is what looking them up each
    /// time reads, for every shape a parameter can have (issue #46).
    #[test]
    fn i46_a_parameter_keeps_what_its_lookups_read() {
        let shapes = serde_json::json!([
            { "position": { "key": "id", "value": "{{USER_PARAM}}", "location": "insert" },
              "z": { "primitive": "string()", "options": [ "min(1)" ] } },
            { "position": { "key": "k", "value": "{{SERVER_PARAM:KEY}}", "location": 1 },
              "z": { "primitive": 3 } },
            { "position": { "key": 5, "value": "{{KEY}}" }, "z": [] },
            { "position": { "value": "fixed {{x}}", "other": "o" }, "z": { "options": "x" } },
            { "position": [ "not", "an", "object" ] },
            { "z": null },
            {},
            { "z": { "primitive": "enum(a,b)", "options": [ "default(c)" ] } },
            { "z": { "primitive": "enum()", "options": [ "values(a,b)", 4, "default(a)" ] } },
            { "z": { "primitive": "enum()", "options": [ "values(a,b)", "default(a)" ] } },
            { "z": { "primitive": "number()", "options": [ "bogus()", "min(1)", "regex(^a$)" ] } },
            { "z": { "primitive": "strin()", "options": [ "optional()" ] } },
            { "z": { "primitive": "number()" } }
        ]);
        let tool = "t".to_string();
        for profile in [flowmcp_spec::Profile::Spec, flowmcp_spec::Profile::Compat] {
            for (i, shape) in shapes.as_array().into_iter().flatten().enumerate() {
                let Some(param) = shape.as_object() else {
                    continue;
                };
                let p = ParamRef::new(&tool, param, JsonPath::root("main"), &["KEY"], profile);
                let position = param.get("position").and_then(Value::as_object);
                let z = param.get("z").and_then(Value::as_object);
                assert_eq!(p.position(), position, "{i}");
                assert_eq!(p.z(), z, "{i}");
                assert_eq!(p.z_primitive(), z.and_then(|z| z.get("primitive")), "{i}");
                assert_eq!(p.z_options(), z.and_then(|z| z.get("options")), "{i}");
                for field in ["key", "value", "location", "other", "missing"] {
                    let looked = position.and_then(|p| p.get(field)).and_then(Value::as_str);
                    assert_eq!(p.position_str(field), looked, "{i} {field}");
                }
                let role = position
                    .and_then(|p| p.get("value"))
                    .and_then(Value::as_str)
                    .map(|v| flowmcp_spec::placeholder::param_role(v, |k| k == "KEY", profile));
                assert_eq!(p.source(), role, "{i}");
                // The parsed `z` is what parsing the texts on each use gave.
                let compat = profile.is_compat();
                let primitive = z.and_then(|z| z.get("primitive")).and_then(Value::as_str);
                let options = z.and_then(|z| z.get("options"));
                assert_eq!(
                    p.primitive_parsed(),
                    primitive.map(Primitive::parse).as_ref(),
                    "{i}"
                );
                let lenient = options.and_then(Value::as_array).map(|items| {
                    let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                    ZOptions::parse_lenient(&texts, compat)
                });
                assert_eq!(p.options_parsed(), lenient.as_ref(), "{i}");
                let texts: Option<Vec<&str>> = match options {
                    None => Some(Vec::new()),
                    Some(Value::Array(items)) => items.iter().map(Value::as_str).collect(),
                    Some(_) => None,
                };
                let whole = primitive
                    .zip(texts)
                    .map(|(primitive, texts)| ZType::parse(primitive, &texts, compat));
                assert_eq!(p.ztype(), whole.as_ref(), "{i}");
            }
        }
    }

    thread_local! {
        /// How many times the test rules below ran.
        static RAN: Cell<u32> = const { Cell::new(0) };
    }

    fn reads_tags(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
        RAN.with(|r| r.set(r.get() + 1));
        if let Some(tags) = ctx.main_field("tags") {
            c.emit(Code::VAL089, None, tags.to_string());
        }
    }

    fn reads_main(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
        RAN.with(|r| r.set(r.get() + 1));
        if let Some(Value::Object(main)) = ctx.export("main") {
            c.emit(Code::VAL021, None, main.len().to_string());
        }
    }

    /// A rule that read none of the changed members is not run again and reports what it
    /// reported before; one that read a changed member, or all of `main`, runs again (D186).
    #[test]
    fn i46_a_rule_runs_again_only_when_it_read_what_changed() {
        let rules = [
            SchemaRule {
                codes: &[Code::VAL089],
                check: reads_tags,
            },
            SchemaRule {
                codes: &[Code::VAL021],
                check: reads_main,
            },
        ];
        let opts = Options::new(flowmcp_spec::Profile::Spec);
        let loaded = flowmcp_loader::load_source(
            Path::new("s.mjs"),
            "s.mjs",
            "export const main = { root: 'https://a.example', tags: [ 'before' ] }\n",
            &opts.limits,
            &opts.settings,
        );
        let exports = loaded.exports.clone().unwrap();
        let mut edited = exports.clone();
        edited.data["main"]["tags"] = serde_json::json!(["after"]);
        let mut runs = Vec::new();
        let ctx = SchemaCtx::new(&exports, &opts, &loaded);
        let mut c = Collector::new(&opts.settings, None);
        run_with(&rules, &ctx, &mut c, Trace::Record(&mut runs));
        let before: Vec<String> = c.finish().into_iter().map(|d| d.message).collect();
        assert_eq!(before, ["[\"before\"]", "2"]);
        assert_eq!(
            runs[0].as_ref().map(|r| r.reads),
            Some(Reads::member("tags"))
        );
        assert_eq!(runs[1].as_ref().map(|r| r.reads), Some(Reads::ALL));
        let again = |changed: Reads| {
            RAN.with(|r| r.set(0));
            let ctx = SchemaCtx::new(&edited, &opts, &loaded);
            let mut c = Collector::new(&opts.settings, None);
            let trace = Trace::Reuse {
                runs: &runs,
                settings: &opts.settings,
                changed,
            };
            run_with(&rules, &ctx, &mut c, trace);
            let found: Vec<String> = c.finish().into_iter().map(|d| d.message).collect();
            (RAN.with(Cell::get), found)
        };
        // The tags changed: both run, and the new tags are reported.
        assert_eq!(
            again(Reads::member("tags")),
            (2, vec!["[\"after\"]".into(), "2".into()])
        );
        // Said to be the root: the tags rule is not run, its old finding is taken.
        assert_eq!(again(Reads::member("root")), (1, before.clone()));
        // A member the list does not name counts as all of `main`.
        assert_eq!(Reads::member("x-custom"), Reads::ALL);
        assert_eq!(again(Reads::member("x-custom")).0, 2);
        // Under settings that give VAL089 another level, nothing is taken.
        let mut other = opts.settings.clone();
        let level = match opts.settings.level(Code::VAL089, None) {
            flowmcp_spec::Level::Info => flowmcp_spec::Level::Error,
            _ => flowmcp_spec::Level::Info,
        };
        other.overrides.set(Code::VAL089, level);
        let ctx = SchemaCtx::new(&edited, &opts, &loaded);
        let mut c = Collector::new(&other, None);
        RAN.with(|r| r.set(0));
        let trace = Trace::Reuse {
            runs: &runs,
            settings: &opts.settings,
            changed: Reads::member("root"),
        };
        run_with(&rules, &ctx, &mut c, trace);
        assert_eq!(RAN.with(Cell::get), 2);
    }

    /// What a rule is recorded to have read is all its findings depend on: for every schema
    /// fixture, under both profiles, each member of `main` is given other values in turn, and
    /// every rule whose reads do not meet that member reports exactly what it reported before
    /// (D186). A rule that reached a member without its accessor noting it fails here.
    #[test]
    fn i46_a_rule_reads_no_more_than_it_is_recorded_to() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files: Vec<_> = std::fs::read_dir(&fixtures)
            .unwrap()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "mjs"))
            .collect();
        files.sort();
        let others = [
            Value::Null,
            Value::from("changed"),
            serde_json::json!(["changed", 1]),
            serde_json::json!({ "changed": { "path": "/x", "parameters": [] } }),
            // Strings holding a `{{` (one a prompt placeholder, which PH004 reports).
            Value::from("{{input:query}}"),
            serde_json::json!({ "changed": ["{{ nothing }}", { "d": "{{tool:x}}" }] }),
        ];
        let (mut compared, mut kept) = (0usize, 0usize);
        for file in &files {
            let Ok(source) = std::fs::read_to_string(file) else {
                continue;
            };
            for profile in [flowmcp_spec::Profile::Spec, flowmcp_spec::Profile::Compat] {
                let opts = Options::new(profile);
                let display = file.display().to_string();
                let loaded = flowmcp_loader::load_source(
                    file,
                    &display,
                    &source,
                    &opts.limits,
                    &opts.settings,
                );
                let Some(exports) = loaded.exports.as_ref() else {
                    continue;
                };
                let Some(main) = exports.get("main").and_then(Value::as_object) else {
                    continue;
                };
                let record = |exports: &Exports| {
                    let ctx = SchemaCtx::new(exports, &opts, &loaded);
                    let mut c = Collector::new(&opts.settings, None);
                    let mut runs = Vec::new();
                    run_with(
                        crate::rules::schema_rules(),
                        &ctx,
                        &mut c,
                        Trace::Record(&mut runs),
                    );
                    runs
                };
                let first = record(exports);
                for member in main.keys() {
                    for other in &others {
                        let mut changed = exports.clone();
                        changed.data["main"][member.as_str()] = other.clone();
                        let again = record(&changed);
                        for (i, (was, now)) in first.iter().zip(&again).enumerate() {
                            let (Some(was), Some(now)) = (was, now) else {
                                continue;
                            };
                            compared += 1;
                            let changed =
                                Reads::replaced(Some(member), &main[member.as_str()], Some(other));
                            if was.reads.meets(changed) {
                                continue;
                            }
                            kept += 1;
                            assert_eq!(
                                was.found, now.found,
                                "{display}: rule {i} said it did not read main.{member}"
                            );
                        }
                    }
                }
            }
        }
        assert!(
            compared > 10_000 && kept > 1_000,
            "{compared} compared, {kept} kept"
        );
    }
}
