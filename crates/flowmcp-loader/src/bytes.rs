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
