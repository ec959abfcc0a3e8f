//! Issue 42: `validate --fix`, `--unsafe-fixes`, `--diff` and `--format github`, and the fix
//! column of `rules`.

use std::path::Path;

use crate::common::flowmcp;

/// A 4.x schema in older forms: a `:id` path, a `{{KEY}}` server parameter, a camelCase tag, a
/// stale `schemaHash`, and a tool without `meta` (only an unsafe fix drafts it). The comment
/// and the formatting must survive every fix.
const OLD_FORMS: &str = "// keep this comment\nexport const main = {\n    namespace: 'demo',\n    name: 'Demo',\n    description: 'A demo',\n    version: '4.2.0',\n    root: 'https://api.example.com',\n    tags: ['cacheTtlDaily'],\n    requiredServerParams: ['DEMO_KEY'],\n    schemaHash: 'deadbeef',\n    tools: {\n        getItem: {\n            method: 'GET',\n            path: '/items/:id', // the item\n            description: 'Get one item by its ID',\n            parameters: [\n                { position: { key: 'id', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [] } },\n                { position: { key: 'key', value: '{{DEMO_KEY}}', location: 'query' }, z: { primitive: 'string()', options: [] } }\n            ],\n            tests: [\n                { _description: 'one', id: 'a' },\n                { _description: 'two', id: 'b' },\n                { _description: 'three', id: 'c' }\n            ]\n        }\n    }\n}\n";

fn setup(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-i42-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("demo.mjs"), OLD_FORMS).unwrap();
    dir
}

fn codes(dir: &Path) -> Vec<String> {
    let r = flowmcp(
        &["validate", "--no-cache", "--format", "json", "demo.mjs"],
        dir,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    v["reports"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn i42_fix_applies_safe_fixes_keeps_comments_and_is_idempotent() {
    let dir = setup("fix");
    let before = codes(&dir);
    for c in ["VAL050", "VAL085", "VAL089", "VAL087", "VAL100"] {
        assert!(before.contains(&c.to_string()), "{c} missing: {before:?}");
    }
    // The JSON report carries each fix as data.
    let json = flowmcp(
        &["validate", "--no-cache", "--format", "json", "demo.mjs"],
        &dir,
    );
    let compact: String = json.stdout.split_whitespace().collect();
    assert!(
        compact.contains("\"applicability\":\"safe\""),
        "{}",
        json.stdout
    );
    assert!(
        compact.contains("\"applicability\":\"unsafe\""),
        "{}",
        json.stdout
    );

    // --diff writes nothing and says what would change (exit code 1).
    let diff = flowmcp(&["validate", "--no-cache", "--diff", "demo.mjs"], &dir);
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(
        diff.stdout
            .contains("-            path: '/items/:id', // the item"),
        "{}",
        diff.stdout
    );
    assert!(
        diff.stdout
            .contains("+            path: '/items/{{id}}', // the item"),
        "{}",
        diff.stdout
    );
    assert!(diff.stderr.contains("would fix"), "{}", diff.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("demo.mjs")).unwrap(),
        OLD_FORMS
    );

    let fixed = flowmcp(&["validate", "--no-cache", "--fix", "demo.mjs"], &dir);
    assert!(fixed.stderr.contains("flowmcp: fixed "), "{}", fixed.stderr);
    assert!(fixed.stderr.contains("VAL050 1"), "{}", fixed.stderr);
    assert!(
        fixed.stderr.contains("have only an unsafe fix"),
        "{}",
        fixed.stderr
    );
    let text = std::fs::read_to_string(dir.join("demo.mjs")).unwrap();
    assert!(text.starts_with("// keep this comment\n"), "{text}");
    assert!(
        text.contains("path: '/items/{{id}}', // the item"),
        "{text}"
    );
    assert!(text.contains("'{{SERVER_PARAM:DEMO_KEY}}'"), "{text}");
    assert!(text.contains("'cache-ttl-daily'"), "{text}");
    assert!(!text.contains("meta:"), "safe fixes drafted meta:\n{text}");
    let after = codes(&dir);
    for c in ["VAL050", "VAL085", "VAL089", "VAL087"] {
        assert!(
            !after.contains(&c.to_string()),
            "{c} left: {after:?}\n{text}"
        );
    }
    assert!(after.contains(&"VAL100".to_string()));

    // Again: nothing changes.
    let again = flowmcp(&["validate", "--no-cache", "--fix", "demo.mjs"], &dir);
    assert!(again.stderr.contains("nothing to fix"), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("demo.mjs")).unwrap(), text);

    // The unsafe fixes draft `meta` under a REVIEW comment; the file is then valid.
    let all = flowmcp(
        &["validate", "--no-cache", "--unsafe-fixes", "demo.mjs"],
        &dir,
    );
    assert_eq!(all.code, 0, "{}\n{}", all.stdout, all.stderr);
    let text = std::fs::read_to_string(dir.join("demo.mjs")).unwrap();
    assert!(text.contains("// REVIEW: meta drafted"), "{text}");
    let last = flowmcp(
        &["validate", "--no-cache", "--unsafe-fixes", "demo.mjs"],
        &dir,
    );
    assert!(last.stderr.contains("nothing to fix"), "{}", last.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("demo.mjs")).unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i42_format_github_prints_one_annotation_per_finding() {
    let dir = setup("github");
    let json = flowmcp(
        &["validate", "--no-cache", "--format", "json", "demo.mjs"],
        &dir,
    );
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let n = v["reports"][0]["diagnostics"].as_array().unwrap().len();
    let r = flowmcp(
        &["validate", "--no-cache", "--format", "github", "demo.mjs"],
        &dir,
    );
    assert_eq!(r.code, 1);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), n, "{}", r.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::error file=demo.mjs,line=17,col=36,title=VAL050 ")),
        "{}",
        r.stdout
    );
    assert!(lines.iter().all(|l| l.starts_with("::error ")
        || l.starts_with("::warning ")
        || l.starts_with("::notice ")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i42_rules_show_fixable_codes() {
    let r = flowmcp(&["rules"], Path::new(env!("CARGO_MANIFEST_DIR")));
    let row = |code: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(code))
            .unwrap_or_default()
            .to_string()
    };
    assert!(row("VAL087").contains(" safe "), "{}", row("VAL087"));
    assert!(row("VAL100").contains(" unsafe "), "{}", row("VAL100"));
    assert!(row("VAL050").contains(" both "), "{}", row("VAL050"));
    let one = flowmcp(&["rules", "VAL087"], Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        one.stdout.contains("fix (safe): sets `schemaHash`"),
        "{}",
        one.stdout
    );
}

/// A file that starts with a byte-order mark gets the rules' own fixes (VAL087's `schemaHash`)
/// at their place in the file, and keeps its mark. Before D151 the rule's fix landed 3 bytes
/// early, and `--fix` declined it: "not fixed: its fixes would leave more errors".
#[test]
fn i46_a_rule_fix_lands_in_a_file_with_a_byte_order_mark() {
    let dir = setup("bom");
    // The old forms fixed, then only the hash made stale again.
    let first = flowmcp(&["validate", "--no-cache", "--fix", "demo.mjs"], &dir);
    assert!(first.stderr.contains("flowmcp: fixed "), "{}", first.stderr);
    let text = std::fs::read_to_string(dir.join("demo.mjs")).unwrap();
    let at = text.find("schemaHash: '").unwrap() + "schemaHash: '".len();
    let stale = format!("\u{feff}{}deadbeef{}", &text[..at], &text[at + 8..]);
    std::fs::write(dir.join("demo.mjs"), &stale).unwrap();
    assert!(codes(&dir).contains(&"VAL087".to_string()));

    let fixed = flowmcp(&["validate", "--no-cache", "--fix", "demo.mjs"], &dir);
    assert!(!fixed.stderr.contains("not fixed"), "{}", fixed.stderr);
    assert!(fixed.stderr.contains("VAL087 1"), "{}", fixed.stderr);
    let after = std::fs::read_to_string(dir.join("demo.mjs")).unwrap();
    assert_eq!(after, format!("\u{feff}{text}"));
    assert!(!codes(&dir).contains(&"VAL087".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}
