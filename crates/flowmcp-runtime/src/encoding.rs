//! The forms in which the runtime writes a value into a request or an answer ([`Encoding`]):
//! one table, read by the request builder (which fills server parameters only through it) and by
//! the redactor (which hides every form of a secret). A module of its own so that both, and the
//! transport, build on it without naming each other.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Characters escaped in a path segment: all but `A-Z a-z 0-9 - . _ ~`.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes `text` as one path segment.
fn encode_segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

/// Form-encodes `text` as a query key or value (`application/x-www-form-urlencoded`).
fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// `text` escaped for the inside of a JSON string (`"` as `\"`, `\` as `\\`, control
/// characters as `\n`, `\u001f`…), as `serde_json` and `JSON.stringify` write it.
fn json_escape(text: &str) -> String {
    let quoted = Value::String(text.to_string()).to_string();
    quoted
        .get(1..quoted.len().saturating_sub(1))
        .unwrap_or_default()
        .to_string()
}

/// Standard base64 of the text's UTF-8 bytes.
fn base64(text: &str) -> String {
    base64_encode(text.as_bytes())
}

/// Declares [`Encoding`] and its [`Encoding::ALL`] from one list, so that no encoding can be
/// added without being in the list the redactor reads.
macro_rules! encodings {
    ($($(#[$doc:meta])* $name:ident => $encode:expr,)+) => {
        /// The forms in which the runtime writes a value into a request or an answer: the one
        /// table that fills server parameters into requests ([`crate::request::SecretSlots::fill`] takes nothing
        /// else) and that [`crate::secret::Redactor`] reads to know what to hide.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Encoding {
            $($(#[$doc])* $name,)+
        }

        impl Encoding {
            /// Every encoding, in declaration order.
            pub(crate) const ALL: &'static [Encoding] = &[$(Encoding::$name,)+];

            /// `text` in this encoding.
            pub(crate) fn encode(self, text: &str) -> String {
                match self {
                    $(Encoding::$name => ($encode)(text),)+
                }
            }
        }
    };
}

encodings! {
    /// As written: header values, and what a handler's own `fetch` carries.
    Raw => str::to_string,
    /// Percent-encoded as one path segment (`a/b c` → `a%2Fb%20c`): the root and the path.
    Segment => encode_segment,
    /// Form-encoded (`a b+` → `a+b%2B`): query keys and values.
    Form => form_encode,
    /// Escaped for the inside of a JSON string: the JSON body.
    JsonString => json_escape,
    /// Base64 of the UTF-8 bytes: binary bodies turned into text (`image/png`).
    Base64 => base64,
}

/// The shortest piece of a base64 text [`Encoding::forms`] names (shorter ones would match by
/// chance).
const MIN_BASE64_PIECE: usize = 8;

impl Encoding {
    /// The texts that show `text`, encoded so, inside a longer encoded text. For the encodings
    /// that work character by character that is the encoding itself; for base64 it is the whole
    /// encoding (the value alone) and, for each of the three places the value can start at in a
    /// three-byte group, the characters that depend on the value's bytes only (at least
    /// [`MIN_BASE64_PIECE`] of them).
    pub(crate) fn forms(self, text: &str) -> Vec<String> {
        if self != Encoding::Base64 {
            return vec![self.encode(text)];
        }
        let bytes = text.as_bytes();
        let mut out = vec![self.encode(text)];
        for shift in 0..3 {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(bytes);
            let encoded = base64_encode(&shifted);
            // Character i holds bits 6i..6i+6 of the stream; the value's are 8·shift..8·(shift+n).
            let first = (8 * shift).div_ceil(6);
            let end = 8 * (shift + bytes.len()) / 6;
            if let Some(piece) = encoded
                .get(first..end)
                .filter(|p| p.len() >= MIN_BASE64_PIECE)
            {
                out.push(piece.to_string());
            }
        }
        out
    }
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b0 = chunk.first().copied().unwrap_or(0);
        let b1 = chunk.get(1).copied().unwrap_or(0);
        let b2 = chunk.get(2).copied().unwrap_or(0);
        let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        let sextet = |shift: u32| char::from(ALPHABET[((n >> shift) & 0x3f) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}
