//! The `z` grammar: `z.primitive` and `z.options` of a parameter.
//!
//! A parameter's `z` block (chapter 02) declares a [`Primitive`] such as `string()`,
//! `number()` or `enum(a,b,{{list:field}})` plus a list of [`Options`] such as `min(1)`,
//! `max(100)`, `optional()` or `default(10)`. [`ZType`] combines both and is used for
//! every value that must obey the block: validation rules, test values, fixed values and
//! call inputs.
//!
//! Parsing is tolerant of surrounding whitespace and reports exactly what is wrong with
//! a [`ZodError`]; checking a value reports a [`ZValueError`]. Nothing here panics on
//! any input.
//!
//! The `compat` flag (profile `compat`) additionally
//! accepts the `values(a,b)` and `regex(pattern)` options written by catalogs for the
//! JavaScript reference: `values(...)` supplies the values of an `enum()` and
//! `regex(...)` is enforced on strings with JavaScript semantics as far as the `regex`
//! crate allows (see [`JsRegex`]).
//!
//! Enums that still contain unresolved `{{listName:fieldName}}` items accept any string
//! in [`ZType::validate`], because the allowed set is not known yet; resolve them with
//! [`ZType::resolve_lists`] at load time to get the strict check.
//!
//! The code is split by topic; everything public is re-exported here, so the paths are
//! `flowmcp_spec::zod::…`:
//!
//! * `error`: [`ZodError`] (the text of the block) and [`ZValueError`] (a value);
//! * `primitive`: `z.primitive` ([`Primitive`], [`EnumItem`], [`enum_has_padded_values`]);
//! * `options`: `z.options` ([`ZOption`], [`Options`]);
//! * `js_regex`: the JavaScript-to-Rust pattern translator behind `regex(...)` ([`JsRegex`]);
//! * `defaults`: reading the text of `default(...)` ([`parse_default`]);
//! * `ztype`: the whole block ([`ZType`]): parsing, defaults, list resolution;
//! * `check`: checking and converting values ([`ZType::validate`], [`ZType::coerce_str`]).

mod check;
mod defaults;
mod error;
mod js_regex;
mod options;
mod primitive;
mod ztype;

pub use defaults::{DefaultError, parse_default};
pub use error::{ZValueError, ZodError};
pub use js_regex::{JsRegex, JsRegexError, REGEX_SIZE_LIMIT};
pub use options::{Options, ZOption};
pub use primitive::{EnumItem, Primitive, enum_has_padded_values};
pub use ztype::ZType;

/// How many characters of a user-supplied value an error message quotes at most.
const QUOTE_LIMIT: usize = 60;

/// Parses a finite decimal number (surrounding whitespace must already be removed).
fn parse_finite(text: &str) -> Option<f64> {
    // Rust also accepts "inf", "nan" and "infinity"; those are not finite and rejected.
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// At most [`QUOTE_LIMIT`] characters of `text`, with `…` when cut.
fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_LIMIT {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(QUOTE_LIMIT).collect();
        s.push('…');
        s
    }
}

pub(crate) use crate::diagnostic::json_kind;

/// Helpers shared by the unit tests of the submodules.
#[cfg(test)]
mod test_support {
    use super::{EnumItem, ZType};

    /// Parses a `z` block without the compat flag; panics on error.
    pub(super) fn z(primitive: &str, options: &[&str]) -> ZType {
        ZType::parse(primitive, options, false).unwrap()
    }

    /// Parses a `z` block with the compat flag; panics on error.
    pub(super) fn zc(primitive: &str, options: &[&str]) -> ZType {
        ZType::parse(primitive, options, true).unwrap()
    }

    /// A literal enum item.
    pub(super) fn lit(v: &str) -> EnumItem {
        EnumItem::Literal(v.to_string())
    }
}
