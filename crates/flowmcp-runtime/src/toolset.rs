//! A set of schemas as callable tools: every tool's [`ToolDescriptor`], computed once, with the
//! schema data a call needs.
//!
//! * The schemas come from the caller as [`SchemaSource`]s: read, **validated** and with their
//!   shared lists resolved (the catalog layer, `flowmcp-catalog`, does all of that; the runtime
//!   never reads files or validates). Problems the caller met are kept in [`Toolset::problems`].
//! * `enum({{list:field}})` parameters take their values from the resolved lists; when a schema's
//!   lists are not available its list-backed parameters accept any string and the descriptor
//!   carries a warning.
//! * Wire names are assigned over the whole set, as [`ToolsetOptions::tool_names`] says
//!   (collisions across schemas get hash suffixes).
//! * Server parameters are resolved once for every name any schema requires (process
//!   environment, then the env file, then the config); tools with a missing one are kept but not
//!   exposed ([`ToolDescriptor::missing_server_params`]). Names reserved for flowmcp itself
//!   ([`crate::is_reserved_name`]) are always missing.
//! * Each preloaded tool's entry is kept as written, for its definition hash (what its cache
//!   entries are bound to), computed once, on the first call that consults the cache
//!   ([`LoadedSchema::cache_definition`]).
//! * Handler factories are not built here: a schema's source is kept when it exports `handlers`,
//!   and [`crate::call::Runner`] builds the factory on the schema's first handler call.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use flowmcp_spec::Profile;
use flowmcp_spec::lists::ResolvedLists;
use flowmcp_spec::model::{JsonText, SchemaMain};
use indexmap::IndexMap;
use rayon::prelude::*;
use serde_json::Value;

use crate::descriptor::{
    DescribeOptions, Kind, ToolDescriptor, ToolNames, describe_tool, wire_names_of,
};
use crate::schema::LoadedSchema;
use crate::secret::ServerParams;

/// How to build a toolset.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ToolsetOptions {
    /// The profile the schemas were read under; calls run under it too.
    pub profile: Profile,
    /// Values from `--env-file` / `.env`.
    pub env_file: BTreeMap<String, String>,
    /// Values from the configuration (`serverParams`).
    pub config_params: BTreeMap<String, String>,
    /// Replaces the process environment (tests); `None` reads the real environment.
    pub env_override: Option<BTreeMap<String, String>>,
    /// How tools are named on the wire ([`ToolNames::Spec`] unless asked otherwise).
    pub tool_names: ToolNames,
}

/// One schema, ready to become tools: the caller has read and validated it.
#[derive(Clone, Debug)]
pub struct SchemaSource {
    /// The file on disk.
    pub path: PathBuf,
    /// The name messages use.
    pub display: String,
    /// The typed `main` of a file that validated without errors.
    pub main: SchemaMain,
    /// The module source, when the module exports a `handlers` factory.
    pub handlers_source: Option<String>,
    /// The schema's shared lists, resolved and filtered; `None` when they could not be loaded
    /// (then [`SchemaSource::lists_note`] says why).
    pub lists: Option<ResolvedLists>,
    /// Why some of the schema's shared lists are missing, if any are.
    pub lists_note: Option<String>,
}

/// A tool and the index of its schema in [`Toolset::schemas`]. Made only by the toolset; its
/// fields are for reading.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ToolEntry {
    /// The index of the tool's schema in [`Toolset::schemas`].
    pub schema: usize,
    /// What callers see of the tool: its IDs, wire name, parameters and schemas.
    pub descriptor: ToolDescriptor,
}

/// A file or tool that could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadProblem {
    /// The file's display name.
    pub file: String,
    /// What went wrong (for loader errors, the first error diagnostic as `CODE message`).
    pub message: String,
}

impl LoadProblem {
    /// The problem of `file` (its display name): `message` says what went wrong.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        LoadProblem {
            file: file.into(),
            message: message.into(),
        }
    }
}

/// Loaded schemas and their tools.
///
/// Read through methods: the tools and the index that finds them by name are built together
/// ([`Toolset::from_sources`]) and cannot drift apart.
#[derive(Debug, Default)]
pub struct Toolset {
    profile: Profile,
    schemas: Vec<LoadedSchema>,
    tools: Vec<ToolEntry>,
    problems: Vec<LoadProblem>,
    server_params: ServerParams,
    by_name: HashMap<String, usize>,
    tool_names: ToolNames,
    /// OAuth 2 access tokens of the schemas that declare client credentials (memory only).
    tokens: crate::auth::Tokens,
}

impl Toolset {
    /// The access tokens the runners of this toolset fetched (`main.auth`, D139).
    pub(crate) fn tokens(&self) -> &crate::auth::Tokens {
        &self.tokens
    }

    /// The profile the toolset was loaded under; calls run under the same one.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// How its tools were named on the wire ([`ToolsetOptions::tool_names`]); prompts served
    /// beside them are named the same way ([`ToolNames::prompt_name`]).
    pub fn tool_names(&self) -> ToolNames {
        self.tool_names
    }

    /// The schemas, in the order they were given; [`ToolEntry::schema`] indexes them.
    pub fn schemas(&self) -> &[LoadedSchema] {
        &self.schemas
    }

    /// Every tool, exposed or not, in file then declaration order.
    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    /// Files and tools that could not be loaded, with the reasons.
    pub fn problems(&self) -> &[LoadProblem] {
        &self.problems
    }

    /// The server parameter values for every name the schemas require.
    pub fn server_params(&self) -> &ServerParams {
        &self.server_params
    }

    /// Builds the tools of `schemas`, keeping `problems` (files the caller could not turn into
    /// schemas, with their reasons) for [`Toolset::problems`].
    pub fn from_sources(
        schemas: Vec<SchemaSource>,
        problems: Vec<LoadProblem>,
        opts: &ToolsetOptions,
    ) -> Toolset {
        let mut set = Toolset {
            profile: opts.profile,
            tool_names: opts.tool_names,
            problems,
            ..Toolset::default()
        };
        // Describing is independent per schema (and most of the work): in parallel, kept in order.
        let described: Vec<_> = schemas
            .into_par_iter()
            .map(|source| describe_schema(source, opts.profile))
            .collect();
        // Each tool's entry (its schema's index and its descriptor) in one list sized once: a
        // descriptor is large, and a list grown step by step, or gathered into a second list,
        // copies all of them again (D172).
        let count = described.iter().map(|(_, ds, _)| ds.len()).sum();
        set.tools.reserve_exact(count);
        set.schemas.reserve_exact(described.len());
        for (schema, described, problems) in described {
            let index = set.schemas.len();
            set.tools
                .extend(described.into_iter().map(|descriptor| ToolEntry {
                    schema: index,
                    descriptor,
                }));
            set.schemas.push(schema);
            set.problems.extend(problems);
        }
        // Server parameters, once for all names (repeated names are looked up once).
        let names: Vec<&str> = set
            .schemas
            .iter()
            .flat_map(|s| s.main.required_server_params.iter().map(String::as_str))
            .collect();
        set.server_params = match &opts.env_override {
            Some(env) => ServerParams::resolve(
                names.iter().copied(),
                |k| env.get(k).cloned(),
                &opts.env_file,
                &opts.config_params,
            ),
            None => ServerParams::from_process(
                names.iter().copied(),
                &opts.env_file,
                &opts.config_params,
            ),
        };
        // A load problem may quote a file's text (say, a `.env` file given a `.mjs` name): every
        // value the env file and the configuration hold is hidden, as are the resolved parameters.
        if !set.problems.is_empty() {
            let mut hide = set.server_params.redactor().clone();
            for v in opts.env_file.values().chain(opts.config_params.values()) {
                hide.add(v);
            }
            for p in &mut set.problems {
                p.message = hide.redact(&p.message);
            }
        }
        for t in &mut set.tools {
            t.descriptor.missing_server_params = set.server_params.missing(
                t.descriptor
                    .required_server_params
                    .iter()
                    .map(String::as_str),
            );
        }
        let wire = wire_names_of(&set.tools, opts.tool_names, |t| &t.descriptor);
        for (t, n) in set.tools.iter_mut().zip(wire) {
            t.descriptor.wire_name = n;
        }
        set.by_name.reserve(2 * set.tools.len());
        for (i, t) in set.tools.iter().enumerate() {
            set.by_name
                .entry(t.descriptor.wire_name.clone())
                .or_insert(i);
            set.by_name.entry(t.descriptor.lookup_key()).or_insert(i);
            if let Some(legacy) = t.descriptor.legacy_query_key() {
                set.by_name.entry(legacy).or_insert(i);
            }
        }
        set
    }

    /// The tool with this wire name or Primitive-ID (`namespace/tool/name`); a resource query by
    /// its wire name or its own ID `namespace/resource/<resource>-<query>` (or the earlier text
    /// `namespace/resource/<resource>.<query>`), a markdown resource by its wire name or ID.
    pub fn find(&self, name: &str) -> Option<&ToolEntry> {
        self.by_name.get(name).and_then(|&i| self.tools.get(i))
    }

    /// Where [`Toolset::find`] finds `name` in [`Toolset::tools`]: for a server that resolves a
    /// name once and then calls the entry by its place.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Why `name` finds nothing, in a sentence: for the ID of a SQLite resource (whose queries
    /// have names of their own) the queries to call instead; otherwise `unknown tool "<name>"`.
    pub fn explain_unknown(&self, name: &str) -> String {
        let queries: Vec<String> = self
            .tools
            .iter()
            .filter(|t| {
                matches!(t.descriptor.kind, Kind::Query { .. })
                    && t.descriptor.id.to_string() == name
            })
            .map(|t| format!("{} ({})", t.descriptor.lookup_key(), t.descriptor.wire_name))
            .collect();
        if queries.is_empty() {
            format!("unknown tool \"{name}\"")
        } else {
            format!(
                "\"{name}\" is a SQLite resource; call one of its queries: {}",
                queries.join(", ")
            )
        }
    }

    /// The schema a tool belongs to.
    pub fn schema_of(&self, entry: &ToolEntry) -> &LoadedSchema {
        &self.schemas[entry.schema]
    }

    /// Exposed tools only.
    pub fn exposed(&self) -> impl Iterator<Item = &ToolEntry> {
        self.tools.iter().filter(|t| t.descriptor.is_exposed())
    }

    /// Tools ranked by how well they match `query` (per word: the tool name, aliases, search
    /// hint, tags, namespace and description, in that order of weight); ties in wire-name order.
    /// Tools that match no term are left out.
    pub fn search(&self, query: &str) -> Vec<(u32, &ToolEntry)> {
        let terms: Vec<String> = query
            .split_whitespace()
            .map(str::to_lowercase)
            .filter(|t| !t.is_empty())
            .collect();
        let mut hits: Vec<(u32, &ToolEntry)> = self
            .tools
            .iter()
            .map(|t| (score(&terms, t, &self.schemas[t.schema].main), t))
            .filter(|(s, _)| *s > 0)
            .collect();
        hits.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.descriptor.wire_name.cmp(&b.1.descriptor.wire_name))
        });
        hits
    }

    /// How many tools are exposed and hidden, and the hidden ones' missing variables.
    pub fn exposure(&self) -> (usize, usize, BTreeMap<String, usize>) {
        let mut missing = BTreeMap::new();
        let mut exposed = 0;
        let mut hidden = 0;
        for t in &self.tools {
            if t.descriptor.is_exposed() {
                exposed += 1;
            } else {
                hidden += 1;
                for m in &t.descriptor.missing_server_params {
                    *missing.entry(m.clone()).or_insert(0) += 1;
                }
            }
        }
        (exposed, hidden, missing)
    }
}

/// The relevance of a tool for lower-cased query `terms`: per term, the best of tool name equal
/// (12) or containing it (6), an alias equal (10) or containing it (5), the search hint (4),
/// a schema tag (3), the namespace (2), the description (1). Terms add up; a tool matching no term
/// scores 0.
pub(crate) fn score(terms: &[String], t: &ToolEntry, main: &SchemaMain) -> u32 {
    let d = &t.descriptor;
    let name = d.tool.to_lowercase();
    let mut desc = d.description.to_lowercase();
    // A resource entry is also found by its resource's name and description.
    if let Kind::Query { resource, .. } = &d.kind {
        desc.push(' ');
        desc.push_str(&resource.to_lowercase());
        if let Some(search_hint) = d
            .meta
            .as_ref()
            .and_then(|m| m.get("anthropic/searchHint"))
            .and_then(Value::as_str)
        {
            desc.push(' ');
            desc.push_str(&search_hint.to_lowercase());
        }
    }
    let (hint, aliases) = match &d.tool_meta {
        Some(m) => (
            m.search_hint.to_lowercase(),
            m.aliases
                .iter()
                .map(|a| a.to_lowercase())
                .collect::<Vec<_>>(),
        ),
        None => (String::new(), Vec::new()),
    };
    let tags: Vec<String> = main.tags.iter().map(|t| t.to_lowercase()).collect();
    let ns = d.namespace.to_lowercase();
    let mut total = 0;
    for term in terms {
        let mut best = 0;
        let mut take = |s: u32| best = best.max(s);
        if name == *term {
            take(12);
        } else if name.contains(term.as_str()) {
            take(6);
        }
        if aliases.iter().any(|a| a == term) {
            take(10);
        } else if aliases.iter().any(|a| a.contains(term.as_str())) {
            take(5);
        }
        if hint.contains(term.as_str()) {
            take(4);
        }
        if tags.iter().any(|t| t.contains(term.as_str())) {
            take(3);
        }
        if ns.contains(term.as_str()) {
            take(2);
        }
        if desc.contains(term.as_str()) {
            take(1);
        }
        total += best;
    }
    total
}

/// The loaded schema and its descriptors (and the tools that could not be described).
fn describe_schema(
    source: SchemaSource,
    profile: Profile,
) -> (LoadedSchema, Vec<ToolDescriptor>, Vec<LoadProblem>) {
    let SchemaSource {
        path,
        display,
        mut main,
        handlers_source,
        lists,
        lists_note,
    } = source;
    let resolver = |l: &str, f: &str| lists.as_ref().and_then(|r| r.field_values(l, f));
    let dopts = DescribeOptions {
        profile,
        lists: lists
            .is_some()
            .then_some(&resolver as &crate::descriptor::ListResolver<'_>),
    };
    // The output schemas move into the descriptors (not copied), and all tests but the first are
    // dropped: together they are most of a catalog's data, and calling needs none of them (the
    // first is the example call prompts show).
    // Preloaded tools' entries, as written, for their definition hashes (computed when a call
    // first consults the cache).
    let preloaded: Vec<(String, Value)> = main
        .tools
        .iter()
        .filter(|(_, t)| t.preload.as_ref().is_some_and(|p| p.enabled))
        .map(|(name, t)| (name.clone(), serde_json::to_value(t).unwrap_or_default()))
        .collect();
    let mut outputs: HashMap<String, JsonText> = HashMap::new();
    for (name, tool) in main.tools.iter_mut() {
        tool.tests.truncate(1);
        if let Some(o) = tool.output.as_mut() {
            outputs.insert(name.clone(), std::mem::take(&mut o.schema));
        }
    }
    let mut descriptors = Vec::new();
    let mut problems = Vec::new();
    let empty = ServerParams::new();
    for name in main.tools.keys() {
        match describe_tool(&main, name, &empty, dopts) {
            Ok(mut d) => {
                if let Some(schema) = outputs.remove(name) {
                    d.output_schema = Some(schema);
                }
                descriptors.push(d);
            }
            Err(e) => problems.push(LoadProblem {
                file: display.clone(),
                message: e.to_string(),
            }),
        }
    }
    // Resources: typed once; each query's output schema moves into its descriptor.
    let mut resources = match main.typed_resources() {
        Ok(r) => r,
        Err(e) => {
            problems.push(LoadProblem {
                file: display.clone(),
                message: format!("main.resources cannot be read: {e}"),
            });
            IndexMap::new()
        }
    };
    main.resources = None;
    let (resource_descriptors, resource_problems) =
        crate::resource::describe_resources(&main, &resources, profile);
    descriptors.extend(resource_descriptors);
    problems.extend(resource_problems.into_iter().map(|message| LoadProblem {
        file: display.clone(),
        message,
    }));
    for r in resources.values_mut() {
        for q in r.queries.values_mut() {
            q.tests = Vec::new();
            q.output = None;
        }
    }
    let shared_lists = lists
        .as_ref()
        .map_or_else(|| Value::Object(Default::default()), ResolvedLists::to_json);
    (
        LoadedSchema {
            path,
            display,
            main,
            handlers_source,
            resources,
            shared_lists,
            lists_note,
            preloaded,
            cache_definitions: std::sync::OnceLock::new(),
        },
        descriptors,
        problems,
    )
}

impl Toolset {
    /// The database file of the SQLite resource `id` (`namespace/resource/name`), resolved as
    /// `opts` places resources; an error in words when `id` is not a callable SQLite resource
    /// or its place cannot be resolved.
    pub fn database_file(
        &self,
        id: &str,
        opts: &crate::resource::ResourceOptions,
    ) -> Result<crate::resource::DatabaseFile, String> {
        let entry = self
            .tools()
            .iter()
            .find(|t| {
                t.descriptor.id.to_string() == id
                    && t.descriptor.kind != crate::descriptor::Kind::Tool
            })
            .ok_or_else(|| format!("no resource \"{id}\" in the catalog"))?;
        let schema = self.schema_of(entry);
        let (crate::descriptor::Kind::Query { resource, .. }
        | crate::descriptor::Kind::Document { resource }) = &entry.descriptor.kind
        else {
            return Err(format!("\"{id}\" is not a resource"));
        };
        let r = schema
            .resources
            .get(resource)
            .ok_or_else(|| format!("no resource \"{id}\" in the catalog"))?;
        if r.source != flowmcp_spec::model::ResourceSource::Sqlite {
            return Err(format!(
                "\"{id}\" is not a local SQLite resource (its source is `{}`)",
                crate::resource::source_name(r.source)
            ));
        }
        let name = crate::resource::resource_file(r, resource)
            .map_err(|crate::envelope::Coded(_, m)| m)?;
        let path = opts
            .locations(&schema.path)
            .resolve(crate::resource::origin(r), name)
            .map_err(|e| e.to_string())?;
        Ok(crate::resource::DatabaseFile {
            id: id.to_string(),
            path,
            writable: crate::resource::sqlite_mode(r) == flowmcp_resources::sqlite::Mode::FileBased,
            schema_sql: crate::resource::schema_sql_file(&schema.path, r),
        })
    }
}
