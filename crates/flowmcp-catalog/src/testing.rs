//! Running the tests of tools and resource queries (chapters 10 and 21).
//!
//! Each test is one real call through the catalog, with the preload cache bypassed (chapter 11)
//! and a pause between calls that go over the network. A test passes when the call succeeds (for
//! a tool: a 2xx response with a body that could be read, no handler failure, within the call's
//! time limit) and its `data` matches the declared `output.schema`. A primitive passes when at
//! least one of its tests passes (chapter 21); every shape mismatch is kept with its JSON path.
//!
//! The tests are read again from the schema files (the loaded catalog keeps only the first of
//! each tool's tests), so what runs is what the files say now.
//!
//! Tests never change a user's data: the queries of a `file-based` (writable) SQLite resource run
//! against a scratch database built from the schema's SQL (`resources/<name>.sql` beside it) in a
//! temporary folder, removed afterwards — the "bundled database" such a resource has.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use flowmcp_files::Root;
use flowmcp_loader::{FileKind, load_file};
use flowmcp_runtime::cache::rfc3339;
use flowmcp_runtime::{Kind, ToolEntry};
use flowmcp_spec::Code;
use flowmcp_spec::paths::encode_name;
use serde_json::{Map, Value, json};

use crate::{Caller, Catalog, CatalogError};

/// How [`Catalog::run_tests`] runs.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TestOptions {
    /// The pause between two calls that go over the network (chapter 10: one second). Resource
    /// queries are local and do not wait.
    pub delay: Duration,
    /// `false`: call nothing, only list the tests (`flowmcp test --static`).
    pub calls: bool,
}

impl Default for TestOptions {
    fn default() -> Self {
        TestOptions {
            delay: Duration::from_secs(1),
            calls: true,
        }
    }
}

/// A primitive's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// At least one test passed.
    Pass,
    /// No test passed (or there is none).
    Fail,
    /// Not run: a server parameter has no value, or calls were not wanted.
    Skip,
}

impl Verdict {
    /// `PASS`, `FAIL` or `SKIP`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skip => "SKIP",
        }
    }
}

/// What one test's call gave.
#[derive(Clone, Debug)]
pub struct TestOutcome {
    /// The call succeeded and its data matches the declared output schema.
    pub passed: bool,
    /// The envelope's status: the call succeeded (whatever the shape of its data).
    pub status: bool,
    /// The code of a failed call (`E001` …, or a resource's: `RES020`, `MD004`, …).
    pub code: Option<Code>,
    /// The envelope's messages (why a call failed).
    pub messages: Vec<String>,
    /// Where the data does not match `output.schema` (`output /0/name: expected string, …`).
    pub mismatches: Vec<String>,
    /// How long the call took.
    pub millis: u64,
    /// The size of the data as JSON text.
    pub bytes: usize,
    /// When the call started (RFC 3339, UTC).
    pub timestamp: String,
    /// The envelope's `data` (after handlers; secrets redacted by the runtime).
    pub data: Value,
}

/// One test of a primitive.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// Its index in the primitive's `tests`.
    pub index: usize,
    /// Its `_description`.
    pub description: String,
    /// Its parameter values (the test without `_description`).
    pub params: Map<String, Value>,
    /// The call's outcome; `None` when it was not called.
    pub outcome: Option<TestOutcome>,
}

/// A tool's or resource query's tests and verdict.
#[derive(Clone, Debug)]
pub struct PrimitiveTests {
    /// How to call it: the entry's own ID (a resource query's is `namespace/resource/<name>-<query>`).
    pub id: String,
    /// Its name in its schema: the tool's key, or `resource.query`.
    pub route: String,
    /// `tool` or `query`.
    pub kind: &'static str,
    /// Whether the call goes over the network (tools) or not (resource queries).
    pub remote: bool,
    /// PASS, FAIL or SKIP.
    pub verdict: Verdict,
    /// Why it failed or was skipped.
    pub reason: Option<String>,
    /// Its tests, in order.
    pub tests: Vec<TestResult>,
    /// Its `output` as the file has it now, when it has one.
    pub written_output: Option<Value>,
}

impl PrimitiveTests {
    /// The `output` its responses call for (`flowmcp test --update-output`): the schema the
    /// generator makes from the data of every test whose call succeeded, with the descriptions
    /// already written kept and the MIME type already declared kept (else one that fits). `None`
    /// for a resource query, or when no call succeeded.
    pub fn generated_output(&self) -> Option<Value> {
        if self.kind != "tool" {
            return None;
        }
        let samples: Vec<&Value> = self
            .tests
            .iter()
            .filter_map(|t| t.outcome.as_ref().filter(|o| o.status).map(|o| &o.data))
            .collect();
        if samples.is_empty() {
            return None;
        }
        let written = self.written_output.as_ref();
        let schema = flowmcp_runtime::output::generate_output_schema(
            samples,
            written.and_then(|o| o.get("schema")),
        );
        let mime = written
            .and_then(|o| o.get("mimeType"))
            .and_then(Value::as_str)
            .map_or_else(
                || flowmcp_runtime::output::mime_type_for(&schema).to_string(),
                str::to_string,
            );
        Some(json!({"mimeType": mime, "schema": schema}))
    }
}

/// The tested primitives of one schema file.
#[derive(Clone, Debug)]
pub struct SchemaTests {
    /// The file, as messages name it.
    pub file: String,
    /// The file on disk.
    pub path: PathBuf,
    /// The schema's namespace.
    pub namespace: String,
    /// Its tools and resource queries, in schema order.
    pub primitives: Vec<PrimitiveTests>,
}

/// Why [`SchemaTests::with_outputs`] or [`SchemaTests::pruned`] left a schema file's text as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputEditError {
    /// A primitive's member could not be edited: a tool's `output` set, or a failing tool or
    /// query removed (its entry is not a literal object, say).
    #[error("{route}: {reason}")]
    Tool {
        /// The tool's route name, or `resource.query`.
        route: String,
        /// Why.
        reason: String,
    },
    /// The file's `schemaHash` could not be rewritten.
    #[error("schemaHash: {0}")]
    SchemaHash(String),
    /// The new text would have errors the old one did not have (each `CODE message`).
    #[error("the result would not validate: {}", .0.join("; "))]
    Invalid(Vec<String>),
}

impl SchemaTests {
    /// The generated `output` of every tool whose call succeeded and whose written `output`
    /// differs from it, as (route, output), in schema order.
    pub fn generated_outputs(&self) -> Vec<(&str, Value)> {
        self.primitives
            .iter()
            .filter_map(|p| {
                p.generated_output()
                    .filter(|o| p.written_output.as_ref() != Some(o))
                    .map(|o| (p.route.as_str(), o))
            })
            .collect()
    }

    /// `text`, this schema file's source, with the `output` of each tool in `outputs` set (placed
    /// after its `parameters`; everything else kept byte for byte) and, when the file has a
    /// `schemaHash`, that hash made to describe the new `main`. The result is refused when it
    /// would have an error the old text did not have (validated with `options`, its shared lists
    /// from `discovery`).
    pub fn with_outputs(
        &self,
        text: &str,
        outputs: &[(&str, Value)],
        options: &flowmcp_validate::Options,
        discovery: &crate::ListDiscovery,
    ) -> Result<String, OutputEditError> {
        let mut after = text.to_string();
        for (route, output) in outputs {
            after = flowmcp_loader::edit::set_member(
                &after,
                "main",
                &["tools", route],
                "output",
                output,
                Some("parameters"),
            )
            .map_err(|e| OutputEditError::Tool {
                route: route.to_string(),
                reason: e.to_string(),
            })?;
        }
        self.checked_edit(text, after, options, discovery)
    }

    /// The routes of the primitives that failed: what chapter 21 says must be removed before
    /// production.
    pub fn failed_routes(&self) -> Vec<&str> {
        self.primitives
            .iter()
            .filter(|p| p.verdict == Verdict::Fail)
            .map(|p| p.route.as_str())
            .collect()
    }

    /// `text`, this schema file's source, without the primitives that failed (the production
    /// copy of chapter 21's partial schema policy): each failing tool's member of `main.tools`
    /// and each failing resource query's member of its resource's `queries` removed, everything
    /// else kept byte for byte, and a `schemaHash` made to describe the new `main`. `None` when
    /// nothing failed. Refused like [`SchemaTests::with_outputs`] when the result would have an
    /// error the old text did not have (a file whose every tool failed, say).
    pub fn pruned(
        &self,
        text: &str,
        options: &flowmcp_validate::Options,
        discovery: &crate::ListDiscovery,
    ) -> Result<Option<String>, OutputEditError> {
        let failed: Vec<&PrimitiveTests> = self
            .primitives
            .iter()
            .filter(|p| p.verdict == Verdict::Fail)
            .collect();
        if failed.is_empty() {
            return Ok(None);
        }
        let mut after = text.to_string();
        for p in failed {
            let edited = match (p.remote, p.route.split_once('.')) {
                (true, _) => {
                    flowmcp_loader::edit::remove_member(&after, "main", &["tools"], &p.route)
                }
                (false, Some((resource, query))) => flowmcp_loader::edit::remove_member(
                    &after,
                    "main",
                    &["resources", resource, "queries"],
                    query,
                ),
                (false, None) => Err(flowmcp_loader::edit::EditError::NoMember(p.route.clone())),
            };
            after = edited.map_err(|e| OutputEditError::Tool {
                route: p.route.clone(),
                reason: e.to_string(),
            })?;
        }
        self.checked_edit(text, after, options, discovery).map(Some)
    }

    /// `after`, an edit of `text`, with its `schemaHash` (when it has one) made to describe its
    /// new `main`; refused when it has an error `text` did not have.
    fn checked_edit(
        &self,
        text: &str,
        mut after: String,
        options: &flowmcp_validate::Options,
        discovery: &crate::ListDiscovery,
    ) -> Result<String, OutputEditError> {
        let loaded = flowmcp_loader::load_source(
            &self.path,
            &self.file,
            &after,
            &options.limits,
            &options.settings,
        );
        if let Some(main) = loaded.exports.as_ref().and_then(|e| e.get("main"))
            && main.get("schemaHash").is_some()
        {
            let hash = flowmcp_spec::hash::schema_hash(main);
            after = flowmcp_loader::edit::set_string_member(&after, "main", "schemaHash", &hash)
                .map_err(|e| OutputEditError::SchemaHash(e.to_string()))?;
        }
        let lists = discovery.scope_for(&self.path, &self.file, options);
        let errors = |text: &str| {
            flowmcp_validate::validate_str(text, &self.file, &lists, options)
                .diagnostics()
                .iter()
                .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                .map(|d| format!("{} {}", d.code.as_str(), d.message))
                .collect::<Vec<_>>()
        };
        let old = errors(text);
        let added: Vec<String> = errors(&after)
            .into_iter()
            .filter(|e| !old.contains(e))
            .collect();
        if added.is_empty() {
            Ok(after)
        } else {
            Err(OutputEditError::Invalid(added))
        }
    }
}

/// What [`Catalog::run_tests`] found.
#[derive(Clone, Debug, Default)]
pub struct TestReport {
    /// Per schema file, in catalog order.
    pub schemas: Vec<SchemaTests>,
}

impl TestReport {
    /// Every tested primitive.
    pub fn primitives(&self) -> impl Iterator<Item = &PrimitiveTests> {
        self.schemas.iter().flat_map(|s| s.primitives.iter())
    }

    /// The primitives that failed: those chapter 21 says must be removed before production.
    pub fn failed(&self) -> Vec<&PrimitiveTests> {
        self.primitives()
            .filter(|p| p.verdict == Verdict::Fail)
            .collect()
    }

    /// How many primitives have each verdict: (pass, fail, skip).
    pub fn counts(&self) -> (usize, usize, usize) {
        self.primitives()
            .fold((0, 0, 0), |(p, f, s), x| match x.verdict {
                Verdict::Pass => (p + 1, f, s),
                Verdict::Fail => (p, f + 1, s),
                Verdict::Skip => (p, f, s + 1),
            })
    }

    /// The report as JSON: schemas → primitives → tests (without the response data).
    pub fn to_json(&self) -> Value {
        let (pass, fail, skip) = self.counts();
        let schemas: Vec<Value> = self
            .schemas
            .iter()
            .map(|s| {
                let primitives: Vec<Value> = s
                    .primitives
                    .iter()
                    .map(|p| {
                        let tests: Vec<Value> = p.tests.iter().map(test_json).collect();
                        json!({
                            "id": p.id, "route": p.route, "kind": p.kind,
                            "verdict": p.verdict.as_str(), "reason": p.reason, "tests": tests,
                        })
                    })
                    .collect();
                json!({"file": s.file, "namespace": s.namespace, "primitives": primitives})
            })
            .collect();
        json!({"pass": pass, "fail": fail, "skip": skip, "schemas": schemas})
    }
}

fn test_json(t: &TestResult) -> Value {
    let mut v = json!({"index": t.index, "description": t.description, "params": t.params});
    if let Some(o) = &t.outcome {
        v["passed"] = json!(o.passed);
        v["code"] = json!(o.code);
        v["messages"] = json!(o.messages);
        v["mismatches"] = json!(o.mismatches);
        v["millis"] = json!(o.millis);
        v["bytes"] = json!(o.bytes);
    }
    v
}

/// `main` of the schema file at `path` as it is on disk now (for an agent manifest, the schema of
/// its inline tools and resources).
fn read_main(catalog: &Catalog, path: &Path, display: &str) -> Result<Value, String> {
    let v = &catalog.options.validation;
    let mut loaded = load_file(path, display, &v.limits, &v.settings);
    if loaded.kind == FileKind::Agent {
        let schema = loaded
            .exports
            .as_ref()
            .and_then(|e| e.get("agent"))
            .and_then(flowmcp_validate::inline::inline_schema)
            .and_then(Result::ok)
            .ok_or_else(|| "its inline tools cannot be read again".to_string())?;
        loaded = flowmcp_validate::inline::load_inline(display, &schema);
    }
    loaded
        .exports
        .as_mut()
        .and_then(|e| e.data.shift_remove("main"))
        .ok_or_else(|| "it cannot be read again (changed since the catalog was opened?)".into())
}

/// The definition of `entry` in `main`: the tool, or the resource query.
fn definition_of<'m>(main: &'m Value, entry: &ToolEntry) -> Option<&'m Value> {
    let d = &entry.descriptor;
    let def = match &d.kind {
        Kind::Tool => main.get("tools")?.get(&d.tool)?,
        Kind::Query {
            resource,
            builtin: None,
        } => main
            .get("resources")?
            .get(resource)?
            .get("queries")?
            .get(&d.tool)?,
        _ => return None,
    };
    Some(def)
}

/// The route name chapter 10's capture uses: the tool's key, or `resource.query`.
/// Calls one test and judges it.
fn run_one(caller: &Caller<'_>, entry: &ToolEntry, params: &Map<String, Value>) -> TestOutcome {
    let timestamp = rfc3339(SystemTime::now());
    let started = Instant::now();
    let envelope = caller.call_entry_json(entry, params);
    let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    // The runtime checks the data against `output.schema` (its warnings name each mismatch).
    let mismatches: Vec<String> = envelope
        .warnings()
        .iter()
        .filter(|w| flowmcp_runtime::output::is_output_mismatch(w))
        .cloned()
        .collect();
    let code = envelope.code();
    TestOutcome {
        passed: envelope.status() && mismatches.is_empty(),
        status: envelope.status(),
        code,
        bytes: if envelope.status() {
            envelope.data().to_string().len()
        } else {
            0
        },
        messages: envelope.messages().to_vec(),
        mismatches,
        millis,
        timestamp,
        data: envelope.into_data(),
    }
}

impl TestOutcome {
    /// A test that could not be called, and why.
    fn not_run(why: &str) -> TestOutcome {
        TestOutcome {
            passed: false,
            status: false,
            code: None,
            messages: vec![why.to_string()],
            mismatches: Vec::new(),
            millis: 0,
            bytes: 0,
            timestamp: rfc3339(SystemTime::now()),
            data: Value::Null,
        }
    }
}

/// Scratch databases for the writable resources under test, in a temporary folder of their own
/// (removed when dropped), with the caller that uses them.
struct Scratch<'c> {
    catalog: &'c Catalog,
    dir: PathBuf,
    places: flowmcp_runtime::ResourceOptions,
    caller: std::cell::OnceCell<Caller<'c>>,
    /// Resource ID → whether its scratch database was built (or why not).
    built: std::cell::RefCell<BTreeMap<String, Result<(), String>>>,
}

impl<'c> Scratch<'c> {
    fn new(catalog: &'c Catalog) -> Scratch<'c> {
        static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("flowmcp-test-db-{}-{n}", std::process::id()));
        let mut places = catalog.runner().resources.clone();
        places.project_base = Some(dir.join("project"));
        places.home = Some(dir.join("home"));
        Scratch {
            catalog,
            dir,
            places,
            caller: std::cell::OnceCell::new(),
            built: std::cell::RefCell::default(),
        }
    }

    /// The caller for `entry` when it is a query of a writable resource (its scratch database
    /// built first), or why it cannot run; `None` for everything else.
    fn caller_for(&self, entry: &ToolEntry) -> Option<Result<&Caller<'c>, String>> {
        let Kind::Query { .. } = entry.descriptor.kind else {
            return None;
        };
        let id = entry.descriptor.id.to_string();
        let file = self
            .catalog
            .toolset()
            .database_file(&id, &self.places)
            .ok()?;
        if !file.writable {
            return None;
        }
        let mut built = self.built.borrow_mut();
        let state = built.entry(id).or_insert_with(|| {
            let sql_file = file.schema_sql.as_ref().ok_or_else(|| {
                "no schema SQL (resources/<name>.sql) to build a scratch database from".to_string()
            })?;
            file.build_from(sql_file)
                .map_err(|e| format!("the scratch database cannot be built: {e}"))
        });
        if let Err(why) = state {
            return Some(Err(why.clone()));
        }
        drop(built);
        Some(Ok(self.caller.get_or_init(|| {
            self.catalog.caller_without_cache(Some(self.places.clone()))
        })))
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        // Only the folder this run made, and only when it made one.
        if !self.built.borrow().is_empty() {
            let _ = flowmcp_files::named::remove_dir_all(&self.dir);
        }
    }
}

/// Why a primitive none of whose tests passed failed: the first failing test's reason.
fn failure_reason(tests: &[TestResult]) -> String {
    let Some((t, o)) = tests
        .iter()
        .find_map(|t| t.outcome.as_ref().filter(|o| !o.passed).map(|o| (t, o)))
    else {
        return "no tests".to_string();
    };
    let why = match (o.messages.first(), o.mismatches.first()) {
        (Some(m), _) => m.clone(),
        (None, Some(m)) => format!("the data does not match output.schema: {m}"),
        (None, None) => "failed".to_string(),
    };
    let others = tests.len().saturating_sub(1);
    if others == 0 {
        format!("test {}: {why}", t.index)
    } else {
        format!("no test passed; test {}: {why}", t.index)
    }
}

impl Catalog {
    /// Runs the tests of the tools and resource queries `wanted` selects (the `runSql` and
    /// `describeTables` queries the runtime adds have none), schema by schema. `progress` hears of
    /// each test as it ends. A primitive whose server parameters have no value is skipped.
    pub fn run_tests(
        &self,
        wanted: &dyn Fn(&ToolEntry) -> bool,
        opts: &TestOptions,
        progress: &mut dyn FnMut(&str),
    ) -> TestReport {
        let mut groups: BTreeMap<usize, Vec<&ToolEntry>> = BTreeMap::new();
        for e in self.list() {
            let testable = matches!(
                e.descriptor.kind,
                Kind::Tool | Kind::Query { builtin: None, .. }
            );
            if testable && wanted(e) {
                groups.entry(e.schema).or_default().push(e);
            }
        }
        let caller = self.caller_without_cache(None);
        let scratch = Scratch::new(self);
        let mut called_remote = false;
        let mut report = TestReport::default();
        for entries in groups.values() {
            let Some(first) = entries.first() else {
                continue;
            };
            let schema = self.toolset().schema_of(first);
            let main = read_main(self, &schema.path, &schema.display);
            let mut primitives = Vec::new();
            for entry in entries {
                let d = &entry.descriptor;
                let remote = d.kind == Kind::Tool;
                let mut p = PrimitiveTests {
                    id: d.lookup_key(),
                    route: entry.descriptor.label(),
                    kind: if remote { "tool" } else { "query" },
                    remote,
                    verdict: Verdict::Skip,
                    reason: None,
                    tests: Vec::new(),
                    written_output: None,
                };
                let def = main.as_ref().ok().and_then(|m| definition_of(m, entry));
                p.written_output = def.and_then(|d| d.get("output")).cloned();
                let tests = match &main {
                    Ok(_) => def
                        .and_then(|d| d.get("tests"))
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                    Err(why) => {
                        p.verdict = Verdict::Fail;
                        p.reason = Some(format!("{}: {why}", schema.display));
                        primitives.push(p);
                        continue;
                    }
                };
                for (index, t) in tests.iter().enumerate() {
                    let mut params = t.as_object().cloned().unwrap_or_default();
                    let description = params
                        .shift_remove("_description")
                        .and_then(|d| d.as_str().map(str::to_string))
                        .unwrap_or_default();
                    p.tests.push(TestResult {
                        index,
                        description,
                        params,
                        outcome: None,
                    });
                }
                if !d.is_exposed() {
                    p.reason = Some(format!(
                        "needs {} (no value set)",
                        d.missing_server_params.join(", ")
                    ));
                } else if !opts.calls {
                    p.reason = Some("not called (static)".into());
                } else if p.tests.is_empty() {
                    p.verdict = Verdict::Fail;
                    p.reason = Some("no tests".into());
                } else {
                    for t in &mut p.tests {
                        if remote {
                            if called_remote && !opts.delay.is_zero() {
                                std::thread::sleep(opts.delay);
                            }
                            called_remote = true;
                        }
                        let outcome = match scratch.caller_for(entry) {
                            Some(Ok(c)) => run_one(c, entry, &t.params),
                            Some(Err(why)) => TestOutcome::not_run(&why),
                            None => run_one(&caller, entry, &t.params),
                        };
                        progress(&format!(
                            "{} test {}: {}",
                            p.id,
                            t.index,
                            if outcome.passed { "ok" } else { "failed" }
                        ));
                        t.outcome = Some(outcome);
                    }
                    let any = p
                        .tests
                        .iter()
                        .any(|t| t.outcome.as_ref().is_some_and(|o| o.passed));
                    // A resource whose database is not there yet (RES020: create it first) is not
                    // a failure of the schema.
                    let no_database = p.tests.iter().all(|t| {
                        t.outcome
                            .as_ref()
                            .is_some_and(|o| o.code == Some(Code::RES020))
                    });
                    if any {
                        p.verdict = Verdict::Pass;
                    } else if no_database {
                        p.reason = p
                            .tests
                            .first()
                            .and_then(|t| t.outcome.as_ref())
                            .and_then(|o| o.messages.first().cloned());
                    } else {
                        p.verdict = Verdict::Fail;
                        p.reason = Some(failure_reason(&p.tests));
                    }
                }
                primitives.push(p);
            }
            report.schemas.push(SchemaTests {
                file: schema.display.clone(),
                path: schema.path.clone(),
                namespace: schema.main.namespace.clone(),
                primitives,
            });
        }
        report
    }
}

impl TestReport {
    /// The files a capture (chapter 10, "Capture Mode") of this report writes under `dir`, with
    /// their JSON: `{stamp}/{namespace}/{route}-{i}.json` for each test that was called — the
    /// chapter's record (`namespace`, `routeName`, `testIndex`, `_description`, `userParams`,
    /// `responseTime`, `timestamp`, `response`) — and `{stamp}/{namespace}/metrics.json` with the
    /// namespace's counts, timings, sizes and codes. `stamp` names the run (a timestamp).
    ///
    /// The namespace and the route come from the catalog, so each becomes one path component
    /// through [`flowmcp_spec::paths::encode_name`] (a route `../x` is the file `%2E%2E%2Fx-0.json`),
    /// and every path is checked to lie inside `dir` with symbolic links followed
    /// ([`flowmcp_files::Root`]); a link that leads out is an error.
    /// Writes the files [`TestReport::capture_files`] names (pretty JSON with a final newline),
    /// each created new through the directory handle of `dir/stamp`
    /// ([`flowmcp_files::Root`]): nothing is written through a symbolic link or over
    /// an existing file. Returns the paths written.
    pub fn write_captures(&self, dir: &Path, stamp: &str) -> Result<Vec<PathBuf>, CatalogError> {
        let root = Root::new(dir.join(stamp));
        let base = root.resolve_plain(Path::new(""))?;
        let mut written = Vec::new();
        for (path, value) in self.capture_files(dir, stamp)? {
            let relative = path.strip_prefix(&base).map_err(|_| {
                CatalogError::Entry(format!(
                    "{} is not inside the capture directory",
                    path.display()
                ))
            })?;
            let mut text = serde_json::to_string_pretty(&value)
                .map_err(|e| CatalogError::Entry(format!("{}: {e}", path.display())))?;
            text.push('\n');
            root.write_new(relative, text.as_bytes())?;
            written.push(path);
        }
        Ok(written)
    }

    pub fn capture_files(
        &self,
        dir: &Path,
        stamp: &str,
    ) -> Result<Vec<(PathBuf, Value)>, CatalogError> {
        // The stamp is ours; the names under it come from the catalog.
        let root = Root::new(dir.join(stamp));
        let mut files = Vec::new();
        let mut metrics: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
        for s in &self.schemas {
            let ns_dir = root.join_names([s.namespace.as_str()])?;
            for p in &s.primitives {
                let mut tests = Vec::new();
                for t in &p.tests {
                    let Some(o) = &t.outcome else { continue };
                    let record = json!({
                        "namespace": s.namespace,
                        "routeName": p.route,
                        "testIndex": t.index,
                        "_description": t.description,
                        "userParams": t.params,
                        "responseTime": o.millis,
                        "timestamp": o.timestamp,
                        "response": {"status": o.status, "messages": o.messages, "data": o.data},
                        "outputMismatches": o.mismatches,
                    });
                    let file = format!("{}-{}.json", encode_name(&p.route), t.index);
                    files.push((root.inside(&ns_dir.join(file))?, record));
                    tests.push(json!({
                        "index": t.index, "passed": o.passed, "code": o.code,
                        "millis": o.millis, "bytes": o.bytes, "mismatches": o.mismatches.len(),
                    }));
                }
                if !tests.is_empty() {
                    metrics
                        .entry(s.namespace.as_str())
                        .or_default()
                        .push(json!({
                            "routeName": p.route, "file": s.file, "verdict": p.verdict.as_str(),
                            "tests": tests,
                        }));
                }
            }
        }
        for (ns, routes) in metrics {
            let all = routes
                .iter()
                .flat_map(|r| r["tests"].as_array().cloned().unwrap_or_default());
            let (mut calls, mut passed, mut millis, mut bytes) = (0u64, 0u64, 0u64, 0u64);
            let mut codes: BTreeMap<String, u64> = BTreeMap::new();
            for t in all {
                calls += 1;
                passed += u64::from(t["passed"] == json!(true));
                millis += t["millis"].as_u64().unwrap_or(0);
                bytes += t["bytes"].as_u64().unwrap_or(0);
                if let Some(c) = t["code"].as_str() {
                    *codes.entry(c.to_string()).or_default() += 1;
                }
            }
            let summary = json!({
                "namespace": ns, "stamp": stamp, "calls": calls, "passed": passed,
                "failed": calls - passed, "totalMillis": millis, "totalBytes": bytes,
                "errorCodes": codes, "routes": routes,
            });
            let file = root.join_names([ns])?.join("metrics.json");
            files.push((root.inside(&file)?, summary));
        }
        Ok(files)
    }
}
