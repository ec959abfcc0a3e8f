#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The markdown engine: full text, sections, line ranges, search, arguments and file reading.

use flowmcp_resources::markdown::{Access, DEFAULT_MAX_BYTES, Document, MarkdownError};
use serde_json::{Map, Value, json};

const GUIDE: &str = "\
# Guide

Intro text.

## Install

Run the installer.

### From source

```sh
# not a heading: a shell comment
make install
```

## Usage

Call `tool`.

~~~~
## also not a heading
```
still inside the tilde fence
~~~~

## Last

The end.
";

fn lines_of(doc: &Document, range: &str) -> String {
    doc.lines(range).unwrap().text.to_owned()
}

// ---------------------------------------------------------------- full text

#[test]
fn full_text_is_the_document_with_its_line_count() {
    let doc = Document::new(GUIDE);
    assert_eq!(doc.text(), GUIDE);
    assert_eq!(doc.line_count(), 28);
    assert_eq!(
        doc.access(&Access::Full).unwrap(),
        json!({ "text": GUIDE, "lines": 28 })
    );
}

#[test]
fn line_counting_ignores_a_final_line_ending_only() {
    assert_eq!(Document::new("").line_count(), 0);
    assert_eq!(Document::new("a").line_count(), 1);
    assert_eq!(Document::new("a\n").line_count(), 1);
    assert_eq!(Document::new("a\n\n").line_count(), 2);
    assert_eq!(Document::new("\n").line_count(), 1);
}

// ---------------------------------------------------------------- headings and sections

#[test]
fn headings_skip_fenced_code_blocks() {
    let doc = Document::new(GUIDE);
    let found: Vec<(u8, &str, usize)> = doc
        .headings()
        .iter()
        .map(|h| (h.level, h.text.as_str(), h.line))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "Guide", 1),
            (2, "Install", 5),
            (3, "From source", 9),
            (2, "Usage", 16),
            (2, "Last", 26),
        ]
    );
}

#[test]
fn section_runs_to_the_next_heading_of_the_same_or_higher_level() {
    let doc = Document::new(GUIDE);
    let install = doc.section("## Install").unwrap();
    assert_eq!((install.from, install.to), (5, 14));
    assert_eq!(
        install.text,
        "## Install\n\nRun the installer.\n\n### From source\n\n```sh\n\
         # not a heading: a shell comment\nmake install\n```"
    );
    // The nested section stops at the next level-2 heading, without trailing blank lines.
    let source = doc.section("### From source").unwrap();
    assert_eq!((source.from, source.to), (9, 14));
    // The top heading contains everything.
    let guide = doc.section("# Guide").unwrap();
    assert_eq!((guide.from, guide.to), (1, 28));
}

#[test]
fn section_with_a_fence_holding_heading_lines_ends_at_the_real_next_heading() {
    let doc = Document::new(GUIDE);
    let usage = doc.section("Usage").unwrap();
    assert_eq!((usage.from, usage.to), (16, 24));
    assert!(usage.text.contains("## also not a heading"));
    assert!(usage.text.ends_with("~~~~"));
}

#[test]
fn last_section_runs_to_the_end_of_the_document() {
    let doc = Document::new(GUIDE);
    let last = doc.section("## Last").unwrap();
    assert_eq!((last.from, last.to), (26, 28));
    assert_eq!(last.text, "## Last\n\nThe end.");
    assert_eq!(
        last.to_value(),
        json!({ "heading": "Last", "level": 2, "from": 26, "to": 28, "text": "## Last\n\nThe end." })
    );
}

#[test]
fn section_query_forms_and_matching_rules() {
    let doc = Document::new("# A\n\n## Install ##\n\nx\n\n### install\n\ny\n\n##   Two   words\n");
    // With marks: that level only; closing marks and extra spaces are ignored.
    assert_eq!(doc.section("## Install").unwrap().from, 3);
    assert_eq!(doc.section("  ##Install ##  ").unwrap().from, 3);
    // Exact case wins over a case-insensitive match at another position.
    assert_eq!(doc.section("install").unwrap().from, 7);
    assert_eq!(doc.section("Install").unwrap().from, 3);
    // Case-insensitive only when nothing matches exactly; the first match wins.
    assert_eq!(doc.section("INSTALL").unwrap().from, 3);
    assert_eq!(doc.section("### INSTALL").unwrap().from, 7);
    assert_eq!(doc.section("two words").unwrap().from, 11);
    assert_eq!(
        doc.section("## Two words").unwrap().heading.text,
        "Two words"
    );
}

#[test]
fn first_of_several_equal_headings_wins() {
    let doc = Document::new("## Notes\n\nfirst\n\n## Notes\n\nsecond\n");
    let s = doc.section("Notes").unwrap();
    assert_eq!((s.from, s.to, s.text), (1, 3, "## Notes\n\nfirst"));
}

#[test]
fn missing_section_lists_headings_and_similar_ones() {
    let doc = Document::new(GUIDE);
    let err = doc.section("## From source").unwrap_err();
    assert_eq!(err.code().as_str(), "MD004");
    assert!(err.is_request_error());
    let msg = err.to_string();
    assert!(msg.contains("no section `## From source`"), "{msg}");
    assert!(msg.contains("did you mean `### From source`?"), "{msg}");
    assert!(msg.contains("`# Guide`, `## Install`"), "{msg}");

    let err = doc.section("Nowhere").unwrap_err();
    let MarkdownError::SectionNotFound {
        similar,
        available,
        total,
        ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert!(similar.is_empty());
    assert_eq!(available.len(), 5);
    assert_eq!(*total, 5);

    let many: String = (1..=14).map(|i| format!("## H{i}\n")).collect();
    let msg = Document::new(many).section("H99").unwrap_err().to_string();
    assert!(msg.contains("`## H10` and 4 more"), "{msg}");
    assert!(!msg.contains("H11"), "{msg}");

    let msg = Document::new("plain text\n")
        .section("x")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("the document has no headings"), "{msg}");
}

#[test]
fn empty_section_name_is_an_argument_error() {
    let doc = Document::new(GUIDE);
    assert_eq!(doc.section("   ").unwrap_err().code().as_str(), "MD007");
}

#[test]
fn setext_headings_are_sections_too() {
    let doc = Document::new(
        "Title\n=====\n\nText.\n\nPart one\ncontinues\n---\n\nBody.\n\nPart two\n--\n\nMore.\n",
    );
    let found: Vec<(u8, &str, usize)> = doc
        .headings()
        .iter()
        .map(|h| (h.level, h.text.as_str(), h.line))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, "Title", 1),
            (2, "Part one continues", 6),
            (2, "Part two", 12)
        ]
    );
    let one = doc.section("## Part one continues").unwrap();
    assert_eq!(one.text, "Part one\ncontinues\n---\n\nBody.");
    assert_eq!(doc.section("# Title").unwrap().to, 15);
}

#[test]
fn things_that_look_like_headings_but_are_not() {
    let doc = Document::new(
        "---\ntitle: front matter\n---\n\
         #NoSpace\n\
         ####### seven\n\
         \x20   # indented code\n\
         \n\
         ---\n\
         \n\
         - item\n\
         ---\n\
         > quote\n\
         ---\n\
         <!--\n\
         # commented out\n\
         -->\n\
         ```js\n\
         # in code\n\
         ``\n\
         ```\n\
         \x20  # Three spaces\n\
         #\n",
    );
    let found: Vec<(u8, &str, usize)> = doc
        .headings()
        .iter()
        .map(|h| (h.level, h.text.as_str(), h.line))
        .collect();
    assert_eq!(found, vec![(1, "Three spaces", 21), (1, "", 22)]);
}

#[test]
fn unclosed_fence_hides_headings_to_the_end_and_short_fences_do_not_close() {
    let doc = Document::new("# A\n````\n```\n# B\n````\n# C\n~~~\n# D\n");
    let names: Vec<&str> = doc.headings().iter().map(|h| h.text.as_str()).collect();
    assert_eq!(names, vec!["A", "C"]);
    assert_eq!(doc.section("# C").unwrap().text, "# C\n~~~\n# D");
}

// ---------------------------------------------------------------- lines

#[test]
fn lines_ranges_are_one_based_and_inclusive() {
    let doc = Document::new("one\ntwo\nthree\nfour\n");
    assert_eq!(lines_of(&doc, "1-1"), "one");
    assert_eq!(lines_of(&doc, "2-3"), "two\nthree");
    assert_eq!(lines_of(&doc, "4-4"), "four");
    assert_eq!(lines_of(&doc, "1-4"), "one\ntwo\nthree\nfour");
    assert_eq!(lines_of(&doc, "3"), "three");
    assert_eq!(lines_of(&doc, "3-"), "three\nfour");
    assert_eq!(lines_of(&doc, " 2 - 3 "), "two\nthree");
    assert_eq!(
        doc.access(&Access::Lines("2-3".into())).unwrap(),
        json!({ "from": 2, "to": 3, "text": "two\nthree" })
    );
}

#[test]
fn lines_beyond_the_end_are_out_of_range() {
    let doc = Document::new("one\ntwo\nthree\nfour\n");
    for range in [
        "4-5",
        "5",
        "5-",
        "99999999999999999999999-99999999999999999999999",
    ] {
        let err = doc.lines(range).unwrap_err();
        assert_eq!(err.code().as_str(), "MD006", "{range}: {err}");
        assert!(
            err.to_string().contains("the document has 4 lines"),
            "{err}"
        );
    }
    let err = Document::new("").lines("1").unwrap_err();
    assert_eq!(err.code().as_str(), "MD006");
    assert!(err.to_string().contains("has 0 lines"), "{err}");
    assert!(
        Document::new("x")
            .lines("2")
            .unwrap_err()
            .to_string()
            .ends_with("has 1 line")
    );
}

#[test]
fn malformed_or_reversed_lines_are_invalid() {
    let doc = Document::new("one\ntwo\nthree\nfour\n");
    for range in [
        "", "-", "-3", "0", "0-2", "3-2", "a-b", "1-2-3", "1,2", "+1", "1.5", "²",
    ] {
        let err = doc.lines(range).unwrap_err();
        assert_eq!(err.code().as_str(), "MD005", "{range:?}: {err}");
    }
    assert!(
        doc.lines("3-2")
            .unwrap_err()
            .to_string()
            .contains("after the last")
    );
    assert!(
        doc.lines("0")
            .unwrap_err()
            .to_string()
            .contains("start at 1")
    );
}

// ---------------------------------------------------------------- search

#[test]
fn search_gives_context_and_merges_overlapping_and_adjacent_ranges() {
    let text: String =
        (1..=30).map(|i| format!("line {i}\n")).collect::<String>() + "needle at 31\n";
    let text = text
        .replace("line 3\n", "needle 3\n")
        .replace("line 5\n", "needle 5\n")
        .replace("line 12\n", "needle 12\n")
        .replace("line 20\n", "needle 20\n");
    let doc = Document::new(text);
    let found = doc.search("needle").unwrap();
    assert_eq!(found.matches, 5);
    let spans: Vec<(usize, usize, Vec<usize>)> = found
        .ranges
        .iter()
        .map(|r| (r.from, r.to, r.hits.clone()))
        .collect();
    // 3 and 5 overlap (1-7); 12 (10-14) neither overlaps nor touches 1-7; 20 (18-22);
    // 31 is the last line (29-31).
    assert_eq!(
        spans,
        vec![
            (1, 7, vec![3, 5]),
            (10, 14, vec![12]),
            (18, 22, vec![20]),
            (29, 31, vec![31]),
        ]
    );
    assert_eq!(
        found.ranges[1].text,
        "line 10\nline 11\nneedle 12\nline 13\nline 14"
    );

    // Adjacent ranges (one ends on line 7, the next starts on 8) are merged.
    let text: String = (1..=20)
        .map(|i| {
            if i == 5 || i == 10 {
                format!("hit {i}\n")
            } else {
                format!("l{i}\n")
            }
        })
        .collect();
    let doc = Document::new(text);
    let found = doc.search("HIT").unwrap();
    assert_eq!(found.ranges.len(), 1);
    assert_eq!((found.ranges[0].from, found.ranges[0].to), (3, 12));
    assert_eq!(found.ranges[0].hits, vec![5, 10]);
}

#[test]
fn search_counts_every_occurrence_and_lists_a_line_once() {
    let doc = Document::new("a\nfoo FOO foo\nb\n");
    let found = doc.search("foo").unwrap();
    assert_eq!(found.matches, 3);
    assert_eq!(found.ranges.len(), 1);
    assert_eq!(found.ranges[0].hits, vec![2]);
    assert_eq!((found.ranges[0].from, found.ranges[0].to), (1, 3));
    // Occurrences do not overlap.
    assert_eq!(Document::new("aaaa\n").search("aa").unwrap().matches, 2);
}

#[test]
fn search_ignores_case_beyond_ascii() {
    let doc = Document::new("# Übersicht\n\nÄRGER mit Ämtern\nkein treffer\nΟΔΟΣ και οδος\n");
    let found = doc.search("ärger").unwrap();
    assert_eq!(found.matches, 1);
    assert_eq!(found.ranges[0].hits, vec![3]);
    assert_eq!(doc.search("äMTERN").unwrap().ranges[0].hits, vec![3]);
    assert_eq!(doc.search("übersicht").unwrap().ranges[0].hits, vec![1]);
    // Final sigma and capital sigma find each other.
    assert_eq!(doc.search("οδοσ").unwrap().matches, 2);
    assert_eq!(doc.search("ΟΔΟ").unwrap().matches, 2);
    // Foldings that change the number of characters are not applied.
    assert_eq!(
        Document::new("Straße\n").search("STRASSE").unwrap().matches,
        0
    );
    // The hit is reported on the right line even when folding changes byte lengths before it
    // (`İ` is two bytes, its lowercase three).
    let doc = Document::new("İİİİ\nx\ny\nz\nw\nTARGET\n");
    let found = doc.search("target").unwrap();
    assert_eq!(found.ranges[0].hits, vec![6]);
    assert_eq!(found.ranges[0].text, "z\nw\nTARGET");
}

#[test]
fn search_without_a_match_is_empty_not_an_error() {
    let doc = Document::new(GUIDE);
    let found = doc.search("zebra").unwrap();
    assert_eq!(found.matches, 0);
    assert!(found.ranges.is_empty());
    assert_eq!(found.to_value(), json!({ "matches": 0, "ranges": [] }));
    assert_eq!(Document::new("").search("x").unwrap().matches, 0);
}

#[test]
fn search_value_shape() {
    let doc = Document::new(GUIDE);
    assert_eq!(
        doc.access(&Access::Search("the END".into())).unwrap(),
        json!({
            "matches": 1,
            "ranges": [{ "from": 26, "to": 28, "hits": [28], "text": "## Last\n\nThe end." }]
        })
    );
}

#[test]
fn empty_or_multiline_query_is_an_error() {
    let doc = Document::new(GUIDE);
    for q in ["", "   ", "\t", "a\nb", "a\rb"] {
        assert_eq!(doc.search(q).unwrap_err().code().as_str(), "MD007", "{q:?}");
    }
    // Spaces are part of the query.
    assert_eq!(doc.search(" end.").unwrap().matches, 1);
    assert_eq!(doc.search("end. ").unwrap().matches, 0);
}

// ---------------------------------------------------------------- CRLF

#[test]
fn crlf_documents_read_like_lf_ones() {
    let crlf = GUIDE.replace('\n', "\r\n");
    let doc = Document::new(crlf);
    assert_eq!(doc.text(), GUIDE);
    assert_eq!(doc.line_count(), 28);
    assert_eq!(doc.headings().len(), 5);
    let last = doc.section("## Last").unwrap();
    assert_eq!(last.text, "## Last\n\nThe end.");
    assert_eq!(lines_of(&doc, "5-7"), "## Install\n\nRun the installer.");
    let found = doc.search("installer").unwrap();
    assert_eq!(
        found.ranges[0].text,
        "## Install\n\nRun the installer.\n\n### From source"
    );
    // A lone carriage return is not a line break.
    assert_eq!(Document::new("a\rb\n").line_count(), 1);
}

#[test]
fn byte_order_mark_is_dropped() {
    let doc = Document::new("\u{feff}# Title\n\nx\n");
    assert_eq!(doc.headings()[0].text, "Title");
    assert_eq!(doc.text(), "# Title\n\nx\n");
}

// ---------------------------------------------------------------- arguments

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn arguments_choose_one_access_form() {
    assert_eq!(Access::from_arguments(&Map::new()).unwrap(), Access::Full);
    assert_eq!(
        Access::from_arguments(&args(json!({ "section": "## A", "lines": null }))).unwrap(),
        Access::Section("## A".into())
    );
    assert_eq!(
        Access::from_arguments(&args(json!({ "lines": "2-3" }))).unwrap(),
        Access::Lines("2-3".into())
    );
    assert_eq!(
        Access::from_arguments(&args(json!({ "lines": 7 }))).unwrap(),
        Access::Lines("7".into())
    );
    assert_eq!(
        Access::from_arguments(&args(json!({ "search": "x" }))).unwrap(),
        Access::Search("x".into())
    );
}

#[test]
fn bad_arguments_are_coded_errors() {
    for (v, needle) in [
        (json!({ "section": "a", "search": "b" }), "at most one"),
        (json!({ "query": "b" }), "unknown argument"),
        (json!({ "query": 1 }), "unknown argument"),
        (json!({ "section": 3 }), "must be a string"),
        (json!({ "lines": -2 }), "must be a string"),
        (json!({ "search": ["x"] }), "must be a string"),
    ] {
        let err = Access::from_arguments(&args(v.clone())).unwrap_err();
        assert_eq!(err.code().as_str(), "MD007", "{v}");
        assert!(err.to_string().contains(needle), "{v}: {err}");
    }
}

// ---------------------------------------------------------------- reading files

#[test]
fn read_enforces_the_size_cap() {
    let dir = std::env::temp_dir().join(format!("flowmcp-md-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("doc.md");
    std::fs::write(&path, "# T\r\n\r\nbody\r\n").unwrap();

    let doc = Document::read(&path, DEFAULT_MAX_BYTES).unwrap();
    assert_eq!(doc.text(), "# T\n\nbody\n");
    // Exactly at the cap is fine; one byte less is not.
    assert!(Document::read(&path, 13).is_ok());
    let err = Document::read(&path, 12).unwrap_err();
    assert_eq!(err.code().as_str(), "MD001");
    assert!(!err.is_request_error());
    assert!(
        matches!(
            err,
            MarkdownError::TooLarge {
                size: 13,
                max: 12,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("larger than the limit of 12 bytes"),
        "{err}"
    );

    let err = Document::read(dir.join("missing.md"), DEFAULT_MAX_BYTES).unwrap_err();
    assert_eq!(err.code().as_str(), "MD002");
    assert!(
        matches!(&err, MarkdownError::Read { kind, .. } if *kind == std::io::ErrorKind::NotFound)
    );
    assert_eq!(
        Document::read(&dir, DEFAULT_MAX_BYTES)
            .unwrap_err()
            .code()
            .as_str(),
        "MD002"
    );

    let bad = dir.join("bad.md");
    std::fs::write(&bad, b"ok\n\xff\xfe").unwrap();
    let err = Document::read(&bad, DEFAULT_MAX_BYTES).unwrap_err();
    assert_eq!(err.code().as_str(), "MD003");
    assert!(
        matches!(err, MarkdownError::NotUtf8 { offset: 3, .. }),
        "{err:?}"
    );

    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(DEFAULT_MAX_BYTES, 10 * 1024 * 1024);
}

#[test]
fn documents_are_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Document>();
    let doc = std::sync::Arc::new(Document::new(GUIDE));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let doc = doc.clone();
            std::thread::spawn(move || doc.search("install").unwrap().matches)
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 3);
    }
}

#[test]
fn a_search_that_matches_everywhere_returns_at_most_the_range_cap() {
    // 500 matching lines, each far enough from the next that no ranges merge.
    let text: String = (0..500)
        .map(|i| format!("needle {i}\n\n\n\n\n\n"))
        .collect();
    let doc = Document::new(text);
    let found = doc.search("needle").unwrap();
    assert_eq!(found.matches, 500);
    assert_eq!(
        found.ranges.len(),
        flowmcp_resources::markdown::MAX_SEARCH_RANGES
    );
    assert!(found.truncated);
    assert_eq!(found.to_value()["truncated"], serde_json::json!(true));
    let few = doc.search("needle 7\n").err();
    assert!(few.is_some());
    let one = doc.search("needle 499").unwrap();
    assert!(!one.truncated);
    assert!(one.to_value().get("truncated").is_none());
}
