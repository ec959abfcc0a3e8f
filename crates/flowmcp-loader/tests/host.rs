//! Call-time sandbox: `HandlerHost` loading, calling, limits, fetch, timers and console.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::time::{Duration, Instant};

use flowmcp_loader::{
    HandlerHost, HostConfig, HostError, Libraries, host::FetchError, host::FetchRequest,
    host::FetchResponse, host::HostBridge, host::Phase,
};
use serde_json::{Value, json};

#[derive(Default)]
struct Mock {
    requests: Vec<FetchRequest>,
    logs: Vec<(String, String)>,
    answer: Option<Result<FetchResponse, FetchError>>,
    fetch_delay: Duration,
}

impl HostBridge for Mock {
    fn fetch(&mut self, req: FetchRequest) -> Result<FetchResponse, FetchError> {
        self.requests.push(req);
        std::thread::sleep(self.fetch_delay);
        self.answer
            .clone()
            .unwrap_or_else(|| Err("no answer configured".into()))
    }
    fn log(&mut self, level: &str, text: &str) {
        self.logs.push((level.to_string(), text.to_string()));
    }
}

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn fast() -> HostConfig {
    {
        let mut v = HostConfig::spec();
        v.call_timeout = Duration::from_millis(300);
        v.factory_timeout = Duration::from_millis(300);
        v
    }
}

fn fast_compat() -> HostConfig {
    {
        let mut v = HostConfig::compat();
        v.call_timeout = Duration::from_millis(300);
        v.factory_timeout = Duration::from_millis(300);
        v
    }
}

fn load_with(src: &str, config: HostConfig) -> Result<HandlerHost, HostError> {
    HandlerHost::load(
        "schema.mjs",
        src,
        &json!({ "chains": [{ "id": 1, "name": "eth" }], "tags": { "a": "b" } }),
        Libraries::none(),
        &tools(&["t", "u"]),
        config,
    )
}

fn load(src: &str) -> HandlerHost {
    load_with(src, fast()).expect("load")
}

fn arg() -> Value {
    json!({ "struct": { "url": "https://x.test/a", "headers": {} }, "payload": { "n": 2 } })
}

const MAIN: &str = "export const main = { namespace: 'x', tools: {} };\n";

#[test]
fn sync_round_trip_all_phases() {
    let src = format!(
        "{MAIN}export const handlers = ({{ sharedLists, libraries }}) => ({{
            t: {{
                preRequest: ({{ struct, payload }}) => {{ payload.n = payload.n * 10; struct.added = true; return {{ struct, payload }}; }},
                executeRequest: ({{ struct, payload }}) => ({{ response: {{ got: payload.n, url: struct.url }} }}),
                postRequest: ({{ response, struct, payload }}) => ({{ response: {{ ...response, post: true, n: payload.n }} }}),
            }},
        }});"
    );
    let mut host = load(&src);
    let mut bridge = Mock::default();
    assert!(host.has("t", Phase::PreRequest));
    assert!(host.has("t", Phase::ExecuteRequest));
    assert!(host.has("t", Phase::PostRequest));
    assert!(!host.has("u", Phase::PreRequest));
    let pre = host
        .call("t", Phase::PreRequest, &arg(), &mut bridge)
        .unwrap();
    assert_eq!(pre["payload"]["n"], json!(20));
    assert_eq!(pre["struct"]["added"], json!(true));
    let exec = host
        .call("t", Phase::ExecuteRequest, &pre, &mut bridge)
        .unwrap();
    assert_eq!(
        exec,
        json!({ "response": { "got": 20, "url": "https://x.test/a" } })
    );
    let post_arg =
        json!({ "response": exec["response"], "struct": pre["struct"], "payload": pre["payload"] });
    let post = host
        .call("t", Phase::PostRequest, &post_arg, &mut bridge)
        .unwrap();
    assert_eq!(
        post,
        json!({ "response": { "got": 20, "url": "https://x.test/a", "post": true, "n": 20 } })
    );
    assert!(matches!(
        host.call("u", Phase::PreRequest, &arg(), &mut bridge),
        Err(HostError::NoHandler(_))
    ));
}

#[test]
fn async_round_trip_all_phases() {
    let src = format!(
        "{MAIN}export const handlers = () => ({{
            t: {{
                preRequest: async ({{ struct, payload }}) => {{ await null; payload.n += 1; return {{ struct, payload }}; }},
                executeRequest: async ({{ payload }}) => {{ const v = await Promise.resolve(payload.n); return {{ response: [v, await Promise.all([1, 2])] }}; }},
                postRequest: ({{ response }}) => Promise.resolve({{ response: {{ wrapped: response }} }}),
            }},
        }});"
    );
    let mut host = load(&src);
    let mut bridge = Mock::default();
    let pre = host
        .call("t", Phase::PreRequest, &arg(), &mut bridge)
        .unwrap();
    assert_eq!(pre["payload"]["n"], json!(3));
    let exec = host
        .call("t", Phase::ExecuteRequest, &pre, &mut bridge)
        .unwrap();
    assert_eq!(exec, json!({ "response": [3, [1, 2]] }));
    let post = host
        .call(
            "t",
            Phase::PostRequest,
            &json!({ "response": 5, "struct": {}, "payload": {} }),
            &mut bridge,
        )
        .unwrap();
    assert_eq!(post, json!({ "response": { "wrapped": 5 } }));
}

#[test]
fn factory_receives_frozen_shared_lists_and_libraries() {
    let src = format!(
        "{MAIN}export const handlers = ({{ sharedLists, libraries }}) => {{
            const info = {{
                frozen: Object.isFrozen(sharedLists) && Object.isFrozen(sharedLists.chains)
                    && Object.isFrozen(sharedLists.chains[0]) && Object.isFrozen(sharedLists.tags),
                libsFrozen: Object.isFrozen(libraries),
                libKeys: Object.keys(libraries),
                first: sharedLists.chains[0].name,
            }};
            return {{ t: {{ postRequest: () => ({{ response: {{ ...info, again: sharedLists.tags.a }} }}) }} }};
        }};"
    );
    let mut host = load(&src);
    let out = host
        .call(
            "t",
            Phase::PostRequest,
            &json!({ "response": null }),
            &mut Mock::default(),
        )
        .unwrap();
    assert_eq!(
        out,
        json!({ "response": { "frozen": true, "libsFrozen": true, "libKeys": [], "first": "eth", "again": "b" } })
    );
}

#[test]
fn shared_list_mutation_each_kind_is_sec102() {
    let cases = [
        ("assign", "sharedLists.chains[0].name = 'x';"),
        ("add", "sharedLists.newKey = 1;"),
        ("delete", "delete sharedLists.tags;"),
        ("push", "sharedLists.chains.push({});"),
    ];
    for (label, stmt) in cases {
        let src = format!(
            "{MAIN}export const handlers = ({{ sharedLists }}) => ({{
                t: {{ preRequest: ({{ struct, payload }}) => {{ {stmt} return {{ struct, payload }}; }},
                     executeRequest: async () => {{ await null; {stmt} return {{ response: 1 }}; }} }},
            }});"
        );
        let mut host = load(&src);
        let e = host
            .call("t", Phase::PreRequest, &arg(), &mut Mock::default())
            .unwrap_err();
        assert!(
            matches!(e, HostError::SharedListMutation(_)),
            "{label}: {e:?}"
        );
        assert_eq!(e.sec_code(), Some("SEC102"));
        let e = host
            .call("t", Phase::ExecuteRequest, &arg(), &mut Mock::default())
            .unwrap_err();
        assert!(
            matches!(e, HostError::SharedListMutation(_)),
            "{label} async: {e:?}"
        );
        assert!(!host.is_poisoned());
    }
    // In the factory itself too.
    let e = load_with(
        &format!("{MAIN}export const handlers = ({{ sharedLists }}) => {{ sharedLists.x = 1; return {{}}; }};"),
        fast(),
    )
    .unwrap_err();
    assert!(matches!(e, HostError::SharedListMutation(_)), "{e:?}");
}

#[test]
fn factory_throw_is_sec104() {
    let e = load_with(
        &format!("{MAIN}export const handlers = () => {{ throw new Error('factory boom'); }};"),
        fast(),
    )
    .unwrap_err();
    assert_eq!(e, HostError::FactoryThrew("factory boom".into()));
    assert_eq!(e.sec_code(), Some("SEC104"));
}

#[test]
fn factory_shape_problems() {
    for (body, what) in [
        ("() => 42", "a number"),
        ("() => null", "null"),
        ("() => [1]", "an array"),
        ("() => undefined", "undefined"),
        ("async () => ({})", "a Promise"),
    ] {
        let e = load_with(&format!("{MAIN}export const handlers = {body};"), fast()).unwrap_err();
        match e {
            HostError::FactoryShape(m) => assert!(m.contains(what), "{body}: {m}"),
            other => panic!("{body}: {other:?}"),
        }
    }
    let e = load_with(&format!("{MAIN}export const handlers = {{}};"), fast()).unwrap_err();
    assert!(matches!(e, HostError::FactoryShape(_)), "{e:?}");

    // Unknown keys are reported without failing the known ones.
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            nope: {{ preRequest: () => 1 }},
            t: {{ postRequest: ({{ response }}) => ({{ response }}), preRequest: 'not a function', extra: 1 }},
            u: 7,
        }});"
    ));
    assert_eq!(host.unknown_keys(), &["nope".to_string()]);
    assert!(host.has("t", Phase::PostRequest));
    assert!(!host.has("t", Phase::PreRequest));
    assert!(!host.has("u", Phase::PostRequest));
    let notes = host.shape_notes().join("\n");
    assert!(
        notes.contains("`t.preRequest` is not a function"),
        "{notes}"
    );
    assert!(notes.contains("unknown member `extra`"), "{notes}");
    assert!(notes.contains("`u`: the entry is a"), "{notes}");
    let out = host
        .call(
            "t",
            Phase::PostRequest,
            &json!({ "response": "r" }),
            &mut Mock::default(),
        )
        .unwrap();
    assert_eq!(out, json!({ "response": "r" }));

    // No handlers export at all.
    let host = load(MAIN);
    assert!(host.tools().is_empty());
}

#[test]
fn module_throw_is_its_own_kind() {
    let e = load_with("throw new Error('top');\nexport const main = {};", fast()).unwrap_err();
    assert_eq!(e, HostError::ModuleThrew("top".into()));
}

#[test]
fn handler_throw_and_rejection() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: () => {{ throw new Error('bad input'); }},
                 executeRequest: async () => {{ await null; throw new RangeError('late'); }},
                 postRequest: () => {{ throw 'a string'; }} }},
        }});"
    ));
    let mut b = Mock::default();
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b),
        Err(HostError::Threw("bad input".into()))
    );
    assert_eq!(
        host.call("t", Phase::ExecuteRequest, &arg(), &mut b),
        Err(HostError::Threw("late".into()))
    );
    assert_eq!(
        host.call("t", Phase::PostRequest, &arg(), &mut b),
        Err(HostError::Threw("a string".into()))
    );
    assert!(!host.is_poisoned());
}

#[test]
fn bad_returns_are_sec101() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: () => {{}}, executeRequest: async () => [1], postRequest: () => 'str' }},
            u: {{ preRequest: () => {{ const o = {{}}; o.self = o; return o; }},
                 postRequest: () => ({{ response: {{ when: new Date(0), skip: undefined, f() {{}} }} }}) }},
        }});"
    ));
    let mut b = Mock::default();
    let e = host
        .call("t", Phase::PreRequest, &arg(), &mut b)
        .unwrap_err();
    assert_eq!(
        e,
        HostError::BadReturn("returned undefined, not an object".into())
    );
    assert_eq!(e.sec_code(), Some("SEC101"));
    assert!(matches!(
        host.call("t", Phase::ExecuteRequest, &arg(), &mut b),
        Err(HostError::BadReturn(m)) if m.contains("array")
    ));
    assert!(matches!(
        host.call("t", Phase::PostRequest, &arg(), &mut b),
        Err(HostError::BadReturn(m)) if m.contains("string")
    ));
    assert!(matches!(
        host.call("u", Phase::PreRequest, &arg(), &mut b),
        Err(HostError::NotSerializable(_))
    ));
    // JSON.stringify semantics for the rest.
    assert_eq!(
        host.call("u", Phase::PostRequest, &arg(), &mut b).unwrap(),
        json!({ "response": { "when": "1970-01-01T00:00:00.000Z" } })
    );
}

#[test]
fn infinite_loop_times_out_then_poisoned() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: () => {{ for (;;) {{}} }}, postRequest: ({{ response }}) => ({{ response }}) }},
        }});"
    ));
    let mut b = Mock::default();
    let started = Instant::now();
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b),
        Err(HostError::Timeout)
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(host.is_poisoned());
    assert_eq!(
        host.call("t", Phase::PostRequest, &json!({ "response": 1 }), &mut b),
        Err(HostError::Poisoned)
    );
}

#[test]
fn async_infinite_loop_and_catch_cannot_escape_deadline() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: async () => {{ await null; try {{ for (;;) {{}} }} catch (e) {{ return {{ caught: true }}; }} }} }},
        }});"
    ));
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut Mock::default()),
        Err(HostError::Timeout)
    );
    assert!(host.is_poisoned());
}

#[test]
fn infinite_loop_in_factory_times_out() {
    let e = load_with(
        &format!("{MAIN}export const handlers = () => {{ for (;;) {{}} }};"),
        fast(),
    )
    .unwrap_err();
    assert_eq!(e, HostError::Timeout);
}

#[test]
fn unbounded_allocation_hits_memory_limit() {
    let mut host = load_with(
        &format!(
            "{MAIN}export const handlers = () => ({{
                t: {{ preRequest: () => {{ const a = []; for (;;) {{ a.push('x'.repeat(1 << 20)); }} }} }},
            }});"
        ),
        { let mut v = fast(); v.memory_bytes = 16 * 1024 * 1024; v.call_timeout = Duration::from_secs(5); v },
    )
    .unwrap();
    let e = host
        .call("t", Phase::PreRequest, &arg(), &mut Mock::default())
        .unwrap_err();
    assert!(matches!(e, HostError::Memory(_)), "{e:?}");
    assert!(host.is_poisoned());
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut Mock::default()),
        Err(HostError::Poisoned)
    );
}

#[test]
fn unbounded_recursion_hits_stack_limit() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: () => {{ const f = (n) => f(n + 1) + 1; return f(0); }} }},
        }});"
    ));
    let e = host
        .call("t", Phase::PreRequest, &arg(), &mut Mock::default())
        .unwrap_err();
    assert!(matches!(e, HostError::Memory(_)), "{e:?}");
    assert!(host.is_poisoned());
}

const FETCHING: &str = "export const handlers = () => ({
    t: {
        executeRequest: async ({ struct, payload }) => {
            const r = await fetch(struct.url, { method: 'post', headers: { 'X-Key': 'k1', Accept: 'application/json' }, body: JSON.stringify(payload) });
            const data = await r.json();
            const again = await r.text();
            return { response: { ok: r.ok, status: r.status, statusText: r.statusText, type: r.headers.get('content-type'), missing: r.headers.get('nope'), data, again } };
        },
        postRequest: async ({ response }) => { await fetch('https://x.test/b'); return { response }; },
        preRequest: ({ struct, payload }) => { try { fetch('https://x.test/c'); } catch (e) {} return { struct, payload }; },
    },
    u: {
        executeRequest: async () => {
            const r = await fetch('https://x.test/bad', { headers: [['a', '1']] });
            try { await r.json(); return { response: 'parsed?' }; } catch (e) { return { response: { name: e.name, text: await r.text() } }; }
        },
        postRequest: async () => {
            try { await fetch('https://x.test/down'); return { response: 'no' }; } catch (e) { return { response: { name: e.name, message: e.message } }; }
        },
    },
});";

#[test]
fn fetch_under_spec_is_sec100() {
    let mut host = load(&format!("{MAIN}{FETCHING}"));
    let mut b = Mock::default();
    let e = host
        .call("t", Phase::ExecuteRequest, &arg(), &mut b)
        .unwrap_err();
    assert_eq!(e, HostError::FetchForbidden);
    assert_eq!(e.sec_code(), Some("SEC100"));
    // Even when the handler swallows the exception.
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b),
        Err(HostError::FetchForbidden)
    );
    assert!(b.requests.is_empty());
    assert!(!host.is_poisoned());
    // `fetch` exists, but calling it is the violation.
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{ t: {{ preRequest: () => ({{ kind: typeof fetch }}) }} }});"
    ));
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap(),
        json!({ "kind": "function" })
    );
}

#[test]
fn fetch_under_compat_in_execute_request() {
    let mut host = load_with(&format!("{MAIN}{FETCHING}"), fast_compat()).unwrap();
    let mut b = Mock {
        answer: Some(Ok(FetchResponse {
            status: 201,
            status_text: "Created".into(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"id":7,"list":[1,2]}"#.to_vec(),
        })),
        fetch_delay: Duration::from_millis(400),
        ..Mock::default()
    };
    // The bridge blocks longer than call_timeout: blocked time does not count.
    let out = host
        .call("t", Phase::ExecuteRequest, &arg(), &mut b)
        .unwrap();
    assert_eq!(
        out,
        json!({ "response": {
            "ok": true, "status": 201, "statusText": "Created", "type": "application/json", "missing": null,
            "data": { "id": 7, "list": [1, 2] }, "again": "{\"id\":7,\"list\":[1,2]}"
        } })
    );
    assert_eq!(b.requests.len(), 1);
    let req = &b.requests[0];
    assert_eq!(req.url, "https://x.test/a");
    assert_eq!(req.method, "POST");
    assert_eq!(
        req.headers,
        vec![
            ("X-Key".to_string(), "k1".to_string()),
            ("Accept".to_string(), "application/json".to_string())
        ]
    );
    assert_eq!(req.body.as_deref(), Some(r#"{"n":2}"#));

    // Not in postRequest or preRequest.
    b.fetch_delay = Duration::ZERO;
    assert_eq!(
        host.call("t", Phase::PostRequest, &json!({ "response": 1 }), &mut b),
        Err(HostError::FetchForbidden)
    );
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b),
        Err(HostError::FetchForbidden)
    );
    assert_eq!(b.requests.len(), 1);

    // json() of a non-JSON body rejects with a SyntaxError; header arrays work; GET is the default.
    b.answer = Some(Ok(FetchResponse {
        status: 500,
        status_text: "Oops".into(),
        headers: vec![],
        body: b"not json".to_vec(),
    }));
    let out = host
        .call("u", Phase::ExecuteRequest, &arg(), &mut b)
        .unwrap();
    assert_eq!(
        out,
        json!({ "response": { "name": "SyntaxError", "text": "not json" } })
    );
    let req = b.requests.last().unwrap();
    assert_eq!(req.method, "GET");
    assert_eq!(req.headers, vec![("a".to_string(), "1".to_string())]);
    assert_eq!(req.body, None);
    assert!(!host.is_poisoned());
}

#[test]
fn fetch_bridge_error_rejects_with_type_error() {
    let mut host = load_with(
        &format!(
            "{MAIN}export const handlers = () => ({{ t: {{ executeRequest: async () => {{
                try {{ await fetch('https://x.test/down'); return {{ response: 'no' }}; }}
                catch (e) {{ return {{ response: {{ name: e.name, message: e.message }} }}; }}
            }} }} }});"
        ),
        fast_compat(),
    )
    .unwrap();
    let mut b = Mock {
        answer: Some(Err("connection refused".into())),
        ..Mock::default()
    };
    assert_eq!(
        host.call("t", Phase::ExecuteRequest, &arg(), &mut b)
            .unwrap(),
        json!({ "response": { "name": "TypeError", "message": "connection refused" } })
    );
}

#[test]
fn console_goes_to_the_bridge() {
    let mut host = load(&format!(
        "console.log('loading', 1);\n{MAIN}export const handlers = () => ({{
            t: {{ preRequest: ({{ struct, payload }}) => {{
                console.log('hello', {{ a: 1 }}, [2], undefined);
                console.info('i'); console.warn('w'); console.error(new TypeError('e')); console.debug('d');
                return {{ struct, payload }};
            }} }},
        }});"
    ));
    assert_eq!(
        host.take_load_logs(),
        vec![("log".to_string(), "loading 1".to_string())]
    );
    let mut b = Mock::default();
    host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap();
    assert_eq!(
        b.logs,
        vec![
            (
                "log".to_string(),
                r#"hello {"a":1} [2] undefined"#.to_string()
            ),
            ("info".to_string(), "i".to_string()),
            ("warn".to_string(), "w".to_string()),
            ("error".to_string(), "TypeError: e".to_string()),
            ("debug".to_string(), "d".to_string()),
        ]
    );
}

#[test]
fn console_is_capped_per_call() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: ({{ struct, payload }}) => {{ for (let i = 0; i < 5000; i++) console.log(i); return {{ struct, payload }}; }} }},
        }});"
    ));
    let mut b = Mock::default();
    host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap();
    assert_eq!(b.logs.len(), flowmcp_loader::host::MAX_LOG_MESSAGES + 1);
    assert_eq!(
        b.logs.last().unwrap().1,
        "[4000 more console messages dropped]"
    );
}

/// A child process runs the logging test; its stdout must stay empty of the handler's messages.
#[test]
fn console_never_reaches_stdout() {
    if std::env::var_os("FLOWMCP_HOST_CHILD").is_some() {
        let mut host = load(&format!(
            "{MAIN}export const handlers = () => ({{
                t: {{ preRequest: ({{ struct, payload }}) => {{ console.log('SECRET-MARKER-123'); console.error('SECRET-MARKER-456'); return {{ struct, payload }}; }} }},
            }});"
        ));
        let mut b = Mock::default();
        host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap();
        assert_eq!(b.logs.len(), 2);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "host::console_never_reaches_stdout",
            "--exact",
            "--nocapture",
        ])
        .env("FLOWMCP_HOST_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(!stdout.contains("SECRET-MARKER"), "{stdout}");
    assert!(!stderr.contains("SECRET-MARKER"), "{stderr}");
}

#[test]
fn set_timeout_under_compat_is_capped() {
    let src = format!(
        "{MAIN}export const handlers = () => ({{
            t: {{
                preRequest: async ({{ struct, payload }}) => {{
                    const order = [];
                    await new Promise((r) => setTimeout(r, 10000));
                    const id = setTimeout(() => order.push('cancelled'), 0);
                    clearTimeout(id);
                    await new Promise((r) => setTimeout((x) => {{ order.push(x); r(); }}, 5, 'arg'));
                    return {{ struct, payload: {{ order, kind: typeof setTimeout, interval: typeof setInterval }} }};
                }},
            }},
        }});"
    );
    let mut host = load_with(&src, {
        let mut v = fast_compat();
        v.max_timer_delay = Duration::from_millis(50);
        v
    })
    .unwrap();
    let started = Instant::now();
    let out = host
        .call("t", Phase::PreRequest, &arg(), &mut Mock::default())
        .unwrap();
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(50), "{took:?}");
    assert!(took < Duration::from_millis(1000), "{took:?}");
    assert_eq!(
        out["payload"],
        json!({ "order": ["arg"], "kind": "function", "interval": "function" })
    );

    // Timer sleeps never pass the call's deadline, and do not count as CPU time.
    let src = format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: async ({{ struct, payload }}) => {{
                for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 1000));
                return {{ struct, payload }};
            }} }},
        }});"
    );
    let mut host = load_with(&src, fast_compat()).unwrap();
    let started = Instant::now();
    host.call("t", Phase::PreRequest, &arg(), &mut Mock::default())
        .unwrap();
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(290), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[test]
fn timers_absent_under_spec() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ preRequest: () => ({{ t: typeof setTimeout, c: typeof clearTimeout, i: typeof setInterval }}) }},
        }});"
    ));
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut Mock::default())
            .unwrap(),
        json!({ "t": "undefined", "c": "undefined", "i": "undefined" })
    );
}

#[test]
fn never_settling_promise_is_reported() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = () => ({{ t: {{ preRequest: () => new Promise(() => {{}}) }} }});"
    ));
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut Mock::default()),
        Err(HostError::NeverSettles)
    );
    assert!(!host.is_poisoned());
}

#[test]
fn reused_for_many_calls_with_persistent_state() {
    let mut host = load(&format!(
        "let calls = 0;\n{MAIN}export const handlers = () => {{
            let seen = 0;
            return {{ t: {{ postRequest: ({{ response }}) => {{ calls++; seen++; return {{ response: {{ n: response.n * 2, calls, seen }} }}; }} }} }};
        }};"
    ));
    let mut b = Mock::default();
    for i in 1..=1000 {
        let out = host
            .call(
                "t",
                Phase::PostRequest,
                &json!({ "response": { "n": i }, "struct": {}, "payload": {} }),
                &mut b,
            )
            .unwrap();
        assert_eq!(
            out,
            json!({ "response": { "n": i * 2, "calls": i, "seen": i } })
        );
    }
    assert!(!host.is_poisoned());
}

#[test]
fn define_property_on_shared_lists_is_sec102() {
    let mut host = load(&format!(
        "{MAIN}export const handlers = ({{ sharedLists }}) => ({{
            t: {{ preRequest: () => {{ Object.defineProperty(sharedLists, 'z', {{ value: 1 }}); return {{}}; }},
                 postRequest: () => {{ Object.assign(sharedLists.tags, {{ a: 'c' }}); return {{}}; }} }},
        }});"
    ));
    let mut b = Mock::default();
    for phase in [Phase::PreRequest, Phase::PostRequest] {
        let e = host.call("t", phase, &arg(), &mut b).unwrap_err();
        assert!(
            matches!(e, HostError::SharedListMutation(_)),
            "{phase}: {e:?}"
        );
    }
}

#[test]
fn fetch_at_load_time_is_sec100() {
    let e = load_with(
        &format!(
            "{MAIN}export const handlers = () => {{ fetch('https://x.test'); return {{}}; }};"
        ),
        fast_compat(),
    )
    .unwrap_err();
    assert_eq!(e, HostError::FetchForbidden);
}

#[test]
fn leftover_timers_and_requests_are_discarded() {
    let mut host = load_with(
        &format!(
            "let fired = 0;\n{MAIN}export const handlers = () => ({{
                t: {{ preRequest: () => {{ setTimeout(() => {{ fired++; }}, 0); return {{ fired }}; }},
                     executeRequest: () => {{ fetch('https://x.test/never'); return {{ response: fired }}; }} }},
            }});"
        ),
        fast_compat(),
    )
    .unwrap();
    let mut b = Mock::default();
    for _ in 0..3 {
        assert_eq!(
            host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap(),
            json!({ "fired": 0 })
        );
    }
    assert_eq!(
        host.call("t", Phase::ExecuteRequest, &arg(), &mut b)
            .unwrap(),
        json!({ "response": 0 })
    );
    assert!(b.requests.is_empty());
    drop(host);
}

#[test]
fn uncaught_timer_exception_is_logged() {
    let mut host = load_with(
        &format!(
            "{MAIN}export const handlers = () => ({{
                t: {{ preRequest: async () => {{
                    setTimeout(() => {{ throw new Error('tick'); }}, 0);
                    await new Promise((r) => setTimeout(r, 1));
                    return {{ ok: true }};
                }} }},
            }});"
        ),
        fast_compat(),
    )
    .unwrap();
    let mut b = Mock::default();
    assert_eq!(
        host.call("t", Phase::PreRequest, &arg(), &mut b).unwrap(),
        json!({ "ok": true })
    );
    assert_eq!(
        b.logs,
        vec![(
            "error".to_string(),
            "uncaught exception in a timer callback: tick".to_string()
        )]
    );
}

#[test]
fn url_and_url_search_params_are_available() {
    let src = format!(
        "{MAIN}export const handlers = () => ({{
            t: {{
                postRequest: () => {{
                    const p = new URLSearchParams({{ q: 'a b&c', n: 1 }});
                    p.append('x', \"it's (ok)~\");
                    const parsed = new URLSearchParams('?k=v+w&k=2&empty=&flag');
                    const u = new URL('https://User:pw@Api.Example.com:8443/v1/items?page=2#top');
                    u.searchParams.set('page', '3');
                    u.searchParams.append('q', 'x y');
                    const rel = new URL('../b?c=1', 'https://h.test/a/d/e');
                    let invalid = false;
                    try {{ new URL('not a url'); }} catch (e) {{ invalid = e instanceof TypeError; }}
                    return {{ response: {{
                        p: p.toString(), k: parsed.getAll('k'), empty: parsed.get('empty'),
                        flag: parsed.has('flag'), missing: parsed.get('nope'),
                        href: u.href, host: u.host, hostname: u.hostname, port: u.port,
                        path: u.pathname, search: u.search, hash: u.hash, origin: u.origin,
                        json: JSON.stringify({{ u }}), rel: rel.toString(), invalid,
                    }} }};
                }},
            }},
        }});"
    );
    let mut host = load(&src);
    let out = host
        .call("t", Phase::PostRequest, &arg(), &mut Mock::default())
        .expect("call");
    let r = &out["response"];
    assert_eq!(r["p"], json!("q=a+b%26c&n=1&x=it%27s+%28ok%29%7E"));
    assert_eq!(r["k"], json!(["v w", "2"]));
    assert_eq!(r["empty"], json!(""));
    assert_eq!(r["flag"], json!(true));
    assert_eq!(r["missing"], Value::Null);
    assert_eq!(
        r["href"],
        json!("https://User:pw@api.example.com:8443/v1/items?page=3&q=x+y#top")
    );
    assert_eq!(r["host"], json!("api.example.com:8443"));
    assert_eq!(r["hostname"], json!("api.example.com"));
    assert_eq!(r["port"], json!("8443"));
    assert_eq!(r["path"], json!("/v1/items"));
    assert_eq!(r["search"], json!("?page=3&q=x+y"));
    assert_eq!(r["hash"], json!("#top"));
    assert_eq!(r["origin"], json!("https://api.example.com:8443"));
    assert_eq!(
        r["json"],
        json!("{\"u\":\"https://User:pw@api.example.com:8443/v1/items?page=3&q=x+y#top\"}")
    );
    assert_eq!(r["rel"], json!("https://h.test/a/b?c=1"));
    assert_eq!(r["invalid"], json!(true));
}

#[test]
fn stack_overflow_in_a_timer_callback_is_a_limit_breach() {
    let src = format!(
        "{MAIN}export const handlers = () => ({{
            t: {{ postRequest: async () => {{
                await new Promise((resolve) => setTimeout(() => {{ const f = () => f() + 1; f(); resolve(); }}, 0));
                return {{ response: 1 }};
            }} }},
        }});"
    );
    let mut host = load_with(&src, fast_compat()).expect("load");
    let err = host
        .call("t", Phase::PostRequest, &arg(), &mut Mock::default())
        .expect_err("overflow");
    assert!(matches!(err, HostError::Memory(_)), "{err:?}");
    assert!(host.is_poisoned());
}
