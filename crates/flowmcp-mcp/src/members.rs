//! What one endpoint serves: its members. Every list, get, read and call of the server asks
//! [`Members`], which is computed once per endpoint (and again after a reload) from the
//! endpoint's scope and selector, so that no handler has a membership rule of its own.
//!
//! - The **scope** is the whole catalog, a selection (`--selection`) or an agent's activation
//!   (`--agent`): the exposed entries (tools, resource queries, documents) and the prompts and
//!   skills it names. The whole catalog names every prompt.
//! - The **selector** (a route's, or `--only`) narrows the scope's entries to those it names. In
//!   the whole catalog it also picks the prompts: those of its namespaces (a tool member brings
//!   none). A selection or agent keeps its own prompts.
//! - The **resources** are the documents among the served entries (`flowmcp://<ID>`, and the
//!   templates under it); the whole catalog without a selector serves every resource source.
//! - A prompt or skill whose prefill runs a catalog tool that the endpoint does not serve is not
//!   served there, nor is an agent tool whose agent runs such a tool: nothing served runs a tool
//!   past the endpoint's own.
//! - The **waiting** members are the entries the scope and selector name that are hidden because
//!   a server parameter they need has no value. They are not served; a call to one says which
//!   variables it waits for, and `flowmcp serve` lists them at start. Entries outside the
//!   endpoint are never mentioned: for them a call answers "unknown tool".

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, Code, Envelope, ToolEntry, prompts::PromptKind, runtime::Kind};
use flowmcp_spec::model::JsonText;
use rayon::prelude::*;
use rmcp::model::{JsonObject, Tool};

use crate::options::{OutputSchemas, ServeError, ServeOptions};
use crate::paging::Paging;
use crate::projection::{self, Media, Output};
use crate::route::Selector;
use crate::unknown;

/// One served entry: its MCP entry and how its results are carried.
pub(crate) struct Served {
    /// Its MCP entry, made on first use ([`Served::tool`]): making the advertised output schema
    /// of every tool before the server answers would delay the first `tools/list` page by the
    /// work of all the others.
    tool: OnceLock<Listing>,
    /// How its output schema is advertised.
    schemas: OutputSchemas,
    /// Its declared output schema, kept only for an entry without a place in the catalog's
    /// list; every other entry's is read from the catalog when needed ([`Served::output`]).
    placeless_output: Option<JsonText>,
    /// What kind of content its data is (`output.mimeType`).
    pub(crate) media: Media,
    /// `meta.isConcurrencySafe: false`: calls run one at a time.
    pub(crate) serial: bool,
    /// `meta.alwaysLoad`: listed in lazy mode.
    pub(crate) always_load: bool,
    /// Its place in the catalog's list ([`Catalog::list`]), found once: calls run the entry
    /// without looking its name up again.
    pub(crate) entry: Option<usize>,
    /// Its Primitive-ID (the `tool` label of the call metrics), made once.
    pub(crate) id: Arc<str>,
    /// How it pages through its upstream's results, when its parameters show it (D141).
    pub(crate) paging: Option<Paging>,
}

impl Served {
    /// How its results are carried, with its declared output schema: the catalog entry's
    /// (`catalog` is the catalog the members were made of), borrowed rather than copied for each
    /// served tool, and read from its text on the first call and kept there (a tool called once
    /// is likely called again).
    pub(crate) fn output<'c>(&'c self, catalog: &'c Catalog) -> Output<'c> {
        Output::of(self.declared(catalog).map(JsonText::value), self.schemas)
    }

    /// Its declared output schema, as the JSON text it is kept as.
    fn declared<'c>(&'c self, catalog: &'c Catalog) -> Option<&'c JsonText> {
        match self.entry {
            Some(i) => catalog
                .list()
                .get(i)
                .and_then(|e| e.descriptor.output_schema.as_ref()),
            None => self.placeless_output.as_ref(),
        }
    }

    /// Its input schema, borrowed: its catalog entry's, or for an entry without a place, its MCP
    /// entry's (an empty schema when that is not an object). For a call, which needs no more of
    /// its MCP entry than that.
    pub(crate) fn input_schema<'c>(&'c self, catalog: &'c Catalog) -> Cow<'c, JsonObject> {
        let schema = match self.entry.and_then(|i| catalog.list().get(i)) {
            Some(entry) => entry.descriptor.input_schema.as_object(),
            None => self.tool.get().map(|l| &*l.bare.input_schema),
        };
        schema.map_or_else(Cow::default, Cow::Borrowed)
    }

    /// Its MCP entry (`tools/list`, lookups), made from its catalog entry the first time it is
    /// asked for and kept as a [`Listing`]. `catalog` is the catalog the members were made of.
    pub(crate) fn tool(&self, catalog: &Catalog) -> Tool {
        let mut made = None;
        let entry = self.entry.and_then(|i| catalog.list().get(i));
        let listing = self.tool.get_or_init(|| {
            let tool = match entry {
                Some(entry) => {
                    // Read afresh and dropped: listing every tool keeps none of their values.
                    let declared = self.declared(catalog).map(JsonText::parse);
                    let output = Output::of(declared.as_ref(), self.schemas);
                    projection::tool(entry, &output, self.schemas)
                }
                // Not reached: an entry without a place got its MCP entry when it was prepared.
                None => Tool::new(self.id.to_string(), "", Arc::new(Default::default())),
            };
            let (listing, tool) = Listing::of(tool, entry.is_some());
            made = Some(tool);
            listing
        });
        made.unwrap_or_else(|| listing.tool(entry))
    }
}

/// A served tool's MCP entry as kept between listings: the SDK's entry without its output
/// schema, and that schema as JSON text; for a tool with a place in the catalog's list, without
/// its input schema either, which is the descriptor's. As values, the advertised schemas and a
/// second copy of every input schema would hold most of a large catalog's server memory once
/// every page has been listed; made again for each listing, they cost a few microseconds a tool.
pub(crate) struct Listing {
    bare: Tool,
    output: Option<JsonText>,
}

impl Listing {
    /// The listing of `tool`, and `tool` itself; `placed` when the tool's catalog entry gives
    /// its input schema again ([`Listing::tool`]).
    fn of(mut tool: Tool, placed: bool) -> (Listing, Tool) {
        let output = tool.output_schema.take().map(|schema| {
            let schema = Value::Object(Arc::unwrap_or_clone(schema));
            let text = JsonText::from_value(&schema);
            (text, schema)
        });
        let mut bare = tool.clone();
        if placed {
            bare.input_schema = Arc::default();
        }
        let listing = Listing {
            bare,
            output: output.as_ref().map(|(text, _)| text.clone()),
        };
        if let Some((_, Value::Object(schema))) = output {
            tool.output_schema = Some(Arc::new(schema));
        }
        (listing, tool)
    }

    /// The MCP entry; `entry` is the tool's catalog entry when it has a place in the list.
    fn tool(&self, entry: Option<&ToolEntry>) -> Tool {
        let mut tool = self.bare.clone();
        if let Some(entry) = entry {
            tool.input_schema = Arc::new(projection::input_schema(entry));
        }
        tool.output_schema = self.output.as_ref().and_then(|text| match text.parse() {
            Value::Object(schema) => Some(Arc::new(schema)),
            _ => None,
        });
        tool
    }
}

/// Which prompts and skills an endpoint serves, by name (their IDs).
enum Prompts {
    /// Every prompt of the catalog's registry except these.
    AllBut(HashSet<String>),
    /// Exactly these.
    Only(HashSet<String>),
}

/// Which resources an endpoint serves.
enum Resources {
    /// Every resource of the catalog's registry.
    All,
    /// The documents with these IDs (`flowmcp://<ID>` and the templates under it).
    Documents(HashSet<String>),
}

/// What one endpoint serves; see the module's documentation for the rule.
pub(crate) struct Members {
    /// Served entries by wire name.
    tools: HashMap<String, Served>,
    /// Their wire names in the order served.
    order: Vec<String>,
    prompts: Prompts,
    resources: Resources,
    /// Agents served as tools: tool name → agent name, and whether the agent declares an
    /// `inputSchema`.
    agents: HashMap<String, (String, bool)>,
    /// Their MCP entries, in the order given.
    agent_entries: Vec<Tool>,
    /// The waiting members, in catalog order: wire name and the variables without a value.
    waiting: Vec<(String, Vec<String>)>,
}

impl Members {
    /// The members of the endpoint `opts` describes over `catalog`. `strict` at start: a scope or
    /// selector member that is not there is an error; after a reload it is logged and left out.
    pub(crate) fn of(
        catalog: &Catalog,
        opts: &ServeOptions,
        strict: bool,
    ) -> Result<Members, ServeError> {
        let selector = Selector::of_members(&opts.only)?;
        // The scope: its entries, those of them that wait for a server parameter, and the
        // prompts it names (`None`: every prompt).
        let (Scope(mut entries, mut waiting), mut named) = match (&opts.selection, &opts.agent) {
            (Some(id), _) => selection(catalog, id, strict, opts.client_credentials)?,
            (None, Some(name)) => activation(catalog, name, strict)?,
            (None, None) => (Scope::default(), None),
        };
        let whole = opts.selection.is_none() && opts.agent.is_none();
        match (&selector, whole) {
            (Some(s), true) => {
                (entries, waiting) = s.members(catalog, strict, opts.client_credentials)?;
                named = Some(namespace_prompts(catalog, s));
            }
            (Some(s), false) => {
                let (picked, picked_waiting) =
                    s.members(catalog, strict, opts.client_credentials)?;
                let picked: HashSet<&str> = picked
                    .into_iter()
                    .chain(picked_waiting)
                    .map(|e| e.descriptor.wire_name.as_str())
                    .collect();
                entries.retain(|e| picked.contains(e.descriptor.wire_name.as_str()));
                waiting.retain(|e| picked.contains(e.descriptor.wire_name.as_str()));
            }
            (None, true) => {
                (entries, waiting) = catalog
                    .list()
                    .iter()
                    .partition(|e| e.descriptor.is_exposed());
            }
            (None, false) => {}
        }
        // Per-client credentials (D142): a client brings the values a waiting member needs, so
        // it is served (in catalog order), and a call without them is E006.
        if opts.client_credentials && !waiting.is_empty() {
            let named: HashSet<*const ToolEntry> = entries
                .iter()
                .chain(&waiting)
                .map(|e| std::ptr::from_ref::<ToolEntry>(e))
                .collect();
            entries = catalog
                .list()
                .iter()
                .filter(|e| named.contains(&std::ptr::from_ref::<ToolEntry>(e)))
                .collect();
            waiting.clear();
        }
        let mut seen = HashSet::new();
        entries.retain(|e| seen.insert(e.descriptor.wire_name.as_str()));
        let served: HashSet<&str> = seen;
        let mut seen = HashSet::new();
        let waiting: Vec<(String, Vec<String>)> = waiting
            .into_iter()
            .filter(|e| seen.insert(e.descriptor.wire_name.as_str()))
            .map(|e| {
                let d = &e.descriptor;
                (d.wire_name.clone(), d.missing_server_params.clone())
            })
            .collect();

        let where_ = endpoint_label(opts);
        // Prompts and skills: none may prefill a tool the endpoint does not serve.
        let runs_outside = |id: &str| -> Option<String> {
            let entry = catalog.library().get(id)?;
            entry.prefill.iter().find_map(|call| {
                let tool = catalog.find(&call.tool)?;
                (!served.contains(tool.descriptor.wire_name.as_str())).then(|| {
                    format!(
                        "{id} is not served {where_}: its prefill runs {}, which is not",
                        call.tool
                    )
                })
            })
        };
        let prompts = match named {
            None => Prompts::AllBut(
                catalog
                    .library()
                    .entries()
                    .iter()
                    .filter_map(|p| {
                        let why = runs_outside(&p.id)?;
                        tracing::warn!("{why}");
                        Some(p.id.clone())
                    })
                    .collect(),
            ),
            Some(ids) => Prompts::Only(
                ids.into_iter()
                    .filter(|id| match runs_outside(id) {
                        Some(why) => {
                            tracing::warn!("{why}");
                            false
                        }
                        None => true,
                    })
                    .collect(),
            ),
        };
        let resources = if whole && selector.is_none() {
            Resources::All
        } else {
            Resources::Documents(
                entries
                    .iter()
                    .filter(|e| matches!(e.descriptor.kind, Kind::Document { .. }))
                    .map(|e| e.descriptor.id.to_string())
                    .collect(),
            )
        };
        let (agents, agent_entries) = agent_tools(catalog, opts, strict, &served, &where_)?;
        let prepared = prepare(catalog, &entries, opts.output_schema);
        let mut order = Vec::with_capacity(entries.len());
        let mut tools = HashMap::with_capacity(entries.len());
        for (entry, served) in entries.iter().zip(prepared) {
            order.push(entry.descriptor.wire_name.clone());
            tools.insert(entry.descriptor.wire_name.clone(), served);
        }
        Ok(Members {
            tools,
            order,
            prompts,
            resources,
            agents,
            agent_entries,
            waiting,
        })
    }

    /// The served entries' wire names, in order.
    pub(crate) fn order(&self) -> &[String] {
        &self.order
    }

    /// The served entry with this wire name.
    pub(crate) fn served(&self, wire: &str) -> Option<&Served> {
        self.tools.get(wire)
    }

    /// The served entry that `name` (a wire name, a Primitive-ID or a lookup key) refers to, with
    /// its wire name.
    pub(crate) fn tool<'a>(
        &'a self,
        catalog: &Catalog,
        name: &str,
    ) -> Option<(&'a str, &'a Served)> {
        if let Some((k, s)) = self.tools.get_key_value(name) {
            return Some((k.as_str(), s));
        }
        let entry = catalog.find(name)?;
        let (k, s) = self.tools.get_key_value(&entry.descriptor.wire_name)?;
        Some((k.as_str(), s))
    }

    /// Whether the prompt or skill `name` is served.
    pub(crate) fn prompt(&self, name: &str) -> bool {
        match &self.prompts {
            Prompts::AllBut(left_out) => !left_out.contains(name),
            Prompts::Only(ids) => ids.contains(name),
        }
    }

    /// Whether the resource at `uri` (or the template `uri`) is served.
    pub(crate) fn resource(&self, uri: &str) -> bool {
        match &self.resources {
            Resources::All => true,
            Resources::Documents(ids) => {
                let base = uri.split(['?', '{']).next().unwrap_or(uri);
                base.strip_prefix("flowmcp://")
                    .is_some_and(|id| ids.contains(id))
            }
        }
    }

    /// The agent served as the tool `name`, and whether it declares an `inputSchema`.
    pub(crate) fn agent(&self, name: &str) -> Option<&(String, bool)> {
        self.agents.get(name)
    }

    /// The MCP entries of the agents served as tools.
    pub(crate) fn agent_entries(&self) -> &[Tool] {
        &self.agent_entries
    }

    /// The waiting members (see the module's documentation), in catalog order: each wire name
    /// with the variables it waits for.
    pub(crate) fn waiting(&self) -> &[(String, Vec<String>)] {
        &self.waiting
    }

    /// Why `name` (a wire name, Primitive-ID or lookup key), which is not served, is not: `E006`
    /// when it is a waiting member (naming the variables it waits for), otherwise `E007 unknown
    /// tool` with the closest name `also` (the meta-tools of lazy mode) or the endpoint's members
    /// offer, if one is close. Nothing outside the endpoint is named.
    pub(crate) fn not_served<'a>(
        &'a self,
        catalog: &Catalog,
        name: &str,
        also: impl IntoIterator<Item = &'a str>,
    ) -> Envelope {
        let wire = catalog
            .find(name)
            .map_or(name, |e| e.descriptor.wire_name.as_str());
        if let Some((wire, keys)) = self.waiting.iter().find(|(w, _)| w == wire) {
            return Envelope::error(
                Code::E006,
                wire,
                &format!(
                    "{} (the tool exists, but a server parameter it needs has no value; give it \
                     one where the server is started, then restart the server)",
                    unknown::until(keys)
                ),
            );
        }
        let names = self
            .order
            .iter()
            .chain(self.waiting.iter().map(|(w, _)| w))
            .map(String::as_str)
            .chain(self.agent_entries.iter().map(|t| t.name.as_ref()))
            .chain(also);
        let hint = unknown::closest(name, names)
            .map(|n| format!(" (did you mean {n}?)"))
            .unwrap_or_default();
        Envelope::error(Code::E007, name, &format!("unknown tool{hint}"))
    }
}

/// A scope's entries: those served, and those waiting for a server parameter.
#[derive(Default)]
struct Scope<'c>(Vec<&'c ToolEntry>, Vec<&'c ToolEntry>);

/// How logs name the endpoint of `opts`.
fn endpoint_label(opts: &ServeOptions) -> String {
    if opts.only.is_empty() {
        "here".to_string()
    } else {
        format!("at the endpoint of {}", opts.only.join(","))
    }
}

/// The prompts and skills of the selector's namespaces: provider prompts and namespace skills.
fn namespace_prompts(catalog: &Catalog, selector: &Selector) -> Vec<String> {
    let namespaces: HashSet<&str> = selector.namespaces().collect();
    catalog
        .library()
        .entries()
        .iter()
        .filter(|p| p.kind != PromptKind::AgentPrompt && namespaces.contains(p.owner.as_str()))
        .map(|p| p.id.clone())
        .collect()
}

/// The entries and prompts of the selection `id`. A selection that is not there, or has a member
/// that does not resolve, is refused.
fn selection<'c>(
    catalog: &'c Catalog,
    id: &str,
    strict: bool,
    clients_bring: bool,
) -> Result<(Scope<'c>, Option<Vec<String>>), ServeError> {
    let Some(sel) = catalog.library().selection(id) else {
        let known: Vec<&str> = catalog
            .library()
            .selections()
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        return Err(ServeError::Selection(format!(
            "{id}: no such selection in the catalog{}",
            if known.is_empty() {
                String::new()
            } else {
                format!(" (it has {})", known.join(", "))
            }
        )));
    };
    if let Some(problem) = sel.problem() {
        return Err(ServeError::Selection(problem));
    }
    let entries = scope_entries(catalog, &sel.tools, &sel.resources, strict, clients_bring)
        .map_err(|why| ServeError::Selection(format!("{id}: {why}")))?;
    let prompts = sel.prompts.iter().chain(&sel.skills).cloned().collect();
    Ok((entries, Some(prompts)))
}

/// The entries and prompts activating the agent `name` brings (see
/// [`Catalog::activate_agent`]); its warnings go to the log.
fn activation<'c>(
    catalog: &'c Catalog,
    name: &str,
    strict: bool,
) -> Result<(Scope<'c>, Option<Vec<String>>), ServeError> {
    let act = catalog
        .activate_agent(name)
        .map_err(ServeError::Activation)?;
    for w in &act.warnings {
        tracing::warn!("agent {name}: {w}");
    }
    let entries = scope_entries(catalog, &act.tools, &act.resources, strict, false)
        .map_err(|why| ServeError::Agent(format!("{name}: {why}")))?;
    Ok((entries, Some(act.prompts)))
}

/// The entries of `tools` and `resources` (by Primitive-ID; a resource's ID names its queries or
/// its document), in catalog order. A member hidden by a missing server parameter is refused when
/// `strict` (at start), and otherwise logged and kept as waiting (a reload); when
/// `clients_bring` (per-client credentials, D142) it is kept as waiting without a word.
fn scope_entries<'c>(
    catalog: &'c Catalog,
    tools: &[String],
    resources: &[String],
    strict: bool,
    clients_bring: bool,
) -> Result<Scope<'c>, String> {
    let tools: HashSet<&str> = tools.iter().map(String::as_str).collect();
    let resources: HashSet<&str> = resources.iter().map(String::as_str).collect();
    let mut out = Scope::default();
    for e in catalog.list() {
        let eid = e.descriptor.id.to_string();
        let member = match e.descriptor.kind {
            Kind::Tool => tools.contains(eid.as_str()),
            _ => resources.contains(eid.as_str()),
        };
        if !member {
            continue;
        }
        if e.descriptor.is_exposed() {
            out.0.push(e);
        } else if clients_bring {
            out.1.push(e);
        } else if strict {
            return Err(format!(
                "member {} needs {} (no value set)",
                e.descriptor.lookup_key(),
                e.descriptor.missing_server_params.join(", ")
            ));
        } else {
            tracing::warn!(
                "{} is hidden (missing {})",
                e.descriptor.lookup_key(),
                e.descriptor.missing_server_params.join(", ")
            );
            out.1.push(e);
        }
    }
    // A member tool of a file with errors is not in the list at all.
    if strict && let Some(missing) = tools.iter().find(|t| catalog.find(t).is_none()) {
        let why = catalog
            .rejected(missing)
            .map_or_else(|| "not callable".to_string(), |r| r.reason());
        return Err(format!("member {missing}: {why}"));
    }
    Ok(out)
}

/// Agents served as tools: tool name → agent name and whether it declares an `inputSchema`; and
/// their MCP entries in order.
type AgentTools = (HashMap<String, (String, bool)>, Vec<Tool>);

/// The agents of `opts.agent_tools` this endpoint serves as tools: those every entry of whose
/// activation the endpoint serves (an agent runs its tools through the catalog).
fn agent_tools(
    catalog: &Catalog,
    opts: &ServeOptions,
    strict: bool,
    served: &HashSet<&str>,
    where_: &str,
) -> Result<AgentTools, ServeError> {
    let mut agents = HashMap::new();
    let mut entries = Vec::new();
    for name in &opts.agent_tools {
        let act = match catalog.activate_agent(name) {
            Ok(act) => act,
            Err(why) if strict => return Err(ServeError::Activation(why)),
            Err(why) => {
                tracing::warn!("agent tool {name}: {why}");
                continue;
            }
        };
        let runs = scope_entries(catalog, &act.tools, &act.resources, false, false)
            .map(|scope| scope.0)
            .unwrap_or_default();
        if let Some(outside) = runs
            .iter()
            .find(|e| !served.contains(e.descriptor.wire_name.as_str()))
        {
            tracing::warn!(
                "agent tool {name} is not served {where_}: the agent runs {}, which is not",
                outside.descriptor.lookup_key()
            );
            continue;
        }
        let Some(manifest) = catalog.agent_manifest(name) else {
            continue;
        };
        let declared = manifest.input_schema.as_ref();
        let schema = declared.cloned().unwrap_or_else(|| {
            let v = json!({
                "type": "object",
                "properties": {"input": {"type": "string", "description": "What to ask the agent"}},
                "required": ["input"]
            });
            v.as_object().cloned().unwrap_or_default()
        });
        let description = format!(
            "{} (runs the agent {name}: its model calls its tools and answers)",
            manifest.description.as_deref().unwrap_or_default()
        );
        entries.push(Tool::new(name.clone(), description, Arc::new(schema)));
        agents.insert(name.clone(), (name.clone(), declared.is_some()));
    }
    Ok((agents, entries))
}

/// What serving each entry needs, in parallel (large catalogs have thousands); the MCP entries
/// themselves are made on first use.
fn prepare(catalog: &Catalog, entries: &[&ToolEntry], schemas: OutputSchemas) -> Vec<Served> {
    entries
        .par_iter()
        .map(|entry| {
            let d = &entry.descriptor;
            let place = catalog.toolset().position(&d.wire_name);
            let tool = OnceLock::new();
            if place.is_none() {
                // Nothing to find it by later: its MCP entry is made now.
                let declared = d.output_schema.as_ref().map(JsonText::parse);
                let output = Output::of(declared.as_ref(), schemas);
                let _ = tool.set(Listing::of(projection::tool(entry, &output, schemas), false).0);
            }
            Served {
                tool,
                schemas,
                placeless_output: place.map_or_else(|| d.output_schema.clone(), |_| None),
                media: Media::of(d.output_mime_type.as_deref()),
                serial: !d.concurrency_safe(),
                always_load: d.always_load(),
                entry: place,
                id: Arc::from(d.id.to_string()),
                paging: Paging::of(d),
            }
        })
        .collect()
}
