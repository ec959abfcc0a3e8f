//! Per-client credentials (`--client-credentials`, D142): the server-parameter values one HTTP
//! request brings in `X-FlowMCP-Param-<NAME>` headers, and the parameters its calls run with —
//! the catalog's own, with the request's laid over them.
//!
//! The values live only in the request's [`RequestInfo`](crate::server::RequestInfo) and the
//! call's runner scope: the listener takes the headers off the request before anything else sees
//! it, `Debug` shows names only, and the runner redacts them wherever it redacts the server's own
//! values and binds preload cache entries and OAuth tokens to them.

use std::fmt;
use std::sync::Arc;

use flowmcp_catalog::runtime::{ServerParams, Toolset};
use http::HeaderMap;

/// The prefix of the headers that carry a server parameter's value (ASCII case ignored, as for
/// every header name).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) const HEADER_PREFIX: &str = "x-flowmcp-param-";

/// The server-parameter values of one request: each header's name after [`HEADER_PREFIX`]
/// (lower case, as HTTP/2 and the `http` crate give names) and its value.
#[derive(Clone)]
pub(crate) struct ClientParams(Arc<Vec<(String, String)>>);

impl fmt::Debug for ClientParams {
    /// The names only, never a value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

impl ClientParams {
    /// Takes the `X-FlowMCP-Param-*` headers out of `headers`. `None` when there are none. A
    /// name reserved for flowmcp itself, a name given twice, or a value that is not visible
    /// ASCII text is an error (its text names the header, never the value). An empty value
    /// counts as not given.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn take(headers: &mut HeaderMap) -> Result<Option<ClientParams>, String> {
        let names: Vec<http::HeaderName> = headers
            .keys()
            .filter(|k| k.as_str().starts_with(HEADER_PREFIX))
            .cloned()
            .collect();
        if names.is_empty() {
            return Ok(None);
        }
        let mut out: Vec<(String, String)> = Vec::new();
        let mut problem = None;
        for header in names {
            let name = &header.as_str()[HEADER_PREFIX.len()..];
            let values: Vec<_> = headers.get_all(&header).iter().cloned().collect();
            headers.remove(&header);
            if problem.is_some() {
                continue;
            }
            if name.is_empty() {
                problem = Some(format!("{header}: the header names no server parameter"));
            } else if flowmcp_spec::catalog::is_reserved_name(name) {
                problem = Some(format!(
                    "{header}: {} is reserved for flowmcp itself and is never a server parameter",
                    name.to_ascii_uppercase()
                ));
            } else if values.len() > 1 {
                problem = Some(format!("{header}: given more than once"));
            } else if let Some(v) = values.first() {
                match v.to_str() {
                    Ok("") => {}
                    Ok(v) => out.push((name.to_string(), v.to_string())),
                    Err(_) => problem = Some(format!("{header}: the value is not ASCII text")),
                }
            }
        }
        match problem {
            Some(why) => Err(why),
            None => Ok((!out.is_empty()).then(|| ClientParams(Arc::new(out)))),
        }
    }

    /// The parameters a call of this request runs with: the toolset's, with each value of the
    /// request laid over the `requiredServerParams` name of a schema of the toolset that it
    /// matches (ASCII case ignored). Names no schema declares are left out.
    pub(crate) fn over(&self, toolset: &Toolset) -> Arc<ServerParams> {
        let declared = || {
            toolset
                .schemas()
                .iter()
                .flat_map(|s| s.main.required_server_params.iter())
        };
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for (given, value) in self.0.iter() {
            for name in declared().filter(|n| n.eq_ignore_ascii_case(given)) {
                if !pairs.iter().any(|(n, _)| *n == name.as_str()) {
                    pairs.push((name.as_str(), value.as_str()));
                }
            }
        }
        Arc::new(toolset.server_params().overlaid(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            if let (Ok(k), Ok(v)) = (
                http::HeaderName::from_bytes(k.as_bytes()),
                http::HeaderValue::from_str(v),
            ) {
                h.append(k, v);
            }
        }
        h
    }

    #[test]
    fn i44_param_headers_are_taken_off_the_request() {
        let mut h = headers(&[
            ("X-FlowMCP-Param-Api_Key", "k1"),
            ("x-flowmcp-param-empty", ""),
            ("accept", "application/json"),
        ]);
        let p = ClientParams::take(&mut h).ok().flatten();
        let Some(p) = p else { panic!("no params") };
        assert_eq!(*p.0, vec![("api_key".to_string(), "k1".to_string())]);
        assert_eq!(format!("{p:?}"), "[\"api_key\"]");
        assert!(h.keys().all(|k| !k.as_str().starts_with(HEADER_PREFIX)));
        assert!(h.contains_key("accept"));
        let mut none = headers(&[("accept", "x")]);
        assert!(matches!(ClientParams::take(&mut none), Ok(None)));
    }

    #[test]
    fn i44_reserved_and_repeated_names_are_refused_without_their_value() {
        for pairs in [
            &[("x-flowmcp-param-flowmcp_auth_token", "secret-1")][..],
            &[
                ("x-flowmcp-param-a", "secret-1"),
                ("x-flowmcp-param-a", "secret-2"),
            ][..],
        ] {
            let mut h = headers(pairs);
            let Err(why) = ClientParams::take(&mut h) else {
                panic!("accepted {pairs:?}")
            };
            assert!(!why.contains("secret-"), "{why}");
            assert!(h.is_empty());
        }
    }
}
