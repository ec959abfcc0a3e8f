//! `flowmcp catalog site` (issue #45): the pages of the example catalog, search that ranks as
//! `flowmcp search` does (the site's own script run in QuickJS), escaping of a hostile catalog,
//! and rebuilds that rewrite nothing unchanged and delete nothing.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{flowmcp, repo_root, temp_dir};

/// Builds the example catalog's site into a fresh directory and returns it.
fn example_site(name: &str) -> PathBuf {
    let out = temp_dir(name).join("site");
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    out
}

/// Every file of a directory with its text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(e.path()).unwrap_or_default())
        })
        .collect();
    all.sort();
    all
}

/// `flowmcp list --json` of the example catalog.
fn example_list() -> Value {
    let run = flowmcp(
        &["list", "--json", "--catalog", "examples/catalog"],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn every_tool_has_a_page_with_its_names_parameters_and_a_call_command() {
    let out = example_site("site-pages");
    let all = files(&out);
    let index = &all.iter().find(|(n, _)| n == "index.html").unwrap().1;
    for ns in ["skycast-io", "holidaykit-net", "atlasdata-org"] {
        assert!(
            index.contains(&format!("<th scope=\"row\">{ns}</th>")),
            "{ns}"
        );
    }
    assert!(index.contains("<script src=\"search-index.js\"></script>"));
    let listed = example_list();
    let tools = listed["tools"].as_array().unwrap();
    assert!(tools.len() > 5);
    for tool in tools {
        let (id, wire) = (
            tool["name"].as_str().unwrap(),
            tool["wireName"].as_str().unwrap(),
        );
        let page = all
            .iter()
            .find(|(n, t)| n.starts_with("t-") && t.contains(&format!("<h1>{id}</h1>")))
            .unwrap_or_else(|| panic!("no page for {id}"));
        assert!(page.1.contains(wire), "{id}: wire name");
        assert!(
            index.contains(&format!("href=\"{}\"", page.0)),
            "{id}: linked"
        );
        assert!(
            page.1.contains(&format!(
                "flowmcp call {id} --catalog examples/catalog --input"
            )),
            "{id}: call command"
        );
        assert!(
            page.1
                .contains("&quot;method&quot;: &quot;tools/call&quot;")
        );
    }
    // A parameter of a shared list says which; the table shows the enum and the default.
    let forecast = all
        .iter()
        .find(|(_, t)| t.contains("<h1>skycast-io/tool/getCurrentConditions</h1>"))
        .unwrap();
    assert!(
        forecast.1.contains("<td>languages:code</td>"),
        "shared list"
    );
    assert!(forecast.1.contains("metric, imperial, standard"), "enum");
    assert!(
        forecast
            .1
            .contains("--input &#39;{&quot;city&quot;:&quot;Berlin&quot;}&#39;"),
        "example input"
    );
    // A selection's page links to its members' pages.
    let selection = all
        .iter()
        .find(|(n, _)| n.starts_with("sel-"))
        .expect("the selection has a page");
    assert!(index.contains(&format!("href=\"{}\"", selection.0)));
    assert!(selection.1.contains(
        "<a href=\"t-holidaykit-net_tool_getPublicHolidays.html\">holidaykit-net/tool/getPublicHolidays</a>"
    ));
    assert!(
        selection
            .1
            .contains("<a href=\"p-holidaykit-net_skill_plan-long-weekends.html\">")
    );
    // Every page: our CSP, lang, viewport, no inline script or style.
    for (name, text) in all.iter().filter(|(n, _)| n.ends_with(".html")) {
        assert!(text.contains("Content-Security-Policy"), "{name}");
        assert!(text.contains("<html lang=\"en\">") && text.contains("name=\"viewport\""));
        assert_eq!(
            text.matches("<script").count(),
            text.matches("<script src=\"").count(),
            "{name}: inline script"
        );
        assert!(
            !text.contains("style=") && !text.contains("<style"),
            "{name}"
        );
    }
}

#[test]
fn rule_pages_are_rendered_and_findings_link_to_them() {
    let out = temp_dir("site-rules").join("site");
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
            "--rules",
            "docs/rules",
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let all = files(&out);
    let page = |name: &str| &all.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(page("r-VAL003.html").contains("<h2>Why</h2>"));
    assert!(page("r-VAL003.html").contains("<td>Family</td><td><code>VAL</code></td>"));
    assert!(page("index.html").contains("<a href=\"r-VAL003.html\">VAL003</a>"));
    // Each finding on a schema page links to its rule's page, which exists.
    let mut linked = 0;
    for (name, text) in all.iter().filter(|(n, _)| n.starts_with("s-")) {
        let Some(list) = text.split("<ul class=\"findings\">").nth(1) else {
            continue;
        };
        let list = list.split("</ul>").next().unwrap();
        for part in list.split("<li><a href=\"").skip(1) {
            let target = part.split('"').next().unwrap();
            assert!(all.iter().any(|(n, _)| n == target), "{name}: {target}");
            assert!(target.starts_with("r-"), "{name}: {target}");
            linked += 1;
        }
    }
    assert!(linked > 0, "the example catalog has findings");
}

#[test]
fn a_rebuild_rewrites_nothing_unchanged_and_deletes_nothing() {
    let out = example_site("site-rebuild");
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let before = std::fs::metadata(out.join("index.html"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("wrote 0 files"), "{}", run.stdout);
    let after = std::fs::metadata(out.join("index.html"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    // One changed page is written again, the rest are not.
    std::fs::write(out.join("site.css"), "changed").unwrap();
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert!(run.stdout.starts_with("wrote 1 file to"), "{}", run.stdout);
}

/// The site's search run in QuickJS: the entries (IDs) of the tools it finds for `query`, best
/// first, and the words it corrected.
fn site_search(site: &Path, queries: &[&str]) -> Vec<(Vec<String>, Vec<String>)> {
    let index = std::fs::read_to_string(site.join("search-index.js")).unwrap();
    let script = std::fs::read_to_string(site.join("site.js")).unwrap();
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    ctx.with(|ctx| {
        ctx.eval::<(), _>(index).unwrap();
        ctx.eval::<(), _>(script).unwrap();
        queries
            .iter()
            .map(|q| {
                let call = format!(
                    "(function () {{ var r = flowmcpSearch(FLOWMCP_INDEX, {}); return \
                     JSON.stringify([r.tools.map(function (h) {{ return h.entry.i; }}), \
                     r.corrected]); }})()",
                    serde_json::to_string(q).unwrap()
                );
                let text: String = ctx.eval(call).unwrap();
                serde_json::from_str(&text).unwrap()
            })
            .collect()
    })
}

/// The tools `flowmcp search --json` finds for `query`, best first.
fn cli_search(query: &str) -> Vec<String> {
    let run = flowmcp(
        &[
            "search",
            "--json",
            "--limit",
            "1000",
            "--catalog",
            "examples/catalog",
            query,
        ],
        &repo_root(),
    );
    let hits: Value = serde_json::from_str(&run.stdout).unwrap();
    hits.as_array()
        .unwrap()
        .iter()
        .filter(|h| h.get("wireName").is_some())
        .map(|h| h["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn site_search_ranks_as_flowmcp_search_and_forgives_a_typo() {
    let out = example_site("site-search");
    let queries = [
        "holidays",
        "weather forecast",
        "country",
        "books search",
        "getCurrentConditions",
    ];
    let found = site_search(&out, &queries);
    for (q, (ids, corrected)) in queries.iter().zip(&found) {
        let expected = cli_search(q);
        assert!(!expected.is_empty(), "{q}");
        assert_eq!(ids, &expected, "{q}");
        assert!(corrected.is_empty(), "{q}");
    }
    // A misspelt tool name: `flowmcp search` finds nothing by it, the site corrects it and
    // finds what the right name finds, first.
    assert!(cli_search("getCurentConditons").is_empty());
    let typo = &site_search(&out, &["getCurentConditons"])[0];
    assert_eq!(typo.1, vec!["getcurrentconditions".to_string()]);
    assert_eq!(typo.0.first(), cli_search("getCurrentConditions").first());
}

/// A schema whose every free text is markup, a script, a `javascript:` URL or a control
/// character.
const HOSTILE: &str = r#"export const main = {
    namespace: 'evil',
    name: 'Evil',
    description: '<script>alert(1)</script> <a href="javascript:alert(2)">x</a>',
    version: '4.2.0',
    root: 'https://evil.example',
    tags: [ '<img src=x onerror=alert(3)>', 'javascript:alert(4)' ],
    tools: {
        getThing: {
            method: 'GET',
            path: '/thing',
            description: '</script><script>alert(5)</script>\u2028\u001b[31m<b onmouseover=alert(6)>',
            parameters: [
                {
                    position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(<i>,"x",javascript:y)', options: [ 'default(<i>)' ] },
                    description: '<iframe src="javascript:alert(7)">'
                }
            ],
            tests: [ { _description: '<script>alert(8)</script>', q: '<i>' } ],
            meta: {
                isReadOnly: true, isConcurrencySafe: true, isDestructive: false, alwaysLoad: false,
                searchHint: '<svg onload=alert(9)>', aliases: [ '<u>alias</u>' ]
            }
        }
    }
}
"#;

#[test]
fn a_hostile_catalog_cannot_put_markup_or_scripts_into_the_site() {
    let dir = temp_dir("site-hostile");
    let catalog = dir.join("evil");
    std::fs::create_dir_all(catalog.join("providers/evil")).unwrap();
    std::fs::write(catalog.join("providers/evil/thing.mjs"), HOSTILE).unwrap();
    let out = dir.join("site");
    let run = flowmcp(
        &[
            "catalog",
            "site",
            catalog.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--profile",
            "compat",
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let all = files(&out);
    let tool = all
        .iter()
        .find(|(n, _)| n.starts_with("t-"))
        .expect("the hostile tool has a page");
    assert!(
        tool.1.contains("&lt;/script&gt;&lt;script&gt;alert(5)"),
        "{}",
        tool.1
    );
    assert!(
        tool.1.contains("\\u{1b}[31m"),
        "control character shown escaped"
    );
    for (name, text) in &all {
        let lower = text.to_lowercase();
        for bad in [
            "<img",
            "<iframe",
            "<svg",
            "<b ",
            "<i>",
            "<u>",
            "<a href=\"javascript",
        ] {
            assert!(!lower.contains(bad), "{name} contains {bad}");
        }
        assert!(!lower.contains("href=\"javascript:"), "{name}");
        if name.ends_with(".js") {
            assert!(!text.contains("</script"), "{name}");
            if name == "search-index.js" {
                assert!(!text.contains('<') && !text.contains('\u{2028}'), "{name}");
                assert!(text.contains("\\u003cscript\\u003e"), "{name}");
            }
        } else if name.ends_with(".html") {
            assert_eq!(
                lower.matches("<script").count(),
                lower.matches("<script src=\"").count(),
                "{name}"
            );
            for href in text.split("href=\"").skip(1) {
                let target = href.split('"').next().unwrap();
                assert!(
                    target == "#main"
                        || target == "index.html#q"
                        || target.ends_with(".css")
                        || (target.ends_with(".html")
                            && target
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))),
                    "{name}: link {target}"
                );
            }
        }
    }
}

#[test]
fn a_test_report_shows_each_entrys_results_on_its_page() {
    let dir = temp_dir("site-tests");
    let report = serde_json::json!({"pass": 0, "fail": 1, "skip": 0, "schemas": [{
        "file": "providers/skycast-io/forecast.mjs", "namespace": "skycast-io",
        "primitives": [{"id": "skycast-io/tool/getCurrentConditions", "route": "getCurrentConditions",
            "kind": "tool", "verdict": "fail", "reason": "<b>upstream</b> down",
            "tests": [{"index": 0, "description": "Berlin", "passed": false, "code": "E002",
                       "messages": ["connection refused"]}]}]}]});
    std::fs::write(dir.join("tests.json"), report.to_string()).unwrap();
    let out = dir.join("site");
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
            "--tests",
            dir.join("tests.json").to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let all = files(&out);
    let with_results: Vec<&(String, String)> = all
        .iter()
        .filter(|(_, t)| t.contains("<h2>Test results</h2>"))
        .collect();
    assert_eq!(with_results.len(), 1);
    let page = &with_results[0].1;
    assert!(page.contains("<h1>skycast-io/tool/getCurrentConditions</h1>"));
    assert!(page.contains("<strong>fail</strong> &lt;b&gt;upstream&lt;/b&gt; down"));
    assert!(page.contains("<td>Berlin</td><td>false</td><td>E002</td><td>connection refused</td>"));
    // A grade report shows on the page of the schema file whose tools it names.
    let grade = serde_json::json!({"schemaPath": "providers/skycast-io/forecast.mjs", "grade": "B",
        "score": 3.5, "validationPassed": true, "date": "2026-11-29",
        "dimensions": [{"dimension": "clarity", "score": 4.0, "reasoning": "<em>clear</em>"}],
        "primitives": ["skycast-io/tool/getCurrentConditions", "skycast-io/tool/getDailyForecast"]});
    std::fs::write(dir.join("grade.json"), grade.to_string()).unwrap();
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
            "--grades",
            dir.join("grade.json").to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let all = files(&out);
    let graded: Vec<&String> = all
        .iter()
        .filter(|(_, t)| t.contains("<h2>Grade</h2>"))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(graded, vec!["s-providers_skycast-io_forecast_mjs.html"]);
    let page = &all.iter().find(|(n, _)| n == graded[0]).unwrap().1;
    assert!(page.contains("<strong>B</strong> (score 3.5"), "{page}");
    assert!(page.contains("<td>clarity</td><td>4.0</td><td>&lt;em&gt;clear&lt;/em&gt;</td>"));
    // A file that is not JSON is a usage error naming it.
    std::fs::write(dir.join("bad.json"), "not json").unwrap();
    let run = flowmcp(
        &[
            "catalog",
            "site",
            "examples/catalog",
            "--out",
            out.to_str().unwrap(),
            "--tests",
            dir.join("bad.json").to_str().unwrap(),
        ],
        &repo_root(),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("bad.json: not a test report"),
        "{}",
        run.stderr
    );
}

/// Issue #45, scope 2: `validate`, `test` and `grade` write self-contained HTML reports in the
/// site's look: the stylesheet inlined and allowed by its hash, no script, nothing loaded, and
/// every text from the catalog escaped.
#[test]
fn i45_html_reports_of_validate_test_and_grade() {
    let dir = temp_dir("site-reports");
    // A schema file with an error whose message carries hostile text.
    let file = dir.join("bad.mjs");
    std::fs::write(
        &file,
        "export const main = { namespace: '<script>alert(1)</script>', name: 'x', \
         description: 'd', version: '4.2.0', root: 'https://example.org', tools: {} }\n",
    )
    .unwrap();
    let run = flowmcp(
        &["validate", "--format", "html", &file.display().to_string()],
        &dir,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let html = &run.stdout;
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("style-src 'sha256-"), "{html}");
    assert!(
        html.contains("<style>") && !html.contains("<script"),
        "{html}"
    );
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains("<th scope=\"col\">Code</th>"), "{html}");
    assert!(
        !html.contains("href=\"http") && !html.contains("src="),
        "{html}"
    );

    // test: one tool's upstream answers 404, so its verdict is FAIL with the reason.
    let server = crate::common::support::TestServer::start(20, |_| {
        crate::common::support::reply(404, Some("application/json"), "{}")
    });
    let schema = repo_root().join("examples/catalog/providers/holidaykit-net/public-holidays.mjs");
    let upstream = format!("holidaykit-net={}", server.base);
    let run = flowmcp(
        &[
            "test",
            &schema.display().to_string(),
            "--delay-ms",
            "0",
            "--format",
            "html",
            "--upstream",
            &upstream,
        ],
        &dir,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("<p>0 PASS, 4 FAIL, 0 SKIP.</p>"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("<code>holidaykit-net/tool/getPublicHolidays</code>")
            && run.stdout.contains("API returned 404"),
        "{}",
        run.stdout
    );
    let _ = server.finish();

    // grade: the HTML page beside the JSON report.
    let out = dir.join("graded");
    let scores = dir.join("scores.json");
    std::fs::write(
        &scores,
        serde_json::json!({
            "schemaIdSlug": "holidaykit-net_public-holidays", "scoringProtocol": "v1",
            "creator": {"skill": "s", "skillVersion": "1", "session": "t"},
            "harness": {"name": "t", "version": "1", "model": "none"},
            "timestamp": "2026-11-25T10:00:00Z",
            "scores": [
                {"dimension": "whenToUse", "score": 4.5, "reasoning": "<b>clear</b>"},
                {"dimension": "parameters", "score": 3.5, "reasoning": "ok"}]
        })
        .to_string(),
    )
    .unwrap();
    let run = flowmcp(
        &[
            "grade",
            "--consume-scores",
            &scores.display().to_string(),
            &schema.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--format",
            "html",
        ],
        &dir,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page =
        std::fs::read_to_string(out.join("holidaykit-net_public-holidays.grade.html")).unwrap();
    assert!(page.contains("<strong>A</strong>"), "{page}");
    assert!(page.contains("&lt;b&gt;clear&lt;/b&gt;"), "{page}");
    assert!(
        out.join("holidaykit-net_public-holidays.grade.json")
            .is_file()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
