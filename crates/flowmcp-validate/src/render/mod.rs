//! Renderers: human text, JSON, SARIF and GitHub workflow commands. Diagnostics are plain data; rendering is separate.

use flowmcp_spec::{
    Diagnostic, FileReport, Report, Severity, diagnostic::Counts, diagnostic::escape_controls,
};

mod github;
mod json;
pub mod sarif;
pub use github::github;
pub use sarif::sarif;

/// Options for the human renderer. Start from [`HumanStyle::default`] and set fields.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct HumanStyle {
    /// ANSI colours (only when writing to a terminal).
    pub color: bool,
    /// Print only errors (and the footer).
    pub quiet: bool,
    /// The program's own advice for a diagnostic that has a help text, printed on a line of its
    /// own after the help (`    run: …`). A diagnostic's help states the action in the
    /// specification's terms; how to do it with a particular program (the `flowmcp` CLI names its
    /// commands) is that program's to say (D74). `None`: no such line. The JSON and SARIF
    /// renderers never add it.
    pub advice: Option<Advice>,
}

/// Advice for one diagnostic (see [`HumanStyle::advice`]): called only for diagnostics with a
/// help text; `None` when the program has nothing to add.
pub type Advice = fn(&Diagnostic) -> Option<String>;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The footer counts: `2 errors, 1 warning` (`, 3 infos` when there are any).
pub fn counts_line(c: &Counts) -> String {
    let mut s = format!(
        "{}, {}",
        plural(c.errors, "error", "errors"),
        plural(c.warnings, "warning", "warnings")
    );
    if c.infos > 0 {
        s.push_str(&format!(", {}", plural(c.infos, "info", "infos")));
    }
    s
}

/// One diagnostic as `CODE severity file[:line:col] [json.path]: message`, with its help on a
/// line of its own.
pub fn diagnostic_line(d: &Diagnostic, color: bool) -> String {
    advised_line(d, color, None)
}

/// [`diagnostic_line`] with the program's advice after the help ([`HumanStyle::advice`]).
fn advised_line(d: &Diagnostic, color: bool, advice: Option<Advice>) -> String {
    let mut out = String::new();
    let (on, off) = if color {
        let c = match d.severity {
            Severity::Error => "\x1b[1;31m",
            Severity::Warning => "\x1b[1;33m",
            Severity::Info => "\x1b[1;36m",
        };
        (c, "\x1b[0m")
    } else {
        ("", "")
    };
    out.push_str(&format!("{on}{} {}{off}", d.code, d.severity));
    if let Some(f) = &d.file {
        out.push(' ');
        out.push_str(&escape_controls(f));
        if let Some(l) = d.line {
            out.push_str(&format!(":{l}:{}", d.column.unwrap_or(1)));
        }
    }
    if let Some(p) = &d.path {
        out.push(' ');
        out.push_str(&escape_controls(p));
    }
    out.push_str(": ");
    out.push_str(&escape_controls(&d.message));
    if let Some(h) = &d.help {
        out.push_str(&format!("\n    help: {}", escape_controls(h)));
        if let Some(a) = advice.and_then(|advice| advice(d)) {
            out.push_str(&format!("\n    run: {}", escape_controls(&a)));
        }
    }
    out
}

fn noun(kind: &str) -> &'static str {
    match kind {
        "schema" => "Schema",
        "list" => "List",
        "skill" => "Skill",
        "prompt" => "Prompt",
        "agent" => "Agent",
        "selection" => "Selection",
        "catalog" => "Catalog",
        "content" => "File",
        "id" => "ID",
        // `flowmcp validate` is about schemas: a file that could not be loaded far enough to tell
        // what it is, is reported as one.
        _ => "Schema",
    }
}

/// The verdict of one invalid report: an ID is not loaded, so it is simply invalid (chapter 16).
fn invalid_verdict(kind: &str) -> &'static str {
    match kind {
        "id" => "is invalid",
        _ => "cannot be loaded (has errors)",
    }
}

/// Renders reports for people: every diagnostic, then the counts and a verdict.
pub fn human(reports: &[FileReport], style: HumanStyle) -> String {
    let mut out = String::new();
    let mut total = Counts::default();
    for r in reports {
        total.merge(r.counts());
        for d in r.diagnostics() {
            if style.quiet && d.severity != Severity::Error {
                continue;
            }
            out.push_str(&advised_line(d, style.color, style.advice));
            out.push('\n');
        }
    }
    out.push_str(&counts_line(&total));
    out.push('\n');
    match reports {
        [one] => {
            let n = noun(one.kind().as_str());
            if one.counts().errors == 0 {
                out.push_str(&format!("{n} is valid\n"));
            } else {
                out.push_str(&format!("{n} {}\n", invalid_verdict(one.kind().as_str())));
            }
        }
        many => {
            let bad = many.iter().filter(|r| r.counts().errors > 0).count();
            if bad == 0 {
                out.push_str(&format!(
                    "All {} are valid\n",
                    plural(many.len(), "file", "files")
                ));
            } else {
                out.push_str(&format!(
                    "{bad} of {} cannot be loaded (has errors)\n",
                    plural(many.len(), "file", "files")
                ));
            }
        }
    }
    out
}

/// Renders a run as pretty JSON (the shape documented in `flowmcp_spec::diagnostic`): the bytes
/// `serde_json::to_string_pretty` makes of the report, written directly (D194).
pub fn json(report: &Report) -> String {
    let mut out = Vec::new();
    // Writing to a vector cannot fail, and every piece written is UTF-8.
    let _ = json::write_report(report, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`json`], written to `out` as it is produced: the files' reports are handed over in blocks of
/// at least 64 KiB (a large run's report is never held whole in memory).
pub fn write_json(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    json::write_report(report, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(
            counts_line(&Counts {
                errors: 1,
                warnings: 0,
                infos: 0
            }),
            "1 error, 0 warnings"
        );
        assert_eq!(
            counts_line(&Counts {
                errors: 2,
                warnings: 1,
                infos: 1
            }),
            "2 errors, 1 warning, 1 info"
        );
    }

    fn advice(d: &Diagnostic) -> Option<String> {
        (d.code == flowmcp_spec::Code::CAT006).then(|| "`tool index`".to_string())
    }

    /// Issue #29, scope 3 (D74): the program's advice follows the help on a line of its own,
    /// only when asked for and only where there is a help.
    #[test]
    fn i29_3_the_programs_advice_follows_the_help() {
        let d = Diagnostic {
            code: flowmcp_spec::Code::CAT006,
            variant: None,
            severity: Severity::Warning,
            message: "File \"x.mjs\" is not listed".into(),
            file: Some("c/registry.json".into()),
            line: None,
            column: None,
            pointer: None,
            path: None,
            help: Some("list it in registry.json, or remove it".into()),
            fix: None,
        };
        let report = FileReport::new(
            "c/registry.json",
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            vec![d.clone()],
        );
        let plain = human(std::slice::from_ref(&report), HumanStyle::default());
        assert!(!plain.contains("run:"), "{plain}");
        let style = HumanStyle {
            advice: Some(advice),
            ..HumanStyle::default()
        };
        let advised = human(std::slice::from_ref(&report), style);
        assert!(
            advised.contains(
                "    help: list it in registry.json, or remove it\n    run: `tool index`\n"
            ),
            "{advised}"
        );
        let mut bare = d;
        bare.help = None;
        let report = FileReport::new(
            "c/registry.json",
            flowmcp_spec::diagnostic::ReportKind::Catalog,
            vec![bare],
        );
        assert!(!human(&[report], style).contains("run:"));
    }
}
