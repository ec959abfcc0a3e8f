//! `flowmcp validate --id <ID>`: validates one ID (chapter 16) without touching any file.
//!
//! Human output, as in the chapter's examples (in our `CODE severity: message` layout; an ID
//! diagnostic has no location):
//!
//! ```text
//! ID002 error: Namespace "COINGECKO" must match ^[a-z][a-z0-9-]*$
//! 1 error, 0 warnings
//! ID is invalid
//! ```
//!
//! `--format json` (and `sarif`, which has no meaning for a lone ID) prints the `FileReport` JSON.
//! Exit status: 0 valid, 1 invalid.

use std::io::IsTerminal;
use std::process::ExitCode;

use flowmcp_validate::render;

use crate::context::{ValidationFlags, validation};
use crate::output::write_stdout;

/// Validates one ID under the validation `flags` and prints the result as JSON (`json`) or for
/// people.
pub(crate) fn run(id: &str, json: bool, flags: &ValidationFlags<'_>) -> Result<ExitCode, String> {
    let (_, _, opts) = validation(flags)?;
    let report = flowmcp_validate::validate_id(id, &opts);
    let text = if json {
        let mut s = serde_json::to_string_pretty(&report)
            .map_err(|e| format!("cannot serialise the report: {e}"))?;
        s.push('\n');
        s
    } else {
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let mut s = String::new();
        for d in report.diagnostics() {
            s.push_str(&render::diagnostic_line(d, color));
            s.push('\n');
        }
        s.push_str(&render::counts_line(&report.counts()));
        s.push('\n');
        s.push_str(if report.counts().errors == 0 {
            "ID is valid\n"
        } else {
            "ID is invalid\n"
        });
        s
    };
    write_stdout(&text)?;
    Ok(if report.counts().errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
