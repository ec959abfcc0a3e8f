//! A small Redis client (RESP2 over plain TCP) whose connect and every command are bounded as a
//! whole: each is given an instant it must be done by, and every read and write waits at most
//! until then. A server that answers one byte at a time therefore cannot stretch a command past
//! its limit, as it could with a limit per socket read.
//!
//! Only what the preload cache needs: `AUTH`, `SELECT`, and commands whose arguments are byte
//! strings, answered by simple strings, errors, integers, bulk strings, nil and arrays.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Longest status, error or length line read (a longer one is not Redis talking).
const MAX_LINE: usize = 4096;
/// Largest bulk string accepted (Redis's own limit).
const MAX_BULK: usize = 512 * 1024 * 1024;
/// Most elements of one array, and how deeply arrays may nest.
const MAX_ARRAY: usize = 1 << 20;
const MAX_DEPTH: usize = 4;
/// Bytes asked for per read.
const READ_CHUNK: usize = 16 * 1024;

/// Where a Redis database is and how to log in (from a `redis://` URL).
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) db: u64,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<String>,
}

/// One reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    Nil,
    Status(String),
    Int(i64),
    Bulk(Vec<u8>),
    Array(Vec<Reply>),
}

/// Why a connect or a command failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// It was not done by the instant it was given.
    TimedOut,
    /// The server answered with an error (`-ERR …`), or the connection failed or broke.
    Other(String),
}

impl Failure {
    fn io(err: &io::Error) -> Failure {
        match err.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Failure::TimedOut,
            _ => Failure::Other(err.to_string()),
        }
    }
}

/// The time left until `until`; `TimedOut` when none is.
fn left(until: Instant) -> Result<Duration, Failure> {
    until
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or(Failure::TimedOut)
}

/// How a host name becomes addresses (the system's resolver, or a stand-in in tests).
type Lookup = fn(&str, u16) -> io::Result<Vec<SocketAddr>>;

/// The system's resolver.
fn system_lookup(host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
    (host, port).to_socket_addrs().map(Iterator::collect)
}

/// The addresses of `host`, looked up by `until`: an IP address as it is, a name by `lookup` on a
/// thread of its own, waited for at most until `until` (the system's resolver has no deadline of
/// its own; a lookup that outlives the wait finishes on its own and is dropped).
fn addresses(
    host: &str,
    port: u16,
    until: Instant,
    lookup: Lookup,
) -> Result<Vec<SocketAddr>, Failure> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let wait = left(until)?;
    let (tx, rx) = std::sync::mpsc::channel();
    let name = host.to_string();
    std::thread::Builder::new()
        .name("flowmcp-redis-lookup".into())
        .spawn(move || {
            let _ = tx.send(lookup(&name, port));
        })
        .map_err(|e| Failure::io(&e))?;
    match rx.recv_timeout(wait) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(e)) => Err(Failure::io(&e)),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Failure::TimedOut),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Failure::Other(format!(
            "the lookup of {host} ended without an answer"
        ))),
    }
}

/// An open connection, logged in and on its database.
pub(crate) struct Conn {
    stream: TcpStream,
    /// Bytes read and not yet parsed: `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
}

impl Conn {
    /// Connects to `target`, logs in and selects its database, all by `until`.
    pub(crate) fn connect(target: &Target, until: Instant) -> Result<Conn, Failure> {
        let addrs = addresses(&target.host, target.port, until, system_lookup)?;
        let mut last = Failure::Other(format!("{} has no address", target.host));
        let mut stream = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, left(until)?) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Failure::io(&e),
            }
        }
        let stream = stream.ok_or(last)?;
        let _ = stream.set_nodelay(true);
        let mut con = Conn {
            stream,
            buf: Vec::new(),
            start: 0,
        };
        if let Some(password) = &target.password {
            let mut args: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(user) = &target.username {
                args.push(user.as_bytes());
            }
            args.push(password.as_bytes());
            con.command(&args, until)?;
        }
        if target.db != 0 {
            let db = target.db.to_string();
            con.command(&[b"SELECT", db.as_bytes()], until)?;
        }
        Ok(con)
    }

    /// Sends one command and reads its reply, by `until`. An error reply is a
    /// [`Failure::Other`] with the server's text.
    pub(crate) fn command(&mut self, args: &[&[u8]], until: Instant) -> Result<Reply, Failure> {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            out.extend_from_slice(arg);
            out.extend_from_slice(b"\r\n");
        }
        let mut sent = 0;
        while sent < out.len() {
            self.stream
                .set_write_timeout(Some(left(until)?))
                .map_err(|e| Failure::io(&e))?;
            match self.stream.write(&out[sent..]) {
                Ok(0) => return Err(Failure::Other("the connection was closed".into())),
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Failure::io(&e)),
            }
        }
        self.reply(until, 0)
    }

    /// Whether the connection may be used again: nothing is left unread.
    pub(crate) fn is_clean(&self) -> bool {
        self.start == self.buf.len()
    }

    fn reply(&mut self, until: Instant, depth: usize) -> Result<Reply, Failure> {
        let line = self.line(until)?;
        let (kind, rest) = line
            .split_first()
            .ok_or_else(|| protocol("an empty line"))?;
        let text = String::from_utf8_lossy(rest).into_owned();
        match kind {
            b'+' => Ok(Reply::Status(text)),
            b'-' => Err(Failure::Other(format!("Redis answered: {text}"))),
            b':' => text
                .parse()
                .map(Reply::Int)
                .map_err(|_| protocol("a bad integer")),
            b'$' => match length(&text, MAX_BULK)? {
                None => Ok(Reply::Nil),
                Some(n) => {
                    let bytes = self.take(n + 2, until)?;
                    if !bytes.ends_with(b"\r\n") {
                        return Err(protocol("a bulk string without its end"));
                    }
                    Ok(Reply::Bulk(bytes[..n].to_vec()))
                }
            },
            b'*' => match length(&text, MAX_ARRAY)? {
                None => Ok(Reply::Nil),
                Some(_) if depth >= MAX_DEPTH => Err(protocol("arrays nested too deeply")),
                Some(n) => {
                    let mut items = Vec::new();
                    for _ in 0..n {
                        items.push(self.reply(until, depth + 1)?);
                    }
                    Ok(Reply::Array(items))
                }
            },
            _ => Err(protocol("an unknown reply type")),
        }
    }

    /// The next line, without its `\r\n`.
    fn line(&mut self, until: Instant) -> Result<Vec<u8>, Failure> {
        loop {
            let unread = &self.buf[self.start..];
            if let Some(end) = unread.windows(2).position(|w| w == b"\r\n") {
                let line = unread[..end].to_vec();
                self.start += end + 2;
                return Ok(line);
            }
            if unread.len() > MAX_LINE {
                return Err(protocol("a line too long"));
            }
            self.fill(until)?;
        }
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize, until: Instant) -> Result<Vec<u8>, Failure> {
        while self.buf.len() - self.start < n {
            self.fill(until)?;
        }
        let bytes = self.buf[self.start..self.start + n].to_vec();
        self.start += n;
        Ok(bytes)
    }

    /// Reads what the server has sent, waiting at most until `until`.
    fn fill(&mut self, until: Instant) -> Result<(), Failure> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let mut chunk = [0_u8; READ_CHUNK];
        loop {
            self.stream
                .set_read_timeout(Some(left(until)?))
                .map_err(|e| Failure::io(&e))?;
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(Failure::Other("the connection was closed".into())),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Failure::io(&e)),
            }
        }
    }
}

/// A bulk or array length: `-1` is nil (`None`), others must lie within `max`.
fn length(text: &str, max: usize) -> Result<Option<usize>, Failure> {
    if text == "-1" {
        return Ok(None);
    }
    match text.parse::<usize>() {
        Ok(n) if n <= max => Ok(Some(n)),
        _ => Err(protocol("a bad length")),
    }
}

fn protocol(what: &str) -> Failure {
    Failure::Other(format!("not a Redis reply: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// Issue 39, scope 4: a host name lookup that takes longer than the call has left ends the
    /// connect at the call's deadline (the lookup used to run inline, with no bound at all).
    #[test]
    fn i39_4_a_slow_host_name_lookup_ends_at_the_deadline() {
        fn slow(_: &str, _: u16) -> io::Result<Vec<SocketAddr>> {
            std::thread::sleep(Duration::from_secs(5));
            Ok(Vec::new())
        }
        fn quick(_: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
            Ok(vec![SocketAddr::from(([127, 0, 0, 1], port))])
        }
        let started = Instant::now();
        let until = started + Duration::from_millis(200);
        assert_eq!(
            addresses("redis.internal", 6379, until, slow),
            Err(Failure::TimedOut)
        );
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "the wait was not bounded"
        );
        let later = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            addresses("redis.internal", 6379, later, quick),
            Ok(vec![SocketAddr::from(([127, 0, 0, 1], 6379))])
        );
        // An address needs no lookup at all.
        assert_eq!(
            addresses("[::1]", 6379, later, slow),
            Ok(vec![SocketAddr::from((
                std::net::Ipv6Addr::LOCALHOST,
                6379
            ))])
        );
    }

    /// A server that answers the first command with `answer` and records what it was sent.
    fn answering(answer: &'static [u8]) -> (u16, std::thread::JoinHandle<Vec<u8>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("addr: {e}"))
            .port();
        let handle = std::thread::spawn(move || {
            let Ok((mut conn, _)) = listener.accept() else {
                return Vec::new();
            };
            let mut seen = vec![0_u8; 256];
            let n = conn.read(&mut seen).unwrap_or(0);
            seen.truncate(n);
            let _ = conn.write_all(answer);
            seen
        });
        (port, handle)
    }

    fn target(port: u16) -> Target {
        Target {
            host: "127.0.0.1".into(),
            port,
            db: 0,
            username: None,
            password: None,
        }
    }

    #[test]
    fn replies_of_every_kind_are_read() {
        let until = || Instant::now() + Duration::from_secs(5);
        for (answer, expected) in [
            (&b"+OK\r\n"[..], Reply::Status("OK".into())),
            (b":42\r\n", Reply::Int(42)),
            (b"$-1\r\n", Reply::Nil),
            (b"$3\r\na\r\n\r\n", Reply::Bulk(b"a\r\n".to_vec())),
            (
                b"*2\r\n$1\r\n0\r\n*1\r\n$2\r\nk1\r\n",
                Reply::Array(vec![
                    Reply::Bulk(b"0".to_vec()),
                    Reply::Array(vec![Reply::Bulk(b"k1".to_vec())]),
                ]),
            ),
        ] {
            let (port, server) = answering(answer);
            let mut con =
                Conn::connect(&target(port), until()).unwrap_or_else(|e| panic!("connect: {e:?}"));
            let reply = con.command(&[b"GET", b"k"], until());
            assert_eq!(reply, Ok(expected));
            assert!(con.is_clean());
            let seen = server.join().unwrap_or_default();
            assert_eq!(seen, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
        }
        let (port, _server) = answering(b"-ERR wrong\r\n");
        let mut con =
            Conn::connect(&target(port), until()).unwrap_or_else(|e| panic!("connect: {e:?}"));
        assert_eq!(
            con.command(&[b"GET", b"k"], until()),
            Err(Failure::Other("Redis answered: ERR wrong".into()))
        );
    }

    #[test]
    fn a_silent_server_times_out_by_the_instant_given() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("addr: {e}"))
            .port();
        let _server = std::thread::spawn(move || {
            let held = listener.accept();
            std::thread::sleep(Duration::from_secs(3));
            drop(held);
        });
        let mut con = Conn::connect(&target(port), Instant::now() + Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("connect: {e:?}"));
        let started = Instant::now();
        let reply = con.command(&[b"GET", b"k"], started + Duration::from_millis(200));
        assert_eq!(reply, Err(Failure::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
