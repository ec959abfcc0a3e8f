//! Diagnostics and reports: plain data, rendered elsewhere.
//!
//! ## JSON shape (stable)
//!
//! A [`Diagnostic`] serialises as
//! `{"code":"VAL014","severity":"error","message":"…","file":"x.mjs","line":4,"column":14,
//!   "pointer":"/main/version","path":"main.version","variant":"v3","help":"…"}`;
//! `variant`, `file`, `line`, `column`, `pointer`, `path` and `help` are left out when unknown.
//! A finding that can be repaired mechanically also carries
//! `"fix":{"applicability":"safe"|"unsafe","edits":[{"start":120,"end":126,"text":"…"}]}` ([`Fix`]),
//! and only then: the JSON of a finding without a fix is as it always was.
//! A [`FileReport`] is `{"file":…,"kind":…,"verdict":"valid"|"invalid","errors":N,"warnings":N,
//! "infos":N,"diagnostics":[…]}`; a [`Report`] is `{"profile":…,"verdict":…,"files":N,"errors":N,
//! "warnings":N,"infos":N,"reports":[FileReport…]}`.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::catalog::FileKind;
use crate::level::Level;
use crate::profile::RuleSettings;
use crate::registry::Code;

/// The severity of an emitted diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    pub fn from_level(level: Level) -> Option<Severity> {
        match level {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One segment of a location inside a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A location inside an exported value, e.g. `main.tools.getAbi.parameters[0]`.
///
/// Paths share their prefixes (a child holds its parent by reference count), so deriving
/// `path.key("x")` costs one small allocation whatever the depth, and cloning a path is free. Rules
/// derive many paths that never end up in a diagnostic, so this matters.
#[derive(Clone, Default)]
pub struct JsonPath(Option<Arc<PathNode>>);

struct PathNode {
    parent: JsonPath,
    seg: Seg,
    len: usize,
}

impl JsonPath {
    pub fn root(key: &str) -> Self {
        JsonPath::default().key(key)
    }
    /// Builds a path from segments.
    pub fn from_segments(segs: impl IntoIterator<Item = Seg>) -> Self {
        segs.into_iter().fold(JsonPath::default(), |p, s| p.push(s))
    }
    fn push(&self, seg: Seg) -> Self {
        JsonPath(Some(Arc::new(PathNode {
            parent: self.clone(),
            seg,
            len: self.len() + 1,
        })))
    }
    pub fn key(&self, key: &str) -> Self {
        self.push(Seg::Key(key.to_string()))
    }
    pub fn index(&self, i: usize) -> Self {
        self.push(Seg::Index(i))
    }
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.len)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    /// The last segment.
    pub fn last(&self) -> Option<&Seg> {
        self.0.as_ref().map(|n| &n.seg)
    }
    /// The segments from the root.
    pub fn segments(&self) -> Vec<Seg> {
        self.segment_refs().into_iter().cloned().collect()
    }
    /// The segments from the root, borrowed from the path (the renderings below need no copies).
    fn segment_refs(&self) -> Vec<&Seg> {
        let mut out = Vec::with_capacity(self.len());
        let mut cur = self;
        while let Some(n) = &cur.0 {
            out.push(&n.seg);
            cur = &n.parent;
        }
        out.reverse();
        out
    }
    /// Whether `prefix` is this path or one of its ancestors.
    pub fn starts_with(&self, prefix: &JsonPath) -> bool {
        let mut cur = self;
        while cur.len() > prefix.len() {
            match &cur.0 {
                Some(n) => cur = &n.parent,
                None => return false,
            }
        }
        cur == prefix
    }
    /// RFC 6901 JSON pointer: `/main/tools/getAbi`.
    pub fn pointer(&self) -> String {
        use std::fmt::Write as _;
        let segments = self.segment_refs();
        let mut out = String::with_capacity(rendered_len(&segments));
        for s in segments {
            out.push('/');
            match s {
                Seg::Key(k) if !k.bytes().any(|b| b == b'~' || b == b'/') => out.push_str(k),
                Seg::Key(k) => {
                    for c in k.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                }
                Seg::Index(i) => {
                    let _ = write!(out, "{i}");
                }
            }
        }
        out
    }
    /// Readable dotted form: `main.tools.getAbi.parameters[0]`, keys that are not identifiers quoted
    /// in brackets (`main.tools["/block/:id"]`).
    pub fn dotted(&self) -> String {
        use std::fmt::Write as _;
        let segments = self.segment_refs();
        let mut out = String::with_capacity(rendered_len(&segments));
        for s in segments {
            match s {
                Seg::Key(k) if is_ident(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Key(k) => {
                    out.push('[');
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push(']');
                }
                Seg::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }
}

impl PartialEq for JsonPath {
    fn eq(&self, other: &Self) -> bool {
        let (mut a, mut b) = (self, other);
        loop {
            match (&a.0, &b.0) {
                (None, None) => return true,
                (Some(x), Some(y)) => {
                    if Arc::ptr_eq(x, y) {
                        return true;
                    }
                    if x.len != y.len || x.seg != y.seg {
                        return false;
                    }
                    a = &x.parent;
                    b = &y.parent;
                }
                _ => return false,
            }
        }
    }
}

impl Eq for JsonPath {}

impl std::hash::Hash for JsonPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.segment_refs().hash(state);
    }
}

impl std::fmt::Debug for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JsonPath({})", self.pointer())
    }
}

/// About the length of a path written out (its keys, and room for the punctuation and indices
/// around them), so that the rendering allocates once.
fn rendered_len(segments: &[&Seg]) -> usize {
    segments
        .iter()
        .map(|s| match s {
            Seg::Key(k) => k.len() + 4,
            Seg::Index(_) => 6,
        })
        .sum()
}

/// Whether `k` is written bare in a dotted path: ASCII letters, digits, `_` and `$`, not starting
/// with a digit (a byte beyond ASCII is part of a character that is none of these).
fn is_ident(k: &str) -> bool {
    let mut bytes = k.bytes();
    matches!(bytes.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        && bytes.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
}

impl std::fmt::Display for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.dotted())
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<&'static str>,
    pub severity: Severity,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_pointer"
    )]
    pub pointer: Option<JsonPath>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The edits of the file's source that repair this finding, when they are mechanical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// Whether a [`Fix`] may be applied without a person reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// The new text means what the old one meant, in the form the specification asks for.
    Safe,
    /// The new text changes meaning or drafts values (an ID, a dropped constraint, a drafted
    /// `meta`): a person confirms it.
    Unsafe,
}

impl Applicability {
    /// `safe` or `unsafe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// One replacement in a file's source: the bytes `start..end` (UTF-8 offsets, `start == end` for
/// an insertion) become `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The new text.
    pub text: String,
}

/// The repair of one finding: edits of the source of the finding's file, built by the code that
/// knows the problem, applied together or not at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// Whether the edits may be applied unreviewed.
    pub applicability: Applicability,
    /// The edits, by position, none overlapping another.
    pub edits: Vec<Edit>,
}

/// Whether two edits cannot both be applied: they are not the same edit, and their ranges overlap,
/// start at the same byte (two insertions there, or an insertion where a replacement starts,
/// would have no order) or one is an insertion inside the other.
fn conflicts(a: &Edit, b: &Edit) -> bool {
    a != b && ((a.start < b.end && b.start < a.end) || a.start == b.start)
}

/// `source` with `fixes` applied, in the order given, each whole or not at all: a fix with an
/// edit that conflicts with one already taken (an identical edit is taken once), or that does not
/// fall on character boundaries of `source`, is left out. Returns the new text and, for each
/// fix, whether it was applied.
pub fn apply_fixes<'f>(
    source: &str,
    fixes: impl IntoIterator<Item = &'f Fix>,
) -> (String, Vec<bool>) {
    let (taken, applied) = fix_edits(source, fixes);
    (apply_edits(source, &taken), applied)
}

/// The edits [`apply_fixes`] makes for `fixes` (each once, sorted by position, none conflicting
/// with another), and for each fix whether it was applied.
pub fn fix_edits<'f>(
    source: &str,
    fixes: impl IntoIterator<Item = &'f Fix>,
) -> (Vec<&'f Edit>, Vec<bool>) {
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = Vec::new();
    for fix in fixes {
        let fits = fix.edits.iter().all(|e| {
            e.start <= e.end
                && source.is_char_boundary(e.start)
                && source.is_char_boundary(e.end)
                && e.end <= source.len()
                && !taken.iter().any(|t| conflicts(t, e))
        });
        if fits {
            for e in &fix.edits {
                if !taken.contains(&e) {
                    taken.push(e);
                }
            }
        }
        applied.push(fits);
    }
    taken.sort_by_key(|e| (e.start, e.end));
    (taken, applied)
}

/// `source` with `edits` applied: edits as [`fix_edits`] gives them (sorted by position, not
/// conflicting, on character boundaries of `source`).
pub fn apply_edits(source: &str, edits: &[&Edit]) -> String {
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for e in edits {
        out.push_str(source.get(at..e.start).unwrap_or_default());
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(source.get(at..).unwrap_or_default());
    out
}

impl Fix {
    /// A fix of `edits` (sorted by position; duplicates dropped).
    pub fn new(applicability: Applicability, mut edits: Vec<Edit>) -> Fix {
        edits.sort_by(|a, b| (a.start, a.end, &a.text).cmp(&(b.start, b.end, &b.text)));
        edits.dedup();
        Fix {
            applicability,
            edits,
        }
    }
}

fn ser_pointer<S: serde::Serializer>(p: &Option<JsonPath>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_str(&p.pointer()),
        None => s.serialize_none(),
    }
}

impl Diagnostic {
    pub fn with_location(mut self, line: u32, column: u32) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The finding in one line without its file, for a message that names the file already:
    /// `LDR003 at line 5, column 5: Syntax error: …` (the position when it has one).
    pub fn brief(&self) -> String {
        let code = self.code.as_str();
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{code} at line {l}, column {c}: {}", self.message),
            (Some(l), None) => format!("{code} at line {l}: {}", self.message),
            _ => format!("{code}: {}", self.message),
        }
    }
}

/// Collects diagnostics for one file, resolving each code's severity under the active settings and
/// dropping rules that are `off`.
#[derive(Debug)]
pub struct Collector<'s> {
    settings: &'s RuleSettings,
    file: Option<String>,
    out: Vec<Diagnostic>,
}

impl<'s> Collector<'s> {
    pub fn new(settings: &'s RuleSettings, file: Option<String>) -> Self {
        Self {
            settings,
            file,
            out: Vec::new(),
        }
    }

    pub fn settings(&self) -> &RuleSettings {
        self.settings
    }

    /// Emits `code` (default variant) at `path`. Returns the diagnostic for further decoration, or
    /// `None` when the rule is off.
    pub fn emit(
        &mut self,
        code: Code,
        path: Option<&JsonPath>,
        message: impl Into<String>,
    ) -> Option<&mut Diagnostic> {
        self.emit_variant(code, None, path, message)
    }

    /// Emits `code` at `path` with a help line (when `help` is `Some`).
    pub fn emit_help(
        &mut self,
        code: Code,
        path: Option<&JsonPath>,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Option<&mut Diagnostic> {
        let d = self.emit_variant(code, None, path, message)?;
        d.help = help;
        Some(d)
    }

    /// Emits `code` in its named `variant`.
    pub fn emit_variant(
        &mut self,
        code: Code,
        variant: Option<&'static str>,
        path: Option<&JsonPath>,
        message: impl Into<String>,
    ) -> Option<&mut Diagnostic> {
        let severity = Severity::from_level(self.settings.level(code, variant))?;
        self.out.push(Diagnostic {
            code,
            variant,
            severity,
            message: message.into(),
            file: self.file.clone(),
            line: None,
            column: None,
            pointer: path.filter(|p| !p.is_empty()).cloned(),
            path: path.filter(|p| !p.is_empty()).map(|p| p.dotted()),
            help: None,
            fix: None,
        });
        self.out.last_mut()
    }

    /// Adds an already-built diagnostic, re-resolving its severity under these settings.
    pub fn push(&mut self, mut d: Diagnostic) {
        if let Some(sev) = Severity::from_level(self.settings.level(d.code, d.variant)) {
            d.severity = sev;
            if d.file.is_none() {
                d.file = self.file.clone();
            }
            self.out.push(d);
        }
    }

    pub fn has_errors(&self) -> bool {
        self.out.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// The codes of the diagnostics collected after the first `start` (what one rule added, given
    /// [`Collector::len`] before it ran).
    pub fn codes_since(&self, start: usize) -> impl Iterator<Item = Code> + '_ {
        self.out.iter().skip(start).map(|d| d.code)
    }

    /// The diagnostics collected after the first `start`.
    pub fn since(&self, start: usize) -> &[Diagnostic] {
        self.out.get(start..).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    pub fn finish(self) -> Vec<Diagnostic> {
        self.out
    }
}

/// The outcome for a file or a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No error-level diagnostics.
    Valid,
    /// At least one error: the artifact cannot be loaded.
    Invalid,
}

/// Counts per severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Counts {
    pub fn of(diags: &[Diagnostic]) -> Self {
        let mut c = Counts::default();
        for d in diags {
            c.add(d.severity);
        }
        c
    }
    pub fn add(&mut self, s: Severity) {
        match s {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Info => self.infos += 1,
        }
    }
    pub fn merge(&mut self, o: Counts) {
        self.errors += o.errors;
        self.warnings += o.warnings;
        self.infos += o.infos;
    }
    pub fn verdict(&self) -> Verdict {
        if self.errors > 0 {
            Verdict::Invalid
        } else {
            Verdict::Valid
        }
    }
}

/// What a report is about: a file of a catalog by its kind, a catalog's manifest, or an ID.
/// Reports write it as its name (`schema`, `list`, …, `unknown`, `catalog`, `id`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// A file, by what it turned out to be ([`FileKind::Unknown`] when it could not be loaded
    /// far enough to tell).
    File(FileKind),
    /// A catalog's `registry.json`: the checks of the catalog as a whole.
    Catalog,
    /// A Primitive-ID or Schema-File-ID checked on its own.
    Id,
}

impl ReportKind {
    /// The name reports write: the file kind's ([`FileKind::as_str`]), `catalog` or `id`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportKind::File(kind) => kind.as_str(),
            ReportKind::Catalog => "catalog",
            ReportKind::Id => "id",
        }
    }

    /// The kind [`ReportKind::as_str`] names; `None` for any other text.
    pub fn parse(name: &str) -> Option<ReportKind> {
        match name {
            "catalog" => Some(ReportKind::Catalog),
            "id" => Some(ReportKind::Id),
            "unknown" => Some(ReportKind::File(FileKind::Unknown)),
            _ => FileKind::BY_EXPORT
                .iter()
                .map(|(_, kind)| *kind)
                .find(|kind| kind.as_str() == name)
                .map(ReportKind::File),
        }
    }
}

impl From<FileKind> for ReportKind {
    fn from(kind: FileKind) -> Self {
        ReportKind::File(kind)
    }
}

impl std::fmt::Display for ReportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReportKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The diagnostics of one file, with their counts and the verdict, which always agree: every
/// change of the diagnostics goes through a method that counts them again.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileReport {
    file: String,
    kind: ReportKind,
    verdict: Verdict,
    #[serde(flatten)]
    counts: Counts,
    diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    /// The report of `file` (as it is shown), a `kind`, with `diagnostics` in a stable order: by
    /// position (those without one last), then as they were emitted.
    pub fn new(
        file: impl Into<String>,
        kind: impl Into<ReportKind>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        let mut report = Self {
            file: file.into(),
            kind: kind.into(),
            verdict: Verdict::Valid,
            counts: Counts::default(),
            diagnostics: Vec::new(),
        };
        report.set_diagnostics(diagnostics);
        report
    }

    /// The file as it is shown (or the ID, or the catalog's `registry.json`).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// What the report is about.
    pub fn kind(&self) -> ReportKind {
        self.kind
    }

    /// `invalid` when a diagnostic is an error.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// The diagnostics per severity.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The diagnostics, by position.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The diagnostics, taken out of the report.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// Replaces the diagnostics (put in order as [`FileReport::new`] does) and counts them.
    pub fn set_diagnostics(&mut self, mut diagnostics: Vec<Diagnostic>) {
        // Stable order: by position (unknown last), then by emission order.
        diagnostics.sort_by_key(|d| (d.line.unwrap_or(u32::MAX), d.column.unwrap_or(u32::MAX)));
        self.diagnostics = diagnostics;
        self.recount();
    }

    /// Adds `more` diagnostics, in order among the others, and counts again.
    pub fn extend(&mut self, more: impl IntoIterator<Item = Diagnostic>) {
        let mut all = std::mem::take(&mut self.diagnostics);
        all.extend(more);
        self.set_diagnostics(all);
    }

    /// Adds one diagnostic, in order among the others, and counts again.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.extend([diagnostic]);
    }

    /// Keeps only the diagnostics `keep` accepts, and counts again.
    pub fn retain_diagnostics(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.diagnostics.retain(keep);
        self.recount();
    }

    /// The same report under another name: `file` becomes `shown`, and so does the file of every
    /// diagnostic that named it (a file validated in its catalog, reported under the path the
    /// user gave).
    pub fn renamed(mut self, shown: impl Into<String>) -> Self {
        let shown = shown.into();
        for d in &mut self.diagnostics {
            if d.file.as_deref() == Some(self.file.as_str()) {
                d.file = Some(shown.clone());
            }
        }
        self.file = shown;
        self
    }

    fn recount(&mut self) {
        self.counts = Counts::of(&self.diagnostics);
        self.verdict = self.counts.verdict();
    }
}

/// A whole run: many files under one profile, with the counts and the verdict of them all.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    profile: crate::profile::Profile,
    verdict: Verdict,
    files: usize,
    #[serde(flatten)]
    counts: Counts,
    reports: Vec<FileReport>,
}

impl Report {
    /// The report of `reports` under `profile`, counted.
    pub fn new(profile: crate::profile::Profile, reports: Vec<FileReport>) -> Self {
        let mut counts = Counts::default();
        for r in &reports {
            counts.merge(r.counts);
        }
        Self {
            profile,
            verdict: counts.verdict(),
            files: reports.len(),
            counts,
            reports,
        }
    }

    /// The profile the files were checked under.
    pub fn profile(&self) -> crate::profile::Profile {
        self.profile
    }

    /// `invalid` when a file's diagnostic is an error.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// How many file reports there are.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The diagnostics of every file per severity.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The file reports.
    pub fn reports(&self) -> &[FileReport] {
        &self.reports
    }

    /// The file reports, taken out of the report.
    pub fn into_reports(self) -> Vec<FileReport> {
        self.reports
    }
}

/// A JSON value's type as messages name it: `null`, `boolean`, `number`, `string`, `array`,
/// `object`.
pub fn json_type(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The JSON type of a value with its article, for messages: `null`, `a boolean`, `a number`,
/// `a string`, `an array`, `an object`.
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `text` with every control character (newline, carriage return, escape, …) written as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`), so that text from outside — a file name, a message quoting one —
/// cannot start a new line or move the cursor in human output. Borrowed when there is nothing to
/// escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape_where(text, char::is_control)
}

/// [`escape_controls`] for a block of text shown as it is (a rendered prompt, a model's answer):
/// line feeds and tabs stay, every other control character (carriage returns, escape sequences,
/// NUL) is escaped.
pub fn escape_controls_in_block(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c.is_control() && c != '\n' && c != '\t')
}

/// `text` with the characters `escape` selects written as Rust escapes (`\n`, `\u{1b}`).
fn escape_where(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// How a path is shown in messages and reports: as the platform prints it, with control characters
/// escaped ([`escape_controls`]).
pub fn display_path(path: &Path) -> String {
    escape_controls(&path.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Profile;

    fn finding(code: Code, severity: Severity, line: Option<u32>) -> Diagnostic {
        Diagnostic {
            code,
            variant: None,
            severity,
            message: "m".into(),
            file: Some("a.mjs".into()),
            line,
            column: line,
            pointer: None,
            path: None,
            help: None,
            fix: None,
        }
    }

    /// Issue #40 (D114): every change of a report's diagnostics counts them again, so the
    /// verdict and the counts always agree with them; renaming renames the findings too.
    #[test]
    fn i40_a_report_keeps_its_counts_and_verdict_true() {
        let mut r = FileReport::new(
            "a.mjs",
            FileKind::Schema,
            vec![finding(Code::VAL003, Severity::Warning, None)],
        );
        assert_eq!(r.verdict(), Verdict::Valid);
        r.push(finding(Code::VAL001, Severity::Error, Some(2)));
        assert_eq!((r.counts().errors, r.counts().warnings), (1, 1));
        assert_eq!(r.verdict(), Verdict::Invalid);
        assert_eq!(
            r.diagnostics()[0].code,
            Code::VAL001,
            "in order of position"
        );
        r.retain_diagnostics(|d| d.severity != Severity::Error);
        assert_eq!(r.verdict(), Verdict::Valid);
        assert_eq!(r.counts().errors, 0);
        r.set_diagnostics(vec![finding(Code::VAL001, Severity::Error, None)]);
        assert_eq!(r.verdict(), Verdict::Invalid);
        let r = r.renamed("given/a.mjs");
        assert_eq!(r.file(), "given/a.mjs");
        assert_eq!(r.diagnostics()[0].file.as_deref(), Some("given/a.mjs"));
        let all = Report::new(Profile::Spec, vec![r.clone(), r]);
        assert_eq!((all.files(), all.counts().errors), (2, 2));
        assert_eq!(all.verdict(), Verdict::Invalid);
    }

    /// Issue #40 (D114): a report's kind is written as the string it always was, and read back.
    #[test]
    fn i40_a_report_kind_is_written_as_its_name() {
        for kind in FileKind::BY_EXPORT
            .iter()
            .map(|(_, k)| ReportKind::File(*k))
            .chain([
                ReportKind::File(FileKind::Unknown),
                ReportKind::Catalog,
                ReportKind::Id,
            ])
        {
            assert_eq!(ReportKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ReportKind::parse("registry"), None);
        let r = FileReport::new("c/registry.json", ReportKind::Catalog, Vec::new());
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["kind"], "catalog");
        assert_eq!(
            serde_json::to_string(&FileReport::new("x", FileKind::Selection, Vec::new())).unwrap(),
            r#"{"file":"x","kind":"selection","verdict":"valid","errors":0,"warnings":0,"infos":0,"diagnostics":[]}"#
        );
    }

    #[test]
    fn paths_render() {
        let p = JsonPath::root("main")
            .key("tools")
            .key("/block/:id")
            .key("parameters")
            .index(0);
        assert_eq!(p.dotted(), r#"main.tools["/block/:id"].parameters[0]"#);
        assert_eq!(p.pointer(), "/main/tools/~1block~1:id/parameters/0");
        // RFC 6901: `~` before `/`, so an escape is never escaped again.
        let q = JsonPath::root("main").key("a~1/b").index(12).key("é");
        assert_eq!(q.pointer(), "/main/a~01~1b/12/é");
        assert_eq!(q.dotted(), r#"main["a~1/b"][12]["é"]"#);
    }

    #[test]
    fn collector_resolves_and_drops_off() {
        let mut s = RuleSettings::new(Profile::Compat);
        s.overrides.set(Code::VAL036, Level::Off);
        let mut c = Collector::new(&s, Some("x.mjs".into()));
        assert!(c.emit(Code::VAL036, None, "x").is_none());
        c.emit(Code::VAL030, Some(&JsonPath::root("main")), "bad name");
        let d = c.finish();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
        let json = serde_json::to_value(&d[0]).unwrap();
        assert_eq!(json["code"], "VAL030");
        assert_eq!(json["pointer"], "/main");
        assert_eq!(json["file"], "x.mjs");
        assert!(json.get("line").is_none());
    }
}

#[cfg(test)]
mod fix_tests {
    use super::*;

    fn edit(start: usize, end: usize, text: &str) -> Edit {
        Edit {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn i42_fixes_apply_whole_or_not_at_all() {
        let source = "abc def ghi";
        let first = Fix::new(
            Applicability::Safe,
            vec![edit(0, 3, "ABC"), edit(8, 11, "G")],
        );
        // Overlaps `first`'s second edit: left out entirely (its first edit too).
        let clash = Fix::new(Applicability::Safe, vec![edit(4, 7, "X"), edit(9, 10, "Y")]);
        // Shares an identical edit with `first`: applied, the shared edit once.
        let shared = Fix::new(
            Applicability::Safe,
            vec![edit(0, 3, "ABC"), edit(3, 3, "!")],
        );
        let (text, applied) = apply_fixes(source, [&first, &clash, &shared]);
        assert_eq!(text, "ABC! def G");
        assert_eq!(applied, vec![true, false, true]);
        // Out of range or inside a character: not applied, text unchanged.
        let bad = Fix::new(Applicability::Safe, vec![edit(2, 40, "")]);
        assert_eq!(apply_fixes("é", [&bad]), ("é".to_string(), vec![false]));
        let inside = Fix::new(Applicability::Safe, vec![edit(1, 1, "x")]);
        assert_eq!(apply_fixes("é", [&inside]).1, vec![false]);
    }

    #[test]
    fn i42_a_fix_is_json_only_when_present() {
        let mut d = Diagnostic {
            code: Code::VAL087,
            variant: None,
            severity: Severity::Warning,
            message: "m".into(),
            file: None,
            line: None,
            column: None,
            pointer: None,
            path: None,
            help: None,
            fix: None,
        };
        let plain = serde_json::to_string(&d).unwrap_or_default();
        assert!(!plain.contains("fix"), "{plain}");
        d.fix = Some(Fix::new(Applicability::Safe, vec![edit(1, 2, "'x'")]));
        let with = serde_json::to_string(&d).unwrap_or_default();
        assert!(
            with.ends_with(
                r#""fix":{"applicability":"safe","edits":[{"start":1,"end":2,"text":"'x'"}]}}"#
            ),
            "{with}"
        );
    }
}
