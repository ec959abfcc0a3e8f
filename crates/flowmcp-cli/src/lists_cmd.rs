//! `flowmcp list-refs <listName>`. (Being written for the catalog issue.)

use std::process::ExitCode;

use clap::Args;

#[derive(Args, Debug)]
pub struct ListRefsArgs {
    /// The shared list's name (e.g. `evmChains`).
    pub list: String,
}

pub fn run(a: ListRefsArgs) -> Result<ExitCode, String> {
    let _ = a;
    Err("list-refs is not implemented yet".into())
}
