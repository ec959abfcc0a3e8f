//! `main.auth` (issue #44, D138/D139) end to end against local `tiny_http` servers: the
//! podcastindex signature checked by a server that recomputes it with this file's own SHA-1,
//! HTTP basic, OAuth 2 client credentials (one token for two calls, a new one after expiry, one
//! refresh and one retry after a 401), and no secret, signature or token in envelopes, errors,
//! logs or the preload cache.

use crate::calls;
use crate::support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use calls::{load, opts, runner, transport};
use flowmcp_runtime::Envelope;
use flowmcp_runtime::auth::Clock;
use flowmcp_runtime::cache::Cache;
use flowmcp_spec::{Code, Profile};
use serde_json::{Map, Value, json};
use support::{Scratch, Seen, TestServer, reply};

const KEY: &str = "pi-key-123";
const SECRET: &str = "CANARY-pi-secret-7d1e";

/// SHA-1 written for this test, apart from the runtime's (FIPS 180-4, one 64-byte block at a
/// time); checked against the standard's "abc" vector before it judges anything.
fn test_sha1(data: &[u8]) -> String {
    let mut state = [
        0x6745_2301_u32,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut padded = data.to_vec();
    padded.push(0x80);
    padded.resize(padded.len().div_ceil(64) * 64, 0);
    if padded.len() - data.len() < 9 {
        padded.resize(padded.len() + 64, 0);
    }
    let n = padded.len();
    padded[n - 8..].copy_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in padded.chunks(64) {
        let mut w: Vec<u32> = block
            .chunks(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        for t in 16..80 {
            let x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
            w.push(x.rotate_left(1));
        }
        let mut v = state;
        for (t, word) in w.iter().enumerate() {
            let (f, k) = if t < 20 {
                ((v[1] & v[2]) | (!v[1] & v[3]), 0x5A82_7999)
            } else if t < 40 {
                (v[1] ^ v[2] ^ v[3], 0x6ED9_EBA1)
            } else if t < 60 {
                ((v[1] & v[2]) | (v[1] & v[3]) | (v[2] & v[3]), 0x8F1B_BCDC)
            } else {
                (v[1] ^ v[2] ^ v[3], 0xCA62_C1D6)
            };
            let temp = v[0]
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(v[4])
                .wrapping_add(k)
                .wrapping_add(*word);
            v = [temp, v[0], v[1].rotate_left(30), v[2], v[3]];
        }
        for i in 0..5 {
            state[i] = state[i].wrapping_add(v[i]);
        }
    }
    state.iter().map(|x| format!("{x:08x}")).collect()
}

/// A clock the test sets.
#[derive(Debug)]
struct TestClock(Mutex<SystemTime>);

impl TestClock {
    fn at(secs: u64) -> Arc<TestClock> {
        Arc::new(TestClock(Mutex::new(
            UNIX_EPOCH + Duration::from_secs(secs),
        )))
    }

    fn advance(&self, secs: u64) {
        let mut t = self.0.lock().unwrap();
        *t += Duration::from_secs(secs);
    }
}

impl Clock for TestClock {
    fn now(&self) -> SystemTime {
        *self.0.lock().unwrap()
    }
}

fn json_reply(body: Value) -> support::Reply {
    reply(200, Some("application/json"), body.to_string())
}

/// Asserts none of `secrets` appears in the envelope or the logs.
fn nothing_shown(env: &Envelope, logs: &[String], secrets: &[&str]) {
    let text = env.to_json().to_string();
    for s in secrets {
        assert!(!text.contains(s), "{s} leaked into {text}");
        for l in logs {
            assert!(!l.contains(s), "{s} leaked into log line {l}");
        }
    }
}

const TOOL: &str = "parameters: [ { position: { key: 'q', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ]";

/// A schema modelled on the public collection's podcastindex: the key in `X-Auth-Key`, and the
/// signature its documentation gives (SHA-1 of key, secret and Unix time, hex, in
/// `Authorization`, the time in `X-Auth-Date`) declared instead of computed in a handler. The
/// handler only records which headers it saw.
fn podcast_schema(dir: &Scratch, preload: bool) {
    let preload = if preload {
        "preload: { enabled: true, ttl: 600 },"
    } else {
        ""
    };
    dir.write(
        "podcasts.mjs",
        &format!(
            "export const main = {{
    namespace: 'podcasts', name: 'Podcasts', description: 'Podcast search', version: '4.2.0',
    root: 'https://api.podcastindex.test/api/1.0',
    requiredServerParams: [ 'PI_KEY', 'PI_SECRET' ],
    headers: {{ 'User-Agent': 'FlowMCP/1.0', 'X-Auth-Key': '{{{{SERVER_PARAM:PI_KEY}}}}' }},
    auth: {{ kind: 'signature', digest: 'sha1',
        parts: [ '{{{{SERVER_PARAM:PI_KEY}}}}', '{{{{SERVER_PARAM:PI_SECRET}}}}', 'time' ],
        header: 'Authorization', timeHeader: 'X-Auth-Date' }},
    tools: {{ searchByTerm: {{ method: 'GET', path: '/search/byterm', description: 'Search', {preload} {TOOL} }} }}
}}
export const handlers = ( {{ sharedLists, libraries }} ) => ( {{
    searchByTerm: {{ preRequest: async ( {{ struct, payload }} ) => {{
        const values = Object.values( struct.headers ).join( ',' )
        const seen = values.includes( '{KEY}' ) || values.includes( '{SECRET}' ) ? 'values' : 'tokens'
        struct.headers[ 'X-Handler-Saw' ] = Object.keys( struct.headers ).join( ',' ) + '|' + seen
        return {{ struct, payload }}
    }} }}
}} )
"
        ),
    );
}

/// The podcastindex server: checks the signature with the test's own SHA-1 and the secret it
/// knows, rejects a mismatch with 401, and echoes every header back.
fn podcast_server(requests: usize) -> TestServer {
    TestServer::start(requests, |seen: &Seen| {
        let date = seen.header("X-Auth-Date").unwrap_or_default().to_string();
        let key = seen.header("X-Auth-Key").unwrap_or_default().to_string();
        let expected = test_sha1(format!("{key}{SECRET}{date}").as_bytes());
        let headers: Map<String, Value> = seen
            .headers
            .iter()
            .map(|(k, v)| (k.to_lowercase(), Value::String(v.clone())))
            .collect();
        if seen.header("Authorization") == Some(expected.as_str()) && key == KEY {
            json_reply(json!({"status": "true", "feeds": [], "headers": headers}))
        } else {
            reply(401, Some("application/json"), r#"{"status":"false"}"#)
        }
    })
}

fn podcast_env(secret: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PI_KEY".to_string(), KEY.to_string()),
        ("PI_SECRET".to_string(), secret.to_string()),
    ])
}

/// Issue #44, acceptance: podcastindex's signing expressed declaratively is the signature the API
/// documents, computed independently by the server; a wrong secret is refused; handlers never see
/// the signature, its time or the secret; nothing of them is shown.
#[test]
fn i44_podcastindex_signature_is_checked_by_an_independent_server() {
    assert_eq!(
        test_sha1(b"abc"),
        "a9993e364706816aba3e25717850c26c9cd0d89d"
    );
    assert_eq!(test_sha1(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    let dir = Scratch::new("i44-podcast");
    podcast_schema(&dir, false);
    let server = podcast_server(3);
    let t = transport();
    let ups = [("podcasts", server.base.as_str())];

    // The system clock: whatever second it is, the server agrees.
    let set = load(&dir.0, Profile::Spec, podcast_env(SECRET));
    let (r, logs) = runner(&set, &t, opts(&ups));
    let e = r.call_strings("searchByTerm_podcasts", [("q", "rust")]);
    assert!(e.status(), "{e:?}");
    nothing_shown(&e, &logs.borrow(), &[SECRET]);
    drop(r);

    // A fixed clock: the time header and the signature are exactly the documented ones.
    let mut o = opts(&ups);
    o.clock = Some(TestClock::at(1_700_000_000));
    let (r, logs) = runner(&set, &t, o);
    let e = r.call_strings("searchByTerm_podcasts", [("q", "rust")]);
    assert!(e.status(), "{e:?}");
    let signature = test_sha1(format!("{KEY}{SECRET}1700000000").as_bytes());
    assert_eq!(signature, "fc9ffc4eb0536df41f113c037b24d6bb6a021cf5");
    // The server echoed the signature: it is redacted like a secret.
    assert_eq!(e.data()["headers"]["authorization"], json!("[redacted]"));
    assert_eq!(e.data()["headers"]["x-auth-date"], json!("1700000000"));
    nothing_shown(&e, &logs.borrow(), &[SECRET, &signature]);
    drop(r);

    // Another secret: another signature, which the server refuses.
    let wrong = load(&dir.0, Profile::Spec, podcast_env("CANARY-wrong-secret"));
    let (r, logs) = runner(&wrong, &t, opts(&ups));
    let e = r.call_strings("searchByTerm_podcasts", [("q", "rust")]);
    assert!(!e.status());
    assert_eq!(e.code(), Some(Code::E001), "{e:?}");
    nothing_shown(&e, &logs.borrow(), &["CANARY-wrong-secret"]);
    drop(r);

    let seen = server.finish();
    assert_eq!(seen.len(), 3);
    for s in &seen {
        let saw = s.header("X-Handler-Saw").expect("the handler ran");
        let lower = saw.to_lowercase();
        assert!(
            !lower.contains("authorization") && !lower.contains("x-auth-date"),
            "the handler saw {saw}"
        );
        // The key's header held a slot token, never the key.
        assert!(saw.ends_with("|tokens"), "{saw}");
        assert_eq!(s.header("User-Agent"), Some("FlowMCP/1.0"));
        assert!(s.url.starts_with("/search/byterm?q=rust"), "{}", s.url);
    }
    assert_eq!(seen[1].header("X-Auth-Date"), Some("1700000000"));
    assert_eq!(
        seen[1].header("Authorization"),
        Some("fc9ffc4eb0536df41f113c037b24d6bb6a021cf5")
    );
}

/// Issue #44: HTTP basic from two server parameters, checked by the server; the handler-free
/// request carries exactly `Basic base64(user:password)`, and neither part is shown.
#[test]
fn i44_basic_auth_is_sent_from_two_server_parameters() {
    const PASSWORD: &str = "CANARY-basic-7d1e";
    let dir = Scratch::new("i44-basic");
    dir.write(
        "basic.mjs",
        &format!(
            "export const main = {{
    namespace: 'vault', name: 'Vault', description: 'Basic auth', version: '4.2.0',
    root: 'https://vault.example.test', requiredServerParams: [ 'VAULT_USER', 'VAULT_PASSWORD' ],
    auth: {{ kind: 'basic', username: '{{{{SERVER_PARAM:VAULT_USER}}}}', password: '{{{{SERVER_PARAM:VAULT_PASSWORD}}}}' }},
    tools: {{ find: {{ method: 'GET', path: '/find', description: 'Find', {TOOL} }} }}
}}"
        ),
    );
    let server = TestServer::start(2, |seen: &Seen| {
        // base64("alice:CANARY-basic-7d1e"), written out.
        if seen.header("Authorization") == Some("Basic YWxpY2U6Q0FOQVJZLWJhc2ljLTdkMWU=") {
            json_reply(json!({"ok": true, "echo": seen.header("Authorization")}))
        } else {
            // An API that echoes what it refused: the error's body cut must not show it.
            let sent = seen.header("Authorization").unwrap_or_default();
            reply(401, None, format!("refused {sent}"))
        }
    });
    let t = transport();
    let ups = [("vault", server.base.as_str())];
    let env = BTreeMap::from([
        ("VAULT_USER".to_string(), "alice".to_string()),
        ("VAULT_PASSWORD".to_string(), PASSWORD.to_string()),
    ]);
    let set = load(&dir.0, Profile::Spec, env);
    let (r, logs) = runner(&set, &t, opts(&ups));
    let e = r.call_strings("find_vault", [("q", "x")]);
    assert!(e.status(), "{e:?}");
    assert_eq!(e.data()["echo"], json!("[redacted]"));
    nothing_shown(
        &e,
        &logs.borrow(),
        &[PASSWORD, "YWxpY2U6Q0FOQVJZLWJhc2ljLTdkMWU="],
    );
    drop(r);

    // A wrong password is refused by the server (E001), and not shown either.
    let env = BTreeMap::from([
        ("VAULT_USER".to_string(), "alice".to_string()),
        ("VAULT_PASSWORD".to_string(), "CANARY-other".to_string()),
    ]);
    let set = load(&dir.0, Profile::Spec, env);
    let (r, logs) = runner(&set, &t, opts(&ups));
    let e = r.call_strings("find_vault", [("q", "x")]);
    assert_eq!(e.code(), Some(Code::E001), "{e:?}");
    assert_eq!(
        e.messages()[0],
        "E001 find: API returned 401: refused [redacted]",
        "{e:?}"
    );
    nothing_shown(
        &e,
        &logs.borrow(),
        &["CANARY-other", "YWxpY2U6Q0FOQVJZLW90aGVy"],
    );
    drop(r);
    assert_eq!(server.finish().len(), 2);
}

/// Issue #44: OAuth 2 client credentials against a local token endpoint and API. One token
/// serves two calls; after it expires a new one is fetched; a 401 makes the runner fetch a new
/// token and send once more, and only once; the client secret goes only to the token URL and the
/// token is never shown.
#[test]
fn i44_client_credentials_fetch_cache_refresh_and_retry_once() {
    const CLIENT_SECRET: &str = "CANARY-client-7d1e";
    let dir = Scratch::new("i44-oauth");
    dir.write(
        "oauth.mjs",
        &format!(
            "export const main = {{
    namespace: 'ledger', name: 'Ledger', description: 'OAuth', version: '4.2.0',
    root: 'https://api.ledger.test/v2', requiredServerParams: [ 'LEDGER_ID', 'LEDGER_SECRET' ],
    auth: {{ kind: 'oauth2-client-credentials', tokenUrl: 'https://api.ledger.test/oauth/token',
        clientId: '{{{{SERVER_PARAM:LEDGER_ID}}}}', clientSecret: '{{{{SERVER_PARAM:LEDGER_SECRET}}}}', scope: 'read' }},
    tools: {{
        entries: {{ method: 'GET', path: '/entries', description: 'Entries', {TOOL} }},
        locked: {{ method: 'GET', path: '/locked', description: 'Always refused', {TOOL} }}
    }}
}}"
        ),
    );
    let issued = Arc::new(AtomicUsize::new(0));
    let uses = Arc::new(Mutex::new(BTreeMap::<String, usize>::new()));
    let (issued_s, uses_s) = (issued.clone(), uses.clone());
    let server = TestServer::start(20, move |seen: &Seen| {
        if seen.url == "/oauth/token" {
            let body = String::from_utf8_lossy(&seen.body).to_string();
            // base64("client-1:CANARY-client-7d1e"), written out.
            let client_ok =
                seen.header("Authorization") == Some("Basic Y2xpZW50LTE6Q0FOQVJZLWNsaWVudC03ZDFl");
            if seen.method != "POST"
                || !client_ok
                || body != "grant_type=client_credentials&scope=read"
            {
                return reply(401, None, "bad client");
            }
            let n = issued_s.fetch_add(1, Ordering::SeqCst) + 1;
            return json_reply(json!({"access_token": format!("CANARY-tok-{n}"),
                                     "token_type": "bearer", "expires_in": 3600}));
        }
        let token = seen
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer "))
            .unwrap_or_default()
            .to_string();
        let latest = format!("CANARY-tok-{}", issued_s.load(Ordering::SeqCst));
        let mut uses = uses_s.lock().unwrap();
        let used = uses.entry(token.clone()).or_default();
        *used += 1;
        // Token 2 is revoked by the server after its first use; `/locked` refuses every token.
        let refused = token != latest
            || (token == "CANARY-tok-2" && *used > 1)
            || seen.url.starts_with("/v2/locked");
        if refused {
            reply(401, None, "expired")
        } else {
            json_reply(json!({"entries": [1, 2], "auth": seen.header("Authorization")}))
        }
    });
    let t = transport();
    let ups = [("ledger", format!("{}/v2", server.base))];
    let ups: Vec<(&str, &str)> = ups.iter().map(|(n, u)| (*n, u.as_str())).collect();
    let env = BTreeMap::from([
        ("LEDGER_ID".to_string(), "client-1".to_string()),
        ("LEDGER_SECRET".to_string(), CLIENT_SECRET.to_string()),
    ]);
    let set = load(&dir.0, Profile::Spec, env);
    let clock = TestClock::at(1_700_000_000);
    let mut o = opts(&ups);
    o.clock = Some(clock.clone());
    let (r, logs) = runner(&set, &t, o);
    let call = |tool: &str| r.call_strings(tool, [("q", "x")]);
    let secrets = [CLIENT_SECRET, "CANARY-tok-"];

    // Two calls, one token.
    for _ in 0..2 {
        let e = call("entries_ledger");
        assert!(e.status(), "{e:?}");
        assert_eq!(e.data()["auth"], json!("[redacted]"));
        nothing_shown(&e, &logs.borrow(), &secrets);
    }
    assert_eq!(issued.load(Ordering::SeqCst), 1);

    // An hour later the token has expired: a new one is fetched before the call.
    clock.advance(3600);
    let e = call("entries_ledger");
    assert!(e.status(), "{e:?}");
    assert_eq!(issued.load(Ordering::SeqCst), 2);

    // The server revoked token 2: 401, a new token, the request once more.
    let e = call("entries_ledger");
    assert!(e.status(), "{e:?}");
    assert_eq!(issued.load(Ordering::SeqCst), 3);

    // A 401 whatever the token: one refresh, one retry, then the failure.
    let e = call("locked_ledger");
    assert_eq!(e.code(), Some(Code::E001), "{e:?}");
    assert!(!e.status());
    nothing_shown(&e, &logs.borrow(), &secrets);
    assert_eq!(issued.load(Ordering::SeqCst), 4);
    drop(r);

    let seen = server.finish();
    let api: Vec<&Seen> = seen.iter().filter(|s| s.url.starts_with("/v2/")).collect();
    let tokens: Vec<&Seen> = seen.iter().filter(|s| s.url == "/oauth/token").collect();
    // entries ×2, entries, entries ×2 (401 then retry), locked ×2 (401, retry 401).
    assert_eq!(api.len(), 7, "{api:?}");
    assert_eq!(tokens.len(), 4);
    // The client secret went only to the token URL, never to the API.
    for s in &api {
        let all = format!("{s:?}");
        assert!(
            !all.contains("Y2xpZW50LTE6") && !all.contains(CLIENT_SECRET),
            "{all}"
        );
    }
    assert_eq!(api[0].header("Authorization"), Some("Bearer CANARY-tok-1"));
}

/// Issue #44: a preloaded, signed tool's cache entry holds neither the secret nor the
/// signature, and the cache key depends on neither (a second call with the same key values is
/// a hit although its signature would differ).
#[test]
fn i44_no_secret_or_signature_reaches_the_cache() {
    let dir = Scratch::new("i44-cache");
    podcast_schema(&dir, true);
    let cache_dir = Scratch::new("i44-cache-files");
    let server = podcast_server(1);
    let t = transport();
    let ups = [("podcasts", server.base.as_str())];
    let set = load(&dir.0, Profile::Spec, podcast_env(SECRET));
    let clock = TestClock::at(1_700_000_000);
    let signature = test_sha1(format!("{KEY}{SECRET}1700000000").as_bytes());
    let mut o = opts(&ups);
    o.cache = Some(Cache::new(&cache_dir.0).into());
    o.clock = Some(clock.clone());
    let (r, logs) = runner(&set, &t, o);
    let e = r.call_strings("searchByTerm_podcasts", [("q", "rust")]);
    assert!(e.status(), "{e:?}");
    clock.advance(5);
    let again = r.call_strings("searchByTerm_podcasts", [("q", "rust")]);
    assert!(again.status(), "{again:?}");
    assert_eq!(e.data(), again.data());
    nothing_shown(&again, &logs.borrow(), &[SECRET, &signature, KEY]);
    drop(r);
    assert_eq!(
        server.finish().len(),
        1,
        "the second call was served from the cache"
    );
    let mut files = 0;
    for entry in walk(&cache_dir.0) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for s in [SECRET, signature.as_str(), KEY] {
            assert!(!text.contains(s), "{s} in {}: {text}", entry.display());
        }
        files += 1;
    }
    assert!(files > 0, "the entry was written");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Issue #44: `main.auth` that does not read (an unvalidated file) makes its tools not callable
/// rather than sending unsigned requests.
#[test]
fn i44_an_unreadable_auth_sends_nothing() {
    let dir = Scratch::new("i44-bad");
    dir.write(
        "bad.mjs",
        &format!(
            "export const main = {{
    namespace: 'bad', name: 'Bad', description: 'Bad auth', version: '4.2.0',
    root: 'https://bad.example.test', requiredServerParams: [ 'K' ],
    auth: {{ kind: 'signature', digest: 'md5', parts: [ 'time' ], header: 'X-Sig' }},
    tools: {{ find: {{ method: 'GET', path: '/find', description: 'Find', {TOOL} }} }}
}}"
        ),
    );
    let server = TestServer::start(1, |_: &Seen| json_reply(json!({"unsigned": true})));
    let t = transport();
    let ups = [("bad", server.base.as_str())];
    let set = load(
        &dir.0,
        Profile::Spec,
        BTreeMap::from([("K".into(), "v".into())]),
    );
    let (r, _) = runner(&set, &t, opts(&ups));
    let e = r.call_strings("find_bad", [("q", "x")]);
    assert!(!e.status(), "{e:?}");
    drop(r);
    assert!(server.finish().is_empty(), "nothing was sent");
}

/// HMAC-SHA256 for this test (RFC 2104 over `sha2`), apart from the runtime's.
fn test_hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut k = if key.len() > 64 {
        Sha256::digest(key).to_vec()
    } else {
        key.to_vec()
    };
    k.resize(64, 0);
    let inner: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x36)
        .chain(message.iter().copied())
        .collect();
    let inner = Sha256::digest(&inner);
    let outer: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x5c)
        .chain(inner.iter().copied())
        .collect();
    Sha256::digest(&outer).to_vec()
}

fn test_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Issue #44: AWS SigV4-style header signing end to end: a server that knows the secret rebuilds
/// the canonical request from what it received (method, path, sorted query, `host`,
/// `x-amz-date`, the payload's SHA-256) and accepts only the matching `Authorization`.
#[test]
fn i44_sigv4_headers_are_checked_by_an_independent_server() {
    const SK: &str = "CANARY-sigv4-secret";
    let dir = Scratch::new("i44-sigv4");
    dir.write(
        "sig.mjs",
        "export const main = {
    namespace: 'gateway', name: 'Gateway', description: 'SigV4', version: '4.2.0',
    root: 'https://gw.example.test', requiredServerParams: [ 'AK', 'SK' ],
    auth: { kind: 'aws-sigv4', accessKey: '{{SERVER_PARAM:AK}}', secretKey: '{{SERVER_PARAM:SK}}',
        region: 'eu-west-1', service: 'execute-api' },
    tools: { items: { method: 'GET', path: '/prod/items', description: 'Items', parameters: [
        { position: { key: 'zeta', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } },
        { position: { key: 'alpha', value: '{{USER_PARAM}}', location: 'query' }, z: { primitive: 'string()', options: [] } } ] } }
}",
    );
    let server = TestServer::start(1, |seen: &Seen| {
        use sha2::{Digest, Sha256};
        let (path, query) = seen.url.split_once('?').unwrap_or((seen.url.as_str(), ""));
        let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| {
                let enc = |t: &str| {
                    t.bytes()
                        .map(|b| {
                            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                                (b as char).to_string()
                            } else {
                                format!("%{b:02X}")
                            }
                        })
                        .collect::<String>()
                };
                (enc(&k), enc(&v))
            })
            .collect();
        pairs.sort();
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let date = seen.header("x-amz-date").unwrap_or_default();
        let host = seen.header("host").unwrap_or_default();
        let canonical = format!(
            "{}\n{path}\n{}\nhost:{host}\nx-amz-date:{date}\n\nhost;x-amz-date\n{}",
            seen.method,
            query.join("&"),
            test_hex(&Sha256::digest(&seen.body))
        );
        let day = &date[..8.min(date.len())];
        let scope = format!("{day}/eu-west-1/execute-api/aws4_request");
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{date}\n{scope}\n{}",
            test_hex(&Sha256::digest(canonical.as_bytes()))
        );
        let mut key = test_hmac(format!("AWS4{SK}").as_bytes(), day.as_bytes());
        for part in ["eu-west-1", "execute-api", "aws4_request"] {
            key = test_hmac(&key, part.as_bytes());
        }
        let expected = format!(
            "AWS4-HMAC-SHA256 Credential=AKID/{scope}, SignedHeaders=host;x-amz-date, Signature={}",
            test_hex(&test_hmac(&key, to_sign.as_bytes()))
        );
        if seen.header("Authorization") == Some(expected.as_str()) {
            json_reply(json!({"items": []}))
        } else {
            reply(403, None, "signature mismatch")
        }
    });
    let t = transport();
    let ups = [("gateway", server.base.as_str())];
    let env = BTreeMap::from([
        ("AK".to_string(), "AKID".to_string()),
        ("SK".to_string(), SK.to_string()),
    ]);
    let set = load(&dir.0, Profile::Spec, env);
    let mut o = opts(&ups);
    o.clock = Some(TestClock::at(1_700_000_000));
    let (r, logs) = runner(&set, &t, o);
    let e = r.call_strings("items_gateway", [("zeta", "z z"), ("alpha", "a/b")]);
    assert!(e.status(), "{e:?}");
    nothing_shown(&e, &logs.borrow(), &[SK]);
    drop(r);
    let seen = server.finish();
    assert_eq!(seen[0].header("x-amz-date"), Some("20231114T221320Z"));
}
