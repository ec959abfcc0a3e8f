//! Resources called like tools (chapter 13).
//!
//! Every query of a SQLite-backed resource (`source: 'sqlite'` or `'http'`) becomes a callable
//! entry of the toolset: the schema's own queries in declaration order, then the injected
//! `runSql` and `describeTables`. A markdown resource becomes one entry that reads the document
//! whole or by `section`, `lines` or `search`. They are described here ([`describe_resources`])
//! and run by [`crate::Runner`], which keeps the open databases and read documents of its
//! thread.
//!
//! * **Names.** The entries of a resource share its Primitive-ID `namespace/resource/<name>`;
//!   a query is shown as `<resource>.<query>` and found by its wire name `<query>_<namespace>`
//!   or by `namespace/resource/<resource>.<query>`; a markdown resource by its ID or its wire
//!   name `<resource>_<namespace>`.
//! * **Hints.** Every entry is `openWorldHint: false` and `anthropic/alwaysLoad: false`, with
//!   the resource's description as `anthropic/searchHint`. Entries are read-only and not
//!   destructive, except on a `file-based` resource: there `runSql` (any statement) and a
//!   schema query that does not begin with `SELECT` or `WITH` may change the database.
//! * **Parameters.** A query's parameters are bound to its `?` placeholders in declaration
//!   order: a user parameter (`{{USER_PARAM}}`, or under compat an undeclared bare `{{X}}`, the
//!   rule tool parameters follow) from the call's inputs (its default when it was not given,
//!   `NULL` when it has none), any other value as the fixed text written. Each parameter's role is
//!   decided once, when the query's descriptor is built.
//! * **sqlite-gtfs** resources are checked by validation but give no callable entry: their
//!   tools come from an add-on, which this runtime does not load.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::envelope::Failure;
use flowmcp_files::Root;
use flowmcp_resources::http::{FetchFailure, Fetcher, HttpResource};
use flowmcp_resources::markdown::{Document, MarkdownError};
use flowmcp_resources::sqlite::{
    Database, Limits, Locations, Mode, OpenError, Origin, PathError, SqlError,
};
use flowmcp_spec::Profile;
use flowmcp_spec::id::{IdType, PrimitiveId, id_text};
use flowmcp_spec::model::{
    Resource, ResourceMode, ResourceOrigin, ResourceQuery, ResourceSource, SchemaMain,
};
use flowmcp_spec::paths::{DatabasePath, database_path};
use flowmcp_spec::placeholder::ParamRole;
use flowmcp_spec::zod::{Options, Primitive, ZType};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::descriptor::{
    Builtin, Kind, QueryBinding, ToolDescriptor, UserParam, input_schema, query_wire_name,
    wire_name,
};
use crate::envelope::Coded;
use crate::schema::LoadedSchema;
use crate::transport::{HttpRequest, Method, Transport};
use flowmcp_spec::Code;

/// Where resources live and how far a call into one may go.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ResourceOptions {
    /// The project base directory (the project's `.flowmcp/`, or its folder of the configured
    /// base name; the CLI finds the project from the catalog's location, not from the current
    /// directory): `project` resources are `<project_base>/resources/<name>`, and downloaded
    /// `http` resources are cached under `<project_base>/cache/resources/`. `None`: such
    /// resources fail with a message saying so.
    pub project_base: Option<PathBuf>,
    /// The user's home directory: `global` resources are `<home>/.<base>/resources/<name>`.
    pub home: Option<PathBuf>,
    /// The base folder name (`flowmcp` unless configured).
    pub base: String,
    /// How long one SQL statement may run (E003 after it).
    pub query_timeout: Duration,
    /// The cap on a query result's size as JSON, approximately, in bytes.
    pub max_result_bytes: usize,
    /// The largest markdown document read, in bytes (MD001 above it).
    pub markdown_max_bytes: u64,
}

impl ResourceOptions {
    /// Sets the base folder name ([`ResourceOptions::base`]) after checking it is a plain
    /// folder name (not empty, no path separator, no `..`); a refused name changes nothing.
    pub fn set_base(&mut self, base: &str) -> Result<(), PathError> {
        Locations::check_base(base)?;
        base.clone_into(&mut self.base);
        Ok(())
    }
}

impl Default for ResourceOptions {
    fn default() -> Self {
        let limits = flowmcp_resources::sqlite::QueryLimits::default();
        ResourceOptions {
            project_base: None,
            home: None,
            base: flowmcp_resources::sqlite::DEFAULT_BASE.to_owned(),
            query_timeout: limits.timeout,
            max_result_bytes: limits.max_bytes,
            markdown_max_bytes: flowmcp_resources::markdown::DEFAULT_MAX_BYTES,
        }
    }
}

impl ResourceOptions {
    /// The directories the origins of a schema at `schema_path` resolve against.
    pub(crate) fn locations(&self, schema_path: &Path) -> Locations {
        let mut locations = Locations::default();
        locations.schema_dir = schema_path
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    d.to_path_buf()
                }
            })
            .or_else(|| Some(PathBuf::from(".")));
        locations.project_base = self.project_base.clone();
        locations.home = self.home.clone();
        locations.base = self.base.clone();
        locations
    }
}

/// The resource's SQLite mode: `file-based` writes, everything else reads only.
pub(crate) fn sqlite_mode(r: &Resource) -> Mode {
    match r.mode {
        Some(ResourceMode::FileBased) => Mode::FileBased,
        _ => Mode::ReadOnly,
    }
}

/// The resource's origin as the engine spells it (`inline` when the schema gives none).
pub(crate) fn origin(r: &Resource) -> Origin {
    match r.origin {
        Some(ResourceOrigin::Project) => Origin::Project,
        Some(ResourceOrigin::Global) => Origin::Global,
        _ => Origin::Inline,
    }
}

/// Whether a statement's text begins with `SELECT` or `WITH` (after white space, comments and
/// opening parentheses): the hint that a schema query only reads.
fn reads_only(sql: &str) -> bool {
    let mut rest = sql.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("--") {
            rest = r
                .split_once('\n')
                .map_or("", |(_, after)| after)
                .trim_start();
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r
                .split_once("*/")
                .map_or("", |(_, after)| after)
                .trim_start();
        } else if let Some(r) = rest.strip_prefix('(') {
            rest = r.trim_start();
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_uppercase();
    word == "SELECT" || word == "WITH"
}

/// The entries of a schema's resources, in declaration order, and the problems of those that
/// cannot be described (each a message naming the resource).
pub(crate) fn describe_resources(
    main: &SchemaMain,
    resources: &IndexMap<String, Resource>,
    profile: Profile,
) -> (Vec<ToolDescriptor>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (name, r) in resources {
        let compat = profile.is_compat();
        let id = match PrimitiveId::defined(&main.namespace, IdType::Resource, name, compat) {
            Ok(defined) => defined,
            Err(e) => {
                problems.push(format!("resource \"{name}\": no valid ID: {e}"));
                continue;
            }
        };
        let warnings: Vec<String> = id.warning("resource", name).into_iter().collect();
        let base = Entry {
            main,
            name,
            resource: r,
            id: &id.id,
            compat,
            warnings: &warnings,
        };
        match r.source {
            ResourceSource::Markdown => out.push(base.document()),
            ResourceSource::Sqlite | ResourceSource::Http => {
                for (qname, q) in &r.queries {
                    match base.query(qname, q, profile) {
                        Ok(d) => out.push(d),
                        Err(e) => problems.push(e),
                    }
                }
                for b in Builtin::ALL {
                    if !r.queries.contains_key(b.name()) {
                        out.push(base.builtin(b));
                    }
                }
            }
            ResourceSource::SqliteGtfs => {}
        }
    }
    (out, problems)
}

/// What every entry of one resource shares.
struct Entry<'a> {
    main: &'a SchemaMain,
    name: &'a str,
    resource: &'a Resource,
    id: &'a PrimitiveId,
    /// Under `compat`: names that are not valid ID names are sanitised.
    compat: bool,
    warnings: &'a [String],
}

impl Entry<'_> {
    fn descriptor(
        &self,
        tool: &str,
        kind: Kind,
        description: String,
        params: Vec<UserParam>,
        writes: bool,
    ) -> ToolDescriptor {
        let mut meta = Map::new();
        meta.insert("anthropic/alwaysLoad".into(), json!(false));
        if !self.resource.description.trim().is_empty() {
            meta.insert(
                "anthropic/searchHint".into(),
                json!(self.resource.description),
            );
        }
        let mut warnings = self.warnings.to_vec();
        // A query's own ID; the resource's ID (already valid) joined with a query name, which
        // `sanitize_name` always makes valid, so the fallback is never taken.
        let entry_id = match &kind {
            Kind::Query { .. } => match self.id.query(tool, self.compat) {
                Ok(defined) => {
                    warnings.extend(defined.warning("query", tool));
                    defined.id
                }
                Err(_) => self.id.clone(),
            },
            Kind::Tool | Kind::Document { .. } => self.id.clone(),
        };
        let mut d = ToolDescriptor {
            id: self.id.clone(),
            entry_id,
            tool: tool.to_string(),
            kind,
            namespace: self.main.namespace.clone(),
            wire_name: String::new(),
            description,
            input_schema: input_schema(&params),
            params,
            output_schema: None,
            output_mime_type: None,
            annotations: Some(json!({
                "readOnlyHint": !writes,
                "destructiveHint": writes,
                "openWorldHint": false,
            })),
            meta: Some(Value::Object(meta)),
            tool_meta: None,
            required_server_params: Vec::new(),
            missing_server_params: Vec::new(),
            warnings,
            request: None,
            query: None,
        };
        d.wire_name = match &d.kind {
            Kind::Query { .. } => {
                query_wire_name(crate::ToolNames::Spec, tool, &self.main.namespace)
            }
            _ => wire_name(self.id),
        };
        d
    }

    fn document(&self) -> ToolDescriptor {
        let param = |key: &str, what: &str| UserParam {
            key: key.to_string(),
            z: builtin_z("string()", &["optional()"]),
            description: Some(what.to_string()),
            alias: None,
        };
        let params = vec![
            param(
                "section",
                "A heading: the section it starts, up to the next heading of the same or a higher level (`## Install`, or `Install` at any level)",
            ),
            param(
                "lines",
                "A line range, 1-based and inclusive: `from-to` (`11-33`), `n` or `from-`",
            ),
            param(
                "search",
                "Text to find, ignoring case; each match comes with 2 lines of context",
            ),
        ];
        let description = format!(
            "{} (markdown document; without arguments the whole text, or give one of `section`, `lines`, `search`)",
            self.resource.description.trim_end_matches('.')
        );
        self.descriptor(
            self.name,
            Kind::Document {
                resource: self.name.to_string(),
            },
            description,
            params,
            false,
        )
    }

    fn query(
        &self,
        qname: &str,
        q: &ResourceQuery,
        profile: Profile,
    ) -> Result<ToolDescriptor, String> {
        let mut params = Vec::new();
        // Each parameter's role, decided once by the rule tool parameters and the validator use:
        // the caller's value, or the text as written (a server parameter is never bound into SQL;
        // validation rejects one, RES016).
        let bindings: Arc<[QueryBinding]> = q
            .parameters
            .iter()
            .map(
                |p| match p.role(&self.main.required_server_params, profile) {
                    ParamRole::User => QueryBinding::User(p.position.key.clone()),
                    ParamRole::Server(_) | ParamRole::Fixed(_) => {
                        QueryBinding::Fixed(p.position.value.clone())
                    }
                },
            )
            .collect();
        for (p, _) in q
            .parameters
            .iter()
            .zip(bindings.iter())
            .filter(|(_, b)| matches!(b, QueryBinding::User(_)))
        {
            let z = p.z.parse(profile.is_compat()).map_err(|e| {
                format!(
                    "resource \"{}\", query \"{qname}\", parameter \"{}\": {e}",
                    self.name, p.position.key
                )
            })?;
            params.push(UserParam {
                key: p.position.key.clone(),
                z,
                description: p.description.clone(),
                alias: None,
            });
        }
        let writes = sqlite_mode(self.resource) == Mode::FileBased && !reads_only(&q.sql);
        let mut d = self.descriptor(
            qname,
            Kind::Query {
                resource: self.name.to_string(),
                builtin: None,
            },
            q.description.clone(),
            params,
            writes,
        );
        d.output_schema = q.output.as_ref().map(|o| o.schema.clone());
        d.query = Some(bindings);
        Ok(d)
    }

    fn builtin(&self, b: Builtin) -> ToolDescriptor {
        let file_based = sqlite_mode(self.resource) == Mode::FileBased;
        let what = self.resource.description.trim_end_matches('.');
        let (description, params, writes) = match b {
            Builtin::RunSql => {
                let sql = UserParam {
                    key: "sql".into(),
                    z: builtin_z("string()", &["min(1)"]),
                    description: Some(if file_based {
                        "One SQL statement (any kind: this database is writable)".into()
                    } else {
                        "One SQL statement that reads (SELECT or WITH … SELECT)".into()
                    }),
                    alias: None,
                };
                let limit = UserParam {
                    key: "limit".into(),
                    z: builtin_z("number()", &["min(1)", "optional()"]),
                    description: Some(format!(
                        "The most rows to return (default {}, at most {})",
                        flowmcp_resources::sqlite::DEFAULT_ROWS,
                        flowmcp_resources::sqlite::MAX_ROWS
                    )),
                    alias: None,
                };
                let kind = if file_based {
                    "Run one SQL statement (reads and writes)"
                } else {
                    "Run one read-only SQL query"
                };
                (
                    format!(
                        "{kind} against {what}. Rows come back as objects keyed by column; see describeTables for the tables."
                    ),
                    vec![sql, limit],
                    file_based,
                )
            }
            Builtin::DescribeTables => (
                format!(
                    "List every table and column of {what}: one row {{table_name, column, type}} per column."
                ),
                Vec::new(),
                false,
            ),
        };
        self.descriptor(
            b.name(),
            Kind::Query {
                resource: self.name.to_string(),
                builtin: Some(b),
            },
            description,
            params,
            writes,
        )
    }
}

/// The type of an injected parameter, written as a schema would (the texts are fixed and parse;
/// a plain string type stands in should one not).
fn builtin_z(primitive: &str, options: &[&str]) -> ZType {
    ZType::parse(primitive, options, false).unwrap_or(ZType {
        primitive: Primitive::String,
        options: Options::default(),
    })
}

/// The values bound to a schema query's `?` placeholders, in parameter order.
pub(crate) fn bound_values(
    bindings: &[QueryBinding],
    inputs: &IndexMap<String, Value>,
) -> Vec<Value> {
    bindings
        .iter()
        .map(|b| match b {
            QueryBinding::User(key) => inputs.get(key).cloned().unwrap_or(Value::Null),
            QueryBinding::Fixed(text) => Value::String(text.clone()),
        })
        .collect()
}

/// A file's modification time and length, to see that it changed.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let m = flowmcp_files::named::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// The databases and documents one runner has opened (a database connection serves one thread;
/// each runner keeps its own).
#[derive(Default)]
pub(crate) struct OpenResources {
    /// Open databases with their schema index and resource name; a downloaded one with the time
    /// its copy is due to be fetched again. A runner opens few, so a list beats a map.
    dbs: RefCell<Vec<(usize, String, OpenDb)>>,
    /// Read documents by path, with the stamp of the file when read.
    docs: RefCell<HashMap<PathBuf, (Stamp, Arc<Document>)>>,
}

/// An open database, and for a downloaded one when its copy expires.
struct OpenDb {
    db: Database,
    refresh_at: Option<Instant>,
}

/// What a call into a resource needs from the runner besides the resource: where files live,
/// how to download, and where to put warnings.
pub(crate) struct Access<'a> {
    pub(crate) opts: &'a ResourceOptions,
    pub(crate) fetcher: &'a dyn Fetcher,
    /// The base URL replacing the origin of the namespace's `http` resources (`--upstream`).
    pub(crate) upstream: Option<&'a str>,
}

impl OpenResources {
    /// Runs `f` on the open database of resource `name` of the schema at `index`, opening it
    /// first when this runner has not yet, or again when a downloaded copy has expired.
    /// Warnings (a stale copy used offline) go to `warnings`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn with_db<R>(
        &self,
        index: usize,
        schema: &LoadedSchema,
        name: &str,
        r: &Resource,
        access: &Access<'_>,
        warnings: &mut Vec<String>,
        f: impl FnOnce(&Database) -> Result<R, Coded>,
    ) -> Result<R, Coded> {
        let mut dbs = self.dbs.borrow_mut();
        let at = dbs.iter().position(|(i, n, _)| *i == index && n == name);
        if let Some((_, _, open)) = at.and_then(|k| dbs.get(k))
            && open.refresh_at.is_none_or(|due| Instant::now() < due)
        {
            return f(&open.db);
        }
        let open = open_database(schema, name, r, access, warnings)?;
        let slot = match at {
            Some(k) => {
                if let Some(entry) = dbs.get_mut(k) {
                    entry.2 = open;
                }
                k
            }
            None => {
                dbs.push((index, name.to_string(), open));
                dbs.len() - 1
            }
        };
        match dbs.get(slot) {
            Some((_, _, open)) => f(&open.db),
            None => Err(Coded(
                Code::RES033,
                format!("resource \"{name}\" is not open"),
            )),
        }
    }

    /// The markdown document of resource `name`, read again when the file changed.
    pub(crate) fn document(
        &self,
        schema: &LoadedSchema,
        name: &str,
        r: &Resource,
        opts: &ResourceOptions,
    ) -> Result<Arc<Document>, Coded> {
        let (root, relative) = opts
            .locations(&schema.path)
            .place(origin(r), resource_file(r, name)?)
            .map_err(|e| path_error(name, &e))?;
        let path = root.resolve(&relative).map_err(|e| path_error(name, &e))?;
        let now = stamp(&path);
        if let Some((seen, doc)) = self.docs.borrow().get(&path)
            && *seen == now
            && now.is_some()
        {
            return Ok(doc.clone());
        }
        // Opened through the origin's directory handle, not by the path just resolved.
        let unreadable = |kind: std::io::ErrorKind, message: String| {
            markdown_error(&flowmcp_resources::MarkdownError::Read {
                path: path.clone(),
                kind,
                message,
            })
        };
        let file = root.open_file(Path::new(&relative)).map_err(|e| match e {
            flowmcp_files::PathError::Io { source, .. } => {
                unreadable(source.kind(), source.to_string())
            }
            flowmcp_files::PathError::NotRegular { .. } => unreadable(
                std::io::ErrorKind::InvalidInput,
                "not a regular file".to_owned(),
            ),
            other => path_error(name, &other),
        })?;
        let doc = Arc::new(
            Document::read_file(file, &path, opts.markdown_max_bytes)
                .map_err(|e| markdown_error(&e))?,
        );
        self.docs.borrow_mut().insert(path, (now, doc.clone()));
        Ok(doc)
    }
}

/// The resource's `name` (its file name), required for sqlite and markdown resources.
pub(crate) fn resource_file<'r>(r: &'r Resource, resource: &str) -> Result<&'r str, Coded> {
    r.name.as_deref().ok_or_else(|| {
        Coded(
            Code::RES027,
            format!("resource \"{resource}\" has no file `name`"),
        )
    })
}

/// Opens the database of a `sqlite` resource as its mode says, or the local copy of an `http`
/// one (downloaded first when it is missing or older than its `cacheTtl`).
fn open_database(
    schema: &LoadedSchema,
    name: &str,
    r: &Resource,
    access: &Access<'_>,
    warnings: &mut Vec<String>,
) -> Result<OpenDb, Coded> {
    let opts = access.opts;
    let mode = sqlite_mode(r);
    let limits = Limits::default();
    let (path, refresh_at) = match r.source {
        ResourceSource::Sqlite
            if r.origin.is_none() && r.name.is_none() && r.database.is_some() =>
        {
            (compat_database_path(schema, name, r, opts)?, None)
        }
        ResourceSource::Sqlite => {
            let path = opts
                .locations(&schema.path)
                .resolve(origin(r), resource_file(r, name)?)
                .map_err(|e| path_error(name, &e))?;
            if mode == Mode::ReadOnly
                && origin(r) == Origin::Inline
                && flowmcp_files::named::symlink_metadata(&path).is_err()
                && let Some(sql_file) = schema_sql_file(&schema.path, r)
            {
                build_from_sql(&path, &sql_file, &limits)?;
            }
            (path, None)
        }
        ResourceSource::Http => http_copy(schema, name, r, access, warnings)?,
        _ => {
            return Err(Coded(
                Code::E009,
                format!("resource \"{name}\" is not a SQLite database this runtime opens"),
            ));
        }
    };
    let db = Database::open(&path, mode, &limits).map_err(|e| {
        let mut message = e.to_string();
        if matches!(e, OpenError::Missing { .. }) && mode == Mode::FileBased {
            message = format!(
                "no database file at {}: the file-based resource {} is not created yet",
                path.display(),
                id_text(&schema.main.namespace, IdType::Resource, name)
            );
        }
        Coded(e.code(), message)
    })?;
    Ok(OpenDb { db, refresh_at })
}

/// The file of a `sqlite` resource in the FlowMCP 3.0 form (compat): `database` is
/// `~/.<base>/…` (inside the user's flowmcp folder, `~/.flowmcp/` by default) or relative to the
/// schema's directory. Unlike the reference, which reads a relative path against the working
/// directory and `~/` anywhere in the home directory, the file is where the schema says whatever
/// directory the server starts in, and only inside those two roots (`flowmcp_files::Root`).
fn compat_database_path(
    schema: &LoadedSchema,
    name: &str,
    r: &Resource,
    opts: &ResourceOptions,
) -> Result<PathBuf, Coded> {
    let database = r.database.as_deref().unwrap_or_default();
    let refuse = |why: String| {
        Coded(
            Code::SEC021,
            format!("resource \"{name}\": database path {database:?} {why}"),
        )
    };
    let resolved = match database_path(database, &opts.base).map_err(|f| refuse(f.to_string()))? {
        DatabasePath::HomeFolder(inner) => {
            let home = opts
                .home
                .as_deref()
                .ok_or_else(|| refuse("needs a home directory, and none is known".into()))?;
            Root::new(home.join(format!(".{}", opts.base))).resolve(inner)
        }
        DatabasePath::BesideSchema(relative) => Root::new(schema_dir(schema)).resolve(relative),
    };
    resolved.map_err(|e| path_error(name, &e))
}

/// The directory of a schema file (`.` for a bare file name).
fn schema_dir(schema: &LoadedSchema) -> PathBuf {
    match schema.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `cacheTtl` when a schema leaves it out (compat): one day.
const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(86_400);

/// The local copy of an `http` resource, fetched when missing or expired, and when it is due
/// again. Its cache file is `path` when the schema gives one (relative to the project base),
/// else `<project base>/cache/resources/<sha256(url)>.db` (the schema's `url`, also when an
/// `--upstream` serves it). A `path` without `url` (compat) is
/// a local file, relative to the schema's directory, used as it is.
fn http_copy(
    schema: &LoadedSchema,
    name: &str,
    r: &Resource,
    access: &Access<'_>,
    warnings: &mut Vec<String>,
) -> Result<(PathBuf, Option<Instant>), Coded> {
    let Some(url) = r.url.as_deref() else {
        let local = r.path.as_deref().ok_or_else(|| {
            Coded(
                Code::RES024,
                format!("resource \"{name}\" has neither `url` nor `path`"),
            )
        })?;
        let file = Root::new(schema_dir(schema))
            .resolve(local)
            .map_err(|e| path_error(name, &e))?;
        return Ok((file, None));
    };
    let base = access.opts.project_base.as_deref().ok_or_else(|| {
        Coded(
            Code::RES020,
            format!("resource \"{name}\": no project directory to keep the downloaded copy in"),
        )
    })?;
    let effective = match access.upstream {
        Some(upstream) => with_upstream(url, upstream)?,
        None => url.to_string(),
    };
    let ttl = r.cache_ttl.map_or(DEFAULT_CACHE_TTL, Duration::from_secs);
    // The copy is the resource's, whichever way it was fetched: named by the schema's URL, so an
    // `--upstream` that is down still finds the copy an earlier route fetched.
    let mut remote = HttpResource::new(url, ttl, base);
    remote.url = effective;
    if let Some(p) = r.path.as_deref() {
        // A path the schema gives is inside the project's folder (a real directory).
        remote.root = Root::owned_folder(base);
        remote.root.resolve(p).map_err(|e| path_error(name, &e))?;
        remote.file = PathBuf::from(p);
    }
    remote.allow_http_loopback = access.upstream.is_some();
    let now = SystemTime::now();
    let got = remote
        .ensure(access.fetcher, now)
        .map_err(|e| Coded(e.code(), format!("resource \"{name}\": {e}")))?;
    warnings.extend(got.warning);
    // Due again when the copy's age reaches the TTL (at once when a stale copy had to serve).
    let age = flowmcp_files::named::metadata(&got.path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|m| now.duration_since(m).ok())
        .unwrap_or_default();
    let left = ttl.saturating_sub(age);
    Ok((got.path, Some(Instant::now() + left)))
}

/// `url` with its origin replaced by `upstream` (`--upstream`): its path and query appended to
/// the upstream's base.
fn with_upstream(url: &str, upstream: &str) -> Result<String, Coded> {
    let parsed = url::Url::parse(url)
        .map_err(|e| Coded(Code::E009, format!("resource URL cannot be read: {e}")))?;
    let mut out = upstream.trim_end_matches('/').to_string();
    out.push_str(parsed.path());
    if let Some(q) = parsed.query() {
        out.push('?');
        out.push_str(q);
    }
    Ok(out)
}

/// The runner's transport as the resource engine's [`Fetcher`]: a GET with the call's deadline
/// and the download cap instead of the transport's body cap.
pub(crate) struct TransportFetcher<'a> {
    pub(crate) transport: &'a dyn Transport,
    pub(crate) deadline: Instant,
}

impl Fetcher for TransportFetcher<'_> {
    fn fetch(&self, url: &str, max_bytes: u64) -> Result<Vec<u8>, FetchFailure> {
        let mut req = HttpRequest::new(Method::Get, url);
        req.deadline = Some(self.deadline);
        req.max_body_bytes = Some(max_bytes);
        let resp = self.transport.send(&req).map_err(|e| match e.code() {
            Code::E003 => FetchFailure::Timeout {
                message: e.to_string(),
            },
            Code::E008 => FetchFailure::TooLarge { max_bytes },
            _ => FetchFailure::Network {
                message: e.to_string(),
            },
        })?;
        if !(200..300).contains(&resp.status) {
            return Err(FetchFailure::Status {
                status: resp.status,
            });
        }
        Ok(resp.body)
    }
}

/// The largest schema SQL file read, in bytes.
const MAX_SCHEMA_SQL_BYTES: u64 = 16 * 1024 * 1024;

/// The schema SQL committed for a SQLite resource of the schema at `schema_path`, when it
/// exists ([`flowmcp_resources::sqlite::schema_sql_file`]).
pub(crate) fn schema_sql_file(schema_path: &Path, r: &Resource) -> Option<PathBuf> {
    let dir = schema_path.parent().unwrap_or(Path::new("."));
    flowmcp_resources::sqlite::schema_sql_file(dir, r.name.as_deref()?)
}

/// Builds the database at `path` from the SQL in `sql_file` (whole or not at all). A database
/// another thread or process placed there first is left as it is.
fn build_from_sql(path: &Path, sql_file: &Path, limits: &Limits) -> Result<(), Coded> {
    let sql = flowmcp_files::named::read_capped_text(sql_file, MAX_SCHEMA_SQL_BYTES)
        .map_err(|e| Coded(Code::RES033, format!("{}: {e}", sql_file.display())))?;
    match Database::create(path, &sql, limits) {
        Ok(_) | Err(OpenError::AlreadyExists { .. }) => Ok(()),
        Err(e) => Err(Coded(
            e.code(),
            format!("building it from {}: {e}", sql_file.display()),
        )),
    }
}

/// A SQLite resource's database file: where it is, and what creates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseFile {
    /// The resource's Primitive-ID.
    pub id: String,
    /// Where the database is, or will be.
    pub path: PathBuf,
    /// Whether the resource is `file-based` (written by calls); `false` for read-only ones.
    pub writable: bool,
    /// The schema SQL committed beside the schema (`<schema dir>/resources/<name stem>.sql`),
    /// when it exists.
    pub schema_sql: Option<PathBuf>,
}

impl DatabaseFile {
    /// Creates this database from `sql`, its schema SQL (whole or not at all; a file already
    /// there is refused, never replaced), and says how many tables it has. The failure carries
    /// the code and the message of the resource engine and names the resource.
    pub fn create(&self, sql: &str) -> Result<usize, Failure> {
        let db = Database::create(&self.path, sql, &Limits::default())
            .map_err(|e| Failure::new(e.code(), &self.id, e.to_string()))?;
        Ok(db
            .describe_tables(&Default::default())
            .map(|rows| {
                let mut names: Vec<&str> = rows
                    .rows
                    .iter()
                    .filter_map(|r| r.get("table_name").and_then(|v| v.as_str()))
                    .collect();
                names.dedup();
                names.len()
            })
            .unwrap_or(0))
    }

    /// Builds this database from the SQL in `sql_file`, as a first use of the resource would
    /// (whole or not at all; a database already there is left as it is). The error names its
    /// code and the file.
    pub fn build_from(&self, sql_file: &Path) -> Result<(), String> {
        build_from_sql(&self.path, sql_file, &Limits::default())
            .map_err(|Coded(code, message)| format!("{code} {message}"))
    }
}

/// The spelling of a resource source in schemas.
pub(crate) fn source_name(s: ResourceSource) -> &'static str {
    match s {
        ResourceSource::Sqlite => "sqlite",
        ResourceSource::Markdown => "markdown",
        ResourceSource::Http => "http",
        ResourceSource::SqliteGtfs => "sqlite-gtfs",
    }
}

/// A resource path that cannot be used: a code and the reason.
fn path_error(name: &str, e: &PathError) -> Coded {
    let code = match e {
        PathError::Escape { .. }
        | PathError::DanglingLink { .. }
        | PathError::LinkedFolder { .. }
        | PathError::NotReplaceable { .. }
        | PathError::NotRegular { .. } => Code::E009,
        PathError::Relative { .. } => Code::SEC021,
        PathError::NoLocation { .. } => Code::RES020,
        PathError::BadName { .. } | PathError::BadBase { .. } => Code::E007,
        _ => Code::RES033,
    };
    Coded(code, format!("resource \"{name}\": {e}"))
}

/// A query failure: its code (E003 timeout, E007 SQL error, E008 too large, E009 refused,
/// RES033 unreadable) and message.
pub(crate) fn sql_error(e: &SqlError) -> Coded {
    Coded(e.code(), e.to_string())
}

/// A markdown failure: its code (MD001…MD007) and message.
pub(crate) fn markdown_error(e: &MarkdownError) -> Coded {
    Coded(e.code(), e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_sees_the_first_keyword() {
        assert!(reads_only("SELECT 1"));
        assert!(reads_only("  with x as (select 1) select * from x"));
        assert!(reads_only("-- note\n(SELECT 1)"));
        assert!(reads_only("/* c */ select 1"));
        assert!(!reads_only("INSERT INTO t VALUES (1)"));
        assert!(!reads_only("DELETE FROM t"));
        assert!(!reads_only(""));
    }

    /// Issue #40: `resource init`'s operation creates the database once, counts its tables (not
    /// its columns) and refuses a file already there with the engine's code, naming the resource.
    #[test]
    fn i40_database_file_create_counts_tables() {
        let dir = std::env::temp_dir().join(format!("flowmcp-dbcreate-{}", std::process::id()));
        let _ = flowmcp_files::named::remove_dir_all(&dir);
        let file = DatabaseFile {
            id: "demo/resource/t".into(),
            path: dir.join("t.db"),
            writable: false,
            schema_sql: None,
        };
        let sql = "CREATE TABLE a (x TEXT, y TEXT); CREATE TABLE b (z INTEGER);";
        assert_eq!(file.create(sql).expect("created"), 2);
        let again = file.create(sql).expect_err("exists");
        assert_eq!(again.tool(), "demo/resource/t");
        assert!(again.message().contains("t.db"), "{}", again.message());
        let _ = flowmcp_files::named::remove_dir_all(&dir);
    }

    /// Issue #40: the resources base is a plain folder name; a path or `..` is refused
    /// and leaves the options as they were.
    #[test]
    fn i40_set_base_refuses_a_path() {
        let mut o = ResourceOptions::default();
        o.set_base("acme").expect("plain");
        assert_eq!(o.base, "acme");
        for bad in ["../x", "a/b", "..", ""] {
            assert!(o.set_base(bad).is_err(), "{bad}");
            assert_eq!(o.base, "acme");
        }
    }
}
