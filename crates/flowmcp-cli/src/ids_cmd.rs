//! `flowmcp validate --id <ID>`. (Being written for the catalog issue.)

use std::process::ExitCode;

/// Validates one ID and prints the result in `format` (`human` or `json`).
pub fn run(id: &str, json: bool, opts: &flowmcp_validate::Options) -> Result<ExitCode, String> {
    let _ = (id, json, opts);
    Err("--id is not implemented yet".into())
}
