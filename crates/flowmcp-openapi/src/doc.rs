//! Reading a document (JSON or YAML) and resolving its `$ref`s: local pointers and files in the
//! document's own folder, read through `flowmcp_files`; nothing else.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use flowmcp_files::Root;
use serde_json::{Map, Value};

use crate::error::ImportError;

/// The largest document (or referenced file) read.
pub(crate) const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How deep references may nest before the chain is cut like a cycle.
const MAX_REF_DEPTH: usize = 48;
/// How deep (in JSON levels below the resolved value) references are followed: what the mapping
/// reads of an operation (parameters, body members, an output schema of 4 levels) lies well
/// above it, and huge documents whose schemas nest hundreds of references deep stay linear.
const MAX_LEVEL: usize = 16;
/// How many nodes one resolution may copy. Documents with wide schemas referring to wide schemas
/// (a few hundred members at each of several levels) would otherwise expand into millions of
/// nodes per operation; past the budget references are left as written (file-qualified), and
/// the mapping notes what it could not read.
const BUDGET: usize = 10_000;
/// The member a cut reference leaves in place of its target.
pub(crate) const CYCLE_MARK: &str = "x-flowmcp-cut-ref";

/// The versions read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    Swagger2,
    OpenApi30,
    OpenApi31,
}

/// Text to a JSON tree: JSON when it parses as JSON, else YAML.
pub(crate) fn parse(text: &str, document: &str) -> Result<Value, ImportError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(trimmed).map_err(|e| ImportError::Parse {
            document: document.to_string(),
            message: e.to_string(),
        });
    }
    serde_norway::from_str::<Value>(trimmed).map_err(|e| ImportError::Parse {
        document: document.to_string(),
        message: e.to_string(),
    })
}

/// Which version the document is, from its top-level `openapi` or `swagger` field.
pub(crate) fn version(doc: &Value, document: &str) -> Result<Version, ImportError> {
    let unsupported = |field: &str, v: &Value| ImportError::UnsupportedVersion {
        document: document.to_string(),
        field: field.to_string(),
        version: match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    };
    if let Some(v) = doc.get("openapi") {
        let text = v.as_str().unwrap_or_default();
        return if text.starts_with("3.0.") || text == "3.0" {
            Ok(Version::OpenApi30)
        } else if text.starts_with("3.1.") || text == "3.1" {
            Ok(Version::OpenApi31)
        } else {
            Err(unsupported("openapi", v))
        };
    }
    if let Some(v) = doc.get("swagger") {
        let ok = matches!(v, Value::String(s) if s == "2.0" || s == "2") || v.as_f64() == Some(2.0);
        return if ok {
            Ok(Version::Swagger2)
        } else {
            Err(unsupported("swagger", v))
        };
    }
    Err(ImportError::NotOpenApi {
        document: document.to_string(),
    })
}

/// The documents of one import: the main one and the files of its folder its references name.
pub(crate) struct Docs {
    main: String,
    folder: Option<Root>,
    loaded: RefCell<HashMap<String, Rc<Value>>>,
    memo: RefCell<HashMap<String, (Value, usize)>>,
}

/// The state of one resolution: the references being followed, and whether one was cut (a
/// cycle) or left unresolved (too deep).
struct Walk {
    stack: Vec<String>,
    cut: bool,
    truncated: bool,
    /// References below this level are not followed.
    max_level: usize,
    /// Nodes this resolution may still copy.
    budget: usize,
}

/// A resolved tree and whether a reference was cut inside it.
pub(crate) struct Resolved {
    pub(crate) value: Value,
    pub(crate) cut: bool,
}

impl Docs {
    /// `main` is the document's name (as reports show it), `doc` its tree, `folder` its folder
    /// (no folder: references to other files are refused).
    pub(crate) fn new(main: &str, doc: Value, folder: Option<Root>) -> Docs {
        let mut loaded = HashMap::new();
        loaded.insert(String::new(), Rc::new(doc));
        Docs {
            main: main.to_string(),
            folder,
            loaded: RefCell::new(loaded),
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// The main document.
    pub(crate) fn root(&self) -> Rc<Value> {
        self.loaded
            .borrow()
            .get("")
            .cloned()
            .unwrap_or_else(|| Rc::new(Value::Null))
    }

    fn shown(&self, file: &str) -> String {
        if file.is_empty() {
            self.main.clone()
        } else {
            file.to_string()
        }
    }

    /// `value` (found at `pointer` of the main document) with every reference replaced by its
    /// target; a reference back into a target being resolved is cut (its place holds
    /// [`CYCLE_MARK`]).
    pub(crate) fn resolve(&self, value: &Value, pointer: &str) -> Result<Resolved, ImportError> {
        self.resolve_within(value, pointer, MAX_LEVEL)
    }

    /// `value` with only its own reference followed (a path item that is a `$ref`); the
    /// references inside are left for [`Docs::resolve`], qualified with their file.
    pub(crate) fn resolve_shallow(
        &self,
        value: &Value,
        pointer: &str,
    ) -> Result<Resolved, ImportError> {
        self.resolve_within(value, pointer, 0)
    }

    fn resolve_within(
        &self,
        value: &Value,
        pointer: &str,
        max_level: usize,
    ) -> Result<Resolved, ImportError> {
        let mut walk = Walk {
            stack: Vec::new(),
            cut: false,
            truncated: false,
            max_level,
            budget: BUDGET,
        };
        let value = self.walk(value, "", &|| pointer.to_string(), 0, &mut walk)?;
        Ok(Resolved {
            value,
            cut: walk.cut,
        })
    }

    /// `pointer` makes the JSON pointer of `value` only when an error needs it (most nodes
    /// never do, and huge documents have millions).
    fn walk(
        &self,
        value: &Value,
        file: &str,
        pointer: &dyn Fn() -> String,
        level: usize,
        walk: &mut Walk,
    ) -> Result<Value, ImportError> {
        match value {
            Value::Object(map) => {
                walk.budget = walk.budget.saturating_sub(1);
                if let Some(Value::String(reference)) = map.get("$ref") {
                    if level > walk.max_level || walk.budget == 0 {
                        // Too deep to matter, or too much: left as written, naming its file so
                        // that it resolves from anywhere (and the result is not memoised).
                        walk.truncated = true;
                        let qualified = if reference.starts_with('#') && !file.is_empty() {
                            format!("{file}{reference}")
                        } else {
                            reference.clone()
                        };
                        let mut left = Map::new();
                        left.insert("$ref".to_string(), Value::String(qualified));
                        return Ok(Value::Object(left));
                    }
                    return self.follow(map, reference, file, pointer, level, walk);
                }
                let mut out = Map::new();
                for (k, v) in map {
                    let at = || format!("{}/{}", pointer(), escape(k));
                    out.insert(k.clone(), self.walk(v, file, &at, level + 1, walk)?);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => {
                walk.budget = walk.budget.saturating_sub(1);
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    let at = || format!("{}/{i}", pointer());
                    out.push(self.walk(v, file, &at, level + 1, walk)?);
                }
                Ok(Value::Array(out))
            }
            other => Ok(other.clone()),
        }
    }

    fn follow(
        &self,
        map: &Map<String, Value>,
        reference: &str,
        file: &str,
        pointer: &dyn Fn() -> String,
        level: usize,
        walk: &mut Walk,
    ) -> Result<Value, ImportError> {
        let (target_file, target_pointer) = match reference.split_once('#') {
            Some((f, p)) => (f, p),
            None => (reference, ""),
        };
        let target_file = if target_file.is_empty() {
            file.to_string()
        } else {
            self.check_file(target_file, file, &pointer(), reference)?
        };
        let key = format!("{target_file}#{target_pointer}");
        if walk.stack.contains(&key) || walk.stack.len() >= MAX_REF_DEPTH {
            walk.cut = true;
            let mut mark = Map::new();
            mark.insert(CYCLE_MARK.to_string(), Value::String(reference.to_string()));
            return Ok(Value::Object(mark));
        }
        if let Some((done, size)) = self.memo.borrow().get(&key)
            && *size <= walk.budget
        {
            walk.budget -= size;
            return Ok(with_siblings(done.clone(), map));
        }
        let cached = self.loaded.borrow().get(&target_file).cloned();
        let doc = match cached {
            Some(doc) => doc,
            None => self.load(&target_file, file, &pointer(), reference)?,
        };
        let decoded = percent_decode(target_pointer);
        let Some(target) = doc.pointer(&decoded) else {
            return Err(ImportError::BrokenRef {
                document: self.shown(file),
                pointer: pointer(),
                reference: reference.to_string(),
                reason: format!("{} has nothing at {decoded:?}", self.shown(&target_file)),
            });
        };
        walk.stack.push(key.clone());
        let (cut_before, truncated_before) = (walk.cut, walk.truncated);
        walk.cut = false;
        walk.truncated = false;
        let budget_before = walk.budget;
        let resolved = self.walk(target, &target_file, &|| decoded.clone(), level, walk);
        walk.stack.pop();
        let resolved = resolved?;
        if !walk.cut && !walk.truncated {
            let size = budget_before - walk.budget;
            self.memo.borrow_mut().insert(key, (resolved.clone(), size));
        }
        walk.cut |= cut_before;
        walk.truncated |= truncated_before;
        Ok(with_siblings(resolved, map))
    }

    /// The file a reference names, when it is in the document's folder.
    fn check_file(
        &self,
        name: &str,
        file: &str,
        pointer: &str,
        reference: &str,
    ) -> Result<String, ImportError> {
        let name = name.strip_prefix("./").unwrap_or(name);
        let outside = name.is_empty()
            || name.contains('/')
            || name.contains('\\')
            || name.contains(':')
            || name == ".."
            || name == "."
            || self.folder.is_none();
        if outside {
            return Err(ImportError::RefOutsideFolder {
                document: self.shown(file),
                pointer: pointer.to_string(),
                reference: reference.to_string(),
            });
        }
        Ok(name.to_string())
    }

    fn load(
        &self,
        target: &str,
        file: &str,
        pointer: &str,
        reference: &str,
    ) -> Result<Rc<Value>, ImportError> {
        if let Some(doc) = self.loaded.borrow().get(target) {
            return Ok(doc.clone());
        }
        let broken = |reason: String| ImportError::BrokenRef {
            document: self.shown(file),
            pointer: pointer.to_string(),
            reference: reference.to_string(),
            reason,
        };
        let Some(folder) = &self.folder else {
            return Err(broken("no folder to read it from".to_string()));
        };
        let bytes = folder
            .read_capped(Path::new(target), MAX_BYTES)
            .map_err(|e| broken(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| broken("not UTF-8".to_string()))?;
        let doc = Rc::new(parse(&text, target).map_err(|e| broken(e.to_string()))?);
        self.loaded
            .borrow_mut()
            .insert(target.to_string(), doc.clone());
        Ok(doc)
    }
}

/// A target with the `description` and `summary` written beside its reference (OpenAPI 3.1).
fn with_siblings(mut target: Value, at: &Map<String, Value>) -> Value {
    if let Value::Object(obj) = &mut target {
        for key in ["description", "summary"] {
            if let Some(v) = at.get(key) {
                obj.insert(key.to_string(), v.clone());
            }
        }
    }
    target
}

/// One JSON-pointer segment.
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// `%XX` escapes of a URI fragment decoded (invalid ones are kept as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn i41_local_cycle_is_cut_and_marked() {
        let doc = json!({"components": {"schemas": {"Node": {"type": "object",
            "properties": {"next": {"$ref": "#/components/schemas/Node"}}}}}});
        let docs = Docs::new("d.json", doc, None);
        let r = docs
            .resolve(&json!({"$ref": "#/components/schemas/Node"}), "/x")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.cut);
        assert_eq!(
            r.value["properties"]["next"][CYCLE_MARK],
            json!("#/components/schemas/Node")
        );
    }

    #[test]
    fn i41_references_far_below_what_is_read_are_left_as_written() {
        let mut schemas = serde_json::Map::new();
        for i in 0..40 {
            schemas.insert(
                format!("S{i}"),
                json!({"type": "object", "properties": {"x": {"$ref": format!("#/s/S{}", i + 1)}}}),
            );
        }
        schemas.insert("S40".into(), json!({"type": "string"}));
        let docs = Docs::new("d.json", json!({ "s": schemas }), None);
        let r = docs
            .resolve(&json!({"$ref": "#/s/S0"}), "/x")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!r.cut);
        // The first levels are resolved ...
        assert_eq!(
            r.value["properties"]["x"]["properties"]["x"]["type"],
            json!("object")
        );
        // ... and below MAX_LEVEL the reference stays as written.
        let mut node = &r.value;
        let mut depth = 0;
        while let Some(next) = node.get("properties").and_then(|p| p.get("x")) {
            node = next;
            depth += 1;
        }
        assert!(node.get("$ref").is_some(), "{node}");
        assert!(depth * 2 > MAX_LEVEL && depth < 40, "{depth}");
    }

    #[test]
    fn i41_a_resolution_copies_at_most_its_budget_and_qualifies_what_it_leaves() {
        let wide = |n: usize, item: Value| {
            let props: serde_json::Map<String, Value> =
                (0..n).map(|i| (format!("p{i}"), item.clone())).collect();
            json!({ "type": "object", "properties": props })
        };
        let doc = json!({ "s": {
            "Outer": wide(200, json!({"$ref": "#/s/Inner"})),
            "Inner": wide(200, json!({"type": "string"})),
        }});
        let docs = Docs::new("d.json", doc.clone(), None);
        let r = docs
            .resolve(&json!({"$ref": "#/s/Outer"}), "/x")
            .unwrap_or_else(|e| panic!("{e}"));
        let props = r.value["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        assert_eq!(props.len(), 200);
        // The first members were resolved, the last ones left as references.
        assert_eq!(props["p0"]["type"], json!("object"));
        assert_eq!(props["p199"], json!({"$ref": "#/s/Inner"}));
        // A reference left inside another file names that file.
        let mut other = Docs::new("d.json", doc, None);
        other.loaded.get_mut().insert(
            "o.json".into(),
            Rc::new(json!({"A": {"$ref": "#/B"}, "B": {}})),
        );
        let mut walk = Walk {
            stack: Vec::new(),
            cut: false,
            truncated: false,
            max_level: 0,
            budget: 10,
        };
        let v = other
            .walk(
                &json!({"x": {"$ref": "#/A"}}),
                "o.json",
                &|| String::new(),
                0,
                &mut walk,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v["x"], json!({"$ref": "o.json#/A"}));
    }

    #[test]
    fn i41_ref_out_of_folder_is_refused_and_named() {
        let docs = Docs::new("d.json", json!({}), None);
        for reference in [
            "../other.yaml#/A",
            "https://example.com/x.json",
            "sub/x.yaml",
        ] {
            let e = docs
                .resolve(&json!({"$ref": reference}), "/paths/~1a/get")
                .err();
            match e {
                Some(ImportError::RefOutsideFolder {
                    reference: r,
                    pointer,
                    ..
                }) => {
                    assert_eq!(r, reference);
                    assert_eq!(pointer, "/paths/~1a/get");
                }
                other => panic!("{reference}: {other:?}"),
            }
        }
    }

    #[test]
    fn i41_versions_are_told_apart() {
        assert_eq!(
            version(&json!({"swagger": "2.0"}), "d").ok(),
            Some(Version::Swagger2)
        );
        assert_eq!(
            version(&json!({"openapi": "3.0.3"}), "d").ok(),
            Some(Version::OpenApi30)
        );
        assert_eq!(
            version(&json!({"openapi": "3.1.0"}), "d").ok(),
            Some(Version::OpenApi31)
        );
        assert!(matches!(
            version(&json!({"openapi": "4.0.0"}), "d"),
            Err(ImportError::UnsupportedVersion { .. })
        ));
        assert!(matches!(
            version(&json!({"hello": 1}), "d"),
            Err(ImportError::NotOpenApi { .. })
        ));
    }
}
