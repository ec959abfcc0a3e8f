//! The transport of a sweep worker: the runtime's [`UreqTransport`] behind a guard.
//!
//! * Only `http://127.0.0.1:<port>` of the sweep's own servers is reached; any other URL (a
//!   handler fetching its real API, a rewritten URL) is refused before a connection is made, so
//!   nothing a schema does can reach the internet or another local service. A refused request is
//!   noted with the canaries it would have carried, and where to.
//! * Every request is tagged with the number of the call it belongs to ([`CALL_HEADER`]), so the
//!   servers can attribute what they receive even when calls run in parallel or are abandoned.
//! * Once the worker is abandoned (a hang), every further request fails at once.

use std::cell::{Cell, RefCell};
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use flowmcp_runtime::transport::redact_url;
use flowmcp_runtime::{
    Transport, transport::HeaderValue, transport::HttpRequest, transport::HttpResponse,
    transport::TransportError, transport::UreqTransport,
};
use url::{Host, Url};

use super::canary::Canaries;
use super::server::{CALL_HEADER, Found, scan};

/// A request the guard refused.
#[derive(Clone, Debug)]
pub(super) struct Refusal {
    /// Origin and path (see [`redact_url`]).
    pub url: String,
    /// `scheme://host[:port]`, or `[invalid URL]`.
    pub origin: String,
    /// The canaries it carried.
    pub found: Vec<Found>,
}

/// A guarded transport owned by one worker thread.
pub(super) struct GuardTransport {
    inner: Arc<UreqTransport>,
    ports: Vec<u16>,
    canaries: Arc<Canaries>,
    cancelled: Arc<AtomicBool>,
    call: Cell<u64>,
    refused: RefCell<Vec<Refusal>>,
    sent: Cell<usize>,
}

impl GuardTransport {
    /// A transport that reaches `127.0.0.1` on `ports` only.
    pub(super) fn new(
        inner: Arc<UreqTransport>,
        ports: Vec<u16>,
        canaries: Arc<Canaries>,
        cancelled: Arc<AtomicBool>,
    ) -> Self {
        GuardTransport {
            inner,
            ports,
            canaries,
            cancelled,
            call: Cell::new(0),
            refused: RefCell::new(Vec::new()),
            sent: Cell::new(0),
        }
    }

    /// Starts a new call: its number tags the requests from now on.
    pub(super) fn begin(&self, call: u64) {
        self.call.set(call);
        self.refused.borrow_mut().clear();
        self.sent.set(0);
    }

    /// The requests refused since [`GuardTransport::begin`] and the number let through.
    pub(super) fn finish(&self) -> (Vec<Refusal>, usize) {
        (self.refused.borrow_mut().split_off(0), self.sent.get())
    }

    fn refusal(&self, req: &HttpRequest) -> Refusal {
        let headers: Vec<(String, String)> = req
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.expose().to_string()))
            .collect();
        let body = req
            .body
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        Refusal {
            url: redact_url(&req.url),
            origin: Url::parse(&req.url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|_| "[invalid URL]".to_string()),
            found: scan(&self.canaries, &req.url, &headers, &body),
        }
    }

    fn allowed(&self, url: &str) -> bool {
        let Ok(u) = Url::parse(url) else {
            return false;
        };
        u.scheme() == "http"
            && u.host() == Some(Host::Ipv4(Ipv4Addr::LOCALHOST))
            && u.port().is_some_and(|p| self.ports.contains(&p))
    }
}

impl Transport for GuardTransport {
    fn send(&self, req: &HttpRequest) -> Result<HttpResponse, TransportError> {
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(TransportError::Network {
                url: redact_url(&req.url),
                reason: "the sweep abandoned this call".into(),
            });
        }
        if !self.allowed(&req.url) {
            let refusal = self.refusal(req);
            let url = refusal.url.clone();
            self.refused.borrow_mut().push(refusal);
            return Err(TransportError::RefusedUrl {
                url,
                reason: "the sweep reaches its own local servers only".into(),
            });
        }
        self.sent.set(self.sent.get() + 1);
        let mut tagged = req.clone();
        tagged.headers.push((
            CALL_HEADER.to_string(),
            HeaderValue::plain(self.call.get().to_string()),
        ));
        self.inner.send(&tagged)
    }
}
