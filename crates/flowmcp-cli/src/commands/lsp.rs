//! `flowmcp lsp`: the language server (flowmcp-lsp) on standard input and output.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use crate::context::{self, ProfileArg};

#[derive(Args, Debug)]
#[command(
    about = "Run the language server (LSP over standard input and output) for editors",
    long_about = "Run the FlowMCP language server: an editor starts `flowmcp lsp` and speaks the \
                  Language Server Protocol with it over standard input and output. It checks \
                  schema, shared-list, prompt, skill, selection and agent files as you type \
                  (the same rules, sandbox and limits as `flowmcp validate`; a file inside a \
                  catalog is checked with its catalog), and offers hover (rule codes, \
                  placeholders, tool IDs), completion, go to definition and code actions (the \
                  fixes of `flowmcp validate --fix`, fix all, migrate an older file to version 4).\n\n\
                  Nothing is printed on standard output but protocol messages; log lines go to \
                  standard error (RUST_LOG, default warn).\n\n\
                  Neovim: vim.lsp.config('flowmcp', { cmd = { 'flowmcp', 'lsp' }, filetypes = \
                  { 'javascript' }, root_markers = { 'registry.json', '.git' } }) and \
                  vim.lsp.enable('flowmcp'). Helix (languages.toml): [language-server.flowmcp] \
                  command = \"flowmcp\", args = [\"lsp\"], then add \"flowmcp\" to the \
                  language-servers of javascript. See the README, \"Editor integration\"."
)]
pub(crate) struct LspArgs {
    /// Which reading of the specification to apply: `spec` or `compat` (as for `flowmcp
    /// validate`). Default: spec, or the config.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
}

pub(crate) fn run(a: LspArgs) -> Result<ExitCode, String> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    let cfg = context::config(false)?;
    let profile = context::profile_of(a.profile, &cfg);
    let mut options = flowmcp_lsp::Options::new(context::validation_options(&cfg, profile));
    // Only the names of the server parameters that have a value: no value leaves this function.
    let mut notes = Vec::new();
    let set: BTreeSet<String> = match cfg.server_params(None, &mut notes) {
        Ok(values) => [values.env, values.user, values.project]
            .into_iter()
            .flat_map(|m| m.into_iter().filter(|(_, v)| !v.is_empty()).map(|(k, _)| k))
            .collect(),
        Err(e) => {
            tracing::warn!("server parameters not read: {e}");
            BTreeSet::new()
        }
    };
    for n in notes {
        tracing::warn!("{n}");
    }
    options.server_param_set = Some(Arc::new(move |key: &str| set.contains(key)));
    flowmcp_lsp::run_stdio(options).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
