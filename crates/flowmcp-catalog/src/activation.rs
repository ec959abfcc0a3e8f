//! Activating an agent (chapter 06): which tools, resources, prompts and skills it brings, with
//! the checks activation makes before anything is served — a valid manifest, every referenced
//! tool, prompt, resource and selection there, every server parameter of the schemas involved
//! set — and the hash check, which only warns.

use std::collections::BTreeMap;

use flowmcp_validate::prompts::EntryKind;
use serde_json::Value;

use crate::{Catalog, runtime::Kind};
use flowmcp_spec::id::{IdType, defined_text};

impl Catalog {
    /// The ID a primitive that a schema of `namespace` defines under `name` is served under: made
    /// as the runtime makes it ([`flowmcp_spec::id::PrimitiveId::defined`], the name sanitised under `compat`), or
    /// the text as written when no ID can be made of it (it then finds nothing).
    fn defined_id(&self, namespace: &str, kind: IdType, name: &str) -> String {
        let compat = self.options.validation.settings.profile.is_compat();
        defined_text(namespace, kind, name, compat)
    }
}

/// What an activated agent serves, by ID, in a stable order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Activation {
    /// The agent's name.
    pub agent: String,
    /// Tool IDs: the agent's external tools and its selections' tools.
    pub tools: Vec<String>,
    /// Resource IDs: the agent's referenced resources and its selections'.
    pub resources: Vec<String>,
    /// Prompt and skill IDs: the agent's own prompts and skills, the prompts it references, its
    /// selections' prompts and skills, and the namespace skills of the namespaces its tools
    /// come from.
    pub prompts: Vec<String>,
    /// The shared lists the agent declares (`agent.sharedLists`), each found in the catalog's
    /// `_lists/`.
    pub lists: Vec<String>,
    /// What activation noticed without refusing: a hash that does not match, inline tools not
    /// served for want of an upstream.
    pub warnings: Vec<String>,
}

/// Why an agent cannot be activated: the facts (names, files, codes), without advice on what to
/// run or set; a program adds its own when it shows them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActivationError {
    /// No agent of that name; `known` lists the catalog's agents.
    #[error("no agent {name:?} in the catalog{}", known_agents(.known))]
    UnknownAgent { name: String, known: Vec<String> },
    /// The agent's manifest has error findings (`codes`, each once, in order) in `file`.
    #[error("agent {name:?}: {file} has errors ({})", codes_text(.codes))]
    ManifestErrors {
        name: String,
        file: String,
        codes: Vec<flowmcp_spec::Code>,
    },
    /// One of the agent's own resources is not among the catalog's entries.
    #[error("agent {name:?}: its resource {key:?} cannot be served")]
    ResourceNotServed { name: String, key: String },
    /// Server parameters of the schemas involved have no value: `report` lists what each schema
    /// requires and the state of each name (`set`, `missing`, reserved).
    #[error("{report}")]
    MissingServerParams { name: String, report: String },
    /// A member the agent names is missing or cannot be used (a tool, selection, resource,
    /// prompt or shared list): `problem` says which and why.
    #[error("agent {name:?}: {problem}")]
    Member { name: String, problem: String },
}

fn known_agents(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (it has {})", known.join(", "))
    }
}

fn codes_text(codes: &[flowmcp_spec::Code]) -> String {
    codes
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A member problem of the agent `name`.
fn member(name: &str, problem: impl Into<String>) -> ActivationError {
    ActivationError::Member {
        name: name.to_string(),
        problem: problem.into(),
    }
}

fn push_unique(list: &mut Vec<String>, id: &str) {
    if !list.iter().any(|x| x == id) {
        list.push(id.to_string());
    }
}

impl Catalog {
    /// Activates the agent `name`: what it serves, or why it cannot be activated — its manifest
    /// has errors, a referenced tool, prompt, resource or selection is not there, or a server
    /// parameter of an involved schema has no value (reported per schema, as the chapter shows).
    pub fn activate_agent(&self, name: &str) -> Result<Activation, ActivationError> {
        let Some((path, agent)) = self.agent_source(name) else {
            return Err(ActivationError::UnknownAgent {
                name: name.to_string(),
                known: self.agent_names(),
            });
        };
        // An agent with any error cannot be activated.
        if let Some(report) = self
            .files
            .iter()
            .position(|f| f.path == path)
            .and_then(|i| self.file_report(i))
            .filter(|r| r.counts().errors > 0)
        {
            let mut codes: Vec<flowmcp_spec::Code> = report
                .diagnostics()
                .iter()
                .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                .map(|d| d.code)
                .collect();
            codes.dedup();
            return Err(ActivationError::ManifestErrors {
                name: name.to_string(),
                file: report.file().to_string(),
                codes,
            });
        }
        let lib = self.library();
        let mut act = Activation {
            agent: name.to_string(),
            ..Activation::default()
        };
        let members = |key: &str| -> Vec<(String, Value)> {
            agent
                .get(key)
                .and_then(Value::as_object)
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default()
        };
        // Tools: external ones must resolve; inline ones are the agent's own schema's
        // (`<agent>/tool/<key>`), there unless their paths are relative and no upstream is set.
        for (key, value) in members("tools") {
            if !key.contains('/') {
                let id = self.defined_id(name, IdType::Tool, &key);
                if self.find(&id).is_some() {
                    push_unique(&mut act.tools, &id);
                } else {
                    act.warnings.push(format!(
                        "inline tool {key:?} is not served: its path is relative and no upstream is set for {name}"
                    ));
                }
                continue;
            }
            if !value.is_null() {
                continue; // AGT020, reported by validation
            }
            match self.find(&key).filter(|e| e.descriptor.kind == Kind::Tool) {
                Some(_) => push_unique(&mut act.tools, &key),
                None => {
                    let why = self
                        .rejected(&key)
                        .map_or_else(|| "not in the catalog".to_string(), |r| r.reason());
                    return Err(member(name, format!("tool {key}: {why}")));
                }
            }
        }
        // Selections bring their members.
        for id in agent
            .get("selections")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let sel = lib
                .selection(id)
                .ok_or_else(|| member(name, format!("selection {id} is not in the catalog")))?;
            if let Some(problem) = sel.problem() {
                return Err(member(name, problem));
            }
            for t in &sel.tools {
                push_unique(&mut act.tools, t);
            }
            for r in &sel.resources {
                push_unique(&mut act.resources, r);
            }
            for p in sel.prompts.iter().chain(&sel.skills) {
                push_unique(&mut act.prompts, p);
            }
        }
        // Resources and prompts it references.
        for (key, value) in members("resources") {
            if !key.contains('/') {
                let id = self.defined_id(name, IdType::Resource, &key);
                if !self
                    .list()
                    .iter()
                    .any(|e| e.descriptor.id.to_string() == id)
                {
                    return Err(ActivationError::ResourceNotServed {
                        name: name.to_string(),
                        key: key.clone(),
                    });
                }
                push_unique(&mut act.resources, &id);
            } else if value.is_null() {
                if !lib.has_resource(&key) {
                    return Err(member(
                        name,
                        format!("resource {key} is not in the catalog"),
                    ));
                }
                push_unique(&mut act.resources, &key);
            }
        }
        for (key, value) in members("prompts") {
            if key.contains('/') && value.is_null() {
                if lib.get(&key).is_none_or(|e| e.kind == EntryKind::Skill) {
                    return Err(member(name, format!("prompt {key} is not in the catalog")));
                }
                push_unique(&mut act.prompts, &key);
            }
        }
        // Its own prompts and skills, and the skills of the namespaces its tools come from.
        let namespaces: Vec<&str> = act
            .tools
            .iter()
            .filter_map(|t| t.split('/').next())
            .collect();
        for e in lib.entries() {
            let own = e.owner == name && e.kind != EntryKind::ProviderPrompt;
            let namespace_skill =
                e.kind == EntryKind::Skill && namespaces.contains(&e.owner.as_str());
            if own || namespace_skill {
                push_unique(&mut act.prompts, &e.id);
            }
        }
        // Every server parameter of the schemas involved.
        let mut needs: BTreeMap<&str, (Vec<&str>, Vec<&str>)> = BTreeMap::new();
        for id in act.tools.iter().chain(&act.resources) {
            for e in self
                .list()
                .iter()
                .filter(|e| e.descriptor.id.to_string() == *id)
            {
                let d = &e.descriptor;
                let (required, missing) = needs.entry(d.namespace.as_str()).or_default();
                for p in &d.required_server_params {
                    if !required.contains(&p.as_str()) {
                        required.push(p);
                    }
                }
                for p in &d.missing_server_params {
                    if !missing.contains(&p.as_str()) {
                        missing.push(p);
                    }
                }
            }
        }
        if needs.values().any(|(_, missing)| !missing.is_empty()) {
            let mut out = format!("Agent \"{name}\" requires:");
            for (ns, (required, _)) in &needs {
                if required.is_empty() {
                    out.push_str(&format!("\n  - (none) ({ns} has no requiredServerParams)"));
                }
                for p in required {
                    out.push_str(&format!("\n  - {p} (from {ns} schemas)"));
                }
            }
            let states: Vec<String> = needs
                .values()
                .flat_map(|(required, missing)| {
                    required.iter().map(move |p| {
                        format!(
                            "{p}={}",
                            if flowmcp_runtime::secret::is_reserved_name(p) {
                                "reserved for flowmcp itself, never given to a schema"
                            } else if missing.contains(p) {
                                "missing"
                            } else {
                                "set"
                            }
                        )
                    })
                })
                .collect();
            out.push_str(&format!(
                "\n\nChecking the environment... {}",
                states.join(", ")
            ));
            return Err(ActivationError::MissingServerParams {
                name: name.to_string(),
                report: out,
            });
        }
        // The shared lists it declares (step 8): each must be in the catalog's `_lists/`.
        match agent.get("sharedLists") {
            None => {}
            Some(Value::Array(items)) => {
                for item in items {
                    let list = item
                        .as_str()
                        .or_else(|| item.get("ref").and_then(Value::as_str))
                        .ok_or_else(|| {
                            member(name, format!("sharedLists holds {item}, not a list name"))
                        })?;
                    let found = self.lists().registry().and_then(|r| r.get(list));
                    if found.is_none() {
                        let why = self.lists().missing_reason().map_or_else(
                            || "it is not among the catalog's shared lists".to_string(),
                            |r| format!("the catalog's shared lists are not there: {r}"),
                        );
                        return Err(member(name, format!("shared list {list:?}: {why}")));
                    }
                    push_unique(&mut act.lists, list);
                }
            }
            Some(other) => {
                return Err(member(
                    name,
                    format!("sharedLists must be an array of list names (found {other})"),
                ));
            }
        }
        // The hashes: a mismatch is a warning.
        if let Ok(integrity) = self.agent_integrity(name)
            && !integrity.is_valid()
        {
            act.warnings.push(integrity.report());
        }
        Ok(act)
    }
}
