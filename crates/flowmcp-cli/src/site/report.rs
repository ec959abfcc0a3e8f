//! The HTML reports of `validate`, `test` and `grade` (`--format html`): one self-contained page
//! each, written to standard output, in the catalog site's look. The site's stylesheet is inlined
//! and allowed by its hash alone; the page has no script, loads nothing and follows the reader's
//! light or dark preference. Every text comes through [`esc`], as on the site.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;
use sha2::Digest as _;

use super::html::{code_block, esc};

/// A whole report page: `title` (escaped here), a one-line `summary` and `body` (HTML built with
/// [`esc`]).
fn page(title: &str, summary: &str, body: &str) -> String {
    let css = super::SITE_CSS;
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(css));
    let mut out = String::with_capacity(body.len() + css.len() + 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{}</title>\n<style>{css}</style>\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <main id=\"main\" tabindex=\"-1\">\n<h1>{}</h1>\n<p>{}</p>\n{body}</main>\n\
         </body>\n</html>\n",
        esc(title),
        esc(title),
        esc(summary)
    );
    out
}

/// `n` and `noun`, with an `s` unless `n` is 1.
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A table with a header row of `head` and `rows` of cells already made HTML.
fn table(caption: &str, head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "<div class=\"scroll\"><table>\n<caption>{}</caption>\n<thead><tr>",
        esc(caption)
    );
    for h in head {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// `flowmcp validate --format html`: the counts, then each file with findings, one row per
/// finding (code, severity, place, message, help).
pub(crate) fn validation(report: &flowmcp_spec::Report) -> String {
    let counts = report.counts();
    let summary = format!(
        "{}, {}, {}, {} info under the {} profile.",
        counted(report.files(), "file"),
        counted(counts.errors, "error"),
        counted(counts.warnings, "warning"),
        counts.infos,
        report.profile().as_str()
    );
    let mut body = String::new();
    let mut clean = 0usize;
    for r in report.reports() {
        let findings = r.diagnostics();
        if findings.is_empty() {
            clean += 1;
            continue;
        }
        let rows: Vec<Vec<String>> = findings
            .iter()
            .map(|d| {
                let place = match (d.line, d.column) {
                    (Some(l), Some(c)) => format!("{l}:{c}"),
                    (Some(l), None) => l.to_string(),
                    _ => String::new(),
                };
                let at = d.path.as_deref().unwrap_or_default();
                vec![
                    format!("<code>{}</code>", esc(d.code.as_str())),
                    esc(d.severity.as_str()),
                    format!("{}<br><code>{}</code>", esc(&place), esc(at)),
                    format!("<span class=\"text\">{}</span>", esc(&d.message)),
                    esc(d.help.as_deref().unwrap_or_default()),
                ]
            })
            .collect();
        let _ = writeln!(body, "<h2>{}</h2>", esc(r.file()));
        body.push_str(&table(
            &format!("Findings of {}", r.file()),
            &["Code", "Severity", "Place", "Message", "Help"],
            &rows,
        ));
    }
    if clean > 0 {
        let _ = writeln!(body, "<p>{} without a finding.</p>", counted(clean, "file"));
    }
    page("flowmcp validate", &summary, &body)
}

/// `flowmcp test --format html`: the counts, then each schema file's primitives with their verdict
/// and each test's outcome, from the JSON form of the report.
pub(crate) fn tests(report: &Value) -> String {
    let n = |k: &str| report[k].as_u64().unwrap_or(0);
    let summary = format!(
        "{} PASS, {} FAIL, {} SKIP.",
        n("pass"),
        n("fail"),
        n("skip")
    );
    let mut body = String::new();
    for s in report["schemas"].as_array().into_iter().flatten() {
        let file = s["file"].as_str().unwrap_or_default();
        let _ = writeln!(
            body,
            "<h2>{} <small>({})</small></h2>",
            esc(file),
            esc(s["namespace"].as_str().unwrap_or_default())
        );
        let mut rows = Vec::new();
        for p in s["primitives"].as_array().into_iter().flatten() {
            let tests: Vec<String> = p["tests"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    let outcome = match t["passed"].as_bool() {
                        Some(true) => "ok".to_string(),
                        Some(false) => {
                            let why: Vec<&str> = t["messages"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .chain(t["mismatches"].as_array().into_iter().flatten())
                                .filter_map(Value::as_str)
                                .collect();
                            format!("failed: {}", why.join("; "))
                        }
                        None => "not run".to_string(),
                    };
                    format!(
                        "<li>{} {}: {}</li>",
                        t["index"],
                        esc(t["description"].as_str().unwrap_or_default()),
                        esc(&outcome)
                    )
                })
                .collect();
            rows.push(vec![
                format!(
                    "<strong>{}</strong>",
                    esc(p["verdict"].as_str().unwrap_or("?"))
                ),
                esc(p["kind"].as_str().unwrap_or_default()),
                format!("<code>{}</code>", esc(p["id"].as_str().unwrap_or_default())),
                esc(p["reason"].as_str().unwrap_or_default()),
                format!("<ul>{}</ul>", tests.concat()),
            ]);
        }
        body.push_str(&table(
            &format!("Primitives of {file}"),
            &["Verdict", "Kind", "ID", "Reason", "Tests"],
            &rows,
        ));
    }
    let extra = [
        ("notCallable", "Files that cannot be called"),
        (
            "autoPass",
            "Files with nothing to call (pass without a test)",
        ),
    ];
    for (key, title) in extra {
        let items: Vec<String> = report[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|f| format!("<li>{}</li>", esc(f)))
            .collect();
        if !items.is_empty() {
            let _ = writeln!(body, "<h2>{}</h2>\n<ul>{}</ul>", esc(title), items.concat());
        }
    }
    page("flowmcp test", &summary, &body)
}

/// `flowmcp grade --format html`: one grade report (its grade, score, dimensions and validation
/// errors), or the rows of a directory's `grades.json`.
pub(crate) fn grades(reports: &[Value]) -> String {
    let graded: Vec<&Value> = reports
        .iter()
        .filter(|r| r.get("grade").is_some())
        .collect();
    let summary = format!(
        "{} graded, {} refused.",
        counted(graded.len(), "schema file"),
        reports.len() - graded.len()
    );
    let mut rows = Vec::new();
    for r in reports {
        let who = r["id"]
            .as_str()
            .or_else(|| r["schemaId"].as_str())
            .or_else(|| r["file"].as_str())
            .unwrap_or_default();
        rows.push(vec![
            format!("<code>{}</code>", esc(who)),
            format!(
                "<strong>{}</strong>",
                esc(r["grade"].as_str().unwrap_or("—"))
            ),
            esc(&r["score"]
                .as_f64()
                .map(|s| s.to_string())
                .unwrap_or_default()),
            esc(match r["validationPassed"].as_bool() {
                Some(true) => "passed",
                Some(false) => "failed",
                None => "",
            }),
            esc(r["error"].as_str().unwrap_or_default()),
        ]);
    }
    let mut body = table(
        "Grades",
        &["Schema", "Grade", "Score", "Validation", "Refused because"],
        &rows,
    );
    // Each graded file as its page on the site shows it, then its validation errors.
    for r in &graded {
        let _ = writeln!(
            body,
            "<h2>{}</h2>",
            esc(r["schemaId"].as_str().unwrap_or_default())
        );
        body.push_str(&super::pages::grade_summary(r));
        let errors: Vec<String> = r["validationErrors"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| match e.as_str() {
                Some(s) => s.to_string(),
                None => e.to_string(),
            })
            .collect();
        if !errors.is_empty() {
            body.push_str(&code_block(&errors.join("\n")));
        }
    }
    page("flowmcp grade", &summary, &body)
}
