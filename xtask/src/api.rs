//! `cargo xtask api [--check | --bless]`: every publicly reachable item of every library crate,
//! one per line, in `api/<crate>.txt` (checked in), so that a change of the public surface is a
//! visible diff; and each crate's count of public items against its budget in ARCHITECTURE.md's
//! crate table (the "public items" column).
//!
//! The items come from rustdoc's JSON output, which the stable toolchain writes when
//! `RUSTC_BOOTSTRAP=1` lets it take `-Z unstable-options --output-format json` (no nightly
//! needed). The format is unstable: [`FORMAT_VERSIONS`] are the versions this reader was written
//! against, and any other is refused with a message rather than read wrongly.
//!
//! What a line is (sorted by the item's path, the item before its trait impls):
//!
//! - `mod P`, `struct P<G>`, `enum P<G>`, `union P`, `trait P<G>: Bounds`, `fn P<G>(Args) -> R`,
//!   `const P: T = value`, `static P: T`, `type P<G> = T`, `macro P!`: an item at its canonical
//!   path (where it is defined if that is reachable, else its shortest public path). A type's
//!   line ends in ` {..}`/` (..)` when it has private fields and in ` !Send`, ` !Sync`, … for
//!   each automatic trait it lacks; `#[non_exhaustive]` comes first.
//! - `field P::f: T`, `variant P::V(T)`, `fn P::m(&self, T) -> R`, `const P::C: T`,
//!   `type P::A`: members (public fields, variants, inherent methods and constants, a trait's
//!   items, marked ` (provided)` when the trait gives a body).
//! - `impl Trait<A> for T`: an impl of a trait on a public type (or of a public trait on any
//!   type), with its associated types; blanket and automatic impls are left out.
//! - `alias K P = Q`: a second public path to an item of the same crate.
//! - `re-export K P = Q (flowmcp-x)`: an item of another crate passed through at `P`, with its
//!   path there (its public path when that crate is a library read in the same run); a whole
//!   crate is `re-export crate P = other_crate`, a glob `re-export glob P::* = Q::*` followed by
//!   the names it brings, when the origin is read in the same run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::workspace_root;

/// The rustdoc JSON format versions this reader understands.
const FORMAT_VERSIONS: [u64; 1] = [57];
/// The target directory of the rustdoc JSON build, under the workspace's.
const JSON_TARGET: &str = "xtask-api";
/// Where the snapshots live, relative to the workspace root.
const API_DIR: &str = "api";
/// Crates named `flowmcp-*` that are not libraries of the product.
const NOT_LIBRARIES: [&str; 2] = ["flowmcp-workspace-hack", "flowmcp-cli"];
/// Automatic traits a type's line names when the type lacks them.
const AUTO_TRAITS: [&str; 5] = ["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"];
/// Traits whose impls say nothing of the API (the marker a `PartialEq` derive adds).
const SKIPPED_TRAITS: [&str; 1] = ["StructuralPartialEq"];

/// `cargo xtask api [--check | --bless]`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let bless = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["--check"] => false,
        ["--bless"] => true,
        _ => return Err("usage: cargo xtask api [--check | --bless]".into()),
    };
    let root = workspace_root();
    let (crates, target) = library_crates(&root)?;
    let docs = build_json(&root, &crates, &target)?;
    let mut jsons = Vec::new();
    for (package, lib) in &crates {
        let file = docs.join(format!("{lib}.json"));
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        jsons.push((package.clone(), json));
    }
    let snapshots = snapshots(&jsons)?;
    let table = crate::tidy::read_table(&root)?;
    let budgets: BTreeMap<String, Option<usize>> = table
        .into_iter()
        .map(|(name, row)| (name, row.budget))
        .collect();
    let dir = root.join(API_DIR);
    let mut old = BTreeMap::new();
    for (package, lines) in &snapshots {
        let budget = budgets.get(package).copied().flatten();
        let shown = budget.map_or_else(|| "no budget".to_string(), |b| format!("budget {b}"));
        println!("{package}: {} public items ({shown})", lines.len());
        let path = dir.join(format!("{package}.txt"));
        old.insert(
            package.clone(),
            std::fs::read_to_string(&path).unwrap_or_default(),
        );
    }
    let mut differ = Vec::new();
    let changes = differences(&old, &snapshots);
    if changes.is_empty() {
        println!("api: {API_DIR}/ is current");
    }
    for (package, diff) in changes {
        if bless {
            let path = dir.join(format!("{package}.txt"));
            write_atomic(&path, &render(&snapshots[&package]))?;
            println!("api: wrote {API_DIR}/{package}.txt");
        } else {
            print!("{diff}");
            differ.push(package);
        }
    }
    if bless {
        remove_stale(&dir, &snapshots)?;
    }
    let mut problems = budget_problems(&snapshots, &budgets);
    if !differ.is_empty() {
        problems.push(format!(
            "the public API of {} differs from {API_DIR}/ (if the change is meant, run `cargo xtask api --bless` and commit the files)",
            differ.join(", ")
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    for p in &problems {
        println!("{p}");
    }
    Err(format!("{} problem(s)", problems.len()))
}

/// The workspace's library crates (package name, library name): `flowmcp-*` packages with a
/// `lib` target, but not the workspace-hack; and the workspace's target directory.
fn library_crates(root: &Path) -> Result<(Vec<(String, String)>, PathBuf), String> {
    let meta: Value = crate::cargo_metadata(root)?;
    let mut crates = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        if !name.starts_with("flowmcp-") || NOT_LIBRARIES.contains(&name) {
            continue;
        }
        let lib = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "lib"))
            })
            .and_then(|t| t["name"].as_str());
        if let Some(lib) = lib {
            crates.push((name.to_string(), lib.replace('-', "_")));
        }
    }
    crates.sort();
    if crates.is_empty() {
        return Err("cargo metadata lists no library crate".into());
    }
    let target = meta["target_directory"]
        .as_str()
        .ok_or("cargo metadata gives no target_directory")?;
    Ok((crates, PathBuf::from(target)))
}

/// Runs rustdoc with JSON output on every crate (one `cargo doc`, so the crates are documented
/// in parallel) and returns the directory the JSON files are in.
///
/// The build has a target directory of its own under the workspace's ([`JSON_TARGET`]): in the
/// shared one, alternating with ordinary builds (which run without `RUSTC_BOOTSTRAP`), every run
/// checked every dependency again (D110 has the times). Cargo does not know the JSON as the
/// output of `cargo doc`, so the nine crates are documented again on every run (about 20 s).
fn build_json(root: &Path, crates: &[(String, String)], target: &Path) -> Result<PathBuf, String> {
    let dir = target.join(JSON_TARGET);
    let mut cmd = Command::new(crate::cargo());
    cmd.current_dir(root)
        .args(["doc", "--no-deps", "--lib"])
        .env("CARGO_TARGET_DIR", &dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTDOCFLAGS", "-Z unstable-options --output-format json")
        .env_remove("CARGO_ENCODED_RUSTDOCFLAGS");
    for (package, _) in crates {
        cmd.args(["-p", package]);
    }
    let status = cmd.status().map_err(|e| format!("cargo doc: {e}"))?;
    if !status.success() {
        return Err("cargo doc (rustdoc JSON) failed".into());
    }
    Ok(dir.join("doc"))
}

/// The snapshot of each crate, from its rustdoc JSON: package name → sorted lines.
pub(crate) fn snapshots(
    jsons: &[(String, Value)],
) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut walks = Vec::new();
    for (package, json) in jsons {
        let krate = Krate::new(json).map_err(|e| format!("{package}: {e}"))?;
        let walk = krate.walk().map_err(|e| format!("{package}: {e}"))?;
        walks.push((package.clone(), krate, walk));
    }
    // Every item each crate makes public, by its defining path: for naming the origin of a
    // re-export by its public path, and for the names a glob re-export brings.
    let mut public = Public::default();
    for (_, krate, walk) in &walks {
        krate.publish(walk, &mut public);
    }
    let mut out = BTreeMap::new();
    for (package, krate, walk) in &walks {
        let lines = krate
            .lines(walk, &public)
            .map_err(|e| format!("{package}: {e}"))?;
        out.insert(package.clone(), lines);
    }
    Ok(out)
}

/// A snapshot file's text.
pub(crate) fn render(lines: &[String]) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Crates whose count of public items is over their budget, or that have no budget.
pub(crate) fn budget_problems(
    snapshots: &BTreeMap<String, Vec<String>>,
    budgets: &BTreeMap<String, Option<usize>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (package, lines) in snapshots {
        match budgets.get(package).copied().flatten() {
            Some(budget) if lines.len() > budget => problems.push(format!(
                "{package}: {} public items, over its budget of {budget} (ARCHITECTURE.md's crate table, \"public items\")",
                lines.len()
            )),
            Some(_) => {}
            None => problems.push(format!(
                "{package}: no budget of public items in ARCHITECTURE.md's crate table"
            )),
        }
    }
    problems
}

/// Each crate whose snapshot differs from its checked-in text (`old`, empty when there is no
/// file), with the unified diff.
pub(crate) fn differences(
    old: &BTreeMap<String, String>,
    snapshots: &BTreeMap<String, Vec<String>>,
) -> Vec<(String, String)> {
    snapshots
        .iter()
        .filter_map(|(package, lines)| {
            let before = old.get(package).map_or("", String::as_str);
            let diff = unified_diff(before, &render(lines), &format!("{API_DIR}/{package}.txt"));
            (!diff.is_empty()).then(|| (package.clone(), diff))
        })
        .collect()
}

/// A unified diff of two snapshot texts (empty when they are equal).
pub(crate) fn unified_diff(old: &str, new: &str, name: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// Writes `text` to `path` through a temporary file beside it and a rename.
fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let dir = path.parent().ok_or("a snapshot path has no folder")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("a snapshot path has no file name")?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

/// Removes `api/*.txt` files of crates that no longer exist.
fn remove_stale(dir: &Path, snapshots: &BTreeMap<String, Vec<String>>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(package) = name.strip_suffix(".txt")
            && !snapshots.contains_key(package)
        {
            std::fs::remove_file(entry.path()).map_err(|e| format!("{name}: {e}"))?;
            println!("api: removed {API_DIR}/{name} (no such library crate)");
        }
    }
    Ok(())
}

/// What every crate of a run makes public: (crate, defining path) → (public path, kind).
#[derive(Default)]
struct Public {
    items: BTreeMap<(String, String), (String, String)>,
}

impl Public {
    /// The public path of an item of another crate, known by its defining path.
    fn path_of(&self, krate: &str, defining: &str) -> Option<&str> {
        self.items
            .get(&(krate.to_string(), defining.to_string()))
            .map(|(p, _)| p.as_str())
    }

    /// The names directly under the public module path `module` of `krate`, with their kinds.
    fn children(&self, krate: &str, module: &str) -> Vec<(String, String)> {
        let prefix = format!("{module}::");
        let mut names: Vec<(String, String)> = self
            .items
            .iter()
            .filter(|((k, _), (p, _))| {
                k == krate && p.strip_prefix(&prefix).is_some_and(|n| !n.contains("::"))
            })
            .map(|(_, (p, kind))| (p[prefix.len()..].to_string(), kind.clone()))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// One crate's rustdoc JSON.
struct Krate<'a> {
    name: String,
    root: String,
    index: &'a serde_json::Map<String, Value>,
    paths: &'a serde_json::Map<String, Value>,
    externals: &'a serde_json::Map<String, Value>,
}

/// Where a walk found things.
#[derive(Default)]
struct Walk {
    /// Local item id → every public path it is reachable at.
    places: BTreeMap<String, BTreeSet<String>>,
    /// Items of other crates passed through: (public path, use item id).
    reexports: Vec<(String, String)>,
}

impl<'a> Krate<'a> {
    fn new(json: &'a Value) -> Result<Self, String> {
        let version = json["format_version"]
            .as_u64()
            .ok_or("no format_version in the rustdoc JSON")?;
        if !FORMAT_VERSIONS.contains(&version) {
            return Err(format!(
                "rustdoc JSON format {version}; xtask api reads {FORMAT_VERSIONS:?} (the toolchain changed: check xtask/src/api.rs against the new format and add it)"
            ));
        }
        let root = id(&json["root"]).ok_or("no root in the rustdoc JSON")?;
        let index = json["index"].as_object().ok_or("no index")?;
        let name = index
            .get(&root)
            .and_then(|r| r["name"].as_str())
            .ok_or("the root module has no name")?
            .to_string();
        Ok(Krate {
            name,
            root,
            index,
            paths: json["paths"].as_object().ok_or("no paths")?,
            externals: json["external_crates"]
                .as_object()
                .ok_or("no external_crates")?,
        })
    }

    fn item(&self, id: &str) -> Option<&'a Value> {
        self.index.get(id)
    }

    /// Walks the public modules from the root, breadth first, recording where each item is.
    fn walk(&self) -> Result<Walk, String> {
        let mut walk = Walk::default();
        let mut seen_modules = BTreeSet::new();
        let mut seen_globs = BTreeSet::new();
        let mut queue = std::collections::VecDeque::new();
        queue.push_back((self.root.clone(), self.name.clone()));
        seen_modules.insert(self.root.clone());
        walk.places
            .entry(self.root.clone())
            .or_default()
            .insert(self.name.clone());
        while let Some((module, path)) = queue.pop_front() {
            let item = self
                .item(&module)
                .ok_or_else(|| format!("module {path} is not in the index"))?;
            let children = item["inner"]["module"]["items"]
                .as_array()
                .or_else(|| item["inner"]["enum"]["variants"].as_array())
                .ok_or_else(|| format!("{path} is not a module"))?;
            for child in children {
                let child = id(child).ok_or("an item id is not a number")?;
                let Some(item) = self.item(&child) else {
                    continue;
                };
                let (kind, inner) = kind_of(item)?;
                match kind {
                    "impl" | "variant" => {}
                    "use" => {
                        let name = inner["name"].as_str().unwrap_or_default();
                        let target = id(&inner["id"]);
                        let local = target.as_ref().and_then(|t| {
                            self.item(t).filter(|i| i["crate_id"].as_u64() == Some(0))
                        });
                        match (local, target) {
                            (Some(target_item), Some(target)) => {
                                let glob = inner["is_glob"].as_bool().unwrap_or(false);
                                let at = if glob {
                                    path.clone()
                                } else {
                                    format!("{path}::{name}")
                                };
                                let (tkind, _) = kind_of(target_item)?;
                                if glob {
                                    // The module's (or enum's) names come to `path`.
                                    if seen_globs.insert((target.clone(), at.clone())) {
                                        queue.push_back((target, at));
                                    }
                                } else {
                                    walk.places
                                        .entry(target.clone())
                                        .or_default()
                                        .insert(at.clone());
                                    if tkind == "module" && seen_modules.insert(target.clone()) {
                                        queue.push_back((target, at));
                                    }
                                }
                            }
                            _ => walk.reexports.push((format!("{path}::{name}"), child)),
                        }
                    }
                    _ => {
                        let name = item["name"].as_str().unwrap_or_default();
                        let at = format!("{path}::{name}");
                        walk.places
                            .entry(child.clone())
                            .or_default()
                            .insert(at.clone());
                        if kind == "module" && seen_modules.insert(child.clone()) {
                            queue.push_back((child, at));
                        }
                    }
                }
            }
        }
        Ok(walk)
    }

    /// The path an item is defined at, from the JSON's `paths`.
    fn defining_path(&self, id: &str) -> Option<String> {
        let segments = self.paths.get(id)?["path"].as_array()?;
        Some(
            segments
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("::"),
        )
    }

    /// An item's canonical public path: where it is defined if that is reachable, else its
    /// shortest public path (then the first by name).
    fn canonical(&self, id: &str, places: &BTreeSet<String>) -> Option<String> {
        if let Some(defined) = self.defining_path(id)
            && places.contains(&defined)
        {
            return Some(defined);
        }
        places
            .iter()
            .min_by_key(|p| (p.matches("::").count(), p.as_str()))
            .cloned()
    }

    /// Adds this crate's public items to `public`.
    fn publish(&self, walk: &Walk, public: &mut Public) {
        for (id, places) in &walk.places {
            let (Some(item), Some(canonical)) = (self.item(id), self.canonical(id, places)) else {
                continue;
            };
            let Ok((kind, _)) = kind_of(item) else {
                continue;
            };
            let defining = self.defining_path(id).unwrap_or_else(|| canonical.clone());
            for place in places {
                let key = if *place == canonical {
                    defining.clone()
                } else {
                    format!("{defining} as {place}")
                };
                public.items.insert(
                    (self.name.clone(), key),
                    (place.clone(), kind_word(kind).to_string()),
                );
            }
        }
        for (at, use_id) in &walk.reexports {
            if let Some(inner) = self.item(use_id).map(|i| &i["inner"]["use"])
                && !inner["is_glob"].as_bool().unwrap_or(false)
            {
                let kind = id(&inner["id"])
                    .and_then(|t| self.paths.get(&t))
                    .and_then(|p| p["kind"].as_str())
                    .unwrap_or("item");
                public.items.insert(
                    (self.name.clone(), format!("re-export {at}")),
                    (at.clone(), kind_word(kind).to_string()),
                );
            }
        }
    }

    /// This crate's snapshot lines, sorted.
    fn lines(&self, walk: &Walk, public: &Public) -> Result<Vec<String>, String> {
        // Canonical path of every reachable local item, for naming local traits in impls.
        let mut canonical = BTreeMap::new();
        for (id, places) in &walk.places {
            if let Some(c) = self.canonical(id, places) {
                canonical.insert(id.clone(), c);
            }
        }
        let mut entries: Vec<(String, u8, String)> = Vec::new();
        let mut impls_done = BTreeSet::new();
        for (id, places) in &walk.places {
            let Some(item) = self.item(id) else { continue };
            let path = &canonical[id];
            let (kind, _) = kind_of(item)?;
            if id == &self.root {
                continue;
            }
            self.item_lines(item, path, &canonical, &mut impls_done, &mut entries)?;
            for place in places.iter().filter(|p| *p != path) {
                entries.push((
                    place.clone(),
                    0,
                    format!("alias {} {place} = {path}", kind_word(kind)),
                ));
            }
        }
        // Impls of public traits on types that are not this crate's public types.
        for (item_id, path) in &canonical {
            let Some(item) = self.item(item_id) else {
                continue;
            };
            if let Some(impls) = item["inner"]["trait"]["implementations"].as_array() {
                for imp in impls.iter().filter_map(id) {
                    if impls_done.insert(imp.clone())
                        && let Some(line) = self.impl_line(&imp, &canonical)?
                    {
                        entries.push((path.clone(), 1, line));
                    }
                }
            }
        }
        for (at, use_id) in &walk.reexports {
            self.reexport_lines(at, use_id, public, &mut entries)?;
        }
        entries.sort();
        entries.dedup();
        Ok(entries.into_iter().map(|(_, _, line)| line).collect())
    }

    /// The line of an item and of its members and impls.
    fn item_lines(
        &self,
        item: &Value,
        path: &str,
        canonical: &BTreeMap<String, String>,
        impls_done: &mut BTreeSet<String>,
        out: &mut Vec<(String, u8, String)>,
    ) -> Result<(), String> {
        let (kind, inner) = kind_of(item)?;
        let non_exhaustive = item["attrs"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a == "non_exhaustive"));
        let attr = if non_exhaustive {
            "#[non_exhaustive] "
        } else {
            ""
        };
        let line = match kind {
            "module" => format!("mod {path}"),
            "struct" | "union" => {
                let mut line = format!("{attr}{kind} {path}{}", generics(&inner["generics"])?);
                let shape = &inner["kind"];
                if let Some(fields) = shape["plain"]["fields"].as_array() {
                    if shape["plain"]["has_stripped_fields"].as_bool() == Some(true) {
                        line.push_str(" {..}");
                    }
                    self.field_lines(path, fields, out)?;
                } else if let Some(fields) = shape["tuple"].as_array() {
                    if fields.iter().any(Value::is_null) {
                        line.push_str(" (..)");
                    }
                    for (n, field) in fields.iter().enumerate() {
                        if let Some(f) = id(field).and_then(|f| self.item(&f)) {
                            let ty = render_type(&f["inner"]["struct_field"])?;
                            out.push((
                                format!("{path}::{n}"),
                                0,
                                format!("field {path}::{n}: {ty}"),
                            ));
                        }
                    }
                } else if let Some(fields) = inner["fields"].as_array() {
                    // A union.
                    if inner["has_stripped_fields"].as_bool() == Some(true) {
                        line.push_str(" {..}");
                    }
                    self.field_lines(path, fields, out)?;
                }
                line.push_str(&self.lacking_auto_traits(inner));
                self.impl_lines(path, inner, canonical, impls_done, out)?;
                line
            }
            "enum" => {
                let mut line = format!("{attr}enum {path}{}", generics(&inner["generics"])?);
                if inner["has_stripped_variants"].as_bool() == Some(true) {
                    line.push_str(" {..}");
                }
                for variant in inner["variants"].as_array().into_iter().flatten() {
                    let Some(v) = id(variant).and_then(|v| self.item(&v)) else {
                        continue;
                    };
                    let name = v["name"].as_str().unwrap_or_default();
                    let text = self.variant(&v["inner"]["variant"])?;
                    let vattr = if v["attrs"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|a| a == "non_exhaustive"))
                    {
                        "#[non_exhaustive] "
                    } else {
                        ""
                    };
                    out.push((
                        format!("{path}::{name}"),
                        0,
                        format!("{vattr}variant {path}::{name}{text}"),
                    ));
                }
                line.push_str(&self.lacking_auto_traits(inner));
                self.impl_lines(path, inner, canonical, impls_done, out)?;
                line
            }
            "trait" => {
                let bounds = bounds(&inner["bounds"])?;
                let mut line = format!("trait {path}{}", generics(&inner["generics"])?);
                if !bounds.is_empty() {
                    line.push_str(&format!(": {bounds}"));
                }
                if inner["is_unsafe"].as_bool() == Some(true) {
                    line = format!("unsafe {line}");
                }
                for member in inner["items"].as_array().into_iter().flatten() {
                    if let Some(m) = id(member).and_then(|m| self.item(&m)) {
                        self.member_line(path, m, true, out)?;
                    }
                }
                line
            }
            "function" => render_fn(path, inner)?,
            "constant" => format!(
                "const {path}: {}{}",
                render_type(&inner["type"])?,
                value(inner["const"]["expr"].as_str())
            ),
            "static" => format!(
                "static {}{path}: {}",
                if inner["is_mutable"].as_bool() == Some(true) {
                    "mut "
                } else {
                    ""
                },
                render_type(&inner["type"])?
            ),
            "type_alias" => format!(
                "type {path}{} = {}",
                generics(&inner["generics"])?,
                render_type(&inner["type"])?
            ),
            "macro" | "proc_macro" => format!("macro {path}!"),
            "trait_alias" => format!("trait {path} = {}", bounds(&inner["params"])?),
            "extern_crate" => format!("extern crate {path}"),
            other => format!("{other} {path}"),
        };
        out.push((path.to_string(), 0, line));
        Ok(())
    }

    fn field_lines(
        &self,
        path: &str,
        fields: &[Value],
        out: &mut Vec<(String, u8, String)>,
    ) -> Result<(), String> {
        for field in fields {
            if let Some(f) = id(field).and_then(|f| self.item(&f)) {
                let name = f["name"].as_str().unwrap_or_default();
                let ty = render_type(&f["inner"]["struct_field"])?;
                out.push((
                    format!("{path}::{name}"),
                    0,
                    format!("field {path}::{name}: {ty}"),
                ));
            }
        }
        Ok(())
    }

    /// A variant's shape: ``, `(T, U)`, ` { a: T }`, and ` = discriminant`.
    fn variant(&self, inner: &Value) -> Result<String, String> {
        let shape = &inner["kind"];
        let mut text = String::new();
        if let Some(fields) = shape["tuple"].as_array() {
            let mut parts = Vec::new();
            for field in fields {
                match id(field).and_then(|f| self.item(&f)) {
                    Some(f) => parts.push(render_type(&f["inner"]["struct_field"])?),
                    None => parts.push("_".into()),
                }
            }
            text = format!("({})", parts.join(", "));
        } else if let Some(fields) = shape["struct"]["fields"].as_array() {
            let mut parts = Vec::new();
            for field in fields {
                if let Some(f) = id(field).and_then(|f| self.item(&f)) {
                    let name = f["name"].as_str().unwrap_or_default();
                    parts.push(format!(
                        "{name}: {}",
                        render_type(&f["inner"]["struct_field"])?
                    ));
                }
            }
            if shape["struct"]["has_stripped_fields"].as_bool() == Some(true) {
                parts.push("..".into());
            }
            text = format!(" {{ {} }}", parts.join(", "));
        }
        if let Some(expr) = inner["discriminant"]["expr"].as_str() {
            text.push_str(&format!(" = {expr}"));
        }
        Ok(text)
    }

    /// ` !Send !Sync …` for the automatic traits a type does not implement.
    fn lacking_auto_traits(&self, inner: &Value) -> String {
        let mut lacking = Vec::new();
        for imp in inner["impls"].as_array().into_iter().flatten() {
            let Some(i) = id(imp).and_then(|i| self.item(&i)) else {
                continue;
            };
            let imp = &i["inner"]["impl"];
            if imp["is_synthetic"].as_bool() == Some(true)
                && imp["is_negative"].as_bool() == Some(true)
            {
                let name = last_segment(imp["trait"]["path"].as_str().unwrap_or_default());
                if AUTO_TRAITS.contains(&name) {
                    lacking.push(format!(" !{name}"));
                }
            }
        }
        lacking.sort();
        lacking.concat()
    }

    /// Inherent members and trait impls of a type at `path`.
    fn impl_lines(
        &self,
        path: &str,
        inner: &Value,
        canonical: &BTreeMap<String, String>,
        impls_done: &mut BTreeSet<String>,
        out: &mut Vec<(String, u8, String)>,
    ) -> Result<(), String> {
        for imp_id in inner["impls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(id)
        {
            let Some(i) = self.item(&imp_id) else {
                continue;
            };
            let imp = &i["inner"]["impl"];
            if imp["trait"].is_null() {
                if imp["is_synthetic"].as_bool() == Some(true) {
                    continue;
                }
                let gens = generics(&imp["generics"])?;
                for member in imp["items"].as_array().into_iter().flatten() {
                    if let Some(m) = id(member).and_then(|m| self.item(&m)) {
                        if m["visibility"].as_str() != Some("public") {
                            continue;
                        }
                        let at = out.len();
                        self.member_line(path, m, false, out)?;
                        if !gens.is_empty() {
                            for entry in &mut out[at..] {
                                entry.2.push_str(&format!(" [impl{gens}]"));
                            }
                        }
                    }
                }
            } else if impls_done.insert(imp_id.clone())
                && let Some(line) = self.impl_line(&imp_id, canonical)?
            {
                out.push((path.to_string(), 1, line));
            }
        }
        Ok(())
    }

    /// `impl<G> Trait<A> for T (type X = Y)` for a trait impl worth a line.
    fn impl_line(
        &self,
        imp_id: &str,
        canonical: &BTreeMap<String, String>,
    ) -> Result<Option<String>, String> {
        let Some(i) = self.item(imp_id) else {
            return Ok(None);
        };
        let imp = &i["inner"]["impl"];
        if imp["is_synthetic"].as_bool() == Some(true) || !imp["blanket_impl"].is_null() {
            return Ok(None);
        }
        let tr = &imp["trait"];
        let Some(trait_id) = id(&tr["id"]) else {
            return Ok(None);
        };
        let trait_path = match self.paths.get(&trait_id) {
            Some(p) if p["crate_id"].as_u64() == Some(0) => match canonical.get(&trait_id) {
                Some(c) => c.clone(),
                // A trait of this crate that is not public.
                None => return Ok(None),
            },
            Some(p) => p["path"]
                .as_array()
                .map(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("::")
                })
                .unwrap_or_default(),
            None => tr["path"].as_str().unwrap_or_default().to_string(),
        };
        if SKIPPED_TRAITS.contains(&last_segment(&trait_path)) {
            return Ok(None);
        }
        let args = match &tr["args"] {
            Value::Null => String::new(),
            a => generic_args(a)?,
        };
        let mut assoc = Vec::new();
        for member in imp["items"].as_array().into_iter().flatten() {
            if let Some(m) = id(member).and_then(|m| self.item(&m))
                && let Some(ty) = m["inner"]["assoc_type"]
                    .get("type")
                    .filter(|t| !t.is_null())
            {
                let name = m["name"].as_str().unwrap_or_default();
                assoc.push(format!("type {name} = {}", render_type(ty)?));
            }
        }
        let mut line = format!(
            "impl{} {}{trait_path}{args} for {}{}",
            generics(&imp["generics"])?,
            if imp["is_negative"].as_bool() == Some(true) {
                "!"
            } else {
                ""
            },
            self.impl_for(&imp["for"], canonical)?,
            where_clause(&imp["generics"])?
        );
        if imp["is_unsafe"].as_bool() == Some(true) {
            line = format!("unsafe {line}");
        }
        if !assoc.is_empty() {
            line.push_str(&format!(" ({})", assoc.join(", ")));
        }
        Ok(Some(line))
    }

    /// The type of a trait impl: a named type by its full path (its canonical path when it is
    /// this crate's), so that `Error` says whose.
    fn impl_for(&self, ty: &Value, canonical: &BTreeMap<String, String>) -> Result<String, String> {
        if let Some(p) = ty.get("resolved_path")
            && let Some(tid) = id(&p["id"])
        {
            let base = match canonical.get(&tid) {
                Some(c) => Some(c.clone()),
                None => self
                    .paths
                    .get(&tid)
                    .filter(|s| s["crate_id"].as_u64() != Some(0))
                    .and_then(|_| self.defining_path(&tid)),
            };
            if let Some(base) = base {
                let args = match &p["args"] {
                    Value::Null => String::new(),
                    a => generic_args(a)?,
                };
                return Ok(format!("{base}{args}"));
            }
        }
        render_type(ty)
    }

    /// A method, associated constant or associated type of a type or trait at `owner`.
    fn member_line(
        &self,
        owner: &str,
        m: &Value,
        in_trait: bool,
        out: &mut Vec<(String, u8, String)>,
    ) -> Result<(), String> {
        let name = m["name"].as_str().unwrap_or_default();
        let path = format!("{owner}::{name}");
        let (kind, inner) = kind_of(m)?;
        let line = match kind {
            "function" => {
                let mut line = render_fn(&path, inner)?;
                if in_trait && inner["has_body"].as_bool() == Some(true) {
                    line.push_str(" (provided)");
                }
                line
            }
            "assoc_const" => {
                let mut line = format!("const {path}: {}", render_type(&inner["type"])?);
                if !in_trait {
                    line.push_str(&value(inner["value"].as_str()));
                } else if !inner["value"].is_null() {
                    line.push_str(" (provided)");
                }
                line
            }
            "assoc_type" => {
                let mut line = format!("type {path}{}", generics(&inner["generics"])?);
                let b = bounds(&inner["bounds"])?;
                if !b.is_empty() {
                    line.push_str(&format!(": {b}"));
                }
                if let Some(ty) = inner.get("type").filter(|t| !t.is_null()) {
                    line.push_str(&format!(" = {}", render_type(ty)?));
                }
                line
            }
            other => format!("{other} {path}"),
        };
        out.push((path, 0, line));
        Ok(())
    }

    /// The lines of an item of another crate passed through at `at`.
    fn reexport_lines(
        &self,
        at: &str,
        use_id: &str,
        public: &Public,
        out: &mut Vec<(String, u8, String)>,
    ) -> Result<(), String> {
        let Some(item) = self.item(use_id) else {
            return Ok(());
        };
        let inner = &item["inner"]["use"];
        let source = inner["source"].as_str().unwrap_or_default();
        let target = id(&inner["id"]);
        let summary = target.as_ref().and_then(|t| self.paths.get(t));
        let origin_crate = summary
            .and_then(|s| s["crate_id"].as_u64())
            .and_then(|c| self.externals.get(&c.to_string()))
            .and_then(|c| c["name"].as_str())
            .unwrap_or("");
        let defining = target.as_ref().and_then(|t| self.defining_path(t));
        let kind = summary.and_then(|s| s["kind"].as_str()).unwrap_or("item");
        let origin = defining
            .as_deref()
            .and_then(|d| public.path_of(origin_crate, d))
            .map(str::to_string)
            .or(defining.clone())
            .unwrap_or_else(|| source.to_string());
        let package = origin_crate.replace('_', "-");
        let from = if origin_crate.is_empty() {
            String::new()
        } else {
            format!(" ({package})")
        };
        if inner["is_glob"].as_bool() == Some(true) {
            let module = at.rsplit_once("::").map_or(at, |(m, _)| m);
            out.push((
                format!("{module}::*"),
                0,
                format!("re-export glob {module}::* = {origin}::*{from}"),
            ));
            for (name, kind) in public.children(origin_crate, &origin) {
                out.push((
                    format!("{module}::{name}"),
                    0,
                    format!("re-export {kind} {module}::{name} = {origin}::{name}{from} (glob)"),
                ));
            }
            return Ok(());
        }
        let is_crate = defining.as_deref().is_some_and(|d| !d.contains("::")) && kind == "module";
        let word = if is_crate { "crate" } else { kind_word(kind) };
        let line = if is_crate {
            format!("re-export crate {at} = {origin}")
        } else {
            format!("re-export {word} {at} = {origin}{from}")
        };
        out.push((at.to_string(), 0, line));
        Ok(())
    }
}

/// The kind key and body of an item's `inner`.
fn kind_of(item: &Value) -> Result<(&str, &Value), String> {
    item["inner"]
        .as_object()
        .and_then(|o| o.iter().next())
        .map(|(k, v)| (k.as_str(), v))
        .ok_or_else(|| "an item without inner".to_string())
}

/// The word a line uses for a kind of the JSON.
fn kind_word(kind: &str) -> &str {
    match kind {
        "module" => "mod",
        "function" => "fn",
        "constant" => "const",
        "type_alias" => "type",
        "proc_macro" | "proc_attribute" | "proc_derive" => "macro",
        other => other,
    }
}

/// An id (a number in this format) as the index's key.
fn id(value: &Value) -> Option<String> {
    value.as_u64().map(|n| n.to_string())
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// ` = expr` for a constant's value when it is short and on one line.
fn value(expr: Option<&str>) -> String {
    match expr {
        Some(e) if e != "_" && e.len() <= 60 && !e.contains('\n') => format!(" = {e}"),
        _ => String::new(),
    }
}

/// `fn path<G>(args) -> R where …` with `const`, `async`, `unsafe` and a foreign ABI.
fn render_fn(path: &str, inner: &Value) -> Result<String, String> {
    let header = &inner["header"];
    let mut line = String::new();
    for (flag, word) in [
        ("is_const", "const "),
        ("is_async", "async "),
        ("is_unsafe", "unsafe "),
    ] {
        if header[flag].as_bool() == Some(true) {
            line.push_str(word);
        }
    }
    if let Some(abi) = header["abi"].as_object().and_then(|o| o.keys().next()) {
        line.push_str(&format!("extern \"{abi}\" "));
    }
    let sig = &inner["sig"];
    let mut args = Vec::new();
    for input in sig["inputs"].as_array().into_iter().flatten() {
        let name = input[0].as_str().unwrap_or_default();
        let ty = &input[1];
        args.push(if name == "self" {
            self_arg(ty)?
        } else {
            render_type(ty)?
        });
    }
    if sig["is_c_variadic"].as_bool() == Some(true) {
        args.push("...".into());
    }
    line.push_str(&format!(
        "fn {path}{}({})",
        generics(&inner["generics"])?,
        args.join(", ")
    ));
    if !sig["output"].is_null() {
        line.push_str(&format!(" -> {}", render_type(&sig["output"])?));
    }
    line.push_str(&where_clause(&inner["generics"])?);
    Ok(line)
}

/// `self`, `&self`, `&mut self`, `&'a self` or `self: T`.
fn self_arg(ty: &Value) -> Result<String, String> {
    if ty["generic"] == "Self" {
        return Ok("self".into());
    }
    let r = &ty["borrowed_ref"];
    if r["type"]["generic"] == "Self" {
        let lifetime = r["lifetime"]
            .as_str()
            .map(|l| format!("{l} "))
            .unwrap_or_default();
        let m = if r["is_mutable"].as_bool() == Some(true) {
            "mut "
        } else {
            ""
        };
        return Ok(format!("&{lifetime}{m}self"));
    }
    Ok(format!("self: {}", render_type(ty)?))
}

/// `<'a, T: Bound, const N: usize>` (parameters made for `impl Trait` arguments left out).
fn generics(g: &Value) -> Result<String, String> {
    let mut params = Vec::new();
    for p in g["params"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or_default();
        let kind = &p["kind"];
        if let Some(l) = kind.get("lifetime") {
            let outlives: Vec<&str> = l["outlives"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            params.push(if outlives.is_empty() {
                name.to_string()
            } else {
                format!("{name}: {}", outlives.join(" + "))
            });
        } else if let Some(t) = kind.get("type") {
            if t["is_synthetic"].as_bool() == Some(true) {
                continue;
            }
            let mut text = name.to_string();
            let b = bounds(&t["bounds"])?;
            if !b.is_empty() {
                text.push_str(&format!(": {b}"));
            }
            if !t["default"].is_null() {
                text.push_str(&format!(" = {}", render_type(&t["default"])?));
            }
            params.push(text);
        } else if let Some(c) = kind.get("const") {
            params.push(format!("const {name}: {}", render_type(&c["type"])?));
        }
    }
    Ok(if params.is_empty() {
        String::new()
    } else {
        format!("<{}>", params.join(", "))
    })
}

/// ` where T: Bound, 'a: 'b` (empty without predicates).
fn where_clause(g: &Value) -> Result<String, String> {
    let mut preds = Vec::new();
    for p in g["where_predicates"].as_array().into_iter().flatten() {
        if let Some(b) = p.get("bound_predicate") {
            let hrtb = hrtb(&b["generic_params"])?;
            preds.push(format!(
                "{hrtb}{}: {}",
                render_type(&b["type"])?,
                bounds(&b["bounds"])?
            ));
        } else if let Some(l) = p.get("lifetime_predicate") {
            let outlives: Vec<&str> = l["outlives"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            preds.push(format!(
                "{}: {}",
                l["lifetime"].as_str().unwrap_or_default(),
                outlives.join(" + ")
            ));
        } else if let Some(e) = p.get("eq_predicate") {
            let rhs = match e["rhs"].get("type") {
                Some(t) => render_type(t)?,
                None => e["rhs"]["constant"]["expr"]
                    .as_str()
                    .unwrap_or("_")
                    .to_string(),
            };
            preds.push(format!("{} = {rhs}", render_type(&e["lhs"])?));
        } else {
            return Err(format!("unknown where predicate {p}"));
        }
    }
    Ok(if preds.is_empty() {
        String::new()
    } else {
        format!(" where {}", preds.join(", "))
    })
}

/// `for<'a> ` for higher-ranked parameters.
fn hrtb(params: &Value) -> Result<String, String> {
    let names: Vec<&str> = params
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .collect();
    Ok(if names.is_empty() {
        String::new()
    } else {
        format!("for<{}> ", names.join(", "))
    })
}

/// `A + ?Sized + 'a`.
fn bounds(list: &Value) -> Result<String, String> {
    let mut parts = Vec::new();
    for b in list.as_array().into_iter().flatten() {
        if let Some(t) = b.get("trait_bound") {
            let modifier = match t["modifier"].as_str() {
                Some("maybe") => "?",
                Some("maybe_const") => "~const ",
                _ => "",
            };
            parts.push(format!(
                "{}{modifier}{}",
                hrtb(&t["generic_params"])?,
                render_path(&t["trait"])?
            ));
        } else if let Some(l) = b.get("outlives") {
            parts.push(l.as_str().unwrap_or_default().to_string());
        } else if let Some(args) = b.get("use") {
            let names: Vec<String> = args
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| {
                    a.get("lifetime")
                        .or_else(|| a.get("param"))
                        .and_then(Value::as_str)
                        .or_else(|| a.as_str())
                        .unwrap_or("_")
                        .to_string()
                })
                .collect();
            parts.push(format!("use<{}>", names.join(", ")));
        } else {
            return Err(format!("unknown bound {b}"));
        }
    }
    Ok(parts.join(" + "))
}

/// A path as its last segment and its arguments: `Result<Id, IdError>`.
fn render_path(p: &Value) -> Result<String, String> {
    let name = last_segment(p["path"].as_str().unwrap_or_default());
    let args = match &p["args"] {
        Value::Null => String::new(),
        a => generic_args(a)?,
    };
    Ok(format!("{name}{args}"))
}

/// `<A, 'a, Item = T>` or `(A, B) -> C`.
fn generic_args(a: &Value) -> Result<String, String> {
    if let Some(ab) = a.get("angle_bracketed") {
        let mut parts = Vec::new();
        for arg in ab["args"].as_array().into_iter().flatten() {
            parts.push(if let Some(l) = arg.get("lifetime") {
                l.as_str().unwrap_or_default().to_string()
            } else if let Some(t) = arg.get("type") {
                render_type(t)?
            } else if let Some(c) = arg.get("const") {
                c["expr"].as_str().unwrap_or("_").to_string()
            } else {
                "_".to_string()
            });
        }
        for c in ab["constraints"].as_array().into_iter().flatten() {
            let name = c["name"].as_str().unwrap_or_default();
            let args = match &c["args"] {
                Value::Null => String::new(),
                a => generic_args(a)?,
            };
            let binding = &c["binding"];
            parts.push(if let Some(eq) = binding.get("equality") {
                let rhs = match eq.get("type") {
                    Some(t) => render_type(t)?,
                    None => eq["constant"]["expr"].as_str().unwrap_or("_").to_string(),
                };
                format!("{name}{args} = {rhs}")
            } else {
                format!("{name}{args}: {}", bounds(&binding["constraint"])?)
            });
        }
        return Ok(if parts.is_empty() {
            String::new()
        } else {
            format!("<{}>", parts.join(", "))
        });
    }
    if let Some(p) = a.get("parenthesized") {
        let mut inputs = Vec::new();
        for t in p["inputs"].as_array().into_iter().flatten() {
            inputs.push(render_type(t)?);
        }
        let out = match &p["output"] {
            Value::Null => String::new(),
            t => format!(" -> {}", render_type(t)?),
        };
        return Ok(format!("({}){out}", inputs.join(", ")));
    }
    if a.get("return_type_notation").is_some() {
        return Ok("(..)".into());
    }
    Err(format!("unknown generic arguments {a}"))
}

/// A type as written in a signature, each path by its last segment.
pub(crate) fn render_type(t: &Value) -> Result<String, String> {
    if t == "infer" {
        return Ok("_".into());
    }
    let Some((kind, v)) = t.as_object().and_then(|o| o.iter().next()) else {
        return Err(format!("unknown type {t}"));
    };
    Ok(match kind.as_str() {
        "resolved_path" => render_path(v)?,
        "generic" | "primitive" => v.as_str().unwrap_or_default().to_string(),
        "tuple" => {
            let mut parts = Vec::new();
            for e in v.as_array().into_iter().flatten() {
                parts.push(render_type(e)?);
            }
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        "slice" => format!("[{}]", render_type(v)?),
        "array" => format!(
            "[{}; {}]",
            render_type(&v["type"])?,
            v["len"].as_str().unwrap_or("_")
        ),
        "pat" => render_type(&v["type"])?,
        "impl_trait" => format!("impl {}", bounds(v)?),
        "raw_pointer" => format!(
            "*{} {}",
            if v["is_mutable"].as_bool() == Some(true) {
                "mut"
            } else {
                "const"
            },
            render_type(&v["type"])?
        ),
        "borrowed_ref" => format!(
            "&{}{}{}",
            v["lifetime"]
                .as_str()
                .map(|l| format!("{l} "))
                .unwrap_or_default(),
            if v["is_mutable"].as_bool() == Some(true) {
                "mut "
            } else {
                ""
            },
            render_type(&v["type"])?
        ),
        "dyn_trait" => {
            let mut parts = Vec::new();
            for p in v["traits"].as_array().into_iter().flatten() {
                parts.push(format!(
                    "{}{}",
                    hrtb(&p["generic_params"])?,
                    render_path(&p["trait"])?
                ));
            }
            if let Some(l) = v["lifetime"].as_str() {
                parts.push(l.to_string());
            }
            format!("dyn {}", parts.join(" + "))
        }
        "function_pointer" => {
            let sig = &v["sig"];
            let mut args = Vec::new();
            for input in sig["inputs"].as_array().into_iter().flatten() {
                args.push(render_type(&input[1])?);
            }
            let out = match &sig["output"] {
                Value::Null => String::new(),
                o => format!(" -> {}", render_type(o)?),
            };
            format!(
                "{}fn({}){out}",
                hrtb(&v["generic_params"])?,
                args.join(", ")
            )
        }
        "qualified_path" => {
            let name = v["name"].as_str().unwrap_or_default();
            let args = match &v["args"] {
                Value::Null => String::new(),
                a => generic_args(a)?,
            };
            let self_type = render_type(&v["self_type"])?;
            match &v["trait"] {
                Value::Null => format!("{self_type}::{name}{args}"),
                _ if self_type == "Self" => format!("Self::{name}{args}"),
                tr => format!("<{self_type} as {}>::{name}{args}", render_path(tr)?),
            }
        }
        _ => return Err(format!("unknown type {t}")),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(p: &str) -> Value {
        json!({ "resolved_path": { "path": p, "id": 90, "args": null } })
    }

    /// A crate `demo`: `pub mod id { pub struct Id { .. } impl Id { pub fn parse(&str) ->
    /// Result<Id, IdError> } impl Clone for Id }`, `pub enum Kind { A(u8) }`,
    /// `pub use id::Id;`, `pub use other::Thing;`, `pub use other;`.
    fn demo() -> Value {
        let no_generics = json!({ "params": [], "where_predicates": [] });
        json!({
            "format_version": 57,
            "root": 0,
            "index": {
                "0": { "name": "demo", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "module": { "is_crate": true, "items": [1, 2, 5, 8, 10], "is_stripped": false } } },
                "1": { "name": "id", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "module": { "is_crate": false, "items": [3], "is_stripped": false } } },
                "2": { "name": null, "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "use": { "source": "id::Id", "name": "Id", "id": 3, "is_glob": false } } },
                "3": { "name": "Id", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "struct": { "kind": { "plain": { "fields": [], "has_stripped_fields": true } },
                                              "generics": no_generics, "impls": [4, 9, 13] } } },
                "4": { "name": null, "crate_id": 0, "visibility": "default", "attrs": [],
                       "inner": { "impl": { "is_unsafe": false, "generics": no_generics, "trait": null,
                                            "for": path("Id"), "items": [6], "is_negative": false,
                                            "is_synthetic": false, "blanket_impl": null } } },
                "5": { "name": null, "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "use": { "source": "other::Thing", "name": "Thing", "id": 50, "is_glob": false } } },
                "6": { "name": "parse", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "function": {
                           "sig": { "inputs": [["text", { "borrowed_ref": { "lifetime": null, "is_mutable": false, "type": { "primitive": "str" } } }]],
                                    "output": { "resolved_path": { "path": "Result", "id": 91, "args": { "angle_bracketed": {
                                        "args": [{ "type": path("Id") }, { "type": path("crate::IdError") }], "constraints": [] } } } },
                                    "is_c_variadic": false },
                           "generics": no_generics,
                           "header": { "is_const": false, "is_unsafe": false, "is_async": false, "abi": "Rust" },
                           "has_body": true } } },
                "8": { "name": null, "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "use": { "source": "other", "name": "other", "id": 51, "is_glob": false } } },
                "9": { "name": null, "crate_id": 0, "visibility": "default", "attrs": [],
                       "inner": { "impl": { "is_unsafe": false, "generics": no_generics,
                                            "trait": { "path": "Clone", "id": 60, "args": null },
                                            "for": { "resolved_path": { "path": "Id", "id": 3, "args": null } }, "items": [], "is_negative": false,
                                            "is_synthetic": false, "blanket_impl": null } } },
                "10": { "name": "Kind", "crate_id": 0, "visibility": "public", "attrs": ["non_exhaustive"],
                        "inner": { "enum": { "generics": no_generics, "has_stripped_variants": false,
                                             "variants": [11], "impls": [] } } },
                "11": { "name": "A", "crate_id": 0, "visibility": "default", "attrs": [],
                        "inner": { "variant": { "kind": { "tuple": [12] }, "discriminant": null } } },
                "12": { "name": "0", "crate_id": 0, "visibility": "default", "attrs": [],
                        "inner": { "struct_field": { "primitive": "u8" } } },
                "13": { "name": null, "crate_id": 0, "visibility": "default", "attrs": [],
                        "inner": { "impl": { "is_unsafe": false, "generics": no_generics,
                                             "trait": { "path": "Sync", "id": 61, "args": null },
                                             "for": path("Id"), "items": [], "is_negative": true,
                                             "is_synthetic": true, "blanket_impl": null } } }
            },
            "paths": {
                "3": { "crate_id": 0, "path": ["demo", "id", "Id"], "kind": "struct" },
                "50": { "crate_id": 1, "path": ["other", "inner", "Thing"], "kind": "struct" },
                "51": { "crate_id": 1, "path": ["other"], "kind": "module" },
                "60": { "crate_id": 2, "path": ["core", "clone", "Clone"], "kind": "trait" }
            },
            "external_crates": { "1": { "name": "other" }, "2": { "name": "core" } }
        })
    }

    /// A crate `other`: `mod inner { pub struct Thing; }`, `pub use inner::Thing;`.
    fn other() -> Value {
        json!({
            "format_version": 57,
            "root": 0,
            "index": {
                "0": { "name": "other", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "module": { "is_crate": true, "items": [1], "is_stripped": false } } },
                "1": { "name": null, "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "use": { "source": "inner::Thing", "name": "Thing", "id": 2, "is_glob": false } } },
                "2": { "name": "Thing", "crate_id": 0, "visibility": "public", "attrs": [],
                       "inner": { "struct": { "kind": "unit", "generics": { "params": [], "where_predicates": [] }, "impls": [] } } }
            },
            "paths": { "2": { "crate_id": 0, "path": ["other", "inner", "Thing"], "kind": "struct" } },
            "external_crates": {}
        })
    }

    #[test]
    fn i40_rustdoc_json_becomes_one_sorted_line_per_public_item() {
        let snaps = snapshots(&[("demo".into(), demo())]).unwrap();
        assert_eq!(
            snaps["demo"],
            vec![
                "alias struct demo::Id = demo::id::Id",
                "#[non_exhaustive] enum demo::Kind",
                "variant demo::Kind::A(u8)",
                "re-export struct demo::Thing = other::inner::Thing (other)",
                "mod demo::id",
                "struct demo::id::Id {..} !Sync",
                "impl core::clone::Clone for demo::id::Id",
                "fn demo::id::Id::parse(&str) -> Result<Id, IdError>",
                "re-export crate demo::other = other",
            ]
        );
    }

    #[test]
    fn i40_a_reexport_names_its_origin_by_the_public_path_there() {
        let snaps = snapshots(&[("demo".into(), demo()), ("other".into(), other())]).unwrap();
        assert!(
            snaps["demo"]
                .contains(&"re-export struct demo::Thing = other::Thing (other)".to_string()),
            "{:?}",
            snaps["demo"]
        );
        // The origin lists the item at its public path, the private module left out.
        assert_eq!(snaps["other"], vec!["struct other::Thing"]);
    }

    #[test]
    fn i40_another_format_version_is_refused() {
        let mut json = demo();
        json["format_version"] = json!(58);
        let err = snapshots(&[("demo".into(), json)]).unwrap_err();
        assert!(err.contains("format 58"), "{err}");
    }

    #[test]
    fn i40_a_changed_surface_is_a_diff_and_fails_the_check() {
        let snaps = snapshots(&[("demo".into(), demo())]).unwrap();
        let same: BTreeMap<String, String> = [("demo".to_string(), render(&snaps["demo"]))].into();
        assert!(differences(&same, &snaps).is_empty());

        let mut json = demo();
        json["index"]["6"]["name"] = json!("parse_text");
        let changed = snapshots(&[("demo".into(), json)]).unwrap();
        let diffs = differences(&same, &changed);
        assert_eq!(diffs.len(), 1);
        let (package, diff) = &diffs[0];
        assert_eq!(package, "demo");
        assert!(diff.contains("--- a/api/demo.txt"), "{diff}");
        assert!(diff.contains("\n-fn demo::id::Id::parse(&str)"), "{diff}");
        assert!(
            diff.contains("\n+fn demo::id::Id::parse_text(&str)"),
            "{diff}"
        );

        // A crate without a checked-in file differs too.
        assert_eq!(differences(&BTreeMap::new(), &snaps).len(), 1);
    }

    #[test]
    fn i40_a_crate_over_its_budget_is_reported() {
        let snaps = snapshots(&[("demo".into(), demo())]).unwrap();
        let n = snaps["demo"].len();
        let within: BTreeMap<String, Option<usize>> = [("demo".to_string(), Some(n))].into();
        assert!(budget_problems(&snaps, &within).is_empty());
        let over: BTreeMap<String, Option<usize>> = [("demo".to_string(), Some(n - 1))].into();
        let problems = budget_problems(&snaps, &over);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with(&format!(
                "demo: {n} public items, over its budget of {}",
                n - 1
            )),
            "{problems:?}"
        );
        let none: BTreeMap<String, Option<usize>> = [("demo".to_string(), None)].into();
        assert!(budget_problems(&snaps, &none)[0].contains("no budget"));
    }

    /// Issue #40 (D117): the catalog passes no lower crate on through modules of its own. Its
    /// snapshot's `re-export` lines are the root's names and the vocabulary of the `runtime`,
    /// `libs` and `prompts` modules (types the catalog's own signatures name); the old
    /// pass-through modules do not come back.
    #[test]
    fn i40_the_catalog_reexports_only_its_vocabulary() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../api/flowmcp-catalog.txt");
        let text = std::fs::read_to_string(&file).unwrap();
        let mut problems = Vec::new();
        for line in text.lines() {
            let Some(path) = line
                .split_whitespace()
                .find(|w| w.starts_with("flowmcp_catalog::"))
            else {
                continue;
            };
            let module = path
                .strip_prefix("flowmcp_catalog::")
                .and_then(|rest| rest.rsplit_once("::").map(|(m, _)| m));
            if line.starts_with("mod ")
                && ["files", "resources", "env", "validate"]
                    .iter()
                    .any(|m| path == format!("flowmcp_catalog::{m}"))
            {
                problems.push(line);
            }
            if line.starts_with("re-export ")
                && !matches!(
                    module,
                    None | Some("runtime") | Some("libs") | Some("prompts")
                )
            {
                problems.push(line);
            }
        }
        assert!(problems.is_empty(), "pass-through surface: {problems:#?}");
        assert!(text.lines().any(|l| l.starts_with("re-export ")
            && l.contains("flowmcp_catalog::runtime::RunnerOptions")));
    }
}
