//! Test values that follow a string's `format` and `pattern`: mocks and APIs check both, so a
//! made-up value must satisfy them, and a document's example that breaks them is not used.

use regex::RegexBuilder;
use regex_syntax::ParserBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

/// The longest string made up from a pattern.
const MAX_LEN: usize = 4096;

/// Compiled patterns stay small (a document's pattern is data).
const REGEX_SIZE: usize = 1 << 20;

/// The characters a class is asked for first (readable values).
const PREFERRED: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.";

/// Whether `text` has the well-known string `format` (formats not known here pass: nothing is
/// claimed about them).
pub(crate) fn format_ok(format: &str, text: &str) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let date = |s: &str| -> bool {
        let parts: Vec<&str> = s.split('-').collect();
        matches!(parts.as_slice(), [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2)
            && (1..=12).contains(&m.parse::<u32>().unwrap_or(0))
            && (1..=31).contains(&d.parse::<u32>().unwrap_or(0)))
    };
    let time = |s: &str| -> bool {
        // hh:mm:ss[.frac](Z|±hh:mm)
        let (clock, zone) = match s.find(['Z', 'z', '+', '-']) {
            Some(i) => s.split_at(i),
            None => return false,
        };
        let zone_ok = zone.eq_ignore_ascii_case("z")
            || (zone.len() == 6
                && digits(&zone[1..3], 2)
                && &zone[3..4] == ":"
                && digits(&zone[4..6], 2));
        let (hms, frac) = clock.split_once('.').unwrap_or((clock, "0"));
        let parts: Vec<&str> = hms.split(':').collect();
        zone_ok
            && !frac.is_empty()
            && frac.bytes().all(|b| b.is_ascii_digit())
            && matches!(parts.as_slice(), [h, m, s] if digits(h, 2) && digits(m, 2) && digits(s, 2)
                && h.parse::<u32>().unwrap_or(99) < 24
                && m.parse::<u32>().unwrap_or(99) < 60
                && s.parse::<u32>().unwrap_or(99) < 61)
    };
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    match format {
        "uuid" => {
            let s = text.strip_prefix("urn:uuid:").unwrap_or(text);
            let parts: Vec<&str> = s.split('-').collect();
            matches!(parts.as_slice(), [a, b, c, d, e] if hex(a, 8) && hex(b, 4) && hex(c, 4)
                && hex(d, 4) && hex(e, 12))
        }
        "date" => date(text),
        "time" => time(text),
        "date-time" => match text.find(['T', 't', ' ']) {
            Some(i) => date(&text[..i]) && time(&text[i + 1..]),
            None => false,
        },
        "email" => match text.split_once('@') {
            Some((user, host)) => {
                !user.is_empty()
                    && !text.contains(char::is_whitespace)
                    && host.contains('.')
                    && !host.starts_with('.')
                    && !host.ends_with('.')
            }
            None => false,
        },
        "ipv4" => {
            let parts: Vec<&str> = text.split('.').collect();
            parts.len() == 4
                && parts.iter().all(|p| {
                    !p.is_empty()
                        && p.len() <= 3
                        && p.bytes().all(|b| b.is_ascii_digit())
                        && p.parse::<u32>().is_ok_and(|n| n < 256)
                })
        }
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        "uri" | "url" => match text.split_once(':') {
            Some((scheme, _)) => {
                scheme
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                    && !text.contains(char::is_whitespace)
            }
            None => false,
        },
        "hostname" => {
            !text.is_empty()
                && text.len() <= 253
                && text.split('.').all(|l| {
                    !l.is_empty()
                        && l.len() <= 63
                        && !l.starts_with('-')
                        && !l.ends_with('-')
                        && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
        }
        _ => true,
    }
}

/// Whether `text` matches `pattern` as JSON Schema reads it (a search, not a whole match);
/// `None` when the pattern cannot be read here.
pub(crate) fn pattern_ok(pattern: &str, text: &str) -> Option<bool> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE)
        .build()
        .ok()
        .map(|r| r.is_match(text))
}

/// A string that matches `pattern` and has `min..=max` characters, or `None` when the pattern
/// is beyond this generator (look-arounds and back-references do not parse; a class without a
/// printable character, or a length it cannot meet, gives up).
pub(crate) fn from_pattern(pattern: &str, min: usize, max: usize) -> Option<String> {
    let hir = ParserBuilder::new()
        .nest_limit(64)
        .build()
        .parse(pattern)
        .ok()?;
    // First the shortest readable value, then with repetitions stretched to reach `min`.
    for stretch in [0, min] {
        let mut out = String::new();
        if !generate(&hir, stretch, &mut out) {
            return None;
        }
        let len = out.chars().count();
        if len >= min && len <= max && pattern_ok(pattern, &out) == Some(true) {
            return Some(out);
        }
    }
    None
}

/// Appends a string `hir` matches; `stretch` extra rounds for each open-ended repetition.
fn generate(hir: &Hir, stretch: usize, out: &mut String) -> bool {
    if out.len() > MAX_LEN {
        return false;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(s) => {
                out.push_str(s);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(class) => match pick(class) {
            Some(c) => {
                out.push(c);
                true
            }
            None => false,
        },
        HirKind::Repetition(rep) => {
            let min = rep.min as usize;
            let max = rep.max.map_or(usize::MAX, |m| m as usize);
            // At least one round where allowed (values read better), more when stretched.
            let count = min.max(1).saturating_add(stretch).min(max);
            if count > MAX_LEN {
                return false;
            }
            (0..count).all(|_| generate(&rep.sub, stretch, out))
        }
        HirKind::Capture(cap) => generate(&cap.sub, stretch, out),
        HirKind::Concat(subs) => subs.iter().all(|s| generate(s, stretch, out)),
        HirKind::Alternation(subs) => subs.first().is_some_and(|s| generate(s, stretch, out)),
    }
}

/// A readable character of the class, else its first printable one.
fn pick(class: &Class) -> Option<char> {
    let contains = |c: char| match class {
        Class::Unicode(u) => u.ranges().iter().any(|r| r.start() <= c && c <= r.end()),
        Class::Bytes(b) => {
            c.is_ascii()
                && b.ranges()
                    .iter()
                    .any(|r| r.start() <= c as u8 && c as u8 <= r.end())
        }
    };
    if let Some(c) = PREFERRED.chars().find(|&c| contains(c)) {
        return Some(c);
    }
    (' '..='~').find(|&c| contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i41_values_are_made_up_from_common_pattern_shapes() {
        for p in [
            "^IS[0-9a-fA-F]{32}$",
            "[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:analyzer/.{1,255}",
            "^(draft|live|archived)$",
            "^[A-Z]{2,3}-\\d+$",
            "[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}",
            "^\\w+@\\w+\\.com$",
        ] {
            let v = from_pattern(p, 0, usize::MAX);
            assert!(
                v.as_deref().and_then(|v| pattern_ok(p, v)) == Some(true),
                "{p}: {v:?}"
            );
        }
        assert_eq!(
            from_pattern("^IS[0-9a-fA-F]{32}$", 0, 100).map(|v| v.len()),
            Some(34)
        );
        // Lengths are met by stretching open repetitions, or the generator gives up.
        assert!(from_pattern("^[a-z]+$", 10, 20).is_some_and(|v| (10..=20).contains(&v.len())));
        assert_eq!(from_pattern("^[a-z]{30}$", 0, 5), None);
        // Beyond the generator: look-arounds do not parse.
        assert_eq!(from_pattern("^(?!x)[a-z]+$", 0, 100), None);
    }

    #[test]
    fn i41_formats_are_checked() {
        assert!(format_ok("uuid", "123e4567-e89b-42d3-a456-426614174000"));
        assert!(!format_ok("uuid", "11be6373fca44ded80fbe2afa8597c18"));
        assert!(format_ok("date", "2024-01-31"));
        assert!(!format_ok("date", "31.01.2024"));
        assert!(format_ok("date-time", "2024-01-31T12:00:00Z"));
        assert!(format_ok("date-time", "2024-01-31T12:00:00.5+01:00"));
        assert!(!format_ok("date-time", "2024-01-31"));
        assert!(format_ok("email", "user@example.com"));
        assert!(!format_ok("email", "user"));
        assert!(format_ok("ipv4", "192.0.2.1") && !format_ok("ipv4", "300.1.1.1"));
        assert!(format_ok("uri", "https://example.com/") && !format_ok("uri", "/relative"));
        assert!(format_ok("something-else", "anything"));
    }
}
