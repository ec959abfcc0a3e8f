//! `flowmcp agent …`: an agent's integrity hashes (`verify`, `rehash`), running it (`run`) and
//! its tests (`test`).

use std::process::ExitCode;

use clap::{Args, Subcommand};
use flowmcp_catalog::runtime::RunnerOptions;

use crate::advice::activation_error;
use crate::context::{
    BudgetArgs, Config, ModelArgs, RunArgs, SourceArgs, config, open, open_to_read, profile_of,
};
use crate::output::{shown, shown_block, write_stdout};

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
    // The help text is on the arguments struct (its `about` and `long_about`).
    Run(RunAgentArgs),
    // The help text is on the arguments struct (its `about` and `long_about`).
    Test(TestAgentArgs),
}

#[derive(Args, Debug)]
#[command(
    about = "Run an agent on one input and print its final answer",
    long_about = "Run an agent: its system prompt and the input go to its model with its tools     offered; each tool call runs through the catalog (as `flowmcp call` runs it, so --upstream, the     configuration and server parameters apply) and its result goes back, until the model answers or     `maxRounds` rounds have run. The final answer is printed on stdout.\n\n    Exit codes: 0 answered, 1 the run failed (AGENT00x on stderr), 2 usage error."
)]
struct RunAgentArgs {
    /// The agent's name.
    #[arg(value_name = "NAME")]
    name: String,
    /// What to ask the agent.
    #[arg(value_name = "INPUT")]
    input: String,
    /// Write the transcript (every request, reply, tool call, timing and token count) here as JSON.
    #[arg(long, value_name = "FILE")]
    transcript: Option<std::path::PathBuf>,
    /// The result budget of each tool result the model reads: cut inside the tool's output
    /// schema, with a warning saying what was cut. Default: 75000 bytes (about 25,000 tokens).
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Args, Debug)]
#[command(
    about = "Run an agent's tests: expected tools and expected content",
    long_about = "Run each of an agent's tests: the agent answers the test's `input`; the test     passes when every tool of `expectedTools` was called and the answer contains every     `expectedContent` text (case ignored). One line per test with PASS or FAIL and the reason, then     a summary.\n\n    Exit codes: 0 all passed, 1 a test failed, 2 usage error."
)]
struct TestAgentArgs {
    /// The agent's name.
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    source: SourceArgs,
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
        AgentCommand::Run(a) => run_agent(a),
        AgentCommand::Test(a) => test_agent(a),
    }
}

/// The configuration, and the catalog with the call settings of `run` (upstreams, cache,
/// limits).
fn open_for_calls(
    source: &SourceArgs,
    run: &RunArgs,
) -> Result<(Config, flowmcp_catalog::Catalog), String> {
    let cfg = config(source.anchor(&[]))?;
    let (transport, runner) = run.settings(&cfg)?;
    let catalog = open(
        source,
        &[],
        false,
        &cfg,
        profile_of(source.profile, &cfg),
        transport,
        runner,
    )?;
    Ok((cfg, catalog))
}

fn run_agent(a: RunAgentArgs) -> Result<ExitCode, String> {
    let (cfg, catalog) = open_for_calls(&a.source, &a.run)?;
    let budget = a
        .budget
        .bytes(cfg.max_result_bytes.or(Some(BudgetArgs::DEFAULT_BYTES)));
    let runner = flowmcp_agent::AgentRunner::new(&catalog, &a.name, a.model.endpoint(&cfg))
        .map_err(|e| agent_error(&e))?
        .with_result_budget(budget);
    for w in &runner.warnings {
        eprintln!("flowmcp: agent {}: {}", a.name, shown(w));
    }
    match runner.run(&a.input) {
        Ok(o) => {
            if let Some(path) = &a.transcript {
                let text = serde_json::to_string_pretty(&serde_json::json!({
                    "agent": a.name,
                    "input": a.input,
                    "answer": o.answer,
                    "rounds": o.rounds,
                    "usage": {"promptTokens": o.usage.0, "completionTokens": o.usage.1},
                    "steps": o.transcript,
                }))
                .map_err(|e| e.to_string())?;
                flowmcp_files::named::write_atomic(path, text.as_bytes())
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            write_stdout(&format!("{}\n", shown_block(&o.answer)))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("flowmcp: {}", shown(&e.to_string()));
            Ok(ExitCode::from(1))
        }
    }
}

fn test_agent(a: TestAgentArgs) -> Result<ExitCode, String> {
    let (cfg, catalog) = open_for_calls(&a.source, &a.run)?;
    let runner = flowmcp_agent::AgentRunner::new(&catalog, &a.name, a.model.endpoint(&cfg))
        .map_err(|e| agent_error(&e))?;
    for w in &runner.warnings {
        eprintln!("flowmcp: agent {}: {}", a.name, shown(w));
    }
    let results = runner.test();
    let mut out = String::new();
    for (i, r) in results.iter().enumerate() {
        match &r.failure {
            None => out.push_str(&format!("PASS  {}. {}\n", i + 1, shown(&r.description))),
            Some(why) => out.push_str(&format!(
                "FAIL  {}. {}: {}\n",
                i + 1,
                shown(&r.description),
                shown(why)
            )),
        }
    }
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    out.push_str(&format!(
        "{} of {} tests passed\n",
        results.len() - failed,
        results.len()
    ));
    write_stdout(&out)?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn open_catalog(a: &NameArgs) -> Result<flowmcp_catalog::Catalog, String> {
    open_to_read(&a.source, &[], RunnerOptions::default())
}

fn verify(a: NameArgs) -> Result<ExitCode, String> {
    let catalog = open_catalog(&a)?;
    let integrity = catalog
        .agent_integrity(&a.name)
        .map_err(|e| e.to_string())?;
    let mut report = integrity.report();
    if !integrity.is_valid() {
        report.push_str(&format!(
            "\nRecommendation: review the changes and run `flowmcp agent rehash {}`",
            integrity.agent
        ));
    }
    write_stdout(&format!("{report}\n"))?;
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
            out.push_str(&format!("  {}  {h}\n", shown(&t.id)));
        }
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// An agent error as the CLI prints it: an activation failure gets the command or setting that
/// resolves it (the library says only what is wrong).
pub(crate) fn agent_error(e: &flowmcp_agent::AgentError) -> String {
    match e {
        flowmcp_agent::AgentError::Activation(a) => {
            format!("{} {}", flowmcp_spec::Code::AGENT001, activation_error(a))
        }
        other => other.to_string(),
    }
}
