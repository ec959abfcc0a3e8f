//! Issue #39, the HTTP listener against clients that do not play along: idle and unauthenticated
//! connections cannot hold the connection slots a token holder needs, one peer cannot take every
//! slot, unauthenticated answers close their connection, `/metrics` checks Host and Origin as
//! `/mcp` does, and an endpoint without a token refuses requests a proxy forwarded.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::runtime_support::read_until_closed;
use crate::support::{self, bearer, catalog, initialize, post, start, try_post};

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use flowmcp_mcp::{Endpoints, HttpOptions, McpServer, ServeOptions};

/// Generous bounds: these tests check that connections end, not how fast.
const WITHIN: Duration = Duration::from_secs(20);

/// The address of a running server.
fn addr_of(server: &support::Running) -> SocketAddr {
    server.base.trim_start_matches("http://").parse().unwrap()
}

/// A connection to `to` from the loopback address `from` (127.0.0.2, …: another peer).
fn connect_from(from: Ipv4Addr, to: SocketAddr) -> TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = rt.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::new(IpAddr::V4(from), 0))
            .unwrap_or_else(|e| panic!("cannot bind {from}: {e}"));
        socket.connect(to).await.unwrap().into_std().unwrap()
    });
    stream.set_nonblocking(false).unwrap();
    stream
}

/// One endpoint at `/mcp` over the example catalog, with `opts`.
fn serve(opts: HttpOptions) -> support::Running {
    start(
        Endpoints::single(McpServer::shared(catalog(), &ServeOptions::default()).unwrap()),
        opts,
    )
    .unwrap()
}

/// Reads from `s` until `end` has arrived (or the connection closed); what arrived.
fn read_to(s: &mut TcpStream, end: &[u8]) -> Vec<u8> {
    s.set_read_timeout(Some(WITHIN)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    while !got.ends_with(end) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    got
}

/// Finding 1: a client that holds every connection slot with kept-alive `GET /healthz`
/// connections (from another address) does not stop a token holder's call.
#[test]
fn i39_1_idle_kept_alive_connections_do_not_lock_out_a_token_holder() {
    let server = serve({
        let mut built = HttpOptions::default();
        built.max_connections = 4;
        built.header_timeout = Duration::from_secs(60);
        built.auth_token = Some("token-i39".into());
        built
    });
    let addr = addr_of(&server);
    let holders: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = connect_from(Ipv4Addr::new(127, 0, 0, 2), addr);
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            read_to(&mut s, b"ok\n");
            s
        })
        .collect();
    let (k, v) = bearer("token-i39");
    let answer = try_post(&format!("{}/mcp", server.base), &[(k, &v)], &initialize());
    assert_eq!(
        answer.as_ref().map(|a| a.status).ok(),
        Some(200),
        "the token holder was not served while idle connections held the slots: {:?}",
        answer.map(|a| a.body)
    );
    drop(holders);
}

/// Finding 1: one peer whose connections are all busy (bodies that never finish) cannot take
/// every slot: its connections beyond its share are refused, and another client is served.
#[test]
fn i39_1_one_peer_cannot_take_every_slot() {
    let server = serve({
        let mut built = HttpOptions::default();
        built.max_connections = 4;
        built.header_timeout = Duration::from_secs(60);
        built.body_timeout = Duration::from_secs(60);
        built
    });
    let addr = addr_of(&server);
    let mut busy = Vec::new();
    let mut refused = 0;
    for _ in 0..4 {
        let mut s = connect_from(Ipv4Addr::new(127, 0, 0, 3), addr);
        let _ = s.write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"json",
        );
        match read_until_closed(&mut s, Duration::from_secs(2)) {
            Some(answer) => {
                assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
                refused += 1;
            }
            None => busy.push(s),
        }
    }
    assert!(
        refused > 0,
        "one peer took all {} connection slots",
        busy.len()
    );
    let answer = try_post(&format!("{}/mcp", server.base), &[], &initialize());
    assert_eq!(
        answer.as_ref().map(|a| a.status).ok(),
        Some(200),
        "another client was not served: {:?}",
        answer.map(|a| a.body)
    );
}

/// Finding 1: answers to requests without a token (`/healthz`, a 401, a 404) carry
/// `Connection: close` and the server closes the connection.
#[test]
fn i39_1_unauthenticated_answers_close_the_connection() {
    let server = serve({
        let mut built = HttpOptions::default();
        built.header_timeout = Duration::from_secs(60);
        built.auth_token = Some("token-i39".into());
        built
    });
    let addr = addr_of(&server);
    for (request, status) in [
        (
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_string(),
            "200",
        ),
        (
            "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_string(),
            "404",
        ),
        (
            format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{}",
                initialize().to_string().len(),
                initialize()
            ),
            "401",
        ),
    ] {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let answer = read_until_closed(&mut s, Duration::from_secs(5));
        let Some(answer) = answer else {
            panic!("the connection stayed open after the {status} answer to {request:?}");
        };
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
        assert!(
            answer.to_ascii_lowercase().contains("connection: close"),
            "{answer}"
        );
    }
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

/// Finding 2: `/metrics` refuses a foreign Host or Origin (DNS rebinding) as `/mcp` does.
#[test]
fn i39_2_metrics_refuse_a_foreign_host_or_origin() {
    let server = serve({
        let mut built = HttpOptions::default();
        built.metrics = Some(flowmcp_mcp::http::Metrics::new());
        built
    });
    let url = format!("{}/metrics", server.base);
    let (status, body) = get_with(&url, &[]);
    assert_eq!(status, 200, "{body}");
    for header in [
        ("Host", "rebound.example"),
        ("Origin", "http://rebound.example"),
    ] {
        let (status, body) = get_with(&url, &[header]);
        assert_eq!(status, 403, "{header:?}: {body}");
        assert!(!body.contains("flowmcp_"), "{body}");
        // The same request to /mcp is refused too (the same check).
        let a = post(&format!("{}/mcp", server.base), &[header], &initialize());
        assert_eq!(a.status, 403, "{header:?}: {}", a.body);
    }
}

/// Finding 3: an endpoint without a token or OAuth refuses requests a proxy forwarded (403
/// saying why), unless `no_auth` allows it; with a token they are served.
#[test]
fn i39_3_an_endpoint_without_a_token_refuses_forwarded_requests() {
    let open = serve(HttpOptions::default());
    let mcp = format!("{}/mcp", open.base);
    assert_eq!(post(&mcp, &[], &initialize()).status, 200);
    for forwarded in ["X-Forwarded-For", "Forwarded", "X-Real-IP"] {
        let a = post(&mcp, &[(forwarded, "203.0.113.7")], &initialize());
        assert_eq!(a.status, 403, "{forwarded}: {}", a.body);
        assert!(a.body.contains("forwarded"), "{}", a.body);
    }
    drop(open);

    let guarded = serve({
        let mut built = HttpOptions::default();
        built.auth_token = Some("token-i39".into());
        built
    });
    let (k, v) = bearer("token-i39");
    let a = post(
        &format!("{}/mcp", guarded.base),
        &[(k, &v), ("X-Forwarded-For", "203.0.113.7")],
        &initialize(),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    drop(guarded);

    let no_auth = serve({
        let mut built = HttpOptions::default();
        built.no_auth = true;
        built
    });
    let a = post(
        &format!("{}/mcp", no_auth.base),
        &[("X-Forwarded-For", "203.0.113.7")],
        &initialize(),
    );
    assert_eq!(a.status, 200, "{}", a.body);
}
