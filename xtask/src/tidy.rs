//! `cargo xtask tidy`: keeps ARCHITECTURE.md's structural statements true.
//!
//! Eight checks, each over the sources as they are (no build):
//!
//! 1. **Crate edges.** Every normal or build dependency of a workspace crate on another workspace
//!    crate (the workspace-hack aside) is listed in ARCHITECTURE.md's crate table; a
//!    dev-dependency (tests, examples) may also name a crate that does not depend on this one,
//!    directly or through others, by the table (a lower crate never names a higher one, not even
//!    in a test).
//! 2. **File cycles.** Within a crate, the source files (nested modules each a file of their own;
//!    inline `mod x { … }` part of its file) form no import cycle. A file imports the files its
//!    paths lead to: every path it writes from `crate`, `super`, `self` or a name of its own
//!    module (in `use` trees and groups, types and expressions) goes to the deepest module file
//!    it reaches, and a name a module imports or re-exports (`pub use`, a glob) leads on to the
//!    file that defines it. A re-export itself (`pub use`) is no import of the file that writes
//!    it, and the crate root (`lib.rs`, `main.rs`) is no node: it is the crate's front door
//!    (D105). A visibility (`pub(super)`, `pub(in …)`) is no import, and a lifetime
//!    (`'static`) no keyword (D113). Each cycle is one problem line with its files in order;
//!    every cycle is a problem (none is tolerated since the last four were broken, D113).
//!    Items marked `#[cfg(test)]` (test modules, wherever they are in a file) do not count,
//!    here or in the other checks.
//! 3. **Registered codes.** Every code-shaped string literal (`"E007"`, `"MD004 …"`) in product code
//!    is a code of the registry in `flowmcp-spec`.
//! 4. **IDs formatted in one place.** No `format!` outside `flowmcp-spec`'s ID module writes
//!    `…/tool/…`, `…/resource/…`, `…/prompt/…`, `…/skill/…`, `…/selection/…` or `…/agent/…`.
//! 5. **Public-API budget.** Checked by `cargo xtask api` (every reachable public item, against
//!    the crate table's "public items"); tidy only reads the column.
//! 6. **CLI wording lives in the CLI.** No string literal in a library crate's product code (every
//!    `flowmcp-*` crate but the CLI) tells the user to run a `flowmcp` command (`` `flowmcp … ``, or
//!    `flowmcp` followed by one of the CLI's subcommands, read from the CLI's `enum Command`) or to
//!    pass a command-line flag (`--word`): embedders have no `flowmcp` binary. The libraries state
//!    facts; the CLI adds the advice (D74). Doc comments and test modules do not count.
//! 7. **Files by capability.** Product code calls the standard library's path-taking file
//!    functions (`fs::read`, `fs::write`, `File::open`, `OpenOptions::new`, `fs::canonicalize`,
//!    …) only in `flowmcp-files`, the one crate that opens files through directory handles or
//!    as paths the user named (D98, D101). Clippy's `disallowed-methods` enforces the same with
//!    types; this check makes sure `clippy.toml` keeps refusing those functions and that the lint
//!    is turned off only in that crate, at the roots of test, example and tool targets, for unit
//!    tests (`cfg_attr(test, …)` at a crate root) and at the places of `LINT_ALLOWED`.
//!
//! 8. **CLI commands stand alone.** No command file of the CLI (`commands/<name>.rs`, or a file
//!    under `commands/<name>/`) imports another command's file, by check 2's import graph (so
//!    also through a re-export): what two commands share lives in `context` (configuration into
//!    library options) or in a shared module beside `commands/` (D114).
//!
//! The crate table sits between `<!-- tidy:crates -->` and `<!-- /tidy:crates -->` in
//! ARCHITECTURE.md: `| crate | may depend on | public items |`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::workspace_root;

/// The crate that only lists dependencies for feature unification; any crate may use it.
const HACK: &str = "flowmcp-workspace-hack";
/// The one module allowed to format IDs.
const ID_MODULE: &str = "crates/flowmcp-spec/src/id.rs";
/// ID kinds whose `/kind/` segment marks a formatted ID.
const ID_KINDS: [&str; 6] = ["tool", "resource", "prompt", "skill", "selection", "agent"];
/// The one crate that may open files by path: it opens them through directory handles, or as
/// paths the user named.
const FS_CRATE: &str = "crates/flowmcp-files/";
/// Functions `clippy.toml` must refuse outside [`FS_CRATE`] (its `disallowed-methods`).
const FS_LINTED: [&str; 16] = [
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::write",
    "std::fs::create_dir_all",
    "std::fs::remove_file",
    "std::fs::remove_dir_all",
    "std::fs::rename",
    "std::fs::canonicalize",
    "std::fs::metadata",
    "std::fs::symlink_metadata",
    "std::fs::read_dir",
    "std::fs::File::open",
    "std::fs::OpenOptions::open",
    "std::path::Path::exists",
    "std::path::Path::is_file",
    "std::path::Path::canonicalize",
];
/// Files outside [`FS_CRATE`] that may turn `disallowed_methods` off, how often, and why.
const LINT_ALLOWED: [(&str, usize); 1] = [
    // SQLite opens, creates and backs up its database files by name (rusqlite has no way to
    // hand it a descriptor); the paths come from flowmcp_files::Root::resolve (SECURITY.md).
    ("crates/flowmcp-resources/src/sqlite/mod.rs", 4),
];
/// The path-taking file functions the capability check counts.
const FS_CALLS: [&str; 17] = [
    "fs::read(",
    "fs::read_to_string(",
    "fs::write(",
    "fs::create_dir_all(",
    "fs::create_dir(",
    "fs::remove_file(",
    "fs::remove_dir_all(",
    "fs::remove_dir(",
    "fs::rename(",
    "fs::canonicalize(",
    "fs::metadata(",
    "fs::symlink_metadata(",
    "fs::read_dir(",
    "fs::copy(",
    "File::open(",
    "File::create(",
    "OpenOptions::new(",
];
/// The CLI's crate: the one crate whose texts may name `flowmcp` commands and flags.
const CLI: &str = "flowmcp-cli";
/// The folder (under the CLI's `src/`) with one file per command; check 8.
const CLI_COMMANDS_DIR: &str = "commands/";
/// The file of the CLI that declares its subcommands (`enum Command`).
const CLI_COMMANDS: &str = "crates/flowmcp-cli/src/main.rs";
/// Library literals that may keep CLI wording, each with its reason: the file, a piece of the
/// literal's text, and why it stays.
const CLI_WORDING_ALLOWED: [(&str, &str, &str); 1] = [(
    "crates/flowmcp-catalog/src/prompts.rs",
    "`flowmcp call {} --input '{}'`",
    "the `{{tool:…:call}}` content placeholder renders, by definition (D47), the command line \
     that calls the tool; it is prompt content the catalog's author asked for, not advice",
)];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: cargo xtask tidy".into());
    }
    let root = workspace_root();
    let problems = check(&root)?;
    if problems.is_empty() {
        println!(
            "tidy: crate edges, module cycles, codes, IDs, CLI wording, file calls and CLI commands are in order"
        );
        return Ok(());
    }
    for p in &problems {
        println!("{p}");
    }
    Err(format!("{} problem(s)", problems.len()))
}

/// Every problem of the workspace at `root`, one line each.
pub(crate) fn check(root: &Path) -> Result<Vec<String>, String> {
    let table = read_table(root)?;
    let crates = workspace_crates(root)?;
    let mut problems = Vec::new();
    problems.extend(crate_edges(&table, &crates));
    let commands = cli_commands(root)?;
    problems.extend(lint_configured(root)?);
    for krate in &crates {
        let library = is_library(&krate.name);
        for dir in krate.source_dirs() {
            let mut texts = Vec::new();
            for file in rust_files(&dir)? {
                let Ok(text) = std::fs::read_to_string(&file) else {
                    problems.push(format!("{}: cannot be read", shown(root, &file)));
                    continue;
                };
                texts.push((shown(&dir, &file), text));
            }
            problems.extend(module_cycles(&krate.name, root, &dir, &texts));
            if krate.name == CLI {
                problems.extend(
                    command_imports(&texts)
                        .into_iter()
                        .map(|line| format!("{}/{line}", shown(root, &dir))),
                );
            }
            for (rel, text) in &texts {
                let product = &product_part(text);
                let at = shown(root, &dir.join(rel));
                problems.extend(code_literals(&at, product));
                if at != ID_MODULE {
                    problems.extend(formatted_ids(&at, product));
                }
                if library {
                    problems.extend(cli_wording(&at, product, &commands));
                }
                if krate.name.starts_with("flowmcp-")
                    && !at.starts_with(FS_CRATE)
                    && !LINT_ALLOWED.iter().any(|(file, _)| *file == at)
                {
                    let n = fs_calls(product);
                    if n > 0 {
                        problems.push(format!(
                            "{at}: {n} path-taking file call(s) (fs::read, File::open, …) in product \
                             code: open files through flowmcp_files (Root for a catalog, project or \
                             cache folder, named for a path the user named; ARCHITECTURE.md, \
                             \"Trust boundary\")"
                        ));
                    }
                }
            }
        }
    }
    problems.extend(lint_allowances(root)?);
    Ok(problems)
}

/// How many path-taking file calls ([`FS_CALLS`]) `code` makes (comments and strings blanked).
pub(crate) fn fs_calls(code: &str) -> usize {
    let code = strip_comments_and_strings(code);
    FS_CALLS
        .iter()
        .map(|call| {
            code.match_indices(call)
                .filter(|(i, _)| {
                    // `fs::read(` but not `cap_fs::read(` or `my_fs::read(`.
                    let before = code[..*i].chars().last();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
                .count()
        })
        .sum()
}

/// The part of check 7 that clippy enforces: `clippy.toml` refuses every path-taking file
/// function ([`FS_LINTED`]), so that code outside the files crate cannot call one unnoticed.
fn lint_configured(root: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(root.join("clippy.toml"))
        .map_err(|e| format!("clippy.toml: {e}"))?;
    Ok(FS_LINTED
        .iter()
        .filter(|path| !text.contains(&format!("path = \"{path}\"")))
        .map(|path| {
            format!(
                "clippy.toml: `disallowed-methods` does not list {path}; every path-taking file \
                 function is refused outside flowmcp-files"
            )
        })
        .collect())
}

/// Every place that turns clippy's `disallowed_methods` off: only the files crate, the roots of
/// test, example and tool targets, `cfg_attr(test, …)` at a crate root (unit tests), and the
/// places of [`LINT_ALLOWED`].
fn lint_allowances(root: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "tests"] {
        files.extend(rust_files(&root.join(dir))?);
    }
    for file in files {
        let at = shown(root, &file);
        if at.starts_with(FS_CRATE) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        problems.extend(lint_allowance(&at, &text));
    }
    Ok(problems)
}

/// The problem with how the file at `at` turns `disallowed_methods` off, if it does so where it
/// may not ([`lint_allowances`]).
pub(crate) fn lint_allowance(at: &str, text: &str) -> Option<String> {
    let code = strip_comments_and_strings(text);
    let n = code.matches("clippy::disallowed_methods").count();
    if n == 0 {
        return None;
    }
    let crate_root = at.ends_with("/src/lib.rs") || at.ends_with("/src/main.rs");
    let target_root = at.ends_with("/tests/main.rs")
        || at.contains("/examples/")
        || at == "xtask/src/main.rs"
        || at.ends_with("/build.rs");
    let unit_tests = code
        .matches("#![cfg_attr(test, allow(clippy::disallowed_methods))]")
        .count();
    let whole = code
        .matches("#![allow(clippy::disallowed_methods)]")
        .count();
    let listed = LINT_ALLOWED
        .iter()
        .filter(|(file, _)| *file == at)
        .map(|(_, count)| *count)
        .sum::<usize>();
    let fine = (crate_root && n == unit_tests)
        || (target_root && n == whole)
        || (n == listed && unit_tests == 0 && whole == 0);
    (!fine).then(|| {
        format!(
            "{at}: turns clippy::disallowed_methods off {n} time(s); only flowmcp-files, the \
             roots of test, example and tool targets, unit tests (cfg_attr(test, …) at a \
             crate root) and the places listed in xtask's LINT_ALLOWED may"
        )
    })
}

/// A row of ARCHITECTURE.md's crate table.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Row {
    /// Workspace crates this one may depend on.
    allowed: BTreeSet<String>,
    /// Most public items it may have (`cargo xtask api`; `None`: not budgeted, e.g. binaries).
    pub(crate) budget: Option<usize>,
}

pub(crate) fn read_table(root: &Path) -> Result<BTreeMap<String, Row>, String> {
    let path = root.join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_table(&text).map_err(|e| format!("ARCHITECTURE.md: {e}"))
}

/// Parses the crate table between the tidy markers.
pub(crate) fn parse_table(text: &str) -> Result<BTreeMap<String, Row>, String> {
    let start = text
        .find("<!-- tidy:crates -->")
        .ok_or("no `<!-- tidy:crates -->` marker")?;
    let end = text[start..]
        .find("<!-- /tidy:crates -->")
        .ok_or("no `<!-- /tidy:crates -->` marker")?;
    let mut rows = BTreeMap::new();
    for line in text[start..start + end].lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.len() != 3 || !cells[0].starts_with('`') {
            continue;
        }
        let name = cells[0].trim_matches('`').to_string();
        let allowed = cells[1]
            .split(',')
            .map(|c| c.trim().trim_matches('`').to_string())
            .filter(|c| !c.is_empty() && c != "—" && c != "-")
            .collect();
        let budget = match cells[2] {
            "—" | "-" | "" => None,
            n => Some(
                n.parse()
                    .map_err(|_| format!("{name}: public items {n:?} is not a number"))?,
            ),
        };
        rows.insert(name, Row { allowed, budget });
    }
    if rows.is_empty() {
        return Err("the crate table between the tidy markers has no rows".into());
    }
    Ok(rows)
}

/// A workspace crate and its dependencies on other workspace crates.
struct Crate {
    name: String,
    dir: PathBuf,
    /// Normal and build dependencies on workspace crates.
    uses: BTreeSet<String>,
    /// Dev-dependencies on workspace crates.
    dev_uses: BTreeSet<String>,
}

impl Crate {
    /// The directories holding its product code (`src/`; examples, tests and benches aside).
    fn source_dirs(&self) -> Vec<PathBuf> {
        let src = self.dir.join("src");
        if src.is_dir() { vec![src] } else { Vec::new() }
    }
}

fn workspace_crates(root: &Path) -> Result<Vec<Crate>, String> {
    let meta = crate::cargo_metadata(root)?;
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect();
    let mut crates = Vec::new();
    for p in &packages {
        let (Some(name), Some(manifest)) = (p["name"].as_str(), p["manifest_path"].as_str()) else {
            continue;
        };
        let dir = Path::new(manifest)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let (mut uses, mut dev_uses) = (BTreeSet::new(), BTreeSet::new());
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let Some(dep) = d["name"].as_str() else {
                continue;
            };
            if !names.contains(dep) || dep == HACK {
                continue;
            }
            if d["kind"].as_str() == Some("dev") {
                dev_uses.insert(dep.to_string());
            } else {
                uses.insert(dep.to_string());
            }
        }
        crates.push(Crate {
            name: name.to_string(),
            dir,
            uses,
            dev_uses,
        });
    }
    Ok(crates)
}

fn crate_edges(table: &BTreeMap<String, Row>, crates: &[Crate]) -> Vec<String> {
    let mut problems = Vec::new();
    for krate in crates {
        let Some(row) = table.get(&krate.name) else {
            problems.push(format!(
                "Cargo.toml of {}: the crate is missing from ARCHITECTURE.md's crate table",
                krate.name
            ));
            continue;
        };
        for used in &krate.uses {
            if !row.allowed.contains(used) {
                problems.push(format!(
                    "{}/Cargo.toml: {} depends on {used}, which ARCHITECTURE.md's crate table does not allow",
                    krate.name, krate.name
                ));
            }
        }
        for used in &krate.dev_uses {
            if !row.allowed.contains(used) && reaches(table, used, &krate.name) {
                problems.push(format!(
                    "{}/Cargo.toml: {} names {used} in its tests, but {used} depends on {} (ARCHITECTURE.md's crate table)",
                    krate.name, krate.name, krate.name
                ));
            }
        }
    }
    problems
}

/// Whether `from` depends on `to`, directly or through others, by the crate table.
pub(crate) fn reaches(table: &BTreeMap<String, Row>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(c) = stack.pop() {
        if c == to {
            return true;
        }
        if seen.insert(c.clone())
            && let Some(row) = table.get(&c)
        {
            stack.extend(row.allowed.iter().cloned());
        }
    }
    false
}

fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn shown(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The file's product code: its text without the items marked `#[cfg(test)]` (a test module
/// anywhere in the file, a test-only function or import), each removed from its attribute to the
/// end of the item (its closing brace or semicolon). Braces in strings, raw strings, character
/// literals and comments do not count.
pub(crate) fn product_part(text: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut line_start = true;
    let mut kept_from = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start && text[i..].starts_with(MARK) {
            out.push_str(&text[kept_from..i]);
            i = item_end(text, i + MARK.len());
            kept_from = i;
            line_start = false;
            continue;
        }
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        i = skip_token(text, i);
        line_start = i > 0 && bytes.get(i - 1) == Some(&b'\n');
    }
    out.push_str(&text[kept_from..]);
    out
}

/// Where the item that starts after an attribute at `from` ends: after its closing brace at
/// depth zero, or its semicolon when it has no body.
fn item_end(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {
                i = skip_token(text, i);
                continue;
            }
        }
        i += 1;
    }
    bytes.len()
}

/// The index after the token at `i` when it is a comment, a string, a raw string or a character
/// literal (whose braces do not count); `i + 1` otherwise.
fn skip_token(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    let rest = &text[i..];
    let after = |needle: &str, from: usize| {
        text[from..]
            .find(needle)
            .map_or(bytes.len(), |k| from + k + needle.len())
    };
    if rest.starts_with("//") {
        return after("\n", i);
    }
    if rest.starts_with("/*") {
        return after("*/", i + 2);
    }
    let raw = rest
        .strip_prefix("br")
        .or_else(|| rest.strip_prefix('r'))
        .filter(|r| r.starts_with('"') || r.starts_with('#'));
    if let Some(r) = raw {
        let hashes = r.len() - r.trim_start_matches('#').len();
        if r[hashes..].starts_with('"') {
            // Only when the letter starts a token (not the end of an identifier like `for`).
            let prev = text[..i].chars().next_back();
            if !prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                let start = i + (rest.len() - r.len()) + hashes + 1;
                return after(&format!("\"{}", "#".repeat(hashes)), start);
            }
        }
    }
    match bytes[i] {
        b'"' => {
            let mut j = i + 1;
            while j < bytes.len() {
                match bytes[j] {
                    b'\\' => j += 2,
                    b'"' => return j + 1,
                    _ => j += 1,
                }
            }
            bytes.len()
        }
        b'\'' => {
            // A character literal ('{', '\'', '\u{7b}'), not a lifetime ('a).
            if bytes.get(i + 1) == Some(&b'\\') {
                let close = text[i + 2..]
                    .find('\'')
                    .map_or(bytes.len(), |k| i + 2 + k + 1);
                return close;
            }
            if bytes.get(i + 2) == Some(&b'\'') {
                return i + 3;
            }
            i + 1
        }
        _ => i + rest.chars().next().map_or(1, char::len_utf8),
    }
}

/// The code with comments removed and string literals emptied (so that text in them is not
/// taken for paths).
fn strip_comments_and_strings(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && matches!(chars.get(i + 1), Some('#') | Some('"'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'') or a lifetime ('a): skip only a literal.
            let close = if chars.get(i + 1) == Some(&'\\') {
                chars[i + 2..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map(|p| i + 2 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(end) => {
                    out.push_str("' '");
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Check 2 over one crate's `src/`: the files (already read, `(path under src, text)`) whose
/// imports form a cycle, one problem line per cycle (every cycle is a problem: none is
/// tolerated, D113).
fn module_cycles(krate: &str, root: &Path, src: &Path, files: &[(String, String)]) -> Vec<String> {
    let graph = import_graph(files);
    let at = |rel: &String| shown(root, &src.join(rel));
    cycles(&graph)
        .into_iter()
        .map(|component| {
            let ring = cycle_through(&graph, &component);
            let mut line = format!(
                "{krate}: {} import each other (a cycle)",
                ring.iter().map(at).collect::<Vec<_>>().join(" → ")
            );
            let rest: Vec<String> = component
                .iter()
                .filter(|f| !ring.contains(f))
                .map(at)
                .collect();
            if !rest.is_empty() {
                line.push_str(&format!("; the same knot holds {}", rest.join(", ")));
            }
            line
        })
        .collect()
}

/// One closed path through the first file of a strongly connected `component`, shortest first
/// (breadth-first), written `a → b → … → a`.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, component: &[String]) -> Vec<String> {
    let Some(start) = component.first() else {
        return Vec::new();
    };
    let inside: BTreeSet<&String> = component.iter().collect();
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            if w == start {
                // Back from `v` to the start, then turned around and closed.
                let mut ring = vec![v.clone()];
                let mut at = v;
                while let Some(previous) = came_from.get(at) {
                    ring.push((*previous).clone());
                    at = previous;
                }
                ring.reverse();
                ring.push(start.clone());
                return ring;
            }
            if inside.contains(w) && !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    component.to_vec()
}

/// The import graph of one crate: for every file under `src/` (given as `(path under src,
/// text)`), the other files it names.
///
/// Each file's product code ([`product_part`], comments and strings blanked) is read once for
/// what its modules hold (child modules, items defined, `use` bindings, glob imports), then
/// every path it writes that starts at `crate`, `super`, `self` or at a name of its own module
/// (a child module, an item, an import) is resolved to the file that defines what it names:
/// through modules to the deepest one it reaches, and through imports and re-exports (`pub
/// use`, or any `use` that a path names through its module) to where they lead. A path that
/// leaves the crate (`std::…`, another crate, an item re-exported from one) is no edge.
/// Inline modules (`mod x { … }`) are modules of their file.
pub(crate) fn import_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let has_lib = files.iter().any(|(rel, _)| rel == "lib.rs");
    let mut crate_files: Vec<(&str, Vec<String>, &str)> = Vec::new();
    for (rel, text) in files {
        if let Some(module) = file_module(rel, has_lib) {
            crate_files.push((rel, module, text));
        }
    }
    let mut index = ModuleIndex::default();
    for (n, (_, module, _)) in crate_files.iter().enumerate() {
        index
            .modules
            .entry(module.clone())
            .or_insert_with(|| Module {
                file: n,
                ..Module::default()
            });
    }
    let mut refs = Vec::new();
    let mut locals: Vec<BTreeMap<String, Vec<Import>>> = vec![BTreeMap::new(); crate_files.len()];
    for (n, (_, module, text)) in crate_files.iter().enumerate() {
        let code = strip_comments_and_strings(&product_part(text));
        read_modules(n, module, &code, &mut index, &mut refs, &mut locals[n]);
    }
    // The crate root is the crate's front door, not a node: it declares the modules, passes
    // names through and holds the crate's entry points, which use the modules (as before D105).
    let mut graph: BTreeMap<String, BTreeSet<String>> = crate_files
        .iter()
        .filter(|(_, module, _)| !module.is_empty())
        .map(|(rel, _, _)| (rel.to_string(), BTreeSet::new()))
        .collect();
    for (file, import) in refs {
        let mut fuel = RESOLVE_FUEL;
        let found = index.resolve_from_file(&import, &locals[file], &mut fuel);
        if let Found::File(to) | Found::Missing { file: to, .. } = found
            && to != file
            && !crate_files[to].1.is_empty()
            && let Some(edges) = graph.get_mut(crate_files[file].0)
        {
            edges.insert(crate_files[to].0.to_string());
        }
    }
    graph
}

/// Check 8 over the CLI's `src/` (files as `(path under src, text)`): every import of one
/// command's file by another's, one line each (`commands/a.rs imports commands/b.rs …`). A
/// command is a file `commands/<name>.rs` with the files under `commands/<name>/`;
/// `commands/mod.rs` declares them and is none.
pub(crate) fn command_imports(files: &[(String, String)]) -> Vec<String> {
    let command = |rel: &str| -> Option<String> {
        let rest = rel.strip_prefix(CLI_COMMANDS_DIR)?;
        if rest == "mod.rs" {
            return None;
        }
        let first = rest.split('/').next()?;
        Some(first.strip_suffix(".rs").unwrap_or(first).to_string())
    };
    let mut out = Vec::new();
    for (from, tos) in import_graph(files) {
        let Some(mine) = command(&from) else {
            continue;
        };
        for to in tos {
            if command(&to).is_some_and(|theirs| theirs != mine) {
                out.push(format!(
                    "{from} imports {to}: a command never imports another; move what they share \
                     into `context` or a shared module beside `commands/`"
                ));
            }
        }
    }
    out
}

/// How many imports and glob imports one path may go through before it is taken as reaching no
/// further (re-export loops through globs end there).
const RESOLVE_FUEL: usize = 256;

/// The module path of a file under `src/`: `lib.rs` (or `main.rs`) is the crate root,
/// `a.rs` and `a/mod.rs` are `a`, `a/b.rs` is `a::b`. `None` for files of other crates in the
/// same folder: `bin/…`, and `main.rs` beside a `lib.rs`.
fn file_module(rel: &str, has_lib: bool) -> Option<Vec<String>> {
    let rel = rel.strip_suffix(".rs")?;
    if rel == "lib" || (rel == "main" && !has_lib) {
        return Some(Vec::new());
    }
    if rel == "main" || rel.starts_with("bin/") {
        return None;
    }
    let mut parts: Vec<String> = rel.split('/').map(String::from).collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// A path as written in a module: its segments (`crate`, `super`, `self` or a name first) and
/// the module it is written in.
#[derive(Clone, Debug)]
struct Import {
    from: Vec<String>,
    segments: Vec<String>,
}

/// What a module holds, as far as paths through it go.
#[derive(Debug, Default)]
struct Module {
    /// The file it is written in (an index into the crate's files).
    file: usize,
    /// Items it defines (functions, types, traits, constants, macros, `mod x;` without a file).
    defines: BTreeSet<String>,
    /// Its `use` bindings: the name and what it stands for.
    imports: BTreeMap<String, Vec<Import>>,
    /// Its glob imports (`use x::*`), each the module globbed.
    globs: Vec<Import>,
}

#[derive(Default)]
struct ModuleIndex {
    modules: BTreeMap<Vec<String>, Module>,
}

/// Where a path leads.
#[derive(Debug, PartialEq)]
enum Found {
    /// To the file that defines what it names (or to a module's file).
    File(usize),
    /// Out of the crate.
    Outside,
    /// To a module of this file whose items do not show the next name (made by a macro, say):
    /// the deepest file reached. `first`: not even the path's first name was found.
    Missing { file: usize, first: bool },
}

impl ModuleIndex {
    /// Resolves a path written in a file, whose blocks may hold `use` bindings of their own.
    fn resolve_from_file(
        &self,
        import: &Import,
        locals: &BTreeMap<String, Vec<Import>>,
        fuel: &mut usize,
    ) -> Found {
        let found = self.resolve(import, fuel);
        if found != Found::Outside {
            return found;
        }
        let Some((first, rest)) = import.segments.split_first() else {
            return Found::Outside;
        };
        for local in locals.get(first).into_iter().flatten() {
            let mut segments = local.segments.clone();
            segments.extend_from_slice(rest);
            let found = self.resolve(
                &Import {
                    from: local.from.clone(),
                    segments,
                },
                fuel,
            );
            if found != Found::Outside {
                return found;
            }
        }
        Found::Outside
    }

    /// Where a path leads, from the module it is written in.
    fn resolve(&self, import: &Import, fuel: &mut usize) -> Found {
        let segments = &import.segments;
        let Some(first) = segments.first() else {
            return Found::Outside;
        };
        match first.as_str() {
            "crate" => self.walk(&[], &segments[1..], fuel),
            "self" => self.walk(&import.from, &segments[1..], fuel),
            "super" => {
                let up = segments.iter().take_while(|s| *s == "super").count();
                if up > import.from.len() {
                    return Found::Outside;
                }
                self.walk(
                    &import.from[..import.from.len() - up],
                    &segments[up..],
                    fuel,
                )
            }
            _ => match self.walk(&import.from, segments, fuel) {
                Found::Missing { first: true, .. } => Found::Outside,
                found => found,
            },
        }
    }

    /// Follows `segments` from the module `start`.
    fn walk(&self, start: &[String], segments: &[String], fuel: &mut usize) -> Found {
        let mut at = start.to_vec();
        let Some(mut module) = self.module_at(&at) else {
            return Found::Outside;
        };
        for (i, name) in segments.iter().enumerate() {
            let rest = &segments[i + 1..];
            at.push(name.clone());
            if let Some(child) = self.modules.get(&at) {
                module = child;
                continue;
            }
            at.pop();
            if module.defines.contains(name) || name == "*" {
                return Found::File(module.file);
            }
            let missing = Found::Missing {
                file: module.file,
                first: i == 0,
            };
            if *fuel == 0 {
                return missing;
            }
            *fuel -= 1;
            if let Some(imports) = module.imports.get(name) {
                let mut deepest = None;
                for import in imports {
                    let mut segments = import.segments.clone();
                    segments.extend_from_slice(rest);
                    match self.resolve(
                        &Import {
                            from: import.from.clone(),
                            segments,
                        },
                        fuel,
                    ) {
                        Found::File(f) => return Found::File(f),
                        Found::Missing { file, .. } => {
                            deepest.get_or_insert(file);
                        }
                        Found::Outside => {}
                    }
                }
                return match deepest {
                    Some(file) => Found::Missing { file, first: false },
                    None => Found::Outside,
                };
            }
            for glob in &module.globs {
                let mut segments = glob.segments.clone();
                segments.push(name.clone());
                segments.extend_from_slice(rest);
                let found = self.resolve(
                    &Import {
                        from: glob.from.clone(),
                        segments,
                    },
                    fuel,
                );
                if let Found::File(_) = found {
                    return found;
                }
            }
            return missing;
        }
        Found::File(module.file)
    }

    /// The module at `path`, or the nearest one above it that exists.
    fn module_at(&self, path: &[String]) -> Option<&Module> {
        (0..=path.len())
            .rev()
            .find_map(|n| self.modules.get(&path[..n]))
    }
}

/// A token of blanked code: a name (or number), `::`, or one other character.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    Name(&'a str),
    PathSep,
    Punct(char),
}

fn tokens(code: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        if c.is_alphanumeric() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push(Token::Name(&rest[..end]));
            rest = &rest[end..];
        } else if let Some(after) = rest.strip_prefix("::") {
            out.push(Token::PathSep);
            rest = after;
        } else if let Some(after) = rest
            .strip_prefix('\'')
            .filter(|a| a.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        {
            // A lifetime (`'a`, `'static`; character literals are blanked already): no name,
            // so `&'static T` defines nothing.
            out.push(Token::Punct('\''));
            rest = after.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Keywords after which a name is an item the module defines.
const ITEM_KEYWORDS: [&str; 9] = [
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
];

/// Reads one file's blanked product code (its file module is `module`, its index `file`):
/// records what its modules (the file's own and inline ones) hold in `index`, every path it
/// writes in `refs`, and the `use` bindings of its blocks (inside functions) in `locals`.
fn read_modules(
    file: usize,
    module: &[String],
    code: &str,
    index: &mut ModuleIndex,
    refs: &mut Vec<(usize, Import)>,
    locals: &mut BTreeMap<String, Vec<Import>>,
) {
    let toks = tokens(code);
    // Open braces: `Some(name)` for an inline module's body.
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let current = |braces: &[Option<String>]| {
        let mut path = module.to_vec();
        path.extend(braces.iter().flatten().cloned());
        path
    };
    let mut i = 0;
    while i < toks.len() {
        let at_module_level = braces.last().is_none_or(Option::is_some);
        let after_sep = i > 0 && toks[i - 1] == Token::PathSep;
        match toks[i] {
            Token::Punct('{') => {
                braces.push(pending_mod.take());
                i += 1;
            }
            Token::Punct('}') => {
                braces.pop();
                pending_mod = None;
                i += 1;
            }
            Token::Punct(';') => {
                pending_mod = None;
                i += 1;
            }
            Token::Name("use") if !after_sep => {
                let from = current(&braces);
                let re_export = is_public(&toks[..i]);
                let mut leaves = Vec::new();
                i += 1;
                if toks.get(i) == Some(&Token::PathSep) {
                    // `use ::other_crate::…`: outside the crate.
                    i += 1;
                    use_tree(&toks, &mut i, Vec::new(), &mut Vec::new());
                    continue;
                }
                // Not followed by a tree (`impl Trait + use<'a>`), it reads nothing, and the
                // tokens after it are read as usual.
                use_tree(&toks, &mut i, Vec::new(), &mut leaves);
                for leaf in leaves {
                    let import = Import {
                        from: from.clone(),
                        segments: leaf.segments,
                    };
                    if !re_export {
                        refs.push((file, import.clone()));
                    }
                    let entry = index.modules.entry(from.clone()).or_insert_with(|| Module {
                        file,
                        ..Module::default()
                    });
                    match leaf.binds {
                        UseBinds::Glob if at_module_level => entry.globs.push(import),
                        UseBinds::Name(name) if at_module_level => {
                            entry.imports.entry(name).or_default().push(import);
                        }
                        UseBinds::Name(name) => locals.entry(name).or_default().push(import),
                        UseBinds::Glob | UseBinds::Nothing => {}
                    }
                }
            }
            Token::Name("macro_rules") if at_module_level && !after_sep => {
                if let (Some(Token::Punct('!')), Some(Token::Name(name))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    define(index, &current(&braces), file, name);
                }
                i += 1;
            }
            Token::Name(keyword) if at_module_level && ITEM_KEYWORDS.contains(&keyword) => {
                if let Some(Token::Name(name)) = toks.get(i + 1)
                    && !ITEM_KEYWORDS.contains(name)
                    && *name != "_"
                {
                    let here = current(&braces);
                    if keyword == "mod" {
                        if toks.get(i + 2) == Some(&Token::Punct('{')) {
                            pending_mod = Some(name.to_string());
                            let mut inner = here.clone();
                            inner.push(name.to_string());
                            index.modules.entry(inner).or_insert_with(|| Module {
                                file,
                                ..Module::default()
                            });
                        } else {
                            // A `mod x;` whose file is not under `src/` (`#[path]`): an item.
                            let mut inner = here.clone();
                            inner.push(name.to_string());
                            if !index.modules.contains_key(&inner) {
                                define(index, &here, file, name);
                            }
                        }
                    } else {
                        define(index, &here, file, name);
                    }
                }
                i += 1;
            }
            // A visibility (`pub(super)`, `pub(in crate::a)`) names a module without using
            // anything of it: no import.
            Token::Name("pub") if toks.get(i + 1) == Some(&Token::Punct('(')) => {
                i = toks[i..]
                    .iter()
                    .position(|t| *t == Token::Punct(')'))
                    .map_or(toks.len(), |close| i + close + 1);
            }
            Token::Name(first) if !after_sep => {
                let mut segments = vec![first.to_string()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Token::PathSep) {
                    let Some(Token::Name(next)) = toks.get(j + 1) else {
                        break;
                    };
                    segments.push(next.to_string());
                    j += 2;
                }
                if segments.len() > 1 || matches!(first, "crate" | "super" | "self") {
                    refs.push((
                        file,
                        Import {
                            from: current(&braces),
                            segments,
                        },
                    ));
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

/// Whether the tokens before an item end in a visibility (`pub`, `pub(crate)`, `pub(super)`,
/// `pub(in …)`).
fn is_public(before: &[Token<'_>]) -> bool {
    match before.last() {
        Some(Token::Name("pub")) => true,
        Some(Token::Punct(')')) => before
            .iter()
            .rposition(|t| *t == Token::Punct('('))
            .is_some_and(|open| open > 0 && before[open - 1] == Token::Name("pub")),
        _ => false,
    }
}

fn define(index: &mut ModuleIndex, module: &[String], file: usize, name: &str) {
    index
        .modules
        .entry(module.to_vec())
        .or_insert_with(|| Module {
            file,
            ..Module::default()
        })
        .defines
        .insert(name.to_string());
}

/// What one leaf of a `use` tree binds in its module.
#[derive(Debug, PartialEq)]
enum UseBinds {
    Name(String),
    Glob,
    Nothing,
}

/// One leaf of a `use` tree: its whole path and what it binds.
#[derive(Debug)]
struct UseLeaf {
    segments: Vec<String>,
    binds: UseBinds,
}

/// Reads the `use` tree starting at `toks[*i]` under `prefix`, leaving `*i` after it.
fn use_tree(toks: &[Token<'_>], i: &mut usize, prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Token::Name(name)) => {
                *i += 1;
                if toks.get(*i) == Some(&Token::PathSep) {
                    path.push(name.to_string());
                    *i += 1;
                    continue;
                }
                let mut binds = name.to_string();
                if toks.get(*i) == Some(&Token::Name("as")) {
                    if let Some(Token::Name(alias)) = toks.get(*i + 1) {
                        binds = alias.to_string();
                    }
                    *i += 2;
                }
                if *name != "self" {
                    path.push(name.to_string());
                } else if binds == "self"
                    && let Some(last) = path.last()
                {
                    binds = last.clone();
                }
                let binds = if binds == "_" || path.is_empty() {
                    UseBinds::Nothing
                } else {
                    UseBinds::Name(binds)
                };
                out.push(UseLeaf {
                    segments: path,
                    binds,
                });
                return;
            }
            Some(Token::Punct('*')) => {
                *i += 1;
                if !path.is_empty() {
                    out.push(UseLeaf {
                        segments: path,
                        binds: UseBinds::Glob,
                    });
                }
                return;
            }
            Some(Token::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        None => return,
                        Some(Token::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Token::Punct(',')) => *i += 1,
                        Some(_) => {
                            let before = *i;
                            use_tree(toks, i, path.clone(), out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
            }
            _ => return,
        }
    }
}

/// The strongly connected components of more than one node, each as its nodes in order
/// (Tarjan's algorithm).
pub(crate) fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// String literals of `code` with their line numbers (escapes kept as written).
fn string_literals(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c == '"' {
            let start_line = line;
            let mut text = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\n' {
                    line += 1;
                }
                if chars[i] == '\\' {
                    text.push(chars[i]);
                    i += 1;
                }
                if let Some(&ch) = chars.get(i) {
                    if ch == '\n' {
                        line += 1;
                    }
                    text.push(ch);
                }
                i += 1;
            }
            i += 1;
            out.push((start_line, text));
        } else {
            i += 1;
        }
    }
    out
}

/// Code-shaped words (`[A-Z]{1,6}` then three digits, standing alone) in a literal.
pub(crate) fn code_words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if boundary_before && bytes[i].is_ascii_uppercase() {
            let letters = bytes[i..]
                .iter()
                .take_while(|b| b.is_ascii_uppercase())
                .count();
            let digits = bytes[i + letters..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let end = i + letters + digits;
            let boundary_after = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
            if (1..=6).contains(&letters) && digits == 3 && boundary_after {
                out.push(text[i..end].to_string());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

fn code_literals(file: &str, code: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (line, text) in string_literals(code) {
        for word in code_words(&text) {
            if flowmcp_spec::Code::parse(&word).is_none() {
                problems.push(format!(
                    "{file}:{line}: {word} is not a code of the registry (crates/flowmcp-spec/src/registry/table.rs)"
                ));
            }
        }
    }
    problems
}

fn formatted_ids(file: &str, code: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let Some(at) = line.find("format!(") else {
            continue;
        };
        let rest = &line[at..];
        for kind in ID_KINDS {
            let segment = format!("}}/{kind}/");
            if rest.contains(&segment) {
                problems.push(format!(
                    "{file}:{}: an ID written with format! (`…/{kind}/…`): use flowmcp_spec::id",
                    n + 1
                ));
            }
        }
    }
    problems
}

/// Whether a workspace crate is a library whose texts must not carry CLI wording: every
/// `flowmcp-*` crate but the CLI (xtask and the test crates are tools, not libraries).
fn is_library(krate: &str) -> bool {
    krate.starts_with("flowmcp-") && krate != CLI && krate != HACK
}

/// The CLI's subcommands (`validate`, `list-refs`, …): the variants of `enum Command` in its
/// `main.rs`, in kebab case as clap names them.
fn cli_commands(root: &Path) -> Result<BTreeSet<String>, String> {
    let path = root.join(CLI_COMMANDS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{CLI_COMMANDS}: {e}"))?;
    let commands = command_names(&text);
    if commands.is_empty() {
        return Err(format!(
            "{CLI_COMMANDS}: no `enum Command` with variants found"
        ));
    }
    Ok(commands)
}

/// The variants of `enum Command` in `main`, in kebab case.
pub(crate) fn command_names(main: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(at) = main.find("enum Command {") else {
        return out;
    };
    let body = &main[at + "enum Command {".len()..];
    for line in body.lines() {
        if line.starts_with('}') {
            break;
        }
        let Some(rest) = line.strip_prefix("    ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let mut kebab = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    kebab.push('-');
                }
                kebab.push(c.to_ascii_lowercase());
            }
            out.insert(kebab);
        }
    }
    out
}

/// A literal's text as the program sees it where a line ends in `\`: the line break and the next
/// line's leading whitespace are not part of the string.
fn joined(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\\n") {
        out.push_str(&rest[..at]);
        rest = rest[at + 2..].trim_start();
    }
    out.push_str(rest);
    out
}

/// What in a literal's text is CLI wording: a `flowmcp` command or a command-line flag.
pub(crate) fn cli_words(text: &str, commands: &BTreeSet<String>) -> Vec<String> {
    let text = joined(text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (at, _) in text.match_indices("flowmcp ") {
        let word: String = text[at + "flowmcp ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        let quoted = at > 0 && bytes[at - 1] == b'`';
        let standalone = at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'-'
                || bytes[at - 1] == b'_');
        if standalone && (quoted || commands.contains(&word)) {
            out.push(format!("flowmcp {word}").trim_end().to_string());
        }
    }
    for (at, _) in text.match_indices("--") {
        let before_ok =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'-');
        let flag: String = text[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        if before_ok && flag.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push(format!("--{flag}"));
        }
    }
    out
}

/// String literals of a library's product code that tell the user to run a `flowmcp` command or
/// pass a flag (check 6).
fn cli_wording(file: &str, code: &str, commands: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for (line, text) in string_literals(code) {
        for word in cli_words(&text, commands) {
            let allowed = CLI_WORDING_ALLOWED
                .iter()
                .any(|(f, piece, _why)| *f == file && text.contains(piece));
            if !allowed {
                problems.push(format!(
                    "{file}:{line}: `{word}` is CLI wording in a library text: state the fact here and let flowmcp-cli add the advice (D74)"
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn i39_path_taking_file_calls_are_counted() {
        let code = "use std::fs;\nfn a() { let _ = fs::read(p); std::fs::write(q, b); }\n\
                    // fs::read( in a comment\nconst T: &str = \"File::open(\";\n\
                    fn b() { cap_fs::read(x); dir.open(y); File::open(z); }\n";
        assert_eq!(fs_calls(code), 3);
    }

    #[test]
    fn i39_the_file_lint_is_turned_off_only_where_it_may_be() {
        let unit = "#![cfg_attr(test, allow(clippy::disallowed_methods))]\nfn a() {}\n";
        let whole = "#![allow(clippy::disallowed_methods)]\n";
        let item = "#[allow(clippy::disallowed_methods)]\nfn a() { std::fs::read(p); }\n";
        assert_eq!(lint_allowance("crates/x/src/lib.rs", unit), None);
        assert_eq!(lint_allowance("crates/x/src/main.rs", unit), None);
        assert_eq!(lint_allowance("crates/x/tests/main.rs", whole), None);
        assert_eq!(lint_allowance("crates/x/examples/e.rs", whole), None);
        // A product module may not, in any form; nor may a crate root turn it off for all.
        assert!(lint_allowance("crates/x/src/a.rs", item).is_some());
        assert!(lint_allowance("crates/x/src/a.rs", unit).is_some());
        assert!(lint_allowance("crates/x/src/lib.rs", whole).is_some());
        // A comment naming it does not count.
        assert_eq!(
            lint_allowance("crates/x/src/a.rs", "// clippy::disallowed_methods\n"),
            None
        );
        // The listed place, exactly as often as listed.
        let four = "#[expect(clippy::disallowed_methods)]\n".repeat(4);
        assert_eq!(
            lint_allowance("crates/flowmcp-resources/src/sqlite/mod.rs", &four),
            None
        );
        let five = "#[expect(clippy::disallowed_methods)]\n".repeat(5);
        assert!(lint_allowance("crates/flowmcp-resources/src/sqlite/mod.rs", &five).is_some());
    }

    #[test]
    fn i39_test_items_are_left_out_wherever_they_are() {
        // A test module in the middle: the code after it is product code and is read.
        let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() { let s = \"}\"; let c = '}'; }\n    // }\n}\nfn b() { std::fs::read(p); }\n";
        let product = product_part(text);
        assert!(
            product.contains("fn a()") && product.contains("fn b()"),
            "{product}"
        );
        assert!(!product.contains("fn t()"), "{product}");
        assert_eq!(fs_calls(&product), 1);
        // A test-only import and function, with raw strings holding braces.
        let text = "#[cfg(test)]\nuse x::y;\nfn c() {}\n    #[cfg(test)]\n    #[allow(dead_code)]\n    fn d() { let r = r#\"{{\"#; }\nfn e<'a>(x: &'a str) {}\n";
        let product = product_part(text);
        assert!(
            product.contains("fn c()") && product.contains("fn e<'a>"),
            "{product}"
        );
        assert!(
            !product.contains("use x::y") && !product.contains("fn d()"),
            "{product}"
        );
    }

    fn graph(edges: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    }

    #[test]
    fn cycles_are_found_and_chains_are_not() {
        assert!(cycles(&graph(&[("a", "b"), ("b", "c")])).is_empty());
        assert_eq!(
            cycles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
            vec![vec!["a".to_string(), "b".into(), "c".into()]]
        );
        assert_eq!(
            cycles(&graph(&[("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")])).len(),
            2
        );
    }

    /// A crate's files from `(path under src, text)` pairs.
    fn files(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    fn edges(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Vec<String> {
        graph[from].iter().cloned().collect()
    }

    /// Issue #40 (D114): one CLI command's file that imports another's is found, directly, by a
    /// `super::` path and through a re-export; shared modules and a command's own child file
    /// are fine.
    #[test]
    fn i40_a_command_that_imports_another_is_found() {
        let root = "mod commands;\nmod context;\n";
        let mods = "pub(crate) mod call;\npub(crate) mod list;\npub(crate) mod serve;\npub(crate) mod validate;\npub(crate) use list::kind;\n";
        let clean = files(&[
            ("main.rs", root),
            ("commands/mod.rs", mods),
            ("context.rs", "pub(crate) fn open() {}\n"),
            (
                "commands/call.rs",
                "use crate::context::open;\nfn run() { open(); }\n",
            ),
            (
                "commands/list.rs",
                "pub(crate) fn kind() {}\nfn run() { crate::context::open(); }\n",
            ),
            ("commands/serve.rs", "fn run() {}\n"),
            (
                "commands/validate.rs",
                "mod ids;\nfn run() { ids::check(); }\n",
            ),
            (
                "commands/validate/ids.rs",
                "pub(crate) fn check() { crate::context::open(); }\n",
            ),
        ]);
        assert_eq!(command_imports(&clean), Vec::<String>::new());
        let mut tangled = clean.clone();
        tangled[3].1 = "use crate::commands::list::kind;\nfn run() { kind(); }\n".into();
        tangled[5].1 = "fn run() { super::kind(); }\n".into();
        tangled[7].1 = "pub(crate) fn check() { super::super::call::run(); }\n".into();
        let found = command_imports(&tangled);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("commands/call.rs imports commands/list.rs"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("commands/serve.rs imports commands/list.rs"),
            "{found:?}"
        );
        assert!(
            found[2].starts_with("commands/validate/ids.rs imports commands/call.rs"),
            "{found:?}"
        );
    }

    /// Issue #40: a name re-exported by `lib.rs` leads to the file that defines it, so a cycle
    /// through a re-export is found (and reported as one line with the files in order).
    #[test]
    fn i40_a_cycle_through_a_re_export_is_found() {
        let crate_files = files(&[
            ("lib.rs", "mod a;\nmod b;\npub use b::X;\n"),
            ("a.rs", "use crate::X;\npub fn f() -> X { X }\n"),
            ("b.rs", "pub struct X;\nfn g() { crate::a::f(); }\n"),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(edges(&graph, "a.rs"), vec!["b.rs"], "{graph:?}");
        assert_eq!(edges(&graph, "b.rs"), vec!["a.rs"], "{graph:?}");
        assert_eq!(
            cycles(&graph),
            vec![vec!["a.rs".to_string(), "b.rs".into()]]
        );
        let problems = module_cycles(
            "k",
            Path::new("/w"),
            Path::new("/w/crates/k/src"),
            &crate_files,
        );
        assert_eq!(
            problems,
            vec![
                "k: crates/k/src/a.rs → crates/k/src/b.rs → crates/k/src/a.rs import each \
                 other (a cycle)"
                    .to_string()
            ]
        );
        // A chain of re-exports, through a module's `pub use` and a glob, ends where the
        // name is defined.
        let crate_files = files(&[
            ("lib.rs", "mod a;\nmod b;\npub use b::X;\n"),
            ("a.rs", "pub fn f() -> crate::X { todo!() }\n"),
            ("b/mod.rs", "mod c;\nmod deep;\npub use self::c::*;\n"),
            ("b/c.rs", "pub use super::deep::X as X;\n"),
            (
                "b/deep.rs",
                "pub struct X;\npub fn g() { crate::a::f(); }\n",
            ),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(edges(&graph, "a.rs"), vec!["b/deep.rs"], "{graph:?}");
        assert_eq!(
            cycles(&graph),
            vec![vec!["a.rs".to_string(), "b/deep.rs".into()]]
        );
    }

    /// Issue #40: an import after a `#[cfg(test)]` item is read; the test item's own imports
    /// are not.
    #[test]
    fn i40_a_cycle_after_a_test_item_is_found() {
        let crate_files = files(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "a.rs",
                "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn t() { let _ = \"}\"; }\n}\n\
                 pub fn f() { crate::b::g(); crate::c::k(); }\n",
            ),
            ("b.rs", "pub fn g() { super::a::f(); }\n"),
            (
                "c.rs",
                "#[cfg(test)]\nuse crate::a;\npub fn k() {}\n#[cfg(test)]\nmod tests { fn t() { crate::a::f(); } }\n",
            ),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(edges(&graph, "a.rs"), vec!["b.rs", "c.rs"], "{graph:?}");
        assert!(edges(&graph, "c.rs").is_empty(), "{graph:?}");
        assert_eq!(
            cycles(&graph),
            vec![vec!["a.rs".to_string(), "b.rs".into()]]
        );
    }

    /// Issue #40: nested modules are files of their own, so two siblings that name each other
    /// are a cycle; their parent `mod.rs`, which only declares them, is not part of it.
    #[test]
    fn i40_a_cycle_between_nested_modules_is_found() {
        let crate_files = files(&[
            ("lib.rs", "pub mod a;\n"),
            ("a/mod.rs", "mod x;\nmod y;\npub use x::X;\n"),
            ("a/x.rs", "use super::y::{self, Y};\npub struct X(Y);\n"),
            (
                "a/y.rs",
                "pub struct Y;\nmod inner {\n    pub fn f(_: super::super::x::X) {}\n}\n",
            ),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(edges(&graph, "a/x.rs"), vec!["a/y.rs"], "{graph:?}");
        assert_eq!(edges(&graph, "a/y.rs"), vec!["a/x.rs"], "{graph:?}");
        assert_eq!(
            cycles(&graph),
            vec![vec!["a/x.rs".to_string(), "a/y.rs".into()]]
        );
    }

    /// Issue #40: a visibility names a module without importing from it: `pub(super)` in a
    /// child is no edge to its parent's file (and `pub(in …)` none to the module it names), so
    /// a parent that uses its children is no cycle with them; a path after it still counts.
    #[test]
    fn i40_a_visibility_is_no_import() {
        let crate_files = files(&[
            ("lib.rs", "mod a;\n"),
            (
                "a/mod.rs",
                "mod x;\nmod y;\npub struct P;\nfn run() { x::f(); y::g(); }\n",
            ),
            (
                "a/x.rs",
                "pub(super) fn f() {}\npub(in crate::a) struct S(pub(super) u8);\n",
            ),
            ("a/y.rs", "pub(super) fn g() -> super::P { super::P }\n"),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(
            edges(&graph, "a/mod.rs"),
            vec!["a/x.rs", "a/y.rs"],
            "{graph:?}"
        );
        assert!(edges(&graph, "a/x.rs").is_empty(), "{graph:?}");
        assert_eq!(edges(&graph, "a/y.rs"), vec!["a/mod.rs"], "{graph:?}");
        assert_eq!(
            cycles(&graph),
            vec![vec!["a/mod.rs".to_string(), "a/y.rs".into()]]
        );
    }

    /// Issue #40: a lifetime is no keyword: `&'static T` in a signature defines no item `T`
    /// there, so a path to `T` still leads to the file that defines it.
    #[test]
    fn i40_a_static_lifetime_defines_nothing() {
        let crate_files = files(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "pub struct T;\n"),
            (
                "b.rs",
                "pub use crate::a::T;\nfn one() -> &'static T { &T }\n",
            ),
            ("c.rs", "use crate::b::T;\nfn f(_: T) {}\n"),
        ]);
        let graph = import_graph(&crate_files);
        assert!(edges(&graph, "b.rs").is_empty(), "{graph:?}");
        assert_eq!(edges(&graph, "c.rs"), vec!["a.rs"], "{graph:?}");
    }

    /// Issue #40: a chain (a → b → c, and a → c) is no cycle; paths in comments and strings,
    /// other crates' paths and names a module defines itself are no edges.
    #[test]
    fn i40_a_chain_is_not_a_cycle() {
        let crate_files = files(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::Z;\n"),
            (
                "a.rs",
                "use crate::b::{self, Y};\nuse std::fmt::Write;\n\
                 pub fn f() -> crate::Z { let _: Y = b::y(); crate::b::g() }\n",
            ),
            (
                "b.rs",
                "use super::c::*;\npub struct Y;\npub fn y() -> Y { Y }\npub fn g() -> Z { Z }\n",
            ),
            (
                "c.rs",
                "pub struct Z;\n// crate::a::f\nconst S: &str = \"crate::a::f\";\n\
                 fn h() { let _ = serde_json::json!(null); self::Z; }\n\
                 mod m {\n    fn i<'a>(x: &'a [u8]) -> impl Iterator<Item = &'a u8> + use<'a> {\n        \
                 let n = 1;\n        x.iter().skip(n)\n    }\n    pub struct W;\n}\n",
            ),
        ]);
        let graph = import_graph(&crate_files);
        assert_eq!(edges(&graph, "a.rs"), vec!["b.rs", "c.rs"], "{graph:?}");
        assert_eq!(edges(&graph, "b.rs"), vec!["c.rs"], "{graph:?}");
        assert!(edges(&graph, "c.rs").is_empty(), "{graph:?}");
        assert!(
            !graph.contains_key("lib.rs"),
            "the crate root is no node: {graph:?}"
        );
        assert!(cycles(&graph).is_empty());
        // `+ use<'a>` (precise capturing) is no `use` declaration: the braces stay in step, so
        // `W` is an item of the inline module `m`.
        let mut index = ModuleIndex::default();
        index
            .modules
            .insert(vec!["c".to_string()], Module::default());
        read_modules(
            0,
            &["c".to_string()],
            &strip_comments_and_strings(&crate_files[3].1),
            &mut index,
            &mut Vec::new(),
            &mut BTreeMap::new(),
        );
        let m = &index.modules[&vec!["c".to_string(), "m".to_string()]];
        assert!(m.defines.contains("W"), "{:?}", m.defines);
    }

    #[test]
    fn test_modules_do_not_count() {
        let text = "use crate::a;\n#[cfg(test)]\nmod tests { use crate::b; }\n";
        assert_eq!(product_part(text), "use crate::a;\n\n");
    }

    #[test]
    fn code_words_stand_alone() {
        assert_eq!(code_words("E007 t: missing"), vec!["E007"]);
        assert_eq!(code_words("MD004: section"), vec!["MD004"]);
        assert_eq!(code_words("SHA256 x"), vec!["SHA256"]);
        assert!(code_words("E0071 x1E007").is_empty());
        assert!(code_words("Error E007").contains(&"E007".to_string()));
    }

    #[test]
    fn an_unregistered_code_literal_is_reported() {
        let code = "fn f() -> &'static str { \"NOPE123 broken\" }\nfn g() { let _ = \"E007\"; }\n";
        let problems = code_literals("x.rs", code);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("x.rs:1: NOPE123"), "{problems:?}");
    }

    /// Issue #29, scope 3 (D74): a library literal that tells the user to run a `flowmcp`
    /// command or pass a flag is reported; facts, doc comments and test modules are not.
    #[test]
    fn i29_3_cli_wording_in_a_library_literal_is_reported() {
        let commands: BTreeSet<String> = ["libs", "validate", "catalog"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let code = "/// Run `flowmcp validate x` (a doc comment).\n\
                    const A: &str = \"no library directory (--libs DIR, `flowmcp libs install`)\";\n\
                    fn f() -> String { format!(\"see flowmcp catalog index {d} \\\n   --rename\") }\n\
                    const OK: &str = \"reserved for flowmcp itself; the compat profile reads it\";\n\
                    const SQL: &str = \"-- a comment\";\n";
        let problems = cli_wording("x.rs", &product_part(code), &commands);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems[0].starts_with("x.rs:2: `flowmcp libs`"),
            "{problems:?}"
        );
        assert!(problems[1].starts_with("x.rs:2: `--libs`"), "{problems:?}");
        assert!(
            problems[2].starts_with("x.rs:3: `flowmcp catalog`"),
            "{problems:?}"
        );
        assert!(
            problems[3].starts_with("x.rs:3: `--rename`"),
            "{problems:?}"
        );
        let test_module = "#[cfg(test)]\nmod tests { const T: &str = \"`flowmcp validate`\"; }\n";
        assert!(cli_wording("x.rs", &product_part(test_module), &commands).is_empty());
    }

    #[test]
    fn the_cli_commands_are_read_from_the_enum() {
        let main = "enum Command {\n    /// Doc.\n    Validate(A),\n    ListRefs(B),\n    #[command(x)]\n    Hash(C),\n}\nenum Other {\n    Nope,\n}\n";
        let names: Vec<String> = command_names(main).into_iter().collect();
        assert_eq!(names, vec!["hash", "list-refs", "validate"]);
    }

    #[test]
    fn a_formatted_id_is_reported() {
        let code = "let id = format!(\"{ns}/tool/{name}\");\nlet ok = format!(\"{a}/{b}\");\n";
        let problems = formatted_ids("x.rs", code);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("x.rs:1:"));
    }

    #[test]
    fn the_crate_table_parses() {
        let md = "x\n<!-- tidy:crates -->\n| crate | may depend on | public items |\n|---|---|---|\n\
                  | `a` | — | 10 |\n| `b` | `a`, `c` | — |\n<!-- /tidy:crates -->\n";
        let t = parse_table(md).unwrap();
        assert_eq!(t["a"].budget, Some(10));
        assert!(t["a"].allowed.is_empty());
        assert_eq!(t["b"].allowed.len(), 2);
        assert_eq!(t["b"].budget, None);
        assert!(parse_table("no table").is_err());
        assert!(reaches(&t, "b", "a"));
        assert!(!reaches(&t, "a", "b"));
    }
}
