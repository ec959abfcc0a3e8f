//! Agents' integrity hashes (chapter 06): the hash of each external tool an agent uses and the
//! agent hash over them, checked against what the manifest (`hash`) and its lock file record.
//!
//! The per-tool hashes are kept in a lock file beside the agent's directory,
//! `agents/<name>.lock.json` (the agent directory itself may hold only the manifest, `prompts/`,
//! `skills/` and resource files), so that a mismatch can name the tools that changed. Checking
//! never writes; [`Catalog::rehash_agent`] writes the manifest's `hash` (only that value changes
//! in its text) and the lock file, each atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use flowmcp_spec::hash::{agent_hash, tool_hash};
use flowmcp_spec::model::AgentManifest;
use flowmcp_validate::prompts::PartKind;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::{Catalog, CatalogError};

/// One external tool of an agent and its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolIntegrity {
    /// The tool's Primitive-ID.
    pub id: String,
    /// Its hash now (`sha256:<hex>`), or why it cannot be computed (the tool is not in the
    /// catalog, its schema has errors, …).
    pub hash: Result<String, String>,
    /// Its hash in the lock file, when there is one.
    pub locked: Option<String>,
}

impl ToolIntegrity {
    /// Whether the tool differs from what the lock file records (or cannot be hashed).
    pub fn changed(&self) -> bool {
        match (&self.hash, &self.locked) {
            (Ok(now), Some(then)) => now != then,
            (Ok(_), None) => true,
            (Err(_), _) => true,
        }
    }
}

/// An agent's integrity: what the files record and what the catalog gives now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentIntegrity {
    /// The agent's name.
    pub agent: String,
    /// Its manifest.
    pub manifest: PathBuf,
    /// Its lock file (`agents/<name>.lock.json`), whether or not it exists.
    pub lock: PathBuf,
    /// The manifest's `hash`, when it has one.
    pub stored: Option<String>,
    /// The agent hash now, or why it cannot be computed.
    pub computed: Result<String, String>,
    /// Its external tools (`ns/tool/name: null`), in ID order.
    pub tools: Vec<ToolIntegrity>,
    /// Tools the lock file records that the agent no longer uses.
    pub removed: Vec<String>,
}

impl AgentIntegrity {
    /// Whether the manifest has a hash and it is the hash now.
    pub fn is_valid(&self) -> bool {
        matches!((&self.stored, &self.computed), (Some(s), Ok(c)) if s == c)
    }

    /// What to tell a user: `Agent "x": 3 tools, all hashes valid`, or the mismatch with the
    /// tools that changed (the command that writes the hash again is the caller's to add).
    pub fn report(&self) -> String {
        if self.is_valid() {
            return format!(
                "Agent \"{}\": {} tools, all hashes valid",
                self.agent,
                self.tools.len()
            );
        }
        let mut out = match (&self.stored, &self.computed) {
            // Computed now, so that it can be compared and recorded (`hash: '…'`).
            (None, Ok(c)) => format!(
                "Agent \"{}\": NO HASH (the manifest has no `hash`; it is {c} now)",
                self.agent
            ),
            (None, Err(why)) => format!(
                "Agent \"{}\": NO HASH (the manifest has no `hash`, and it cannot be computed: {why})",
                self.agent
            ),
            (_, Err(why)) => format!("Agent \"{}\": CANNOT HASH: {why}", self.agent),
            (Some(s), Ok(c)) => format!(
                "Agent \"{}\": HASH MISMATCH (manifest {s}, now {c})",
                self.agent
            ),
        };
        let have_lock = self.tools.iter().any(|t| t.locked.is_some()) || !self.removed.is_empty();
        for t in self.tools.iter().filter(|t| t.changed()) {
            let line = match (&t.hash, &t.locked) {
                (Err(why), _) => format!("\n  - {}: {why}", t.id),
                (Ok(now), Some(then)) => format!("\n  - {}: expected {then} got {now}", t.id),
                (Ok(_), None) if have_lock => format!("\n  - {}: new (not in the lock file)", t.id),
                (Ok(_), None) => continue,
            };
            out.push_str(&line);
        }
        for id in &self.removed {
            out.push_str(&format!("\n  - {id}: no longer used"));
        }
        if !have_lock && self.stored.is_some() {
            out.push_str(&format!(
                "\n  (no lock file {}: the changed tools cannot be named)",
                self.lock.display()
            ));
        }
        out
    }
}

impl Catalog {
    /// The manifest of the agent `name` (a file of the catalog exporting `agent` with that name):
    /// its path and its `agent` object as written.
    pub(crate) fn agent_source(&self, name: &str) -> Option<(&Path, &Map<String, Value>)> {
        self.files.iter().find_map(|f| match &f.part.kind {
            PartKind::Agent(Value::Object(a))
                if a.get("name").and_then(Value::as_str) == Some(name) =>
            {
                Some((f.path.as_path(), a))
            }
            _ => None,
        })
    }

    /// The `agent` object of the agent `name`'s manifest, as the module exports it (what
    /// validation reads; what runs reads [`Catalog::agent_manifest`]).
    pub fn agent(&self, name: &str) -> Option<&Map<String, Value>> {
        self.agent_source(name).map(|(_, a)| a)
    }

    /// The manifest of the agent `name`, typed ([`AgentManifest`], read as leniently as its
    /// documentation says): what the agent runner and an agent served as a tool use. Whether
    /// the manifest is valid is activation's question ([`Catalog::activate_agent`]).
    pub fn agent_manifest(&self, name: &str) -> Option<AgentManifest> {
        // Found by its string `name`, so it is an object with one: it always reads.
        self.agent_source(name)
            .and_then(|(_, a)| AgentManifest::deserialize(a).ok())
    }

    /// The names of the catalog's agents (files exporting `agent` with a string `name`).
    pub fn agent_names(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|f| match &f.part.kind {
                PartKind::Agent(a) => a.get("name").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .collect()
    }

    /// The hash of one tool of the catalog now, from its schema file as written (read again,
    /// through the static scan and the sandbox).
    fn tool_hash_now(&self, id: &str) -> Result<String, String> {
        let Some(entry) = self
            .find(id)
            .filter(|e| e.descriptor.kind == crate::runtime::Kind::Tool)
        else {
            return Err(match self.rejected(id) {
                Some(r) => format!("not callable: {}", r.reason()),
                None => "not in the catalog".to_string(),
            });
        };
        let schema = self.toolset().schema_of(entry);
        let v = &self.options.validation;
        let loaded =
            flowmcp_loader::load_file(&schema.path, &schema.display, &v.limits, &v.settings);
        let main = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("main"))
            .ok_or_else(|| format!("{} cannot be read again", schema.display))?;
        tool_hash(main, &entry.descriptor.tool)
            .ok_or_else(|| format!("{} no longer defines it", schema.display))
    }

    /// The integrity of the agent `name`: the hash its manifest records, the hash now and each
    /// external tool's hash against its lock file. Reads, never writes.
    pub fn agent_integrity(&self, name: &str) -> Result<AgentIntegrity, CatalogError> {
        let (manifest, agent) = self.agent_source(name).ok_or_else(|| {
            let known = self.agent_names();
            CatalogError::Entry(format!(
                "no agent {name:?} in the catalog{}",
                if known.is_empty() {
                    String::new()
                } else {
                    format!(" (it has {})", known.join(", "))
                }
            ))
        })?;
        // Found by its string `name`, so the typed manifest always reads.
        let agent = AgentManifest::deserialize(agent)
            .map_err(|e| CatalogError::Entry(format!("agent {name:?}: {e}")))?;
        let mut ids: Vec<String> = agent.external_tools().map(str::to_string).collect();
        ids.sort();
        let lock = lock_path(manifest, name)?;
        let locked = read_lock(&lock)?;
        let tools: Vec<ToolIntegrity> = ids
            .iter()
            .map(|id| ToolIntegrity {
                id: id.clone(),
                hash: self.tool_hash_now(id),
                locked: locked.get(id).cloned(),
            })
            .collect();
        let computed = tools
            .iter()
            .map(|t| {
                t.hash
                    .clone()
                    .map(|h| (t.id.clone(), h))
                    .map_err(|e| format!("{}: {e}", t.id))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|pairs| agent_hash(&pairs));
        let removed = locked
            .keys()
            .filter(|k| !ids.contains(k))
            .cloned()
            .collect();
        Ok(AgentIntegrity {
            agent: name.to_string(),
            manifest: manifest.to_path_buf(),
            lock,
            stored: agent.hash,
            computed,
            tools,
            removed,
        })
    }

    /// Computes the agent's hashes now and writes them: the manifest's `hash` (inserted when it
    /// is absent; nothing else in the manifest's text changes) and the lock file with every
    /// external tool's hash, each atomically. Fails, writing nothing, when a tool cannot be
    /// hashed.
    pub fn rehash_agent(&self, name: &str) -> Result<AgentIntegrity, CatalogError> {
        let now = self.agent_integrity(name)?;
        let hash = now
            .computed
            .clone()
            .map_err(|why| CatalogError::Entry(format!("agent {name:?}: cannot hash: {why}")))?;
        // The manifest is read and rewritten through its directory's handle.
        let (manifest_dir, manifest_file) = split_file(&now.manifest)?;
        let manifest_root = flowmcp_files::Root::new(manifest_dir);
        let source = String::from_utf8(manifest_root.read_capped(manifest_file, MAX_TEXT)?)
            .map_err(|e| CatalogError::Entry(format!("{}: {e}", now.manifest.display())))?;
        let edited = flowmcp_loader::edit::set_string_member(&source, "agent", "hash", &hash)
            .map_err(|e| CatalogError::Entry(format!("{}: {e}", now.manifest.display())))?;
        let tools: BTreeMap<&str, &str> = now
            .tools
            .iter()
            .filter_map(|t| t.hash.as_deref().ok().map(|h| (t.id.as_str(), h)))
            .collect();
        let lock = json!({ "agent": name, "hash": hash, "tools": tools });
        let mut text =
            serde_json::to_string_pretty(&lock).map_err(|e| CatalogError::Entry(e.to_string()))?;
        text.push('\n');
        // Through the `agents/` folder's handle: a link in the lock file's place is not
        // written through.
        let (agents, file) = split_file(&now.lock)?;
        flowmcp_files::Root::new(agents).write_atomic(file, text.as_bytes(), &|_| true)?;
        if edited != source {
            manifest_root.write_atomic(manifest_file, edited.as_bytes(), &|_| true)?;
        }
        Ok(AgentIntegrity {
            stored: Some(hash),
            tools: now
                .tools
                .into_iter()
                .map(|t| ToolIntegrity {
                    locked: t.hash.clone().ok(),
                    ..t
                })
                .collect(),
            removed: Vec::new(),
            ..now
        })
    }
}

/// `agents/<name>.lock.json` for the manifest `agents/<name>/agent.mjs` (beside the agent's
/// directory). The name comes from the manifest, so it becomes one file-name component
/// ([`flowmcp_spec::paths::encode_name`]) inside the `agents/` folder, whatever it says.
fn lock_path(manifest: &Path, name: &str) -> Result<PathBuf, CatalogError> {
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let agents = dir.parent().unwrap_or(dir);
    let file = agents.join(format!(
        "{}.lock.json",
        flowmcp_spec::paths::encode_name(name)
    ));
    Ok(flowmcp_files::Root::new(agents).inside(&file)?)
}

/// The largest manifest or lock file read.
const MAX_TEXT: u64 = 4 << 20;

/// The directory of `file` and its name, for a root on that directory.
fn split_file(file: &Path) -> Result<(&Path, &Path), CatalogError> {
    match (file.parent(), file.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, Path::new(name))),
        _ => Err(CatalogError::io(
            file,
            std::io::ErrorKind::InvalidInput.into(),
        )),
    }
}

/// The per-tool hashes of a lock file (none when it does not exist), read through the
/// `agents/` folder's handle.
fn read_lock(path: &Path) -> Result<BTreeMap<String, String>, CatalogError> {
    let (dir, file) = split_file(path)?;
    let bytes = match flowmcp_files::Root::new(dir).read_capped(file, MAX_TEXT) {
        Ok(b) => b,
        Err(flowmcp_files::PathError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(BTreeMap::new());
        }
        Err(e) => return Err(e.into()),
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| CatalogError::Entry(format!("{}: not UTF-8: {e}", path.display())))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| CatalogError::Entry(format!("{}: not JSON: {e}", path.display())))?;
    Ok(v.get("tools")
        .and_then(Value::as_object)
        .map(|t| {
            t.iter()
                .filter_map(|(k, h)| h.as_str().map(|h| (k.clone(), h.to_string())))
                .collect()
        })
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #27 (one path resolver): the lock file's name comes from the manifest's `name`, so
    /// it stays one file inside `agents/` whatever the name says.
    #[test]
    fn the_lock_file_stays_in_the_agents_folder() {
        let base = std::env::temp_dir().join(format!("flowmcp-lock-{}", std::process::id()));
        let agents = base.join("catalog/agents");
        std::fs::create_dir_all(agents.join("helper")).unwrap();
        let manifest = agents.join("helper/agent.mjs");
        let agents = std::fs::canonicalize(&agents).unwrap();
        let ok = lock_path(&manifest, "helper").unwrap();
        assert_eq!(ok, agents.join("helper.lock.json"));
        let odd = lock_path(&manifest, "../../../outside").unwrap();
        assert_eq!(odd.parent(), Some(agents.as_path()));
        assert_eq!(
            odd.file_name().and_then(|n| n.to_str()),
            Some("%2E%2E%2F%2E%2E%2F%2E%2E%2Foutside.lock.json")
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Issue 29, item 4: the report gives the facts and names no CLI command (`flowmcp agent
    /// verify` adds the recommendation).
    #[test]
    fn i29_4_a_mismatch_report_names_no_cli_command() {
        let integrity = AgentIntegrity {
            agent: "helper".into(),
            manifest: PathBuf::from("agents/helper/agent.mjs"),
            lock: PathBuf::from("agents/helper.lock.json"),
            stored: Some("sha256:aa".into()),
            computed: Ok("sha256:bb".into()),
            tools: Vec::new(),
            removed: vec!["ns/tool/gone".into()],
        };
        let report = integrity.report();
        assert!(report.contains("HASH MISMATCH"), "{report}");
        assert!(report.contains("ns/tool/gone: no longer used"), "{report}");
        assert!(!report.contains("flowmcp "), "{report}");
    }
}
