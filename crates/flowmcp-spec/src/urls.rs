//! The one URL policy (D106): where flowmcp may send a request or fetch a document.
//!
//! A URL is accepted when it is `https://` with a host, or — only where the caller allows it —
//! plain `http://` to a loopback host (`127.0.0.0/8`, `::1`, an IPv4-mapped loopback address,
//! or `localhost`). A URL that carries credentials (`user:password@`) is always refused.
//!
//! This crate parses no URLs (it has no URL parser, so that validation stays small): callers
//! parse with the `url` crate and hand over the parts as [`UrlParts`]. Every crate that checks a
//! URL (the runtime's transport and upstreams, the resources' HTTP databases, the MCP server's
//! OAuth issuer and JWKS) decides through [`check`], and the MCP server's peer check uses
//! [`is_loopback_ip`].

use std::net::IpAddr;

/// The host of a parsed URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlHost<'a> {
    /// An IP address literal (`127.0.0.1`, `[::1]`).
    Ip(IpAddr),
    /// A domain name, as the parser left it.
    Domain(&'a str),
}

/// What [`check`] needs to know of a parsed URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UrlParts<'a> {
    /// The scheme, lowercase (`https`).
    pub scheme: &'a str,
    /// The host, if the URL has one.
    pub host: Option<UrlHost<'a>>,
    /// Whether the URL carries a user name or a password.
    pub credentials: bool,
}

impl<'a> UrlParts<'a> {
    /// The parts of a URL as a URL parser gives them (the `url` crate's `scheme()`, `host_str()`,
    /// `username()` and `password()`): an IP literal host (`127.0.0.1`, `[::1]`) becomes
    /// [`UrlHost::Ip`], any other host [`UrlHost::Domain`].
    pub fn from_parsed(
        scheme: &'a str,
        host: Option<&'a str>,
        username: &str,
        password: Option<&str>,
    ) -> Self {
        let host = host.map(|h| {
            let literal = h
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(h);
            literal
                .parse::<IpAddr>()
                .map_or(UrlHost::Domain(h), UrlHost::Ip)
        });
        UrlParts {
            scheme,
            host,
            credentials: !username.is_empty() || password.is_some(),
        }
    }
}

/// Why [`check`] refused a URL. Each caller words the refusal for its users; `Display` gives a
/// plain statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlRefusal {
    /// The URL carries a user name or a password.
    #[error("credentials in URLs are not accepted")]
    Credentials,
    /// An `https://` URL without a host.
    #[error("the URL has no host")]
    NoHost,
    /// Plain `http://` to a loopback host where only `https://` is allowed.
    #[error("plain http:// is not allowed here (only https://)")]
    HttpNotAllowed,
    /// Plain `http://` to a host that is not loopback.
    #[error("plain http:// is accepted only for loopback hosts")]
    HttpNotLoopback,
    /// A scheme other than `https` or `http`.
    #[error("only https:// URLs are accepted")]
    Scheme,
}

/// Whether an IP address is a loopback address (IPv4-mapped IPv6 addresses are seen as IPv4).
pub fn is_loopback_ip(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// Whether a URL's host is loopback: a loopback address or `localhost` (any case).
pub fn is_loopback_host(host: UrlHost<'_>) -> bool {
    match host {
        UrlHost::Ip(ip) => is_loopback_ip(ip),
        UrlHost::Domain(d) => d.eq_ignore_ascii_case("localhost"),
    }
}

/// Decides whether a URL may be used: `https://` with a host, or `http://` to a loopback host
/// when `allow_http_loopback`; never with credentials.
pub fn check(parts: UrlParts<'_>, allow_http_loopback: bool) -> Result<(), UrlRefusal> {
    if parts.credentials {
        return Err(UrlRefusal::Credentials);
    }
    let loopback = parts.host.is_some_and(is_loopback_host);
    match parts.scheme {
        "https" if parts.host.is_some() => Ok(()),
        "https" => Err(UrlRefusal::NoHost),
        "http" if loopback && allow_http_loopback => Ok(()),
        "http" if loopback => Err(UrlRefusal::HttpNotAllowed),
        "http" => Err(UrlRefusal::HttpNotLoopback),
        _ => Err(UrlRefusal::Scheme),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn parts<'a>(scheme: &'a str, host: Option<UrlHost<'a>>, credentials: bool) -> UrlParts<'a> {
        UrlParts {
            scheme,
            host,
            credentials,
        }
    }

    #[test]
    fn i40_url_policy_table() {
        let v4 = UrlHost::Ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
        let v4_other_loop = UrlHost::Ip(IpAddr::V4(Ipv4Addr::new(127, 1, 2, 3)));
        let v6 = UrlHost::Ip(IpAddr::V6(Ipv6Addr::LOCALHOST));
        let mapped = UrlHost::Ip(IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped()));
        let local = UrlHost::Domain("LocalHost");
        let public = UrlHost::Domain("example.com");
        let sneaky = UrlHost::Domain("localhost.example.com");
        let public_ip = UrlHost::Ip(IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)));
        use UrlRefusal::*;
        let table: &[(UrlParts<'_>, bool, Result<(), UrlRefusal>)] = &[
            (parts("https", Some(public), false), false, Ok(())),
            (parts("https", Some(public), false), true, Ok(())),
            (parts("https", Some(v4), false), false, Ok(())),
            (parts("https", None, false), true, Err(NoHost)),
            (parts("http", Some(v4), false), true, Ok(())),
            (parts("http", Some(v4_other_loop), false), true, Ok(())),
            (parts("http", Some(v6), false), true, Ok(())),
            (parts("http", Some(mapped), false), true, Ok(())),
            (parts("http", Some(local), false), true, Ok(())),
            (parts("http", Some(v4), false), false, Err(HttpNotAllowed)),
            (parts("http", Some(v6), false), false, Err(HttpNotAllowed)),
            (
                parts("http", Some(local), false),
                false,
                Err(HttpNotAllowed),
            ),
            (
                parts("http", Some(public), false),
                true,
                Err(HttpNotLoopback),
            ),
            (
                parts("http", Some(sneaky), false),
                true,
                Err(HttpNotLoopback),
            ),
            (
                parts("http", Some(public_ip), false),
                true,
                Err(HttpNotLoopback),
            ),
            (parts("http", None, false), true, Err(HttpNotLoopback)),
            (parts("https", Some(public), true), false, Err(Credentials)),
            (parts("http", Some(v4), true), true, Err(Credentials)),
            (parts("ftp", Some(public), false), true, Err(Scheme)),
            (parts("file", None, false), true, Err(Scheme)),
        ];
        for (p, allow, want) in table {
            assert_eq!(check(*p, *allow), *want, "{p:?} allow={allow}");
        }
    }

    #[test]
    fn i40_parts_from_a_parsers_pieces() {
        let p = UrlParts::from_parsed("http", Some("[::1]"), "", None);
        assert_eq!(p.host, Some(UrlHost::Ip("::1".parse().unwrap())));
        assert!(!p.credentials);
        let p = UrlParts::from_parsed("https", Some("127.0.0.1"), "u", None);
        assert_eq!(p.host, Some(UrlHost::Ip("127.0.0.1".parse().unwrap())));
        assert!(p.credentials);
        let p = UrlParts::from_parsed("https", Some("example.com"), "", Some("pw"));
        assert_eq!(p.host, Some(UrlHost::Domain("example.com")));
        assert!(p.credentials);
        assert_eq!(UrlParts::from_parsed("https", None, "", None).host, None);
    }
}
