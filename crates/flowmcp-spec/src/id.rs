//! IDs (chapter 16 of the specification): Primitive-IDs `namespace/type/name` and Schema-File-IDs
//! `namespace/schema-name`, their parsing, formatting and validation (ID001–ID006), and [`IdIndex`],
//! which resolves an ID to the file that defines it.
//!
//! ## Forms and contexts
//!
//! Where the specification's chapters disagree on IDs, the ID chapter governs: seven types, the
//! short forms are errors, and the number of segments is fixed per form.
//!
//! | form | segments | example |
//! |---|---|---|
//! | Primitive-ID | exactly 3 | `coingecko/tool/simplePrice` |
//! | Schema-File-ID | exactly 2 | `etherscan-io/contracts` |
//!
//! The type is one of the seven of [`IdType`]. Which form is wanted is decided by the context
//! ([`Expect`]): a selection member or a placeholder reference wants a Primitive-ID, a schema file
//! wants a Schema-File-ID, and `flowmcp validate --id` accepts either (3 segments are read as a
//! Primitive-ID, 2 as a Schema-File-ID).
//!
//! ## Which code for which mistake
//!
//! Every finding is an [`IdError`]; [`IdError::code`] names its code. Structural problems are
//! checked first and, when found, are the only finding (the segments then mean nothing):
//!
//! - **ID001** — the segment count is wrong and nothing says what was meant: no `/` at all (the
//!   chapter's own example, `simplePrice`, with its message `ID MUST contain at least one "/"
//!   separator`), more than 3 segments, or 3 segments where only a Schema-File-ID is accepted.
//! - **ID005** — the short form: a primitive written `namespace/name` with the type left out (the
//!   v3 short form, whose type was "if present"). Reported for 2 segments where a Primitive-ID is
//!   expected, and in the `--id` context when the second segment is a camelCase primitive name
//!   (it has an uppercase letter, which a kebab-case schema name never has).
//! - **ID006** — context-based inference: a primitive written `type/name` with the namespace left
//!   for the context to fill in (`tool/simplePrice`), in any context that accepts a Primitive-ID.
//!   A namespace spelled like a type keyword is therefore only usable in Schema-File-IDs read where
//!   nothing but a Schema-File-ID is accepted.
//!
//! Otherwise every component is checked and all findings are reported:
//!
//! - **ID002** — the namespace does not match `^[a-z][a-z0-9-]*$`.
//! - **ID003** — the type is not one of the seven (case-sensitive), or it is not `list` in the
//!   reserved namespace `shared` ("Only `list` type is valid under this namespace").
//! - **ID004** — the name is empty, or it does not match the chapter's name pattern: Primitive names
//!   `^[a-zA-Z][a-zA-Z0-9-]*$` (the Components table; the camelCase/kebab-case conventions per type
//!   are checked where the primitives are defined, not here), schema names `^[a-z][a-z0-9-]*$`
//!   (kebab-case as the chapter says; digits are accepted like in namespaces and file names).
//!
//! ## Resolution
//!
//! [`IdIndex`] maps namespace → (type, name) → [`Resolved`] (catalog-relative file and the key path
//! inside it, e.g. `main.tools.simplePrice`) with hash maps: a lookup costs two hash probes whatever
//! the catalog's size, and borrows the segments of the text without allocating. Unknown namespaces
//! and names fail with the chapter's errors ("namespace not registered", "name not found in
//! namespace"); a second definition of an ID is a [`DuplicateId`] naming both files.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::registry::Code;

/// The pattern a namespace must match (ID002).
pub const NAMESPACE_PATTERN: &str = "^[a-z][a-z0-9-]*$";
/// The pattern a Primitive name must match (ID004).
pub const NAME_PATTERN: &str = "^[a-zA-Z][a-zA-Z0-9-]*$";
/// The pattern the schema name of a Schema-File-ID must match (ID004).
pub const SCHEMA_NAME_PATTERN: &str = "^[a-z][a-z0-9-]*$";
/// The reserved namespace of shared lists; only the `list` type is valid in it.
pub const SHARED_NAMESPACE: &str = "shared";

/// The type segment of a Primitive-ID: the seven kinds of addressable primitives (as the ID chapter
/// lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IdType {
    /// `main.tools` → MCP tool.
    Tool,
    /// `main.resources` → MCP resource.
    Resource,
    /// `main.prompts` → MCP prompt.
    Prompt,
    /// A shared list (`list.meta.name`).
    List,
    /// A skill (`providers/{ns}/skills/`, `selections/{name}/skills/`, `agents/{name}/skills/`).
    Skill,
    /// A selection (`selections/{name}/selection.mjs`).
    Selection,
    /// An agent (`agents/{name}/agent.mjs`).
    Agent,
}

impl IdType {
    /// All types, in the chapter's order.
    pub const ALL: [IdType; 7] = [
        IdType::Tool,
        IdType::Resource,
        IdType::Prompt,
        IdType::List,
        IdType::Skill,
        IdType::Selection,
        IdType::Agent,
    ];

    /// The type as written in an ID: `"tool"`, `"resource"`, …
    pub const fn as_str(self) -> &'static str {
        match self {
            IdType::Tool => "tool",
            IdType::Resource => "resource",
            IdType::Prompt => "prompt",
            IdType::List => "list",
            IdType::Skill => "skill",
            IdType::Selection => "selection",
            IdType::Agent => "agent",
        }
    }

    /// Reads a type segment; exact and case-sensitive (`Tool` is not a type).
    pub fn parse(text: &str) -> Option<IdType> {
        IdType::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

impl fmt::Display for IdType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for IdType {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        IdType::parse(s).ok_or_else(|| IdError::UnknownType {
            found: s.to_string(),
        })
    }
}

/// Which form of ID a context accepts: each context says which it expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expect {
    /// Only `namespace/type/name`.
    Primitive,
    /// Only `namespace/schema-name`.
    SchemaFile,
    /// Either; 3 segments are a Primitive-ID, 2 a Schema-File-ID (`flowmcp validate --id`).
    Either,
}

/// `namespace/type/name`: one tool, resource, prompt, list, skill, selection or agent.
///
/// The fields are public for matching; [`PrimitiveId::new`] and [`PrimitiveId::parse`] check them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrimitiveId {
    pub namespace: String,
    pub kind: IdType,
    pub name: String,
}

impl PrimitiveId {
    /// Builds an ID from its parts, checking them (ID002, ID003 for `shared`, ID004); the first
    /// problem is returned.
    pub fn new(
        namespace: impl Into<String>,
        kind: IdType,
        name: impl Into<String>,
    ) -> Result<Self, IdError> {
        let (namespace, name) = (namespace.into(), name.into());
        let mut errors = Vec::new();
        check_primitive_parts(&namespace, Ok(kind), &name, &mut errors);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(PrimitiveId {
                namespace,
                kind,
                name,
            }),
        }
    }

    /// Parses the full form `namespace/type/name`; the first problem is returned (see
    /// [`diagnose`] for all of them).
    pub fn parse(text: &str) -> Result<Self, IdError> {
        match analyze(text, Expect::Primitive) {
            Ok(View::Primitive {
                namespace,
                kind,
                name,
            }) => Ok(PrimitiveId {
                namespace: namespace.to_string(),
                kind,
                name: name.to_string(),
            }),
            Ok(View::SchemaFile { .. }) => Err(IdError::SegmentCount {
                id: text.to_string(),
                found: 2,
                expect: Expect::Primitive,
            }),
            Err(e) => Err(first(e, text)),
        }
    }
}

impl fmt::Display for PrimitiveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.namespace, self.kind, self.name)
    }
}

impl FromStr for PrimitiveId {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PrimitiveId::parse(s)
    }
}

/// `namespace/schema-name`: one schema file as a whole (the file name without `.mjs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchemaFileId {
    pub namespace: String,
    pub name: String,
}

impl SchemaFileId {
    /// Builds an ID from its parts, checking them (ID002, ID004); the first problem is returned.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Result<Self, IdError> {
        let (namespace, name) = (namespace.into(), name.into());
        let mut errors = Vec::new();
        check_schema_file_parts(&namespace, &name, &mut errors);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(SchemaFileId { namespace, name }),
        }
    }

    /// Parses `namespace/schema-name`; the first problem is returned.
    pub fn parse(text: &str) -> Result<Self, IdError> {
        match analyze(text, Expect::SchemaFile) {
            Ok(View::SchemaFile { namespace, name }) => Ok(SchemaFileId {
                namespace: namespace.to_string(),
                name: name.to_string(),
            }),
            Ok(View::Primitive { .. }) => Err(IdError::SegmentCount {
                id: text.to_string(),
                found: 3,
                expect: Expect::SchemaFile,
            }),
            Err(e) => Err(first(e, text)),
        }
    }
}

impl fmt::Display for SchemaFileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

impl FromStr for SchemaFileId {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchemaFileId::parse(s)
    }
}

/// Either form, as read where both are accepted ([`Expect::Either`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnyId {
    Primitive(PrimitiveId),
    SchemaFile(SchemaFileId),
}

impl AnyId {
    /// Parses either form (3 segments → Primitive-ID, 2 → Schema-File-ID); the first problem is
    /// returned.
    pub fn parse(text: &str) -> Result<Self, IdError> {
        match analyze(text, Expect::Either) {
            Ok(View::Primitive {
                namespace,
                kind,
                name,
            }) => Ok(AnyId::Primitive(PrimitiveId {
                namespace: namespace.to_string(),
                kind,
                name: name.to_string(),
            })),
            Ok(View::SchemaFile { namespace, name }) => Ok(AnyId::SchemaFile(SchemaFileId {
                namespace: namespace.to_string(),
                name: name.to_string(),
            })),
            Err(e) => Err(first(e, text)),
        }
    }

    /// The namespace of either form.
    pub fn namespace(&self) -> &str {
        match self {
            AnyId::Primitive(p) => &p.namespace,
            AnyId::SchemaFile(s) => &s.namespace,
        }
    }
}

impl fmt::Display for AnyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyId::Primitive(p) => p.fmt(f),
            AnyId::SchemaFile(s) => s.fmt(f),
        }
    }
}

impl FromStr for AnyId {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AnyId::parse(s)
    }
}

macro_rules! serde_as_string {
    ($ty:ty, $what:literal) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                <$ty>::parse(&text).map_err(|e| {
                    serde::de::Error::custom(format!(
                        concat!("invalid ", $what, " {:?}: {} {}"),
                        text,
                        e.code(),
                        e
                    ))
                })
            }
        }
    };
}

serde_as_string!(PrimitiveId, "Primitive-ID");
serde_as_string!(SchemaFileId, "Schema-File-ID");
serde_as_string!(AnyId, "ID");

/// One problem with an ID. [`IdError::code`] names its code; `Display` is the diagnostic message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// ID001: An ID whose number of `/`-separated segments is wrong, where nothing says what was
    /// meant: no `/` at all (`simplePrice`), more than three segments, or three segments where only
    /// a Schema-File-ID is accepted. It is then the only finding for the ID.
    ///
    /// # Why
    ///
    /// Chapter 16 tells the two forms apart by their slashes alone: two make a Primitive-ID
    /// (`namespace/type/name`), one a Schema-File-ID (`namespace/schema-name`). With any other
    /// count the segments cannot be assigned to their roles, so nothing else can be checked.
    SegmentCount {
        id: String,
        found: usize,
        expect: Expect,
    },
    /// ID002: The namespace, the first segment, does not match `^[a-z][a-z0-9-]*$`: it has
    /// uppercase letters, underscores or dots, or starts with a digit (`COINGECKO`, `coin_gecko`,
    /// `1inch`).
    ///
    /// # Why
    ///
    /// The namespace names the owner of a primitive and reappears in directory names and in MCP
    /// tool names (`getAbi_etherscan-io`), where an underscore would make the name ambiguous. One
    /// portable spelling keeps IDs, paths and tool names in step.
    Namespace { namespace: String },
    /// ID003: The type, the middle segment of a Primitive-ID, is not one of `tool`, `resource`,
    /// `prompt`, `list`, `skill`, `selection` and `agent` (compared case-sensitively, so `Tool` is
    /// wrong too), or the namespace is the reserved `shared` and the type is not `list`.
    ///
    /// # Why
    ///
    /// The type says what kind of primitive the ID points at, and resolution looks in the matching
    /// place (`main.tools`, a list's `meta.name`, `agents/<name>/agent.mjs`, …). The namespace
    /// `shared` is reserved for shared lists, so `shared/list/<name>` is its only valid shape.
    UnknownType { found: String },
    /// ID003: a type other than `list` in the reserved namespace `shared`.
    ReservedNamespace { kind: IdType },
    /// ID004: The name, the last segment, is empty (`coingecko/tool/`, `coingecko/`) or does not
    /// match the chapter's pattern: `^[a-zA-Z][a-zA-Z0-9-]*$` for a primitive, lowercase kebab-case
    /// for a schema name. The camelCase or kebab-case convention of each primitive type is checked
    /// where the primitive is defined, not here.
    ///
    /// # Why
    ///
    /// The name identifies one item within its namespace and type, so an empty name identifies
    /// nothing. Keeping names to letters, digits and hyphens lets them appear unchanged in file
    /// names, on command lines and in MCP tool names, where the namespace is attached after an
    /// underscore (`simplePrice_coingecko`).
    EmptyName,
    /// ID004: the name does not match `pattern` ([`NAME_PATTERN`] or [`SCHEMA_NAME_PATTERN`]).
    InvalidName { name: String, pattern: &'static str },
    /// ID005: A short-form ID: a primitive written `namespace/name` with the type left out
    /// (`moralis/getTokenBalance`). Reported where a Primitive-ID is expected, and by `flowmcp
    /// validate --id` when the second segment looks like a primitive name (it has an uppercase
    /// letter, which a kebab-case schema name never has); otherwise two segments are read as a
    /// Schema-File-ID.
    ///
    /// # Why
    ///
    /// Without its type, `namespace/name` could be a tool, a resource or a prompt of that name, and
    /// it looks like a Schema-File-ID. Chapter 16 drops the short form in v4: the full ID shows at
    /// a glance what is meant and where the data comes from.
    ShortForm { namespace: String, name: String },
    /// ID006: An ID that leaves out the namespace and relies on its context to supply it:
    /// `type/name`, such as `tool/simplePrice` or `skill/quick-summary`, wherever a Primitive-ID is
    /// accepted. The message shows the full form to write.
    ///
    /// # Why
    ///
    /// An ID must mean the same wherever it appears: in a selection, an agent, a registry or on the
    /// command line. One completed from its context changes meaning when it is copied elsewhere, so
    /// chapter 16 requires the full form everywhere.
    InferredNamespace { kind: IdType, name: String },
}

impl IdError {
    /// The registry code of this problem.
    pub fn code(&self) -> Code {
        match self {
            IdError::SegmentCount { .. } => Code::ID001,
            IdError::Namespace { .. } => Code::ID002,
            IdError::UnknownType { .. } | IdError::ReservedNamespace { .. } => Code::ID003,
            IdError::EmptyName | IdError::InvalidName { .. } => Code::ID004,
            IdError::ShortForm { .. } => Code::ID005,
            IdError::InferredNamespace { .. } => Code::ID006,
        }
    }
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::SegmentCount { found: 1, .. } => {
                f.write_str("ID MUST contain at least one \"/\" separator")
            }
            IdError::SegmentCount { id, found, expect } => {
                write!(f, "ID {id:?} has {found} segments; ")?;
                match expect {
                    Expect::Primitive => {
                        f.write_str("a Primitive-ID has exactly 3 (namespace/type/name)")
                    }
                    Expect::SchemaFile => {
                        f.write_str("a Schema-File-ID has exactly 2 (namespace/schema-name)")
                    }
                    Expect::Either => f.write_str(
                        "a Primitive-ID has exactly 3 (namespace/type/name), a Schema-File-ID \
                         exactly 2 (namespace/schema-name)",
                    ),
                }
            }
            IdError::Namespace { namespace } => {
                write!(f, "Namespace {namespace:?} must match {NAMESPACE_PATTERN}")
            }
            IdError::UnknownType { found } => write!(
                f,
                "ResourceType {found:?} must be one of: tool, resource, prompt, list, skill, \
                 selection, agent"
            ),
            IdError::ReservedNamespace { kind } => write!(
                f,
                "ResourceType \"{kind}\" is not valid in the reserved namespace \
                 \"{SHARED_NAMESPACE}\" (only \"list\" is)"
            ),
            IdError::EmptyName => f.write_str("Name MUST NOT be empty"),
            IdError::InvalidName { name, pattern } => {
                write!(f, "Name {name:?} must match {pattern}")
            }
            IdError::ShortForm { namespace, name } => write!(
                f,
                "Short Form {:?} is not supported — full form (namespace/type/name) is always \
                 required (e.g. {:?})",
                format!("{namespace}/{name}"),
                id_text(namespace, IdType::Tool, name)
            ),
            IdError::InferredNamespace { kind, name } => write!(
                f,
                "Full form is required everywhere — no context-based inference: {:?} leaves \
                 out the namespace (write {:?})",
                format!("{kind}/{name}"),
                format!("<namespace>/{kind}/{name}")
            ),
        }
    }
}

impl std::error::Error for IdError {}

/// Every problem of `text` read in context `expect`, in order (structure, namespace, type, name);
/// empty when the ID is valid.
pub fn diagnose(text: &str, expect: Expect) -> Vec<IdError> {
    analyze(text, expect).err().unwrap_or_default()
}

/// A valid ID, borrowing its segments from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View<'a> {
    Primitive {
        namespace: &'a str,
        kind: IdType,
        name: &'a str,
    },
    SchemaFile {
        namespace: &'a str,
        name: &'a str,
    },
}

/// The first of a non-empty error list (never empty in practice; falls back to ID001).
fn first(errors: Vec<IdError>, text: &str) -> IdError {
    errors
        .into_iter()
        .next()
        .unwrap_or_else(|| IdError::SegmentCount {
            id: text.to_string(),
            found: segment_count(text),
            expect: Expect::Either,
        })
}

fn segment_count(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'/').count() + 1
}

/// Reads `text` as the form(s) `expect` allows; see the module documentation for the codes.
fn analyze(text: &str, expect: Expect) -> Result<View<'_>, Vec<IdError>> {
    let found = segment_count(text);
    let count_error = || {
        vec![IdError::SegmentCount {
            id: text.to_string(),
            found,
            expect,
        }]
    };
    let mut errors = Vec::new();
    match found {
        2 => {
            let (head, tail) = text.split_once('/').ok_or_else(count_error)?;
            if expect != Expect::SchemaFile {
                if let Some(kind) = IdType::parse(head) {
                    return Err(vec![IdError::InferredNamespace {
                        kind,
                        name: tail.to_string(),
                    }]);
                }
                if expect == Expect::Primitive || looks_like_primitive_name(tail) {
                    return Err(vec![IdError::ShortForm {
                        namespace: head.to_string(),
                        name: tail.to_string(),
                    }]);
                }
            }
            check_schema_file_parts(head, tail, &mut errors);
            if errors.is_empty() {
                return Ok(View::SchemaFile {
                    namespace: head,
                    name: tail,
                });
            }
        }
        3 if expect != Expect::SchemaFile => {
            let mut parts = text.splitn(3, '/');
            let (Some(namespace), Some(kind), Some(name)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(count_error());
            };
            let kind = IdType::parse(kind).ok_or(kind);
            check_primitive_parts(namespace, kind, name, &mut errors);
            if let (true, Ok(kind)) = (errors.is_empty(), kind) {
                return Ok(View::Primitive {
                    namespace,
                    kind,
                    name,
                });
            }
        }
        _ => return Err(count_error()),
    }
    Err(errors)
}

/// Checks a Primitive-ID's parts in component order; `kind` is the type or the unknown type text.
fn check_primitive_parts(
    namespace: &str,
    kind: Result<IdType, &str>,
    name: &str,
    errors: &mut Vec<IdError>,
) {
    if !is_namespace(namespace) {
        errors.push(IdError::Namespace {
            namespace: namespace.to_string(),
        });
    }
    match kind {
        Err(found) => errors.push(IdError::UnknownType {
            found: found.to_string(),
        }),
        Ok(kind) if namespace == SHARED_NAMESPACE && kind != IdType::List => {
            errors.push(IdError::ReservedNamespace { kind })
        }
        Ok(_) => {}
    }
    check_name(name, NAME_PATTERN, is_name, errors);
}

fn check_schema_file_parts(namespace: &str, name: &str, errors: &mut Vec<IdError>) {
    if !is_namespace(namespace) {
        errors.push(IdError::Namespace {
            namespace: namespace.to_string(),
        });
    }
    check_name(name, SCHEMA_NAME_PATTERN, is_namespace, errors);
}

fn check_name(
    name: &str,
    pattern: &'static str,
    valid: fn(&str) -> bool,
    errors: &mut Vec<IdError>,
) {
    if name.is_empty() {
        errors.push(IdError::EmptyName);
    } else if !valid(name) {
        errors.push(IdError::InvalidName {
            name: name.to_string(),
            pattern,
        });
    }
}

/// The ID made for a primitive a schema defines ([`PrimitiveId::defined`]), with the note when its
/// name had to be cleaned up under `compat`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defined {
    /// The Primitive-ID.
    pub id: PrimitiveId,
    /// Under `compat`, for a name that is not a valid ID name: the problem with the name as
    /// written (the ID then uses [`sanitize_name`] of it).
    pub sanitised: Option<IdError>,
}

impl Defined {
    /// The warning to show for a sanitised name (`tool name "/block/:id" is not a valid ID name
    /// (…); using "blockid"`); `None` when the name was used as written.
    pub fn warning(&self, what: &str, written: &str) -> Option<String> {
        self.sanitised.as_ref().map(|e| {
            format!(
                "{what} name \"{written}\" is not a valid ID name ({e}); using \"{}\"",
                self.id.name
            )
        })
    }
}

impl PrimitiveId {
    /// The one way an ID is made for a primitive that a schema of `namespace` defines under
    /// `name` (a key of `main.tools`, `main.resources`, `main.prompts`, a selection's name, …):
    /// `namespace/kind/name`. Under `compat` (the `compat` table of the rulings: "the ID and wire
    /// name use a sanitised name") a name that is not a valid ID name is cleaned up with
    /// [`sanitize_name`]; the namespace is never changed.
    pub fn defined(
        namespace: &str,
        kind: IdType,
        name: &str,
        compat: bool,
    ) -> Result<Defined, IdError> {
        match PrimitiveId::new(namespace, kind, name) {
            Ok(id) => Ok(Defined {
                id,
                sanitised: None,
            }),
            Err(e @ (IdError::EmptyName | IdError::InvalidName { .. })) if compat => {
                let id = PrimitiveId::new(namespace, kind, sanitize_name(name))?;
                Ok(Defined {
                    id,
                    sanitised: Some(e),
                })
            }
            Err(e) => Err(e),
        }
    }

    /// The own ID of query `query` of the resource with this ID:
    /// `namespace/resource/<resource>-<query>` (see [`query_name`]). Under `compat` a query name
    /// that is not a valid ID name is cleaned up like any other ([`sanitize_name`]).
    pub fn query(&self, query: &str, compat: bool) -> Result<Defined, IdError> {
        PrimitiveId::defined(
            &self.namespace,
            IdType::Resource,
            &query_name(&self.name, query),
            compat,
        )
    }

    /// The plain MCP tool name of this ID: [`wire_name`] of its name and namespace.
    pub fn wire_name(&self) -> String {
        wire_name(&self.name, &self.namespace)
    }
}

/// The separator between a resource's name and a query's name in the query's own ID. Resource
/// and query names are camelCase (`^[a-z][a-zA-Z0-9]*$`, chapter 13), so a `-` cannot be part of
/// either, and the ID grammar's name pattern (`^[a-zA-Z][a-zA-Z0-9-]*$`) accepts it.
pub const QUERY_SEPARATOR: char = '-';

/// The name segment of a resource query's own ID: `<resource>-<query>` (`countries-byCode`).
///
/// The specification gives IDs to resources, not to their queries; a query is called on its own
/// (chapter 13), so this project names it within its resource. The form is one that the ID
/// grammar (ID004) accepts, so that every ID the product prints passes `flowmcp validate --id`.
pub fn query_name(resource: &str, query: &str) -> String {
    format!("{resource}{QUERY_SEPARATOR}{query}")
}

/// The text a resource query was found by before it had an ID of its own:
/// `<resource ID>.<query>` (`ns/resource/countries.byCode`). Lookups still accept it, and the hash
/// suffix of the query's wire name is made from it. The one place it is made.
pub fn legacy_query_key(resource_id: &str, query: &str) -> String {
    format!("{resource_id}.{query}")
}

/// The ID text of a primitive a schema defines, for lookups: [`PrimitiveId::defined`] as text, or,
/// when no ID can be made of the parts (a file that did not validate), [`id_text`] of them as
/// written — which then finds only what was recorded under the same text.
pub fn defined_text(namespace: &str, kind: IdType, name: &str, compat: bool) -> String {
    PrimitiveId::defined(namespace, kind, name, compat)
        .map_or_else(|_| id_text(namespace, kind, name), |d| d.id.to_string())
}

/// The ID text `namespace/kind/name` without checking the parts: for names read from a file that
/// did not validate, which are looked up but never become a [`PrimitiveId`].
pub fn id_text(namespace: &str, kind: IdType, name: &str) -> String {
    format!("{namespace}/{kind}/{name}")
}

/// The plain MCP tool name `<name>_<namespace>` (the ID chapter's form: MCP tool names cannot
/// contain `/`), before lengths and collisions are dealt with (the runtime's wire names). A
/// resource query's is `<query>_<namespace>` (the rulings' "wire names" row).
pub fn wire_name(name: &str, namespace: &str) -> String {
    format!("{name}_{namespace}")
}

/// Under `compat`, a name made valid for an ID: only ASCII letters, digits and `-` are kept, then
/// leading characters that are not letters are dropped; `tool` when nothing is left
/// (`/block/:id` → `blockid`).
pub fn sanitize_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let trimmed = kept.trim_start_matches(|c: char| !c.is_ascii_alphabetic());
    if trimmed.is_empty() {
        "tool".to_string()
    } else {
        trimmed.to_string()
    }
}

use crate::catalog::is_namespace;

/// `^[a-zA-Z][a-zA-Z0-9-]*$` (Primitive names).
fn is_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// A camelCase Primitive name, which a kebab-case schema name never is.
fn looks_like_primitive_name(s: &str) -> bool {
    is_name(s) && s.bytes().any(|b| b.is_ascii_uppercase())
}

/// Where an ID is defined: the catalog-relative file and the key path inside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Resolved {
    /// The file, relative to the catalog root (`providers/coingecko/simple-price.mjs`).
    pub file: String,
    /// The internal key path (`main.tools.simplePrice`); empty for a Schema-File-ID (the whole file).
    pub pointer: String,
}

/// Why an ID did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// The text is not a valid ID (its first problem).
    Invalid(IdError),
    /// No entry has this namespace.
    UnknownNamespace { namespace: String },
    /// The namespace exists but has no primitive of this type and name.
    UnknownName {
        namespace: String,
        kind: IdType,
        name: String,
    },
    /// The namespace exists but has no schema file of this name.
    UnknownSchemaFile { namespace: String, name: String },
}

impl ResolveError {
    /// The ID code when the text itself is invalid.
    pub fn code(&self) -> Option<Code> {
        match self {
            ResolveError::Invalid(e) => Some(e.code()),
            _ => None,
        }
    }
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Invalid(e) => write!(f, "{} {e}", e.code()),
            ResolveError::UnknownNamespace { namespace } => {
                write!(f, "Namespace {namespace:?} not registered")
            }
            ResolveError::UnknownName {
                namespace,
                kind,
                name,
            } => write!(
                f,
                "Name {name:?} with type \"{kind}\" not found in namespace {namespace:?}"
            ),
            ResolveError::UnknownSchemaFile { namespace, name } => {
                write!(f, "Schema {name:?} not found in namespace {namespace:?}")
            }
        }
    }
}

impl std::error::Error for ResolveError {}

impl From<IdError> for ResolveError {
    fn from(e: IdError) -> Self {
        ResolveError::Invalid(e)
    }
}

/// A second definition of an ID already in the index; the first one is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateId {
    /// The ID in full form.
    pub id: String,
    /// The file of the definition that was kept.
    pub first: String,
    /// The file of the rejected definition.
    pub second: String,
}

impl fmt::Display for DuplicateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Duplicate ID {:?}: defined in {} and in {}",
            self.id, self.first, self.second
        )
    }
}

impl std::error::Error for DuplicateId {}

/// The entries of one namespace.
#[derive(Clone, Debug, Default)]
struct Namespace {
    /// Type → name → definition.
    primitives: HashMap<IdType, HashMap<String, Resolved>>,
    /// Schema name → file.
    schema_files: HashMap<String, Resolved>,
}

/// Every ID of a catalog, resolvable in constant time.
#[derive(Clone, Debug, Default)]
pub struct IdIndex {
    namespaces: HashMap<String, Namespace>,
    len: usize,
}

impl IdIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds an index from Primitive-ID entries `(id, file, pointer)` and Schema-File-ID entries
    /// `(id, file)`. Second definitions are left out and returned (in input order).
    pub fn build(
        primitives: impl IntoIterator<Item = (PrimitiveId, String, String)>,
        schema_files: impl IntoIterator<Item = (SchemaFileId, String)>,
    ) -> (IdIndex, Vec<DuplicateId>) {
        let mut index = IdIndex::new();
        let mut duplicates = Vec::new();
        for (id, file, pointer) in primitives {
            if let Err(d) = index.insert(id, file, pointer) {
                duplicates.push(d);
            }
        }
        for (id, file) in schema_files {
            if let Err(d) = index.insert_schema_file(id, file) {
                duplicates.push(d);
            }
        }
        (index, duplicates)
    }

    /// Adds a Primitive-ID defined at `pointer` in `file`. A second definition is rejected with
    /// both files named; the first stays.
    pub fn insert(
        &mut self,
        id: PrimitiveId,
        file: impl Into<String>,
        pointer: impl Into<String>,
    ) -> Result<(), DuplicateId> {
        let file = file.into();
        let text = id.to_string();
        let names = self
            .namespaces
            .entry(id.namespace)
            .or_default()
            .primitives
            .entry(id.kind)
            .or_default();
        match names.entry(id.name) {
            Entry::Occupied(e) => Err(DuplicateId {
                id: text,
                first: e.get().file.clone(),
                second: file,
            }),
            Entry::Vacant(e) => {
                e.insert(Resolved {
                    file,
                    pointer: pointer.into(),
                });
                self.len += 1;
                Ok(())
            }
        }
    }

    /// Adds a Schema-File-ID for `file`. A second definition is rejected with both files named.
    pub fn insert_schema_file(
        &mut self,
        id: SchemaFileId,
        file: impl Into<String>,
    ) -> Result<(), DuplicateId> {
        let file = file.into();
        let text = id.to_string();
        let files = &mut self
            .namespaces
            .entry(id.namespace)
            .or_default()
            .schema_files;
        match files.entry(id.name) {
            Entry::Occupied(e) => Err(DuplicateId {
                id: text,
                first: e.get().file.clone(),
                second: file,
            }),
            Entry::Vacant(e) => {
                e.insert(Resolved {
                    file,
                    pointer: String::new(),
                });
                self.len += 1;
                Ok(())
            }
        }
    }

    /// Resolves an ID given as text, either form (3 segments → Primitive-ID, 2 → Schema-File-ID).
    pub fn resolve(&self, text: &str) -> Result<&Resolved, ResolveError> {
        match analyze(text, Expect::Either) {
            Ok(View::Primitive {
                namespace,
                kind,
                name,
            }) => self.lookup_primitive(namespace, kind, name),
            Ok(View::SchemaFile { namespace, name }) => self.lookup_schema_file(namespace, name),
            Err(e) => Err(ResolveError::Invalid(first(e, text))),
        }
    }

    /// Resolves a parsed Primitive-ID.
    pub fn resolve_primitive(&self, id: &PrimitiveId) -> Result<&Resolved, ResolveError> {
        self.lookup_primitive(&id.namespace, id.kind, &id.name)
    }

    /// Resolves a parsed Schema-File-ID.
    pub fn resolve_schema_file(&self, id: &SchemaFileId) -> Result<&Resolved, ResolveError> {
        self.lookup_schema_file(&id.namespace, &id.name)
    }

    fn namespace(&self, namespace: &str) -> Result<&Namespace, ResolveError> {
        self.namespaces
            .get(namespace)
            .ok_or_else(|| ResolveError::UnknownNamespace {
                namespace: namespace.to_string(),
            })
    }

    fn lookup_primitive(
        &self,
        namespace: &str,
        kind: IdType,
        name: &str,
    ) -> Result<&Resolved, ResolveError> {
        self.namespace(namespace)?
            .primitives
            .get(&kind)
            .and_then(|names| names.get(name))
            .ok_or_else(|| ResolveError::UnknownName {
                namespace: namespace.to_string(),
                kind,
                name: name.to_string(),
            })
    }

    fn lookup_schema_file(&self, namespace: &str, name: &str) -> Result<&Resolved, ResolveError> {
        self.namespace(namespace)?
            .schema_files
            .get(name)
            .ok_or_else(|| ResolveError::UnknownSchemaFile {
                namespace: namespace.to_string(),
                name: name.to_string(),
            })
    }

    /// The registered namespaces, sorted.
    pub fn namespaces(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.namespaces.keys().map(String::as_str).collect();
        out.sort_unstable();
        out
    }

    /// Whether any entry has this namespace.
    pub fn contains_namespace(&self, namespace: &str) -> bool {
        self.namespaces.contains_key(namespace)
    }

    /// The number of IDs (Primitive-IDs and Schema-File-IDs).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index holds no ID.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str, expect: Expect) -> Vec<&'static str> {
        diagnose(text, expect)
            .iter()
            .map(|e| e.code().as_str())
            .collect()
    }

    /// Issue #29, IDs: the IDs made for defined primitives and resource queries are ones the ID
    /// check accepts; under compat an invalid name is sanitised (with the problem kept for the
    /// warning), under spec it is an error; the namespace is never changed.
    #[test]
    fn i29_ids_made_for_entries_pass_the_id_check() {
        let resource = PrimitiveId::defined("atlasdata-org", IdType::Resource, "countries", false)
            .expect("valid");
        assert_eq!(resource.sanitised, None);
        let query = resource.id.query("byCode", false).expect("valid").id;
        assert_eq!(query.to_string(), "atlasdata-org/resource/countries-byCode");
        assert!(diagnose(&query.to_string(), Expect::Either).is_empty());
        assert_eq!(query.wire_name(), "countries-byCode_atlasdata-org");
        assert_eq!(wire_name("byCode", "atlasdata-org"), "byCode_atlasdata-org");

        assert_eq!(
            PrimitiveId::defined("ns", IdType::Tool, "/block/:id", false)
                .map(|d| d.id)
                .map_err(|e| e.code()),
            Err(Code::ID004)
        );
        let compat = PrimitiveId::defined("ns", IdType::Tool, "/block/:id", true).expect("ok");
        assert_eq!(compat.id.to_string(), "ns/tool/blockid");
        assert_eq!(
            compat.warning("tool", "/block/:id").as_deref(),
            Some(
                "tool name \"/block/:id\" is not a valid ID name (Name \"/block/:id\" must \
                 match ^[a-zA-Z][a-zA-Z0-9-]*$); using \"blockid\""
            )
        );
        assert!(PrimitiveId::defined("Bad_NS", IdType::Tool, "x", true).is_err());
        assert_eq!(
            defined_text("ns", IdType::Tool, "/block/:id", true),
            "ns/tool/blockid"
        );
        assert_eq!(
            defined_text("Bad_NS", IdType::Tool, "x", true),
            "Bad_NS/tool/x"
        );
        assert_eq!(sanitize_name("/123"), "tool");
    }

    fn messages(text: &str, expect: Expect) -> Vec<String> {
        diagnose(text, expect)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn types_round_trip() {
        for t in IdType::ALL {
            assert_eq!(IdType::parse(t.as_str()), Some(t));
            assert_eq!(t.as_str().parse::<IdType>(), Ok(t));
            assert_eq!(t.to_string(), t.as_str());
        }
        assert_eq!(IdType::parse("Tool"), None);
        assert_eq!(IdType::parse("tools"), None);
        assert_eq!(
            "group".parse::<IdType>().map_err(|e| e.code()),
            Err(Code::ID003)
        );
    }

    #[test]
    fn primitive_ids_round_trip_for_every_type() {
        for t in IdType::ALL {
            let ns = if t == IdType::List {
                "shared"
            } else {
                "etherscan-io"
            };
            let text = format!("{ns}/{t}/getAbi");
            let id = PrimitiveId::parse(&text).expect("valid");
            assert_eq!(id.namespace, ns);
            assert_eq!(id.kind, t);
            assert_eq!(id.name, "getAbi");
            assert_eq!(id.to_string(), text);
            assert_eq!(text.parse::<PrimitiveId>(), Ok(id.clone()));
            assert_eq!(AnyId::parse(&text), Ok(AnyId::Primitive(id.clone())));
            assert_eq!(PrimitiveId::new(ns, t, "getAbi"), Ok(id));
        }
    }

    #[test]
    fn chapter_examples_are_valid() {
        for text in [
            "coingecko/tool/simplePrice",
            "coingecko/resource/supported-coins",
            "coingecko/prompt/price-comparison",
            "crypto-research/prompt/token-deep-dive",
            "shared/list/evmChains",
            "etherscan-io/tool/getAbi",
            "etherscan-io/resource/chainDb",
            "etherscan-io/prompt/intro",
            "etherscan-io/skill/audit",
            "evm-research/selection/contract",
            "crypto/agent/researcher",
        ] {
            assert!(
                diagnose(text, Expect::Either).is_empty(),
                "{text}: {:?}",
                messages(text, Expect::Either)
            );
            assert!(diagnose(text, Expect::Primitive).is_empty(), "{text}");
        }
        let s = SchemaFileId::parse("etherscan-io/contracts").expect("valid");
        assert_eq!(s.namespace, "etherscan-io");
        assert_eq!(s.name, "contracts");
        assert_eq!(s.to_string(), "etherscan-io/contracts");
        assert_eq!(
            AnyId::parse("etherscan-io/contracts"),
            Ok(AnyId::SchemaFile(s.clone()))
        );
        assert_eq!(SchemaFileId::new("etherscan-io", "contracts"), Ok(s));
        assert!(diagnose("moralis/moralis-nft", Expect::Either).is_empty());
        assert!(diagnose("uniswap/pools-v3", Expect::SchemaFile).is_empty());
    }

    #[test]
    fn digest_messages() {
        assert_eq!(
            messages("COINGECKO/tool/simplePrice", Expect::Either),
            vec![r#"Namespace "COINGECKO" must match ^[a-z][a-z0-9-]*$"#]
        );
        assert_eq!(
            messages("simplePrice", Expect::Either),
            vec![r#"ID MUST contain at least one "/" separator"#]
        );
        assert_eq!(codes("simplePrice", Expect::Either), vec!["ID001"]);
    }

    #[test]
    fn segment_counts() {
        for expect in [Expect::Primitive, Expect::SchemaFile, Expect::Either] {
            assert_eq!(codes("", expect), vec!["ID001"]);
            assert_eq!(codes("getTokenBalance", expect), vec!["ID001"]);
            assert_eq!(codes("a/tool/b/c", expect), vec!["ID001"]);
            assert_eq!(codes("a/tool/b/tests/1", expect), vec!["ID001"]);
        }
        assert_eq!(
            codes("etherscan/tool/getAbi", Expect::SchemaFile),
            vec!["ID001"]
        );
        assert_eq!(
            messages("etherscan/tool/getAbi", Expect::SchemaFile),
            vec![
                r#"ID "etherscan/tool/getAbi" has 3 segments; a Schema-File-ID has exactly 2 (namespace/schema-name)"#
            ]
        );
        assert_eq!(
            messages("a/b/c/d", Expect::Either),
            vec![
                r#"ID "a/b/c/d" has 4 segments; a Primitive-ID has exactly 3 (namespace/type/name), a Schema-File-ID exactly 2 (namespace/schema-name)"#
            ]
        );
        assert_eq!(
            PrimitiveId::parse("a/b/c/d").map_err(|e| e.code()),
            Err(Code::ID001)
        );
    }

    #[test]
    fn short_form_and_inference() {
        // Where a Primitive-ID is expected, `namespace/name` is the short form.
        assert_eq!(
            codes("moralis/getTokenBalance", Expect::Primitive),
            vec!["ID005"]
        );
        assert_eq!(
            codes("moralis/token-balance", Expect::Primitive),
            vec!["ID005"]
        );
        // With --id, a camelCase last segment cannot be a schema name.
        assert_eq!(
            codes("moralis/getTokenBalance", Expect::Either),
            vec!["ID005"]
        );
        assert_eq!(
            codes("moralis/token-balance", Expect::Either),
            Vec::<&str>::new()
        );
        assert_eq!(
            messages("moralis/getTokenBalance", Expect::Either),
            vec![
                r#"Short Form "moralis/getTokenBalance" is not supported — full form (namespace/type/name) is always required (e.g. "moralis/tool/getTokenBalance")"#
            ]
        );
        // Where only a Schema-File-ID is accepted, the context says what it is.
        assert_eq!(
            codes("moralis/getTokenBalance", Expect::SchemaFile),
            vec!["ID004"]
        );
        // `type/name` leaves the namespace to the context.
        for expect in [Expect::Primitive, Expect::Either] {
            assert_eq!(codes("tool/simplePrice", expect), vec!["ID006"]);
            assert_eq!(codes("skill/quick-summary", expect), vec!["ID006"]);
        }
        assert_eq!(
            messages("tool/simplePrice", Expect::Either),
            vec![
                r#"Full form is required everywhere — no context-based inference: "tool/simplePrice" leaves out the namespace (write "<namespace>/tool/simplePrice")"#
            ]
        );
        assert!(diagnose("tool/simple-price", Expect::SchemaFile).is_empty());
        assert_eq!(
            PrimitiveId::parse("coingecko/simplePrice").map_err(|e| e.code()),
            Err(Code::ID005)
        );
    }

    #[test]
    fn components() {
        let e = Expect::Either;
        assert_eq!(codes("Coingecko/tool/x", e), vec!["ID002"]);
        assert_eq!(codes("1inch/tool/x", e), vec!["ID002"]);
        assert_eq!(codes("coin_gecko/tool/x", e), vec!["ID002"]);
        assert_eq!(codes("/tool/x", e), vec!["ID002"]);
        assert_eq!(codes("coingecko/tools/x", e), vec!["ID003"]);
        assert_eq!(codes("coingecko/Tool/x", e), vec!["ID003"]);
        assert_eq!(codes("coingecko//x", e), vec!["ID003"]);
        assert_eq!(codes("shared/tool/evmChains", e), vec!["ID003"]);
        assert_eq!(
            messages("shared/tool/evmChains", e),
            vec![
                r#"ResourceType "tool" is not valid in the reserved namespace "shared" (only "list" is)"#
            ]
        );
        assert_eq!(
            messages("coingecko/group/x", e),
            vec![
                r#"ResourceType "group" must be one of: tool, resource, prompt, list, skill, selection, agent"#
            ]
        );
        assert_eq!(codes("coingecko/tool/", e), vec!["ID004"]);
        assert_eq!(
            messages("coingecko/tool/", e),
            vec!["Name MUST NOT be empty"]
        );
        assert_eq!(codes("coingecko/tool/simple_price", e), vec!["ID004"]);
        assert_eq!(codes("coingecko/tool/1price", e), vec!["ID004"]);
        assert_eq!(
            messages("coingecko/tool/simple price", e),
            vec![r#"Name "simple price" must match ^[a-zA-Z][a-zA-Z0-9-]*$"#]
        );
        assert_eq!(codes("coingecko/", e), vec!["ID004"]);
        assert_eq!(codes("coingecko/con_tracts", e), vec!["ID004"]);
        assert_eq!(codes("Coingecko/contracts", e), vec!["ID002"]);
        // Every component problem is reported, in component order.
        assert_eq!(codes("COINGECKO/tol/", e), vec!["ID002", "ID003", "ID004"]);
        assert_eq!(codes("/x/", e), vec!["ID002", "ID003", "ID004"]);
        // The first is what `parse` returns.
        assert_eq!(
            PrimitiveId::parse("COINGECKO/tol/").map_err(|e| e.code()),
            Err(Code::ID002)
        );
        assert_eq!(
            PrimitiveId::new("shared", IdType::Tool, "x").map_err(|e| e.code()),
            Err(Code::ID003)
        );
        assert_eq!(
            SchemaFileId::new("ns", "").map_err(|e| e.code()),
            Err(Code::ID004)
        );
    }

    #[test]
    fn user_text_is_quoted_safely() {
        let m = messages("a\u{1b}[31m/tool/x", Expect::Either);
        assert_eq!(m.len(), 1);
        assert!(!m[0].contains('\u{1b}'), "{m:?}");
        assert_eq!(codes("coingecko/tool/prïce", Expect::Either), vec!["ID004"]);
    }

    #[test]
    fn serde_as_strings() {
        let id = PrimitiveId::parse("coingecko/tool/simplePrice").expect("valid");
        let json = serde_json::to_string(&id).expect("serialise");
        assert_eq!(json, r#""coingecko/tool/simplePrice""#);
        let back: PrimitiveId = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(back, id);
        let bad = serde_json::from_str::<PrimitiveId>(r#""coingecko/simplePrice""#)
            .expect_err("short form");
        assert!(bad.to_string().contains("ID005"), "{bad}");
        assert_eq!(
            serde_json::to_string(&IdType::Selection).expect("serialise"),
            r#""selection""#
        );
        let s: SchemaFileId = serde_json::from_str(r#""etherscan-io/contracts""#).expect("ok");
        assert_eq!(s.to_string(), "etherscan-io/contracts");
    }

    fn pid(text: &str) -> PrimitiveId {
        PrimitiveId::parse(text).expect("valid test ID")
    }

    #[test]
    fn index_resolves_and_reports() {
        let (index, dups) = IdIndex::build(
            [
                (
                    pid("coingecko/tool/simplePrice"),
                    "providers/coingecko/simple-price.mjs".to_string(),
                    "main.tools.simplePrice".to_string(),
                ),
                (
                    pid("coingecko/resource/simplePrice"),
                    "providers/coingecko/coins.mjs".to_string(),
                    "main.resources.simplePrice".to_string(),
                ),
                (
                    pid("shared/list/evmChains"),
                    "_lists/evm-chains.mjs".to_string(),
                    "list".to_string(),
                ),
            ],
            [(
                SchemaFileId::parse("coingecko/simple-price").expect("valid"),
                "providers/coingecko/simple-price.mjs".to_string(),
            )],
        );
        assert!(dups.is_empty());
        assert_eq!(index.len(), 4);
        assert!(!index.is_empty());
        assert_eq!(index.namespaces(), vec!["coingecko", "shared"]);
        assert!(index.contains_namespace("shared"));
        assert!(!index.contains_namespace("etherscan"));

        let r = index
            .resolve("coingecko/tool/simplePrice")
            .expect("resolves");
        assert_eq!(r.file, "providers/coingecko/simple-price.mjs");
        assert_eq!(r.pointer, "main.tools.simplePrice");
        let r = index
            .resolve("coingecko/resource/simplePrice")
            .expect("resolves");
        assert_eq!(r.pointer, "main.resources.simplePrice");
        let r = index.resolve("coingecko/simple-price").expect("resolves");
        assert_eq!(r.file, "providers/coingecko/simple-price.mjs");
        assert_eq!(r.pointer, "");
        assert_eq!(
            index.resolve_primitive(&pid("shared/list/evmChains")),
            Ok(&Resolved {
                file: "_lists/evm-chains.mjs".into(),
                pointer: "list".into()
            })
        );

        let e = index.resolve("etherscan/tool/getAbi").expect_err("unknown");
        assert_eq!(
            e,
            ResolveError::UnknownNamespace {
                namespace: "etherscan".into()
            }
        );
        assert_eq!(e.to_string(), r#"Namespace "etherscan" not registered"#);
        assert_eq!(e.code(), None);
        let e = index
            .resolve("coingecko/prompt/simplePrice")
            .expect_err("unknown");
        assert_eq!(
            e.to_string(),
            r#"Name "simplePrice" with type "prompt" not found in namespace "coingecko""#
        );
        let e = index
            .resolve("coingecko/tool/marketChart")
            .expect_err("unknown");
        assert!(matches!(e, ResolveError::UnknownName { .. }), "{e:?}");
        let e = index.resolve("coingecko/markets").expect_err("unknown");
        assert_eq!(
            e.to_string(),
            r#"Schema "markets" not found in namespace "coingecko""#
        );
        let e = index.resolve("simplePrice").expect_err("invalid");
        assert_eq!(e.code(), Some(Code::ID001));
        assert_eq!(
            e.to_string(),
            r#"ID001 ID MUST contain at least one "/" separator"#
        );
        assert_eq!(
            index.resolve("coingecko/simplePrice").map_err(|e| e.code()),
            Err(Some(Code::ID005))
        );
    }

    #[test]
    fn index_reports_duplicates_with_both_files() {
        let mut index = IdIndex::new();
        index
            .insert(
                pid("coingecko/tool/simplePrice"),
                "a.mjs",
                "main.tools.simplePrice",
            )
            .expect("first");
        let d = index
            .insert(
                pid("coingecko/tool/simplePrice"),
                "b.mjs",
                "main.tools.simplePrice",
            )
            .expect_err("duplicate");
        assert_eq!(d.id, "coingecko/tool/simplePrice");
        assert_eq!(d.first, "a.mjs");
        assert_eq!(d.second, "b.mjs");
        assert_eq!(
            d.to_string(),
            r#"Duplicate ID "coingecko/tool/simplePrice": defined in a.mjs and in b.mjs"#
        );
        // The first definition stays; another type with the same name is not a duplicate.
        assert_eq!(
            index
                .resolve("coingecko/tool/simplePrice")
                .map(|r| r.file.as_str()),
            Ok("a.mjs")
        );
        index
            .insert(
                pid("coingecko/prompt/simplePrice"),
                "c.mjs",
                "main.prompts.simplePrice",
            )
            .expect("other type");
        assert_eq!(index.len(), 2);

        let s = SchemaFileId::parse("coingecko/coins").expect("valid");
        index
            .insert_schema_file(s.clone(), "x/coins.mjs")
            .expect("first");
        let d = index
            .insert_schema_file(s, "y/coins.mjs")
            .expect_err("duplicate");
        assert_eq!(
            (d.id.as_str(), d.first.as_str(), d.second.as_str()),
            ("coingecko/coins", "x/coins.mjs", "y/coins.mjs")
        );

        let (_, dups) = IdIndex::build(
            [
                (
                    pid("a/tool/x"),
                    "1.mjs".to_string(),
                    "main.tools.x".to_string(),
                ),
                (
                    pid("a/tool/x"),
                    "2.mjs".to_string(),
                    "main.tools.x".to_string(),
                ),
                (
                    pid("a/tool/x"),
                    "3.mjs".to_string(),
                    "main.tools.x".to_string(),
                ),
            ],
            [],
        );
        let pairs: Vec<_> = dups
            .iter()
            .map(|d| (d.first.as_str(), d.second.as_str()))
            .collect();
        assert_eq!(pairs, vec![("1.mjs", "2.mjs"), ("1.mjs", "3.mjs")]);
    }

    #[test]
    fn index_with_a_thousand_namespaces() {
        let mut primitives = Vec::new();
        let mut schema_files = Vec::new();
        for n in 0..1000 {
            let ns = format!("provider-{n}");
            let file = format!("providers/{ns}/api.mjs");
            for t in IdType::ALL {
                for k in 0..3 {
                    let name = format!("item{k}");
                    let id = PrimitiveId {
                        namespace: ns.clone(),
                        kind: t,
                        name: name.clone(),
                    };
                    primitives.push((id, file.clone(), format!("main.{t}s.{name}")));
                }
            }
            schema_files.push((
                SchemaFileId {
                    namespace: ns.clone(),
                    name: "api".to_string(),
                },
                file,
            ));
        }
        let (index, dups) = IdIndex::build(primitives, schema_files);
        assert!(dups.is_empty());
        assert_eq!(index.len(), 1000 * (7 * 3 + 1));
        assert_eq!(index.namespaces().len(), 1000);
        for n in (0..1000).step_by(7) {
            for t in IdType::ALL {
                let r = index
                    .resolve(&format!("provider-{n}/{t}/item2"))
                    .expect("resolves");
                assert_eq!(r.file, format!("providers/provider-{n}/api.mjs"));
                assert_eq!(r.pointer, format!("main.{t}s.item2"));
            }
            assert_eq!(
                index
                    .resolve(&format!("provider-{n}/api"))
                    .map(|r| r.file.clone()),
                Ok(format!("providers/provider-{n}/api.mjs"))
            );
            assert!(matches!(
                index.resolve(&format!("provider-{n}/tool/item3")),
                Err(ResolveError::UnknownName { .. })
            ));
        }
        assert!(matches!(
            index.resolve("provider-1000/tool/item0"),
            Err(ResolveError::UnknownNamespace { .. })
        ));
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn valid_primitive_ids_round_trip(
                ns in "[a-z][a-z0-9-]{0,12}",
                t in 0usize..7,
                name in "[a-zA-Z][a-zA-Z0-9-]{0,12}",
            ) {
                let kind = IdType::ALL[t];
                let ns = if ns == SHARED_NAMESPACE && kind != IdType::List { format!("{ns}x") } else { ns };
                let text = format!("{ns}/{kind}/{name}");
                prop_assert_eq!(
                    PrimitiveId::parse(&text).map(|id| id.to_string()),
                    Ok(text.clone())
                );
            }

            #[test]
            fn valid_schema_file_ids_round_trip(
                ns in "[a-z][a-z0-9-]{0,12}",
                name in "[a-z][a-z0-9-]{0,12}",
            ) {
                let text = format!("{ns}/{name}");
                prop_assert_eq!(
                    SchemaFileId::parse(&text).map(|s| s.to_string()),
                    Ok(text.clone())
                );
                if IdType::parse(&ns).is_none() {
                    prop_assert!(diagnose(&text, Expect::Either).is_empty(), "{}", text);
                }
            }

            #[test]
            fn arbitrary_text_never_panics(text in "\\PC{0,40}") {
                for expect in [Expect::Primitive, Expect::SchemaFile, Expect::Either] {
                    let errors = diagnose(&text, expect);
                    for e in &errors {
                        prop_assert!(!e.to_string().is_empty());
                    }
                    let parsed_ok = match expect {
                        Expect::Primitive => PrimitiveId::parse(&text).is_ok(),
                        Expect::SchemaFile => SchemaFileId::parse(&text).is_ok(),
                        Expect::Either => AnyId::parse(&text).is_ok(),
                    };
                    prop_assert_eq!(parsed_ok, errors.is_empty());
                }
            }
        }
    }
}
