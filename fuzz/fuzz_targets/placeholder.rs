//! Fuzzes the `{{…}}` placeholder grammar: `flowmcp_spec::zod::find_interpolations` and
//! `InterpolationKind`, on arbitrary UTF-8 text.
//!
//! Properties (from the documentation of `Interpolation` and `find_interpolations`):
//! * `start` is the byte offset of the opening `{{`, `end` is just past the closing `}}`, `inner` is
//!   the text between them (so `text[start..end] == "{{" + inner + "}}" == interpolation.text()`,
//!   and both offsets are char boundaries);
//! * interpolations come left to right and do not overlap;
//! * an interpolation ends at the *first* `}}` after its `{{` and the innermost `{{` is taken, so
//!   `inner` contains neither `{{` nor `}}`;
//! * every complete interpolation is found: after the last one, no `{{` is followed by a `}}`;
//! * the classification agrees with its documented shapes (`UserParam`, `ServerParam(key)` with a
//!   non-empty key, `ListRef { list, field }` split at the one colon, `Bare(name)`), `kind()` equals
//!   `InterpolationKind::of(inner)`, and `as_list_ref` is `Some` exactly for `ListRef`.
#![no_main]

use flowmcp_spec::placeholder::{InterpolationKind, find_interpolations};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let found = find_interpolations(text);
    let mut previous_end = 0;
    for i in &found {
        assert!(
            previous_end <= i.start && i.start < i.end && i.end <= text.len(),
            "{i:?} out of order or out of range (previous end {previous_end})"
        );
        assert!(text.is_char_boundary(i.start) && text.is_char_boundary(i.end));
        let whole = &text[i.start..i.end];
        assert!(whole.starts_with("{{") && whole.ends_with("}}") && whole.len() >= 4);
        assert_eq!(whole, i.text());
        assert_eq!(&whole[2..whole.len() - 2], i.inner);
        assert!(
            !i.inner.contains("{{") && !i.inner.contains("}}"),
            "{i:?} is not innermost / not ended at the first }}}}"
        );
        check_kind(&i.inner, i.kind());
        assert_eq!(i.kind(), InterpolationKind::of(&i.inner));
        assert_eq!(
            i.as_list_ref().is_some(),
            matches!(i.kind(), InterpolationKind::ListRef { .. })
        );
        previous_end = i.end;
    }

    // Completeness: nothing complete is left after the last interpolation.
    let tail = &text[previous_end..];
    if let Some(open) = tail.find("{{") {
        assert!(
            !tail[open + 2..].contains("}}"),
            "a complete interpolation in {tail:?} was missed"
        );
    }

    // The classifier on the raw text too (it must accept any input).
    check_kind(text, InterpolationKind::of(text));
});

/// A name of ASCII letters, digits, `_` and `-` (the documented shape of list/field/bare names).
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_kind(inner: &str, kind: InterpolationKind<'_>) {
    match kind {
        InterpolationKind::UserParam => assert_eq!(inner, "USER_PARAM"),
        InterpolationKind::ServerParam(key) => {
            assert!(!key.is_empty());
            assert_eq!(inner.strip_prefix("SERVER_PARAM:"), Some(key));
        }
        InterpolationKind::ListRef { list, field } => {
            assert!(is_name(list) && is_name(field), "{inner:?}");
            assert_eq!(format!("{list}:{field}"), inner);
        }
        InterpolationKind::Bare(name) => {
            assert!(is_name(name));
            assert_eq!(name, inner);
        }
        InterpolationKind::Other(other) => {
            assert_eq!(other, inner);
            // Whatever has one of the documented shapes is not `Other`.
            assert_ne!(inner, "USER_PARAM");
            assert!(!is_name(inner), "{inner:?} is a bare name");
            if let Some((list, field)) = inner.split_once(':') {
                assert!(
                    !(is_name(list) && is_name(field)) || list == "SERVER_PARAM",
                    "{inner:?} is a list reference"
                );
            }
            if let Some(key) = inner.strip_prefix("SERVER_PARAM:") {
                assert!(key.is_empty(), "{inner:?} is a server param");
            }
        }
    }
}
