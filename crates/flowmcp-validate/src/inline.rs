//! An agent's inline tools and resources (the keys without `/` in `agent.tools` and
//! `agent.resources`, chapter 06). They are read as one schema of the agent's own: its namespace
//! is the agent's name, so an inline tool `analyze` of the agent `researcher` is
//! `researcher/tool/analyze`. The schema rules check that schema, and their findings are reported
//! on the manifest under `/agent/tools/<key>` and `/agent/resources/<key>`; a catalog serves it
//! like any schema file.
//!
//! Where the tools go: a `path` that is a whole `http(s)` URL gives the schema's `root` (every
//! inline tool of one agent shares one origin); relative paths need the agent's upstream
//! (`--upstream <agent>=URL` or the configuration's `upstreams`), because the manifest names no
//! server. Resource files are found as a schema's are, in `resources/` beside the manifest.

use flowmcp_loader::LoadedFile;
use flowmcp_spec::{
    Code, Diagnostic, FileReport, JsonPath, Severity, diagnostic::Collector, diagnostic::Seg,
};
use serde_json::{Map, Value, json};

use crate::Options;

/// The host of the placeholder root of an agent schema whose inline tools have relative paths.
/// `.invalid` never resolves; a call needs the agent's upstream, which replaces the root.
const UNSET_ROOT: &str = "https://agent-upstream.invalid";

/// The schema an agent's inline tools and resources make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineSchema {
    /// Its namespace: the agent's name.
    pub namespace: String,
    /// The schema's `main`, made from the manifest's data only.
    main: Value,
    /// Whether its tools have relative paths only, so that calling them needs an upstream for
    /// the namespace.
    pub needs_upstream: bool,
    /// The inline tools' and resources' keys, as written.
    pub tools: Vec<String>,
    /// See [`InlineSchema::tools`].
    pub resources: Vec<String>,
}

impl InlineSchema {
    /// The module text, `export const main = …;` (JSON: no code of its own).
    pub fn source(&self) -> String {
        format!("export const main = {};\n", self.main)
    }

    /// The schema without its tools (when they cannot be reached: relative paths and no
    /// upstream); its resources stay.
    pub fn without_tools(&self) -> InlineSchema {
        let mut main = self.main.clone();
        if let Some(m) = main.as_object_mut() {
            m.insert("tools".into(), Value::Object(Map::new()));
            m.remove("root");
        }
        InlineSchema {
            main,
            needs_upstream: false,
            tools: Vec::new(),
            ..self.clone()
        }
    }
}

/// Whether `key: value` of `agent.tools` is an inline tool definition complete enough to read as
/// a tool (AGT019 reports the others).
fn is_inline_tool(key: &str, value: &Value) -> bool {
    !key.contains('/')
        && ["method", "path", "description"]
            .iter()
            .all(|k| value.get(*k).is_some_and(Value::is_string))
}

/// Whether `key: value` of `agent.resources` is an inline resource definition (AGT015 reports the
/// others).
fn is_inline_resource(key: &str, value: &Value) -> bool {
    !key.contains('/') && value.get("source").is_some_and(Value::is_string)
}

/// `https://host[:port]/rest` → (`https://host[:port]`, `/rest`).
fn split_url(path: &str) -> Option<(String, String)> {
    let scheme_end = ["https://", "http://"]
        .iter()
        .find(|s| path.starts_with(*s))
        .map(|s| s.len())?;
    let after = &path[scheme_end..];
    let (host, rest) = after
        .find('/')
        .map_or((after, "/"), |i| (&after[..i], &after[i..]));
    (!host.is_empty()).then(|| {
        (
            path[..scheme_end + host.len()].to_string(),
            rest.to_string(),
        )
    })
}

/// The schema of the agent manifest `agent`'s inline tools and resources: `None` when it has
/// none (or no name); an error text when its inline tools name more than one origin.
pub fn inline_schema(agent: &Value) -> Option<Result<InlineSchema, String>> {
    let name = agent.get("name").and_then(Value::as_str)?;
    let entries = |key: &str, keep: fn(&str, &Value) -> bool| -> Vec<(String, Value)> {
        agent
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(k, v)| keep(k, v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let tools = entries("tools", is_inline_tool);
    let resources = entries("resources", is_inline_resource);
    if tools.is_empty() && resources.is_empty() {
        return None;
    }
    let mut origins: Vec<String> = Vec::new();
    let mut tool_defs = Map::new();
    for (key, mut def) in tools.iter().cloned() {
        let full = def.get("path").and_then(Value::as_str).and_then(split_url);
        if let Some((origin, rest)) = full {
            if !origins.contains(&origin) {
                origins.push(origin);
            }
            def["path"] = Value::String(rest);
        }
        tool_defs.insert(key, def);
    }
    if origins.len() > 1 {
        return Some(Err(format!(
            "the inline tools name {} servers ({}); one agent's inline tools share one",
            origins.len(),
            origins.join(", ")
        )));
    }
    let description = agent
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty())
        .map_or_else(
            || format!("The inline tools and resources of the agent {name}"),
            str::to_string,
        );
    let mut main = json!({
        "namespace": name,
        "name": name,
        "description": description,
        "version": "4.2.0",
        "tools": tool_defs,
    });
    let needs_upstream = !tools.is_empty() && origins.is_empty();
    if !tools.is_empty() {
        main["root"] = Value::String(origins.pop().unwrap_or_else(|| UNSET_ROOT.to_string()));
    }
    if !resources.is_empty() {
        main["resources"] = Value::Object(resources.iter().cloned().collect());
    }
    Some(Ok(InlineSchema {
        namespace: name.to_string(),
        main,
        needs_upstream,
        tools: tools.into_iter().map(|(k, _)| k).collect(),
        resources: resources.into_iter().map(|(k, _)| k).collect(),
    }))
}

/// The inline schema as a loaded schema file named `display` (the manifest's name, so that
/// findings and resource files are found beside it). It is made from the manifest's data, which
/// was scanned and evaluated with the manifest: nothing is scanned or evaluated again.
pub fn load_inline(display: &str, schema: &InlineSchema) -> LoadedFile {
    let mut data = indexmap::IndexMap::new();
    data.insert("main".to_string(), schema.main.clone());
    LoadedFile {
        display: display.to_string(),
        source: Some(schema.source()),
        blanked: None,
        kind: flowmcp_loader::FileKind::Schema,
        exports: Some(flowmcp_loader::Exports {
            names: vec!["main".to_string()],
            data,
            handlers: flowmcp_loader::HandlersExport::Absent,
            unserializable: Vec::new(),
        }),
        diagnostics: Vec::new(),
        bom: false,
        main_literal: None,
    }
}

/// The schema rules' findings on the agent `exports`' inline tools and resources, moved onto the
/// manifest: `/main/tools/<key>/…` becomes `/agent/tools/<key>/…` with the message naming the
/// inline tool (resources likewise). A finding about the made-up schema as a whole is kept only
/// when it is an error (it would stop the tools from being served). `validate` runs the schema
/// rules on the made-up schema, as the manifest itself is validated.
pub(crate) fn findings(
    agent: &Value,
    display: &str,
    opts: &Options,
    validate: impl FnOnce(&mut LoadedFile) -> FileReport,
) -> Vec<Diagnostic> {
    let Some(made) = inline_schema(agent) else {
        return Vec::new();
    };
    let schema = match made {
        Ok(s) => s,
        Err(why) => {
            let mut c = Collector::new(&opts.settings, Some(display.to_string()));
            c.emit(
                Code::AGT019,
                Some(&JsonPath::root("agent").key("tools")),
                why,
            );
            return c.finish();
        }
    };
    let mut loaded = load_inline(display, &schema);
    let report = validate(&mut loaded);
    report
        .into_diagnostics()
        .into_iter()
        .filter_map(|mut d| {
            let segs = d
                .pointer
                .as_ref()
                .map(JsonPath::segments)
                .unwrap_or_default();
            let what = match (segs.get(1), segs.get(2)) {
                (Some(Seg::Key(k)), Some(Seg::Key(key))) if k == "tools" || k == "resources" => {
                    Some((k.clone(), key.clone()))
                }
                _ => None,
            };
            match what {
                Some((kind, key)) => {
                    let mut moved = segs;
                    moved[0] = Seg::Key("agent".into());
                    d.pointer = Some(JsonPath::from_segments(moved));
                    let noun = if kind == "tools" { "tool" } else { "resource" };
                    d.message = format!("inline {noun} {key:?}: {}", d.message);
                    if let Some(rest) = d.path.as_deref().and_then(|p| p.strip_prefix("main.")) {
                        d.path = Some(format!("agent.{rest}"));
                    }
                }
                None if d.severity == Severity::Error => {
                    d.pointer = Some(JsonPath::root("agent"));
                    d.path = Some("agent".to_string());
                    d.message = format!("inline tools and resources: {}", d.message);
                }
                None => return None,
            }
            d.file = Some(display.to_string());
            d.line = None;
            d.column = None;
            Some(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_gives_the_root_and_relative_paths_need_an_upstream() {
        let agent = json!({"name": "a", "tools": {
            "x": {"method": "GET", "path": "https://api.example.org/v1/x", "description": "X"},
            "ext/tool/y": null
        }});
        let s = inline_schema(&agent).unwrap().unwrap();
        assert!(s.source().contains(r#""root":"https://api.example.org""#));
        assert!(s.source().contains(r#""path":"/v1/x""#));
        assert!(!s.needs_upstream);
        assert_eq!(s.tools, ["x"]);

        let agent = json!({"name": "a", "tools": {
            "x": {"method": "GET", "path": "/x", "description": "X"}
        }});
        let s = inline_schema(&agent).unwrap().unwrap();
        assert!(s.needs_upstream);
        assert!(s.source().contains(UNSET_ROOT));
    }

    #[test]
    fn two_origins_are_refused_and_no_inline_entries_give_nothing() {
        let agent = json!({"name": "a", "tools": {
            "x": {"method": "GET", "path": "https://one.example/x", "description": "X"},
            "y": {"method": "GET", "path": "https://two.example/y", "description": "Y"}
        }});
        assert!(inline_schema(&agent).unwrap().is_err());
        let agent = json!({"name": "a", "tools": {"ext/tool/y": null}});
        assert!(inline_schema(&agent).is_none());
    }
}
