//! Canary values for server parameters, and finding them in text in any of the forms a request,
//! a response or a log line can carry them.
//!
//! Every parameter name gets its own recognisable value, `CNRY` and a four-digit number: even
//! numbers are plain (`CNRY0042xq7`), odd ones look like base64 and contain `+`, `/` and `=`, which
//! URL encoding changes (`CNRY0043+k/q=Zz`). A value is found as written, percent-encoded (upper-
//! and lower-case hex, also encoded twice), form-encoded, JSON-escaped, in base64 (standard and
//! URL-safe alphabets, at each of the three byte alignments inside a longer encoded text) and, as a
//! catch-all for partial encodings, in the text after percent-decoding it.

use flowmcp_runtime::transport::base64_encode;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// Everything except the RFC 3986 unreserved characters is encoded.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One parameter's canary.
#[derive(Clone, Debug)]
pub(super) struct Canary {
    pub param: String,
    pub value: String,
    /// `(form, text)`: the texts that reveal the value, the raw value first.
    patterns: Vec<(&'static str, String)>,
}

/// Where a canary was found in a text, and in which form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Hit {
    /// The index of the canary in [`Canaries::list`].
    pub canary: usize,
    pub form: &'static str,
}

/// The canaries of a sweep, one per parameter name.
#[derive(Clone, Debug, Default)]
pub(super) struct Canaries {
    pub list: Vec<Canary>,
}

impl Canaries {
    /// One canary for each distinct name, numbered in order from 1.
    pub(super) fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> Canaries {
        let mut list: Vec<Canary> = Vec::new();
        for name in names {
            if list.iter().any(|c| c.param == name) {
                continue;
            }
            let value = canary_value(list.len() + 1, name);
            let patterns = patterns_of(&value);
            list.push(Canary {
                param: name.to_string(),
                value,
                patterns,
            });
        }
        Canaries { list }
    }

    /// The values as an environment (`name → canary`).
    pub(super) fn env(&self) -> std::collections::BTreeMap<String, String> {
        self.list
            .iter()
            .map(|c| (c.param.clone(), c.value.clone()))
            .collect()
    }

    /// Every canary that `text` reveals, each once, with the first form it was seen in.
    pub(super) fn find(&self, text: &str) -> Vec<Hit> {
        if self.list.is_empty() || text.is_empty() {
            return Vec::new();
        }
        let decoded = decodings(text);
        let mut hits = Vec::new();
        for (i, c) in self.list.iter().enumerate() {
            let direct = c.patterns.iter().find(|(_, p)| text.contains(p.as_str()));
            let form = match direct {
                Some((form, _)) => Some(*form),
                None => decoded
                    .iter()
                    .any(|d| d.contains(c.value.as_str()))
                    .then_some("URL-encoded (mixed)"),
            };
            if let Some(form) = form {
                hits.push(Hit { canary: i, form });
            }
        }
        hits
    }
}

/// The canary for the `n`th name: plain for even `n`, base64-like for odd `n`. The letters come
/// from a hash of the name, so a value is stable for a name and number.
fn canary_value(n: usize, name: &str) -> String {
    const LOWER: &[u8] = b"abcdefghijkmnpqrstuvwxyz";
    const UPPER: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut pick = |set: &[u8]| {
        let c = set[(h % set.len() as u64) as usize] as char;
        h /= set.len() as u64;
        c
    };
    if n.is_multiple_of(2) {
        let (a, b) = (pick(LOWER), pick(LOWER));
        format!("CNRY{n:04}{a}{b}{}", n % 10)
    } else {
        let (a, b, c, d) = (pick(LOWER), pick(LOWER), pick(UPPER), pick(LOWER));
        format!("CNRY{n:04}+{a}/{b}={c}{d}")
    }
}

/// The texts that reveal `value`, without duplicates, the raw value first.
fn patterns_of(value: &str) -> Vec<(&'static str, String)> {
    let pct = utf8_percent_encode(value, COMPONENT).to_string();
    let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let twice = utf8_percent_encode(&pct, COMPONENT).to_string();
    let mut out: Vec<(&'static str, String)> = vec![
        ("raw", value.to_string()),
        ("percent-encoded", pct.clone()),
        ("percent-encoded (lower-case hex)", lower_hex(&pct)),
        ("form-encoded", form.clone()),
        ("form-encoded (lower-case hex)", lower_hex(&form)),
        ("percent-encoded twice", twice.clone()),
        ("percent-encoded twice (lower-case hex)", lower_hex(&twice)),
        ("JSON-escaped", value.replace('/', "\\/")),
    ];
    for piece in base64_pieces(value.as_bytes()) {
        let url_safe = piece.replace('+', "-").replace('/', "_");
        out.push(("base64", piece));
        out.push(("base64url", url_safe));
    }
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    for (form, p) in out {
        if !p.is_empty() && !seen.iter().any(|(_, q)| *q == p) {
            seen.push((form, p));
        }
    }
    seen
}

/// The base64 characters that depend on `bytes` alone when they are encoded inside a longer text,
/// for each of the three alignments (0, 1 or 2 bytes before them in their group).
fn base64_pieces(bytes: &[u8]) -> Vec<String> {
    (0..3usize)
        .filter_map(|k| {
            let mut padded = vec![0u8; k];
            padded.extend_from_slice(bytes);
            let enc = base64_encode(&padded);
            let start = (8 * k).div_ceil(6);
            let end = 8 * (k + bytes.len()) / 6;
            enc.get(start..end).map(str::to_string)
        })
        .collect()
}

/// `p` with the hex digits of its `%XX` escapes in lower case.
fn lower_hex(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut pending = 0;
    for c in p.chars() {
        if pending > 0 {
            out.push(c.to_ascii_lowercase());
            pending -= 1;
        } else {
            out.push(c);
            if c == '%' {
                pending = 2;
            }
        }
    }
    out
}

/// `text` percent-decoded once and twice, each also with `+` read as a space; only the decodings
/// that differ from `text`.
fn decodings(text: &str) -> Vec<String> {
    if !text.contains('%') && !text.contains('+') {
        return Vec::new();
    }
    let once = percent_decode_str(text).decode_utf8_lossy().into_owned();
    let twice = percent_decode_str(&once).decode_utf8_lossy().into_owned();
    let plus = text.replace('+', " ");
    let plus_once = percent_decode_str(&plus).decode_utf8_lossy().into_owned();
    let mut out: Vec<String> = Vec::new();
    for d in [once, twice, plus_once] {
        if d != text && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_unique_recognisable_and_half_need_encoding() {
        let c = Canaries::new(["A", "B", "A", "C"]);
        assert_eq!(c.list.len(), 3);
        assert!(c.list.iter().all(|x| x.value.starts_with("CNRY000")));
        assert!(c.list[0].value.contains('+') && c.list[0].value.contains('/'));
        assert!(!c.list[1].value.contains('+'));
        assert_eq!(c.env().len(), 3);
    }

    #[test]
    fn finds_every_encoding() {
        let c = Canaries::new(["B64", "PLAIN"]);
        let v = c.list[0].value.clone();
        assert!(v.contains('+'));
        let pct = utf8_percent_encode(&v, COMPONENT).to_string();
        let basic = base64_encode(format!("user:{v}").as_bytes());
        let texts = [
            format!("x{v}y"),
            format!("/q?k={pct}"),
            format!("/q?k={}", lower_hex(&pct)),
            format!("/q?k={}", v.replace('+', "%2B")),
            format!("Authorization: Basic {basic}"),
            base64_encode(format!("ab{v}").as_bytes()),
        ];
        for t in &texts {
            let hits = c.find(t);
            assert_eq!(hits.len(), 1, "{t}: {hits:?}");
            assert_eq!(hits[0].canary, 0, "{t}");
        }
        assert!(c.find("CNRY0003 nothing here").is_empty());
        assert_eq!(c.find(&c.list[1].value)[0].form, "raw");
    }
}
