//! Fuzzes the loader's static security scan (`flowmcp_loader::scan`) on arbitrary UTF-8 text.
//!
//! Beyond "never panics" (the module promises linear time and no panic on any input), it checks what
//! the documentation of `blank`, `scan` and `scan_file*` promises:
//!
//! * `blank(s)` replaces characters by spaces one for one: it has as many *characters* as `s`, every
//!   character is either kept or became `' '`, and `\n`/`\r` are always kept. (Byte lengths differ
//!   when a blanked character is not ASCII: it becomes a one-byte space.)
//! * every hit is sorted by (line, column), lies inside the text (1-based line counted by `\n`,
//!   1-based column in characters) and starts at a character the blanker left visible (a pattern is
//!   never reported inside a string or comment);
//! * hits carry the codes of their kind: SEC001–SEC016 for modules, SEC200–SEC204 for shared lists,
//!   and `rule()` maps SEC204 back to a module rule;
//! * `scan_file_blanked` agrees with `blank`, `scan` and `is_shared_list`.
#![no_main]

use std::path::Path;

use flowmcp_loader::scan::{
    ScanHit, ScanKind, blank, is_shared_list, scan, scan_file, scan_file_blanked,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let blanked = blank(text);
    check_blanked(text, &blanked);

    // Per-line character vectors of the original and the blanked text, to check hit positions.
    let lines: Vec<Vec<char>> = text.split('\n').map(|l| l.chars().collect()).collect();
    let blank_lines: Vec<Vec<char>> = blanked.split('\n').map(|l| l.chars().collect()).collect();

    for kind in [ScanKind::Module, ScanKind::SharedList] {
        let hits = scan(text, kind);
        check_hits(&hits, kind, &lines, &blank_lines);

        // Under `_lists/` the kind is always SharedList; the result must equal a direct scan.
        if kind == ScanKind::SharedList {
            let (k, h, b) = scan_file_blanked(Path::new("x/_lists/l.mjs"), text);
            assert_eq!(k, ScanKind::SharedList);
            assert_eq!(h, hits);
            assert_eq!(b, blanked);
        }
    }

    // Outside `_lists/` the kind is decided from the text; it must match `is_shared_list`, and the
    // hits must be those of a direct scan with that kind.
    let path = Path::new("x/schema.mjs");
    let (kind, hits, b) = scan_file_blanked(path, text);
    assert_eq!(b, blanked);
    assert_eq!(kind == ScanKind::SharedList, is_shared_list(path, text));
    assert_eq!(hits, scan(text, kind));
    assert_eq!(scan_file(path, text), (kind, hits));
});

/// `blank` keeps the text aligned character for character.
fn check_blanked(text: &str, blanked: &str) {
    let mut original = text.chars();
    let mut out = blanked.chars();
    loop {
        match (original.next(), out.next()) {
            (None, None) => break,
            (Some(o), Some(b)) => {
                if o == '\n' || o == '\r' {
                    assert_eq!(b, o, "a line break was blanked");
                } else {
                    assert!(
                        b == o || b == ' ',
                        "{o:?} became {b:?}, not itself or a space"
                    );
                }
            }
            (o, b) => panic!("blank changed the character count (next: {o:?} vs {b:?})"),
        }
    }
}

fn check_hits(hits: &[ScanHit], kind: ScanKind, lines: &[Vec<char>], blank_lines: &[Vec<char>]) {
    for pair in hits.windows(2) {
        assert!(
            (pair[0].line, pair[0].column) <= (pair[1].line, pair[1].column),
            "hits not sorted: {pair:?}"
        );
    }
    for hit in hits {
        let code = hit.code.as_str();
        let number: u32 = code
            .strip_prefix("SEC")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected code {code}"));
        match kind {
            ScanKind::Module => assert!((1..=16).contains(&number), "{hit:?} in a module"),
            ScanKind::SharedList => assert!((200..=204).contains(&number), "{hit:?} in a list"),
        }
        let rule = hit.rule().as_str();
        if number == 204 {
            assert!(
                rule != "SEC204",
                "SEC204 hit {hit:?} maps to no module rule"
            );
        } else {
            assert_eq!(rule, code);
        }

        // The position is inside the text, on a character that is code (not blanked, not space).
        assert!(hit.line >= 1 && hit.column >= 1, "{hit:?}");
        let line = (hit.line - 1) as usize;
        let col = (hit.column - 1) as usize;
        let original = lines.get(line).and_then(|l| l.get(col));
        let shown = blank_lines.get(line).and_then(|l| l.get(col));
        let (Some(&o), Some(&b)) = (original, shown) else {
            panic!("{hit:?} points outside the text");
        };
        assert_eq!(o, b, "{hit:?} points into blanked text");
        assert!(!o.is_whitespace(), "{hit:?} points at whitespace");
    }
}
