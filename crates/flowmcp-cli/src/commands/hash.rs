//! `flowmcp hash`: the `schemaHash` of schema files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use flowmcp_spec::{Profile, RuleSettings};
use flowmcp_validate::Limits;
use flowmcp_validate::render;

use crate::output::write_stdout;

#[derive(Args, Debug)]
pub(crate) struct HashArgs {
    /// Schema files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub(crate) fn run(a: HashArgs) -> Result<ExitCode, String> {
    let settings = RuleSettings::new(Profile::Compat);
    let limits = Limits::default();
    let mut out = String::new();
    let mut failed = false;
    for f in &a.files {
        if !flowmcp_files::named::is_file(f) {
            return Err(format!("{}: not a file", f.display()));
        }
        let display = flowmcp_spec::diagnostic::display_path(f);
        let loaded = flowmcp_catalog::files::load_file(f, &display, &limits, &settings);
        let main = loaded.exports.as_ref().and_then(|e| e.get("main"));
        match main {
            Some(main) if !loaded.has_errors() && main.is_object() => {
                let h = flowmcp_spec::hash::schema_hash(main);
                if a.files.len() == 1 {
                    out.push_str(&format!("{h}\n"));
                } else {
                    out.push_str(&format!("{h}  {display}\n"));
                }
            }
            _ => {
                failed = true;
                let report =
                    flowmcp_spec::FileReport::new(display.clone(), loaded.kind, loaded.diagnostics);
                for d in report
                    .diagnostics()
                    .iter()
                    .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                {
                    eprintln!("{}", render::diagnostic_line(d, false));
                }
                eprintln!(
                    "{display}: no hash (the file does not load as a schema with an object `main`)"
                );
            }
        }
    }
    write_stdout(&out)?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
