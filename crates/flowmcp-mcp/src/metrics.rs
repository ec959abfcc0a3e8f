//! What the HTTP server counts and answers at `GET /metrics` ([`Metrics`]), in the OpenMetrics
//! text format that Prometheus scrapes, written by `prometheus-client` (the `metrics` feature).
//!
//! Counting is cheap: a counter is an atomic add; a labelled family takes a shared read lock to
//! find its series (a write lock only the first time a label set appears); a histogram takes its
//! own short lock. Labels hold only names the server chose: the route's path, a served tool's
//! Primitive-ID (`unknown` for a name the endpoint does not serve, which came from the client),
//! the outcome code and status classes. Never an argument value, a header or a secret.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use flowmcp_catalog::runtime::Observer;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};

use crate::request::current_request_id;

/// The content type of [`Metrics::encode`]'s text.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The labels of a tool call: the endpoint's path, the tool's Primitive-ID and the outcome
/// (`ok`, or the code of the failure).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    route: Name,
    tool: Name,
    outcome: Cow<'static, str>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: Name,
}

/// A label value shared without copying (a route's path, a tool's ID); the encoder escapes it.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Name(Arc<str>);

impl EncodeLabelValue for Name {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> std::fmt::Result {
        encoder.write_str(&self.0)
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClassLabel {
    class: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabel {
    event: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

/// Buckets from 1 ms to about 65 s, doubling: tool calls and upstream requests alike.
fn seconds_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// Everything one server counts (only with the `metrics` feature, on by default). Cheap to clone
/// (one `Arc`); every endpoint of a listener and
/// every runner of its catalog share one (give it to the catalog's runner options as their
/// [`Observer`], and to [`HttpOptions::metrics`](crate::HttpOptions::metrics)).
///
/// The families (OpenMetrics names):
/// `flowmcp_tool_calls_total{route,tool,outcome}`,
/// `flowmcp_tool_call_duration_seconds{route}` (the whole call as the server saw it),
/// `flowmcp_upstream_request_duration_seconds` (the tool's own upstream request),
/// `flowmcp_upstream_responses_total{class}` (`2xx`…`5xx`, `error` when none arrived),
/// `flowmcp_preload_cache_lookups_total{result}` (`hit`, `miss`),
/// `flowmcp_tasks_total{event}` (MCP tasks `created`, `completed`, `failed`, `cancelled`,
/// `expired`),
/// `flowmcp_sandbox_rebuilds_total`, `flowmcp_open_connections`, `flowmcp_inflight_requests`,
/// `flowmcp_draining`, `flowmcp_catalog_reloads_total`, `flowmcp_catalog_reload_failures_total`,
/// `flowmcp_catalog_generation` (1, plus one per reload that changed something) and
/// `flowmcp_build_info{version}`.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    call_seconds: Family<RouteLabel, Histogram, fn() -> Histogram>,
    upstream_seconds: Histogram,
    upstream: Family<ClassLabel, Counter>,
    cache: Family<ResultLabel, Counter>,
    tasks: Family<EventLabel, Counter>,
    sandbox_rebuilds: Counter,
    connections: Gauge,
    inflight: Gauge,
    draining: Gauge,
    reloads: Counter,
    reload_failures: Counter,
    generation: Gauge,
}

/// The MCP task events counted, each shown from the start (at 0).
const TASK_EVENTS: [&str; 5] = ["created", "completed", "failed", "cancelled", "expired"];

/// The status classes of [`Observer::upstream`], each shown from the start (at 0).
const CLASSES: [&str; 7] = ["1xx", "2xx", "3xx", "4xx", "5xx", "other", "error"];

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A new set of metrics, all at zero (the catalog generation at 1).
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "flowmcp_tool_calls",
            "Tool calls by route, tool ID and outcome (ok or the error code)",
            calls.clone(),
        );
        let call_seconds: Family<RouteLabel, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(seconds_histogram);
        registry.register_with_unit(
            "flowmcp_tool_call_duration",
            "How long tool calls took, as the server saw them (queue, handlers, upstream)",
            Unit::Seconds,
            call_seconds.clone(),
        );
        let upstream_seconds = seconds_histogram();
        registry.register_with_unit(
            "flowmcp_upstream_request_duration",
            "How long the tools' upstream requests took, until the answer or the failure",
            Unit::Seconds,
            upstream_seconds.clone(),
        );
        let upstream = Family::<ClassLabel, Counter>::default();
        registry.register(
            "flowmcp_upstream_responses",
            "Upstream answers by status class (error: no answer arrived)",
            upstream.clone(),
        );
        let cache = Family::<ResultLabel, Counter>::default();
        registry.register(
            "flowmcp_preload_cache_lookups",
            "Preload cache lookups: hit (served from the cache) or miss (fetched)",
            cache.clone(),
        );
        let tasks = Family::<EventLabel, Counter>::default();
        registry.register(
            "flowmcp_tasks",
            "MCP tasks (task-augmented tool calls) by event: created, completed, failed, \
             cancelled, expired",
            tasks.clone(),
        );
        for event in TASK_EVENTS {
            let _ = tasks.get_or_create(&EventLabel { event });
        }
        let sandbox_rebuilds = Counter::default();
        registry.register(
            "flowmcp_sandbox_rebuilds",
            "Handler sandboxes thrown away after hitting a limit and built again",
            sandbox_rebuilds.clone(),
        );
        let connections = Gauge::default();
        registry.register(
            "flowmcp_open_connections",
            "HTTP connections open now",
            connections.clone(),
        );
        let inflight = Gauge::default();
        registry.register(
            "flowmcp_inflight_requests",
            "MCP requests being answered now",
            inflight.clone(),
        );
        let draining = Gauge::default();
        registry.register(
            "flowmcp_draining",
            "1 while the server drains after SIGTERM or SIGINT (readyz answers 503)",
            draining.clone(),
        );
        let reloads = Counter::default();
        registry.register(
            "flowmcp_catalog_reloads",
            "Catalog reloads in watch mode that changed what is served",
            reloads.clone(),
        );
        let reload_failures = Counter::default();
        registry.register(
            "flowmcp_catalog_reload_failures",
            "Catalog reloads in watch mode that failed (the previous catalog stays)",
            reload_failures.clone(),
        );
        // The small label sets are shown from the start, at 0.
        for class in CLASSES {
            let _ = upstream.get_or_create(&ClassLabel { class });
        }
        for result in ["hit", "miss"] {
            let _ = cache.get_or_create(&ResultLabel { result });
        }
        let generation = Gauge::default();
        generation.set(1);
        registry.register(
            "flowmcp_catalog_generation",
            "The version of the catalog served: 1 at start, plus one per reload that changed it",
            generation.clone(),
        );
        registry.register(
            "flowmcp_build",
            "The flowmcp build",
            Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]),
        );
        Metrics {
            inner: Arc::new(Inner {
                registry,
                calls,
                call_seconds,
                upstream_seconds,
                upstream,
                cache,
                tasks,
                sandbox_rebuilds,
                connections,
                inflight,
                draining,
                reloads,
                reload_failures,
                generation,
            }),
        }
    }

    /// The metrics in the OpenMetrics text format (which Prometheus scrapes).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        if prometheus_client::encoding::text::encode(&mut text, &self.inner.registry).is_err() {
            text.clear();
            let _ = writeln!(text, "# EOF");
        }
        text
    }

    /// Counts one MCP task event (one of [`TASK_EVENTS`]).
    pub(crate) fn task(&self, event: &'static str) {
        self.inner.tasks.get_or_create(&EventLabel { event }).inc();
    }

    /// Counts one tool call of `tool` (its Primitive-ID) at `route`, ending with `outcome`
    /// (`None`: it succeeded; else its code), that took `took`.
    pub(crate) fn call(
        &self,
        route: &Arc<str>,
        tool: &Arc<str>,
        outcome: Option<&'static str>,
        took: Duration,
    ) {
        let labels = CallLabels {
            route: Name(Arc::clone(route)),
            tool: Name(Arc::clone(tool)),
            outcome: Cow::Borrowed(outcome.unwrap_or("ok")),
        };
        self.inner.calls.get_or_create(&labels).inc();
        self.inner
            .call_seconds
            .get_or_create(&RouteLabel {
                route: Name(Arc::clone(route)),
            })
            .observe(took.as_secs_f64());
    }

    /// The open-connections gauge, raised now and lowered when the guard goes.
    pub(crate) fn connection(&self) -> GaugeGuard {
        GaugeGuard::new(&self.inner.connections)
    }

    /// The in-flight gauge, raised now and lowered when the guard goes.
    pub(crate) fn inflight(&self) -> GaugeGuard {
        GaugeGuard::new(&self.inner.inflight)
    }

    /// The server started draining.
    pub(crate) fn draining(&self) {
        self.inner.draining.set(1);
    }

    /// A reload in watch mode: it changed something (`true`) or failed (`false`).
    pub(crate) fn reloaded(&self, changed: bool) {
        if changed {
            self.inner.reloads.inc();
            self.inner.generation.inc();
        } else {
            self.inner.reload_failures.inc();
        }
    }
}

/// Lowers its gauge when dropped.
pub(crate) struct GaugeGuard(Gauge);

impl GaugeGuard {
    fn new(g: &Gauge) -> GaugeGuard {
        g.inc();
        GaugeGuard(g.clone())
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Observer for Metrics {
    fn upstream(&self, status: Option<u16>, elapsed: Duration) {
        self.inner.upstream_seconds.observe(elapsed.as_secs_f64());
        let class = match status {
            Some(s @ 100..=599) => CLASSES[usize::from(s / 100) - 1],
            Some(_) => "other",
            None => "error",
        };
        self.inner
            .upstream
            .get_or_create(&ClassLabel { class })
            .inc();
    }

    fn preload_cache(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" };
        self.inner
            .cache
            .get_or_create(&ResultLabel { result })
            .inc();
    }

    fn sandbox_rebuilt(&self) {
        self.inner.sandbox_rebuilds.inc();
    }

    fn request_id(&self) -> Option<String> {
        current_request_id()
    }
}
