//! Server parameters (API keys and the like) that must never leak, flowmcp's own credentials,
//! and the [`Redactor`] that hides both.
//!
//! A [`Secret`] prints as `[redacted]` in `Debug` and `Display`, has no `Serialize`, and hands its
//! value out only through [`Secret::expose`]. [`ServerParams`] collects the values a schema's
//! `requiredServerParams` name from three sources, in this order: the process environment, the
//! `--env-file` / `.env` file, the config file. The first source with a non-empty value wins.
//!
//! Names reserved for flowmcp itself ([`is_reserved_name`]: [`MODEL_KEY`] and every
//! [`PRODUCT_PREFIX`] name) are never server parameters: no source gives a schema their value, and
//! the values of the product's credentials ([`PRODUCT_CREDENTIALS`]) are hidden like secrets.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;

use crate::encoding::Encoding;

/// The names reserved for flowmcp itself (decided in the specification crate beside the reserved
/// namespaces, so that every crate asks the same question).
pub use flowmcp_spec::catalog::{MODEL_KEY, PRODUCT_PREFIX, is_reserved_name};

/// The text every secret prints as.
pub(crate) const REDACTED: &str = "[redacted]";

/// The HTTP server's per-route bearer tokens, `/path=TOKEN` items separated by commas.
const ROUTE_TOKENS: &str = "FLOWMCP_ROUTE_TOKENS";

/// flowmcp's own credentials: the model key and the HTTP server's bearer tokens. Their values are
/// hidden like secrets wherever they are known ([`Redactor::hide_product_credentials`]).
pub const PRODUCT_CREDENTIALS: &[&str] = &[MODEL_KEY, "FLOWMCP_AUTH_TOKEN", ROUTE_TOKENS];

/// Whether `value` is a placeholder someone left in a configuration instead of a key: after
/// trimming, and ignoring ASCII case, only dots or ellipses (`…`, `...`), anything in angle
/// brackets (`<your key>`), a value starting with `your_`, `your-` or `your ` (`YOUR_API_KEY`), or
/// one of `changeme`, `change-me`, `change_me`, `replace-me`, `replace_me`, `placeholder`, `todo`,
/// `tbd`, `xxx`. Such a value counts as unset, so the tools that need it are not served, rather
/// than sent as a key that cannot work.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    if v.is_empty() {
        return false;
    }
    v.chars().all(|c| c == '.' || c == '…')
        || (v.starts_with('<') && v.ends_with('>'))
        || ["your_", "your-", "your "].iter().any(|p| v.starts_with(p))
        || matches!(
            v.as_str(),
            "changeme"
                | "change-me"
                | "change_me"
                | "replace-me"
                | "replace_me"
                | "placeholder"
                | "todo"
                | "tbd"
                | "xxx"
        )
}

/// Why a tool whose server parameters `missing` have no value cannot be called: reserved names
/// ([`is_reserved_name`]) are said to be reserved for flowmcp itself, the others to be set.
pub(crate) fn missing_params_message(missing: &[String]) -> String {
    let (reserved, unset): (Vec<&str>, Vec<&str>) = missing
        .iter()
        .map(String::as_str)
        .partition(|n| is_reserved_name(n));
    let mut parts = Vec::new();
    if !reserved.is_empty() {
        let one = reserved.len() == 1;
        parts.push(format!(
            "server parameter{} {} {} reserved for flowmcp itself and never given to a schema",
            if one { "" } else { "s" },
            reserved.join(", "),
            if one { "is" } else { "are" },
        ));
    }
    if !unset.is_empty() {
        let one = unset.len() == 1;
        parts.push(format!(
            "missing server parameter{}: {} (set {} in the environment, an env file or the config)",
            if one { "" } else { "s" },
            unset.join(", "),
            if one { "it" } else { "them" },
        ));
    }
    parts.join("; ")
}

/// Hides secret values in text, bytes and JSON: each value as written, in every form the runtime
/// writes values in (the request builder's one table of encodings: raw, path segment, query, JSON
/// string, base64) with upper- and lower-case `%XX` digits, in lower case and in its IDNA
/// (punycode) host form (URL parsers rewrite host names so). The patterns are computed when a
/// value is added, never per call. `Debug` shows how many patterns there are, nothing else.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    /// Every text [`Redactor::redact`] hides, longest first, without duplicates.
    patterns: Vec<String>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redactor({} patterns)", self.patterns.len())
    }
}

impl Redactor {
    /// A redactor that hides nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A redactor hiding each of `values` (empty ones are ignored).
    pub fn with_values<'v>(values: impl IntoIterator<Item = &'v str>) -> Self {
        let mut r = Redactor::new();
        for v in values {
            r.push_patterns(v);
        }
        r.sort();
        r
    }

    /// Hides `value` too (an empty value is ignored).
    pub fn add(&mut self, value: &str) {
        self.push_patterns(value);
        self.sort();
    }

    /// Hides the values `lookup` gives for flowmcp's own credentials ([`PRODUCT_CREDENTIALS`]),
    /// e.g. `|k| std::env::var(k).ok()`; of `FLOWMCP_ROUTE_TOKENS` (`/path=TOKEN,…`) each token
    /// too.
    pub fn hide_product_credentials(&mut self, lookup: impl Fn(&str) -> Option<String>) {
        for name in PRODUCT_CREDENTIALS {
            let Some(v) = lookup(name) else {
                continue;
            };
            if *name == ROUTE_TOKENS {
                for item in v.split(',') {
                    if let Some((_, token)) = item.split_once('=') {
                        self.push_patterns(token.trim());
                    }
                }
            }
            self.push_patterns(&v);
        }
        self.sort();
    }

    /// True when there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    fn push_patterns(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let out = &mut self.patterns;
        let mut add = |p: String| {
            if !p.is_empty() && !out.contains(&p) {
                out.push(p);
            }
        };
        for encoding in Encoding::ALL {
            for p in encoding.forms(raw) {
                add(lower_hex(&p));
                add(p);
            }
        }
        // As a host name: lower case, and the IDNA form the URL parser gives it.
        add(raw.to_lowercase());
        if let Ok(url::Host::Domain(ascii)) = url::Host::parse(raw) {
            add(ascii);
        }
    }

    fn sort(&mut self) {
        self.patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
    }

    /// Replaces every occurrence of every hidden value in `text`, in each of its forms, by
    /// `[redacted]`. Longer patterns are replaced first so that a value containing another is
    /// fully hidden.
    pub fn redact(&self, text: &str) -> String {
        self.redact_cow(text).into_owned()
    }

    /// [`Redactor::redact`] without a copy when `text` reveals nothing.
    pub fn redact_cow<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        for p in &self.patterns {
            if out.contains(p.as_str()) {
                out = Cow::Owned(out.replace(p.as_str(), REDACTED));
            }
        }
        out
    }

    /// [`Redactor::redact`] over bytes (a body that is not text, before it is turned into
    /// base64): every pattern's bytes become `[redacted]`.
    pub fn redact_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for p in &self.patterns {
            let p = p.as_bytes();
            if p.is_empty() || out.len() < p.len() {
                continue;
            }
            if !out.windows(p.len()).any(|w| w == p) {
                continue;
            }
            let mut next = Vec::with_capacity(out.len());
            let mut i = 0;
            while i < out.len() {
                if out[i..].starts_with(p) {
                    next.extend_from_slice(REDACTED.as_bytes());
                    i += p.len();
                } else {
                    next.push(out[i]);
                    i += 1;
                }
            }
            out = next;
        }
        out
    }

    /// Redacts every string of `v` (object keys included) in place; strings without a hidden
    /// value are left untouched. A number whose text reveals a value (a numeric key echoed back as
    /// a JSON number) becomes the string `[redacted]`.
    pub fn redact_json(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => {
                if let Cow::Owned(r) = self.redact_cow(s) {
                    *s = r;
                }
            }
            Value::Number(n) => {
                if let Cow::Owned(r) = self.redact_cow(&n.to_string()) {
                    *v = Value::String(r);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.redact_json(i)),
            Value::Object(o) => {
                if o.keys()
                    .any(|k| matches!(self.redact_cow(k), Cow::Owned(_)))
                {
                    *o = std::mem::take(o)
                        .into_iter()
                        .map(|(k, v)| (self.redact(&k), v))
                        .collect();
                }
                o.values_mut().for_each(|x| self.redact_json(x));
            }
            _ => {}
        }
    }
}

/// A server-parameter value. Never printed; read it with [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself. Call only where the value is sent upstream.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// Where a server parameter's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSource {
    /// The process environment.
    Environment,
    /// The `--env-file` / `.env` file.
    EnvFile,
    /// The config file.
    Config,
    /// Set directly by the caller (tests, embedding).
    Explicit,
}

/// Server parameters by name. `Debug` shows the names and sources only.
///
/// A name reserved for flowmcp itself ([`is_reserved_name`]) never has a value here, whatever
/// the sources hold; the values of flowmcp's own credentials found in the sources are hidden by
/// the redactor all the same.
#[derive(Clone, Default)]
pub struct ServerParams {
    values: IndexMap<String, (Secret, ParamSource)>,
    /// Hides every value (and the product credentials the sources hold); shared with the
    /// requests of a call, whose error messages it redacts ([`HttpRequest::redactor`]).
    ///
    /// [`HttpRequest::redactor`]: crate::HttpRequest::redactor
    redactor: Arc<Redactor>,
    /// Names whose only value was a placeholder ([`is_placeholder`]); they have no value.
    placeholders: Vec<String>,
}

impl fmt::Debug for ServerParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.values.iter().map(|(k, (s, src))| (k, (s, src))))
            .finish()
    }
}

impl ServerParams {
    /// No parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` directly (source [`ParamSource::Explicit`]); an empty value, or a name reserved
    /// for flowmcp itself ([`is_reserved_name`]), is ignored.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let (name, value) = (name.into(), value.into());
        if !value.is_empty() && !is_reserved_name(&name) {
            Arc::make_mut(&mut self.redactor).add(&value);
            self.values
                .insert(name, (Secret(value), ParamSource::Explicit));
        }
    }

    /// These parameters with `values` laid over them: each given value replaces (or fills) the
    /// one of its name, as [`ServerParams::insert`] does (empty values and names reserved for
    /// flowmcp itself are ignored). The redactor hides the values of both. One call's values from
    /// its client (`flowmcp serve --client-credentials`, D142) are laid over the server's this way.
    pub fn overlaid<'v>(&self, values: impl IntoIterator<Item = (&'v str, &'v str)>) -> Self {
        let mut out = self.clone();
        for (name, value) in values {
            out.insert(name, value);
        }
        out
    }

    /// Looks up each of `names` in `env` (the process environment, injectable for tests), then
    /// `env_file`, then `config`; the first non-empty value wins. Names without a value are left
    /// out (see [`ServerParams::missing`]), and so are names reserved for flowmcp itself
    /// ([`is_reserved_name`]): they are not even looked up. The values the three sources hold for
    /// flowmcp's own credentials ([`PRODUCT_CREDENTIALS`]) are hidden by the redactor.
    pub fn resolve<'n, F>(
        names: impl IntoIterator<Item = &'n str>,
        env: F,
        env_file: &BTreeMap<String, String>,
        config: &BTreeMap<String, String>,
    ) -> Self
    where
        F: Fn(&str) -> Option<String>,
    {
        let mut values = IndexMap::new();
        let mut placeholders: Vec<String> = Vec::new();
        for name in names {
            if values.contains_key(name) || is_reserved_name(name) {
                continue;
            }
            let mut seen_placeholder = false;
            let mut usable = |v: &String| {
                let placeholder = is_placeholder(v);
                seen_placeholder |= placeholder;
                !v.is_empty() && !placeholder
            };
            let found = env(name)
                .filter(&mut usable)
                .map(|v| (v, ParamSource::Environment))
                .or_else(|| {
                    env_file
                        .get(name)
                        .filter(|v| usable(v))
                        .map(|v| (v.clone(), ParamSource::EnvFile))
                })
                .or_else(|| {
                    config
                        .get(name)
                        .filter(|v| usable(v))
                        .map(|v| (v.clone(), ParamSource::Config))
                });
            match found {
                Some((value, source)) => {
                    values.insert(name.to_string(), (Secret(value), source));
                }
                None if seen_placeholder && !placeholders.iter().any(|p| p == name) => {
                    placeholders.push(name.to_string());
                }
                None => {}
            }
        }
        let mut redactor =
            Redactor::with_values(values.values().map(|(secret, _)| secret.expose()));
        redactor.hide_product_credentials(|k| env(k).filter(|v| !v.is_empty()));
        redactor.hide_product_credentials(|k| env_file.get(k).cloned());
        redactor.hide_product_credentials(|k| config.get(k).cloned());
        ServerParams {
            values,
            redactor: Arc::new(redactor),
            placeholders,
        }
    }

    /// The names whose only value was a placeholder ([`is_placeholder`]): they count as unset.
    /// Say so to the user, naming the variable (never the value).
    pub fn placeholders(&self) -> &[String] {
        &self.placeholders
    }

    /// [`ServerParams::resolve`] with the real process environment.
    pub fn from_process<'n>(
        names: impl IntoIterator<Item = &'n str>,
        env_file: &BTreeMap<String, String>,
        config: &BTreeMap<String, String>,
    ) -> Self {
        Self::resolve(names, |k| std::env::var(k).ok(), env_file, config)
    }

    /// The value of `name`, if it has one.
    pub fn get(&self, name: &str) -> Option<&Secret> {
        self.values.get(name).map(|(s, _)| s)
    }

    /// Where the value of `name` came from.
    pub fn source(&self, name: &str) -> Option<ParamSource> {
        self.values.get(name).map(|(_, src)| *src)
    }

    /// True when `name` has a value.
    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The names of `names` that have no value, in order, without duplicates.
    pub fn missing<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in names {
            if !self.contains(name) && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        out
    }

    /// The parameter names that have values.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Replaces every occurrence of every (non-empty) value in `text` by `[redacted]`, also in the
    /// forms the runtime writes it in (see [`Redactor`]).
    pub fn redact(&self, text: &str) -> String {
        self.redactor.redact(text)
    }

    /// [`ServerParams::redact`] without a copy when `text` reveals nothing.
    pub fn redact_cow<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redactor.redact_cow(text)
    }

    /// [`ServerParams::redact`] over bytes (see [`Redactor::redact_bytes`]).
    pub fn redact_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        self.redactor.redact_bytes(bytes)
    }

    /// [`ServerParams::redact`] over every string of a JSON value (see [`Redactor::redact_json`]).
    pub fn redact_json(&self, v: &mut Value) {
        self.redactor.redact_json(v);
    }

    /// The redactor that hides these values.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The same redactor, shared (for [`HttpRequest::redactor`](crate::HttpRequest::redactor)).
    pub(crate) fn shared_redactor(&self) -> Arc<Redactor> {
        Arc::clone(&self.redactor)
    }

    /// True when no parameter has a value.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// `p` with the hex digits of its `%XX` escapes in lower case.
fn lower_hex(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            for _ in 0..2 {
                if let Some(h) = chars.next() {
                    out.push(h.to_ascii_lowercase());
                }
            }
        }
    }
    out
}

/// Parses `.env` text like the reference: one `KEY=VALUE` per line, split at the first `=`, key
/// and value trimmed, no unquoting; blank lines, lines starting with `#` and lines without `=`
/// or with an empty key are skipped. A later line overrides an earlier one.
pub fn parse_env_file(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() {
            continue;
        }
        out.insert(key.to_string(), value.trim().to_string());
    }
    out
}

/// Largest env file read: 1 MiB.
pub const MAX_ENV_FILE_BYTES: u64 = 1024 * 1024;

/// Reads and parses an env file (see [`parse_env_file`]), at most [`MAX_ENV_FILE_BYTES`]. The
/// error names neither the path nor the content.
pub fn read_env_file(path: &Path) -> std::io::Result<BTreeMap<String, String>> {
    flowmcp_files::named::read_capped_text(path, MAX_ENV_FILE_BYTES).map(|t| parse_env_file(&t))
}

#[cfg(test)]
mod tests {

    /// Issue #28, item 4: a placeholder left in a configuration (the README's old Desktop snippet
    /// had `"SKYCAST_API_KEY": "…"`) is not a key: the name counts as unset and is reported.
    #[test]
    fn i28_4_placeholder_values_count_as_unset() {
        for p in [
            "…",
            "...",
            " <your key> ",
            "YOUR_API_KEY",
            "your-key",
            "changeme",
            "XXX",
            "TODO",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for k in ["", "demo", "sk-or-v1-abc", "x", "your", "<", "a.b"] {
            assert!(!is_placeholder(k), "{k}");
        }
        let env = |k: &str| (k == "A" || k == "B").then(|| "…".to_string());
        let file: BTreeMap<String, String> = [("B".to_string(), "real-b".to_string())].into();
        let p = ServerParams::resolve(["A", "B", "C"], env, &file, &BTreeMap::new());
        assert!(!p.contains("A"));
        assert_eq!(
            p.get("B").map(Secret::expose),
            Some("real-b"),
            "a real value later wins"
        );
        assert_eq!(p.placeholders(), ["A".to_string()]);
        assert_eq!(p.missing(["A", "B", "C"]), ["A", "C"]);
    }

    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("CANARY-9f3a");
        assert_eq!(format!("{s:?}"), "[redacted]");
        assert_eq!(format!("{s}"), "[redacted]");
        assert_eq!(s.expose(), "CANARY-9f3a");
        assert!(!s.is_empty());
    }

    #[test]
    fn sources_in_order_first_value_wins() {
        let env = |k: &str| match k {
            "A" => Some("from-env".to_string()),
            "E" => Some(String::new()),
            _ => None,
        };
        let file = map(&[("A", "file-a"), ("B", "file-b"), ("E", "file-e")]);
        let config = map(&[("B", "cfg-b"), ("C", "cfg-c"), ("D", "")]);
        let p = ServerParams::resolve(["A", "B", "C", "D", "E"], env, &file, &config);
        assert_eq!(p.get("A").map(Secret::expose), Some("from-env"));
        assert_eq!(p.source("A"), Some(ParamSource::Environment));
        assert_eq!(p.get("B").map(Secret::expose), Some("file-b"));
        assert_eq!(p.source("B"), Some(ParamSource::EnvFile));
        assert_eq!(p.get("C").map(Secret::expose), Some("cfg-c"));
        assert_eq!(p.source("C"), Some(ParamSource::Config));
        // Empty values count as missing; an empty env value falls through to the file.
        assert!(!p.contains("D"));
        assert_eq!(p.get("E").map(Secret::expose), Some("file-e"));
        assert_eq!(p.missing(["A", "D", "X", "D"]), vec!["D", "X"]);
        assert_eq!(p.names().collect::<Vec<_>>(), vec!["A", "B", "C", "E"]);
    }

    #[test]
    fn env_file_parsing_is_like_the_reference() {
        let text = "# comment\n  KEY = value with spaces  \nQUOTED=\"x\"\nEQ=a=b\n\nnoequals\n =nokey\n  # indented comment\nKEY=second\n";
        let m = parse_env_file(text);
        assert_eq!(m.get("KEY").map(String::as_str), Some("second"));
        assert_eq!(m.get("QUOTED").map(String::as_str), Some("\"x\""));
        assert_eq!(m.get("EQ").map(String::as_str), Some("a=b"));
        assert_eq!(m.len(), 3);
        assert!(read_env_file(Path::new("/nonexistent/.env")).is_err());
    }

    #[test]
    fn redact_replaces_every_value() {
        let mut p = ServerParams::new();
        p.insert("K", "CANARY-9f3a");
        p.insert("SHORT", "CANARY");
        p.insert("EMPTY", "");
        assert!(!p.contains("EMPTY"));
        let text = "url=https://x/?k=CANARY-9f3a&again=CANARY-9f3a and CANARY";
        let r = p.redact(text);
        assert!(!r.contains("CANARY"), "{r}");
        assert_eq!(
            r,
            "url=https://x/?k=[redacted]&again=[redacted] and [redacted]"
        );
        let dbg = format!("{p:?}");
        assert!(!dbg.contains("CANARY"), "{dbg}");
        assert!(dbg.contains("K"));
    }

    /// Issue #27 item 6: the names of flowmcp itself are reserved in any case, are never looked
    /// up or inserted, and the values of its credentials are hidden wherever a source holds them.
    #[test]
    fn item06_reserved_names_never_resolve_and_product_credentials_are_hidden() {
        for name in [
            "OPENROUTER_API_KEY",
            "openrouter_api_key",
            "FLOWMCP_AUTH_TOKEN",
            "FLOWMCP_ROUTE_TOKENS",
            "FLOWMCP_LLM_BASE_URL",
            "flowmcp_anything",
        ] {
            assert!(is_reserved_name(name), "{name}");
        }
        for name in [
            "API_KEY",
            "OPENROUTER_API_KEY_2",
            "MY_FLOWMCP_KEY",
            "FLOWMCP",
            "",
        ] {
            assert!(!is_reserved_name(name), "{name}");
        }
        let asked = std::cell::RefCell::new(Vec::new());
        let env = |k: &str| {
            asked.borrow_mut().push(k.to_string());
            match k {
                "OPENROUTER_API_KEY" => Some("sk-model-1".to_string()),
                "FLOWMCP_AUTH_TOKEN" => Some("tok-auth-2".to_string()),
                "API_KEY" => Some("api-3".to_string()),
                _ => None,
            }
        };
        let file = map(&[("FLOWMCP_ROUTE_TOKENS", "/a=tok-route-4,/b=tok-route-5")]);
        let config = map(&[("FLOWMCP_LLM_BASE_URL", "https://llm.example")]);
        let names = [
            "OPENROUTER_API_KEY",
            "FLOWMCP_AUTH_TOKEN",
            "FLOWMCP_ROUTE_TOKENS",
            "FLOWMCP_LLM_BASE_URL",
            "API_KEY",
        ];
        let mut p = ServerParams::resolve(names, env, &file, &config);
        assert_eq!(p.names().collect::<Vec<_>>(), vec!["API_KEY"]);
        assert_eq!(p.missing(names).len(), 4);
        p.insert("OPENROUTER_API_KEY", "sk-inserted");
        assert!(!p.contains("OPENROUTER_API_KEY"));
        // The product's credentials are hidden (not the base URL: it is no credential).
        assert_eq!(
            p.redact("sk-model-1 tok-auth-2 tok-route-4 tok-route-5 api-3 https://llm.example"),
            "[redacted] [redacted] [redacted] [redacted] [redacted] https://llm.example"
        );
        assert!(
            !asked.borrow().iter().any(|k| k == "FLOWMCP_LLM_BASE_URL"),
            "a reserved name was looked up as a parameter: {:?}",
            asked.borrow()
        );
        assert_eq!(
            missing_params_message(&["OPENROUTER_API_KEY".into(), "API_KEY".into()]),
            "server parameter OPENROUTER_API_KEY is reserved for flowmcp itself and never given \
             to a schema; missing server parameter: API_KEY (set it in the environment, an env \
             file or the config)"
        );
        assert!(!format!("{:?}", p.redactor()).contains("sk-"));
    }

    #[test]
    fn i44_overlaid_values_replace_fill_and_are_redacted_reserved_names_never() {
        let mut server = ServerParams::new();
        server.insert("A", "server-a-value");
        server.insert("B", "server-b-value");
        let call = server.overlaid([
            ("A", "client-a-value"),
            ("C", "client-c-value"),
            ("FLOWMCP_AUTH_TOKEN", "client-token"),
            ("B", ""),
        ]);
        assert_eq!(call.get("A").map(Secret::expose), Some("client-a-value"));
        assert_eq!(call.get("B").map(Secret::expose), Some("server-b-value"));
        assert_eq!(call.get("C").map(Secret::expose), Some("client-c-value"));
        assert!(!call.contains("FLOWMCP_AUTH_TOKEN"));
        let shown = call.redact("client-a-value client-c-value server-a-value server-b-value");
        assert!(!shown.contains("value"), "{shown}");
        // The server's own parameters are untouched.
        assert_eq!(server.get("A").map(Secret::expose), Some("server-a-value"));
        assert!(!server.contains("C"));
    }

    #[test]
    fn redact_catches_url_encoded_forms() {
        let mut p = ServerParams::new();
        p.insert("K", "CAN ARY+k/q=");
        for text in [
            "raw CAN ARY+k/q= end",
            "path /api/CAN%20ARY%2Bk%2Fq%3D/x",
            "query ?key=CAN+ARY%2Bk%2Fq%3D&x=1",
            "lower /api/CAN%20ARY%2bk%2fq%3d/x",
        ] {
            let r = p.redact(text);
            assert!(r.contains(REDACTED), "{text} -> {r}");
            assert!(!r.contains("ARY"), "{text} -> {r}");
        }
        assert_eq!(ServerParams::new().redact("plain"), "plain");
    }
}
