//! What evaluation reports about exported values that are not JSON (SEC017): the types are here,
//! apart from the engine that finds them (`extract`), so that a build without the `quickjs`
//! feature has them too.

/// A value that did not survive the JSON round trip (SEC017).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unserializable {
    /// The export it was found in, then the path inside it.
    pub export: String,
    pub path: Vec<PathItem>,
    pub kind: UnserializableKind,
    /// More about it: the number (`NaN`, `Infinity`), the object's kind (`Date`), the getter's
    /// message, `hole` for an array hole.
    pub detail: String,
}

/// What kind of value could not be turned into JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnserializableKind {
    Function,
    Undefined,
    Symbol,
    /// A property whose key is a symbol.
    SymbolKey,
    BigInt,
    /// `NaN` or an infinity.
    Number,
    /// An object that is not a plain object or array (a `Date`, a `Map`, a class instance).
    NonPlain,
    /// A circular reference.
    Cycle,
    /// Nesting beyond the extractor's depth limit.
    TooDeep,
    /// A getter that throws.
    GetterThrew,
}

impl UnserializableKind {
    /// A short name: `function`, `undefined`, `symbol`, `symbol-key`, `bigint`, `number`,
    /// `non-plain`, `cycle`, `too-deep`, `getter-threw`.
    pub fn as_str(self) -> &'static str {
        match self {
            UnserializableKind::Function => "function",
            UnserializableKind::Undefined => "undefined",
            UnserializableKind::Symbol => "symbol",
            UnserializableKind::SymbolKey => "symbol-key",
            UnserializableKind::BigInt => "bigint",
            UnserializableKind::Number => "number",
            UnserializableKind::NonPlain => "non-plain",
            UnserializableKind::Cycle => "cycle",
            UnserializableKind::TooDeep => "too-deep",
            UnserializableKind::GetterThrew => "getter-threw",
        }
    }
}

impl Unserializable {
    /// What the value was, in the words of SEC017's message (`function`, `BigInt`,
    /// `number NaN`, `Date object`, `circular reference`, …).
    pub fn describe(&self) -> String {
        let d = &self.detail;
        match self.kind {
            UnserializableKind::Undefined if d == "hole" => "array hole (undefined)".to_string(),
            UnserializableKind::SymbolKey => "symbol-keyed property".to_string(),
            UnserializableKind::BigInt => "BigInt".to_string(),
            UnserializableKind::Number => format!("number {d}"),
            UnserializableKind::NonPlain => format!("{d} object"),
            UnserializableKind::Cycle => "circular reference".to_string(),
            UnserializableKind::TooDeep => format!("nested too deeply ({d})"),
            UnserializableKind::GetterThrew => format!("getter that throws ({d})"),
            other => other.as_str().to_string(),
        }
    }
}

/// One step of a path inside an export: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathItem {
    Key(String),
    Index(usize),
}
