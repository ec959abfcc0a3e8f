//! OAuth resource-server mode against a local issuer: RSA and P-256 keys generated here, a JWKS
//! and authorization-server metadata served from 127.0.0.1. Good tokens reach MCP; every kind of
//! bad token gets 401 or 403 with the `WWW-Authenticate` answer RFC 6750 and RFC 9728 ask for.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use flowmcp_mcp::{
    Endpoints, HttpError, HttpOptions, JwksSource, OAuthError, OAuthOptions, Route, ServeOptions,
};
use support::{Answer, catalog, get, initialize, post, start, tool_names};

const SCOPE: &str = "mcp:tools";

/// A signing key of the test issuer and its public JWK.
struct Signer {
    kid: String,
    alg: Algorithm,
    key: EncodingKey,
    jwk: Jwk,
}

impl Signer {
    fn rsa(kid: &str) -> Signer {
        use rsa::pkcs1::EncodeRsaPrivateKey;
        let private = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048).unwrap();
        let der = private.to_pkcs1_der().unwrap();
        Signer::with(
            kid,
            Algorithm::RS256,
            EncodingKey::from_rsa_der(der.as_bytes()),
        )
    }

    fn ec(kid: &str) -> Signer {
        use p256::pkcs8::EncodePrivateKey;
        let private = p256::SecretKey::random(&mut rand_core::OsRng);
        let der = private.to_pkcs8_der().unwrap();
        Signer::with(
            kid,
            Algorithm::ES256,
            EncodingKey::from_ec_der(der.as_bytes()),
        )
    }

    fn with(kid: &str, alg: Algorithm, key: EncodingKey) -> Signer {
        let mut jwk = Jwk::from_encoding_key(&key, alg).unwrap();
        jwk.common.key_id = Some(kid.to_string());
        Signer {
            kid: kid.to_string(),
            alg,
            key,
            jwk,
        }
    }

    /// A token with these claims, signed by this key and naming `kid`.
    fn sign_as(&self, kid: Option<&str>, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = kid.map(str::to_string);
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_as(Some(&self.kid), claims)
    }
}

/// One RSA key for every test in this file (generating one takes a while).
fn rsa_key() -> &'static Signer {
    static KEY: OnceLock<Signer> = OnceLock::new();
    KEY.get_or_init(|| Signer::rsa("rsa-1"))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims that pass: this issuer, this audience, an hour to live, the required scope.
fn claims(issuer: &str, audience: &str) -> Value {
    json!({"iss": issuer, "aud": audience, "sub": "alice", "iat": now(), "exp": now() + 3600,
           "scope": format!("openid {SCOPE}")})
}

/// `claims` with `changes` merged in (`null` removes a claim).
fn with(mut claims: Value, changes: Value) -> Value {
    for (k, v) in changes.as_object().unwrap() {
        if v.is_null() {
            claims.as_object_mut().unwrap().remove(k);
        } else {
            claims[k] = v.clone();
        }
    }
    claims
}

/// The test identity provider: a JWKS at `/jwks` and RFC 8414 metadata, on 127.0.0.1.
struct Issuer {
    base: String,
    jwks: Arc<Mutex<String>>,
    jwks_fetches: Arc<AtomicUsize>,
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Issuer {
    fn start(keys: &[&Signer]) -> Issuer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let base = format!("http://{}", server.server_addr().to_ip().unwrap());
        let jwks = Arc::new(Mutex::new(String::new()));
        let jwks_fetches = Arc::new(AtomicUsize::new(0));
        let (s, b, j, n) = (
            Arc::clone(&server),
            base.clone(),
            Arc::clone(&jwks),
            Arc::clone(&jwks_fetches),
        );
        let thread = std::thread::spawn(move || {
            for req in s.incoming_requests() {
                let body = match req.url() {
                    "/jwks" => {
                        n.fetch_add(1, Ordering::SeqCst);
                        Some(j.lock().unwrap().clone())
                    }
                    "/.well-known/oauth-authorization-server" => {
                        Some(json!({"issuer": b, "jwks_uri": format!("{b}/jwks")}).to_string())
                    }
                    _ => None,
                };
                let _ = match body {
                    Some(body) => req.respond(tiny_http::Response::from_string(body)),
                    None => req.respond(tiny_http::Response::empty(404)),
                };
            }
        });
        let issuer = Issuer {
            base,
            jwks,
            jwks_fetches,
            server,
            thread: Some(thread),
        };
        issuer.publish(keys);
        issuer
    }

    fn publish(&self, keys: &[&Signer]) {
        let set = JwkSet {
            keys: keys.iter().map(|k| k.jwk.clone()).collect(),
        };
        *self.jwks.lock().unwrap() = serde_json::to_string(&set).unwrap();
    }

    fn fetches(&self) -> usize {
        self.jwks_fetches.load(Ordering::SeqCst)
    }

    fn options(&self, jwks: JwksSource) -> OAuthOptions {
        {
            let mut built = OAuthOptions::new(self.base.clone(), jwks);
            built.audience = None;
            built.required_scopes = vec![SCOPE.to_string()];
            built.public_url = None;
            built
        }
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn oauth_server(oauth: OAuthOptions) -> support::Running {
    let endpoints = Endpoints::routes(&catalog(), &[], &ServeOptions::default()).unwrap();
    start(endpoints, {
        let mut built = HttpOptions::default();
        built.oauth = Some(oauth);
        built
    })
    .unwrap()
}

fn call(url: &str, token: &str) -> Answer {
    post(
        url,
        &[("Authorization", &format!("Bearer {token}"))],
        &initialize(),
    )
}

#[test]
fn good_rs256_and_es256_tokens_reach_mcp() {
    let ec = Signer::ec("ec-1");
    let issuer = Issuer::start(&[rsa_key(), &ec]);
    let server = oauth_server(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
    let mcp = format!("{}/mcp", server.base);
    let good = claims(&issuer.base, &mcp);
    for token in [rsa_key().sign(&good), ec.sign(&good)] {
        let a = call(&mcp, &token);
        assert_eq!(a.status, 200, "{}", a.body);
        assert!(a.body.contains("\"serverInfo\""), "{}", a.body);
    }
    // Other MCP requests too, and `scp` as an array counts like `scope`.
    let scp = rsa_key().sign(&with(good.clone(), json!({"scope": null, "scp": [SCOPE]})));
    let names = tool_names(&mcp, &[("Authorization", &format!("Bearer {scp}"))]);
    // 11 tools and 10 resource entries of the example catalog.
    assert_eq!(names.len(), 21, "{names:?}");
    // Without a kid, the keys of the token's kind are tried.
    let a = call(&mcp, &ec.sign_as(None, &good));
    assert_eq!(a.status, 200, "{}", a.body);
    // Expired, but within the leeway.
    let a = call(&mcp, &ec.sign(&with(good, json!({"exp": now() - 20}))));
    assert_eq!(a.status, 200, "{}", a.body);
}

#[test]
fn bad_tokens_get_401_invalid_token_and_say_why() {
    let ec = Signer::ec("ec-1");
    let impostor = Signer::ec("ec-1"); // same kid, a key the issuer never published
    let issuer = Issuer::start(&[rsa_key(), &ec]);
    let server = oauth_server(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
    let mcp = format!("{}/mcp", server.base);
    let metadata = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        server.base
    );
    let good = claims(&issuer.base, &mcp);

    // A good token with its payload swapped keeps a signature that no longer fits.
    let tampered = {
        let token = rsa_key().sign(&good);
        let other = rsa_key().sign(&with(good.clone(), json!({"sub": "mallory"})));
        let parts: Vec<&str> = token.split('.').collect();
        let other_payload = other.split('.').nth(1).unwrap();
        format!("{}.{}.{}", parts[0], other_payload, parts[2])
    };
    let hs256 = {
        // Algorithm confusion: an HMAC token "signed" with the RSA key's public modulus.
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let n = match &rsa_key().jwk.algorithm {
            jsonwebtoken::jwk::AlgorithmParameters::RSA(p) => p.n.clone(),
            _ => unreachable!(),
        };
        jsonwebtoken::encode(&header, &good, &EncodingKey::from_secret(n.as_bytes())).unwrap()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "wrong signature",
            impostor.sign(&good),
            "signature does not verify",
        ),
        ("tampered payload", tampered, "signature does not verify"),
        (
            "wrong issuer",
            rsa_key().sign(&with(good.clone(), json!({"iss": "http://127.0.0.1:1"}))),
            "another issuer",
        ),
        (
            "wrong audience",
            ec.sign(&with(
                good.clone(),
                json!({"aud": "http://127.0.0.1:1/mcp"}),
            )),
            "not meant for this resource",
        ),
        (
            "expired",
            rsa_key().sign(&with(good.clone(), json!({"exp": now() - 3600}))),
            "has expired",
        ),
        (
            "not yet valid",
            ec.sign(&with(good.clone(), json!({"nbf": now() + 3600}))),
            "not valid yet",
        ),
        (
            "no exp",
            ec.sign(&with(good.clone(), json!({"exp": null}))),
            "no exp claim",
        ),
        ("HS256", hs256, "algorithm is not accepted"),
        (
            "unknown kid",
            ec.sign_as(Some("nobody"), &good),
            "signing key is not known",
        ),
        (
            "not a JWT",
            "not-a-jwt".to_string(),
            "not a well-formed JWT",
        ),
    ];
    for (case, token, why) in cases {
        let a = call(&mcp, &token);
        assert_eq!(a.status, 401, "{case}: {}", a.body);
        assert!(!a.body.contains("serverInfo"), "{case}");
        let challenge = a.challenge.unwrap_or_default();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{case}: {challenge}"
        );
        assert!(challenge.contains(why), "{case}: {challenge}");
        assert!(challenge.contains(&metadata), "{case}: {challenge}");
        assert!(!challenge.contains(&token), "{case}: the token is echoed");
    }

    // No token at all: 401 that points to the metadata, without an error code.
    let a = post(&mcp, &[], &initialize());
    assert_eq!(a.status, 401);
    assert_eq!(
        a.challenge.as_deref(),
        Some(format!("Bearer {metadata}, scope=\"{SCOPE}\"").as_str())
    );
    let a = post(&mcp, &[("Authorization", "Basic YTpi")], &initialize());
    assert_eq!(a.status, 401);
    assert!(!a.challenge.unwrap().contains("error="));
}

#[test]
fn a_valid_token_without_the_scope_gets_403_insufficient_scope() {
    let issuer = Issuer::start(&[rsa_key()]);
    let server = oauth_server(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
    let mcp = format!("{}/mcp", server.base);
    let good = claims(&issuer.base, &mcp);
    for scopes in [
        json!("openid mcp:other"),
        json!(null),
        json!("mcp:tools:extra"),
    ] {
        let a = call(
            &mcp,
            &rsa_key().sign(&with(good.clone(), json!({"scope": scopes}))),
        );
        assert_eq!(a.status, 403, "{scopes}: {}", a.body);
        let challenge = a.challenge.unwrap();
        assert!(
            challenge.starts_with(&format!(
                "Bearer error=\"insufficient_scope\", scope=\"{SCOPE}\""
            )),
            "{challenge}"
        );
        assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    }
    assert_eq!(call(&mcp, &rsa_key().sign(&good)).status, 200);
}

#[test]
fn the_metadata_is_published_at_the_well_known_paths() {
    let issuer = Issuer::start(&[rsa_key()]);
    let server = oauth_server(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
    let expected = json!({
        "resource": format!("{}/mcp", server.base),
        "authorization_servers": [issuer.base],
        "bearer_methods_supported": ["header"],
        "scopes_supported": [SCOPE],
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let a = get(&format!("{}{path}", server.base));
        assert_eq!(a.status, 200, "{path}");
        let doc: Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(doc, expected, "{path}");
    }
    let a = post(
        &format!("{}/.well-known/oauth-protected-resource/mcp", server.base),
        &[],
        &json!({}),
    );
    assert_eq!(a.status, 405);
    assert_eq!(get(&format!("{}/healthz", server.base)).status, 200);
}

#[test]
fn keys_are_discovered_and_reloaded_for_an_unknown_kid_at_most_once_a_minute() {
    let k2 = Signer::ec("ec-2");
    let k3 = Signer::ec("ec-3");
    let issuer = Issuer::start(&[rsa_key()]);
    let server = oauth_server(issuer.options(JwksSource::Discover));
    assert_eq!(issuer.fetches(), 1, "the JWKS is loaded at start");
    let mcp = format!("{}/mcp", server.base);
    let good = claims(&issuer.base, &mcp);
    assert_eq!(call(&mcp, &rsa_key().sign(&good)).status, 200);
    assert_eq!(issuer.fetches(), 1, "known keys are not fetched again");

    // A key published after start: the unknown kid makes the server fetch the JWKS again.
    issuer.publish(&[rsa_key(), &k2]);
    assert_eq!(call(&mcp, &k2.sign(&good)).status, 200);
    assert_eq!(issuer.fetches(), 2);

    // Another new key within the minute: no second fetch, so it is not known yet.
    issuer.publish(&[rsa_key(), &k2, &k3]);
    let a = call(&mcp, &k3.sign(&good));
    assert_eq!(a.status, 401);
    assert!(a.challenge.unwrap().contains("signing key is not known"));
    let a = call(&mcp, &k3.sign_as(Some("made-up"), &good));
    assert_eq!(a.status, 401);
    assert_eq!(issuer.fetches(), 2);
    assert_eq!(call(&mcp, &k2.sign(&good)).status, 200);
}

#[test]
fn keys_from_a_file() {
    let issuer = Issuer::start(&[rsa_key()]);
    let file = std::env::temp_dir().join(format!("flowmcp-mcp-jwks-{}.json", std::process::id()));
    std::fs::write(&file, issuer.jwks.lock().unwrap().as_bytes()).unwrap();
    let server = oauth_server(issuer.options(JwksSource::File(file.clone())));
    let mcp = format!("{}/mcp", server.base);
    assert_eq!(
        call(&mcp, &rsa_key().sign(&claims(&issuer.base, &mcp))).status,
        200
    );
    assert_eq!(issuer.fetches(), 0);
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn a_configured_audience_and_public_url() {
    let issuer = Issuer::start(&[rsa_key()]);
    let mut oauth = issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base)));
    oauth.audience = Some("api://flowmcp".into());
    oauth.public_url = Some("https://mcp.example.com/".into());
    let server = oauth_server(oauth);
    let mcp = format!("{}/mcp", server.base);
    let doc: Value = serde_json::from_str(
        &get(&format!(
            "{}/.well-known/oauth-protected-resource/mcp",
            server.base
        ))
        .body,
    )
    .unwrap();
    assert_eq!(doc["resource"], "https://mcp.example.com/mcp");
    let a = post(&mcp, &[], &initialize());
    assert!(a.challenge.unwrap().contains(
        "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
    ));
    let good = claims(&issuer.base, "api://flowmcp");
    assert_eq!(call(&mcp, &rsa_key().sign(&good)).status, 200);
    let resource_aud = with(good, json!({"aud": "https://mcp.example.com/mcp"}));
    assert_eq!(call(&mcp, &rsa_key().sign(&resource_aud)).status, 401);
}

#[test]
fn each_route_is_its_own_resource() {
    let issuer = Issuer::start(&[rsa_key()]);
    let routes = [
        Route::parse("/holidays=holidaykit-net").unwrap(),
        Route::parse("/weather=skycast-io").unwrap(),
    ];
    let endpoints = Endpoints::routes(&catalog(), &routes, &ServeOptions::default()).unwrap();
    let server = start(endpoints, {
        let mut built = HttpOptions::default();
        built.oauth = Some(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
        built
    })
    .unwrap();
    let holidays = format!("{}/holidays", server.base);
    let weather = format!("{}/weather", server.base);
    let for_holidays = rsa_key().sign(&claims(&issuer.base, &holidays));
    let for_weather = rsa_key().sign(&claims(&issuer.base, &weather));
    assert_eq!(call(&holidays, &for_holidays).status, 200);
    assert_eq!(call(&weather, &for_weather).status, 200);
    for (url, token) in [(&holidays, &for_weather), (&weather, &for_holidays)] {
        let a = call(url, token);
        assert_eq!(a.status, 401, "{url}");
        assert!(a.challenge.unwrap().contains("not meant for this resource"));
    }
    let a = call(&weather, &for_holidays);
    assert!(a.challenge.unwrap().contains(&format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/weather\"",
        server.base
    )));
    let doc: Value = serde_json::from_str(
        &get(&format!(
            "{}/.well-known/oauth-protected-resource/weather",
            server.base
        ))
        .body,
    )
    .unwrap();
    assert_eq!(doc["resource"], weather.as_str());
    // With two resources, the bare well-known path names neither.
    assert_eq!(
        get(&format!(
            "{}/.well-known/oauth-protected-resource",
            server.base
        ))
        .status,
        404
    );
}

#[test]
fn oauth_refuses_static_tokens_and_insecure_urls_before_anything_is_fetched() {
    let opts = |jwks: JwksSource| {
        let mut built = OAuthOptions::new("https://idp.example.com", jwks);
        built.audience = None;
        built.required_scopes = vec![];
        built.public_url = None;
        built
    };
    let endpoints = || Endpoints::routes(&catalog(), &[], &ServeOptions::default()).unwrap();
    let err = start(endpoints(), {
        let mut built = HttpOptions::default();
        built.auth_token = Some("static".into());
        built.oauth = Some(opts(JwksSource::Discover));
        built
    })
    .err()
    .unwrap();
    assert!(matches!(err, HttpError::TokenWithOAuth), "{err}");
    let routed = Endpoints::routes(
        &catalog(),
        &[Route {
            auth_token: Some("route-static".into()),
            ..Route::parse("/h=holidaykit-net").unwrap()
        }],
        &ServeOptions::default(),
    )
    .unwrap();
    let err = start(routed, {
        let mut built = HttpOptions::default();
        built.oauth = Some(opts(JwksSource::Discover));
        built
    })
    .err()
    .unwrap();
    assert!(matches!(err, HttpError::TokenWithOAuth), "{err}");
    assert!(!err.to_string().contains("route-static"));

    let refused = |oauth: OAuthOptions| {
        start(endpoints(), {
            let mut built = HttpOptions::default();
            built.oauth = Some(oauth);
            built
        })
        .err()
        .unwrap()
    };
    let err = refused(opts(JwksSource::Url("http://idp.example.com/jwks".into())));
    assert!(
        matches!(err, HttpError::OAuth(OAuthError::Url { .. })),
        "{err}"
    );
    let err = refused({
        let mut built = opts(JwksSource::Discover);
        built.issuer = "http://idp.example.com".into();
        built
    });
    assert!(
        matches!(err, HttpError::OAuth(OAuthError::Issuer { .. })),
        "{err}"
    );
    let err = refused({
        let mut built = opts(JwksSource::Discover);
        built.required_scopes = vec!["two words".into()];
        built
    });
    assert!(
        matches!(err, HttpError::OAuth(OAuthError::Scope(_))),
        "{err}"
    );
    let missing = std::env::temp_dir().join("flowmcp-mcp-no-such-jwks.json");
    let err = refused(opts(JwksSource::File(missing)));
    assert!(
        matches!(err, HttpError::OAuth(OAuthError::ReadFile { .. })),
        "{err}"
    );
}

/// D131: under OAuth a task belongs to the token's subject (`sub`), so a refreshed token of the
/// same subject reads it and another subject's token gets the unknown-task answer.
#[test]
fn i43_a_task_belongs_to_the_oauth_subject_across_refreshed_tokens() {
    let issuer = Issuer::start(&[rsa_key()]);
    let server = oauth_server(issuer.options(JwksSource::Url(format!("{}/jwks", issuer.base))));
    let mcp = format!("{}/mcp", server.base);
    let good = claims(&issuer.base, &mcp);
    let first = rsa_key().sign(&with(good.clone(), json!({"jti": "first"})));
    let refreshed = rsa_key().sign(&with(good.clone(), json!({"jti": "refreshed"})));
    let bob = rsa_key().sign(&with(good, json!({"sub": "bob"})));
    assert_ne!(first, refreshed);
    let ask = |token: &str, message: Value| -> Value {
        let a = post(
            &mcp,
            &[
                ("Authorization", &format!("Bearer {token}")),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            &message,
        );
        assert_eq!(a.status, 200, "{}", a.body);
        serde_json::from_str(&a.body).unwrap()
    };
    let created = ask(
        &first,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "listCountries_holidaykit-net", "arguments": {}, "task": {"ttl": 60000}}}),
    );
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": id}});
    let again = ask(&refreshed, get.clone());
    assert_eq!(again["result"]["taskId"], json!(id), "{again}");
    let other = ask(&bob, get);
    assert_eq!(other["error"]["code"], -32602, "{other}");
}
