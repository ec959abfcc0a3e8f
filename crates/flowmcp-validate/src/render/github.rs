//! GitHub Actions workflow commands: one `::error …::message` line per finding, which a workflow
//! run shows as an annotation on the file and line of the pull request.

use flowmcp_spec::{Diagnostic, Report, Severity};

/// The report as workflow commands, one line per finding (in the reports' order):
/// `::error file=F,line=L,col=C,title=CODE summary::message` (`::warning` for a warning,
/// `::notice` for an info; `file`, `line` and `col` only when known). The message is escaped as
/// GitHub documents for a command's data (`%`, `\r`, `\n`), the properties also for `:` and `,`.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for r in report.reports() {
        for d in r.diagnostics() {
            out.push_str(&command(d, r.file()));
            out.push('\n');
        }
    }
    out
}

/// One finding as a workflow command (`report_file` when the finding names no file).
fn command(d: &Diagnostic, report_file: &str) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut props = Vec::new();
    let file = d.file.as_deref().unwrap_or(report_file);
    if !file.is_empty() {
        props.push(format!("file={}", property(file)));
    }
    if let Some(l) = d.line {
        props.push(format!("line={l}"));
    }
    if let Some(c) = d.column {
        props.push(format!("col={c}"));
    }
    let title = format!("{} {}", d.code.as_str(), d.code.info().summary);
    props.push(format!("title={}", property(&title)));
    let mut message = d.message.clone();
    if let Some(path) = &d.path {
        message = format!("{message} [{path}]");
    }
    format!("::{level} {}::{}", props.join(","), data(&message))
}

/// A command's data, escaped: `%`, `\r` and `\n`.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value, escaped: as [`data`], and `:` and `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::{Code, FileReport, Profile};

    #[test]
    fn i42_one_command_per_finding_escaped() {
        let d = Diagnostic {
            code: Code::VAL087,
            variant: None,
            severity: Severity::Warning,
            message: "50% wrong\r\nsee: a, b".into(),
            file: Some("dir,a:b/x.mjs".into()),
            line: Some(4),
            column: Some(7),
            pointer: None,
            path: Some("main.schemaHash".into()),
            help: None,
            fix: None,
        };
        let mut e = d.clone();
        e.severity = Severity::Error;
        e.line = None;
        e.column = None;
        e.file = None;
        let report = Report::new(
            Profile::Spec,
            vec![FileReport::new(
                "y.mjs",
                flowmcp_spec::catalog::FileKind::Schema,
                vec![d, e],
            )],
        );
        let text = github(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(
            lines[0],
            "::warning file=dir%2Ca%3Ab/x.mjs,line=4,col=7,title=VAL087 `main.schemaHash` differs from the recomputed hash::50%25 wrong%0D%0Asee: a, b [main.schemaHash]"
        );
        assert!(
            lines[1].starts_with("::error file=y.mjs,title=VAL087 "),
            "{text}"
        );
    }
}
