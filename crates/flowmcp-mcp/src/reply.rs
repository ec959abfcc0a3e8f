//! What the HTTP modules share (the `http` feature): the body of every answer, plain-text
//! answers, the one reading of an `Authorization: Bearer` header and the comparison of secrets.
//! It imports nothing of the crate, so that `http`, `oauth` and `service` can all use it.

use std::convert::Infallible;

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};

/// Where RFC 9728 protected-resource metadata is published (followed by the endpoint's path).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The body of every answer.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// The error a request body may fail with.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A plain-text answer.
pub(crate) fn plain(status: StatusCode, text: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(text.into()).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// Why a request's token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// No `Authorization: Bearer` header: 401 without an error code.
    Missing,
    /// A token that is not valid here: 401 `invalid_token`, with this description.
    Invalid(&'static str),
    /// A valid token without every required scope: 403 `insufficient_scope`.
    #[cfg(feature = "oauth")]
    Scope,
}

/// The token of an `Authorization: Bearer` header (the scheme in any case, RFC 9110 §11.1): the
/// one reading of the header, for static tokens and OAuth alike.
pub(crate) fn bearer(header: Option<&HeaderValue>) -> Result<&str, Rejection> {
    let Some(value) = header else {
        return Err(Rejection::Missing);
    };
    let text = value
        .to_str()
        .map_err(|_| Rejection::Invalid("the Authorization header is not text"))?;
    let (scheme, token) = text.trim().split_once(' ').ok_or(Rejection::Missing)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Rejection::Missing);
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(Rejection::Missing);
    }
    Ok(token)
}

/// Compares two byte strings in time that depends only on their lengths.
pub(crate) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `req` carries `token` as its bearer token (the scheme in any case, as for OAuth).
pub(crate) fn token_matches<B>(req: &Request<B>, token: &str) -> bool {
    bearer(req.headers().get(header::AUTHORIZATION))
        .is_ok_and(|given| same_secret(given.as_bytes(), token.as_bytes()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }

    #[test]
    fn bearer_headers() {
        let v = |s: &str| HeaderValue::from_str(s).unwrap();
        assert_eq!(bearer(Some(&v("Bearer abc"))), Ok("abc"));
        assert_eq!(bearer(Some(&v("bearer  abc "))), Ok("abc"));
        assert_eq!(bearer(Some(&v("Basic abc"))), Err(Rejection::Missing));
        assert_eq!(bearer(Some(&v("Bearer"))), Err(Rejection::Missing));
        assert_eq!(bearer(None), Err(Rejection::Missing));
    }
}
