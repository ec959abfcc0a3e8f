//! The JSON report (`--format json`, [`super::write_json`]) written directly: the bytes
//! `serde_json::to_writer_pretty` makes of the report's `Serialize` form (two spaces a level,
//! `": "` after a key, an empty array as `[]`, members in the order the types declare them, a
//! field that is `None` left out), without going through `serde` (D194).
//!
//! A cold `validate --format json` of a large collection writes megabytes of such lines;
//! `serde_json` escapes a string a byte at a time and hands the writer each token, while most
//! strings here need no escape at all: they are copied whole once eight bytes at a time show
//! that. `i46_the_report_is_serde_json_pretty_form` holds the output to `serde_json`'s on reports
//! with every field, empty and full, and strings that need every kind of escape, so a field added
//! to the types and not here fails it.

use std::io::{self, Write};

use flowmcp_spec::diagnostic::{Counts, Diagnostic, FileReport, Fix, Report, Verdict};

/// How many bytes are gathered before they are handed to the output.
const CHUNK: usize = 1 << 16;

/// Writes `report` as `serde_json::to_writer_pretty` would, then flushes `out`.
pub(crate) fn write_report(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut w = Json {
        buf: Vec::with_capacity(CHUNK + CHUNK / 4),
    };
    w.buf.push(b'{');
    w.key(true, 1, "profile");
    w.string(report.profile().as_str());
    w.key(false, 1, "verdict");
    w.string(verdict(report.verdict()));
    w.key(false, 1, "files");
    w.number(report.files() as u64);
    w.counts(1, report.counts());
    w.key(false, 1, "reports");
    let reports = report.reports();
    w.buf.push(b'[');
    for (i, r) in reports.iter().enumerate() {
        w.line(i == 0, 2);
        w.file_report(r);
        if w.buf.len() >= CHUNK {
            out.write_all(&w.buf)?;
            w.buf.clear();
        }
    }
    w.close(!reports.is_empty(), 1, b"]");
    w.close(true, 0, b"}");
    out.write_all(&w.buf)?;
    out.flush()
}

/// What a [`Verdict`] serializes as.
fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Valid => "valid",
        Verdict::Invalid => "invalid",
    }
}

/// The output being made.
struct Json {
    buf: Vec<u8>,
}

/// Which bytes a string escapes, and as what: `"` and `\` by a backslash, the control characters
/// with a short form by it, the others as `\u00XX` (lowercase hex digits, as `serde_json` writes).
fn escape(c: u8) -> Option<&'static [u8]> {
    const UNICODE: [&[u8]; 32] = [
        b"\\u0000", b"\\u0001", b"\\u0002", b"\\u0003", b"\\u0004", b"\\u0005", b"\\u0006",
        b"\\u0007", b"\\b", b"\\t", b"\\n", b"\\u000b", b"\\f", b"\\r", b"\\u000e", b"\\u000f",
        b"\\u0010", b"\\u0011", b"\\u0012", b"\\u0013", b"\\u0014", b"\\u0015", b"\\u0016",
        b"\\u0017", b"\\u0018", b"\\u0019", b"\\u001a", b"\\u001b", b"\\u001c", b"\\u001d",
        b"\\u001e", b"\\u001f",
    ];
    match c {
        b'"' => Some(b"\\\""),
        b'\\' => Some(b"\\\\"),
        c if c < 0x20 => UNICODE.get(usize::from(c)).copied(),
        _ => None,
    }
}

/// Whether any of the eight bytes of `x` is escaped ([`escape`]): below 0x20 (ASCII bytes only,
/// so bytes of characters beyond ASCII are not), a `"` or a `\`. Exact for the question "any?"
/// (the word tricks can mark a byte wrongly only above one that is rightly marked).
fn any_escaped(x: u64) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    // The high bit of a byte below `n` (at most 0x80), where the subtraction borrowed into it.
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    let (quote, backslash) = (ONES * u64::from(b'"'), ONES * u64::from(b'\\'));
    (below(x, 0x20) | below(x ^ quote, 1) | below(x ^ backslash, 1)) != 0
}

/// Where the first byte at or after `from` that a string escapes is, looking at eight bytes at a
/// time while none of them is.
fn next_escaped(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    let mut words = rest.chunks_exact(8);
    let mut at = from;
    for w in &mut words {
        let word = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        if any_escaped(word) {
            return w.iter().position(|&c| escape(c).is_some()).map(|p| at + p);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&c| escape(c).is_some())
        .map(|p| at + p)
}

impl Json {
    /// A line break and the indentation of `depth` levels.
    fn indent(&mut self, depth: usize) {
        /// A line break and the spaces of the deepest line a report has (eight levels).
        const LINE: &[u8; 17] = b"\n                ";
        match LINE.get(..1 + 2 * depth) {
            Some(line) => self.buf.extend_from_slice(line),
            None => {
                self.buf.push(b'\n');
                self.buf.resize(self.buf.len() + 2 * depth, b' ');
            }
        }
    }

    /// Where an item of an array starts: after a `,` unless it is the first.
    fn line(&mut self, first: bool, depth: usize) {
        if !first {
            self.buf.push(b',');
        }
        self.indent(depth);
    }

    /// A member's key (plain ASCII, no escapes) and `": "`.
    fn key(&mut self, first: bool, depth: usize, key: &str) {
        self.line(first, depth);
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\": ");
    }

    /// An array, the value of a member at `depth`: each item on a line of its own, one level
    /// deeper, written by `item`. (The files' reports are written as it does, with the output
    /// handed over between them: [`write_report`].)
    fn array<T>(&mut self, items: &[T], depth: usize, mut item: impl FnMut(&mut Json, &T)) {
        self.buf.push(b'[');
        for (i, x) in items.iter().enumerate() {
            self.line(i == 0, depth + 1);
            item(self, x);
        }
        self.close(!items.is_empty(), depth, b"]");
    }

    /// Closes an array or object: on a line of its own when it held anything.
    fn close(&mut self, had_items: bool, depth: usize, bracket: &[u8]) {
        if had_items {
            self.indent(depth);
        }
        self.buf.extend_from_slice(bracket);
    }

    fn number(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[at..]);
    }

    /// `s` as a JSON string.
    fn string(&mut self, s: &str) {
        let b = s.as_bytes();
        self.buf.reserve(b.len() + 2);
        self.buf.push(b'"');
        // `run`: the first byte not yet copied.
        let mut run = 0;
        while let Some(at) = next_escaped(b, run) {
            self.buf
                .extend_from_slice(b.get(run..at).unwrap_or_default());
            self.buf
                .extend_from_slice(escape(b[at]).unwrap_or_default());
            run = at + 1;
        }
        self.buf.extend_from_slice(b.get(run..).unwrap_or_default());
        self.buf.push(b'"');
    }

    /// The members of `Counts`, flattened into the object being written (never its first).
    fn counts(&mut self, depth: usize, c: Counts) {
        self.key(false, depth, "errors");
        self.number(c.errors as u64);
        self.key(false, depth, "warnings");
        self.number(c.warnings as u64);
        self.key(false, depth, "infos");
        self.number(c.infos as u64);
    }

    /// A [`FileReport`], as an item of `reports` (its object at depth 2).
    fn file_report(&mut self, r: &FileReport) {
        const D: usize = 3;
        self.buf.push(b'{');
        self.key(true, D, "file");
        self.string(r.file());
        self.key(false, D, "kind");
        self.string(r.kind().as_str());
        self.key(false, D, "verdict");
        self.string(verdict(r.verdict()));
        self.counts(D, r.counts());
        self.key(false, D, "diagnostics");
        let diagnostics = r.diagnostics();
        self.array(diagnostics, D, Json::diagnostic);
        self.close(true, D - 1, b"}");
    }

    /// A [`Diagnostic`], as an item of `diagnostics` (its object at depth 4).
    fn diagnostic(&mut self, d: &Diagnostic) {
        const D: usize = 5;
        self.buf.push(b'{');
        self.key(true, D, "code");
        self.string(d.code.as_str());
        if let Some(variant) = d.variant {
            self.key(false, D, "variant");
            self.string(variant);
        }
        self.key(false, D, "severity");
        self.string(d.severity.as_str());
        self.key(false, D, "message");
        self.string(&d.message);
        if let Some(file) = &d.file {
            self.key(false, D, "file");
            self.string(file);
        }
        if let Some(line) = d.line {
            self.key(false, D, "line");
            self.number(u64::from(line));
        }
        if let Some(column) = d.column {
            self.key(false, D, "column");
            self.number(u64::from(column));
        }
        if let Some(pointer) = &d.pointer {
            self.key(false, D, "pointer");
            self.string(&pointer.pointer());
        }
        if let Some(path) = &d.path {
            self.key(false, D, "path");
            self.string(path);
        }
        if let Some(help) = &d.help {
            self.key(false, D, "help");
            self.string(help);
        }
        if let Some(fix) = &d.fix {
            self.key(false, D, "fix");
            self.fix(fix);
        }
        self.close(true, D - 1, b"}");
    }

    /// A [`Fix`], as the value of a diagnostic's `fix` (its object at depth 5).
    fn fix(&mut self, fix: &Fix) {
        const D: usize = 6;
        self.buf.push(b'{');
        self.key(true, D, "applicability");
        self.string(fix.applicability.as_str());
        self.key(false, D, "edits");
        self.array(&fix.edits, D, |w, e| {
            w.buf.push(b'{');
            w.key(true, D + 2, "start");
            w.number(e.start as u64);
            w.key(false, D + 2, "end");
            w.number(e.end as u64);
            w.key(false, D + 2, "text");
            w.string(&e.text);
            w.close(true, D + 1, b"}");
        });
        self.close(true, D - 1, b"}");
    }
}

#[cfg(test)]
mod tests {
    use flowmcp_spec::catalog::FileKind;
    use flowmcp_spec::diagnostic::{Applicability, Edit, JsonPath};
    use flowmcp_spec::{Code, Profile, Severity};

    use super::*;

    fn written(report: &Report) -> String {
        let mut out = Vec::new();
        write_report(report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Strings that need every kind of escape, none, or only characters beyond ASCII, at every
    /// offset from a word's start, and long enough to take several words.
    fn awkward(i: usize) -> String {
        let pieces = [
            "",
            "plain",
            "\"quoted\"",
            "back\\slash",
            "tab\there",
            "new\nline",
            "\r\u{8}\u{c}",
            "\u{1}\u{1f}\u{7f}",
            "é ü 漢 🦀",
            "</script>",
            "{{USER_PARAM}}",
        ];
        let mut s = "x".repeat(i % 9);
        for k in 0..=(i % 5) {
            s.push_str(pieces[(i + k * 3) % pieces.len()]);
            s.push_str(&"y".repeat((i * 7 + k) % 13));
        }
        s
    }

    fn diagnostic(i: usize) -> Diagnostic {
        let mut d = Diagnostic {
            code: [Code::VAL089, Code::TST008, Code::LDR003][i % 3],
            variant: (i % 4 == 1).then_some("a-variant"),
            severity: [Severity::Error, Severity::Warning, Severity::Info][i % 3],
            message: awkward(i),
            file: (!i.is_multiple_of(5)).then(|| format!("dir/{}", awkward(i + 1))),
            line: (i % 3 != 2).then_some(i as u32 * 37),
            column: (i % 4 != 3).then_some(i as u32),
            pointer: i.is_multiple_of(2).then(|| {
                JsonPath::root("main")
                    .key("tools")
                    .key(&awkward(i + 2))
                    .index(i)
                    .key("a/b~c")
            }),
            path: i.is_multiple_of(3).then(|| awkward(i + 3)),
            help: i.is_multiple_of(4).then(|| awkward(i + 4)),
            fix: None,
        };
        if i % 3 == 1 {
            let edits = (0..(i % 4))
                .map(|k| Edit {
                    start: k * 10 + i,
                    end: k * 10 + i + k,
                    text: awkward(i + k),
                })
                .collect();
            let applicability = [Applicability::Safe, Applicability::Unsafe][i % 2];
            d.fix = Some(Fix::new(applicability, edits));
        }
        d
    }

    /// D194: the report written directly is, byte for byte, what `serde_json` makes of its
    /// `Serialize` form: no reports, reports without diagnostics, diagnostics with every optional
    /// field present and absent, fixes with no edits and several, and strings needing escapes.
    #[test]
    fn i46_the_report_is_serde_json_pretty_form() {
        let kinds = [
            flowmcp_spec::diagnostic::ReportKind::File(FileKind::Schema),
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            flowmcp_spec::diagnostic::ReportKind::File(FileKind::Unknown),
        ];
        for n in [0usize, 1, 2, 7, 60] {
            let reports: Vec<FileReport> = (0..n)
                .map(|r| {
                    let diagnostics = (0..(r * 3) % 11).map(|k| diagnostic(r * 11 + k)).collect();
                    FileReport::new(awkward(r), kinds[r % kinds.len()], diagnostics)
                })
                .collect();
            for profile in [Profile::Spec, Profile::Compat] {
                let report = Report::new(profile, reports.clone());
                assert_eq!(
                    written(&report),
                    serde_json::to_string_pretty(&report).unwrap(),
                    "{n} reports"
                );
            }
        }
    }

    /// The word test finds a byte to escape exactly when one of the eight is.
    #[test]
    fn i46_eight_bytes_at_once_find_what_one_at_a_time_finds() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..200_000 {
            let mut word = crate::test_rng::step(&mut seed).to_le_bytes();
            // Bias towards the bytes around the edges of the escaped sets.
            if round % 2 == 0 {
                let edge = [0x1f, 0x20, 0x21, b'"', b'\\', 0x7f, 0x80, 0x00, 0xdc, 0xa2];
                word[(seed >> 3) as usize % 8] = edge[(seed >> 9) as usize % edge.len()];
            }
            let want = word.iter().any(|&c| escape(c).is_some());
            assert_eq!(any_escaped(u64::from_le_bytes(word)), want, "{word:?}");
        }
    }
}
