//! How the runtime treats an upstream's answer beyond its body (issue #44, D136): what an E001
//! message says of a failed answer (status, `Retry-After`, a cut of the body with every secret
//! hidden), which requests are tried again (read-only methods, on 429, 502, 503, 504 and network
//! failures), and how long to wait before the next attempt.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::secret::{Redactor, ServerParams};
use crate::transport::Method;

/// Characters of a failed answer's body that an E001 message shows.
pub(crate) const BODY_CUT_CHARS: usize = 300;
/// Bytes of a failed answer's body that are redacted before the cut is taken: the cut comes from
/// redacted text, so a secret can never be cut in half and shown in part.
const BODY_SCAN_BYTES: usize = 16 * 1024;
/// The first pause between attempts; it doubles with every attempt, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// Default of [`RunnerOptions::max_attempts`](crate::RunnerOptions::max_attempts).
pub(crate) const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// The most attempts a call may be given.
pub(crate) const MAX_ATTEMPTS: u32 = 10;

/// Whether a request with this method is read-only, and so may be sent again.
pub(crate) fn is_read_only(method: Method) -> bool {
    matches!(method, Method::Get | Method::Head)
}

/// Whether an answer with this status is worth another attempt: the upstream is busy or a
/// gateway in front of it failed.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

/// The E001 text after `E001 <tool>: `: `API returned <status>`, then ` (retry after <n> s)`
/// when the answer said when to come back, then `: <cut>` when the body has text.
pub(crate) fn status_text(status: u16, retry_after: Option<Duration>, cut: &str) -> String {
    let mut text = crate::transport::status_message(status);
    if let Some(wait) = retry_after {
        // Whole seconds, rounded up: `Retry-After` counts in seconds.
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        text.push_str(&format!(" (retry after {secs} s)"));
    }
    if !cut.is_empty() {
        text.push_str(": ");
        text.push_str(cut);
    }
    text
}

/// The start of a failed answer's body as a message may show it: text only (a body that is not
/// UTF-8, an image say, is not quoted), every server-parameter value hidden by `params`' redactor
/// (in every form it knows), control characters and runs of white space made one space, at most
/// [`BODY_CUT_CHARS`] characters (`…` when more followed). Empty when the body has no text.
pub(crate) fn body_cut(body: &[u8], params: &ServerParams, extra: &Redactor) -> String {
    let scanned = &body[..body.len().min(BODY_SCAN_BYTES)];
    let text = match std::str::from_utf8(scanned) {
        Ok(text) => text,
        // Only a character cut by the scan's end: the text before it.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&scanned[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return String::new(),
    };
    // What `main.auth` added to the request (a signature, a token, a basic pair) is hidden
    // first, whole: the server parameters' patterns would otherwise hide only the part of it
    // that encodes a secret and leave the rest.
    let text = extra.redact_cow(text);
    let text = params.redact_cow(&text);
    let mut out = String::new();
    let mut chars = 0usize;
    let mut space = false;
    let mut more = body.len() > BODY_SCAN_BYTES;
    for c in text.chars() {
        if c.is_control() || c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if chars + usize::from(space) >= BODY_CUT_CHARS {
            more = true;
            break;
        }
        if space {
            out.push(' ');
            chars += 1;
            space = false;
        }
        out.push(c);
        chars += 1;
    }
    if more && !out.is_empty() {
        out.push('…');
    }
    out
}

/// How long a `Retry-After` value asks to wait, seen at `now`: delay seconds (`120`) or an HTTP
/// date (`Sun, 06 Nov 1994 08:49:37 GMT`, the IMF-fixdate form); a date in the past is no wait.
/// `None` for anything else.
pub(crate) fn retry_after(text: &str, now: SystemTime) -> Option<Duration> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // A number too large for u64 is a wait longer than any deadline.
        return Some(Duration::from_secs(text.parse().unwrap_or(u64::MAX)));
    }
    let at = http_date(text)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Reads an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(text: &str) -> Option<SystemTime> {
    let (_weekday, rest) = text.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let day: u32 = day.parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *h > 23 || *m > 59 || *s > 60 || year < 1970 {
        return None;
    }
    // Days from 1970-01-01 to the civil date (the proleptic Gregorian calendar).
    let month = i64::try_from(month).ok()? + 1;
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = u64::try_from(days).ok()? * 86_400 + h * 3600 + m * 60 + s;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// The pause before attempt `attempt + 1` (the first retry follows attempt 1): 200 ms doubled
/// per attempt, at most 8 s, times a random factor between ½ and 1 (so that callers failing
/// together do not come back together).
pub(crate) fn backoff(attempt: u32) -> Duration {
    let doubled = FIRST_BACKOFF.saturating_mul(1u32 << attempt.saturating_sub(1).min(10));
    let full = doubled.min(MAX_BACKOFF);
    full.mul_f64(0.5 + jitter() / 2.0)
}

/// A number in [0, 1), different on every call (std's randomly keyed hasher over a counter).
fn jitter() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    // The top 53 bits make an evenly spread fraction.
    #[allow(clippy::cast_precision_loss)]
    let fraction = (h.finish() >> 11) as f64 / (1u64 << 53) as f64;
    fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(values: &[(&str, &str)]) -> ServerParams {
        let mut p = ServerParams::new();
        for (k, v) in values {
            p.insert(*k, *v);
        }
        p
    }

    #[test]
    fn i44_body_cut_is_short_clean_and_redacted() {
        let p = params(&[("API_KEY", "sk-live-123456")]);
        let body = b"{\"error\":\"bad key sk-live-123456\",\n\t\"hint\":\"x\x07y\"}";
        assert_eq!(
            body_cut(body, &p, &Redactor::default()),
            "{\"error\":\"bad key [redacted]\", \"hint\":\"x y\"}"
        );
        let long = "é".repeat(400);
        let cut = body_cut(long.as_bytes(), &p, &Redactor::default());
        assert_eq!(cut.chars().count(), BODY_CUT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(body_cut(b"  \n ", &p, &Redactor::default()), "");
        // Binary bodies are not quoted.
        assert_eq!(
            body_cut(
                &[0x89, b'P', b'N', b'G', 0xff, 0x00],
                &p,
                &Redactor::default()
            ),
            ""
        );
        // A secret right at the cut is hidden whole, never shown in part.
        let edge = format!("{}sk-live-123456", "a".repeat(295));
        let cut = body_cut(edge.as_bytes(), &p, &Redactor::default());
        assert!(!cut.contains("sk-l"), "{cut}");
    }

    #[test]
    fn i44_retry_after_reads_seconds_and_http_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(retry_after(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after("Thu, 29 Feb 2024 00:00:00 GMT", UNIX_EPOCH),
            Some(Duration::from_secs(1_709_164_800))
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
        assert_eq!(retry_after("Sun, 06 Nov 1994 25:00:00 GMT", now), None);
    }

    #[test]
    fn i44_backoff_doubles_with_jitter_and_is_capped() {
        for attempt in 1..=12 {
            let full = FIRST_BACKOFF
                .saturating_mul(1 << (attempt - 1).min(10))
                .min(MAX_BACKOFF);
            let b = backoff(attempt);
            assert!(b >= full / 2 && b <= full, "{attempt}: {b:?}");
        }
        assert_eq!(
            status_text(429, Some(Duration::from_millis(1500)), "slow down"),
            "API returned 429 (retry after 2 s): slow down"
        );
        assert_eq!(status_text(404, None, ""), "API returned 404");
    }
}
