//! Loading one file end to end: read (LDR001/LDR002), scan (SEC0xx/SEC2xx), evaluate (LDR003–LDR007),
//! extract (SEC017, LDR008).
//!
//! Invariant: [`load_file`] never fails and never panics; whatever goes wrong is a diagnostic.

use std::path::Path;

use flowmcp_spec::{Code, Diagnostic, JsonPath, RuleSettings, Severity, diagnostic::Collector};

use crate::eval::{self, DATA_EXPORTS, EvalFailure, Exports, Limits};
use crate::scan::{self, ScanKind};
use crate::unserializable::PathItem;
use flowmcp_files::named::ReadCappedError;

/// What the file is; the vocabulary's type ([`flowmcp_spec::catalog::FileKind`]), named here too.
pub use flowmcp_spec::catalog::FileKind;

/// The result of loading a file.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    /// The name used in diagnostics (usually the path as the user gave it).
    pub display: String,
    /// The source text, when it could be read as UTF-8 within the size cap.
    pub source: Option<String>,
    /// The source with comment and string contents blanked, at the source's byte offsets
    /// (`scan::blank_aligned`), when it was scanned.
    pub blanked: Option<String>,
    pub kind: FileKind,
    /// The exports, when evaluation succeeded.
    pub exports: Option<Exports>,
    /// LDR, SEC scan and SEC017 diagnostics, with severities of the active settings.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the text read started with a byte-order mark, which `source` and `blanked` leave
    /// out: a byte offset into `source` is [`LoadedFile::mark_len`] bytes earlier than the same
    /// place in the text read.
    pub bom: bool,
    /// Where in `source` the literal `export const main =` declares is, and what reading it told,
    /// while the `main` export is exactly that literal's value (read without the engine, and out of reach
    /// of the module's code) and the exports are as loading made them. A validation that changes
    /// the exports (a `handlers` factory run again with the shared lists, a v3 agent read as an
    /// agent) sets it to `None`. [`reload_edited`] needs it.
    pub main_literal: Option<crate::literal::MainLiteral>,
}

impl LoadedFile {
    /// How many bytes the text read has before `source` starts: 3 after a byte-order mark, else 0.
    pub fn mark_len(&self) -> usize {
        if self.bom { BOM.len_utf8() } else { 0 }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Reads and loads `path`. `display` is the name diagnostics carry.
///
/// LDR001: The file is not valid UTF-8 (the first bad byte is reported with its line, column and
/// offset), or it cannot be read at all (permissions, a directory named like a file).
///
/// # Why
///
/// Schemas are JavaScript source, which is text. Guessing an encoding would shift every position
/// and could hide patterns from the static scan.
///
/// LDR002: The file is larger than the configured cap (`--max-file-size`, 4 MiB by default); it is
/// not read any further.
///
/// # Why
///
/// Real schemas are a few kilobytes. The cap bounds memory and scan time for hostile or accidental
/// inputs such as a bundled dependency or a data dump.
pub fn load_file(
    path: &Path,
    display: &str,
    limits: &Limits,
    settings: &RuleSettings,
) -> LoadedFile {
    load_file_under(None, path, display, limits, settings)
}

/// [`load_file`] of a file a walk found under `anchor` (the directory the user named): read
/// through the anchor's directory handle ([`flowmcp_files::read_found`]), so a file or folder
/// swapped for a link that leads out since the walk is not read. `None` reads `path` as the
/// user named it.
pub fn load_file_under(
    anchor: Option<&Path>,
    path: &Path,
    display: &str,
    limits: &Limits,
    settings: &RuleSettings,
) -> LoadedFile {
    let mut c = Collector::new(settings, Some(display.to_string()));
    let bytes = match flowmcp_files::read_found(anchor, path, limits.max_file_bytes) {
        Ok(b) => b,
        Err(ReadCappedError::TooLarge(size)) => return too_large(display, size, limits, c),
        Err(ReadCappedError::Io(e)) => {
            // An unreadable file is reported as LDR001 (it cannot be read as UTF-8 text).
            c.emit(Code::LDR001, None, format!("File cannot be read: {e}"));
            return finish(display, None, FileKind::Unknown, None, c);
        }
    };
    load_bytes(path, display, bytes, limits, c)
}

/// [`load_file`] of `bytes` the caller has already read from `path` (e.g. to hash exactly what is
/// validated): the same checks, in the same order, with the same findings.
pub fn load_file_bytes(
    path: &Path,
    display: &str,
    bytes: Vec<u8>,
    limits: &Limits,
    settings: &RuleSettings,
) -> LoadedFile {
    let c = Collector::new(settings, Some(display.to_string()));
    if bytes.len() as u64 > limits.max_file_bytes {
        return too_large(display, bytes.len() as u64, limits, c);
    }
    load_bytes(path, display, bytes, limits, c)
}

/// LDR002: the file is larger than the limit; nothing of it is read further.
fn too_large(display: &str, size: u64, limits: &Limits, mut c: Collector<'_>) -> LoadedFile {
    c.emit(
        Code::LDR002,
        None,
        format!(
            "File is {size} bytes; the limit is {} bytes",
            limits.max_file_bytes
        ),
    );
    finish(display, None, FileKind::Unknown, None, c)
}

/// Loads in-memory `source` as if it were the file at `path`.
pub fn load_source(
    path: &Path,
    display: &str,
    source: &str,
    limits: &Limits,
    settings: &RuleSettings,
) -> LoadedFile {
    let c = Collector::new(settings, Some(display.to_string()));
    if source.len() as u64 > limits.max_file_bytes {
        return too_large(display, source.len() as u64, limits, c);
    }
    load_text(path, display, source.to_string(), limits, c)
}

fn load_bytes(
    path: &Path,
    display: &str,
    bytes: Vec<u8>,
    limits: &Limits,
    mut c: Collector<'_>,
) -> LoadedFile {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let (line, column) = line_col(&String::from_utf8_lossy(&bytes[..valid]));
            if let Some(d) = c.emit(
                Code::LDR001,
                None,
                format!(
                    "File is not valid UTF-8: invalid byte 0x{:02X} at offset {valid}",
                    bytes[valid]
                ),
            ) {
                d.line = Some(line);
                d.column = Some(column);
            }
            return finish(display, None, FileKind::Unknown, None, c);
        }
    };
    load_text(path, display, text, limits, c)
}

/// Scans, evaluates and extracts one file's text.
///
/// LDR008: The file is empty, or exports none of `main`, `list`, `skill`, `prompt`, `agent`,
/// `selection` and `content` (for example only a default export).
///
/// # Why
///
/// The exports decide what kind of FlowMCP file this is; a file with none of them is not one (often
/// a helper module, or `export default` by mistake).
///
/// SEC017: A value in an export that does not survive a JSON round trip: a function, `undefined`,
/// an array hole, a symbol, a BigInt, NaN or Infinity, a non-plain object such as a `Date` or a
/// `Map`, a cycle, or a getter that throws. Each is reported at its JSON path.
///
/// # Why
///
/// `main` is data: it is hashed, shipped in catalogs and sent to MCP clients as JSON.
/// `JSON.stringify` would silently drop or change such values, so the runtime would work with
/// something other than what the author wrote.
fn load_text(
    path: &Path,
    display: &str,
    mut text: String,
    limits: &Limits,
    c: Collector<'_>,
) -> LoadedFile {
    let bom = take_mark(&mut text);
    let mut loaded = load_unmarked(path, display, text, limits, c);
    loaded.bom = bom;
    loaded
}

/// The byte-order mark a text may start with; the loader reads the text after it.
const BOM: char = '\u{feff}';

/// Takes the byte-order mark off the start of `text`, as the loader reads a file's text (what
/// [`LoadedFile::source`] holds); whether there was one ([`LoadedFile::bom`]).
pub fn take_mark(text: &mut String) -> bool {
    let bom = text.starts_with(BOM);
    if bom {
        text.drain(..BOM.len_utf8());
    }
    bom
}

/// [`load_text`] of a text without a byte-order mark.
fn load_unmarked(
    path: &Path,
    display: &str,
    text: String,
    limits: &Limits,
    mut c: Collector<'_>,
) -> LoadedFile {
    let scan::ReadScan {
        kind: scan_kind,
        hits,
        blanked,
        pre_read,
        free,
    } = scan::scan_file_read(path, &text);
    let kind_hint = if scan_kind == ScanKind::SharedList {
        FileKind::List
    } else {
        FileKind::Unknown
    };
    emit_hits(&mut c, hits);
    if text.trim().is_empty() {
        c.emit(
            Code::LDR008,
            None,
            "File is empty: expected an export such as `export const main = { … }`",
        );
        return finish(display, Some(text), kind_hint, None, c);
    }
    // As the reference does, a file that fails the static scan is not evaluated at all.
    if c.has_errors() {
        return finish(display, Some(text), kind_hint, None, c);
    }

    // Under compat the module has the timer globals the handler host gives it (issue #31 item 5).
    let timers = c.settings().profile.is_compat();
    let (exports, mut main_literal) =
        match eval::evaluate_read(display, &text, Some(&blanked), pre_read, limits, timers) {
            Ok(e) => e,
            Err(failure) => {
                report_failure(&mut c, failure, limits, &text, &blanked);
                return finish(display, Some(text), kind_hint, None, c);
            }
        };
    if let Some(m) = main_literal.as_mut() {
        m.scan_free = free;
    }
    finish_loaded(
        display,
        text,
        blanked,
        kind_hint,
        (exports, main_literal),
        c,
    )
}

/// `first` loaded again as its text with `edits` applied (byte ranges of `first.source`, sorted
/// by position, not overlapping), named as `first` and as if found at `path`, with the limits and
/// the profile `first` was loaded with (`settings` may turn other codes off): exactly what
/// [`load_source`] gives for the edited text, without scanning it and reading its `main` again.
/// The edited file borrows `first`'s exports, with its `main` edited in place, until
/// [`Reloaded::give_back`] returns them as they were.
///
/// Every edit must be inside `first`'s literal `main` ([`LoadedFile::main_literal`]). Only the
/// values of the literal that hold the edits are read again, in place of the old ones in the
/// `main` export (the literal reader's walk tells which); the blanking is the old one with those
/// values blanked anew, and the static scan runs on it again (only near those values when the
/// first load's scan had nothing to look at, [`crate::literal::MainLiteral::scan_free`]). The
/// module is not evaluated again: its code is the same, and when it runs at all (it is more than
/// the declaration) the edits may not add or remove a line break, nor touch the literal's last
/// line, so that the engine would be given exactly the text it was given before.
///
/// `None`, with `first` untouched, when that cannot be told without loading the edited text
/// whole: `first` has no literal `main` (or not as loaded), started with a byte-order mark, or did
/// not load; an edit is outside the literal, not on character boundaries, or its values no longer
/// read as pure data; the
/// edited text is too large, names the engine's `main` global, is a shared list, or has a scan
/// finding that is an error.
pub fn reload_edited(
    first: &mut LoadedFile,
    path: &Path,
    edits: &[&flowmcp_spec::diagnostic::Edit],
    limits: &Limits,
    settings: &RuleSettings,
) -> Option<Reloaded> {
    let source = first.source.as_deref()?;
    let blanked = first.blanked.as_deref()?;
    let main = first.main_literal.as_ref()?;
    let (literal, keys_once, scan_free) = (main.range.clone(), main.keys_once, main.scan_free);
    let on_chars = |e: &&flowmcp_spec::diagnostic::Edit| {
        source.is_char_boundary(e.start) && source.is_char_boundary(e.end)
    };
    if first.bom || first.exports.as_ref()?.get("main").is_none() || !edits.iter().all(on_chars) {
        return None;
    }
    let ranges: Vec<std::ops::Range<usize>> = edits.iter().map(|e| e.start..e.end).collect();
    let held = crate::literal::edited_values(source, blanked, literal.clone(), &ranges, keys_once)?;
    if !crate::evaluated::only_declares_main(blanked, &literal) {
        let breaks = ['\n', '\r', '\u{2028}', '\u{2029}'];
        let last_line = literal.start + source.get(literal.clone())?.rfind(breaks).unwrap_or(0);
        let moves_lines = |e: &&flowmcp_spec::diagnostic::Edit| {
            e.end > last_line || e.text.contains(breaks) || source[e.start..e.end].contains(breaks)
        };
        if edits.iter().any(moves_lines) {
            return None;
        }
    }
    // The edited text, and how far the edits before each one move the text after them.
    let text = flowmcp_spec::diagnostic::apply_edits(source, edits);
    let mut shift: Vec<isize> = Vec::with_capacity(edits.len() + 1);
    let mut delta = 0isize;
    shift.push(0);
    for e in edits {
        delta += e.text.len() as isize - (e.end - e.start) as isize;
        shift.push(delta);
    }
    if text.len() as u64 > limits.max_file_bytes || names_main_global_near(&text, edits, &shift) {
        return None;
    }
    // The old blanking between the held values, each held value read and blanked anew: the
    // pieces in order, each where the edits before it moved it.
    let mut values = Vec::with_capacity(held.len());
    // Where the values read anew are in the edited text: all its blanking that is not the old.
    let mut pieces = Vec::with_capacity(held.len());
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut old_at = 0;
    for h in held {
        let before = *shift.get(h.edits.start)?;
        out.extend_from_slice(blanked.as_bytes().get(old_at..h.span.start)?);
        let start = h.span.start.checked_add_signed(before)?;
        let end = h.span.end.checked_add_signed(*shift.get(h.edits.end)?)?;
        if out.len() != start {
            return None;
        }
        let crate::literal::BlankRead { read, blanks, .. } =
            crate::literal::read_value_blanks(&text, start, h.enclosing);
        let (value, read_end) = read.ok()?;
        if read_end != end {
            return None;
        }
        out.extend_from_slice(text.as_bytes().get(start..end)?);
        scan::blank_ranges(&mut out, &blanks);
        pieces.push(start..end);
        values.push((h.path, value));
        old_at = h.span.end;
    }
    out.extend_from_slice(blanked.as_bytes().get(old_at..)?);
    if out.len() != text.len() {
        return None;
    }
    let edited = scan_free.then_some(pieces.as_slice());
    let (hits, new_blanked, scan_free) =
        scan::scan_module_blanked(path, &text, String::from_utf8(out).ok()?, edited)?;
    let mut c = Collector::new(settings, Some(first.display.clone()));
    emit_hits(&mut c, hits);
    if c.has_errors() {
        return None;
    }
    let end = literal.end.checked_add_signed(delta)?;
    // `first`'s exports move to the edited file, the values the edits hold swapped in (they do
    // not nest, so each path stays valid).
    let mut exports = first.exports.take()?;
    let handlers = exports.handlers.clone();
    let mut undo: Vec<(Vec<crate::literal::Step>, serde_json::Value)> =
        Vec::with_capacity(values.len());
    let main = exports.data.get_mut("main")?;
    for (path, value) in values {
        let Some(slot) = value_at(main, &path) else {
            // Not reached: each path was walked in the literal `main` was read from. Put back
            // what was swapped.
            for (path, old) in undo.into_iter().rev() {
                if let Some(slot) = value_at(main, &path) {
                    *slot = old;
                }
            }
            first.exports = Some(exports);
            return None;
        };
        undo.push((path, std::mem::replace(slot, value)));
    }
    let file = finish_loaded(
        &first.display,
        text,
        new_blanked,
        FileKind::Unknown,
        (
            exports,
            // Whether the edited values write a key twice, and where they start, is not asked.
            Some(crate::literal::MainLiteral {
                range: literal.start..end,
                keys_once: false,
                index: None,
                scan_free,
            }),
        ),
        c,
    );
    Some(Reloaded {
        file,
        undo,
        handlers,
    })
}

/// Whether the text `text`, made by `edits` of a text with a literal `main` (which therefore
/// does not name [`crate::evaluated::MAIN_GLOBAL`], see [`crate::engine::FastMain`]), names it:
/// only where a name could cross or lie in an edited piece, `shift` telling how far the edits
/// before each one moved it.
fn names_main_global_near(
    text: &str,
    edits: &[&flowmcp_spec::diagnostic::Edit],
    shift: &[isize],
) -> bool {
    let reach = crate::evaluated::MAIN_GLOBAL.len() - 1;
    edits.iter().zip(shift).any(|(e, &before)| {
        let Some(start) = e.start.checked_add_signed(before) else {
            return true;
        };
        let from = start.saturating_sub(reach);
        let to = start
            .saturating_add(e.text.len())
            .saturating_add(reach)
            .min(text.len());
        text.as_bytes()
            .get(from..to)
            .is_none_or(crate::evaluated::names_main_global)
    })
}

/// A file [`reload_edited`] made of another's exports, which it holds until
/// [`Reloaded::give_back`].
#[derive(Debug)]
pub struct Reloaded {
    file: LoadedFile,
    /// The values of the other file's `main` that the edited ones took the place of.
    undo: Vec<(Vec<crate::literal::Step>, serde_json::Value)>,
    handlers: crate::evaluated::HandlersExport,
}

impl Reloaded {
    /// The file loaded from the edited text, to validate.
    pub fn file(&mut self) -> &mut LoadedFile {
        &mut self.file
    }

    /// Each value of `main` the edits replaced, one per value read again: the member of `main`
    /// it is in, by name (`None` for an edit that replaced `main` as a whole; a member may come
    /// more than once), the value as it was, and the value as it is now. What a rule read of
    /// `main` changed only where these differ.
    pub fn replaced(
        &self,
    ) -> impl Iterator<Item = (Option<&str>, &serde_json::Value, Option<&serde_json::Value>)> + '_
    {
        let main = self.file.exports.as_ref().and_then(|e| e.get("main"));
        self.undo.iter().map(move |(path, old)| {
            let member = match path.first() {
                Some(crate::literal::Step::Key(member)) => Some(member.as_str()),
                _ => None,
            };
            (member, old, main.and_then(|m| value_in(m, path)))
        })
    }

    /// Gives `first` (the file it was made from) its exports back as they were: its `main` with
    /// its own values again and its `handlers` export as loaded (a validation may have run the
    /// factory again). Should what was done with the edited file have changed its `main` other
    /// than that (validation does not), `first` is left without exports and without
    /// [`LoadedFile::main_literal`].
    pub fn give_back(self, first: &mut LoadedFile) {
        let Some(mut exports) = self.file.exports else {
            first.main_literal = None;
            return;
        };
        exports.handlers = self.handlers;
        let Some(main) = exports.data.get_mut("main") else {
            first.main_literal = None;
            return;
        };
        for (path, value) in self.undo.into_iter().rev() {
            match value_at(main, &path) {
                Some(slot) => *slot = value,
                None => {
                    first.main_literal = None;
                    return;
                }
            }
        }
        first.exports = Some(exports);
    }
}

/// The value at `path` in `value`.
fn value_at<'v>(
    mut value: &'v mut serde_json::Value,
    path: &[crate::literal::Step],
) -> Option<&'v mut serde_json::Value> {
    for step in path {
        value = match step {
            crate::literal::Step::Key(k) => value.as_object_mut()?.get_mut(k)?,
            crate::literal::Step::Index(i) => value.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(value)
}

/// The value at `path` in `value`, read only.
fn value_in<'v>(
    mut value: &'v serde_json::Value,
    path: &[crate::literal::Step],
) -> Option<&'v serde_json::Value> {
    for step in path {
        value = match step {
            crate::literal::Step::Key(k) => value.as_object()?.get(k)?,
            crate::literal::Step::Index(i) => value.as_array()?.get(*i)?,
        };
    }
    Some(value)
}

/// Reports the static scan's `hits` as the loader does.
fn emit_hits(c: &mut Collector<'_>, hits: Vec<scan::ScanHit>) {
    for hit in hits {
        let message = format!(
            "Forbidden pattern \"{}\" found at line {}",
            hit.pattern, hit.line
        );
        if let Some(d) = c.emit(hit.code, None, message) {
            d.line = Some(hit.line);
            d.column = Some(hit.column);
        }
    }
}

/// The file loaded from `text` (blanked as `blanked`) whose evaluation gave `exports` (and the
/// range of the literal its `main` is, [`LoadedFile::main_literal`]): its kind (`kind_hint` when
/// the exports do not tell), and what the exports show (LDR008, SEC017).
fn finish_loaded(
    display: &str,
    text: String,
    blanked: String,
    kind_hint: FileKind,
    (exports, main_literal): (Exports, Option<crate::literal::MainLiteral>),
    mut c: Collector<'_>,
) -> LoadedFile {
    let kind = match FileKind::from_exports(|name| exports.has(name)) {
        FileKind::Unknown => kind_hint,
        k => k,
    };
    if !DATA_EXPORTS.iter().any(|n| exports.has(n)) {
        let found = exports.describe_names();
        c.emit(
            Code::LDR008,
            None,
            format!(
                "No recognised export (found {found}); expected a named export `main`, `list`, `skill`, `prompt`, `agent`, `selection` or `content`"
            ),
        );
    }
    for u in &exports.unserializable {
        let mut p = JsonPath::root(&u.export);
        for seg in &u.path {
            p = match seg {
                PathItem::Key(k) => p.key(k),
                PathItem::Index(i) => p.index(*i),
            };
        }
        let what = u.describe();
        c.emit(
            Code::SEC017,
            Some(&p),
            format!("Non-serializable value ({what})"),
        );
    }
    let mut loaded = finish(display, Some(text), kind, Some(exports), c);
    loaded.blanked = Some(blanked);
    loaded.main_literal = main_literal;
    loaded
}

/// What a build without the JavaScript engine leaves unchecked in a module it cannot read as data
/// (LDR009's message).
const SKIPPED_WITHOUT_ENGINE: &str = "the engine's LDR003–LDR007 and SEC017, and the validator's \
     rules on the exports";

/// Nesting deeper than this makes QuickJS's parser give up with a misleading syntax error (an
/// object literal nested ~300 levels reports "invalid property name").
const PARSER_NESTING: usize = 256;

/// The deepest nesting of `{ [ (` in blanked source text.
fn max_nesting(blanked: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in blanked.bytes() {
        match b {
            b'{' | b'[' | b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The 1-based line and column of the first NUL character.
fn nul_position(text: &str) -> Option<crate::eval::Position> {
    let at = text.find('\0')?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some(crate::eval::Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    })
}

/// Reports a failed evaluation with its code, message and (when known) position.
///
/// LDR003: The file does not parse as a JavaScript module; the message carries the parser's error
/// and its position. A NUL character, which the JavaScript engine cannot read, is reported here
/// too, at its position.
///
/// # Why
///
/// A file that does not parse cannot be loaded by any runtime. Reporting it as a finding keeps the
/// rest of a catalog run going.
///
/// LDR004: Evaluating the module threw: a `ReferenceError`, a `throw` at the top level, a failing
/// computation. The position is given when known.
///
/// # Why
///
/// A module that throws exports nothing usable; the message shows what went wrong where.
///
/// LDR005: Evaluating the module, extracting its exports and calling the `handlers` factory did not
/// finish within the time limit (1000 ms by default, `--timeout-ms`).
///
/// # Why
///
/// Schemas are declarative and evaluate in well under a millisecond. An endless loop must not hang
/// validation or a server start.
///
/// LDR006: Evaluation exceeded the sandbox's memory limit (64 MiB by default, `--memory-mib`) or
/// its JavaScript stack limit, for example through runaway allocation or unbounded recursion. Code
/// nested more deeply than the parser can read (256 levels of brackets or more) is reported here
/// too, with its depth.
///
/// # Why
///
/// Limits keep one hostile or broken file from exhausting the machine; a runtime that hit a limit
/// is discarded.
///
/// LDR007: A top-level `await` whose promise never settles, so the module never finishes
/// evaluating.
///
/// # Why
///
/// Such a module has no exports yet when there is nothing left to run; reporting it promptly beats
/// waiting for the time limit.
///
/// LDR009: The module was not evaluated because this build of the loader has no JavaScript engine
/// (a program that depends on `flowmcp-loader` or `flowmcp-validate` with the `quickjs` feature
/// turned off). Such a build reads only modules that are nothing but `export const NAME = …` data
/// declarations; a module with `handlers`, other code or imports gets this error, after the static
/// security scan, and none of the checks on its exports. The `flowmcp` command always has the
/// engine, so it never reports this code.
///
/// # Why
///
/// A file that was not checked must not pass as checked: the error says which checks were
/// skipped, and that a build with the engine checks the file in full.
fn report_failure(
    c: &mut Collector<'_>,
    failure: EvalFailure,
    limits: &Limits,
    text: &str,
    blanked: &str,
) {
    // Deep nesting ends in the parser's own nesting limit (a syntax error) or in the stack limit,
    // whichever the native stack meets first; either way the nesting is the cause to name.
    let too_deep = |message: &str, syntax: bool| {
        (syntax || message.contains("stack")) && max_nesting(blanked) >= PARSER_NESTING
    };
    let (code, message, at) = match failure {
        EvalFailure::Syntax { message, .. } | EvalFailure::Memory { message }
            if too_deep(&message, matches!(failure, EvalFailure::Syntax { .. })) =>
        {
            (
                Code::LDR006,
                format!(
                    "Evaluation passed its stack limit: the code is nested {} levels deep, more than \
                 the JavaScript parser can read (it reported: {message})",
                    max_nesting(blanked)
                ),
                None,
            )
        }
        EvalFailure::Syntax { message, at } => {
            (Code::LDR003, format!("Syntax error: {message}"), at)
        }
        EvalFailure::Threw { message, .. } if message.contains("null bytes") => (
            Code::LDR003,
            "The file contains a NUL character, which the JavaScript engine cannot read (in a \
             string, write it as \\0 or \\u0000)"
                .to_string(),
            nul_position(text),
        ),
        EvalFailure::Threw { message, at } => (
            Code::LDR004,
            format!("Module threw while evaluating: {message}"),
            at,
        ),
        EvalFailure::Timeout => (
            Code::LDR005,
            format!(
                "Evaluation did not finish within {} ms",
                limits.eval_timeout.as_millis()
            ),
            None,
        ),
        EvalFailure::Memory { message } => (
            Code::LDR006,
            format!(
                "Evaluation passed its memory ({} MiB) or stack ({} KiB) limit: {message}",
                limits.memory_bytes >> 20,
                limits.stack_bytes >> 10
            ),
            None,
        ),
        EvalFailure::NeverSettles => (
            Code::LDR007,
            "Top-level await never settles (nothing left to run)".to_string(),
            None,
        ),
        EvalFailure::NoEngine => (
            Code::LDR009,
            format!(
                "Not evaluated: the module is more than `export const` data declarations and this \
                 build has no JavaScript engine (flowmcp-loader's `quickjs` feature is off); only \
                 the static security scan ran, every check of the file's exports was skipped \
                 ({})",
                SKIPPED_WITHOUT_ENGINE
            ),
            None,
        ),
    };
    if let Some(d) = c.emit(code, None, message)
        && let Some(at) = at
    {
        d.line = Some(at.line);
        d.column = Some(at.column);
    }
}

fn finish(
    display: &str,
    source: Option<String>,
    kind: FileKind,
    exports: Option<Exports>,
    c: Collector<'_>,
) -> LoadedFile {
    LoadedFile {
        display: display.to_string(),
        source,
        blanked: None,
        kind,
        exports,
        diagnostics: c.finish(),
        bom: false,
        main_literal: None,
    }
}

/// 1-based line and column of the end of `prefix`.
fn line_col(prefix: &str) -> (u32, u32) {
    let line = prefix.matches('\n').count() as u32 + 1;
    let column = prefix
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0) as u32
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_texts::XorShift;
    use flowmcp_spec::diagnostic::Edit;
    use std::ops::Range;

    /// Every field of two loaded files, compared.
    fn assert_same(a: &LoadedFile, b: &LoadedFile, what: &str) {
        assert_eq!(a.display, b.display, "{what}");
        assert_eq!(a.source, b.source, "{what}");
        assert_eq!(a.blanked, b.blanked, "{what}");
        assert_eq!(a.kind, b.kind, "{what}");
        assert_eq!(a.exports, b.exports, "{what}");
        assert_eq!(a.diagnostics, b.diagnostics, "{what}");
        assert_eq!(a.bom, b.bom, "{what}");
        // Where the literal is, and whether the scan had nothing to look at; what reading it
        // told is not asked of a reloaded file.
        let range = |f: &LoadedFile| f.main_literal.as_ref().map(|m| m.range.clone());
        assert_eq!(range(a), range(b), "{what}");
        let free = |f: &LoadedFile| f.main_literal.as_ref().map(|m| m.scan_free);
        assert_eq!(free(a), free(b), "{what}");
    }

    const DATA: &str = "export const main = {\n    namespace: 'demo',\n    tags: [ 'a', \"b\", `c` ],\n    n: -1.5e3, m: + /* s */ 0x1F,\n    o: { a: 1, 'a': 2, 7: [ true, null ], \"x y\": 'é\\u00e9\\\n' }, // c\n    deep: [ [ [ { k: 'v', timeout: 1 } ] ] ],\n    t: { get: { path: '/x/{{USER_PARAM}}', tests: [ { _description: 'd', q: '10' } ] } }\n};\n";

    /// Snippets an edit puts in: values, keys, broken syntax, comments, line breaks, names the
    /// scan reports, the engine's own global, non-ASCII text.
    const SNIPPETS: &[&str] = &[
        "",
        "1",
        "-2.5",
        "'s'",
        "\"q\\\"\"",
        "`t`",
        "`${x}`",
        "{}",
        "[ 1, [ 2 ] ]",
        "{ a: [ { b: 'c' } ] }",
        ", z: 2",
        "z: 3, ",
        "// c\n",
        "/* c */",
        "\n",
        "\u{2028}",
        "setTimeout",
        "x: setTimeout,",
        "process.exit",
        "__proto__: 1,",
        "__flowmcp_main__",
        "}",
        "[",
        "'",
        "\u{a0}",
        "é",
        "undefined",
        "'{{SERVER_PARAM:KEY}}'",
        "'line\\\nbreak'",
        "k: 'v'",
    ];

    /// Values an edit puts in place of a string.
    const STRINGS: &[&str] = &[
        "'x'",
        "\"y\"",
        "'é'",
        "'{{USER_PARAM}}'",
        "'a\\'b'",
        "`t`",
        "'10'",
        "10",
        "[ 'a-b', 'c' ]",
        "'process.env'",
        // Data whose keys are names the scan reports: a reload scans them.
        "{ eval: 1 }",
        "[ { node: [ 2 ], fs: 3 } ]",
    ];

    /// Up to three random edits of `text` (sorted, not overlapping) near or inside `literal`:
    /// whole string values replaced, ranges replaced by snippets, text put inside strings.
    fn random_edits(rng: &mut XorShift, text: &str, literal: &Range<usize>) -> Vec<Edit> {
        let b = text.as_bytes();
        let mut edits: Vec<Edit> = Vec::new();
        for _ in 0..1 + rng.next() % 3 {
            let span = literal.len().max(1) + 4;
            let mut start = (literal.start + (rng.next() as usize) % span).saturating_sub(2);
            start = start.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let edit = match rng.next() % 4 {
                // A string from its opening quote to its closing one.
                0 | 1 => {
                    let Some(q) = b[start..].iter().position(|c| matches!(c, b'\'' | b'"')) else {
                        continue;
                    };
                    let open = start + q;
                    let Some(len) = b[open + 1..].iter().position(|c| *c == b[open]) else {
                        continue;
                    };
                    let value = if rng.next().is_multiple_of(3) {
                        rng.pick(SNIPPETS)
                    } else {
                        rng.pick(STRINGS)
                    };
                    Edit {
                        start: open,
                        end: open + len + 2,
                        text: value.to_string(),
                    }
                }
                2 => {
                    let mut end = (start + (rng.next() as usize) % 9).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    Edit {
                        start,
                        end,
                        text: rng.pick(SNIPPETS).to_string(),
                    }
                }
                _ => Edit {
                    start,
                    end: start,
                    text: rng.pick(&["x", "é", "{{A}}", "\\n", "\\'"]).to_string(),
                },
            };
            edits.push(edit);
        }
        edits.sort_by_key(|e| (e.start, e.end));
        let mut kept: Vec<Edit> = Vec::new();
        for e in edits {
            if kept.last().is_none_or(|l| l.end < e.start) {
                kept.push(e);
            }
        }
        kept
    }

    /// A file loaded again after edits of its literal `main` ([`reload_edited`]) is exactly the
    /// file loaded from the edited text, whenever it is given at all: random edits of the example
    /// catalog's files and of modules with and without code, under both profiles. It declines
    /// edits outside the literal, text that no longer reads as data, a module whose code reaches
    /// `main`, and in a module with code, edits that move lines.
    #[test]
    fn i46_a_file_reloaded_after_edits_is_the_file_loaded_from_the_edited_text() {
        let handlers = "export const handlers = ( { sharedLists } ) => ({\n    get: { postRequest: async ( { response } ) => ( { response } ) }\n})\n";
        let mut texts: Vec<(String, String)> = vec![
            ("data.mjs".into(), DATA.to_string()),
            ("code.mjs".into(), format!("{DATA}{handlers}")),
            // No key written twice: the walk stops reading members once past the edits.
            ("once-data.mjs".into(), DATA.replace("'a': 2", "'b': 2")),
            (
                "once-code.mjs".into(),
                format!("{}{handlers}", DATA.replace("'a': 2", "'b': 2")),
            ),
            (
                "reaches.mjs".into(),
                format!(
                    "{DATA}export const handlers = () => ({{ [Object.keys(main)[0]]: {{}} }})\n"
                ),
            ),
            (
                "one-line.mjs".into(),
                "export const main = { a: 'x', b: [ 1, 2 ] }; export const handlers = () => ({})\n"
                    .into(),
            ),
            ("_lists/l.mjs".into(), DATA.replace("main", "list")),
            // Scanned whole on every reload: the module names `fs`.
            (
                "named.mjs".into(),
                format!("{DATA}export const handlers = () => ({{ fs: {{}} }})\n"),
            ),
            // Handler names that tell the line the module's code runs on.
            (
                "lines.mjs".into(),
                format!(
                    "{DATA}export const handlers = () => ({{ [new Error().stack]: {{ postRequest: async ( {{ response }} ) => ( {{ response }} ) }} }})\n"
                ),
            ),
        ];
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog");
        for path in flowmcp_files::walk::mjs_files(&examples, &|_| false).unwrap() {
            let name = path.strip_prefix(&examples).unwrap_or(&path);
            let text = std::fs::read_to_string(&path).unwrap();
            texts.push((name.display().to_string(), text));
        }
        assert!(texts.len() > 12, "{} texts", texts.len());
        let limits = Limits::default();
        let mut rng = XorShift(0x5eed_46d1);
        let (mut reloaded, mut declined) = (0, 0);
        for profile in [flowmcp_spec::Profile::Compat, flowmcp_spec::Profile::Spec] {
            let settings = RuleSettings::new(profile);
            for (name, text) in &texts {
                let path = Path::new(name);
                let mut first = load_source(path, name, text, &limits, &settings);
                let loaded = first.clone();
                let Some(main) = first.main_literal.clone() else {
                    assert!(
                        !name.contains("data") && !name.contains("code"),
                        "{name}: main not read"
                    );
                    continue;
                };
                assert!(!name.contains("reaches"), "{name}: main is reachable");
                // DATA writes `a` twice in one object; the other texts write each key once.
                assert_eq!(main.keys_once, !text.contains("'a': 2"), "{name}");
                if name.ends_with("code.mjs") || name.ends_with("named.mjs") {
                    assert_eq!(main.scan_free, name.ends_with("code.mjs"), "{name}");
                }
                let literal = main.range;
                for _ in 0..150 {
                    let edits = random_edits(&mut rng, text, &literal);
                    let refs: Vec<&Edit> = edits.iter().collect();
                    let edited = flowmcp_spec::diagnostic::apply_edits(text, &refs);
                    let what = format!("{name}: {edits:?}");
                    match reload_edited(&mut first, path, &refs, &limits, &settings) {
                        Some(mut again) => {
                            let full = load_source(path, name, &edited, &limits, &settings);
                            assert_same(again.file(), &full, &what);
                            again.give_back(&mut first);
                            reloaded += 1;
                        }
                        None => declined += 1,
                    }
                    // Given back as it was, or untouched.
                    assert_same(&first, &loaded, &what);
                }
            }
        }
        assert!(
            reloaded > 400 && declined > 400,
            "{reloaded} reloaded, {declined} declined"
        );

        // Chosen edits: of a key's first value when the key is written twice (the object is read
        // again, and keeps the last value), at the deepest nesting the reader takes (one level
        // more is the engine's to read), and one that adds a line in a module with code.
        let deep = format!(
            "export const main = {{ d: {}1{} }}\n",
            "[".repeat(crate::literal::MAX_NESTING - 1),
            "]".repeat(crate::literal::MAX_NESTING - 1)
        );
        let lines = &texts.iter().find(|(n, _)| n == "lines.mjs").unwrap().1;
        let first_a = DATA.find("a: 1").unwrap() + 3;
        let deepest = deep.find('1').unwrap();
        let demo = lines.find("'demo'").unwrap();
        let code = format!("{DATA}export const handlers = () => ({{}})\n");
        let e_acute = code.find('é').unwrap();
        // The engine's global, whole only once an edit joins its halves: by writing the part
        // before it, or by taking out what kept the halves apart.
        let half = "export const main = { a: 'flowmcp_main__', b: 'x' }\n";
        let half_at = half.find("flowmcp").unwrap();
        let apart =
            "export const main = { a: '__flowmcXYp_main__' }; export const handlers = () => ({})\n";
        let apart_at = apart.find("XY").unwrap();
        let cases: [(&str, &str, Range<usize>, &str, bool); 8] = [
            ("twice.mjs", DATA, first_a..first_a + 1, "5", true),
            (
                "inside-a-character.mjs",
                &code,
                e_acute + 1..e_acute + 1,
                "x",
                false,
            ),
            ("deep.mjs", &deep, deepest..deepest + 1, "2", true),
            ("deeper.mjs", &deep, deepest..deepest + 1, "[ 1 ]", false),
            ("lines.mjs", lines, demo..demo + 6, "'demo'\n", false),
            ("half.mjs", half, half_at..half_at, "__", false),
            ("half-kept.mjs", half, half_at..half_at, "_", true),
            ("apart.mjs", apart, apart_at..apart_at + 2, "", false),
        ];
        let settings = RuleSettings::new(flowmcp_spec::Profile::Spec);
        for (name, text, range, new, given) in cases {
            let path = Path::new(name);
            let mut first = load_source(path, name, text, &limits, &settings);
            let edit = Edit {
                start: range.start,
                end: range.end,
                text: new.to_string(),
            };
            let again = reload_edited(&mut first, path, &[&edit], &limits, &settings);
            assert_eq!(again.is_some(), given, "{name}");
            let edited = flowmcp_spec::diagnostic::apply_edits(text, &[&edit]);
            let full = load_source(path, name, &edited, &limits, &settings);
            if let Some(mut again) = again {
                assert_same(again.file(), &full, name);
            }
            if name == "deeper.mjs" {
                assert!(
                    full.main_literal.is_none(),
                    "the reader takes no deeper literal"
                );
            }
        }
    }
}
