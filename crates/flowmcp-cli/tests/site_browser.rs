//! The catalog site in a real browser (issue #45): `flowmcp catalog site` writes the example
//! catalog's site and a hostile catalog's, and `scripts/site-browser.mjs` opens them from
//! `file://` in headless Chromium (Debian's `chromium`, driven over the DevTools protocol by
//! puppeteer-core) with axe-core: every namespace on the index, a misspelt tool name found by the
//! search box, the tool's parameters on its page, no console error, no request off `file://`, no
//! serious or critical accessibility violation in either theme, and nothing of the hostile
//! catalog's text run as markup or script.
//!
//! `.ci/run` installs puppeteer-core and axe-core from the npm registry (pinned, in a cache outside
//! the clone) and sets `FLOWMCP_SITE_MODULES` (their `node_modules`), `FLOWMCP_NODE` and
//! `FLOWMCP_CHROMIUM`. Without them the test says so and passes, unless
//! `FLOWMCP_REQUIRE_SITE_BROWSER=1` (CI sets it once they are installed).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{flowmcp, repo_root, temp_dir};

/// Node, the browser and the modules, or `None` (with a note) when the test cannot run here.
fn browser() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let node = var("FLOWMCP_NODE").unwrap_or_else(|| PathBuf::from("node"));
    let chromium = var("FLOWMCP_CHROMIUM").unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    match var("FLOWMCP_SITE_MODULES") {
        Some(modules) if chromium.exists() => Some((node, chromium, modules)),
        _ => {
            assert!(
                !std::env::var("FLOWMCP_REQUIRE_SITE_BROWSER").is_ok_and(|v| v == "1"),
                "FLOWMCP_REQUIRE_SITE_BROWSER=1, but FLOWMCP_SITE_MODULES or the browser is missing"
            );
            eprintln!(
                "site-browser: FLOWMCP_SITE_MODULES is not set or chromium is missing; the \
                 browser test is skipped"
            );
            None
        }
    }
}

/// Runs `scripts/site-browser.mjs check SITE EXPECT`; panics with its report when it fails.
fn check(site: &Path, expect: &serde_json::Value, dir: &Path) {
    let Some((node, chromium, modules)) = browser() else {
        return;
    };
    let file = dir.join("expect.json");
    std::fs::write(&file, expect.to_string()).unwrap();
    let out = Command::new(node)
        .arg(repo_root().join("scripts/site-browser.mjs"))
        .arg("check")
        .arg(site)
        .arg(&file)
        .env("FLOWMCP_SITE_MODULES", modules)
        .env("FLOWMCP_CHROMIUM", chromium)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
}

/// `flowmcp catalog site CATALOG --out SITE --rules docs/rules`, run in `cwd`; asserts it wrote
/// the site (exit 0, or 1 when the catalog has errors and `errors_allowed`).
fn build_site(catalog: &str, site: &Path, cwd: &Path, errors_allowed: bool) {
    let rules = repo_root().join("docs/rules");
    let run = flowmcp(
        &[
            "catalog",
            "site",
            catalog,
            "--out",
            &site.display().to_string(),
            "--rules",
            &rules.display().to_string(),
        ],
        cwd,
    );
    assert!(
        run.code == 0 || (errors_allowed && run.code == 1),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
}

/// Every `.html` file under `dir`, relative to it.
fn pages(dir: &Path, under: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(under).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            pages(dir, &path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
        }
    }
}

#[test]
fn i45_the_example_site_works_in_a_browser() {
    if browser().is_none() {
        return;
    }
    let dir = temp_dir("site-browser");
    let site = dir.join("site");
    let mut extra = Vec::new();
    build_site("examples/catalog", &site, &repo_root(), false);
    // Besides the index and the tool page the search leads to: a page of each other kind.
    let mut kinds: Vec<String> = Vec::new();
    let mut all = Vec::new();
    pages(&site, &site, &mut all);
    all.sort();
    for page in all {
        let kind = page.split('-').next().unwrap_or_default().to_string();
        if page != "index.html" && !kinds.iter().any(|k| page.starts_with(&format!("{k}-"))) {
            kinds.push(kind);
            extra.push(page);
        }
    }
    check(
        &site,
        &serde_json::json!({
            "namespaces": ["holidaykit-net", "skycast-io", "openshelf-org", "atlasdata-org",
                           "fieldnotes-app"],
            "search": {"query": "getPublicHolidys", "finds": "getPublicHolidays"},
            "parameters": ["year", "countryCode"],
            "pages": extra,
        }),
        &dir,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a hostile author writes where text goes: markup, a script, an inline handler, a
/// `javascript:` link and control characters. Each sets the marker the browser check looks for.
const HOSTILE: &str = "<script>window.__flowmcpInjected=true</script><img src=x \
    onerror=\"window.__flowmcpInjected=true\" id=\"flowmcp-injected\"> \
    <a href=\"javascript:window.__flowmcpInjected=true\">x</a> \u{1b}[31m\u{7}";

#[test]
fn i45_hostile_catalog_text_runs_nowhere_in_the_browser() {
    if browser().is_none() {
        return;
    }
    let dir = temp_dir("site-browser-hostile");
    let catalog = dir.join("catalog");
    crate::common::copy_dir(&repo_root().join("examples/catalog"), &catalog);
    // Every description (of the file, its tools, parameters and tests) of two schema files made
    // hostile; in one of them a tool's name too, which makes that file invalid, so its findings
    // carry the text as well. The other stays valid: its tools get pages.
    let js = HOSTILE
        .replace('\\', "\\\\")
        .replace('\'', "\\'")
        .replace('\u{1b}', "\\u001b")
        .replace('\u{7}', "\\u0007");
    for (schema, rename) in [
        ("providers/skycast-io/forecast.mjs", true),
        ("providers/openshelf-org/books.mjs", false),
    ] {
        let file = catalog.join(schema);
        let text = std::fs::read_to_string(&file).unwrap();
        let mut hostile = String::new();
        for line in text.lines() {
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            match ["description: '", "_description: '"]
                .iter()
                .find(|key| trimmed.starts_with(**key) && trimmed.ends_with("',"))
            {
                Some(key) => hostile.push_str(&format!("{indent}{key}{js}',\n")),
                None => {
                    hostile.push_str(line);
                    hostile.push('\n');
                }
            }
        }
        if rename {
            hostile = hostile.replacen(
                "        getWeatherAlerts: {",
                "        '<img src=x onerror=\"window.__flowmcpInjected=true\">': {",
                1,
            );
        }
        assert_ne!(hostile, text, "{schema}");
        std::fs::write(&file, hostile).unwrap();
    }
    let site = dir.join("site");
    build_site(&catalog.display().to_string(), &site, &dir, true);
    let mut all = Vec::new();
    pages(&site, &site, &mut all);
    // Rule pages are this repository's own text: every other page shows the catalog's.
    all.retain(|p| !p.starts_with("r-"));
    all.sort();
    assert!(all.len() > 20, "{all:?}");
    // The hostile text is on the valid file's tool page, as text.
    let page = std::fs::read_to_string(site.join("t-openshelf-org_tool_getBook.html")).unwrap();
    assert!(
        page.contains("&lt;script&gt;window.__flowmcpInjected=true&lt;/script&gt;"),
        "{page}"
    );
    check(
        &site,
        &serde_json::json!({"pages": all, "themes": ["light"], "axe": false}),
        &dir,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The targets of `href="…"` and `src="…"` in `html` that are files of the site (not `#…`
/// fragments), without their fragment.
fn local_links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            let Some(end) = rest.find('"') else { break };
            let target = &rest[..end];
            let file = target.split('#').next().unwrap_or_default();
            if !file.is_empty() {
                out.push(file.to_string());
            }
        }
    }
    out
}

/// The links of the site in `site` whose target is not a file of the site (or is off it), and
/// how many links there were.
fn broken_links(site: &Path) -> (Vec<String>, usize, usize) {
    let mut all = Vec::new();
    pages(site, site, &mut all);
    let (mut checked, mut broken) = (0, Vec::new());
    for page in &all {
        let html = std::fs::read_to_string(site.join(page)).unwrap();
        for target in local_links(&html) {
            checked += 1;
            let external = target.contains(':') || target.starts_with("//");
            if external || !site.join(&target).is_file() {
                broken.push(format!("{page} → {target}"));
            }
        }
    }
    (broken, checked, all.len())
}

/// Issue #45: every link of the example catalog's site (with its rule pages) leads to a file of
/// the site: no page links to a page that was not written, and nothing links off the site. With
/// `FLOWMCP_LINKCHECK_CATALOG` set (a directory, such as the public collection's
/// `schemas/v4.0.0`), that catalog's site is checked too, under the compat profile.
#[test]
fn i45_every_link_of_the_site_resolves() {
    let dir = temp_dir("site-links");
    let site = dir.join("site");
    build_site("examples/catalog", &site, &repo_root(), false);
    let (broken, checked, pages) = broken_links(&site);
    assert!(checked > pages, "{checked} links in {pages} pages");
    assert!(
        broken.is_empty(),
        "{} broken of {checked}: {broken:#?}",
        broken.len()
    );
    if let Some(other) = std::env::var_os("FLOWMCP_LINKCHECK_CATALOG") {
        let site = dir.join("other");
        let run = flowmcp(
            &[
                "catalog",
                "site",
                &PathBuf::from(other).display().to_string(),
                "--out",
                &site.display().to_string(),
                "--profile",
                "compat",
            ],
            &dir,
        );
        assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
        let (broken, checked, pages) = broken_links(&site);
        eprintln!(
            "link check: {pages} pages, {checked} links, {} broken",
            broken.len()
        );
        assert!(
            broken.is_empty(),
            "{} broken of {checked}: {broken:#?}",
            broken.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #45, scope 2: the HTML reports of `validate`, `test` and `grade` in the browser: the
/// inlined stylesheet is allowed by the page's policy (a refused one is a console error), nothing
/// is loaded, and axe-core finds no serious or critical violation in either theme.
#[test]
fn i45_the_html_reports_work_in_a_browser() {
    if browser().is_none() {
        return;
    }
    let dir = temp_dir("site-browser-reports");
    let catalog = repo_root().join("examples/catalog").display().to_string();
    let run = flowmcp(&["validate", "--format", "html", &catalog], &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(dir.join("validate.html"), &run.stdout).unwrap();
    let run = flowmcp(&["test", &catalog, "--static", "--format", "html"], &dir);
    assert!(run.stdout.starts_with("<!DOCTYPE html>"), "{}", run.stderr);
    std::fs::write(dir.join("test.html"), &run.stdout).unwrap();
    let prompts = dir.join("prompts");
    let run = flowmcp(
        &[
            "grade",
            "--emit-prompts",
            &catalog,
            "--out",
            &prompts.display().to_string(),
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Scores for every schema file, as an external grader would write them.
    for entry in std::fs::read_dir(&prompts).unwrap() {
        let slug = entry.unwrap().file_name().to_string_lossy().into_owned();
        let scores = serde_json::json!({
            "schemaIdSlug": slug, "scoringProtocol": "v1",
            "creator": {"skill": "s", "skillVersion": "1", "session": "t"},
            "harness": {"name": "t", "version": "1", "model": "none"},
            "timestamp": "2026-11-25T10:00:00Z",
            "scores": [{"dimension": "whenToUse", "score": 4.0, "reasoning": "r"},
                       {"dimension": "parameters", "score": 3.0, "reasoning": "r"}]});
        std::fs::write(prompts.join(&slug).join("scores.json"), scores.to_string()).unwrap();
    }
    let graded = dir.join("graded");
    let run = flowmcp(
        &[
            "grade",
            "--consume-scores",
            &prompts.display().to_string(),
            &catalog,
            "--out",
            &graded.display().to_string(),
            "--format",
            "html",
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::copy(graded.join("grades.html"), dir.join("grade.html")).unwrap();
    check(
        &dir,
        &serde_json::json!({"index": false, "pages": ["validate.html", "test.html", "grade.html"]}),
        &dir,
    );
    let _ = std::fs::remove_dir_all(&dir);
}
