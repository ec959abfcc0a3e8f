//! Several MCP endpoints on one listener: each route serves the tools its selector names and
//! accepts only its own token, unknown paths get 404, and the listener-wide checks hold on every
//! route.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod support;

use flowmcp_mcp::{Endpoints, HttpError, HttpOptions, Route, RouteError, ServeOptions};
use support::{bearer, catalog, get, initialize, post, start, tool_names};

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
    let server = start(
        endpoints,
        HttpOptions {
            auth_token: Some("global-token".into()),
            ..HttpOptions::default()
        },
    )
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
    let server = start(
        endpoints,
        HttpOptions {
            auth_token: Some("global-token".into()),
            ..HttpOptions::default()
        },
    )
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
    let only = ServeOptions {
        only: vec!["listCountries_holidaykit-net".into()],
        ..ServeOptions::default()
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

#[test]
fn a_namespace_route_serves_only_exposed_tools() {
    // Without OPENSHELF_API_KEY the openshelf-org tools are hidden: the namespace has nothing to
    // serve, and naming one of its tools is an error, not an empty (= everything) route.
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/catalog");
    let mut opts = flowmcp_catalog::CatalogOptions::new(flowmcp_catalog::Profile::Spec);
    opts.env_override = Some(Default::default());
    let bare = std::sync::Arc::new(flowmcp_catalog::Catalog::open(&dir, &opts).unwrap());
    let e = Endpoints::routes(
        &bare,
        &[route("/b=openshelf-org", None)],
        &ServeOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, HttpError::Route(RouteError::EmptyNamespace(_))),
        "{e}"
    );
    let e = Endpoints::routes(
        &bare,
        &[route("/b=openshelf-org/tool/getBook", None)],
        &ServeOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, HttpError::Route(RouteError::UnknownTool(_))),
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
