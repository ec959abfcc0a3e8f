//! `cargo xtask docs [--check]`: the rule reference in `docs/rules/`.
//!
//! One page per registry code (`docs/rules/<CODE>.md`) and an index (`docs/rules/README.md`), built from
//! the registry in `flowmcp-spec`, the prose in [`crate::rationale`] and the rule fixtures in
//! `crates/flowmcp-validate/tests/fixtures/<CODE>/`: the first `fail*.mjs` and the first `pass*.mjs`
//! (sorted by name) become the examples, with their `// expect:`, `// profile:` and `// max-file-size:`
//! directive lines removed, and the failing example is validated (QuickJS) and its human output shown.
//!
//! Output is deterministic. Files are written atomically (temporary file + rename) and only when their
//! content changes; `.md` files in `docs/rules/` that no code produces any more are removed. With
//! `--check` nothing is written: the command fails and names every file that would change.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use flowmcp_spec::{Level, Origin, Profile, RULES, RuleInfo, Status};
use flowmcp_validate::render::{self, HumanStyle};
use flowmcp_validate::{Options, validate_path, validate_source};

use crate::rationale;

/// Where the pages go, relative to the workspace root.
pub const OUT_DIR: &str = "docs/rules";
/// Where the rule fixtures live, relative to the workspace root.
pub const FIXTURES_DIR: &str = "crates/flowmcp-validate/tests/fixtures";
/// The name diagnostics of the examples carry.
const EXAMPLE_NAME: &str = "example.mjs";
/// What `--check` and the test say when the pages are out of date.
const STALE: &str = "docs/rules is stale: run `cargo xtask docs`";

/// Runs `cargo xtask docs [--check]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            other => {
                return Err(format!(
                    "docs: unexpected argument {other:?} (usage: cargo xtask docs [--check])"
                ));
            }
        }
    }
    let root = crate::workspace_root();
    let out = root.join(OUT_DIR);
    let pages = generate(&root.join(FIXTURES_DIR));
    let changes = changes(&out, &pages)?;

    if check {
        if changes.is_empty() {
            println!("{OUT_DIR} is up to date ({} files)", pages.len());
            return Ok(());
        }
        return Err(format!("{STALE}\n{}", describe(&changes)));
    }

    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for change in &changes {
        let path = out.join(&change.name);
        match change.kind {
            ChangeKind::Added | ChangeKind::Changed => {
                let content = pages.get(&change.name).map(String::as_str).unwrap_or("");
                write_atomic(&path, content)?;
            }
            ChangeKind::Removed => std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?,
        }
    }
    if changes.is_empty() {
        println!("{OUT_DIR} is up to date ({} files)", pages.len());
    } else {
        println!(
            "{OUT_DIR}: {} of {} files updated\n{}",
            changes.len(),
            pages.len(),
            describe(&changes)
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Comparing with the disk.
// ---------------------------------------------------------------------------------------------

/// How a file in `docs/rules/` differs from what would be generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Not on disk yet.
    Added,
    /// On disk with other content.
    Changed,
    /// On disk, but no code produces it any more.
    Removed,
}

/// One file that would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub name: String,
    pub kind: ChangeKind,
}

fn describe(changes: &[Change]) -> String {
    let mut out = String::new();
    for c in changes {
        let what = match c.kind {
            ChangeKind::Added => "missing",
            ChangeKind::Changed => "outdated",
            ChangeKind::Removed => "obsolete",
        };
        let _ = writeln!(out, "  {what}: {OUT_DIR}/{}", c.name);
    }
    out.trim_end().to_string()
}

/// The files of `dir` that differ from `pages` (file name → content), sorted by name. A missing
/// directory means every page is missing.
pub fn changes(dir: &Path, pages: &BTreeMap<String, String>) -> Result<Vec<Change>, String> {
    let mut out = Vec::new();
    for (name, content) in pages {
        match std::fs::read(dir.join(name)) {
            Ok(bytes) if bytes == content.as_bytes() => {}
            Ok(_) => out.push(Change {
                name: name.clone(),
                kind: ChangeKind::Changed,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.push(Change {
                name: name.clone(),
                kind: ChangeKind::Added,
            }),
            Err(e) => return Err(format!("cannot read {}: {e}", dir.join(name).display())),
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && name.ends_with(".md") && !pages.contains_key(&name) {
                out.push(Change {
                    name,
                    kind: ChangeKind::Removed,
                });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Writes `content` to `path` through a temporary file in the same directory and a rename, so readers
/// never see a half-written page.
fn write_atomic(path: &Path, content: &str) -> Result<(), String> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, content).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot replace {}: {e}", path.display())
    })
}

// ---------------------------------------------------------------------------------------------
// Generating.
// ---------------------------------------------------------------------------------------------

/// Every page, by file name: `README.md` and one `<CODE>.md` per registry code.
pub fn generate(fixtures: &Path) -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    for info in RULES {
        let examples = Examples::find(&fixtures.join(info.code.as_str()));
        pages.insert(format!("{}.md", info.code), rule_page(info, &examples));
    }
    pages.insert("README.md".to_string(), index_page());
    pages
}

/// The index: one row per code, in registry order (by family, then number).
fn index_page() -> String {
    let mut out = String::new();
    let implemented = RULES
        .iter()
        .filter(|r| r.status == Status::Implemented)
        .count();
    let planned = RULES
        .iter()
        .filter(|r| matches!(r.status, Status::Planned(_)))
        .count();
    let not_emitted = RULES.len() - implemented - planned;
    out.push_str("# Rule reference\n\n");
    out.push_str(
        "Every diagnostic code flowmcp-rs knows: the codes of the FlowMCP specification v4.2.0 and the \
         project's extensions (`RULINGS.md`). Each page says what the rule checks and why, with a \
         failing and a passing example.\n\n",
    );
    let _ = writeln!(
        out,
        "{} codes: {implemented} implemented, {planned} planned, {not_emitted} not emitted (a ruling \
         assigns the check to another code).\n",
        RULES.len()
    );
    out.push_str(
        "Generated by `cargo xtask docs` from the rule registry \
         (`crates/flowmcp-spec/src/registry/table.rs`), `xtask/src/rationale.rs` and the rule \
         fixtures; do not edit by hand. `flowmcp rules CODE` prints the same metadata.\n\n",
    );
    out.push_str("| Code | Summary | `spec` | `compat` | Status |\n");
    out.push_str("|---|---|---|---|---|\n");
    for r in RULES {
        let star = if r.variants.is_empty() { "" } else { "\\*" };
        let _ = writeln!(
            out,
            "| [{code}]({code}.md) | {summary} | {spec}{star} | {compat}{star} | {status} |",
            code = r.code,
            summary = md_inline(r.summary, true),
            spec = r.spec,
            compat = r.compat,
            status = r.status,
        );
    }
    out.push_str(
        "\n\\* The code has named variants with other severities; see its page.\n\n\
         Change a rule's level with `--rule CODE=LEVEL` (`error`, `warning`, `info`, `off`) or with \
         `\"rules\": { \"CODE\": \"LEVEL\" }` in `.flowmcp/config.json`.\n",
    );
    out
}

fn origin_text(origin: Origin) -> &'static str {
    match origin {
        Origin::Spec => "specification v4.2.0",
        Origin::Extension => "project extension",
    }
}

fn level_text(level: Level) -> &'static str {
    match level {
        Level::Off => "off (never reported)",
        other => other.as_str(),
    }
}

fn section_text(section: &str) -> String {
    if section == "RULINGS.md" {
        "`RULINGS.md` (the project's rulings on the specification)".to_string()
    } else {
        format!("`{section}` (FlowMCP specification v4.2.0)")
    }
}

/// One rule's page.
fn rule_page(info: &RuleInfo, examples: &Examples) -> String {
    let code = info.code.as_str();
    let mut out = String::new();
    let _ = writeln!(out, "# {code} — {}\n", md_inline(info.summary, false));

    out.push_str("| Property | Value |\n|---|---|\n");
    let _ = writeln!(out, "| Family | `{}` |", info.family.as_str());
    let _ = writeln!(out, "| Origin | {} |", origin_text(info.origin));
    let _ = writeln!(
        out,
        "| Defined in | {} |",
        md_table_cell(&section_text(info.section))
    );
    let _ = writeln!(out, "| Severity under `spec` | {} |", level_text(info.spec));
    let _ = writeln!(
        out,
        "| Severity under `compat` | {} |",
        level_text(info.compat)
    );
    for v in info.variants {
        let _ = writeln!(
            out,
            "| Variant `{}` | {} under `spec`, {} under `compat`: {} |",
            v.name,
            level_text(v.spec),
            level_text(v.compat),
            md_inline(v.summary, true)
        );
    }
    let _ = writeln!(out, "| Status | {} |", info.status);
    out.push('\n');

    let (what, why) = match rationale::rationale(info.code) {
        Some((what, why)) => (what.to_string(), why.to_string()),
        None => generic_rationale(info),
    };
    out.push_str("## What it checks\n\n");
    out.push_str(&what);
    out.push_str("\n\n");
    if let Some(note) = rationale::scan_note(info.code) {
        out.push_str(note);
        out.push_str("\n\n");
    }
    out.push_str("## Why\n\n");
    out.push_str(&why);
    out.push_str("\n\n");

    out.push_str("## Failing example\n\n");
    match &examples.fail {
        Some(ex) => {
            code_block(&mut out, "js", &ex.text);
            if let Some(note) = &ex.note {
                out.push_str(note);
                out.push_str("\n\n");
            }
            let _ = writeln!(out, "`{}` reports:\n", ex.command());
            code_block(&mut out, "text", &ex.evaluate());
        }
        None => out.push_str(&no_example(info, "failing")),
    }
    out.push_str("## Passing example\n\n");
    match &examples.pass {
        Some(ex) => {
            code_block(&mut out, "js", &ex.text);
            if let Some(note) = &ex.note {
                out.push_str(note);
                out.push_str("\n\n");
            }
            if ex.profile != Profile::Spec || ex.max_file_size.is_some() {
                let _ = writeln!(out, "Validated with `{}`.\n", ex.command());
            }
        }
        None => out.push_str(&no_example(info, "passing")),
    }

    out.push_str("## Configuration\n\n");
    match info.status {
        Status::Implemented => {}
        Status::NotEmitted(ruling) => {
            let _ = writeln!(
                out,
                "This code is never emitted (ruling {ruling}), so an override has no effect; it is \
                 accepted so that configurations naming it stay valid.\n"
            );
        }
        Status::Planned(issue) => {
            let plan = if issue == 0 {
                "no issue has been filed yet".to_string()
            } else {
                format!("planned in issue #{issue}")
            };
            let _ = writeln!(
                out,
                "The rule is not implemented yet ({plan}); an override is accepted now and applies \
                 once it is.\n"
            );
        }
    }
    let _ = writeln!(
        out,
        "Change the level of this rule (`error`, `warning`, `info` or `off`) for one run:\n\n\
         ```sh\nflowmcp validate --rule {code}=off providers/\n```\n\n\
         or for a project, in `.flowmcp/config.json` (looked up from the current directory \
         upwards):\n\n\
         ```json\n{{ \"rules\": {{ \"{code}\": \"warning\" }} }}\n```\n\n\
         An override applies to every variant of the code and takes precedence over the profile; \
         `--profile compat` (or `\"profile\": \"compat\"`) selects the `compat` severities listed \
         above.\n"
    );
    out.push_str("[All rules](README.md)\n");
    out
}

/// The text for codes without hand-written prose: what the registry knows, and the status.
fn generic_rationale(info: &RuleInfo) -> (String, String) {
    let what = format!("{}.", md_inline(info.summary, false).trim_end_matches('.'));
    let why = match info.status {
        Status::NotEmitted(ruling) => format!(
            "flowmcp-rs does not emit this code: ruling {ruling} in `RULINGS.md` assigns the check \
             to another code, or drops it, to resolve a contradiction in the specification."
        ),
        Status::Planned(0) => "Not implemented yet; no issue has been filed for it.".to_string(),
        Status::Planned(n) => format!("Not implemented yet; planned in issue #{n}."),
        Status::Implemented => format!(
            "See `{}` in the specification; no explanation has been written for this code yet.",
            info.section
        ),
    };
    (what, why)
}

fn no_example(info: &RuleInfo, kind: &str) -> String {
    match info.status {
        Status::Implemented => format!("No {kind} fixture exists for this code yet.\n\n"),
        _ => format!("None: the code is {}.\n\n", info.status),
    }
}

/// Appends a fenced code block whose fence is longer than any backtick run in `text`.
fn code_block(out: &mut String, lang: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = write!(out, "{fence}{lang}\n{text}");
    if !text.ends_with('\n') {
        out.push('\n');
    }
    let _ = write!(out, "{fence}\n\n");
}

/// Escapes text for inline Markdown: outside `code spans`, characters that would start emphasis,
/// links, HTML or escapes are backslash-escaped, and bare patterns such as `^[a-z]*$` (a word that
/// starts with `^` and ends with `$`) are put into code spans; inside a table, `|` is escaped
/// everywhere.
fn md_inline(text: &str, table: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, segment) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            // Inside a code span: only a table's `|` needs escaping.
            out.push_str(&escape_pipe(segment, table));
            continue;
        }
        for (j, word) in segment.split(' ').enumerate() {
            if j > 0 {
                out.push(' ');
            }
            // A bare pattern, possibly in parentheses or followed by punctuation:
            // `(^…$),` → `(` + code span + `),`.
            let rest = word.trim_start_matches('(');
            let lead = &word[..word.len() - rest.len()];
            let core = rest.trim_end_matches([',', ';', ')', '.']);
            if core.len() > 2 && core.starts_with('^') && core.ends_with('$') {
                out.push_str(lead);
                out.push('`');
                out.push_str(&escape_pipe(core, table));
                out.push('`');
                out.push_str(&escape_text(&rest[core.len()..], table));
            } else {
                out.push_str(&escape_text(word, table));
            }
        }
    }
    out
}

fn escape_pipe(text: &str, table: bool) -> String {
    if table {
        text.replace('|', "\\|")
    } else {
        text.to_string()
    }
}

fn escape_text(text: &str, table: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '|' if table => out.push_str("\\|"),
            '\\' | '*' | '_' | '[' | ']' | '<' | '>' => {
                out.push('\\');
                out.push(ch);
            }
            _ => out.push(ch),
        }
    }
    out
}

/// Escapes `|` in text that is already Markdown, for a table cell.
fn md_table_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

// ---------------------------------------------------------------------------------------------
// Fixtures.
// ---------------------------------------------------------------------------------------------

/// The examples of one code.
struct Examples {
    fail: Option<Example>,
    pass: Option<Example>,
}

impl Examples {
    /// The first `fail*.mjs` and `pass*.mjs` in `dir`, sorted by name; nothing when `dir` is missing
    /// or unreadable.
    fn find(dir: &Path) -> Examples {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".mjs"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        let first = |prefix: &str| {
            names
                .iter()
                .find(|n| n.starts_with(prefix))
                .and_then(|n| Example::read(&dir.join(n)))
        };
        Examples {
            fail: first("fail"),
            pass: first("pass"),
        }
    }
}

/// One fixture, with its directives applied and removed.
struct Example {
    /// The fixture file (kept so that rules that look at the path see the real one).
    path: PathBuf,
    /// The file without directive lines, as bytes (it may not be UTF-8: see LDR001).
    bytes: Vec<u8>,
    /// The same, as shown on the page.
    text: String,
    /// A remark shown under the code (non-UTF-8 content).
    note: Option<String>,
    profile: Profile,
    max_file_size: Option<u64>,
}

/// Distinguishes temporary directories of evaluations in one process.
static TEMP_SEQ: AtomicUsize = AtomicUsize::new(0);

impl Example {
    /// Reads a fixture; `None` when it cannot be read.
    fn read(path: &Path) -> Option<Example> {
        let raw = std::fs::read(path).ok()?;
        let mut profile = Profile::Spec;
        let mut max_file_size = None;
        let mut bytes = Vec::with_capacity(raw.len());
        let mut in_header = true;
        for line in raw.split_inclusive(|b| *b == b'\n') {
            if in_header {
                let text = String::from_utf8_lossy(line);
                let text = text.trim_end();
                if let Some(comment) = text.strip_prefix("//") {
                    let body = comment.trim_start_matches('/').trim();
                    if let Some(p) = body.strip_prefix("profile:") {
                        profile = p.trim().parse().unwrap_or(Profile::Spec);
                        continue;
                    }
                    if let Some(n) = body.strip_prefix("max-file-size:") {
                        max_file_size = n.trim().parse().ok();
                        continue;
                    }
                    if body.starts_with("expect:") {
                        continue;
                    }
                } else {
                    in_header = false;
                }
            }
            bytes.extend_from_slice(line);
        }
        let (text, note) = match String::from_utf8(bytes.clone()) {
            Ok(t) => (t, None),
            Err(_) => (
                String::from_utf8_lossy(&bytes).into_owned(),
                Some(
                    "The file contains bytes that are not valid UTF-8; they are shown as `\u{FFFD}` \
                     here."
                        .to_string(),
                ),
            ),
        };
        Some(Example {
            path: path.to_path_buf(),
            bytes,
            text,
            note,
            profile,
            max_file_size,
        })
    }

    /// The command line that reproduces the example's output.
    fn command(&self) -> String {
        let mut cmd = String::from("flowmcp validate");
        if self.profile != Profile::Spec {
            let _ = write!(cmd, " --profile {}", self.profile.as_str());
        }
        if let Some(n) = self.max_file_size {
            let _ = write!(cmd, " --max-file-size {n}");
        }
        let _ = write!(cmd, " {EXAMPLE_NAME}");
        cmd
    }

    /// Validates the example as shown (directives removed) and renders the human output.
    fn evaluate(&self) -> String {
        let mut opts = Options::new(self.profile);
        if let Some(n) = self.max_file_size {
            opts.limits.max_file_bytes = n;
        }
        let report = match std::str::from_utf8(&self.bytes) {
            Ok(text) => validate_source(&self.path, EXAMPLE_NAME, text, &opts),
            // Text that is not UTF-8 cannot be passed as source; validate a temporary copy.
            Err(_) => match self.validate_copy(&opts) {
                Ok(report) => report,
                Err(e) => return format!("(the example could not be validated: {e})\n"),
            },
        };
        render::human(std::slice::from_ref(&report), HumanStyle::default())
    }

    fn validate_copy(&self, opts: &Options) -> Result<flowmcp_validate::FileReport, String> {
        let dir = std::env::temp_dir().join(format!(
            "flowmcp-xtask-docs-{}-{}",
            std::process::id(),
            TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| EXAMPLE_NAME.into());
        let copy = dir.join(name);
        let result = std::fs::write(&copy, &self.bytes)
            .map_err(|e| format!("{}: {e}", copy.display()))
            .map(|()| validate_path(&copy, EXAMPLE_NAME, opts));
        let _ = std::fs::remove_dir_all(&dir);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_rules_are_current() {
        let root = crate::workspace_root();
        let pages = generate(&root.join(FIXTURES_DIR));
        let changes = changes(&root.join(OUT_DIR), &pages).unwrap();
        assert!(changes.is_empty(), "{STALE}\n{}", describe(&changes));
    }

    #[test]
    fn every_code_has_a_page_and_an_index_row() {
        let pages = generate(Path::new("/nonexistent/fixtures"));
        assert_eq!(pages.len(), RULES.len() + 1);
        let index = &pages["README.md"];
        for r in RULES {
            let page = &pages[&format!("{}.md", r.code)];
            assert!(page.starts_with(&format!("# {} — ", r.code)));
            assert!(page.contains("## What it checks"));
            assert!(page.contains("## Configuration"));
            assert!(index.contains(&format!("| [{0}]({0}.md) |", r.code)));
        }
        // Missing fixture directories produce pages, not errors.
        assert!(pages["VAL014.md"].contains("No failing fixture exists"));
    }

    #[test]
    fn directives_are_stripped_and_applied() {
        let dir =
            std::env::temp_dir().join(format!("flowmcp-xtask-docs-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("fail.mjs");
        std::fs::write(
            &path,
            "// profile: compat\n// max-file-size: 10\n// expect: LDR002 error -\n// kept\nexport const main = {}\n",
        )
        .unwrap();
        let ex = Example::read(&path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(ex.text, "// kept\nexport const main = {}\n");
        assert_eq!(ex.profile, Profile::Compat);
        assert_eq!(ex.max_file_size, Some(10));
        assert_eq!(
            ex.command(),
            "flowmcp validate --profile compat --max-file-size 10 example.mjs"
        );
        assert!(ex.evaluate().starts_with("LDR002 error example.mjs: "));
    }

    #[test]
    fn markdown_escaping() {
        assert_eq!(
            md_inline(r"must match ^4\.\d+$ and `a|b_c*`", false),
            r"must match `^4\.\d+$` and `a|b_c*`"
        );
        assert_eq!(
            md_inline(r"name (^[a-z]*$), a_b [x]", false),
            r"name (`^[a-z]*$`), a\_b \[x\]"
        );
        assert_eq!(md_inline("`a|b` | c_d", true), r"`a\|b` \| c\_d");
        let mut out = String::new();
        code_block(&mut out, "js", "const s = ```x```\n");
        assert!(out.starts_with("````js\n"));
    }

    #[test]
    fn changes_detect_added_changed_and_removed() {
        let dir =
            std::env::temp_dir().join(format!("flowmcp-xtask-docs-cmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("A.md"), "same").unwrap();
        std::fs::write(dir.join("B.md"), "old").unwrap();
        std::fs::write(dir.join("Z.md"), "gone").unwrap();
        std::fs::write(dir.join("notes.txt"), "ignored").unwrap();
        let pages: BTreeMap<String, String> =
            [("A.md", "same"), ("B.md", "new"), ("C.md", "added")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let found = changes(&dir, &pages).unwrap();
        write_atomic(&dir.join("B.md"), "new").unwrap();
        let after = std::fs::read_to_string(dir.join("B.md")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let kinds: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.name.as_str(), c.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                ("B.md", ChangeKind::Changed),
                ("C.md", ChangeKind::Added),
                ("Z.md", ChangeKind::Removed)
            ]
        );
        assert_eq!(after, "new");
    }
}
