//! Tests of `flowmcp_runtime::transport` against local `tiny_http` servers on 127.0.0.1.
//!
//! Every server runs on its own thread, handles at most a fixed number of requests (each waited
//! for with a bounded timeout) and then stops, returning what it received.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::net::TcpListener;
use std::time::Duration;

use support::{Reply, TestServer, header, reply};

use flowmcp_runtime::transport::{
    HeaderValue, HttpRequest, HttpResponse, Method, Transport, TransportConfig, TransportError,
    UreqTransport, decode_body, status_error,
};
use flowmcp_spec::Code;
use serde_json::json;

fn redirect(status: u16, location: &str) -> Reply {
    reply(status, None, Vec::new()).with_header(header("Location", location))
}

fn loopback_config() -> TransportConfig {
    {
        let mut built = TransportConfig::default();
        built.connect_timeout = Duration::from_secs(2);
        built.total_timeout = Duration::from_secs(5);
        built.allow_http_loopback = true;
        built
    }
}

fn transport() -> UreqTransport {
    UreqTransport::new(loopback_config())
}

fn get(url: &str) -> HttpRequest {
    HttpRequest::new(Method::Get, url)
}

/// A loopback port with nothing listening on it.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind probe listener");
    listener.local_addr().expect("probe address").port()
}

fn expect_err(result: Result<HttpResponse, TransportError>) -> TransportError {
    match result {
        Ok(resp) => panic!("expected an error, got {resp:?}"),
        Err(e) => e,
    }
}

#[test]
fn json_200_is_returned_and_decoded() {
    let server = TestServer::start(1, |_| {
        reply(
            200,
            Some("application/json; charset=utf-8"),
            r#"{"price":42}"#,
        )
    });
    let url = format!("{}/simple/price?ids=bitcoin", server.base);
    let resp = transport().send(&get(&url)).expect("200 response");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.final_url, url);
    assert_eq!(decode_body(&resp), Ok(json!({"price": 42})));
    let seen = server.finish();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].url, "/simple/price?ids=bitcoin");
    let ua = seen[0].header("User-Agent").unwrap_or_default();
    assert!(ua.starts_with("flowmcp-rs/"), "user agent {ua:?}");
}

#[test]
fn non_2xx_statuses_are_passed_through() {
    let server = TestServer::start(2, |seen| {
        if seen.url.starts_with("/missing") {
            reply(404, Some("application/json"), r#"{"error":"not found"}"#)
        } else {
            reply(500, Some("text/plain"), "boom")
        }
    });
    let t = transport();
    let missing = t
        .send(&get(&format!("{}/missing", server.base)))
        .expect("404 is not a transport error");
    assert_eq!(missing.status, 404);
    assert_eq!(decode_body(&missing), Ok(json!({"error": "not found"})));
    let broken = t
        .send(&get(&format!("{}/broken", server.base)))
        .expect("500 is not a transport error");
    assert_eq!(broken.status, 500);
    assert_eq!(
        status_error("coingecko_price", broken.status),
        "E001 coingecko_price: API returned 500"
    );
    assert_eq!(server.finish().len(), 2);
}

#[test]
fn invalid_json_body_is_e004() {
    let server = TestServer::start(1, |_| reply(200, Some("application/json"), "{not json"));
    let resp = transport()
        .send(&get(&format!("{}/x", server.base)))
        .expect("response");
    let (code, message) = decode_body(&resp).expect_err("invalid JSON");
    assert_eq!(code, Code::E004);
    assert!(
        !message.contains("not json"),
        "message quotes the body: {message}"
    );
    server.finish();
}

#[test]
fn text_plain_becomes_a_string() {
    let server = TestServer::start(1, |_| {
        reply(200, Some("text/plain; charset=utf-8"), "héllo")
    });
    let resp = transport()
        .send(&get(&format!("{}/t", server.base)))
        .expect("response");
    assert_eq!(decode_body(&resp), Ok(json!("héllo")));
    server.finish();

    let bad = HttpResponse {
        status: 200,
        content_type: Some("text/plain".into()),
        body: vec![0x66, 0xff, 0x66],
        final_url: "https://example.com/".into(),
        retry_after: None,
    };
    assert_eq!(decode_body(&bad).map_err(|e| e.0), Err(Code::E004));
}

#[test]
fn image_png_becomes_base64() {
    let png: Vec<u8> = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0x00];
    let body = png.clone();
    let server = TestServer::start(1, move |_| reply(200, Some("image/png"), body.clone()));
    let resp = transport()
        .send(&get(&format!("{}/logo.png", server.base)))
        .expect("response");
    assert_eq!(resp.body, png);
    assert_eq!(decode_body(&resp), Ok(json!("iVBORw0KGgoA")));
    server.finish();
}

#[test]
fn unknown_mime_tries_json_then_string() {
    let mk = |ct: Option<&str>, body: &str| HttpResponse {
        status: 200,
        content_type: ct.map(str::to_string),
        body: body.as_bytes().to_vec(),
        final_url: "https://example.com/".into(),
        retry_after: None,
    };
    assert_eq!(decode_body(&mk(None, "[1,2]")), Ok(json!([1, 2])));
    assert_eq!(
        decode_body(&mk(Some("text/html"), "<p>hi</p>")),
        Ok(json!("<p>hi</p>"))
    );
    assert_eq!(
        decode_body(&mk(Some("application/vnd.api+json"), r#"{"a":1}"#)),
        Ok(json!({"a": 1}))
    );
    assert_eq!(decode_body(&mk(None, "")), Ok(serde_json::Value::Null));
}

#[test]
fn oversized_body_is_e008() {
    let server = TestServer::start(1, |_| {
        reply(200, Some("application/json"), vec![b' '; 4096])
    });
    let t = UreqTransport::new({
        let mut built = loopback_config();
        built.max_body_bytes = 1024;
        built
    });
    let err = expect_err(t.send(&get(&format!("{}/big", server.base))));
    assert_eq!(err.code(), Code::E008, "{err}");
    server.finish();
}

#[test]
fn body_exactly_at_the_cap_is_accepted() {
    let server = TestServer::start(1, |_| reply(200, Some("text/plain"), vec![b'a'; 1024]));
    let t = UreqTransport::new({
        let mut built = loopback_config();
        built.max_body_bytes = 1024;
        built
    });
    let resp = t
        .send(&get(&format!("{}/edge", server.base)))
        .expect("body at the cap");
    assert_eq!(resp.body.len(), 1024);
    server.finish();
}

#[test]
fn slow_server_is_e003() {
    let server = TestServer::start(1, |_| {
        std::thread::sleep(Duration::from_millis(1500));
        reply(200, Some("application/json"), "{}")
    });
    let t = UreqTransport::new({
        let mut built = loopback_config();
        built.total_timeout = Duration::from_millis(200);
        built
    });
    let err = expect_err(t.send(&get(&format!("{}/slow", server.base))));
    assert_eq!(err.code(), Code::E003, "{err}");
    server.finish();
}

#[test]
fn connection_refused_is_e002() {
    let port = free_port();
    let err = expect_err(transport().send(&get(&format!("http://127.0.0.1:{port}/x?k=v"))));
    assert_eq!(err.code(), Code::E002, "{err}");
    let message = err.envelope_message("demo_tool");
    let prefix =
        format!("E002 demo_tool: network failure for http://127.0.0.1:{port}/x?[redacted]: ");
    assert!(message.starts_with(&prefix), "{message}");
}

/// Issue #28 item 7c: a failure says in words what failed, and with which host.
#[test]
fn i28_7c_network_failures_say_what_failed_with_which_host() {
    // Nothing listens: refused, with the address.
    let port = free_port();
    let err = expect_err(transport().send(&get(&format!("http://127.0.0.1:{port}/x"))));
    assert_eq!(err.code(), Code::E002, "{err}");
    assert!(
        err.to_string()
            .ends_with(&format!(": connection refused by 127.0.0.1:{port}")),
        "{err}"
    );

    // A name that cannot be resolved: the system resolver refuses a label longer than 63
    // characters before asking anyone (no query leaves the machine).
    let host = format!("{}.invalid", "a".repeat(64));
    let err = expect_err(transport().send(&get(&format!("https://{host}/x"))));
    assert_eq!(err.code(), Code::E002, "{err}");
    assert!(
        err.to_string()
            .ends_with(&format!(": cannot resolve host {host}")),
        "{err}"
    );

    // TLS to a port that answers in plain HTTP: the handshake fails, and says so.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Not joined: if the client never came, waiting for it would hang the test.
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Ok((mut stream, _)) = listener.accept() {
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut buf = [0u8; 512];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let err = expect_err(transport().send(&get(&format!("https://127.0.0.1:{port}/x"))));
    assert_eq!(err.code(), Code::E002, "{err}");
    assert!(
        err.to_string().contains(": TLS failure with 127.0.0.1: "),
        "{err}"
    );
}

/// Issue #28 item 7d: with the request's redactor, an error shows the query string with only the
/// secret values hidden, in any encoding; without one, none of it.
#[test]
fn i28_7d_errors_show_the_query_with_only_secrets_redacted() {
    let secret = "s3cr3t key/+";
    let redactor = std::sync::Arc::new(flowmcp_runtime::secret::Redactor::with_values([secret]));
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/v1/find?q=hello&key=s3cr3t+key%2F%2B&n=2#frag");
    let mut req = get(&url);
    req.redactor = Some(redactor);
    let err = expect_err(transport().send(&req));
    let text = err.envelope_message("tool");
    assert!(
        text.contains(&format!(
            "http://127.0.0.1:{port}/v1/find?q=hello&key=[redacted]&n=2:"
        )),
        "{text}"
    );
    assert!(!text.contains("s3cr3t") && !text.contains("frag"), "{text}");
    // No redactor: no query string at all.
    let err = expect_err(transport().send(&get(&url)));
    assert!(
        err.to_string()
            .contains(&format!("http://127.0.0.1:{port}/v1/find?[redacted]:")),
        "{err}"
    );
}

#[test]
fn plain_http_to_public_host_is_e009() {
    let err = expect_err(transport().send(&get("http://example.com/api")));
    assert_eq!(err.code(), Code::E009, "{err}");
    let err = expect_err(transport().send(&get("ftp://example.com/api")));
    assert_eq!(err.code(), Code::E009, "{err}");
    let err = expect_err(transport().send(&get("not a url")));
    assert_eq!(err.code(), Code::E009, "{err}");
}

#[test]
fn loopback_http_is_refused_without_the_opt_in_and_never_contacted() {
    let server = TestServer::start(1, |_| reply(200, Some("application/json"), "{}"));
    let strict = UreqTransport::new({
        let mut built = loopback_config();
        built.allow_http_loopback = false;
        built
    });
    let err = expect_err(strict.send(&get(&format!("{}/x", server.base))));
    assert_eq!(err.code(), Code::E009, "{err}");
    assert!(
        server.finish().is_empty(),
        "the server must not be contacted"
    );
}

#[test]
fn cross_origin_redirect_drops_secret_headers() {
    let target = TestServer::start(1, |_| reply(200, Some("application/json"), "{}"));
    let location = format!("{}/landed", target.base);
    let origin = TestServer::start(1, move |_| redirect(302, &location));
    let req = get(&format!("{}/start", origin.base))
        .with_header("X-Api-Key", HeaderValue::secret("s3cret-key"))
        .with_header("Authorization", HeaderValue::plain("Bearer not-marked"))
        .with_header("X-Trace", HeaderValue::plain("trace-1"));
    let resp = transport().send(&req).expect("redirect followed");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.final_url, format!("{}/landed", target.base));

    let first = origin.finish();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].header("X-Api-Key"), Some("s3cret-key"));
    let second = target.finish();
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].url, "/landed");
    assert_eq!(second[0].header("X-Api-Key"), None);
    assert_eq!(second[0].header("Authorization"), None);
    assert_eq!(second[0].header("X-Trace"), Some("trace-1"));
}

#[test]
fn same_origin_redirect_keeps_headers_and_307_keeps_the_body() {
    let server = TestServer::start(2, |seen| {
        if seen.url == "/old" {
            redirect(307, "/new")
        } else {
            reply(200, Some("application/json"), r#"{"ok":true}"#)
        }
    });
    let req = HttpRequest::new(Method::Post, format!("{}/old", server.base))
        .with_header("X-Api-Key", HeaderValue::secret("same-origin-key"))
        .with_header("Content-Type", HeaderValue::plain("application/json"))
        .with_body(br#"{"q":1}"#.to_vec());
    let resp = transport().send(&req).expect("redirect followed");
    assert_eq!(decode_body(&resp), Ok(json!({"ok": true})));
    let seen = server.finish();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].method, "POST");
    assert_eq!(seen[1].url, "/new");
    assert_eq!(seen[1].body, br#"{"q":1}"#.to_vec());
    assert_eq!(seen[1].header("X-Api-Key"), Some("same-origin-key"));
}

#[test]
fn see_other_turns_post_into_get_without_body() {
    let server = TestServer::start(2, |seen| {
        if seen.url == "/submit" {
            redirect(303, "/result")
        } else {
            reply(200, Some("application/json"), "{}")
        }
    });
    let req = HttpRequest::new(Method::Post, format!("{}/submit", server.base))
        .with_header("Content-Type", HeaderValue::plain("application/json"))
        .with_body(b"{}".to_vec());
    transport().send(&req).expect("redirect followed");
    let seen = server.finish();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].method, "GET");
    assert!(seen[1].body.is_empty());
    assert_eq!(seen[1].header("Content-Type"), None);
}

/// Issue #41: a POST or PUT without a body is sent with `Content-Length: 0`, not as an empty
/// chunked stream (which servers that want a length refuse).
#[test]
fn i41_a_post_without_a_body_says_content_length_zero() {
    let server = TestServer::start(2, |_| reply(200, Some("application/json"), "{}"));
    for method in [Method::Post, Method::Put] {
        let req = HttpRequest::new(method, format!("{}/run", server.base));
        transport().send(&req).expect("sent");
    }
    let seen = server.finish();
    assert_eq!(seen.len(), 2);
    for s in &seen {
        assert_eq!(s.header("Content-Length"), Some("0"), "{}", s.method);
        assert_eq!(s.header("Transfer-Encoding"), None, "{}", s.method);
        assert!(s.body.is_empty());
    }
}

#[test]
fn redirect_loop_stops_at_max_redirects() {
    let server = TestServer::start(10, |_| redirect(302, "/again"));
    let t = UreqTransport::new({
        let mut built = loopback_config();
        built.max_redirects = 3;
        built
    });
    let err = expect_err(t.send(&get(&format!("{}/again", server.base))));
    assert!(
        matches!(err, TransportError::TooManyRedirects { max: 3, .. }),
        "{err:?}"
    );
    assert_eq!(err.code(), Code::E002);
    // The original request plus three followed redirects.
    assert_eq!(server.finish().len(), 4);
}

#[test]
fn redirect_to_plain_http_public_host_is_e009() {
    let server = TestServer::start(1, |_| redirect(301, "http://example.com/elsewhere"));
    let err = expect_err(transport().send(&get(&format!("{}/start", server.base))));
    assert!(
        matches!(err, TransportError::RefusedRedirect { .. }),
        "{err:?}"
    );
    assert_eq!(err.code(), Code::E009);
    server.finish();
}

#[test]
fn gzip_response_is_decoded() {
    let payload = br#"{"compressed":true}"#;
    let gz = gzip_stored(payload);
    let server = TestServer::start(1, move |_| {
        reply(200, Some("application/json"), gz.clone())
            .with_header(header("Content-Encoding", "gzip"))
    });
    let resp = transport()
        .send(&get(&format!("{}/gz", server.base)))
        .expect("gzip response");
    assert_eq!(decode_body(&resp), Ok(json!({"compressed": true})));
    let seen = server.finish();
    let accept = seen[0].header("Accept-Encoding").unwrap_or_default();
    assert!(accept.contains("gzip"), "Accept-Encoding {accept:?}");
}

#[test]
fn broken_gzip_is_e004() {
    let server = TestServer::start(1, |_| {
        reply(
            200,
            Some("application/json"),
            b"definitely not gzip".to_vec(),
        )
        .with_header(header("Content-Encoding", "gzip"))
    });
    let err = expect_err(transport().send(&get(&format!("{}/gz", server.base))));
    assert_eq!(err.code(), Code::E004, "{err}");
    server.finish();
}

/// No error message or `Debug` output may contain a secret header value or the query string.
#[test]
fn secrets_never_appear_in_errors_or_debug_output() {
    const HEADER_CANARY: &str = "CANARY-HEADER-7f3a9";
    const QUERY_CANARY: &str = "CANARY-QUERY-51c2e";
    let mut texts: Vec<String> = Vec::new();
    let t = transport();
    let with_secrets = |url: String| {
        HttpRequest::new(Method::Get, url)
            .with_header("X-Api-Key", HeaderValue::secret(HEADER_CANARY))
    };
    let mut collect = |req: &HttpRequest, result: Result<HttpResponse, TransportError>| {
        texts.push(format!("{req:?}"));
        match result {
            Ok(resp) => texts.push(format!("{resp:?}")),
            Err(e) => {
                texts.push(e.to_string());
                texts.push(format!("{e:?}"));
                texts.push(e.envelope_message("tool"));
            }
        }
    };

    // Connection refused (E002).
    let port = free_port();
    let req = with_secrets(format!("http://127.0.0.1:{port}/v1?api_key={QUERY_CANARY}"));
    let result = t.send(&req);
    assert!(result.is_err());
    collect(&req, result);

    // Refused URL (E009).
    let req = with_secrets(format!("http://example.com/v1?api_key={QUERY_CANARY}"));
    let result = t.send(&req);
    assert!(result.is_err());
    collect(&req, result);

    // Refused redirect whose target carries the canary, and a successful response.
    let target = format!("http://example.com/next?api_key={QUERY_CANARY}");
    let server = TestServer::start(2, move |seen| {
        if seen.url.starts_with("/redirect") {
            redirect(302, &target)
        } else {
            reply(200, Some("application/json"), "{}")
        }
    });
    let req = with_secrets(format!("{}/redirect?api_key={QUERY_CANARY}", server.base));
    let result = t.send(&req);
    assert!(result.is_err());
    collect(&req, result);
    let req = with_secrets(format!("{}/ok?api_key={QUERY_CANARY}", server.base));
    let result = t.send(&req);
    assert!(result.is_ok());
    collect(&req, result);
    server.finish();

    // Timeout (E003) and too large (E008).
    let server = TestServer::start(2, |seen| {
        if seen.url.starts_with("/slow") {
            std::thread::sleep(Duration::from_millis(1000));
        }
        reply(200, Some("application/json"), vec![b' '; 2048])
    });
    let small = UreqTransport::new({
        let mut built = loopback_config();
        built.total_timeout = Duration::from_millis(200);
        built.max_body_bytes = 16;
        built
    });
    for path in ["slow", "big"] {
        let req = with_secrets(format!("{}/{path}?api_key={QUERY_CANARY}", server.base));
        let result = small.send(&req);
        assert!(result.is_err());
        collect(&req, result);
    }
    server.finish();

    // A header value that cannot be sent (E002 before connecting).
    let port = free_port();
    let req = HttpRequest::new(
        Method::Get,
        format!("http://127.0.0.1:{port}/?k={QUERY_CANARY}"),
    )
    .with_header(
        "X-Api-Key",
        HeaderValue::secret(format!("{HEADER_CANARY}\r\nX: y")),
    );
    let result = t.send(&req);
    assert!(result.is_err());
    collect(&req, result);

    assert!(texts.len() >= 20, "collected {} texts", texts.len());
    for text in &texts {
        assert!(
            !text.contains(HEADER_CANARY),
            "header canary leaked: {text}"
        );
        assert!(!text.contains(QUERY_CANARY), "query canary leaked: {text}");
    }
    assert!(texts.iter().any(|t| t.contains("[redacted]")));
}

#[test]
fn header_value_debug_redacts_only_secrets() {
    assert_eq!(format!("{:?}", HeaderValue::secret("k")), "[redacted]");
    assert_eq!(format!("{:?}", HeaderValue::plain("v")), "\"v\"");
    assert_eq!(HeaderValue::secret("k").expose(), "k");
}

/// Wraps `data` in a gzip member using a single stored (uncompressed) deflate block.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let len = u16::try_from(data.len()).expect("test payload fits one stored block");
    let mut out = vec![0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff];
    out.push(0x01); // BFINAL = 1, BTYPE = 00 (stored)
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// CRC-32 (IEEE 802.3), bitwise.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xedb8_8320 & mask);
        }
    }
    !crc
}
