//! `flowmcp hash`: the `schemaHash` of schema files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use flowmcp_spec::Profile;
use flowmcp_validate::render;

use crate::output::write_stdout;

#[derive(Args, Debug)]
pub(crate) struct HashArgs {
    /// Schema files.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub(crate) fn run(a: HashArgs) -> Result<ExitCode, String> {
    let opts = flowmcp_validate::Options::new(Profile::Compat);
    let mut out = String::new();
    let mut failed = false;
    for f in &a.files {
        if !flowmcp_files::named::is_file(f) {
            return Err(format!("{}: not a file", f.display()));
        }
        let display = flowmcp_spec::diagnostic::display_path(f);
        match flowmcp_catalog::manifest::schema_hash_file(f, &display, &opts) {
            Ok(h) => {
                if a.files.len() == 1 {
                    out.push_str(&format!("{h}\n"));
                } else {
                    out.push_str(&format!("{h}  {display}\n"));
                }
            }
            Err(report) => {
                failed = true;
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
