//! `cargo xtask sweep <dir> [--profile spec|compat] [--json FILE] [--timeout-ms N] [--only TEXT]
//! [--workers N] [--no-hostile] [--libs DIR]`: a security and robustness sweep over a catalog of schema files.
//!
//! The catalog is opened as `flowmcp call` opens it (every file validated, only valid schemas
//! callable); the hostile schemas are loaded without validation, so that the runtime's own
//! defences are what is tested. Every tool is called once per test of the schema file and once
//! with `{}`,
//! against local servers only, with a recognisable canary value for every server parameter any
//! schema requires (nothing is read from the real environment). Then the same is done with a set
//! of hostile synthetic schemas ([`hostile`]) under both profiles. The sweep reports the calls'
//! outcomes, panics, hangs and leaks, and fails when there is any of the last three.
//!
//! Design:
//! * [`canary`] — the canary values and finding them in any encoding;
//! * [`server`] — a catch-all echo "upstream" (every namespace is mapped to
//!   `http://127.0.0.1:<port>/<namespace>`, so a request's path tells which namespace it was sent
//!   for) and a "foreign" server standing for an unrelated host (an upstream of the made-up
//!   namespace `sweep-foreign`, so the runtime lets `fetch` reach it, yet it must never receive
//!   a canary); both scan every request as it arrives;
//! * [`guard`] — the workers' transport: the runtime's `UreqTransport`, reaching the two local
//!   servers only, tagging each request with its call's number;
//! * [`catalog`] — the tests (re-read from the files: the loaded model drops them), the parameter
//!   names and the list of calls;
//! * [`worker`] — the calls on worker threads, each owning its runner, under a watchdog (hangs) and
//!   `catch_unwind` (panics);
//! * [`report`] — the leak rules, the counts, the text and JSON output.

mod canary;
mod catalog;
mod guard;
mod hostile;
mod report;
mod server;
mod worker;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use flowmcp_runtime::Toolset;
use flowmcp_runtime::{
    Transport, transport::HeaderValue, transport::HttpRequest, transport::Method,
    transport::TransportConfig, transport::UreqTransport,
};
use flowmcp_spec::Profile;
use serde_json::json;

use canary::Canaries;
use catalog::FileInfo;
use report::{Judge, Leak, PhaseReport};
use server::{EchoServer, Side};
use worker::{Done, Setup};

/// The made-up namespace whose upstream is the foreign server.
const FOREIGN_NAMESPACE: &str = "sweep-foreign";
/// The watchdog's limit, in call timeouts.
const HARD_LIMIT_FACTOR: u32 = 3;

const USAGE: &str = "usage: cargo xtask sweep <dir> [--profile spec|compat] [--json FILE] \
                     [--timeout-ms N] [--only TEXT] [--workers N] [--no-hostile] [--libs DIR]";

/// The command line.
struct Options {
    dir: PathBuf,
    profile: Profile,
    json: Option<PathBuf>,
    timeout: Duration,
    only: Option<String>,
    workers: usize,
    hostile: bool,
    /// The library directory the schemas' `requiredLibraries` are loaded from.
    libs: Option<flowmcp_loader::libs::LibraryDir>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut dir = None;
    let mut o = Options {
        dir: PathBuf::new(),
        profile: Profile::Spec,
        json: None,
        timeout: Duration::from_millis(5000),
        only: None,
        workers: 2,
        hostile: true,
        libs: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--profile" => {
                o.profile = value("--profile")?
                    .parse()
                    .map_err(|e: flowmcp_spec::SettingError| e.to_string())?
            }
            "--json" => o.json = Some(PathBuf::from(value("--json")?)),
            "--timeout-ms" => o.timeout = Duration::from_millis(number(value("--timeout-ms")?)?),
            "--only" => o.only = Some(value("--only")?.clone()),
            "--workers" => o.workers = number(value("--workers")?)?.clamp(1, 64) as usize,
            "--no-hostile" => o.hostile = false,
            "--libs" => {
                let dir = PathBuf::from(value("--libs")?);
                o.libs =
                    Some(flowmcp_loader::libs::LibraryDir::new(&dir).map_err(|e| e.to_string())?);
            }
            other if other.starts_with('-') => {
                return Err(format!("unknown option {other}\n{USAGE}"));
            }
            other => dir = Some(PathBuf::from(other)),
        }
    }
    o.dir = dir.ok_or(USAGE)?;
    if o.timeout.is_zero() || o.timeout > Duration::from_secs(3600) {
        return Err("--timeout-ms must be between 1 and 3600000".into());
    }
    Ok(o)
}

fn number(text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a whole number"))
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let opts = parse(args)?;
    let started = Instant::now();
    worker::install_panic_hook();
    let files = catalog::read_files(&opts.dir, opts.profile)?;
    let mut names = catalog::param_names(&files);
    names.extend(hostile::PARAMS.iter().map(|s| s.to_string()));
    let canaries = Arc::new(Canaries::new(names.iter().map(String::as_str)));
    let foreign = EchoServer::start(Side::Foreign, canaries.clone(), None)?;
    let upstream = EchoServer::start(Side::Upstream, canaries.clone(), Some(foreign.base.clone()))?;
    let transport = Arc::new(UreqTransport::new({
        let mut built = TransportConfig::default();
        built.connect_timeout = opts.timeout.min(Duration::from_secs(2));
        built.total_timeout = opts.timeout;
        built.allow_http_loopback = true;
        built
    }));
    self_check(&transport, &foreign, &canaries)?;
    let env = Env {
        opts: &opts,
        canaries: &canaries,
        upstream: &upstream,
        foreign: &foreign,
        transport: &transport,
    };
    let mut next_id = 1u64;
    let catalog = Phase {
        name: "catalog",
        dir: &opts.dir,
        profile: opts.profile,
        files: &files,
        only: opts.only.as_deref(),
        details: false,
        validate: true,
    };
    let mut phases = vec![env.run(&catalog, &mut next_id)?];
    if opts.hostile {
        let dir = hostile::write(&foreign.base)?;
        let hostile_files = catalog::read_files(&dir.0, Profile::Compat)?;
        for profile in [Profile::Spec, Profile::Compat] {
            let hostile = Phase {
                name: "hostile",
                dir: &dir.0,
                profile,
                files: &hostile_files,
                only: None,
                details: true,
                validate: false,
            };
            phases.push(env.run(&hostile, &mut next_id)?);
        }
    }
    let unattributed = unattributed(&env, next_id);
    let elapsed = started.elapsed();
    for p in &phases {
        p.print();
    }
    summary(&phases, &unattributed, elapsed);
    if let Some(path) = &opts.json {
        write_json(path, &phases, &unattributed, elapsed)?;
    }
    upstream.stop();
    foreign.stop();
    let failed = phases.iter().any(PhaseReport::failed) || !unattributed.is_empty();
    if failed {
        return Err("the sweep found panics, hangs or leaks".into());
    }
    Ok(())
}

/// One directory swept under one profile.
#[derive(Clone, Copy)]
struct Phase<'a> {
    name: &'a str,
    dir: &'a Path,
    profile: Profile,
    /// What [`catalog::read_files`] read from the directory.
    files: &'a HashMap<PathBuf, FileInfo>,
    /// Only the tools whose ID or file contains this.
    only: Option<&'a str>,
    /// Keep every call's outcome in the report.
    details: bool,
    /// Open the directory as a catalog (only valid schemas callable); without, every schema file
    /// is called unvalidated, to test the runtime's own defences (the hostile phase).
    validate: bool,
}

/// What the phases share.
struct Env<'a> {
    opts: &'a Options,
    canaries: &'a Arc<Canaries>,
    upstream: &'a EchoServer,
    foreign: &'a EchoServer,
    transport: &'a Arc<UreqTransport>,
}

impl Env<'_> {
    /// Loads the phase's directory, calls every tool and judges the calls. Call numbers start at
    /// `*next_id`.
    fn run(&self, phase: &Phase<'_>, next_id: &mut u64) -> Result<PhaseReport, String> {
        let Phase {
            name,
            dir,
            profile,
            files,
            only,
            details,
            validate,
        } = *phase;
        let started = Instant::now();
        let env = self.canaries.env();
        let set = Arc::new(if validate {
            catalog::load_toolset(dir, profile, env)?
        } else {
            catalog::load_unvalidated(dir, profile, env)?
        });
        let groups = catalog::jobs(&set, files, only, next_id);
        let total: usize = groups.iter().map(Vec::len).sum();
        let setup = self.setup(&set);
        let (up0, fo0) = (self.upstream_total(), self.foreign_total());
        let label = format!("{name} ({})", profile.as_str());
        eprintln!(
            "[sweep] {label}: {} schemas, {} tools, {total} calls",
            set.schemas().len(),
            set.tools().len()
        );
        let results = worker::run_all(&setup, groups, |n| {
            if n.is_multiple_of(100) || n == total {
                eprintln!(
                    "[sweep] {label}: {n}/{total} calls, {:.2} s",
                    started.elapsed().as_secs_f64()
                );
            }
        })?;
        let judge = Judge {
            set: &set,
            files,
            canaries: self.canaries,
            profile,
        };
        let mut report = PhaseReport {
            name: name.to_string(),
            profile: profile.as_str().to_string(),
            dir: dir.display().to_string(),
            schemas: set.schemas().len(),
            problems: set
                .problems()
                .iter()
                .map(|p| format!("{}: {}", p.file, p.message))
                .collect(),
            tools: set.tools().len(),
            ..PhaseReport::default()
        };
        report.problems.extend(self.uncovered(&set));
        for done in &results {
            report.add(&judge, done, details);
            report.leaks.extend(judge.returned_leaks(done));
            report.leaks.extend(judge.refused_leaks(done));
        }
        let by_id: HashMap<u64, &Done> = results.iter().map(|d| (d.job.id, d)).collect();
        for s in [self.upstream, self.foreign] {
            report
                .leaks
                .extend(judge.request_leaks(&by_id, &s.seen.records()));
        }
        report.upstream_requests = self.upstream_total() - up0;
        report.foreign_requests = self.foreign_total() - fo0;
        report.elapsed = started.elapsed();
        Ok(report)
    }

    fn setup(&self, set: &Arc<Toolset>) -> Setup {
        let mut upstreams: BTreeMap<String, String> = set
            .schemas()
            .iter()
            .map(|s| {
                let ns = s.main.namespace.clone();
                // A `?` or `#` would make the URL no upstream (a query or a fragment).
                let url = format!(
                    "{}/{}",
                    self.upstream.base,
                    ns.replace('?', "%3F").replace('#', "%23")
                );
                (ns, url)
            })
            .collect();
        upstreams.insert(FOREIGN_NAMESPACE.to_string(), self.foreign.base.clone());
        Setup {
            set: set.clone(),
            transport: self.transport.clone(),
            ports: vec![self.upstream.port, self.foreign.port],
            canaries: self.canaries.clone(),
            upstreams,
            call_timeout: self.opts.timeout,
            hard_limit: self.opts.timeout * HARD_LIMIT_FACTOR,
            workers: self.opts.workers,
            libraries: self.opts.libs.clone(),
        }
    }

    /// A note for every server parameter a loaded schema requires that has no canary (the files
    /// were read for the names before loading; the two should agree).
    fn uncovered(&self, set: &Toolset) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in set.schemas() {
            for name in &s.main.required_server_params {
                if !self.canaries.list.iter().any(|c| &c.param == name) {
                    out.push(format!("{}: no canary for {name}", s.display));
                }
            }
        }
        out
    }

    fn upstream_total(&self) -> usize {
        self.upstream.seen.total.load(Ordering::Relaxed)
    }

    fn foreign_total(&self) -> usize {
        self.foreign.seen.total.load(Ordering::Relaxed)
    }
}

/// Proves the detection works before relying on it: a request to the foreign server carrying a
/// form-encoded canary (call number 0) must be recorded as such, and its echo must reveal it.
fn self_check(
    transport: &UreqTransport,
    foreign: &EchoServer,
    canaries: &Canaries,
) -> Result<(), String> {
    let Some(c) = canaries.list.iter().find(|c| c.value.contains('+')) else {
        return Ok(());
    };
    let encoded: String = url::form_urlencoded::byte_serialize(c.value.as_bytes()).collect();
    let req = HttpRequest::new(
        Method::Get,
        format!("{}/sweep-self-check?k={encoded}", foreign.base),
    )
    .with_header(server::CALL_HEADER, HeaderValue::plain("0"));
    let resp = transport
        .send(&req)
        .map_err(|e| format!("self-check: the foreign server cannot be reached: {e}"))?;
    let echoed = !canaries
        .find(&String::from_utf8_lossy(&resp.body))
        .is_empty();
    let recorded = foreign
        .seen
        .records()
        .iter()
        .any(|r| r.call == Some(0) && !r.found.is_empty());
    if !(echoed && recorded) {
        return Err("self-check: a canary sent to the foreign server was not detected".into());
    }
    Ok(())
}

/// Requests with a canary that belong to no call of the sweep (numbers below `next_id`; 0 is the
/// self-check).
fn unattributed(env: &Env<'_>, next_id: u64) -> Vec<Leak> {
    let judge = Judge {
        set: &Toolset::default(),
        files: &HashMap::new(),
        canaries: env.canaries,
        profile: Profile::Spec,
    };
    let known = |c: u64| c < next_id;
    let mut out = Vec::new();
    for s in [env.upstream, env.foreign] {
        out.extend(judge.unattributed(&s.seen.records(), &known));
    }
    out
}

fn summary(phases: &[PhaseReport], unattributed: &[Leak], elapsed: Duration) {
    let calls: usize = phases.iter().map(|p| p.calls).sum();
    let panics: usize = phases.iter().map(|p| p.panics.len()).sum();
    let hangs: usize = phases.iter().map(|p| p.hangs.len()).sum();
    let leaks: usize = phases.iter().map(|p| p.leaks.len()).sum::<usize>() + unattributed.len();
    for l in unattributed {
        println!("   LEAK  (no call) {} ({}) at {}", l.param, l.form, l.place);
    }
    println!(
        "== total: {calls} calls, {panics} panics, {hangs} hangs, {leaks} leaks in {:.2} s",
        elapsed.as_secs_f64()
    );
}

fn write_json(
    path: &Path,
    phases: &[PhaseReport],
    unattributed: &[Leak],
    elapsed: Duration,
) -> Result<(), String> {
    let doc = json!({
        "phases": phases.iter().map(PhaseReport::to_json).collect::<Vec<_>>(),
        "unattributed": unattributed.iter().map(|l| json!({"param": l.param, "form": l.form, "place": l.place})).collect::<Vec<_>>(),
        "calls": phases.iter().map(|p| p.calls).sum::<usize>(),
        "panics": phases.iter().map(|p| p.panics.len()).sum::<usize>(),
        "hangs": phases.iter().map(|p| p.hangs.len()).sum::<usize>(),
        "leaks": phases.iter().map(|p| p.leaks.len()).sum::<usize>() + unattributed.len(),
        "seconds": elapsed.as_secs_f64(),
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    crate::conformance::write_atomic(path, &format!("{text}\n"))
}
