//! Several MCP endpoints on one listener: each route serves what its selector names (tools,
//! resource queries, documents, and its namespaces' prompts and skills) and accepts only its own
//! token, unknown paths get 404, and the listener-wide checks hold on every route: the bearer
//! scheme in any case, header and body deadlines, the connection cap, and no open endpoint off
//! loopback unless asked for.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

/// The runtime's test helpers (a local HTTP server, reading a connection until it closes).
use crate::runtime_support;
use crate::support;

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::{Map, Value, from_str, json};
use flowmcp_mcp::{
    Endpoints, HttpError, HttpOptions, McpServer, Route, RouteError, ServeError, ServeOptions,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, GetPromptRequestParams, ReadResourceRequestParams,
};
use runtime_support::read_until_closed;
use support::{bearer, catalog, get, initialize, post, start, tool_names, try_post};

fn route(spec: &str, token: Option<&str>) -> Route {
    Route {
        auth_token: token.map(str::to_string),
        ..Route::parse(spec).unwrap()
    }
}

#[test]
fn two_routes_serve_their_own_tools_and_accept_only_their_own_token() {
    let catalog = catalog();
    let routes = [
        route("/holidays=holidaykit-net", Some("token-holidays")),
        route(
            "/weather=skycast-io/tool/getDailyForecast,getCurrentConditions_skycast-io",
            Some("token-weather"),
        ),
    ];
    let endpoints = Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap();
    let listed: Vec<(&str, usize)> = endpoints
        .iter()
        .map(|(p, s)| (p, s.tools().len()))
        .collect();
    assert_eq!(listed, [("/holidays", 4), ("/weather", 2)]);
    let server = start(endpoints, HttpOptions::default()).unwrap();
    let holidays = format!("{}/holidays", server.base);
    let weather = format!("{}/weather", server.base);
    let (k, v) = bearer("token-holidays");
    let holiday_auth = [(k, v.as_str())];
    let (k, v) = bearer("token-weather");
    let weather_auth = [(k, v.as_str())];

    assert_eq!(
        tool_names(&holidays, &holiday_auth),
        [
            "checkWorkingDay_holidaykit-net",
            "getNextHolidays_holidaykit-net",
            "getPublicHolidays_holidaykit-net",
            "listCountries_holidaykit-net"
        ]
    );
    assert_eq!(
        tool_names(&weather, &weather_auth),
        [
            "getCurrentConditions_skycast-io",
            "getDailyForecast_skycast-io"
        ]
    );

    // Each route refuses the other's token, and no token at all.
    for (url, wrong) in [(&holidays, &weather_auth), (&weather, &holiday_auth)] {
        let a = post(url, wrong, &initialize());
        assert_eq!(a.status, 401, "{url}: {}", a.body);
        assert_eq!(a.challenge.as_deref(), Some("Bearer"));
        assert!(!a.body.contains("serverInfo"));
        assert_eq!(post(url, &[], &initialize()).status, 401, "{url}");
    }

    // A tool of the other route is not callable here.
    let call = post(
        &holidays,
        &[holiday_auth[0], ("MCP-Protocol-Version", "2025-06-18")],
        &flowmcp_catalog::serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "getDailyForecast_skycast-io", "arguments": {}}}),
    );
    assert_eq!(call.status, 200, "{}", call.body);
    assert!(call.body.contains("\"isError\":true"), "{}", call.body);

    // Unknown paths, the default path (no route there) and a trailing slash are not endpoints.
    for path in [
        "/mcp",
        "/holidays/",
        "/nothing",
        "/.well-known/oauth-protected-resource",
    ] {
        let a = post(
            &format!("{}{path}", server.base),
            &holiday_auth,
            &initialize(),
        );
        assert_eq!(a.status, 404, "{path}");
    }
    assert_eq!(get(&format!("{}/healthz", server.base)).status, 200);

    // The Origin check holds on every route.
    let a = post(
        &weather,
        &[weather_auth[0], ("Origin", "https://evil.example")],
        &initialize(),
    );
    assert_eq!(a.status, 403, "{}", a.body);
    let own = server.base.clone();
    let a = post(
        &weather,
        &[weather_auth[0], ("Origin", &own)],
        &initialize(),
    );
    assert_eq!(a.status, 200, "{}", a.body);
}

#[test]
fn a_route_without_a_token_of_its_own_takes_the_global_one() {
    let catalog = catalog();
    let routes = [
        route("/open=holidaykit-net", None),
        route("/own=skycast-io", Some("route-token")),
    ];
    let endpoints = Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap();
    let server = start(endpoints, {
        let mut built = HttpOptions::default();
        built.auth_token = Some("global-token".into());
        built
    })
    .unwrap();
    let open = format!("{}/open", server.base);
    let own = format!("{}/own", server.base);
    let (k, global) = bearer("global-token");
    let (_, route_token) = bearer("route-token");
    assert_eq!(post(&open, &[(k, &global)], &initialize()).status, 200);
    assert_eq!(post(&open, &[(k, &route_token)], &initialize()).status, 401);
    assert_eq!(post(&own, &[(k, &route_token)], &initialize()).status, 200);
    // The route's token replaces the global one there.
    assert_eq!(post(&own, &[(k, &global)], &initialize()).status, 401);
}

#[test]
fn without_routes_the_catalog_is_served_at_mcp_with_the_global_token() {
    let catalog = catalog();
    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    assert_eq!(
        endpoints.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        ["/mcp"]
    );
    let server = start(endpoints, {
        let mut built = HttpOptions::default();
        built.auth_token = Some("global-token".into());
        built
    })
    .unwrap();
    let mcp = format!("{}/mcp", server.base);
    let (k, v) = bearer("global-token");
    let names = tool_names(&mcp, &[(k, &v)]);
    // 11 tools and 10 resource entries of the example catalog.
    assert_eq!(names.len(), 21, "{names:?}");
    assert_eq!(post(&mcp, &[], &initialize()).status, 401);
}

#[test]
fn routes_that_cannot_be_served_are_errors() {
    let catalog = catalog();
    let err =
        |routes: &[Route], opts: &ServeOptions| match Endpoints::routes(&catalog, routes, opts) {
            Err(HttpError::Route(e)) => e,
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => panic!("{routes:?} were accepted"),
        };
    let plain = ServeOptions::default();
    assert_eq!(
        err(&[route("/a=nothing-here", None)], &plain),
        RouteError::EmptyNamespace("nothing-here".into())
    );
    assert_eq!(
        err(&[route("/a=noSuchTool_holidaykit-net", None)], &plain),
        RouteError::UnknownTool("noSuchTool_holidaykit-net".into())
    );
    assert_eq!(
        err(
            &[
                route("/a=holidaykit-net", None),
                route("/a=skycast-io", None)
            ],
            &plain
        ),
        RouteError::DuplicatePath("/a".into())
    );
    let only = {
        let mut built = ServeOptions::default();
        built.only = vec!["listCountries_holidaykit-net".into()];
        built
    };
    assert_eq!(
        err(&[route("/a=holidaykit-net", None)], &only),
        RouteError::OnlyWithRoutes
    );
    // A path built by hand is checked too.
    let by_hand = Route {
        path: "/healthz".into(),
        ..route("/a=holidaykit-net", None)
    };
    assert!(matches!(
        err(&[by_hand], &plain),
        RouteError::BadPath { .. }
    ));
    // Selection IDs are recognised and refused with a clear message.
    let e = Route::parse("/a=demo/selection/travel").unwrap_err();
    assert_eq!(
        e,
        RouteError::SelectionUnsupported("demo/selection/travel".into())
    );
    assert!(e.to_string().contains("not supported yet"));
}

/// The example catalog without any server parameter: the openshelf-org and skycast-io tools wait
/// for OPENSHELF_API_KEY and SKYCAST_API_KEY.
fn bare_catalog() -> std::sync::Arc<flowmcp_catalog::Catalog> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut opts = flowmcp_catalog::CatalogOptions::new(flowmcp_catalog::Profile::Spec);
    opts.env_override = Some(Default::default());
    std::sync::Arc::new(flowmcp_catalog::Catalog::open(&dir, &opts).unwrap())
}

/// Also issue 28, item 7g: a member whose tools all wait for a server parameter says which one
/// (it used to say that the namespace or tool is not in the catalog).
#[test]
fn a_namespace_route_serves_only_exposed_tools() {
    // Without OPENSHELF_API_KEY the openshelf-org tools are hidden: the namespace has nothing to
    // serve, and naming one of its tools is an error, not an empty (= everything) route.
    let bare = bare_catalog();
    let e = Endpoints::routes(
        &bare,
        &[route("/b=openshelf-org", None)],
        &ServeOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, HttpError::Route(_)), "{e}");
    assert!(
        e.to_string()
            .contains("selector member openshelf-org: not served until OPENSHELF_API_KEY is set"),
        "{e}"
    );
    let e = Endpoints::routes(
        &bare,
        &[route("/b=openshelf-org/tool/getBook", None)],
        &ServeOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, HttpError::Route(_)), "{e}");
    assert!(
        e.to_string().contains(
            "selector member openshelf-org/tool/getBook: not served until OPENSHELF_API_KEY is set"
        ),
        "{e}"
    );
    // A member that is not in the catalog at all still says so.
    let e = Endpoints::routes(
        &bare,
        &[route("/b=nowhere-org", None)],
        &ServeOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, HttpError::Route(RouteError::EmptyNamespace(_))),
        "{e}"
    );
    // The namespace with exposed tools still resolves.
    let ok = Endpoints::routes(
        &bare,
        &[route("/h=holidaykit-net", None)],
        &ServeOptions::default(),
    )
    .unwrap();
    assert_eq!(ok.iter().map(|(_, s)| s.tools().len()).sum::<usize>(), 4);
}

/// What one endpoint serves, as a client sees it: its tools, prompts and resources (sorted), and
/// whether the guide document can be read and the `about` prompt rendered there.
#[derive(Debug, PartialEq)]
struct Seen {
    tools: Vec<String>,
    prompts: Vec<String>,
    resources: Vec<String>,
    reads_guide: bool,
    renders_about: bool,
}

fn seen(server: McpServer) -> Seen {
    support::with_client(server, (), async |client| {
        let mut tools: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        tools.sort();
        let mut prompts: Vec<String> = client
            .list_all_prompts()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        prompts.sort();
        let mut resources: Vec<String> = client
            .list_all_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.uri.clone())
            .collect();
        resources.sort();
        let reads_guide = client
            .read_resource(ReadResourceRequestParams::new(
                "flowmcp://atlasdata-org/resource/guide",
            ))
            .await
            .is_ok();
        let renders_about = client
            .get_prompt(
                GetPromptRequestParams::new("holidaykit-net/prompt/about")
                    .with_arguments(Map::new()),
            )
            .await
            .is_ok();
        Seen {
            tools,
            prompts,
            resources,
            reads_guide,
            renders_about,
        }
    })
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Item 09: a route serves its own prompts, skills and resources, not every route's; a route may
/// select a resource-only namespace, a SQLite resource (its queries) or one query.
#[test]
fn item09_each_route_serves_only_its_own_prompts_skills_and_resources() {
    let catalog = catalog();
    let routes = [
        route("/holidays=holidaykit-net", None),
        route("/atlas=atlasdata-org", None),
        route("/db=atlasdata-org/resource/countries", None),
        route("/one=atlasdata-org/resource/countries.byCode", None),
    ];
    let endpoints = Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap();
    let servers: Vec<(String, McpServer)> = endpoints
        .iter()
        .map(|(p, s)| (p.to_string(), s.clone()))
        .collect();
    let queries = [
        "byCode_atlasdata-org",
        "byContinent_atlasdata-org",
        "describeTables_atlasdata-org",
        "runSql_atlasdata-org",
    ];
    let guide = "flowmcp://atlasdata-org/resource/guide";
    for (path, server) in servers {
        let got = seen(server);
        let want = match path.as_str() {
            "/holidays" => Seen {
                tools: strings(&[
                    "checkWorkingDay_holidaykit-net",
                    "getNextHolidays_holidaykit-net",
                    "getPublicHolidays_holidaykit-net",
                    "listCountries_holidaykit-net",
                ]),
                prompts: strings(&[
                    "holidaykit-net/prompt/about",
                    "holidaykit-net/prompt/bridge-days",
                    "holidaykit-net/skill/plan-long-weekends",
                ]),
                resources: vec![],
                reads_guide: false,
                renders_about: true,
            },
            "/atlas" => Seen {
                tools: {
                    let mut t = strings(&queries);
                    t.push("guide_atlasdata-org".into());
                    t.sort();
                    t
                },
                prompts: vec![],
                resources: strings(&[guide]),
                reads_guide: true,
                renders_about: false,
            },
            "/db" => Seen {
                tools: strings(&queries),
                prompts: vec![],
                resources: vec![],
                reads_guide: false,
                renders_about: false,
            },
            "/one" => Seen {
                tools: strings(&["byCode_atlasdata-org"]),
                prompts: vec![],
                resources: vec![],
                reads_guide: false,
                renders_about: false,
            },
            other => panic!("unexpected endpoint {other}"),
        };
        assert_eq!(got, want, "{path}");
    }
}

/// Item 09: `only` narrows prompts, skills and resources with the tools, and may name a
/// namespace as a route's selector does.
#[test]
fn item09_only_narrows_prompts_skills_and_resources_too() {
    let catalog = catalog();
    let only = |names: &[&str]| {
        let mut built = ServeOptions::default();
        built.only = strings(names);
        built
    };
    let one_tool = McpServer::shared(
        catalog.clone(),
        &only(&["getPublicHolidays_holidaykit-net"]),
    )
    .unwrap();
    let got = seen(one_tool);
    assert_eq!(
        got,
        Seen {
            tools: strings(&["getPublicHolidays_holidaykit-net"]),
            prompts: vec![],
            resources: vec![],
            reads_guide: false,
            renders_about: false,
        }
    );
    let atlas = McpServer::shared(catalog.clone(), &only(&["atlasdata-org"])).unwrap();
    let got = seen(atlas);
    assert_eq!(got.resources, ["flowmcp://atlasdata-org/resource/guide"]);
    assert!(got.reads_guide && !got.renders_about && got.prompts.is_empty());
    // The whole catalog is still served without it.
    let all = seen(McpServer::shared(catalog, &ServeOptions::default()).unwrap());
    assert!(all.reads_guide && all.renders_about);
    assert_eq!(all.prompts.len(), 3, "{all:?}");
}

/// Item 17: the bearer scheme is read in any case (RFC 6750 and RFC 9110: schemes are
/// case-insensitive); anything but a bearer token with the right value is refused.
#[test]
fn item17_the_bearer_scheme_is_case_insensitive() {
    let server = start(
        Endpoints::single(McpServer::shared(catalog(), &ServeOptions::default()).unwrap()),
        {
            let mut built = HttpOptions::default();
            built.auth_token = Some("s3cret".into());
            built
        },
    )
    .unwrap();
    let mcp = format!("{}/mcp", server.base);
    for value in [
        "Bearer s3cret",
        "bearer s3cret",
        "BEARER s3cret",
        "bEaReR  s3cret",
    ] {
        let a = post(&mcp, &[("Authorization", value)], &initialize());
        assert_eq!(a.status, 200, "{value}: {}", a.body);
    }
    for value in [
        "Basic s3cret",
        "Bearers3cret",
        "bearer s3cre",
        "s3cret",
        "Bearer",
    ] {
        let a = post(&mcp, &[("Authorization", value)], &initialize());
        assert_eq!(a.status, 401, "{value}");
    }
}

/// The address of a running server.
fn addr_of(server: &support::Running) -> SocketAddr {
    server.base.trim_start_matches("http://").parse().unwrap()
}

/// Generous bounds: these tests check that connections end, not how fast.
const WITHIN: Duration = Duration::from_secs(30);

/// Item 10: a client that stops halfway through its headers, or through its body, is cut off at
/// the deadline (the body with a 408), while an honest client is served meanwhile.
#[test]
fn item10_half_sent_requests_are_closed_at_their_deadlines() {
    let server = start(
        Endpoints::single(McpServer::shared(catalog(), &ServeOptions::default()).unwrap()),
        {
            let mut built = HttpOptions::default();
            built.header_timeout = Duration::from_secs(1);
            built.body_timeout = Duration::from_secs(1);
            built
        },
    )
    .unwrap();
    let addr = addr_of(&server);
    let mut headers = TcpStream::connect(addr).unwrap();
    headers
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        .unwrap();
    let mut body = TcpStream::connect(addr).unwrap();
    body.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"",
    )
    .unwrap();
    let mcp = format!("{}/mcp", server.base);
    assert_eq!(post(&mcp, &[], &initialize()).status, 200);
    assert!(
        read_until_closed(&mut headers, WITHIN).is_some(),
        "half-sent headers keep their connection open"
    );
    let answer =
        read_until_closed(&mut body, WITHIN).expect("a half-sent body keeps its connection open");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert_eq!(post(&mcp, &[], &initialize()).status, 200);
}

/// Item 10: connections over the cap are refused at once (a 503, then closed) while the cap's
/// holders are busy, and served again once one of them goes. (Idle holders give their places up
/// instead: `http_i39`.)
#[test]
fn item10_connections_over_the_cap_are_refused_while_its_holders_live() {
    let server = start(
        Endpoints::single(McpServer::shared(catalog(), &ServeOptions::default()).unwrap()),
        {
            let mut built = HttpOptions::default();
            built.max_connections = 2;
            built.max_connections_per_peer = Some(2);
            built.body_timeout = Duration::from_secs(60);
            built
        },
    )
    .unwrap();
    let addr = addr_of(&server);
    // Two holders, each busy for sure: the server reads a body that never ends.
    let mut holders: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                  Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{",
            )
            .unwrap();
            assert!(
                read_until_closed(&mut s, Duration::from_millis(500)).is_none(),
                "a holder was closed"
            );
            s
        })
        .collect();
    for _ in 0..3 {
        let mut over = TcpStream::connect(addr).unwrap();
        let answer = read_until_closed(&mut over, WITHIN).expect("a connection over the cap waits");
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    }
    // One holder goes: its place is free again.
    holders.pop();
    let mcp = format!("{}/mcp", server.base);
    let started = Instant::now();
    loop {
        match try_post(&mcp, &[], &initialize()) {
            Ok(a) if a.status == 200 => break,
            other => assert!(
                started.elapsed() < WITHIN,
                "the freed place is never taken: {:?}",
                other.map(|a| a.status)
            ),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(holders);
}

/// Runs `endpoints` with `opts` and stops at once: `Ok` when they started.
fn starts(endpoints: Endpoints, opts: HttpOptions) -> Result<(), HttpError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(endpoints.run(opts, |_| {}, async {}))
}

/// Item 12: an empty token is an error, not "no token"; endpoints without authentication on an
/// address that is not loopback do not start unless `no_auth` says so; a token, a route's token
/// or `no_auth` lets them start.
#[test]
fn item12_empty_tokens_and_open_endpoints_off_loopback_do_not_start() {
    let catalog = catalog();
    let single =
        || Endpoints::single(McpServer::shared(catalog.clone(), &ServeOptions::default()).unwrap());
    let mut loopback = HttpOptions::default();
    loopback.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    let mut everywhere = HttpOptions::default();
    everywhere.listen = SocketAddr::from(([0, 0, 0, 0], 0));
    let e = starts(single(), {
        let mut built = loopback.clone();
        built.auth_token = Some(String::new());
        built
    })
    .unwrap_err();
    assert!(matches!(e, HttpError::EmptyToken(None)), "{e}");
    assert!(e.to_string().contains("is empty"), "{e}");
    let routes = [
        route("/a=holidaykit-net", Some("")),
        route("/b=skycast-io", Some("t")),
    ];
    let e = starts(
        Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap(),
        loopback.clone(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, HttpError::EmptyToken(Some(p)) if p == "/a"),
        "{e}"
    );

    let e = starts(single(), everywhere.clone()).unwrap_err();
    assert!(matches!(e, HttpError::Unauthenticated { .. }), "{e}");
    // Issue 29, item 4: the library names no CLI flag; the CLI adds them when it prints.
    assert!(!e.to_string().contains("--"), "{e}");
    // Only the open route is named.
    let routes = [
        route("/a=holidaykit-net", Some("t")),
        route("/b=skycast-io", None),
    ];
    let e = starts(
        Endpoints::routes(&catalog, &routes, &ServeOptions::default()).unwrap(),
        everywhere.clone(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, HttpError::Unauthenticated { paths, .. } if paths == "/b"),
        "{e}"
    );

    // Open on loopback, with a token, or when asked for: they start.
    starts(single(), loopback).unwrap();
    starts(single(), {
        let mut built = everywhere.clone();
        built.auth_token = Some("t".into());
        built
    })
    .unwrap();
    starts(single(), {
        let mut built = everywhere;
        built.no_auth = true;
        built
    })
    .unwrap();
}

/// The text of a tool result.
fn result_text(r: &CallToolResult) -> String {
    flowmcp_catalog::serde_json::to_value(&r.content)
        .unwrap()
        .to_string()
}

/// Calls each of `names` (no arguments) at `server` and returns whether it was a tool error and
/// its text.
fn call_each(server: McpServer, names: &[&str]) -> Vec<(Option<bool>, String)> {
    let names: Vec<String> = strings(names);
    support::with_client(server, (), async move |client| {
        let mut out = Vec::new();
        for name in names {
            let r = client
                .call_tool(CallToolRequestParams::new(name))
                .await
                .unwrap();
            out.push((r.is_error, result_text(&r)));
        }
        out
    })
}

/// Issue 28, item 7e: calling a member of the endpoint that waits for a server parameter says
/// that it exists and which variable it waits for (by wire name or ID), instead of "unknown
/// tool"; a name that matches nothing is "unknown tool", with the closest served name when one
/// is close. A tool outside the endpoint is unknown there, and its variable is not named.
#[test]
fn i28_7e_a_waiting_tool_names_its_variable_and_an_unknown_one_gets_a_did_you_mean() {
    let bare = bare_catalog();
    let whole = McpServer::shared(bare.clone(), &ServeOptions::default()).unwrap();
    let answers = call_each(
        whole,
        &[
            "searchBooks_openshelf-org",
            "openshelf-org/tool/getBook",
            "getPublicHoliday_holidaykit-net",
            "getPublicHolidays",
            "noSuchThing_nowhere-org",
        ],
    );
    let want = [
        "E006 searchBooks_openshelf-org: not served until OPENSHELF_API_KEY is set",
        "E006 getBook_openshelf-org: not served until OPENSHELF_API_KEY is set",
        "E007 getPublicHoliday_holidaykit-net: unknown tool (did you mean \
         getPublicHolidays_holidaykit-net?)",
        "E007 getPublicHolidays: unknown tool (did you mean getPublicHolidays_holidaykit-net?)",
        "E007 noSuchThing_nowhere-org: unknown tool",
    ];
    for ((is_error, text), want) in answers.iter().zip(want) {
        assert_eq!(*is_error, Some(true), "{text}");
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert!(!answers[4].1.contains("did you mean"), "{}", answers[4].1);

    // Served under --only holidaykit-net, the openshelf-org tools are not members: unknown.
    let only = McpServer::shared(bare, &{
        let mut built = ServeOptions::default();
        built.only = vec!["holidaykit-net".into()];
        built
    })
    .unwrap();
    let answers = call_each(
        only,
        &["searchBooks_openshelf-org", "getDailyForecast_skycast-io"],
    );
    for (is_error, text) in &answers {
        assert_eq!(*is_error, Some(true), "{text}");
        assert!(text.contains("unknown tool"), "{text}");
        assert!(!text.contains("_API_KEY"), "{text}");
    }
}

/// Issue 28, item 7f: a malformed `tools/call` (no `params`, a `name` that is not a string,
/// `arguments` that are not an object) is -32602 invalid params saying what is wrong, not
/// -32601 "tools/call"; an unknown method stays -32601. Over HTTP, as the MCP Inspector sends it.
#[test]
fn i28_7f_malformed_tools_calls_are_invalid_params_that_say_what_is_wrong() {
    let endpoints = Endpoints::routes(&catalog(), &[], &ServeOptions::default()).unwrap();
    let server = start(endpoints, HttpOptions::default()).unwrap();
    let mcp = format!("{}/mcp", server.base);
    assert_eq!(post(&mcp, &[], &initialize()).status, 200);
    let headers = [("MCP-Protocol-Version", "2025-06-18")];
    let ask = |id: u64, method: &str, params: Option<Value>| {
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        let answer = post(&mcp, &headers, &m);
        let v: Value = from_str(&answer.body)
            .unwrap_or_else(|e| panic!("{e}: {} {}", answer.status, answer.body));
        (
            v["error"]["code"].as_i64(),
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    };
    let cases = [
        (None, "`params` is missing"),
        (
            Some(json!({"name": 42})),
            "`params.name` (the tool to call) must be a string, not a number",
        ),
        (
            Some(json!({"arguments": {}})),
            "`params.name` (the tool to call) is missing",
        ),
        (
            Some(json!({"name": "getPublicHolidays_holidaykit-net", "arguments": [2026, "DE"]})),
            "`params.arguments` must be an object of the tool's inputs by name, not an array",
        ),
    ];
    for (i, (params, want)) in cases.into_iter().enumerate() {
        let (code, message) = ask(10 + i as u64, "tools/call", params.clone());
        assert_eq!(code, Some(-32602), "{params:?}: {message}");
        assert!(message.contains(want), "{params:?}: {message}");
    }
    let (code, message) = ask(20, "no/such/method", Some(json!({})));
    assert_eq!(code, Some(-32601), "{message}");
    // A well-formed call still runs (here: an input error of the tool, a tool result).
    let answer = post(
        &mcp,
        &headers,
        &json!({"jsonrpc": "2.0", "id": 21, "method": "tools/call",
            "params": {"name": "getPublicHolidays_holidaykit-net", "arguments": {"year": "soon"}}}),
    );
    let v: Value = from_str(&answer.body).unwrap();
    assert_eq!(v["result"]["isError"], json!(true), "{v}");
}

/// Issue 29, item 4: the server's errors give the facts and name no CLI option or command; the
/// CLI adds them when it prints (`flowmcp-cli/tests/serve.rs`
/// `i29_4_serve_still_names_the_options`).
#[test]
fn i29_4_serve_errors_name_no_cli_option() {
    let errors = [
        ServeError::Selector(RouteError::UnknownTool("x_ns".into())).to_string(),
        ServeError::Selector(RouteError::OnlyWithRoutes).to_string(),
        ServeError::Selection("ns/selection/x: no such selection".into()).to_string(),
        ServeError::Agent("no agent \"x\"".into()).to_string(),
    ];
    for e in errors {
        assert!(!e.contains("--") && !e.contains("flowmcp "), "{e}");
    }
}

// Issue #32: metrics, request ids and the drain.

const I32_SECRET: &str = "CANARY-secret-i32-5f1c";
const I32_ARG: &str = "CANARY-arg-i32-9b2e";

/// The example catalog with its upstreams at `upstream`, a server parameter whose value is
/// [`I32_SECRET`], counted by `metrics`, with a preload cache in `cache` (when given).
fn metered_catalog(
    upstream: &str,
    metrics: &flowmcp_mcp::http::Metrics,
    cache: Option<&std::path::Path>,
) -> std::sync::Arc<flowmcp_catalog::Catalog> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut o = flowmcp_catalog::CatalogOptions::new(flowmcp_catalog::Profile::Spec);
    o.env_override = Some(std::collections::BTreeMap::from([
        ("SKYCAST_API_KEY".to_string(), I32_SECRET.to_string()),
        ("OPENSHELF_API_KEY".to_string(), I32_SECRET.to_string()),
    ]));
    o.transport.allow_http_loopback = true;
    for ns in ["holidaykit-net", "skycast-io"] {
        o.add_upstream(ns, upstream).expect("a loopback upstream");
    }
    o.runner.cache = cache.map(|dir| flowmcp_catalog::runtime::Cache::new(dir).into());
    o.runner.observer = Some(std::sync::Arc::new(metrics.clone()));
    std::sync::Arc::new(flowmcp_catalog::Catalog::open(&dir, &o).unwrap())
}

/// A `tools/call` of `name` with `arguments`, JSON-RPC id `id`.
fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// GETs `url` with `headers`: the status and the body.
fn get_with(url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .build()
        .into();
    let mut req = agent.get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut r = req.call().unwrap();
    let status = r.status().as_u16();
    (status, r.body_mut().read_to_string().unwrap())
}

/// Issue #32 items 1 and 2: after a few calls `/metrics` shows every family, calls counted by
/// route, tool ID and outcome; the upstream gets the request id, and neither a server
/// parameter's value nor an argument value shows in the metrics.
#[test]
fn i32_1_metrics_count_calls_by_tool_and_outcome_and_never_show_secrets_or_arguments() {
    let upstream = runtime_support::TestServer::start(4, |seen| {
        if seen.url.starts_with("/countries") {
            runtime_support::reply(
                200,
                Some("application/json"),
                r#"[{"countryCode": "DE", "name": "Germany", "regionCount": 16}]"#,
            )
        } else {
            runtime_support::reply(500, Some("text/plain"), "down")
        }
    });
    let cache = runtime_support::Scratch::new("i32-metrics");
    let metrics = flowmcp_mcp::http::Metrics::new();
    let catalog = metered_catalog(&upstream.base, &metrics, Some(cache.path().as_ref()));
    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let mut opts = HttpOptions::default();
    opts.metrics = Some(metrics);
    let server = start(endpoints, opts).unwrap();
    let mcp = format!("{}/mcp", server.base);
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let call = |id, name: &str, args: Value, request_id: &str| {
        let a = post(
            &mcp,
            &[version, ("x-request-id", request_id)],
            &tool_call(id, name, args),
        );
        assert_eq!(a.status, 200, "{}", a.body);
        a.body
    };
    let first = call(1, "listCountries_holidaykit-net", json!({}), "req-i32-one");
    assert!(first.contains("Germany"), "{first}");
    // From the preload cache this time.
    let again = call(2, "listCountries_holidaykit-net", json!({}), "req-i32-two");
    assert!(again.contains("Germany"), "{again}");
    let failed = call(
        3,
        "getCurrentConditions_skycast-io",
        json!({"city": I32_ARG}),
        "req-i32-three",
    );
    assert!(failed.contains("E001"), "{failed}");
    let unknown = call(4, I32_ARG, json!({"q": I32_ARG}), "req-i32-four");
    assert!(unknown.contains("E007"), "{unknown}");

    let (status, text) = get_with(&format!("{}/metrics", server.base), &[]);
    assert_eq!(status, 200, "{text}");
    for expected in [
        r#"flowmcp_tool_calls_total{route="/mcp",tool="holidaykit-net/tool/listCountries",outcome="ok"} 2"#,
        r#"flowmcp_tool_calls_total{route="/mcp",tool="skycast-io/tool/getCurrentConditions",outcome="E001"} 1"#,
        r#"flowmcp_tool_calls_total{route="/mcp",tool="unknown",outcome="E007"} 1"#,
        r#"flowmcp_tool_call_duration_seconds_count{route="/mcp"} 4"#,
        "flowmcp_upstream_request_duration_seconds_count 2",
        r#"flowmcp_upstream_responses_total{class="2xx"} 1"#,
        r#"flowmcp_upstream_responses_total{class="5xx"} 1"#,
        r#"flowmcp_preload_cache_lookups_total{result="miss"} 1"#,
        r#"flowmcp_preload_cache_lookups_total{result="hit"} 1"#,
        "flowmcp_sandbox_rebuilds_total 0",
        "flowmcp_open_connections ",
        "flowmcp_inflight_requests ",
        "flowmcp_draining 0",
        "flowmcp_catalog_generation 1",
        "flowmcp_catalog_reloads_total 0",
        "flowmcp_catalog_reload_failures_total 0",
        r#"flowmcp_upstream_responses_total{class="4xx"} 0"#,
        "flowmcp_build_info{version=",
    ] {
        assert!(text.contains(expected), "{expected} missing in\n{text}");
    }
    assert!(!text.contains(I32_SECRET), "{text}");
    assert!(!text.contains("CANARY"), "{text}");
    drop(server);

    // The upstream saw each call's request id (and the key, where the schema puts it).
    let seen = upstream.finish();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].header("x-request-id"), Some("req-i32-one"));
    assert_eq!(seen[1].header("x-request-id"), Some("req-i32-three"));
    assert_eq!(seen[1].header("x-api-key"), Some(I32_SECRET));
}

/// Issue #32 item 1: without a metrics token, `/metrics` answers only loopback clients that no
/// proxy forwarded; with one, only its bearer (never an MCP token); the token must differ from
/// the MCP tokens; without metrics there is no `/metrics`.
#[test]
fn i32_1_metrics_are_refused_to_forwarded_requests_and_without_their_token() {
    let catalog = catalog();
    let metrics_on = |token: Option<&str>| {
        let mut opts = HttpOptions::default();
        opts.metrics = Some(flowmcp_mcp::http::Metrics::new());
        opts.metrics_token = token.map(str::to_string);
        opts.auth_token = Some("mcp-token-i32".into());
        opts
    };
    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let open = start(endpoints, metrics_on(None)).unwrap();
    let url = format!("{}/metrics", open.base);
    assert_eq!(get_with(&url, &[]).0, 200);
    for forwarded in ["X-Forwarded-For", "Forwarded", "X-Real-IP"] {
        let (status, body) = get_with(&url, &[(forwarded, "203.0.113.7")]);
        assert_eq!(status, 403, "{forwarded}: {body}");
        assert!(!body.contains("flowmcp_"), "{body}");
    }
    assert_eq!(post(&url, &[], &json!({})).status, 405);
    drop(open);

    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let guarded = start(endpoints, metrics_on(Some("metrics-token-i32"))).unwrap();
    let url = format!("{}/metrics", guarded.base);
    let (k, mcp_token) = bearer("mcp-token-i32");
    let (_, metrics_token) = bearer("metrics-token-i32");
    assert_eq!(get_with(&url, &[]).0, 401);
    assert_eq!(get_with(&url, &[(k, &mcp_token)]).0, 401);
    let (status, body) = get_with(&url, &[(k, &metrics_token)]);
    assert_eq!(status, 200);
    assert!(body.contains("flowmcp_build_info"), "{body}");
    // The metrics token opens no MCP endpoint.
    let mcp = format!("{}/mcp", guarded.base);
    assert_eq!(
        post(&mcp, &[(k, &metrics_token)], &initialize()).status,
        401
    );
    drop(guarded);

    let mut reused = metrics_on(Some("mcp-token-i32"));
    assert!(matches!(
        reused.check(&[]),
        Err(HttpError::MetricsTokenReused)
    ));
    reused.auth_token = None;
    assert!(
        matches!(
            reused.check(&[route("/a=holidaykit-net", Some("mcp-token-i32"))]),
            Err(HttpError::MetricsTokenReused)
        ),
        "a route's token is an MCP token too"
    );
    assert!(matches!(
        metrics_on(Some("")).check(&[]),
        Err(HttpError::EmptyToken(Some(_)))
    ));

    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let none = start(endpoints, HttpOptions::default()).unwrap();
    assert_eq!(get_with(&format!("{}/metrics", none.base), &[]).0, 404);
}

/// An upstream that tells `arrived` when a request came, then answers `[]` after `hold`.
fn slow_upstream(
    hold: Duration,
    arrived: std::sync::mpsc::Sender<()>,
) -> runtime_support::TestServer {
    runtime_support::TestServer::start(2, move |_| {
        let _ = arrived.send(());
        std::thread::sleep(hold);
        runtime_support::reply(200, Some("application/json"), "[]")
    })
}

/// Issue #32 item 3: after the shutdown signal `/readyz` answers 503, a call in flight finishes,
/// a new call gets 503 with a retryable JSON-RPC error that keeps its id, and the server stops
/// cleanly once nothing is in flight.
#[test]
fn i32_3_a_drain_finishes_in_flight_calls_refuses_new_ones_and_readyz_turns_503() {
    let (tx, rx) = std::sync::mpsc::channel();
    let upstream = slow_upstream(Duration::from_secs(3), tx);
    let metrics = flowmcp_mcp::http::Metrics::new();
    let catalog = metered_catalog(&upstream.base, &metrics, None);
    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let mut opts = HttpOptions::default();
    opts.metrics = Some(metrics);
    opts.grace = Duration::from_secs(60);
    let mut server = start(endpoints, opts).unwrap();
    let base = server.base.clone();
    assert_eq!(
        get_with(&format!("{base}/readyz"), &[]),
        (200, "ready\n".into())
    );
    let mcp = format!("{base}/mcp");
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let in_flight = {
        let mcp = mcp.clone();
        std::thread::spawn(move || {
            post(
                &mcp,
                &[version],
                &tool_call(
                    1,
                    "getPublicHolidays_holidaykit-net",
                    json!({"year": 2026, "countryCode": "DE"}),
                ),
            )
        })
    };
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the call reached the upstream");
    server.signal();
    let started = Instant::now();
    loop {
        let (status, body) = get_with(&format!("{base}/readyz"), &[]);
        if status == 503 {
            assert_eq!(body, "draining\n");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "readyz never turned 503"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let refused = post(
        &mcp,
        &[version],
        &tool_call(7, "listCountries_holidaykit-net", json!({})),
    );
    assert_eq!(refused.status, 503, "{}", refused.body);
    let error: Value = from_str(&refused.body).unwrap();
    assert_eq!(error["id"], 7, "{error}");
    assert_eq!(error["error"]["code"], flowmcp_mcp::http::DRAINING_CODE);
    assert_eq!(error["error"]["data"]["retryable"], true, "{error}");
    let (status, metrics) = get_with(&format!("{base}/metrics"), &[]);
    assert_eq!(status, 200);
    assert!(metrics.contains("flowmcp_draining 1"), "{metrics}");

    let answer = in_flight.join().unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains("\"isError\":false"), "{}", answer.body);
    server.stop().unwrap();
    assert_eq!(upstream.finish().len(), 1);
}

/// Issue #32 item 3: a drain whose deadline passes while a call still runs says how many it cut.
#[test]
fn i32_3_a_drain_past_its_deadline_reports_the_calls_it_cut() {
    let (tx, rx) = std::sync::mpsc::channel();
    let upstream = slow_upstream(Duration::from_secs(4), tx);
    let metrics = flowmcp_mcp::http::Metrics::new();
    let catalog = metered_catalog(&upstream.base, &metrics, None);
    let endpoints = Endpoints::routes(&catalog, &[], &ServeOptions::default()).unwrap();
    let mut opts = HttpOptions::default();
    opts.grace = Duration::from_millis(100);
    let server = start(endpoints, opts).unwrap();
    let mcp = format!("{}/mcp", server.base);
    let in_flight = std::thread::spawn(move || {
        try_post(
            &mcp,
            &[("MCP-Protocol-Version", "2025-06-18")],
            &tool_call(
                1,
                "getPublicHolidays_holidaykit-net",
                json!({"year": 2026, "countryCode": "DE"}),
            ),
        )
        .map(|a| a.status)
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the call reached the upstream");
    assert!(matches!(server.stop(), Err(HttpError::DrainCut(1))));
    let _ = in_flight.join().unwrap();
    let _ = upstream.finish();
}
