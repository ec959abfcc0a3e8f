//! `flowmcp migrate`: rewrites old schema files for a newer specification version (the work is
//! `flowmcp_catalog::migrate`; this module finds the files, writes them with a backup, prints the
//! diff or the report, and picks the exit code).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use flowmcp_catalog::migrate::{self, MigrateError};

use crate::output::{in_dir, write_with_backup};

#[derive(Args, Debug)]
#[command(
    about = "Migrate old schema files (1.x, 2.x, 3.x) to a newer version of the specification",
    long_about = "Migrate schema files to a newer version of the specification, step by step, \
                  rewriting only what each step changes (comments, formatting and key order stay):\n\n\
                  1.x → 2: `export const schema` becomes `export const main`, `flowMCP` becomes \
                  `version`, `requestMethod`/`route` become `method`/`path`, parameters without `z` \
                  get a `string()` one, `handlers` becomes the factory `export const handlers = ( { \
                  sharedLists, libraries } ) => …` (the tools call the handlers their `modifiers` \
                  named), and every `import` becomes a TODO comment with the suggested \
                  `main.sharedLists` reference (imports are flagged, not converted; when the \
                  imported module, inside the current directory, declares the binding as plain \
                  data, that data is copied in so module-level code using it still works).\n\
                  2 → 3: `main.routes` becomes `main.tools`, version 3.0.0.\n\
                  3 → 4: version 4.0.0; `main.skills` is removed (kept in a comment: register the \
                  skills in a selection or an agent manifest); each tool without `meta` gets one \
                  drafted from its method, path and description; tool names become camelCase; \
                  old syntax is rewritten: `:key` in paths becomes `{{key}}`, `{{KEY}}` of a server \
                  parameter `{{SERVER_PARAM:KEY}}`, a user parameter's `{{NAME}}` `{{USER_PARAM}}`, \
                  `values(…)`/`enum(…)` options `primitive: 'enum(…)'`, `{key}` `{{key}}`; a \
                  `regex(…)` option is removed (v4 has none); an insert parameter without a \
                  placeholder that a handler reads becomes a query parameter. The specification leaves \
                  `meta` and renames to the author: every drafted value carries a `// REVIEW:` \
                  comment and is listed as `info` below the file. Use `--to 3` to stop before \
                  this step.\n\n\
                  A schema with more than 8 tools is split: the file keeps the first tools, \
                  `<name>-part2.mjs` … the rest (tool IDs unchanged). With --all, a 2.x agent \
                  `manifest.json` gets an `agent.mjs` beside it (the manifest is kept), and \
                  `[[…]]` placeholders in prompt and skill files become `{{tool:…}}` or \
                  `{{input:…}}`.\n\n\
                  A file is rewritten in place, atomically, after its original is copied to \
                  `<file>.bak` (a file whose `.bak` exists already is not touched: move the old \
                  backup away first). `--dry-run` prints a unified diff and writes nothing. A file \
                  already at the target version (or newer) is left alone.\n\n\
                  Exit codes: 0 every file migrated or already current, 1 a file could not be \
                  migrated (the reason is printed), 2 usage or I/O failure."
)]
pub(crate) struct MigrateArgs {
    /// Schema files to migrate; directories need `--all`.
    #[arg(value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Migrate every `.mjs` schema file under the given directories (default: the current
    /// directory), recursively, and every agent `manifest.json`; prompt and skill files are
    /// migrated when they hold `[[…]]` placeholders, other `.mjs` files (shared lists) skipped.
    #[arg(long)]
    all: bool,
    /// Print what would change as a unified diff; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The major version to migrate to.
    #[arg(long, value_name = "VERSION", default_value_t = migrate::LATEST,
          value_parser = clap::value_parser!(u8).range(2..=4))]
    to: u8,
}

pub(crate) fn run(a: MigrateArgs) -> Result<ExitCode, String> {
    let mut paths = a.paths.clone();
    if paths.is_empty() {
        if !a.all {
            return Err("name schema files to migrate, or use --all for a directory".into());
        }
        paths.push(PathBuf::from("."));
    }
    if !a.all
        && let Some(dir) = paths.iter().find(|p| flowmcp_files::named::is_dir(p))
    {
        return Err(format!(
            "{} is a directory: add --all to migrate every schema file under it",
            dir.display()
        ));
    }
    // Each file with its anchor: the canonical directory of the path it was found through (the
    // directory named, or a named file's directory). Imported data is copied into a migrated
    // file only from inside its anchor, so the result does not depend on where migrate runs.
    let mut files: Vec<(crate::walk::FileEntry, PathBuf)> = Vec::new();
    for p in &paths {
        let anchor = flowmcp_files::named::canonical(p)
            .ok()
            .and_then(|c| {
                if flowmcp_files::named::is_dir(&c) {
                    Some(c)
                } else {
                    c.parent().map(Path::to_path_buf)
                }
            })
            .ok_or_else(|| format!("{}: cannot find its directory", p.display()))?;
        for f in crate::walk::collect(std::slice::from_ref(p))? {
            files.push((f, anchor.clone()));
        }
        // 2.x agents: `manifest.json` files become `agent.mjs` (chapter 08, step 6).
        if a.all && flowmcp_files::named::is_dir(p) {
            let found = flowmcp_files::walk::walk_files(p, &|_| false, &|n| n == MANIFEST)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            files.extend(found.files.into_iter().map(|path| {
                let entry = crate::walk::FileEntry {
                    display: flowmcp_spec::diagnostic::display_path(&path),
                    path,
                    anchor: Some(p.clone()),
                };
                (entry, anchor.clone())
            }));
        }
    }
    let named: std::collections::HashSet<PathBuf> = paths
        .iter()
        .filter(|p| flowmcp_files::named::is_file(p))
        .cloned()
        .collect();
    // The loader's cap on a schema file's size applies to what migrate reads too.
    let cap = flowmcp_validate::Limits::default().max_file_bytes;

    let (mut migrated, mut current, mut skipped, mut failed) = (0, 0, 0, 0);
    let mut out = String::new();
    for (f, base) in &files {
        let shown = crate::output::shown(&f.display);
        // A walked file is read through its directory's handle.
        let source = match flowmcp_files::read_found(f.anchor.as_deref(), &f.path, cap)
            .map(String::from_utf8)
        {
            Ok(Ok(s)) => s,
            Err(flowmcp_files::named::ReadCappedError::TooLarge(size)) => {
                failed += 1;
                out.push_str(&format!(
                    "{shown}: FAILED: {size} bytes, larger than the limit of {cap} bytes for a \
                     schema file\n"
                ));
                continue;
            }
            Ok(Err(_)) => {
                failed += 1;
                out.push_str(&format!("{shown}: FAILED: not UTF-8 text\n"));
                continue;
            }
            Err(e) => return Err(format!("{shown}: {e}")),
        };
        if f.path.file_name().is_some_and(|n| n == MANIFEST) {
            let agent = f.path.with_file_name("agent.mjs");
            let m = match migrate::agent_manifest(&source) {
                Ok(m) => m,
                Err(_) if !named.contains(&f.path) => {
                    skipped += 1;
                    continue;
                }
                Err(_) => {
                    failed += 1;
                    out.push_str(&format!(
                        "{shown}: FAILED: not an agent manifest (an object with a `name` and a `tools` array or a `systemPrompt`)\n"
                    ));
                    continue;
                }
            };
            if flowmcp_files::named::exists(&agent) {
                current += 1;
                continue;
            }
            let target = agent.display().to_string();
            let target = crate::output::shown(&target);
            if a.dry_run {
                out.push_str(&diff("", &m.text, "/dev/null", &format!("{target} (new)")));
            } else if let Err(e) = write_new(&agent, &m.text) {
                failed += 1;
                out.push_str(&format!("{shown}: FAILED: cannot write {target}: {e}\n"));
                continue;
            }
            migrated += 1;
            out.push_str(&format!(
                "{shown}: {} {target} (the manifest is kept)\n",
                if a.dry_run { "would become" } else { "became" }
            ));
            for c in &m.changes {
                out.push_str(&format!("  changed: {}\n", crate::output::shown(c)));
            }
            push_reviews(&mut out, &target, &m.reviews);
            continue;
        }
        let dir_name = flowmcp_files::named::canonical(&f.path)
            .ok()
            .and_then(|p| p.parent()?.file_name()?.to_str().map(str::to_string));
        let read_import = |specifier: &str| read_import(&f.path, specifier, base, cap);
        let m = match migrate::migrate_reading(&source, a.to, dir_name.as_deref(), &read_import) {
            Ok(m) => m,
            Err(MigrateError::NotASchema) if !named.contains(&f.path) => {
                skipped += 1;
                continue;
            }
            Err(MigrateError::Newer { .. }) => {
                current += 1;
                continue;
            }
            Err(e) => {
                failed += 1;
                out.push_str(&format!("{shown}: FAILED: {e}\n"));
                continue;
            }
        };
        if m.text == source {
            current += 1;
            continue;
        }
        // Further files when the schema was split (more tools than one schema may hold).
        let part_paths: Vec<PathBuf> = (0..m.parts.len())
            .map(|i| part_path(&f.path, i + 2))
            .collect();
        if let Some(taken) = part_paths.iter().find(|p| flowmcp_files::named::exists(p)) {
            failed += 1;
            out.push_str(&format!(
                "{shown}: FAILED: it must be split, and {} exists already: move it away and run again\n",
                crate::output::shown(&taken.display().to_string())
            ));
            continue;
        }
        if a.dry_run {
            for ((text, _), path) in m.parts.iter().zip(&part_paths) {
                out.push_str(&diff(
                    "",
                    text,
                    "/dev/null",
                    &format!("{} (new)", path.display()),
                ));
            }
        }
        if a.dry_run {
            out.push_str(&diff(
                &source,
                &m.text,
                &f.display,
                &format!("{} (migrated)", f.display),
            ));
        } else if let Err(e) = write_with_backup(&f.path, &source, &m.text).and_then(|()| {
            m.parts
                .iter()
                .zip(&part_paths)
                .try_for_each(|((text, _), path)| write_new(path, text))
        }) {
            failed += 1;
            out.push_str(&format!("{shown}: FAILED: {e}\n"));
            continue;
        }
        migrated += 1;
        out.push_str(&format!("{shown}: version {} → {}", m.from, m.to));
        if !a.dry_run {
            out.push_str(&format!(" (original kept as {shown}.bak)"));
        }
        out.push('\n');
        for c in &m.changes {
            out.push_str(&format!("  changed: {}\n", crate::output::shown(c)));
        }
        push_reviews(&mut out, &shown, &m.reviews);
        for ((_, reviews), path) in m.parts.iter().zip(&part_paths) {
            let display = path.display().to_string();
            let part = crate::output::shown(&display);
            out.push_str(&format!(
                "  {} {part} (split off)\n",
                if a.dry_run { "would write" } else { "wrote" }
            ));
            push_reviews(&mut out, &part, reviews);
        }
    }
    out.push_str(&format!(
        "{migrated} {} {}, {current} already at version {} or newer, {skipped} skipped (not schema files), {failed} failed{}\n",
        if migrated == 1 { "file" } else { "files" },
        if a.dry_run { "would be migrated" } else { "migrated" },
        a.to,
        if a.dry_run { " (dry run: nothing written)" } else { "" }
    ));
    print!("{out}");
    Ok(ExitCode::from(if failed > 0 { 1 } else { 0 }))
}

/// A unified diff of `before` → `after`, headed with the two names.
fn diff(before: &str, after: &str, old_name: &str, new_name: &str) -> String {
    // A minimal diff costs time quadratic in the changes; past the deadline the diff is still
    // correct, only less minimal (a file split into hundreds of parts differs almost wholly).
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(old_name, new_name)
        .to_string()
}

/// One `info <file>:<line>: review: …` line per review.
fn push_reviews(out: &mut String, file: &str, reviews: &[migrate::Review]) {
    for r in reviews {
        out.push_str(&format!(
            "  info {file}:{}: review: {}\n",
            r.line,
            crate::output::shown(&r.message)
        ));
    }
}

/// The file name of a 2.x agent definition.
const MANIFEST: &str = "manifest.json";

/// `dir/name.mjs` → `dir/name-part<n>.mjs`.
fn part_path(path: &Path, n: usize) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or_else(|| "mjs".to_string(), |e| e.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}-part{n}.{ext}"))
}

/// Writes `text` to the new file `path` (an existing file or link there fails; nothing is
/// overwritten).
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    let (root, name) = in_dir(path)?;
    root.write_new(&name, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The text of the module a schema file's relative `import` names, when it is a `.mjs` or `.js`
/// file inside `base` (the directory being migrated) of at most `cap` bytes: its data may be
/// copied into the migrated file, so nothing from elsewhere on the machine is read. The module
/// is read through `base`'s directory handle (links followed only while they stay inside).
fn read_import(schema: &Path, specifier: &str, base: &Path, cap: u64) -> Option<String> {
    if !(specifier.starts_with("./") || specifier.starts_with("../"))
        || !(specifier.ends_with(".mjs") || specifier.ends_with(".js"))
    {
        return None;
    }
    let dir = flowmcp_files::named::canonical(schema)
        .ok()?
        .parent()?
        .to_path_buf();
    // `dir/specifier` with its `.` and `..` folded, then relative to `base`.
    let module = flowmcp_spec::paths::fold_dots(&dir.join(specifier))?;
    let relative = module.strip_prefix(base).ok()?;
    let root = flowmcp_files::Root::new(base);
    let bytes = root.read_capped(relative, cap).ok()?;
    String::from_utf8(bytes).ok()
}
