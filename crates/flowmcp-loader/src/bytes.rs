//! Byte classes and runs that the scan's blanker and the literal reader share.

/// True for an ASCII identifier byte: a letter, a digit, `_` or `$`.
pub(crate) fn is_ascii_ident(b: u8) -> bool {
    ASCII_IDENT[usize::from(b)]
}

/// [`is_ascii_ident`] by byte: ASCII letters, digits, `_` and `$`.
static ASCII_IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        i += 1;
    }
    t
};

/// How many bytes at the start of `rest` come before the first byte of `stops` or `also` (or,
/// with `non_ascii`, the first byte of 0x80 or above): all of `rest` when there is none. Short
/// runs are read byte by byte; the rest of a longer one (the text of a string or a comment) is
/// searched with `memchr` for `stops`, then within what it passed for the others.
#[inline]
pub(crate) fn run_before(rest: &[u8], stops: [u8; 3], also: [u8; 2], non_ascii: bool) -> usize {
    let stopping = |c: u8| (non_ascii && c >= 0x80) || stops.contains(&c) || also.contains(&c);
    let head = rest.len().min(16);
    if let Some(n) = rest[..head].iter().position(|&c| stopping(c)) {
        return n;
    }
    let tail = &rest[head..];
    let n = memchr::memchr3(stops[0], stops[1], stops[2], tail).unwrap_or(tail.len());
    let seg = &tail[..n];
    let n = if !non_ascii || seg.is_ascii() {
        memchr::memchr2(also[0], also[1], seg).unwrap_or(n)
    } else {
        seg.iter().position(|&c| stopping(c)).unwrap_or(n)
    };
    head + n
}

/// The offset of the first `{`, `}`, `[` or `]` in `b` at or after `at`, eight bytes at a time
/// (blanked literals are mostly spaces and text between their brackets).
pub(crate) fn next_bracket(b: &[u8], at: usize) -> Option<usize> {
    first_of(b, at, Wanted::Brackets)
}

/// The offset of the first bracket or parenthesis (`{}[]()`) in `b` at or after `at`, and with
/// `separators` also of the first `,` or `;`, eight bytes at a time (what skipping a blanked
/// expression stops at).
pub(crate) fn next_delimiter(b: &[u8], at: usize, separators: bool) -> Option<usize> {
    first_of(
        b,
        at,
        if separators {
            Wanted::Delimiters
        } else {
            Wanted::Nesting
        },
    )
}

/// The byte sets [`first_of`] searches for.
#[derive(Clone, Copy, PartialEq)]
enum Wanted {
    /// `{}[]`.
    Brackets,
    /// `{}[]()`.
    Nesting,
    /// `{}[]()` and `,;`.
    Delimiters,
}

impl Wanted {
    fn has(self, c: u8) -> bool {
        match c {
            b'{' | b'}' | b'[' | b']' => true,
            b'(' | b')' => self != Wanted::Brackets,
            b',' | b';' => self == Wanted::Delimiters,
            _ => false,
        }
    }
}

/// The offset of the first byte of `wanted` in `b` at or after `at`, eight bytes at a time.
#[inline]
fn first_of(b: &[u8], mut at: usize, wanted: Wanted) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The lowest flagged byte of `v` is its first zero byte (flags above it may be false, but
    // only above a true one, so the lowest flag of several tests is still exact).
    let zero_bytes = |v: u64| v.wrapping_sub(LOW) & !v & HIGH;
    let equal = |w: u64, c: u8| zero_bytes(w ^ (u64::from(c) * LOW));
    while let Some(chunk) = b.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let raw = u64::from_le_bytes(word);
        // With bit 5 set, `[` and `]` become `{` and `}`, and no other byte becomes either.
        let braces = raw | (0x20 * LOW);
        let mut hit = equal(braces, b'{') | equal(braces, b'}');
        if wanted != Wanted::Brackets {
            // With bit 0 set, `(` becomes `)`, and no other byte does.
            hit |= equal(raw | LOW, b')');
        }
        if wanted == Wanted::Delimiters {
            hit |= equal(raw, b',') | equal(raw, b';');
        }
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = b.get(at..)?;
    rest.iter().position(|&c| wanted.has(c)).map(|n| at + n)
}

/// The offset after the run of spaces (U+0020 only) starting at `at`, eight at a time.
pub(crate) fn after_spaces(b: &[u8], mut at: usize) -> usize {
    while b.get(at..at + 8) == Some(b"        ".as_slice()) {
        at += 8;
    }
    while b.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first bracket found eight bytes at a time is the first one found byte by byte, from
    /// every offset of random texts with brackets, their neighbours with and without bit 5 and
    /// bytes above 0x7F.
    #[test]
    fn i46_next_bracket_is_the_first_bracket() {
        let alphabet = b"{}[]{}[][]{}\x5a\x5c\x7a\x7c\x3b\x3d\xfb\xdb ";
        let texts = crate::test_texts::texts_with_one_other_byte(46, alphabet, 3000);
        let mut rng = crate::test_texts::XorShift(0x46b5);
        let mut found = 0;
        for mut text in texts {
            for c in text.iter_mut() {
                if rng.next().is_multiple_of(3) {
                    *c = alphabet[(rng.next() as usize) % alphabet.len()];
                }
            }
            for at in 0..=text.len() + 1 {
                let plain = text
                    .get(at..)
                    .and_then(|r| r.iter().position(|c| b"{}[]".contains(c)))
                    .map(|n| at + n);
                assert_eq!(next_bracket(&text, at), plain, "{text:?} from {at}");
                found += usize::from(plain.is_some());
            }
        }
        assert!(found > 10_000, "{found}");
    }

    /// The first delimiter found eight bytes at a time is the first one found byte by byte, with
    /// and without separators, among bytes one bit away from each delimiter.
    #[test]
    fn i46_next_delimiter_is_the_first_delimiter() {
        let alphabet =
            b"{}[]()(),;\x28\x29\x5a\x5c\x7a\x7c\x3b\x3d\x2c\x2d\x0c\x2e\x3a\x08\x09\xfb\xdb\xa8 ";
        let texts = crate::test_texts::texts_with_one_other_byte(47, alphabet, 3000);
        let mut rng = crate::test_texts::XorShift(0x46b6);
        let mut found = [0usize; 2];
        for mut text in texts {
            for c in text.iter_mut() {
                if rng.next().is_multiple_of(3) {
                    *c = alphabet[(rng.next() as usize) % alphabet.len()];
                }
            }
            for at in 0..=text.len() + 1 {
                for (k, separators) in [false, true].into_iter().enumerate() {
                    let wanted: &[u8] = if separators { b"{}[](),;" } else { b"{}[]()" };
                    let plain = text
                        .get(at..)
                        .and_then(|r| r.iter().position(|c| wanted.contains(c)))
                        .map(|n| at + n);
                    assert_eq!(
                        next_delimiter(&text, at, separators),
                        plain,
                        "{text:?} from {at}, separators {separators}"
                    );
                    found[k] += usize::from(plain.is_some());
                }
            }
        }
        assert!(found.iter().all(|&n| n > 10_000), "{found:?}");
    }
}
