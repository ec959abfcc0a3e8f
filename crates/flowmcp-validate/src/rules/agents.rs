//! Rules on agent manifests (`export const agent`, chapter 06) that a file can be checked for on
//! its own: the fields, the slash rule of `tools`, `prompts` and `resources`, inline tools, the
//! tests and `elicitation`. What needs the catalog — that external tools, selections and the
//! referenced files exist — is checked with it ([`crate::prompts`]).

use std::collections::BTreeSet;

use flowmcp_spec::id::PrimitiveId;
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector};
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, required_string, shown, type_name};

/// The rules of an agent manifest, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[
            Code::AGT001,
            Code::AGT002,
            Code::AGT003,
            Code::AGT004,
            Code::AGT005,
        ],
        check: fields,
    },
    SchemaRule {
        codes: &[Code::AGT006, Code::AGT007, Code::AGT019, Code::AGT020],
        check: tools,
    },
    SchemaRule {
        codes: &[Code::AGT013, Code::AGT014, Code::AGT015, Code::AGT020],
        check: prompts_skills_resources,
    },
    SchemaRule {
        codes: &[
            Code::AGT008,
            Code::AGT009,
            Code::AGT010,
            Code::AGT011,
            Code::AGT012,
            Code::TST013,
        ],
        check: tests,
    },
    SchemaRule {
        codes: &[Code::AGT031],
        check: elicitation,
    },
];

/// The version an agent manifest declares.
const AGENT_VERSION: &str = "flowmcp/4.0.0";

/// The version the migration accepts with a warning.
const V3_VERSION: &str = "flowmcp/3.0.0";

/// `agent` when it is an object.
fn agent<'a>(ctx: &SchemaCtx<'a>) -> Option<&'a Map<String, Value>> {
    ctx.export("agent").and_then(Value::as_object)
}

/// `agent.<key>` as a path.
fn at(key: &str) -> JsonPath {
    JsonPath::root("agent").key(key)
}

/// Whether `name` is an agent name: `^[a-z][a-z0-9-]*$`.
fn is_agent_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A non-empty string member, reported with `code` when it is missing, not a string or empty.
fn non_empty<'a>(
    a: &'a Map<String, Value>,
    key: &str,
    code: Code,
    c: &mut Collector<'_>,
) -> Option<&'a str> {
    let path = at(key);
    let text = required_string(a.field(key), &path, key, code, c)?;
    if text.trim().is_empty() {
        c.emit(code, Some(&path), "Must not be empty");
        return None;
    }
    Some(text)
}

/// AGT001: `name` is missing, not `^[a-z][a-z0-9-]*$`, or — for a manifest named `agent.mjs` —
/// not the name of its directory.
///
/// # Why
///
/// The name is the agent's ID and where it lives: `agents/<name>/agent.mjs`. A manifest in another
/// directory would be found under one name and called by another.
///
/// AGT002: `description` is missing or empty.
///
/// # Why
///
/// The description tells people and catalogs what the agent is for.
///
/// AGT003: `model` is missing or not an OpenRouter model ID (`organization/model`).
///
/// # Why
///
/// The runner sends every request to this model; without the organization it cannot be named.
///
/// AGT004: `version` is not `flowmcp/4.0.0`; `flowmcp/3.0.0` is accepted with a deprecation
/// warning (variant `v3`).
///
/// # Why
///
/// The version says which manifest format the file follows; 3.0 manifests still read the same way
/// during the migration.
///
/// AGT005: `systemPrompt` is missing or empty.
///
/// # Why
///
/// It is sent as the system message of every conversation: an agent without one has no
/// instructions.
fn fields(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(a) = agent(ctx) else { return };
    let name_path = at("name");
    if let Some(name) = required_string(a.field("name"), &name_path, "name", Code::AGT001, c) {
        if !is_agent_name(name) {
            c.emit(
                Code::AGT001,
                Some(&name_path),
                format!("Must match ^[a-z][a-z0-9-]*$ (found {name:?})"),
            );
        } else if let Some(dir) = ctx
            .file
            .filter(|f| f.file_name().is_some_and(|n| n == "agent.mjs"))
            .and_then(|f| f.parent())
            .and_then(|d| d.file_name())
            .map(|d| d.to_string_lossy().into_owned())
            .filter(|d| d != name)
        {
            c.emit(
                Code::AGT001,
                Some(&name_path),
                format!("Is {name:?}, but the manifest is in the directory {dir:?}; they must be the same"),
            );
        }
    }
    non_empty(a, "description", Code::AGT002, c);
    if let Some(model) = non_empty(a, "model", Code::AGT003, c)
        && !model.contains('/')
    {
        c.emit(
            Code::AGT003,
            Some(&at("model")),
            format!("Must be an OpenRouter model ID `organization/model` (found {model:?})"),
        );
    }
    let version_path = at("version");
    if let Some(v) = required_string(
        a.field("version"),
        &version_path,
        "version",
        Code::AGT004,
        c,
    ) {
        if v == V3_VERSION {
            c.emit_variant(
                Code::AGT004,
                Some("v3"),
                Some(&version_path),
                format!("{V3_VERSION:?} is deprecated; write {AGENT_VERSION:?}"),
            );
        } else if v != AGENT_VERSION {
            c.emit(
                Code::AGT004,
                Some(&version_path),
                format!("Must be {AGENT_VERSION:?} (found {v:?})"),
            );
        }
    }
    non_empty(a, "systemPrompt", Code::AGT005, c);
}

/// Whether `key` reads as a Primitive-ID (`namespace/type/name`).
fn is_primitive_id(key: &str) -> bool {
    key.parse::<PrimitiveId>().is_ok()
}

/// AGT020 for a slash key whose value is not `null`; `true` when it was reported.
///
/// AGT020: A key containing `/` (a reference to a primitive outside the agent) has a value other
/// than `null`, in `tools`, `prompts` or `resources`.
///
/// # Why
///
/// The slash rule tells references from definitions by the key alone: `ns/type/name: null` is a
/// reference, a key without `/` is defined inline. A value on a reference would be ignored and
/// suggests the author meant something else.
fn slash_value(key: &str, value: &Value, path: &JsonPath, c: &mut Collector<'_>) -> bool {
    if key.contains('/') && !value.is_null() {
        c.emit(
            Code::AGT020,
            Some(path),
            format!("{key:?} refers to a primitive outside the agent; its value must be null (found {})", shown(value)),
        );
        return true;
    }
    false
}

/// AGT006: `tools` is missing, not an object, or empty.
///
/// # Why
///
/// An agent works through its tools; the manifest lists them as an object whose keys are IDs
/// (references) or names (inline tools).
///
/// AGT007: A key of `tools` with `/` is not a Primitive-ID of a tool (`namespace/tool/name`). With
/// the catalog: its namespace or its tool is not there.
///
/// # Why
///
/// External tools are found by their ID; one that does not read or resolve leaves the agent
/// without a tool its prompts and tests count on.
///
/// AGT019: An inline tool (a key without `/`) is not an object with at least `method`, `path`
/// and `description`, or the inline tools' paths name more than one server (whole URLs with
/// different origins). Beyond that, an inline tool is checked by the schema rules, like a tool of
/// a schema file, and their findings are reported at `/agent/tools/<key>/…`.
///
/// # Why
///
/// An inline tool is called like a schema's tool, so it needs what a request is built from; the
/// agent's inline tools form one schema of its own, which has one root.
fn tools(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(a) = agent(ctx) else { return };
    let path = at("tools");
    let tools = match a.field("tools") {
        None => {
            c.emit(
                Code::AGT006,
                Some(&JsonPath::root("agent")),
                "Missing required field \"tools\" (an object of tool IDs and inline tools)",
            );
            return;
        }
        Some(Value::Object(t)) if t.is_empty() => {
            c.emit(Code::AGT006, Some(&path), "Must not be empty");
            return;
        }
        Some(Value::Object(t)) => t,
        Some(other) => {
            c.emit(
                Code::AGT006,
                Some(&path),
                format!(
                    "Must be an object of `ID: null` and inline tools (found {})",
                    type_name(other)
                ),
            );
            return;
        }
    };
    for (key, value) in tools {
        let p = path.key(key);
        if key.contains('/') {
            let is_tool = key
                .parse::<PrimitiveId>()
                .is_ok_and(|id| id.kind.as_str() == "tool");
            if !is_tool {
                c.emit(
                    Code::AGT007,
                    Some(&p),
                    format!("{key:?} is not a tool ID (namespace/tool/name)"),
                );
            }
            slash_value(key, value, &p, c);
            continue;
        }
        let missing: Vec<&str> = ["method", "path", "description"]
            .into_iter()
            .filter(|k| !value.field(k).is_some_and(Value::is_string))
            .collect();
        if !value.is_object() {
            c.emit(
                Code::AGT019,
                Some(&p),
                format!(
                    "An inline tool must be an object with method, path and description (found {})",
                    type_name(value)
                ),
            );
        } else if !missing.is_empty() {
            c.emit(
                Code::AGT019,
                Some(&p),
                format!("Inline tool {key:?} lacks {}", missing.join(", ")),
            );
        }
    }
}

/// AGT013: `prompts` is not an object, or an entry is wrong: a key with `/` must be a prompt ID,
/// and a key without `/` needs an object with a string `file`.
///
/// # Why
///
/// An agent's prompts are references to provider prompts (`ns/prompt/name: null`) or its own
/// prompt files (`name: { file }`); anything else cannot be loaded.
///
/// AGT014: `skills` is not an object, a key contains `/`, or an entry is not an object. (A
/// missing or wrong `file` is SKL016, a file that is not there SKL017.)
///
/// # Why
///
/// Skills are always the agent's own files, registered under their names: `name: { file }`.
///
/// AGT015: `resources` is not an object, or an entry is wrong: a key with `/` must be a resource
/// ID, and a key without `/` an inline resource definition with a `source`. An inline resource
/// is then checked by the schema rules, like a resource of a schema file (findings at
/// `/agent/resources/<key>/…`); its files are found in `resources/` beside the manifest.
///
/// # Why
///
/// As for prompts: references to schema resources by ID, or the agent's own resources defined in
/// place.
fn prompts_skills_resources(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(a) = agent(ctx) else { return };
    for (key, code, id_type) in [
        ("prompts", Code::AGT013, "prompt"),
        ("skills", Code::AGT014, "skill"),
        ("resources", Code::AGT015, "resource"),
    ] {
        let path = at(key);
        let items = match a.field(key) {
            None => continue,
            Some(Value::Object(o)) => o,
            Some(other) => {
                c.emit(
                    code,
                    Some(&path),
                    format!("Must be an object (found {})", type_name(other)),
                );
                continue;
            }
        };
        for (k, v) in items {
            let p = path.key(k);
            if k.contains('/') {
                if key == "skills" {
                    c.emit(
                        code,
                        Some(&p),
                        format!("{k:?}: skills are the agent's own files, registered by name without `/`"),
                    );
                    continue;
                }
                let right_type = k
                    .parse::<PrimitiveId>()
                    .is_ok_and(|id| id.kind.as_str() == id_type);
                if !right_type {
                    c.emit(
                        code,
                        Some(&p),
                        format!("{k:?} is not a {id_type} ID (namespace/{id_type}/name)"),
                    );
                }
                slash_value(k, v, &p, c);
                continue;
            }
            let Some(def) = v.as_object() else {
                c.emit(
                    code,
                    Some(&p),
                    format!("Must be an object (found {})", type_name(v)),
                );
                continue;
            };
            match key {
                "prompts" if !def.field("file").is_some_and(Value::is_string) => {
                    c.emit(
                        code,
                        Some(&p),
                        "Needs a string `file` (the prompt file, relative to the manifest)",
                    );
                }
                "resources" if !def.field("source").is_some_and(Value::is_string) => {
                    c.emit(
                        code,
                        Some(&p),
                        "An inline resource needs a string `source` (sqlite, markdown, …)",
                    );
                }
                _ => {}
            }
        }
    }
}

/// AGT008: `tests` is missing, not an array, or has fewer than 3 tests. One or two tests (the
/// `few` variant) are a warning under `compat`, as a tool's one or two tests are (TST001); no
/// tests at all is an error in both profiles.
///
/// # Why
///
/// Tests are how an agent is known to work with its model: three at least, as for tools.
///
/// AGT009: A test has no string `input`.
///
/// # Why
///
/// The input is what the agent is asked; a test without one cannot run.
///
/// AGT010: A test has no non-empty `expectedTools` array.
///
/// # Why
///
/// The tools an agent must call are what the test checks deterministically.
///
/// AGT011: An `expectedTools` entry is not a Primitive-ID (`namespace/type/name`).
///
/// # Why
///
/// The calls an agent made are recorded by ID; another form can never match.
///
/// AGT012: All tests expect the same set of tools (warning).
///
/// # Why
///
/// Tests that each check the same combination say nothing about the agent's other paths.
///
/// TST013: No test of the agent has `expectedContent` (info).
///
/// # Why
///
/// `expectedTools` shows the agent called the right tools; only `expectedContent` shows that its
/// answer says what it should. One test with it is enough to silence the hint.
fn tests(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(a) = agent(ctx) else { return };
    let path = at("tests");
    let tests = match a.field("tests") {
        None => {
            c.emit(
                Code::AGT008,
                Some(&JsonPath::root("agent")),
                "Missing required field \"tests\" (at least 3)",
            );
            return;
        }
        Some(Value::Array(t)) => t,
        Some(other) => {
            c.emit(
                Code::AGT008,
                Some(&path),
                format!("Must be an array (found {})", type_name(other)),
            );
            return;
        }
    };
    if tests.len() < 3 {
        // One or two tests are the `few` variant: a warning under `compat`, as for a tool's
        // tests (TST001); none at all stays an error in both profiles.
        let variant = (!tests.is_empty()).then_some("few");
        c.emit_variant(
            Code::AGT008,
            variant,
            Some(&path),
            format!("Must have at least 3 tests (found {})", tests.len()),
        );
    }
    let mut combinations: BTreeSet<Vec<&str>> = BTreeSet::new();
    for (i, t) in tests.iter().enumerate() {
        let p = path.index(i);
        if !t.field("input").is_some_and(Value::is_string) {
            c.emit(
                Code::AGT009,
                Some(&p),
                "Needs a string `input` (what the agent is asked)",
            );
        }
        match t.field("expectedTools") {
            Some(Value::Array(tools)) if !tools.is_empty() => {
                let mut ids: Vec<&str> = Vec::new();
                for (k, tool) in tools.iter().enumerate() {
                    match tool.as_str() {
                        Some(id) if is_primitive_id(id) => ids.push(id),
                        _ => {
                            c.emit(
                                Code::AGT011,
                                Some(&p.key("expectedTools").index(k)),
                                format!(
                                    "Must be a Primitive-ID, namespace/type/name (found {})",
                                    shown(tool)
                                ),
                            );
                        }
                    }
                }
                ids.sort_unstable();
                ids.dedup();
                combinations.insert(ids);
            }
            _ => {
                c.emit(
                    Code::AGT010,
                    Some(&p),
                    "Needs a non-empty `expectedTools` array of tool IDs",
                );
            }
        }
    }
    let asserts_content = tests.iter().any(|t| {
        t.field("expectedContent")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    });
    if !tests.is_empty() && !asserts_content {
        c.emit(
            Code::TST013,
            Some(&path),
            "No test checks the answer: consider adding `expectedContent` to at least one",
        );
    }
    if tests.len() >= 2 && combinations.len() == 1 {
        c.emit(
            Code::AGT012,
            Some(&path),
            "Every test expects the same tools; cover different combinations",
        );
    }
}

/// AGT031: `elicitation.maxRounds` is not a whole number of at least 1.
///
/// # Why
///
/// It bounds how often the agent may ask the user for more input; zero, a negative or a fraction
/// cannot bound anything.
fn elicitation(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(e) = agent(ctx).and_then(|a| a.field("elicitation")) else {
        return;
    };
    let path = at("elicitation").key("maxRounds");
    let ok = e
        .field("maxRounds")
        .and_then(Value::as_f64)
        .is_some_and(|n| n >= 1.0 && n.fract() == 0.0);
    if !ok {
        let found = e.field("maxRounds").map_or_else(|| "nothing".into(), shown);
        c.emit(
            Code::AGT031,
            Some(&path),
            format!("Must be a whole number of at least 1 (found {found})"),
        );
    }
}
