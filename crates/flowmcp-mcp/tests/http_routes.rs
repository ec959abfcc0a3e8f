//! Several MCP endpoints on one listener: each route serves what its selector names (tools,
//! resource queries, documents, and its namespaces' prompts and skills) and accepts only its own
//! token, unknown paths get 404, and the listener-wide checks hold on every route: the bearer
//! scheme in any case, header and body deadlines, the connection cap, and no open endpoint off
//! loopback unless asked for.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

/// The runtime's test helpers (a local HTTP server, reading a connection until it closes).
use crate::runtime_support;
use crate::support;

use std::io::{Read, Write};
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
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog");
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
/// holders are open, and served again once one of them goes.
#[test]
fn item10_connections_over_the_cap_are_refused_while_its_holders_live() {
    let server = start(
        Endpoints::single(McpServer::shared(catalog(), &ServeOptions::default()).unwrap()),
        {
            let mut built = HttpOptions::default();
            built.max_connections = 2;
            built
        },
    )
    .unwrap();
    let addr = addr_of(&server);
    // Two holders, each accepted for sure: it has had an answer, and keeps its connection.
    let mut holders: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            s.set_read_timeout(Some(WITHIN)).unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 256];
            while !got.ends_with(b"ok\n") {
                let n = s.read(&mut buf).unwrap();
                assert!(n > 0, "a holder was closed");
                got.extend_from_slice(&buf[..n]);
            }
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
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let answer = read_until_closed(&mut s, WITHIN).unwrap_or_default();
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(
            started.elapsed() < WITHIN,
            "the freed place is never taken: {answer:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(holders);
    // The server notices the closed holders (and the probe above) on its own time: until it has,
    // a new connection may still be over the cap and refused.
    let started = Instant::now();
    loop {
        match try_post(&mcp, &[], &initialize()) {
            Ok(a) if a.status == 200 => break,
            other => assert!(
                started.elapsed() < WITHIN,
                "the freed places are never taken: {:?}",
                other.map(|a| a.status)
            ),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
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
