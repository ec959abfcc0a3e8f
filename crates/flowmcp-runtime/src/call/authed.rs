//! The runner's side of `main.auth` (D139): the time a request is signed with, and for OAuth 2
//! client credentials the token — fetched from the token URL, kept in the toolset's memory, and
//! fetched again once when the API answers 401. The signing itself happens when the request is
//! finalized ([`crate::request::finalize_with`]), after the last handler.

use std::time::{Instant, SystemTime};

use flowmcp_spec::Code;
use flowmcp_spec::model::auth::ClientCredentials;
use serde_json::Value;

use super::{Fail, Runner};
use crate::auth::{self, AuthInputs, TokenError};
use crate::request::PreparedRequest;
use crate::secret::{Redactor, Secret};
use crate::transport::{HeaderValue, HttpRequest, Method};

impl Runner<'_> {
    /// The time of the runner's clock.
    fn now(&self) -> SystemTime {
        self.opts
            .clock
            .as_ref()
            .map_or_else(SystemTime::now, |c| c.now())
    }

    /// Sends the schema's own request with `main.auth` applied. Under client credentials, a 401
    /// makes the runner fetch a new token and send the request once more; the token never
    /// appears in the data (an API that echoes it gets it redacted).
    pub(super) fn authed_http(
        &self,
        prepared: &PreparedRequest,
        namespace: &str,
        root: Option<&str>,
        upstream: Option<&str>,
        deadline: Instant,
    ) -> Result<Value, Fail> {
        let mut inputs = AuthInputs::at(self.now());
        let Some(cc) = auth::client_credentials(prepared.auth_arc()) else {
            return self.http(prepared, namespace, &inputs, false, deadline);
        };
        let url = auth::token_url(cc, root, upstream);
        let first = self.token(cc, &url, false, deadline)?;
        inputs.bearer = Some(first.clone());
        let mut used = vec![first];
        let result = match self.http(prepared, namespace, &inputs, true, deadline) {
            Err(Fail(_, m)) if m == auth::REFUSED_TOKEN => {
                let fresh = self.token(cc, &url, true, deadline)?;
                inputs.bearer = Some(fresh.clone());
                used.push(fresh);
                self.http(prepared, namespace, &inputs, false, deadline)
            }
            other => other,
        };
        let hide = Redactor::with_values(used.iter().map(Secret::expose));
        result
            .map(|mut data| {
                hide.redact_json(&mut data);
                data
            })
            .map_err(|Fail(code, message)| Fail(code, hide.redact(&message)))
    }

    /// The access token for `cc` at `url`: the kept one, or (when there is none, it is about to
    /// expire, or `refresh`) a new one.
    fn token(
        &self,
        cc: &ClientCredentials,
        url: &str,
        refresh: bool,
        deadline: Instant,
    ) -> Result<Secret, Fail> {
        self.check_deadline(deadline)?;
        let params = &*self.params();
        self.set
            .tokens()
            .get(cc, url, params, self.now(), refresh, || {
                self.fetch_token(cc, url, deadline)
            })
            .map_err(|TokenError(code, why)| {
                Fail(
                    code,
                    params.redact(&format!("the access token could not be fetched: {why}")),
                )
            })
    }

    /// POSTs the client-credentials grant to the token URL. The client secret goes nowhere else:
    /// the request's body and `Authorization` header are marked secret, so the transport never
    /// carries them to another origin on a redirect.
    fn fetch_token(
        &self,
        cc: &ClientCredentials,
        url: &str,
        deadline: Instant,
    ) -> Result<(Secret, Option<u64>), TokenError> {
        let params = &*self.params();
        let (body, headers) = auth::token_request(cc, params)?;
        let mut req = HttpRequest::new(Method::Post, url);
        req.deadline = Some(deadline);
        req.redactor = Some(params.shared_redactor());
        for (name, value, secret) in headers {
            let value = if secret {
                HeaderValue::secret(value)
            } else {
                HeaderValue::plain(value)
            };
            req.headers.push((name, value));
        }
        req.body = Some(body.into_bytes());
        req.body_is_secret = true;
        let resp = self.transport.send(&req).map_err(|e| {
            let code = e.code();
            TokenError(code, params.redact(&format!("the token URL: {e}")))
        })?;
        if !(200..300).contains(&resp.status) {
            return Err(TokenError(
                Code::E001,
                format!("the token URL answered {}", resp.status),
            ));
        }
        auth::read_token(&resp.body)
    }
}
