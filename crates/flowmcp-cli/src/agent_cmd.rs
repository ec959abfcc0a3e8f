//! `flowmcp agent verify` and `flowmcp agent rehash`: an agent's integrity hashes.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_runtime::{RunnerOptions, TransportConfig};

use crate::run_cmd::{SourceArgs, config, open};
use crate::{profile_of, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

#[derive(Subcommand, Debug)]
enum AgentCommand {
    // The help text is on the arguments struct (its `about` and `long_about`).
    Verify(NameArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Rehash(RehashArgs),
}

#[derive(Args, Debug)]
#[command(
    about = "Check an agent's integrity hashes against its tools as they are now",
    long_about = "Check an agent's integrity hashes: the hash of each external tool it uses \
    (`namespace/tool/name: null` in `tools`) over the tool's definition as its schema is written now, \
    and the agent hash over them, against the manifest's `hash` and the per-tool hashes of the lock \
    file `agents/<name>.lock.json`. A mismatch names the tools that changed. Nothing is written.\n\n\
    Exit codes: 0 all hashes valid, 1 a mismatch (or no hash yet), 2 usage or I/O error."
)]
struct NameArgs {
    /// The agent's name (`agents/<name>/agent.mjs`).
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args, Debug)]
#[command(
    about = "Write an agent's integrity hashes: the manifest's `hash` and the lock file",
    long_about = "Compute an agent's integrity hashes now and write them: the agent hash into the \
    manifest's `hash` (inserted when it is absent; nothing else in the manifest's text changes) and \
    every external tool's hash into `agents/<name>.lock.json`, each file atomically. Run it after \
    reviewing a change that `flowmcp agent verify` reported. Writes nothing when a tool cannot be \
    hashed.\n\n\
    Exit codes: 0 written, 2 error."
)]
struct RehashArgs {
    #[command(flatten)]
    agent: NameArgs,
}

pub(crate) fn run(a: AgentArgs) -> Result<ExitCode, String> {
    match a.command {
        AgentCommand::Verify(a) => verify(a),
        AgentCommand::Rehash(a) => rehash(a.agent),
    }
}

fn open_catalog(a: &NameArgs) -> Result<flowmcp_catalog::Catalog, String> {
    let cfg = config(a.source.trust_project_config)?;
    open(
        &a.source,
        &[],
        false,
        &cfg,
        profile_of(a.source.profile, &cfg),
        TransportConfig::default(),
        RunnerOptions::default(),
    )
}

fn verify(a: NameArgs) -> Result<ExitCode, String> {
    let catalog = open_catalog(&a)?;
    let integrity = catalog
        .agent_integrity(&a.name)
        .map_err(|e| e.to_string())?;
    write_stdout(&format!("{}\n", integrity.report()))?;
    Ok(if integrity.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn rehash(a: NameArgs) -> Result<ExitCode, String> {
    let catalog = open_catalog(&a)?;
    let done = catalog.rehash_agent(&a.name).map_err(|e| e.to_string())?;
    let hash = done.stored.clone().unwrap_or_default();
    let mut out = format!(
        "Agent \"{}\": {} tools hashed; wrote hash {hash} to {} and the tool hashes to {}\n",
        done.agent,
        done.tools.len(),
        done.manifest.display(),
        done.lock.display()
    );
    for t in &done.tools {
        if let Ok(h) = &t.hash {
            out.push_str(&format!("  {}  {h}\n", t.id));
        }
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
