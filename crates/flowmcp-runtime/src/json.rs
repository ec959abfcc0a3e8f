//! A second JSON reader for response bodies that `serde_json` refuses but JavaScript's
//! `JSON.parse` accepts, so that an API answering such JSON works as it does with the reference:
//!
//! * nesting deeper than `serde_json`'s 128 levels (up to [`MAX_DEPTH`]; the reader keeps its own
//!   stack, so depth costs no call stack while reading);
//! * numbers beyond the range of a double (`1e400`): `JSON.parse` makes them `Infinity`, which
//!   JSON cannot carry, so they become `null` — what `JSON.stringify` writes for `Infinity`;
//! * lone surrogate escapes (`"\ud800"`): JavaScript strings may hold them, Rust strings may not, so
//!   each becomes U+FFFD.
//!
//! Everything else is strict JSON, as `JSON.parse` has it. Used only after `serde_json` failed.

use serde_json::{Map, Number, Value};

/// The deepest nesting read.
pub(crate) const MAX_DEPTH: usize = 1000;

/// Why a body is not JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum JsonError {
    /// Malformed text at this byte offset.
    Syntax(usize),
    /// Nested more than [`MAX_DEPTH`] levels deep.
    TooDeep,
}

/// An open array or object.
enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

/// Parses `bytes` as one JSON value (see the module documentation).
pub(crate) fn parse_lenient(bytes: &[u8]) -> Result<Value, JsonError> {
    let mut r = Reader { b: bytes, i: 0 };
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        r.ws();
        // A value starts here: a scalar, or a new container.
        let mut value = match r.peek() {
            Some(b'[') => {
                r.i += 1;
                r.ws();
                if r.eat(b']') {
                    Value::Array(Vec::new())
                } else {
                    if stack.len() >= MAX_DEPTH {
                        return Err(JsonError::TooDeep);
                    }
                    stack.push(Frame::Array(Vec::new()));
                    continue;
                }
            }
            Some(b'{') => {
                r.i += 1;
                r.ws();
                if r.eat(b'}') {
                    Value::Object(Map::new())
                } else {
                    if stack.len() >= MAX_DEPTH {
                        return Err(JsonError::TooDeep);
                    }
                    let key = r.key()?;
                    stack.push(Frame::Object(Map::new(), key));
                    continue;
                }
            }
            _ => r.scalar()?,
        };
        // Close every container the value completes.
        loop {
            r.ws();
            match stack.last_mut() {
                None => {
                    return if r.i == r.b.len() {
                        Ok(value)
                    } else {
                        Err(JsonError::Syntax(r.i))
                    };
                }
                Some(Frame::Array(items)) => {
                    items.push(value);
                    if r.eat(b',') {
                        break;
                    }
                    if !r.eat(b']') {
                        return Err(JsonError::Syntax(r.i));
                    }
                }
                Some(Frame::Object(map, key)) => {
                    map.insert(std::mem::take(key), value);
                    if r.eat(b',') {
                        r.ws();
                        *key = r.key()?;
                        break;
                    }
                    if !r.eat(b'}') {
                        return Err(JsonError::Syntax(r.i));
                    }
                }
            }
            value = match stack.pop() {
                Some(Frame::Array(items)) => Value::Array(items),
                Some(Frame::Object(map, _)) => Value::Object(map),
                None => return Err(JsonError::Syntax(r.i)),
            };
        }
    }
}

struct Reader<'b> {
    b: &'b [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn err<T>(&self) -> Result<T, JsonError> {
        Err(JsonError::Syntax(self.i))
    }

    /// `"key"` then `:`.
    fn key(&mut self) -> Result<String, JsonError> {
        if self.peek() != Some(b'"') {
            return self.err();
        }
        let k = self.string()?;
        self.ws();
        if !self.eat(b':') {
            return self.err();
        }
        Ok(k)
    }

    fn literal(&mut self, word: &[u8], v: Value) -> Result<Value, JsonError> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            self.err()
        }
    }

    fn scalar(&mut self) -> Result<Value, JsonError> {
        match self.peek() {
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => self.err(),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.err(),
        }
        let mut integral = true;
        if self.eat(b'.') {
            integral = false;
            if self.digits() == 0 {
                return self.err();
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.err();
            }
        }
        let text =
            std::str::from_utf8(&self.b[start..self.i]).map_err(|_| JsonError::Syntax(start))?;
        if integral {
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Value::Number(n.into()));
            }
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Value::Number(n.into()));
            }
        }
        let x: f64 = text.parse().map_err(|_| JsonError::Syntax(start))?;
        Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let h = self
            .b
            .get(self.i..self.i + 4)
            .ok_or(JsonError::Syntax(self.i))?;
        let text = std::str::from_utf8(h).map_err(|_| JsonError::Syntax(self.i))?;
        let v = u32::from_str_radix(text, 16).map_err(|_| JsonError::Syntax(self.i))?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return self.err();
        }
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek().ok_or(JsonError::Syntax(self.i))?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or(JsonError::Syntax(self.i))?;
                    self.i += 1;
                    let simple = match e {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\u{8}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'u' => None,
                        _ => return Err(JsonError::Syntax(self.i - 1)),
                    };
                    let ch = match simple {
                        Some(ch) => ch,
                        None => {
                            let u = self.hex4()?;
                            if (0xD800..0xDC00).contains(&u) && self.b[self.i..].starts_with(b"\\u")
                            {
                                let at = self.i;
                                self.i += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    let cp = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
                                    char::from_u32(cp).unwrap_or('\u{FFFD}')
                                } else {
                                    // Not a pair: the high half is lone; read the next escape anew.
                                    self.i = at;
                                    '\u{FFFD}'
                                }
                            } else {
                                char::from_u32(u).unwrap_or('\u{FFFD}')
                            }
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0x00..=0x1f => return Err(JsonError::Syntax(self.i - 1)),
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| JsonError::Syntax(self.i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_serde_json_refuses_and_json_parse_accepts() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        let v = parse_lenient(deep.as_bytes()).expect("deep");
        let mut depth = 0;
        let mut at = &v;
        while let Value::Array(items) = at {
            depth += 1;
            at = &items[0];
        }
        assert_eq!((depth, at), (500, &json!(1)));
        assert_eq!(
            parse_lenient(br#"{"a": 1e400, "b": -1e400, "c": 1.5}"#),
            Ok(json!({"a": null, "b": null, "c": 1.5}))
        );
        assert_eq!(
            parse_lenient(br#"["\ud800", "\ud83d\ude00", "\udc00x", "\ud800\u0041"]"#),
            Ok(json!(["\u{FFFD}", "😀", "\u{FFFD}x", "\u{FFFD}A"]))
        );
        assert_eq!(
            parse_lenient(br#" {"k": [true, false, null, -0, 12, "a\/b\n"], "e": {}} "#),
            Ok(json!({"k": [true, false, null, 0, 12, "a/b\n"], "e": {}}))
        );
    }

    #[test]
    fn still_strict_elsewhere() {
        for bad in [
            &b"[1,]"[..],
            b"{\"a\" 1}",
            b"01",
            b"1.",
            b"'x'",
            b"[1] x",
            b"\"a\x01\"",
            b"{\"a\":1,}",
            b"",
            b"[",
            b"\"\\x\"",
        ] {
            assert!(
                matches!(parse_lenient(bad), Err(JsonError::Syntax(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let too_deep = "[".repeat(MAX_DEPTH + 1);
        assert_eq!(parse_lenient(too_deep.as_bytes()), Err(JsonError::TooDeep));
    }
}
