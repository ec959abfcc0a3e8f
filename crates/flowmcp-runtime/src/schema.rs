//! One loaded schema file as calls see it ([`LoadedSchema`]): what the toolset builds and the
//! request builder, handlers and resources read.

use std::collections::HashMap;
use std::path::PathBuf;

use flowmcp_spec::model::{Resource, SchemaMain};
use indexmap::IndexMap;
use serde_json::Value;

/// One loaded schema file.
#[derive(Debug)]
pub struct LoadedSchema {
    /// The file on disk.
    pub path: PathBuf,
    /// The name messages use.
    pub display: String,
    /// The typed `main`, with only the first of each tool's `tests` (prompts show it as the
    /// example call) and with `output.schema` set to `null` (the descriptors hold the output
    /// schemas).
    pub main: SchemaMain,
    /// The module source, kept when the module exports `handlers`.
    pub handlers_source: Option<String>,
    /// `main.resources`, typed, without their queries' `tests` and output schemas (the
    /// descriptors hold those).
    pub resources: IndexMap<String, Resource>,
    /// The resolved shared lists (`{ name: [entries…] }`), as the handlers factory receives them.
    pub shared_lists: Value,
    /// Why some of the schema's shared lists are missing from [`LoadedSchema::shared_lists`]
    /// (no `_lists/` found, a list or version not found); `None` when all resolved.
    pub lists_note: Option<String>,
    /// Each preloaded tool's `main` entry as written (all its tests and its output schema, which
    /// [`LoadedSchema::main`] no longer holds), for its definition hash.
    pub(crate) preloaded: Vec<(String, Value)>,
    /// The definition hash of each preloaded tool, by tool name: computed on the first call
    /// that consults the cache, once for all of them (a listing or a run without the cache
    /// never needs them).
    pub(crate) cache_definitions: std::sync::OnceLock<HashMap<String, String>>,
}

impl LoadedSchema {
    /// True when the module exports a `handlers` factory.
    pub fn has_handlers(&self) -> bool {
        self.handlers_source.is_some()
    }

    /// The hash the preload cache binds `tool`'s entries to (see
    /// [`CacheKey::with_definition`](crate::cache::CacheKey::with_definition)); `None` for a tool
    /// without `preload.enabled`.
    pub fn cache_definition(&self, tool: &str) -> Option<&str> {
        self.cache_definitions
            .get_or_init(|| {
                self.preloaded
                    .iter()
                    .map(|(name, entry)| {
                        let hash = crate::cache::definition_hash(
                            &self.main,
                            name,
                            entry,
                            &self.shared_lists,
                            self.handlers_source.as_deref(),
                        );
                        (name.clone(), hash)
                    })
                    .collect()
            })
            .get(tool)
            .map(String::as_str)
    }
}
