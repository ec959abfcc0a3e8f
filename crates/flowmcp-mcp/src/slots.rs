//! The connection slots of one listener: at most [`HttpOptions::max_connections`] open, at
//! most [`HttpOptions::max_connections_per_peer`] of them from one peer, and a connection that
//! sits between requests (idle) gives its slot up first; and the descriptor limit those slots
//! must fit in.
//!
//! A connection is idle from its accept until its first request's headers have arrived, and again
//! from each answer until the next request: what a client holds without asking anything. When a
//! new connection finds the cap reached, the idle connection of the peer with the most
//! connections (the longest idle of those) is closed to make room; when the new connection's
//! peer already has its share, that peer's own longest idle one is. Only when none is idle is the
//! new connection refused. A closed idle connection loses nothing: an HTTP client opens a new one.
//! A connection told to close keeps its descriptor until its task has closed it, so at most
//! [`CLOSING`] may be on their way out at once (beyond the cap); while that many are, a new
//! connection that would need another to close is refused instead.
//!
//! [`HttpOptions::max_connections`]: crate::HttpOptions::max_connections
//! [`HttpOptions::max_connections_per_peer`]: crate::HttpOptions::max_connections_per_peer

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

/// Who a connection counts for: its IPv4 address, or the /64 network of its IPv6 address (one
/// host commonly holds a whole /64).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct Peer(IpAddr);

impl Peer {
    fn of(ip: IpAddr) -> Peer {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                Peer(IpAddr::V6(bits.into()))
            }
            v4 => Peer(v4),
        }
    }
}

/// One open connection.
struct Open {
    peer: Peer,
    /// Since when it waits for a request; `None` while a request is being answered.
    idle_since: Option<Instant>,
    /// Cancelled to close it (gracefully: an answer being written is finished first).
    close: CancellationToken,
    /// Told to close to make room: it no longer counts against the cap or its peer's share.
    closing: bool,
}

/// How many connections told to close to make room may still hold their descriptors.
pub(crate) const CLOSING: usize = 16;

#[derive(Default)]
struct State {
    next: u64,
    /// Every connection with a slot, those closing included.
    open: HashMap<u64, Open>,
    /// The connections of each peer that are not closing.
    peers: HashMap<Peer, usize>,
    /// How many of `open` are closing.
    closing: usize,
}

impl State {
    /// Closes the idle connection `pick` prefers among those `which` accepts; whether there was
    /// one. Its slot is free at once (the connection goes a moment later).
    fn close_idle(
        &mut self,
        which: impl Fn(&Open) -> bool,
        rank: impl Fn(&State, &Open) -> (usize, std::cmp::Reverse<Instant>),
    ) -> bool {
        if self.closing >= CLOSING {
            return false;
        }
        let chosen = self
            .open
            .iter()
            .filter(|(_, o)| o.idle_since.is_some() && !o.closing && which(o))
            .max_by_key(|(_, o)| rank(self, o))
            .map(|(id, _)| *id);
        let Some(o) = chosen.and_then(|id| self.open.get_mut(&id)) else {
            return false;
        };
        o.closing = true;
        o.close.cancel();
        let peer = o.peer;
        self.closing += 1;
        self.leave(peer);
        true
    }

    /// One connection of `peer` no longer counts.
    fn leave(&mut self, peer: Peer) {
        if let Some(n) = self.peers.get_mut(&peer) {
            *n -= 1;
            if *n == 0 {
                self.peers.remove(&peer);
            }
        }
    }

    /// The connection `id` is gone.
    fn remove(&mut self, id: u64) {
        if let Some(o) = self.open.remove(&id) {
            o.close.cancel();
            if o.closing {
                self.closing -= 1;
            } else {
                self.leave(o.peer);
            }
        }
    }

    /// The connections that count against the cap.
    fn live(&self) -> usize {
        self.open.len() - self.closing
    }
}

/// The slots of one listener.
pub(crate) struct Slots {
    state: Mutex<State>,
    max: usize,
    per_peer: usize,
}

impl Slots {
    /// At most `max` connections, `per_peer` of them from one peer (each at least 1).
    pub(crate) fn new(max: usize, per_peer: usize) -> Arc<Slots> {
        Arc::new(Slots {
            state: Mutex::default(),
            max: max.max(1),
            per_peer: per_peer.max(1),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a new connection from `ip`, closing an idle connection to make room when the
    /// peer's share or the cap is reached (see the module's documentation); `None` when every
    /// connection that would have to go is busy: refuse the new one. The slot's
    /// [`Slot::closing`] is a child of `server` (cancelled when the server shuts down, too).
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr, server: &CancellationToken) -> Option<Slot> {
        let peer = Peer::of(ip);
        let mut st = self.lock();
        let longest_idle = |_: &State, o: &Open| {
            (
                0,
                std::cmp::Reverse(o.idle_since.unwrap_or_else(Instant::now)),
            )
        };
        if st.peers.get(&peer).copied().unwrap_or(0) >= self.per_peer
            && !st.close_idle(|o| o.peer == peer, longest_idle)
        {
            return None;
        }
        let busiest_peer = |st: &State, o: &Open| {
            (
                st.peers.get(&o.peer).copied().unwrap_or(0),
                std::cmp::Reverse(o.idle_since.unwrap_or_else(Instant::now)),
            )
        };
        if st.live() >= self.max && !st.close_idle(|_| true, busiest_peer) {
            return None;
        }
        let id = st.next;
        st.next += 1;
        let close = server.child_token();
        st.open.insert(
            id,
            Open {
                peer,
                idle_since: Some(Instant::now()),
                close: close.clone(),
                closing: false,
            },
        );
        *st.peers.entry(peer).or_insert(0) += 1;
        drop(st);
        Some(Slot {
            use_: Use {
                slots: Arc::clone(self),
                id,
            },
            close,
        })
    }
}

/// A connection's place; gives it up when dropped.
pub(crate) struct Slot {
    use_: Use,
    close: CancellationToken,
}

impl Slot {
    /// Marks the connection's requests busy (see [`Use::busy`]), for its service.
    pub(crate) fn usage(&self) -> Use {
        self.use_.clone()
    }

    /// Cancelled when the connection is to close: to make room, or at shutdown.
    pub(crate) fn closing(&self) -> CancellationToken {
        self.close.clone()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.use_.slots.lock().remove(self.use_.id);
    }
}

/// Marks one connection's requests.
#[derive(Clone)]
pub(crate) struct Use {
    slots: Arc<Slots>,
    id: u64,
}

impl Use {
    /// The connection answers a request until the guard goes; then it is idle again.
    pub(crate) fn busy(&self) -> Busy {
        self.set(None);
        Busy(self.clone())
    }

    fn set(&self, idle_since: Option<Instant>) {
        if let Some(o) = self.slots.lock().open.get_mut(&self.id) {
            o.idle_since = idle_since;
        }
    }
}

/// See [`Use::busy`].
pub(crate) struct Busy(Use);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.set(Some(Instant::now()));
    }
}

/// `configured` connections, or fewer when they do not fit below this process's limit of open
/// descriptors ([`fitting`]), raised first toward its hard limit; a warning says so.
pub(crate) fn fit_connections(configured: usize) -> usize {
    let Some(limit) = raise_descriptor_limit() else {
        return configured;
    };
    let room = fitting(limit);
    if configured <= room {
        return configured;
    }
    tracing::warn!(
        "at most {room} connections are served at once, not {configured}: this process may open \
         {limit} descriptors, and a quarter of them (at least 64) is kept for upstream requests, \
         files and the catalog; raise the limit of open files to serve more"
    );
    room
}

/// The soft limit of open descriptors of this process, raised first toward its hard limit; `None`
/// where there is no such limit (or it cannot be read).
fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let now = getrlimit(Resource::Nofile);
        if now.current.is_some() && now.current != now.maximum {
            // Some systems refuse an unlimited soft limit: then a large one.
            for target in [now.maximum, now.maximum.or(Some(1 << 20)), Some(1 << 16)] {
                if target.is_some_and(|t| Some(t) > now.current)
                    && setrlimit(
                        Resource::Nofile,
                        Rlimit {
                            current: target,
                            maximum: now.maximum,
                        },
                    )
                    .is_ok()
                {
                    break;
                }
            }
        }
        getrlimit(Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// How many connections fit in `limit` open descriptors: a quarter of them (at least 64) is left
/// for everything else a server opens (upstream requests, SQLite files, the catalog, Redis) and
/// for the [`CLOSING`] connections on their way out.
fn fitting(limit: u64) -> usize {
    let room = limit.saturating_sub((limit / 4).max(64)).max(1);
    usize::try_from(room).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn i39_1_idle_connections_give_way_and_a_peer_keeps_to_its_share() {
        let server = CancellationToken::new();
        let slots = Slots::new(4, 2);
        let a1 = slots.admit(ip("10.0.0.1"), &server).unwrap();
        let a2 = slots.admit(ip("10.0.0.1"), &server).unwrap();
        let _busy = (a1.usage().busy(), a2.usage().busy());
        // A's share is taken by busy connections: refused.
        assert!(slots.admit(ip("10.0.0.1"), &server).is_none());
        let b1 = slots.admit(ip("10.0.0.2"), &server).unwrap();
        let b2 = slots.admit(ip("10.0.0.2"), &server).unwrap();
        // B's share is taken, but its first connection is idle: it goes.
        let b3 = slots.admit(ip("10.0.0.2"), &server).unwrap();
        assert!(b1.closing().is_cancelled());
        assert!(!b2.closing().is_cancelled());
        // The cap is reached (a1, a2, b2, b3): C takes the place of an idle one of B.
        let c1 = slots.admit(ip("10.0.0.3"), &server).unwrap();
        assert!(b2.closing().is_cancelled());
        assert!(!b3.closing().is_cancelled() && !a1.closing().is_cancelled());
        let _busy = (b3.usage().busy(), c1.usage().busy());
        // Everything is busy: refused, and nothing is closed.
        assert!(slots.admit(ip("10.0.0.4"), &server).is_none());
        drop(c1);
        assert!(slots.admit(ip("10.0.0.4"), &server).is_some());
        // Shutting down closes every connection.
        server.cancel();
        assert!(a1.closing().is_cancelled());
    }

    #[test]
    fn i39_1_only_so_many_connections_may_be_on_their_way_out() {
        let server = CancellationToken::new();
        let slots = Slots::new(1, 1);
        // Each new connection closes the idle one before it, whose task has not ended yet.
        let kept: Vec<Slot> = (0..=CLOSING)
            .map(|_| slots.admit(ip("10.0.0.1"), &server).unwrap())
            .collect();
        assert_eq!(
            kept.iter().filter(|s| s.closing().is_cancelled()).count(),
            CLOSING
        );
        assert!(slots.admit(ip("10.0.0.2"), &server).is_none());
        drop(kept);
        assert!(slots.admit(ip("10.0.0.2"), &server).is_some());
    }

    #[test]
    fn i39_1_a_peer_is_an_ipv4_address_or_an_ipv6_network() {
        assert_eq!(Peer::of(ip("::ffff:10.0.0.1")), Peer::of(ip("10.0.0.1")));
        assert_eq!(
            Peer::of(ip("2001:db8::1")),
            Peer::of(ip("2001:db8::ffff:1"))
        );
        assert_ne!(Peer::of(ip("2001:db8::1")), Peer::of(ip("2001:db8:0:1::1")));
    }

    #[test]
    fn i39_1_connections_fit_below_the_descriptor_limit() {
        assert_eq!(fitting(1024), 768);
        assert_eq!(fitting(256), 192);
        assert_eq!(fitting(64), 1);
        assert_eq!(fitting(1 << 20), 786_432);
    }
}
