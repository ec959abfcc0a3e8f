//! Loading a catalog and calling its tools in tests: a toolset with a given environment, a
//! transport that allows loopback HTTP, runner options and a runner whose log lines are kept.
#![allow(dead_code)]

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use flowmcp_runtime::call::{Runner, RunnerOptions};
use flowmcp_runtime::toolset::{Toolset, ToolsetOptions};
use flowmcp_runtime::transport::{TransportConfig, UreqTransport};
use flowmcp_spec::Profile;
use indexmap::IndexMap;

/// Loads the schemas under `dir` with `env` as the whole process environment; asserts that every
/// file loaded.
pub fn load(dir: &Path, profile: Profile, env: IndexMap<String, String>) -> Toolset {
    let set = Toolset::load_dir(
        dir,
        &ToolsetOptions {
            profile,
            env_override: Some(env),
            ..ToolsetOptions::default()
        },
    )
    .expect("catalog loads");
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    set
}

/// A transport with short limits that may reach loopback over plain HTTP.
pub fn transport() -> UreqTransport {
    UreqTransport::new(TransportConfig {
        connect_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(5),
        allow_http_loopback: true,
        ..TransportConfig::default()
    })
}

/// Runner options with `upstreams` as `(namespace, base URL)` pairs (the profile is the
/// toolset's).
pub fn opts(upstreams: &[(&str, &str)]) -> RunnerOptions {
    RunnerOptions {
        upstreams: upstreams
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..RunnerOptions::default()
    }
}

/// Log lines a runner wrote.
pub type Logs = Rc<RefCell<Vec<String>>>;

/// A runner whose log lines are collected.
pub fn runner<'t>(set: &'t Toolset, t: &'t UreqTransport, o: RunnerOptions) -> (Runner<'t>, Logs) {
    let logs = Rc::new(RefCell::new(Vec::new()));
    let sink = logs.clone();
    let r = Runner::with_log(
        set,
        t,
        o,
        Box::new(move |l: &str| sink.borrow_mut().push(l.to_string())),
    );
    (r, logs)
}
