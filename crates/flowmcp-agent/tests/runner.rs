//! The agent runner against a scripted local chat endpoint and a local upstream: the tool loop,
//! `maxRounds`, a tool error fed back, malformed replies, and the agent's tests. No network.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Duration;

use flowmcp_agent::{AgentError, AgentRunner, Endpoint};
use flowmcp_catalog::serde_json::{Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

/// What the fake endpoint saw of one request: its body and its `Authorization` header.
type Seen = (Value, Option<String>);

/// A chat endpoint that answers each request with the next of `replies` (a JSON value, or raw
/// text with a status) and returns what it was sent.
fn chat(replies: Vec<(u16, String)>) -> (String, JoinHandle<Vec<Seen>>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for (status, body) in replies {
            let Ok(Some(mut request)) = server.recv_timeout(Duration::from_secs(10)) else {
                break;
            };
            let mut text = String::new();
            let _ = request.as_reader().read_to_string(&mut text);
            let auth = request
                .headers()
                .iter()
                .find(|h| h.field.equiv("Authorization"))
                .map(|h| h.value.to_string());
            seen.push((serde_json::from_str(&text).unwrap_or(Value::Null), auth));
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request.respond(
                tiny_http::Response::from_string(body)
                    .with_status_code(status)
                    .with_header(header),
            );
        }
        seen
    });
    (format!("http://127.0.0.1:{port}/v1"), handle)
}

/// A reply asking for tool calls.
fn calls(list: &[(&str, Value)]) -> (u16, String) {
    let tool_calls: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("call_{i}"), "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    (
        200,
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": tool_calls}}],
               "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
        .to_string(),
    )
}

/// A final answer.
fn answer(text: &str) -> (u16, String) {
    (
        200,
        json!({"choices": [{"message": {"role": "assistant", "content": text}}],
               "usage": {"prompt_tokens": 120, "completion_tokens": 20}})
        .to_string(),
    )
}

/// An upstream for holidaykit-net that answers every request.
fn upstream(n: usize) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    std::thread::spawn(move || {
        for _ in 0..n {
            let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(10)) else {
                break;
            };
            let body = if request.url().starts_with("/check/") {
                r#"{"date": "2026-10-03", "isHoliday": true, "isWorkingDay": false, "holidayName": "German Unity Day"}"#
            } else if request.url().starts_with("/countries") {
                r#"[{"countryCode": "AT", "name": "Austria", "regionCount": 9}]"#
            } else {
                r#"[{"date": "2026-10-03", "name": "German Unity Day", "type": "public"}]"#
            };
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request.respond(tiny_http::Response::from_string(body).with_header(header));
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog")
}

/// An empty environment, plain HTTP to loopback allowed, no cache, `holidaykit-net` sent to
/// `upstream`.
fn options(upstream: &str) -> CatalogOptions {
    let mut o = CatalogOptions::new(Profile::Spec);
    o.env_override = Some(BTreeMap::new());
    o.transport.allow_http_loopback = true;
    o.add_upstream("holidaykit-net", upstream)
        .expect("a loopback upstream");
    o.runner.cache = None;
    o
}

fn catalog(upstream: &str) -> Catalog {
    Catalog::open(&examples(), &options(upstream)).unwrap()
}

fn endpoint(url: &str) -> Endpoint {
    let mut endpoint = Endpoint::new(url);
    endpoint.api_key = Some("sk-test-secret-123".into());
    endpoint.timeout = Duration::from_secs(10);
    endpoint
}

#[test]
fn the_loop_calls_tools_through_the_catalog_and_returns_the_answer() {
    let c = catalog(&upstream(1));
    let (url, server) = chat(vec![
        calls(&[(
            "getPublicHolidays_holidaykit-net",
            json!({"year": 2026, "countryCode": "DE"}),
        )]),
        answer("Germany has German Unity Day on 2026-10-03."),
    ]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let o = runner
        .run("Which public holidays does Germany have in 2026?")
        .unwrap();
    assert_eq!(o.answer, "Germany has German Unity Day on 2026-10-03.");
    assert_eq!(o.rounds, 1);
    assert_eq!(o.calls.len(), 1);
    assert_eq!(o.calls[0].id, "holidaykit-net/tool/getPublicHolidays");
    assert!(o.calls[0].ok);
    assert_eq!(o.usage, (220, 30));
    let seen = server.join().unwrap();
    assert_eq!(seen.len(), 2);
    // The model, the system prompt, the tools by wire name, the key as a bearer token.
    let first = &seen[0].0;
    assert_eq!(first["model"], json!("anthropic/claude-sonnet-4-5"));
    assert_eq!(first["messages"][0]["role"], json!("system"));
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(
        offered.contains(&"getPublicHolidays_holidaykit-net"),
        "{offered:?}"
    );
    assert!(offered.contains(&"byCode_atlasdata-org"), "{offered:?}");
    assert_eq!(seen[0].1.as_deref(), Some("Bearer sk-test-secret-123"));
    // The tool's result went back as a tool message.
    let tool = &seen[1].0["messages"][3];
    assert_eq!(tool["role"], json!("tool"));
    assert_eq!(tool["tool_call_id"], json!("call_0"));
    assert!(
        tool["content"]
            .as_str()
            .unwrap()
            .contains("German Unity Day")
    );
    // The transcript has every request and tool call, never the key.
    let transcript = Value::Array(o.transcript).to_string();
    assert!(transcript.contains("\"toolCall\""));
    assert!(!transcript.contains("sk-test-secret-123"));
}

/// Issue #44: with a result budget, a tool result the model reads is cut inside the tool's output
/// schema, and its envelope's warning says what was cut.
#[test]
fn i44_a_result_budget_bounds_what_the_model_reads_of_a_tool_result() {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    let countries: Vec<Value> = (0..200)
        .map(|i| json!({"countryCode": format!("C{i}"), "name": format!("Country {i}"), "regionCount": i}))
        .collect();
    let body = Value::Array(countries).to_string();
    std::thread::spawn(move || {
        if let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(10)) {
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = request.respond(tiny_http::Response::from_string(body).with_header(header));
        }
    });
    let c = catalog(&format!("http://127.0.0.1:{port}"));
    let (url, chat_server) = chat(vec![
        calls(&[("listCountries_holidaykit-net", json!({}))]),
        answer("done"),
    ]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url))
        .unwrap()
        .with_result_budget(Some(2_000));
    runner.run("Which countries?").unwrap();
    let seen = chat_server.join().unwrap();
    let tool = &seen[1].0["messages"][3];
    let envelope: Value = serde_json::from_str(tool["content"].as_str().unwrap()).unwrap();
    let kept = envelope["data"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() < 200, "{}", kept.len());
    assert!(envelope["data"].to_string().len() <= 2_000);
    assert_eq!(kept[0]["countryCode"], json!("C0"));
    let warning = envelope["warnings"][0].as_str().unwrap();
    assert!(
        warning.starts_with("result cut to fit 2000 bytes ("),
        "{warning}"
    );
    assert!(
        warning.ends_with(&format!("/: {} of 200 elements", kept.len())),
        "{warning}"
    );
}

#[test]
fn a_tool_error_goes_back_to_the_model_and_max_rounds_ends_the_loop() {
    let c = catalog("http://127.0.0.1:9");
    // The example agent allows 6 rounds; the model asks for a tool every time, wrongly.
    let bad = calls(&[("checkWorkingDay_holidaykit-net", json!({"date": 3}))]);
    let (url, server) = chat(vec![bad; 7]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let e = runner.run("Is 2026-10-03 a working day?").unwrap_err();
    assert!(matches!(e, AgentError::MaxRounds(6)), "{e}");
    assert!(e.to_string().starts_with("AGENT005"));
    let seen = server.join().unwrap();
    assert_eq!(seen.len(), 7);
    let last = seen[6].0["messages"].as_array().unwrap();
    let fed_back = last
        .iter()
        .filter(|m| m["role"] == json!("tool"))
        .filter(|m| m["content"].as_str().unwrap_or_default().contains("E007"))
        .count();
    assert_eq!(
        fed_back, 6,
        "each round's input error went back to the model"
    );
}

#[test]
fn malformed_replies_and_http_errors_are_coded_errors() {
    let c = catalog("http://127.0.0.1:9");
    for (reply, code) in [
        ((200, "not json".to_string()), "AGENT004"),
        ((200, json!({"nope": 1}).to_string()), "AGENT004"),
        (
            (
                200,
                json!({"choices": [{"message": {"tool_calls": "x"}}]}).to_string(),
            ),
            "AGENT004",
        ),
        (
            (
                200,
                json!({"choices": [{"message": {"tool_calls": [{"id": "a"}]}}]}).to_string(),
            ),
            "AGENT004",
        ),
        ((500, "overloaded".to_string()), "AGENT003"),
    ] {
        let (url, server) = chat(vec![reply]);
        let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
        let e = runner.run("hello").unwrap_err();
        assert!(e.to_string().starts_with(code), "{e}");
        assert!(!e.to_string().contains("sk-test-secret-123"));
        server.join().unwrap();
    }
    // Nothing listens.
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint("http://127.0.0.1:9")).unwrap();
    assert!(
        runner
            .run("hello")
            .unwrap_err()
            .to_string()
            .starts_with("AGENT003")
    );
}

#[test]
fn the_agent_tests_pass_and_a_wrong_tool_fails_with_the_reason() {
    let script = |second_tool: &str| {
        vec![
            calls(&[(
                "getPublicHolidays_holidaykit-net",
                json!({"year": 2026, "countryCode": "DE"}),
            )]),
            answer("German Unity Day is on 2026-10-03."),
            calls(&[(
                second_tool,
                json!({"countryCode": "DE", "date": "2026-10-03"}),
            )]),
            answer("No, it is German Unity Day."),
            calls(&[
                ("listCountries_holidaykit-net", json!({})),
                (
                    "getPublicHolidays_holidaykit-net",
                    json!({"year": 2026, "countryCode": "AT"}),
                ),
            ]),
            answer("Your long weekends in Austria: …"),
        ]
    };
    let c = catalog(&upstream(4));
    let (url, server) = chat(script("checkWorkingDay_holidaykit-net"));
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let results = runner.test();
    server.join().unwrap();
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r.failure.is_none()), "{results:?}");

    let c = catalog(&upstream(4));
    let (url, server) = chat(script("getPublicHolidays_holidaykit-net"));
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let results = runner.test();
    server.join().unwrap();
    assert!(results[0].failure.is_none());
    assert_eq!(
        results[1].failure.as_deref(),
        Some(
            "expected tools not called: holidaykit-net/tool/checkWorkingDay (called: holidaykit-net/tool/getPublicHolidays)"
        )
    );
    assert!(results[2].failure.is_none());
}

#[test]
fn concurrency_safe_tool_calls_of_one_reply_run_at_the_same_time() {
    // The upstream answers only once both requests are in: run one after the other, the first
    // call would wait for the second and time out.
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let port = server.server_addr().to_ip().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        while held.len() < 2 {
            match server.recv_timeout(Duration::from_secs(5)) {
                Ok(Some(r)) => held.push(r),
                _ => break,
            }
        }
        for r in held {
            let body = if r.url().starts_with("/countries") {
                r#"[{"countryCode": "AT", "name": "Austria", "regionCount": 9}]"#
            } else {
                r#"[{"date": "2026-10-26", "name": "National Day", "type": "public"}]"#
            };
            let header = tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap();
            let _ = r.respond(tiny_http::Response::from_string(body).with_header(header));
        }
    });
    let mut o = options(&format!("http://127.0.0.1:{port}"));
    o.transport.total_timeout = Duration::from_secs(3);
    o.runner.timeout = Duration::from_secs(3);
    let c = Catalog::open(&examples(), &o).unwrap();
    let (url, chat_server) = chat(vec![
        calls(&[
            ("listCountries_holidaykit-net", json!({})),
            (
                "getPublicHolidays_holidaykit-net",
                json!({"year": 2026, "countryCode": "AT"}),
            ),
        ]),
        answer("Austria: National Day."),
    ]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let o = runner.run("Austria?").unwrap();
    chat_server.join().unwrap();
    assert_eq!(o.calls.len(), 2);
    assert!(o.calls.iter().all(|c| c.ok), "{:?}", o.calls);
    // The results keep the order the model asked in.
    assert_eq!(o.calls[0].id, "holidaykit-net/tool/listCountries");
}

/// Issue #27 item 7: what the model endpoint sends back is redacted before anything is derived
/// from it. A gateway that echoes the key cannot put it into an error (the HTTP error body, a tool
/// call the runner cannot read), the answer, the transcript or the arguments of a tool call (which
/// would carry it to a tool's API).
#[test]
fn item07_the_endpoint_cannot_echo_the_key_into_errors_answers_or_transcripts() {
    const KEY: &str = "sk-test-secret-123";
    let c = catalog(&upstream(1));
    let (url, server) = chat(vec![
        calls(&[(
            "getPublicHolidays_holidaykit-net",
            json!({"year": 2026, "countryCode": "DE", "note": format!("Bearer {KEY}")}),
        )]),
        answer(&format!("Your key is {KEY}.")),
    ]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let o = runner.run("What is my key?").unwrap();
    let seen = server.join().unwrap();
    assert_eq!(o.answer, "Your key is [redacted].");
    let transcript = Value::Array(o.transcript.clone()).to_string();
    assert!(!transcript.contains("sk-test-se"), "{transcript}");
    let arguments = Value::Array(o.calls.iter().map(|c| c.arguments.clone()).collect());
    assert!(!arguments.to_string().contains("sk-test-se"), "{arguments}");
    // The second request (the tool's result and the model's own message) carries no key either.
    assert!(
        !seen[1].0.to_string().contains("sk-test-se"),
        "{}",
        seen[1].0
    );

    let filler = "x".repeat(290);
    for (reply, code) in [
        ((401, format!("invalid key: Bearer {KEY}")), "AGENT003"),
        // The key across the 300th character: no part of it may show.
        ((500, format!("{filler}{KEY}")), "AGENT003"),
        (
            (
                200,
                json!({"choices": [{"message": {"tool_calls": [{"id": KEY}]}}]}).to_string(),
            ),
            "AGENT004",
        ),
    ] {
        let (url, server) = chat(vec![reply]);
        let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
        let e = runner.run("hello").unwrap_err().to_string();
        assert!(e.starts_with(code), "{e}");
        assert!(!e.contains("sk-test-se"), "{e}");
        server.join().unwrap();
    }
    // `Endpoint::complete` (what `grade --llm` uses) redacts its replies the same way.
    let (url, server) = chat(vec![answer(&format!("echo {KEY}"))]);
    let reply = endpoint(&url).complete(&json!({"model": "m"})).unwrap();
    assert_eq!(
        Endpoint::reply_text(&reply).unwrap(),
        "echo [redacted]".to_string()
    );
    server.join().unwrap();
}

/// A tool call's result stays an envelope through the runner: its status and its failure's code
/// come from it, and the model gets the same envelope as JSON that the transcript keeps.
#[test]
fn i40_a_tool_calls_outcome_is_read_from_its_envelope_not_from_json() {
    let c = catalog(&upstream(1));
    let (url, server) = chat(vec![
        calls(&[
            (
                "getPublicHolidays_holidaykit-net",
                json!({"year": 2026, "countryCode": "DE"}),
            ),
            ("notATool_anywhere", json!({})),
        ]),
        answer("Done."),
    ]);
    let runner = AgentRunner::new(&c, "holiday-planner", endpoint(&url)).unwrap();
    let o = runner.run("Holidays?").unwrap();
    assert_eq!(o.calls.len(), 2);
    assert!(o.calls[0].ok);
    assert_eq!(o.calls[0].failure, None);
    assert!(!o.calls[1].ok);
    assert_eq!(o.calls[1].failure, Some(flowmcp_catalog::Code::E007));
    let seen = server.join().unwrap();
    let tool_messages: Vec<Value> = seen[1].0["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == json!("tool"))
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap())
        .collect();
    let results: Vec<&Value> = o
        .transcript
        .iter()
        .filter_map(|t| t.get("toolCall"))
        .map(|t| &t["result"])
        .collect();
    assert_eq!(tool_messages.iter().collect::<Vec<_>>(), results);
    assert_eq!(results[0]["status"], json!(true));
    assert_eq!(results[1]["status"], json!(false));
}

/// The runner reads the typed manifest: `maxRounds`, `model` and the tests are the manifest's
/// as `Catalog::agent_manifest` gives them.
#[test]
fn i40_the_runner_uses_the_typed_manifest() {
    let c = catalog("http://127.0.0.1:9");
    let manifest = c.agent_manifest("holiday-planner").unwrap();
    assert_eq!(
        manifest.model.as_deref(),
        Some("anthropic/claude-sonnet-4-5")
    );
    assert_eq!(manifest.max_rounds(), 6);
    assert!(manifest.tests.len() >= 3);
    assert!(
        manifest
            .tests
            .iter()
            .all(|t| t.input.is_some() && !t.expected_tools.is_empty())
    );
    assert!(c.agent_manifest("no-such-agent").is_none());
}
