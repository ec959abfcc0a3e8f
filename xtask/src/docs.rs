//! `cargo xtask docs [--check]`: the rule reference in `docs/rules/`.
//!
//! One page per registry code (`docs/rules/<CODE>.md`) and an index (`docs/rules/README.md`), built from
//! the registry in `flowmcp-spec`, each code's prose (see [Prose](#prose)) and the rule fixtures in
//! `crates/flowmcp-validate/tests/fixtures/<CODE>/`: the first `fail*` and the first `pass*` fixture
//! (sorted by name; entries starting with `_` are support files) become the examples, and the failing
//! one is validated and its human output shown. A fixture comes in one of three forms, run as
//! `crates/flowmcp-validate/tests/fixtures.rs` runs it:
//!
//! - a `.mjs` file: shown without its `// expect:`, `// profile:`, `// max-file-size:` and
//!   `// database:` directive lines, validated as `example.mjs` (QuickJS) at its real path, so that it
//!   sees the `_lists/` next to it, whose files are listed once per page; a fixture with
//!   `// database: SQL TARGET` lines is validated as a copy in a temporary directory beside the
//!   databases built from those SQL files, which are listed under the example;
//! - a `.id` file: its text without `//` lines is one ID, shown as `flowmcp validate --id "<ID>"` with
//!   that command's output (`flowmcp_validate::validate_id`);
//! - a directory: a small catalog (directives in its `fixture.txt`), shown as a listing of its files
//!   (`registry.json` first, `fixture.txt` left out, long files shortened) and validated with
//!   `flowmcp_validate::catalog::validate_catalog_fixture`. The catalog keeps its directory name, which
//!   its `registry.json` `name` must equal (CAT002); absolute paths never reach the pages.
//!
//! # Prose
//!
//! A rule's "What it checks" and "Why" live next to its check, as a section of a doc comment (`///`)
//! in the sources of the crates (`crates/*/src/**/*.rs`), usually the rule function's own:
//!
//! ```text
//! /// VAL031: `main.tools` has more than 8 entries.
//! ///
//! /// # Why
//! ///
//! /// Small schemas keep each provider's tool set focused and cheap to put into an agent's context.
//! pub fn val031_max_tools(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
//! ```
//!
//! A section starts with a paragraph that begins `CODE: ` (a registry code) and runs to the next such
//! paragraph or the end of the doc comment, so one doc comment can hold several sections (the static
//! scan's codes, on the function that matches them) after paragraphs of its own; anything that is
//! not part of a rule's prose goes before the first section. A `# Why` line splits the section into
//! what it checks (with `CODE: ` removed) and why; a paragraph that begins `CODE: ` but has no
//! `# Why` is an ordinary mention and is ignored. Lines of a paragraph are joined with spaces and
//! paragraphs are kept, so the text is Markdown for both rustdoc and the pages. A code with prose in
//! two places, a section with an empty part or another heading after `# Why` fails the command.
//! Codes no check in the validator carries (the runtime's, and those never emitted) have their
//! section on their line of the registry table. The tests below require prose for every code that is
//! implemented or not emitted, and that no page, no prose and no tracked file of the repository
//! cites a document outside it.
//!
//! Output is deterministic. Files are written atomically (temporary file + rename) and only when their
//! content changes; `.md` files in `docs/rules/` that no code produces any more are removed. With
//! `--check` nothing is written: the command fails and names every file that would change.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use flowmcp_spec::{
    Code, Level, Profile, registry::Family, registry::Origin, registry::RULES, registry::RuleInfo,
    registry::Status,
};
use flowmcp_validate::render::{self, HumanStyle};
use flowmcp_validate::{FileReport, Options, lists, validate_file};

#[path = "../../crates/flowmcp-runtime/tests/support/directives.rs"]
mod runtime_directives;

/// The runtime's fixtures (`crates/flowmcp-runtime/tests/fixtures`), relative to the validation
/// fixtures directory.
pub(crate) const RUNTIME_FIXTURES_FROM_VALIDATE: &str = "../../../flowmcp-runtime/tests/fixtures";

/// Where the pages go, relative to the workspace root.
pub(crate) const OUT_DIR: &str = "docs/rules";
/// Where the rule fixtures live, relative to the workspace root.
pub(crate) const FIXTURES_DIR: &str = "crates/flowmcp-validate/tests/fixtures";
/// The name diagnostics of the examples carry.
const EXAMPLE_NAME: &str = "example.mjs";
/// What `--check` and the test say when the pages are out of date.
const STALE: &str = "docs/rules is stale: run `cargo xtask docs`";
/// The rule notes the language server shows on hover (each rule's why and the lines of its failing
/// example that the finding points at), made from the pages, relative to the workspace root; the
/// crate embeds the file, so a published package carries it.
pub(crate) const LSP_NOTES: &str = "crates/flowmcp-lsp/src/rule_notes.md";

/// Runs `cargo xtask docs [--check]`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
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
    let prose = read_prose(&root)?;
    let pages = generate(&root.join(FIXTURES_DIR), &prose);
    let changes = changes(&out, &pages)?;
    let notes = lsp_notes(&pages);
    let notes_path = root.join(LSP_NOTES);
    let notes_stale = std::fs::read(&notes_path).ok().as_deref() != Some(notes.as_bytes());

    if check {
        if notes_stale {
            return Err(format!("{STALE}\n  outdated: {LSP_NOTES}"));
        }
        if changes.is_empty() {
            println!("{OUT_DIR} is up to date ({} files)", pages.len());
            return Ok(());
        }
        return Err(format!("{STALE}\n{}", describe(&changes)));
    }

    if notes_stale {
        write_atomic(&notes_path, &notes)?;
        println!("{LSP_NOTES}: updated");
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
pub(crate) enum ChangeKind {
    /// Not on disk yet.
    Added,
    /// On disk with other content.
    Changed,
    /// On disk, but no code produces it any more.
    Removed,
}

/// One file that would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
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
pub(crate) fn changes(dir: &Path, pages: &BTreeMap<String, String>) -> Result<Vec<Change>, String> {
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
    flowmcp_loader::edit::write_atomic(path, content.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// Generating.
// ---------------------------------------------------------------------------------------------

/// Every page, by file name: `README.md` and one `<CODE>.md` per registry code.
pub(crate) fn generate(fixtures: &Path, prose: &ProseMap) -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    let runtime = fixtures.join(RUNTIME_FIXTURES_FROM_VALIDATE);
    for info in RULES {
        let mut examples = Examples::find(&fixtures.join(info.code.as_str()));
        if examples.fail.is_none() && examples.pass.is_none() {
            examples = Examples::find_runtime(&runtime.join(info.code.as_str()));
        }
        let text = prose.get(&info.code);
        pages.insert(
            format!("{}.md", info.code),
            rule_page(info, text, &examples),
        );
    }
    pages.insert("README.md".to_string(), index_page());
    pages
}

/// The language server's rule notes, made from the generated `pages`: for every code, a `## CODE`
/// line, the page's "Why" paragraphs and, when its failing example is a module whose report names
/// a line, the lines around it (two before and after, with their numbers), so that a hover shows
/// why the rule exists and what it looks like without the page.
pub(crate) fn lsp_notes(pages: &BTreeMap<String, String>) -> String {
    let mut out = String::from(
        "<!-- Made by `cargo xtask docs` from docs/rules; do not edit (checked in CI). -->\n",
    );
    for info in RULES {
        let code = info.code.as_str();
        let Some(page) = pages.get(&format!("{code}.md")) else {
            continue;
        };
        let _ = writeln!(out, "## {code}\n");
        if let Some(why) = section(page, "## Why\n\n") {
            out.push_str(why.trim());
            out.push_str("\n\n");
        }
        if let Some(excerpt) = failing_excerpt(page, code) {
            out.push_str(&excerpt);
        }
    }
    out
}

/// The text after `heading` up to the next `## ` heading of a page.
fn section<'a>(page: &'a str, heading: &str) -> Option<&'a str> {
    let start = page.find(heading)? + heading.len();
    let rest = &page[start..];
    Some(rest.find("\n## ").map_or(rest, |end| &rest[..end]))
}

/// The lines of a page's failing example around the line its report names for `code`.
fn failing_excerpt(page: &str, code: &str) -> Option<String> {
    let failing = section(page, "## Failing example\n\n")?;
    let js = failing.strip_prefix("```js\n")?;
    let source = &js[..js.find("\n```")?];
    let marker = format!("{code} ");
    let line: usize = failing.lines().find_map(|l| {
        let rest = l.strip_prefix(&marker)?;
        let at = rest.split_whitespace().nth(1)?;
        at.strip_prefix(EXAMPLE_NAME)?
            .strip_prefix(':')?
            .split(':')
            .next()?
            .parse()
            .ok()
    })?;
    let lines: Vec<&str> = source.lines().collect();
    if line == 0 || line > lines.len() {
        return None;
    }
    let first = line.saturating_sub(3);
    let last = (line + 2).min(lines.len());
    let mut out = String::from("```js\n");
    for (i, text) in lines[first..last].iter().enumerate() {
        let n = first + i + 1;
        let mark = if n == line { '>' } else { ' ' };
        let _ = writeln!(out, "{mark}{n:>4} | {text}");
    }
    out.push_str("```\n\n");
    Some(out)
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
         project's own extensions. Each page says what the rule checks and why, with a failing and a \
         passing example.\n\n",
    );
    let _ = writeln!(
        out,
        "{} codes: {implemented} implemented, {planned} planned, {not_emitted} not emitted (another \
         code reports the check).\n",
        RULES.len()
    );
    out.push_str(
        "Generated by `cargo xtask docs` from the rule registry \
         (`crates/flowmcp-spec/src/registry/table.rs`), the `/// CODE:` doc comment next to each \
         check and the rule fixtures; do not edit by hand. `flowmcp rules CODE` prints the same \
         metadata.\n\n",
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
            status = match r.status {
                // The page gives the reason; the index stays short.
                Status::NotEmitted(_) => r.status.label().to_string(),
                other => other.to_string(),
            },
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

/// The status for a rule's page: with the reason a not-emitted code gives (as inline Markdown, for
/// a table cell).
fn status_text(status: Status) -> String {
    match status {
        Status::NotEmitted(reason) => format!("not emitted ({})", md_inline(reason, true)),
        other => other.to_string(),
    }
}

fn section_text(info: &RuleInfo) -> String {
    if info.defined_by_project() {
        format!("{} (not part of the specification)", info.section)
    } else {
        format!("`{}` (FlowMCP specification v4.2.0)", info.section)
    }
}

/// One rule's page; `prose` is its text from the sources, if it has any.
fn rule_page(info: &RuleInfo, prose: Option<&Prose>, examples: &Examples) -> String {
    let code = info.code.as_str();
    let mut out = String::new();
    let _ = writeln!(out, "# {code} — {}\n", md_inline(info.summary, false));

    out.push_str("| Property | Value |\n|---|---|\n");
    let _ = writeln!(out, "| Family | `{}` |", info.family.as_str());
    let _ = writeln!(out, "| Origin | {} |", origin_text(info.origin));
    let _ = writeln!(
        out,
        "| Defined in | {} |",
        md_table_cell(&section_text(info))
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
    let _ = writeln!(out, "| Status | {} |", status_text(info.status));
    out.push('\n');

    let (what, why) = match prose {
        Some(p) => (p.what.clone(), p.why.clone()),
        None => generic_rationale(info),
    };
    out.push_str("## What it checks\n\n");
    out.push_str(&what);
    out.push_str("\n\n");
    if let Some(note) = scan_note(info.code) {
        out.push_str(note);
        out.push_str("\n\n");
    }
    out.push_str("## Why\n\n");
    out.push_str(&why);
    out.push_str("\n\n");

    let mut lists_shown = false;
    out.push_str("## Failing example\n\n");
    match &examples.fail {
        Some(ex) => example_section(&mut out, ex, true, &mut lists_shown),
        None => out.push_str(&no_example(info, "failing")),
    }
    out.push_str("## Passing example\n\n");
    match &examples.pass {
        Some(ex) => example_section(&mut out, ex, false, &mut lists_shown),
        None => out.push_str(&no_example(info, "passing")),
    }

    out.push_str("## Configuration\n\n");
    if info.family == Family::Agent {
        let _ = writeln!(
            out,
            "An agent runner's code: it starts the error of a failed agent run (`flowmcp agent`, \
             an agent served over MCP, `flowmcp grade --llm`), never a validation report, so \
             `--rule` and the configuration's `rules` do not change it.\n"
        );
        out.push_str("[All rules](README.md)\n");
        return out;
    }
    if info.is_runtime() {
        let _ = writeln!(
            out,
            "A runtime code: it appears in the envelope messages of `flowmcp call` (and of every \
             caller of the runtime), never in a validation report, so `--rule` and the \
             configuration's `rules` do not change it.\n"
        );
        out.push_str("[All rules](README.md)\n");
        return out;
    }
    match info.status {
        Status::Implemented => {}
        Status::NotEmitted(_) => {
            let _ = writeln!(
                out,
                "This code is never emitted, so an override has no effect; it is accepted so that \
                 configurations naming it stay valid.\n"
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
         or always, in your `~/.flowmcp/config.json`:\n\n\
         ```json\n{{ \"rules\": {{ \"{code}\": \"warning\" }} }}\n```\n\n\
         A project's `.flowmcp/config.json` (looked up from the current directory upwards) may \
         set `rules` too, but only to raise a severity: it comes with the repository, so lowering \
         a rule there is ignored (with a note) unless you pass `--trust-project-config`. An \
         override applies to every variant of the code and takes precedence over the profile; \
         `--profile compat` (or `\"profile\": \"compat\"`) selects the `compat` severities listed \
         above.\n"
    );
    out.push_str("[All rules](README.md)\n");
    out
}

/// The text for codes without prose in the sources: what the registry knows, and the status.
fn generic_rationale(info: &RuleInfo) -> (String, String) {
    let what = format!("{}.", md_inline(info.summary, false).trim_end_matches('.'));
    let why = match info.status {
        Status::NotEmitted(_) => "flowmcp-rs does not emit this code: another code reports the \
                                  check, as the summary says."
            .to_string(),
        Status::Planned(0) => "Not implemented yet; no issue has been filed for it.".to_string(),
        Status::Planned(n) => format!("Not implemented yet; planned in issue #{n}."),
        Status::Implemented => "No explanation has been written for this code yet.".to_string(),
    };
    (what, why)
}

fn no_example(info: &RuleInfo, kind: &str) -> String {
    match (info.family, info.status) {
        (Family::Md, Status::Implemented) => {
            return "None here: the failure needs a markdown document beside the schema. \
                    `crates/flowmcp-resources/tests/markdown.rs` checks the engine's codes and \
                    `crates/flowmcp-catalog/tests/resources.rs` checks them through a catalog.\n\n"
                .to_string();
        }
        (Family::Agent, Status::Implemented) => {
            return "None here: an agent run needs a model endpoint. \
                    `crates/flowmcp-agent/tests/runner.rs` checks the runner's codes against a \
                    local one.\n\n"
                .to_string();
        }
        _ => {}
    }
    match info.status {
        Status::Implemented => format!("No {kind} fixture exists for this code yet.\n\n"),
        // The status line above gives the reason.
        Status::NotEmitted(_) => "None: the code is not emitted.\n\n".to_string(),
        _ => format!("None: the code is {}.\n\n", status_text(info.status)),
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
// Prose: the `/// CODE: …` doc comments next to the checks.
// ---------------------------------------------------------------------------------------------

/// Where the prose is read from, relative to the workspace root: the `src/` of every crate.
pub(crate) const PROSE_DIR: &str = "crates";

/// The heading that ends "What it checks" and starts "Why" in a rule's doc comment section.
const WHY_HEADING: &str = "# Why";

/// What the static-scan codes (SEC001–SEC016) add to their "What it checks".
const SCAN_NOTE: &str = "The static scan reads the raw file before it is evaluated, with the \
    contents of comments and string literals blanked (template-literal text too, `${…}` expressions \
    kept), and matches whole identifiers only. Every match is reported with its line and column; a \
    file with error-level findings is not evaluated.";

/// One code's prose, as Markdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prose {
    /// "What it checks": the section before `# Why`, without its `CODE: `.
    pub what: String,
    /// "Why": the section after `# Why`.
    pub why: String,
    /// Where the section starts (`crates/…/file.rs:LINE`).
    pub at: String,
}

/// Every code's prose.
pub(crate) type ProseMap = BTreeMap<Code, Prose>;

/// The scan note for SEC001–SEC016, `None` for the other codes.
fn scan_note(code: Code) -> Option<&'static str> {
    let n: u32 = code.as_str().strip_prefix("SEC")?.parse().ok()?;
    (1..=16).contains(&n).then_some(SCAN_NOTE)
}

/// Reads the prose of every code from the Rust sources under `<root>/crates/*/src/`.
pub(crate) fn read_prose(root: &Path) -> Result<ProseMap, String> {
    let mut files = Vec::new();
    let crates = root.join(PROSE_DIR);
    let entries =
        std::fs::read_dir(&crates).map_err(|e| format!("cannot read {}: {e}", crates.display()))?;
    for entry in entries.flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    files.sort();
    let mut prose = ProseMap::new();
    let mut errors = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        parse_prose(&text, &name, &mut prose, &mut errors);
    }
    if errors.is_empty() {
        Ok(prose)
    } else {
        Err(format!("rule prose: {}", errors.join("\n  ")))
    }
}

/// Collects the `.rs` files below `dir` (nothing when it does not exist).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => rust_files(&path, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => out.push(path),
            _ => {}
        }
    }
}

/// The text of a doc-comment line (`///`, not `////`) without the marker, trimmed.
fn doc_line(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("///")?;
    (!rest.starts_with('/')).then(|| rest.trim())
}

/// Whether a doc-comment line is a Markdown heading (`# …`, `## …`).
fn is_heading(line: &str) -> bool {
    line.starts_with('#') && line.trim_start_matches('#').starts_with(' ')
}

/// The code a section starts with: `CODE: text` → `(CODE, text)`, for a registry code.
fn section_start(line: &str) -> Option<(Code, &str)> {
    let (head, rest) = line.split_once(": ")?;
    let code = Code::parse(head).filter(|c| c.as_str() == head)?;
    Some((code, rest))
}

/// Adds the sections of `text` (the source of `file`) to `prose`; problems go to `errors`.
fn parse_prose(text: &str, file: &str, prose: &mut ProseMap, errors: &mut Vec<String>) {
    // Doc comment blocks: `(line number of the first line, lines)`.
    let mut blocks: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        match (doc_line(line), blocks.last_mut()) {
            (Some(body), Some(last)) if open => last.1.push(body),
            (Some(body), _) => {
                blocks.push((i + 1, vec![body]));
                open = true;
            }
            (None, _) => open = false,
        }
    }
    for (first, lines) in blocks {
        // Sections start at a paragraph's first line that reads `CODE: …`.
        let starts: Vec<usize> = (0..lines.len())
            .filter(|&i| (i == 0 || lines[i - 1].is_empty()) && section_start(lines[i]).is_some())
            .collect();
        for (n, &start) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(lines.len());
            let at = format!("{file}:{}", first + start);
            let Some((code, head)) = section_start(lines[start]) else {
                continue;
            };
            let mut body: Vec<&str> = vec![head];
            body.extend_from_slice(&lines[start + 1..end]);
            let Some(split) = body.iter().position(|l| *l == WHY_HEADING) else {
                continue; // a mention of the code, not its prose
            };
            if let Some(h) = body[split + 1..].iter().find(|l| is_heading(l)) {
                errors.push(format!(
                    "{at}: {code}: heading {h:?} after `{WHY_HEADING}` (put the rest of the doc \
                     comment before the first `CODE:` paragraph)"
                ));
                continue;
            }
            let what = paragraphs(&body[..split]);
            let why = paragraphs(&body[split + 1..]);
            if what.is_empty() || why.is_empty() {
                errors.push(format!("{at}: {code}: empty \"what\" or \"why\""));
                continue;
            }
            if let Some(earlier) = prose.get(&code) {
                errors.push(format!("{at}: {code} already has prose at {}", earlier.at));
                continue;
            }
            prose.insert(code, Prose { what, why, at });
        }
    }
}

/// Markdown from doc-comment lines: each paragraph's lines joined with spaces, paragraphs separated
/// by a blank line.
fn paragraphs(lines: &[&str]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines.iter().map(|l| l.trim()).chain([""]) {
        if line.is_empty() {
            if !current.is_empty() {
                out.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    out.join("\n\n")
}

/// Words that name documents outside the repository, spelled in pieces so that this file does not
/// contain them: the project's internal briefing files and a relative path up into a sibling
/// `shared` directory.
#[cfg(test)]
const OUTSIDE_NEEDLES: [&str; 3] = [
    concat!("RUL", "INGS"),
    concat!("DIG", "EST"),
    concat!("..", "/", "shared"),
];

/// The prefixes of the internal ruling IDs (`<prefix>-<number>`), which mean nothing to a reader.
#[cfg(test)]
const RULING_PREFIXES: [&str; 2] = ["CC", "N"];

/// The first reference in `text` to a document outside the repository (an internal ruling ID such
/// as [`RULING_PREFIXES`] followed by `-` and a number, one of [`OUTSIDE_NEEDLES`]), if any.
#[cfg(test)]
fn outside_reference(text: &str) -> Option<String> {
    for needle in OUTSIDE_NEEDLES {
        if text.contains(needle) {
            return Some(needle.to_string());
        }
    }
    let b = text.as_bytes();
    for (i, _) in text.match_indices('-') {
        let digit = b.get(i + 1).is_some_and(u8::is_ascii_digit);
        let prefix = RULING_PREFIXES.into_iter().find(|p| {
            let n = p.len();
            i >= n
                && &b[i - n..i] == p.as_bytes()
                && (i == n || !b[i - n - 1].is_ascii_alphanumeric())
        });
        if let (true, Some(p)) = (digit, prefix) {
            let end = text[i + 1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(text.len(), |e| i + 1 + e);
            return Some(format!("{p}{}", &text[i..end]));
        }
    }
    None
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
    /// The first `fail*` and `pass*` runtime fixture (`.mjs`) in `dir`, sorted by name.
    fn find_runtime(dir: &Path) -> Examples {
        Examples::find_with(
            dir,
            |name, is_dir| !is_dir && name.ends_with(".mjs"),
            |path, _, _| Example::read_call(path),
        )
    }

    /// The first `fail*` and `pass*` fixture in `dir` (sorted by name) that can be read: a `.mjs` or
    /// `.id` file, or a catalog directory. Entries whose names start with `_` are support files (such
    /// as `_lists/`), not fixtures. Nothing when `dir` is missing or unreadable.
    fn find(dir: &Path) -> Examples {
        Examples::find_with(
            dir,
            |name, is_dir| is_dir || name.ends_with(".mjs") || name.ends_with(".id"),
            |path, name, is_dir| {
                if is_dir {
                    Example::read_catalog(path)
                } else if name.ends_with(".id") {
                    Example::read_id(path)
                } else {
                    Example::read(path)
                }
            },
        )
    }

    /// The first `fail*` and `pass*` entry of `dir` (sorted by name, `_` entries and what `usable`
    /// rejects left out) that `read` can read.
    fn find_with(
        dir: &Path,
        usable: impl Fn(&str, bool) -> bool,
        read: impl Fn(&Path, &str, bool) -> Option<Example>,
    ) -> Examples {
        let mut entries: Vec<(String, bool)> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        let kind = e.file_type().ok()?;
                        let is_dir = kind.is_dir();
                        let usable = (is_dir || kind.is_file()) && usable(&name, is_dir);
                        (usable && !name.starts_with('_')).then_some((name, is_dir))
                    })
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        let first = |prefix: &str| {
            entries
                .iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .find_map(|(name, is_dir)| read(&dir.join(name), name, *is_dir))
        };
        Examples {
            fail: first("fail"),
            pass: first("pass"),
        }
    }
}

/// The forms of fixture.
enum Form {
    /// A `.mjs` file.
    Module {
        /// The fixture file (kept so that rules that look at the path see the real one, and the
        /// shared lists next to it are found).
        path: PathBuf,
        /// The file without directive lines, as bytes (it may not be UTF-8: see LDR001).
        bytes: Vec<u8>,
        /// The shared lists in the `_lists/` directory next to the fixture, if there is one.
        lists: Vec<Listed>,
        /// The databases built beside the example before it is validated (`// database:`).
        databases: Vec<FixtureDatabase>,
    },
    /// A `.id` file: one ID, validated as `flowmcp validate --id` does.
    Id { id: String },
    /// A runtime fixture (`crates/flowmcp-runtime/tests/fixtures/`): a schema and one call, whose
    /// outcome (checked by that crate's `fixtures` test) is shown from its directives.
    Call {
        /// `// call:` — the tool and its JSON input.
        call: String,
        /// `// upstream:` (or `upstream-size:` / `upstream-url:`), described for the page.
        upstream: Option<String>,
        /// `// expect:` — `ok` or `<CODE> <message start>`.
        expect: String,
        /// `// env:` names (values are not shown).
        env: Vec<String>,
    },
    /// A directory: a small catalog, validated as a whole.
    Catalog {
        dir: PathBuf,
        /// The directory's name, which is also how the catalog is named in diagnostics.
        name: String,
        /// Its files, `registry.json` first, without `fixture.txt`.
        files: Vec<Listed>,
    },
}

/// A database a module fixture is validated beside: built at validation time from a SQL file
/// next to the fixture, as `crates/flowmcp-validate/tests/fixtures.rs` builds it.
struct FixtureDatabase {
    /// The SQL file (a support file next to the fixture).
    sql: PathBuf,
    /// The database's path relative to the example.
    target: String,
}

/// One fixture, with its directives applied and removed.
struct Example {
    form: Form,
    /// The example as shown on the page (for a module, its text; for an ID, the ID).
    text: String,
    /// A remark shown under the code (non-UTF-8 content).
    note: Option<String>,
    profile: Profile,
    max_file_size: Option<u64>,
}

/// One file of a listing: a catalog's files, or the shared lists next to a module.
struct Listed {
    /// The path shown, relative to the listed directory's parent (`fail_x/registry.json`,
    /// `_lists/evm-chains.mjs`).
    rel: String,
    body: ListedBody,
}

enum ListedBody {
    /// The (possibly shortened) text and remarks about it.
    Text { text: String, notes: Vec<String> },
    /// A symbolic link, with its target.
    Link(String),
    /// The file could not be read (why).
    Unreadable(String),
    /// Stands for this many further files that are not listed.
    Omitted(usize),
}

/// At most this many lines of a listed file are shown.
const MAX_LISTED_LINES: usize = 60;
/// At most this many bytes of a listed file are shown.
const MAX_LISTED_BYTES: usize = 4000;
/// At most this many files of a directory are listed.
const MAX_LISTED_FILES: usize = 24;
/// Directories deeper than this below a listed directory are not entered.
const MAX_LISTED_DEPTH: usize = 8;
/// The file in a catalog fixture that holds its directives.
const CATALOG_DIRECTIVES: &str = "fixture.txt";
/// The catalog manifest, listed first.
const REGISTRY_FILE: &str = "registry.json";
/// The directory of shared lists a module fixture sees when it lies next to it.
use flowmcp_spec::catalog::LISTS_DIR;

/// Distinguishes temporary directories of evaluations in one process.
static TEMP_SEQ: AtomicUsize = AtomicUsize::new(0);

/// The directives of a fixture: `// profile:` and `// max-file-size:` on the leading `//` lines
/// (`// expect:` lines are the test's business).
fn directives(text: &str) -> (Profile, Option<u64>) {
    let mut profile = Profile::Spec;
    let mut max_file_size = None;
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        let body = line.trim_start_matches('/').trim();
        if let Some(p) = body.strip_prefix("profile:") {
            profile = p.trim().parse().unwrap_or(Profile::Spec);
        } else if let Some(n) = body.strip_prefix("max-file-size:") {
            max_file_size = n.trim().parse().ok();
        }
    }
    (profile, max_file_size)
}

impl Example {
    /// Reads a `.mjs` fixture; `None` when it cannot be read.
    fn read(path: &Path) -> Option<Example> {
        let raw = std::fs::read(path).ok()?;
        let mut profile = Profile::Spec;
        let mut max_file_size = None;
        let mut databases = Vec::new();
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
                    if let Some(d) = body.strip_prefix("database:") {
                        let (sql, target) = d.trim().split_once(' ').unwrap_or((d.trim(), ""));
                        databases.push(FixtureDatabase {
                            sql: path.parent().unwrap_or(Path::new(".")).join(sql.trim()),
                            target: target.trim().to_string(),
                        });
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
        let lists = match path.parent() {
            Some(parent) if parent.join(LISTS_DIR).is_dir() => {
                // The registry is the `.mjs` files directly inside `_lists/`.
                list_files(&parent.join(LISTS_DIR), LISTS_DIR, &|rel| {
                    rel.ends_with(".mjs") && !rel.contains('/')
                })
            }
            _ => Vec::new(),
        };
        Some(Example {
            form: Form::Module {
                path: path.to_path_buf(),
                bytes,
                lists,
                databases,
            },
            text,
            note,
            profile,
            max_file_size,
        })
    }

    /// Reads a runtime fixture: the schema without its directive lines, and the call it makes.
    fn read_call(path: &Path) -> Option<Example> {
        let raw = std::fs::read_to_string(path).ok()?;
        let (header, text) = runtime_directives::split(&raw);
        let mut call = None;
        let mut upstream = None;
        let mut expect = None;
        let mut env = Vec::new();
        let mut profile = Profile::Spec;
        for (key, v) in header {
            match key.as_str() {
                "call" => call = Some(v),
                "upstream" => {
                    upstream = Some(match v.strip_prefix("sleep ") {
                        Some(ms) => format!("answers after {ms} ms"),
                        None => format!("answers `{v}`"),
                    })
                }
                "upstream-size" => upstream = Some(format!("answers with a {v} byte body")),
                "upstream-url" => {
                    upstream = Some(if v == "refused" {
                        "is a loopback port nobody listens on".to_string()
                    } else {
                        format!("is `{v}`")
                    })
                }
                "expect" => expect = Some(v),
                "env" => env.push(v.split('=').next().unwrap_or_default().to_string()),
                "profile" => profile = v.parse().unwrap_or(Profile::Spec),
                _ => {}
            }
        }
        Some(Example {
            form: Form::Call {
                call: call?,
                upstream,
                expect: expect?,
                env,
            },
            text,
            note: None,
            profile,
            max_file_size: None,
        })
    }

    /// Reads a `.id` fixture: its text without the `//` lines is the ID (as the fixture test reads
    /// it); `None` when it cannot be read.
    fn read_id(path: &Path) -> Option<Example> {
        let raw = std::fs::read(path).ok()?;
        let text = String::from_utf8_lossy(&raw);
        let (profile, max_file_size) = directives(&text);
        let id = text
            .lines()
            .filter(|l| !l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let id = id.trim_end_matches('\n').to_string();
        Some(Example {
            form: Form::Id { id: id.clone() },
            text: id,
            note: None,
            profile,
            max_file_size,
        })
    }

    /// Reads a catalog fixture (a directory; directives in its `fixture.txt`); `None` when the
    /// directory has no usable name.
    fn read_catalog(dir: &Path) -> Option<Example> {
        let name = dir.file_name()?.to_string_lossy().into_owned();
        let directives_text = std::fs::read(dir.join(CATALOG_DIRECTIVES))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let (profile, max_file_size) = directives(&directives_text);
        let files = list_files(dir, &name, &|rel| rel != CATALOG_DIRECTIVES);
        Some(Example {
            form: Form::Catalog {
                dir: dir.to_path_buf(),
                name,
                files,
            },
            text: String::new(),
            note: None,
            profile,
            max_file_size,
        })
    }

    /// The options the example is validated with.
    fn options(&self) -> Options {
        // The examples are files on disk, checked as the CLI checks them.
        let mut opts = Options::new(self.profile);
        opts.files = Some(std::sync::Arc::new(flowmcp_resources::LocalFiles));
        if let Some(n) = self.max_file_size {
            opts.limits.max_file_bytes = n;
        }
        opts
    }

    /// The command line that reproduces the example's output.
    fn command(&self) -> String {
        let verb = match self.form {
            Form::Call { .. } => "call",
            _ => "validate",
        };
        let mut cmd = format!("flowmcp {verb}");
        if self.profile != Profile::Spec {
            let _ = write!(cmd, " --profile {}", self.profile.as_str());
        }
        if let Some(n) = self.max_file_size {
            let _ = write!(cmd, " --max-file-size {n}");
        }
        match &self.form {
            Form::Module { .. } => {
                let _ = write!(cmd, " {EXAMPLE_NAME}");
            }
            Form::Id { id } => {
                let _ = write!(cmd, " --id {}", shell_quote(id));
            }
            Form::Catalog { name, .. } => {
                let _ = write!(cmd, " {}/", shell_word(name));
            }
            Form::Call { call, .. } => {
                let (tool, input) = call.split_once(' ').unwrap_or((call, "{}"));
                let _ = write!(cmd, " {tool} --input {}", shell_quote(input));
            }
        }
        cmd
    }

    /// Validates the example as shown (directives removed) and renders the human output.
    fn evaluate(&self) -> String {
        let opts = self.options();
        match &self.form {
            Form::Module {
                path,
                bytes,
                databases,
                ..
            } => {
                let report = match std::str::from_utf8(bytes) {
                    // Databases are built beside a copy, in a directory of its own.
                    _ if !databases.is_empty() => {
                        match validate_copy(path, bytes, databases, &opts) {
                            Ok(report) => report,
                            Err(e) => {
                                return format!("(the example could not be validated: {e})\n");
                            }
                        }
                    }
                    Ok(text) => {
                        let scope =
                            lists::scope_near(path, EXAMPLE_NAME, &opts.settings, &opts.limits);
                        let loaded = flowmcp_loader::load_source(
                            path,
                            EXAMPLE_NAME,
                            text,
                            &opts.limits,
                            &opts.settings,
                        );
                        flowmcp_validate::validate_loaded_in(loaded, &opts, &scope, Some(path))
                    }
                    // Text that is not UTF-8 cannot be passed as source; validate a temporary copy.
                    Err(_) => match validate_copy(path, bytes, &[], &opts) {
                        Ok(report) => report,
                        Err(e) => return format!("(the example could not be validated: {e})\n"),
                    },
                };
                let text = render::human(std::slice::from_ref(&report), HumanStyle::default());
                match path.parent() {
                    Some(parent) => scrub_paths(&text, parent, "."),
                    None => text,
                }
            }
            Form::Id { id } => {
                let report = flowmcp_validate::validate_id(id, &opts);
                render::human(std::slice::from_ref(&report), HumanStyle::default())
            }
            Form::Catalog { dir, name, .. } => {
                let diags = flowmcp_validate::catalog::validate_catalog_fixture(dir, &opts);
                let report = FileReport::new(
                    format!("{name}/{REGISTRY_FILE}"),
                    flowmcp_spec::diagnostic::ReportKind::Catalog,
                    diags,
                );
                let text = render::human(std::slice::from_ref(&report), HumanStyle::default());
                scrub_paths(&text, dir, name)
            }
            // The outcome is the fixture's checked expectation (the runtime's fixture test).
            Form::Call { expect, call, .. } => {
                if expect == "ok" {
                    return "{ \"status\": true, … }\n".to_string();
                }
                let (code, rest) = expect.split_once(' ').unwrap_or((expect, ""));
                let tool = call
                    .split(' ')
                    .next()
                    .and_then(|w| w.rsplit_once('_'))
                    .map_or("", |(t, _)| t);
                format!("{code} {tool}: {rest}…\n")
            }
        }
    }
}

/// Validates a copy of `bytes` in a temporary directory, under the name of `path`, beside the
/// `databases` built there.
fn validate_copy(
    path: &Path,
    bytes: &[u8],
    databases: &[FixtureDatabase],
    opts: &Options,
) -> Result<flowmcp_validate::FileReport, String> {
    let dir = std::env::temp_dir().join(format!(
        "flowmcp-xtask-docs-{}-{}",
        std::process::id(),
        TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| EXAMPLE_NAME.into());
    let copy = dir.join(name);
    let result = std::fs::write(&copy, bytes)
        .map_err(|e| format!("{}: {e}", copy.display()))
        .and_then(|()| {
            databases
                .iter()
                .try_for_each(|db| build_database(&db.sql, &dir.join(&db.target)))
        })
        .map(|()| {
            let scope = lists::scope_near(&copy, EXAMPLE_NAME, &opts.settings, &opts.limits);
            validate_file(&copy, EXAMPLE_NAME, &scope, opts)
        });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Builds a SQLite database at `target` from the SQL file `sql`.
fn build_database(sql: &Path, target: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(sql).map_err(|e| format!("{}: {e}", sql.display()))?;
    flowmcp_resources::sqlite::Database::create(
        target,
        &text,
        &flowmcp_resources::sqlite::Limits::default(),
    )
    .map(drop)
    .map_err(|e| format!("{}: {e}", sql.display()))
}

/// Replaces every spelling of the absolute path of `dir` in `text` (as given, absolute and
/// canonical) with `replacement`, so that no machine path reaches the pages.
fn scrub_paths(text: &str, dir: &Path, replacement: &str) -> String {
    let mut spellings: Vec<String> = [
        Some(dir.to_path_buf()),
        std::path::absolute(dir).ok(),
        std::fs::canonicalize(dir).ok(),
    ]
    .into_iter()
    .flatten()
    .filter(|p| p.is_absolute())
    .map(|p| p.to_string_lossy().into_owned())
    .filter(|s| s.len() > 1)
    .collect();
    // Longest first, so that a path is not half-replaced by one of its prefixes.
    spellings.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    spellings.dedup();
    let mut out = text.to_string();
    for s in &spellings {
        out = out.replace(s.as_str(), replacement);
    }
    out
}

/// The files below `dir` whose relative path `keep` accepts, shown as `<label>/<relative path>`:
/// `registry.json` first, then the others sorted by path. Symbolic links are listed, not followed;
/// very long files are shortened, and at most [`MAX_LISTED_FILES`] files are listed.
fn list_files(dir: &Path, label: &str, keep: &dyn Fn(&str) -> bool) -> Vec<Listed> {
    let mut found: Vec<(String, PathBuf, bool)> = Vec::new();
    collect_files(dir, "", 0, &mut found);
    found.retain(|(rel, _, _)| keep(rel));
    found.sort_by(|a, b| {
        let first = |rel: &str| rel != REGISTRY_FILE;
        first(&a.0).cmp(&first(&b.0)).then_with(|| a.0.cmp(&b.0))
    });
    let total = found.len();
    let mut out: Vec<Listed> = found
        .into_iter()
        .take(MAX_LISTED_FILES)
        .map(|(rel, path, is_link)| Listed {
            rel: format!("{label}/{rel}"),
            body: if is_link {
                let target = std::fs::read_link(&path)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| "?".to_string());
                ListedBody::Link(target)
            } else {
                read_listed(&path)
            },
        })
        .collect();
    if total > MAX_LISTED_FILES {
        out.push(Listed {
            rel: String::new(),
            body: ListedBody::Omitted(total - MAX_LISTED_FILES),
        });
    }
    out
}

/// Collects the files below `dir` (relative paths with `/`), without following symbolic links.
fn collect_files(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf, bool)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            out.push((rel, entry.path(), true));
        } else if kind.is_dir() {
            if depth < MAX_LISTED_DEPTH {
                collect_files(&entry.path(), &rel, depth + 1, out);
            }
        } else if kind.is_file() {
            out.push((rel, entry.path(), false));
        }
    }
}

/// Reads one listed file, shortened to [`MAX_LISTED_LINES`] lines and [`MAX_LISTED_BYTES`] bytes.
fn read_listed(path: &Path) -> ListedBody {
    let raw = match std::fs::read(path) {
        Ok(raw) => raw,
        Err(e) => return ListedBody::Unreadable(e.kind().to_string()),
    };
    let mut notes = Vec::new();
    let mut text = match String::from_utf8(raw) {
        Ok(t) => t,
        Err(e) => {
            notes.push(
                "The file contains bytes that are not valid UTF-8; they are shown as `\u{FFFD}` here."
                    .to_string(),
            );
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    let lines = text.lines().count();
    let mut shortened = false;
    if lines > MAX_LISTED_LINES {
        let keep: usize = text
            .split_inclusive('\n')
            .take(MAX_LISTED_LINES)
            .map(str::len)
            .sum();
        text.truncate(keep);
        shortened = true;
    }
    if text.len() > MAX_LISTED_BYTES {
        let mut cut = MAX_LISTED_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        shortened = true;
    }
    if shortened {
        notes.push(format!(
            "Shortened: the file has {lines} {}; the beginning is shown.",
            if lines == 1 { "line" } else { "lines" }
        ));
    }
    ListedBody::Text { text, notes }
}

/// The language of a code block for a listed file.
fn listed_lang(rel: &str) -> &'static str {
    match rel.rsplit_once('.').map(|(_, ext)| ext) {
        Some("json") => "json",
        Some("mjs" | "js") => "js",
        Some("md") => "md",
        _ => "text",
    }
}

/// Appends a listing: each file's path, then its content in a code block.
fn listing(out: &mut String, files: &[Listed]) {
    for f in files {
        match &f.body {
            ListedBody::Text { text, notes } => {
                let _ = writeln!(out, "{}:\n", code_span(&f.rel));
                code_block(out, listed_lang(&f.rel), text);
                for note in notes {
                    out.push_str(note);
                    out.push_str("\n\n");
                }
            }
            ListedBody::Link(target) => {
                let _ = writeln!(
                    out,
                    "{} is a symbolic link to {}.\n",
                    code_span(&f.rel),
                    code_span(target)
                );
            }
            ListedBody::Unreadable(why) => {
                let _ = writeln!(out, "{} cannot be read ({why}).\n", code_span(&f.rel));
            }
            ListedBody::Omitted(n) => {
                let files = if *n == 1 { "file is" } else { "files are" };
                let _ = writeln!(out, "{n} more {files} not shown.\n");
            }
        }
    }
}

/// One example (failing or passing) of a rule page. The shared lists next to module examples are
/// listed once per page (`lists_shown`).
fn example_section(out: &mut String, ex: &Example, failing: bool, lists_shown: &mut bool) {
    match &ex.form {
        Form::Module {
            lists, databases, ..
        } => {
            code_block(out, "js", &ex.text);
            if let Some(note) = &ex.note {
                out.push_str(note);
                out.push_str("\n\n");
            }
            for db in databases {
                let sql = db
                    .sql
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "Beside it, the SQLite database {} is built from {}:\n",
                    code_span(&db.target),
                    code_span(&sql)
                );
                if let ListedBody::Text { text, .. } = read_listed(&db.sql) {
                    code_block(out, "sql", &text);
                }
            }
            if !lists.is_empty() {
                if *lists_shown {
                    let _ = writeln!(
                        out,
                        "It sees the same shared lists (`{LISTS_DIR}/` next to it) as the failing \
                         example.\n"
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "It sees the shared lists in the `{LISTS_DIR}/` directory next to it:\n"
                    );
                    listing(out, lists);
                    *lists_shown = true;
                }
            }
            if failing {
                let _ = writeln!(out, "{} reports:\n", code_span(&ex.command()));
                code_block(out, "text", &ex.evaluate());
            } else if ex.profile != Profile::Spec || ex.max_file_size.is_some() {
                let _ = writeln!(out, "Validated with {}.\n", code_span(&ex.command()));
            }
        }
        Form::Id { .. } => {
            code_block(out, "sh", &ex.command());
            out.push_str("Output:\n\n");
            code_block(out, "text", &ex.evaluate());
        }
        Form::Call { upstream, env, .. } => {
            code_block(out, "js", &ex.text);
            let mut how = format!("Called as {}", code_span(&ex.command()));
            if !env.is_empty() {
                let _ = write!(how, " with {} set", env.join(", "));
            }
            match upstream {
                Some(u) => {
                    let _ = write!(how, ", where the upstream {u}");
                }
                None => how.push_str(", with no upstream reachable"),
            }
            if failing {
                let _ = writeln!(out, "{how}, the envelope's first message reads:\n");
            } else {
                let _ = writeln!(out, "{how}, the call succeeds:\n");
            }
            code_block(out, "text", &ex.evaluate());
        }
        Form::Catalog { name, files, .. } => {
            let dir = code_span(&format!("{name}/"));
            if files.is_empty() {
                let _ = writeln!(out, "An empty catalog directory, {dir}.\n");
            } else {
                let what = if files.len() == 1 {
                    "this file"
                } else {
                    "these files"
                };
                let _ = writeln!(out, "A catalog directory, {dir}, with {what}:\n");
                listing(out, files);
            }
            if failing {
                let has_modules = files.iter().any(|f| f.rel.ends_with(".mjs"));
                let others = if has_modules {
                    " (its `.mjs` files are validated too, each in a report of its own, not shown \
                     here)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "{} reports for the catalog itself{others}:\n",
                    code_span(&ex.command())
                );
                code_block(out, "text", &ex.evaluate());
            } else if ex.profile != Profile::Spec || ex.max_file_size.is_some() {
                let _ = writeln!(out, "Validated with {}.\n", code_span(&ex.command()));
            }
        }
    }
}

/// An inline code span whose backtick fence is longer than any backtick run in `text`.
fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

/// `text` as one shell word in double quotes (`"…"`), or in single quotes when it holds a
/// character that double quotes do not protect.
fn shell_quote(text: &str) -> String {
    if text.contains(['"', '\\', '$', '`', '!', '\n']) {
        format!("'{}'", text.replace('\'', r"'\''"))
    } else {
        format!("\"{text}\"")
    }
}

/// `text` as a shell word: as it is when it is plain, quoted otherwise.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+'));
    if plain {
        text.to_string()
    } else {
        shell_quote(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_rules_are_current() {
        let root = crate::workspace_root();
        let pages = generate(&root.join(FIXTURES_DIR), &read_prose(&root).unwrap());
        let changes = changes(&root.join(OUT_DIR), &pages).unwrap();
        assert!(changes.is_empty(), "{STALE}\n{}", describe(&changes));
        let notes = std::fs::read_to_string(root.join(LSP_NOTES)).unwrap_or_default();
        assert!(
            notes == lsp_notes(&pages),
            "{STALE}\n  outdated: {LSP_NOTES}"
        );
    }

    /// Issue #42: the language server's notes hold every code's why and, where the failing
    /// example's report names a line, that line marked among its neighbours.
    #[test]
    fn i42_the_rule_notes_hold_the_why_and_the_failing_lines() {
        let root = crate::workspace_root();
        let pages = generate(&root.join(FIXTURES_DIR), &read_prose(&root).unwrap());
        let notes = lsp_notes(&pages);
        for r in RULES {
            assert!(
                notes.contains(&format!("\n## {}\n\n", r.code)),
                "{}",
                r.code
            );
        }
        let val087 = notes.split("\n## VAL087\n\n").nth(1).unwrap();
        let val087 = val087.split("\n## ").next().unwrap();
        assert!(val087.contains("A stale hash means"), "{val087}");
        assert!(
            val087.contains(">   8 |     schemaHash: 12345678,"),
            "{val087}"
        );
    }

    #[test]
    fn every_code_has_a_page_and_an_index_row() {
        let prose = read_prose(&crate::workspace_root()).unwrap();
        let pages = generate(Path::new("/nonexistent/fixtures"), &prose);
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
    fn every_implemented_or_not_emitted_code_has_prose() {
        let prose = read_prose(&crate::workspace_root()).unwrap();
        let missing: Vec<&str> = RULES
            .iter()
            .filter(|r| !matches!(r.status, Status::Planned(_)) && !prose.contains_key(&r.code))
            .map(|r| r.code.as_str())
            .collect();
        assert!(
            missing.is_empty(),
            "codes without a `/// CODE: …` doc comment section (what it checks, `# Why`, why) next \
             to their check: {missing:?}"
        );
    }

    #[test]
    fn prose_is_tidy_and_stands_alone() {
        let prose = read_prose(&crate::workspace_root()).unwrap();
        for (code, p) in &prose {
            for text in [&p.what, &p.why] {
                assert!(!text.contains("  "), "{code} ({}): double space", p.at);
                assert!(
                    text.ends_with('.') || text.ends_with(".)"),
                    "{code} ({}): {text:?} ends without a period",
                    p.at
                );
                for para in text.split("\n\n") {
                    assert_eq!(
                        para.matches('`').count() % 2,
                        0,
                        "{code} ({}): unbalanced backticks in {para:?}",
                        p.at
                    );
                }
                assert_eq!(
                    outside_reference(text),
                    None,
                    "{code} ({}): the prose cites a document outside the repository; say what it \
                     decides instead",
                    p.at
                );
            }
        }
    }

    #[test]
    fn pages_cite_nothing_outside_the_repository() {
        let dir = crate::workspace_root().join(OUT_DIR);
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            assert_eq!(outside_reference(&text), None, "{OUT_DIR}/{name}");
            seen += 1;
        }
        assert_eq!(seen, RULES.len() + 1);
    }

    /// Every tracked file of the repository (sources, data, documentation), not only the generated
    /// pages and the rule prose: a public reader cannot open a document that lives outside it.
    /// Skipped outside a git checkout (e.g. a source package), where the file list is unknown.
    #[test]
    fn repository_cites_nothing_outside_itself() {
        let root = crate::workspace_root();
        let Ok(out) = std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["ls-files", "-z"])
            .output()
        else {
            return;
        };
        if !out.status.success() {
            return;
        }
        let listed = String::from_utf8(out.stdout).unwrap();
        let (mut found, mut seen) = (Vec::new(), 0);
        for rel in listed.split('\0').filter(|r| !r.is_empty()) {
            if rel.ends_with("Cargo.lock") {
                continue;
            }
            // Binary files are not text a reader follows; a file deleted in the work tree is gone.
            let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
                continue;
            };
            seen += 1;
            for (n, line) in text.lines().enumerate() {
                if let Some(r) = outside_reference(line) {
                    found.push(format!("{rel}:{}: {r}", n + 1));
                }
            }
        }
        assert!(seen > RULES.len(), "only {seen} files read");
        assert!(
            found.is_empty(),
            "references to documents outside the repository; say what they decide instead:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn outside_references_are_found() {
        // Built at run time, so that this file holds none of the strings it looks for.
        let id = |prefix: &str, n: &str| format!("{prefix}-{n}");
        let [rulings, digest, shared] = OUTSIDE_NEEDLES;
        assert_eq!(
            outside_reference(&format!("see ruling {}.", id("N", "19"))),
            Some(id("N", "19"))
        );
        assert_eq!(
            outside_reference(&format!("({}, was VAL060)", id("CC", "01"))),
            Some(id("CC", "01"))
        );
        assert_eq!(
            outside_reference(&format!("({}..{})", id("CC", "21"), id("CC", "24"))),
            Some(id("CC", "21"))
        );
        assert_eq!(
            outside_reference(&format!("in `{rulings}.md`")),
            Some(rulings.into())
        );
        assert_eq!(
            outside_reference(&format!("({digest} §4.4)")),
            Some(digest.into())
        );
        assert_eq!(
            outside_reference(&format!("{shared}/x.mjs")),
            Some(shared.into())
        );
        // Codes, encodings, sizes and other words with a hyphen and a digit are not ruling IDs.
        assert_eq!(
            outside_reference("VAL060–VAL065, UTF-8, SHA-256, 4 MiB"),
            None
        );
        assert_eq!(
            outside_reference(&format!(
                "{}, {}, `N-`, N-x, {}x",
                id("JSON", "1"),
                id("SN", "1"),
                id("CC", "")
            )),
            None
        );
        assert_eq!(outside_reference("a message digest, ../other/x.mjs"), None);
    }

    fn parse(text: &str) -> (ProseMap, Vec<String>) {
        let mut prose = ProseMap::new();
        let mut errors = Vec::new();
        parse_prose(text, "f.rs", &mut prose, &mut errors);
        (prose, errors)
    }

    #[test]
    fn prose_sections_are_read_from_doc_comments() {
        let (prose, errors) = parse(
            "/// Reports two rules.\n\
             ///\n\
             /// VAL031: `main.tools` has more\n\
             /// than 8 entries.\n\
             ///\n\
             /// Second paragraph.\n\
             ///\n\
             /// # Why\n\
             ///\n\
             /// Small schemas\n\
             /// stay focused.\n\
             ///\n\
             ///   VAL032: The method.\n\
             ///   # Why\n\
             ///   It builds the request.\n\
             fn check() {}\n\
             /// VAL033: a mention without a why.\n\
             //// VAL034: not a doc comment.\n\
             // VAL035: not a doc comment either.\n\
             /// # Why\n\
             /// Orphan.\n\
             /// Val036: not a code. VAL037 without a colon.\n\
             /// # Why\n\
             /// Orphan.\n",
        );
        assert_eq!(errors, Vec::<String>::new());
        let codes: Vec<&str> = prose.keys().map(|c| c.as_str()).collect();
        assert_eq!(codes, ["VAL031", "VAL032"]);
        let p = &prose[&Code::VAL031];
        assert_eq!(
            p.what,
            "`main.tools` has more than 8 entries.\n\nSecond paragraph."
        );
        assert_eq!(p.why, "Small schemas stay focused.");
        assert_eq!(p.at, "f.rs:3");
        let p = &prose[&Code::VAL032];
        assert_eq!(
            (p.what.as_str(), p.why.as_str()),
            ("The method.", "It builds the request.")
        );
    }

    #[test]
    fn prose_errors_are_reported() {
        let (_, errors) = parse(
            "/// VAL031: What.\n/// # Why\n/// Why.\nfn a() {}\n\
             /// VAL031: Again.\n/// # Why\n/// Why.\nfn b() {}\n\
             /// VAL032: What.\n/// # Why\n/// Why.\n/// # Panics\n/// Never.\nfn c() {}\n\
             /// VAL033: What.\n/// # Why\nfn d() {}\n",
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("f.rs:5: VAL031 already has prose at f.rs:1"));
        assert!(errors[1].contains("heading \"# Panics\""));
        assert!(errors[2].contains("VAL033: empty"));
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

    /// A fresh temporary directory for one test.
    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "flowmcp-xtask-docs-{tag}-{}-{}",
            std::process::id(),
            TEMP_SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn id_fixtures_become_commands() {
        let dir = temp_dir("id");
        let path = dir.join("fail_upper.id");
        std::fs::write(
            &path,
            "// expect: ID002 error -\nCOINGECKO/tool/simplePrice\n",
        )
        .unwrap();
        let ex = Example::read_id(&path).unwrap();
        assert_eq!(ex.text, "COINGECKO/tool/simplePrice");
        assert_eq!(
            ex.command(),
            "flowmcp validate --id \"COINGECKO/tool/simplePrice\""
        );
        let out = ex.evaluate();
        assert!(out.starts_with("ID002 error"), "{out}");
        assert!(out.ends_with("ID is invalid\n"), "{out}");

        // An empty ID, and one that needs single quotes.
        std::fs::write(&path, "// profile: compat\n// expect: ID001 error -\n").unwrap();
        let ex = Example::read_id(&path).unwrap();
        assert_eq!(ex.command(), "flowmcp validate --profile compat --id \"\"");
        std::fs::write(&path, "a/tool/$x\n").unwrap();
        let ex = Example::read_id(&path).unwrap();
        assert_eq!(ex.command(), "flowmcp validate --id 'a/tool/$x'");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn catalog_fixtures_are_listed_and_validated_without_machine_paths() {
        let root = temp_dir("cat");
        let dir = root.join("fail_demo");
        std::fs::create_dir_all(dir.join("providers/demo")).unwrap();
        std::fs::write(dir.join("fixture.txt"), "// expect: CAT002 error /name\n").unwrap();
        std::fs::write(
            dir.join("registry.json"),
            r#"{ "name": "other", "version": "1.0.0", "description": "d", "schemaSpec": "4.2.0",
  "shared": [], "schemas": [], "agents": [] }"#,
        )
        .unwrap();
        let long: String = (0..200).map(|i| format!("// line {i}\n")).collect();
        std::fs::write(dir.join("providers/demo/a.mjs"), &long).unwrap();
        std::fs::write(dir.join("aaa.txt"), "first by name\n").unwrap();

        let ex = Example::read_catalog(&dir).unwrap();
        let Form::Catalog { files, .. } = &ex.form else {
            panic!("not a catalog");
        };
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                "fail_demo/registry.json",
                "fail_demo/aaa.txt",
                "fail_demo/providers/demo/a.mjs"
            ]
        );
        assert_eq!(ex.command(), "flowmcp validate fail_demo/");
        let out = ex.evaluate();
        assert!(
            out.contains("CAT002 error fail_demo/registry.json"),
            "{out}"
        );
        assert!(!out.contains(&root.to_string_lossy().into_owned()), "{out}");

        let mut page = String::new();
        let mut shown = false;
        example_section(&mut page, &ex, true, &mut shown);
        assert!(page.contains("A catalog directory, `fail_demo/`, with these files:"));
        assert!(page.contains("```json\n{ \"name\": \"other\""));
        assert!(page.contains("// line 59\n```"), "{page}");
        assert!(!page.contains("// line 60"));
        assert!(page.contains("Shortened: the file has 200 lines"));
        assert!(!page.contains("fixture.txt"));
        assert!(!page.contains(&root.to_string_lossy().into_owned()));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn all_three_forms_are_found_and_support_entries_skipped() {
        let dir = temp_dir("find");
        std::fs::create_dir_all(dir.join("_lists")).unwrap();
        std::fs::create_dir_all(dir.join("fail_a_catalog")).unwrap();
        std::fs::write(dir.join("fail_b.id"), "x\n").unwrap();
        std::fs::write(dir.join("pass.mjs"), "export const main = {}\n").unwrap();
        std::fs::write(dir.join("pass_a.txt"), "ignored\n").unwrap();
        std::fs::write(dir.join("_lists/colors.mjs"), "export const list = {}\n").unwrap();
        std::fs::write(dir.join("_lists/notes.txt"), "not a list\n").unwrap();
        let found = Examples::find(&dir);
        assert!(matches!(
            found.fail.as_ref().map(|e| &e.form),
            Some(Form::Catalog { .. })
        ));
        match found.pass.as_ref().map(|e| &e.form) {
            Some(Form::Module { lists, .. }) => {
                let rels: Vec<&str> = lists.iter().map(|f| f.rel.as_str()).collect();
                assert_eq!(rels, ["_lists/colors.mjs"]);
            }
            _ => panic!("pass.mjs not found"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a/tool/b"), "\"a/tool/b\"");
        assert_eq!(shell_quote("it's"), "\"it's\"");
        assert_eq!(shell_quote("a\"b'c"), r#"'a"b'\''c'"#);
        assert_eq!(shell_word("fail_x"), "fail_x");
        assert_eq!(shell_word("a b"), "\"a b\"");
        assert_eq!(code_span("a`b"), "`` a`b ``");
        assert_eq!(code_span("ab"), "`ab`");
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
