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
    let (scan_kind, hits, blanked, pre_read) = scan::scan_file_read(path, &text);
    let kind_hint = if scan_kind == ScanKind::SharedList {
        FileKind::List
    } else {
        FileKind::Unknown
    };
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
    let exports =
        match eval::evaluate_read(display, &text, Some(&blanked), pre_read, limits, timers) {
            Ok(e) => e,
            Err(failure) => {
                report_failure(&mut c, failure, limits, &text, &blanked);
                return finish(display, Some(text), kind_hint, None, c);
            }
        };

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
