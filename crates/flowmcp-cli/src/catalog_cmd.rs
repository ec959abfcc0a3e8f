//! `flowmcp catalog hash|index <dir>`. (Being written for the catalog issue.)

use std::process::ExitCode;

use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
}

#[derive(Subcommand, Debug)]
pub enum CatalogCommand {
    /// Print the catalog's `contentHash`.
    Hash {
        /// The catalog directory.
        dir: std::path::PathBuf,
    },
}

pub fn run(a: CatalogArgs) -> Result<ExitCode, String> {
    let _ = a;
    Err("catalog commands are not implemented yet".into())
}
