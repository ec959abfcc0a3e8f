//! The two error types of the `z` grammar: [`ZodError`] for the text of `z.primitive` and
//! `z.options`, [`ZValueError`] for a value that does not satisfy a parsed block.

use thiserror::Error;

/// Something is wrong with the text of `z.primitive` or of an entry of `z.options`.
///
/// Option variants carry the 0-based `index` of the entry in `z.options` and its text, so
/// a caller can point at `z.options[index]`. The display text is meant for users.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ZodError {
    /// The primitive is not one of the six known ones (VAL044).
    #[error(
        "unknown primitive \"{text}\"; expected string(), number(), boolean(), enum(...), array() or object()"
    )]
    UnknownPrimitive {
        /// The text of `z.primitive`, as written.
        text: String,
    },
    /// A known primitive name written without its parentheses, e.g. `string` (VAL044).
    #[error("primitive \"{name}\" is missing its parentheses; write {name}()")]
    MissingParentheses {
        /// The primitive name.
        name: String,
    },
    /// A primitive other than `enum` with something inside its parentheses (VAL044).
    #[error("{name}() takes no argument (found \"{argument}\")")]
    UnexpectedArgument {
        /// The primitive name.
        name: String,
        /// The text inside the parentheses, trimmed.
        argument: String,
    },
    /// A `{{listName:fieldName}}` interpolation outside `enum(...)` (VAL047).
    #[error(
        "list interpolation \"{interpolation}\" is only allowed inside enum(...), not in {name}()"
    )]
    InterpolationOutsideEnum {
        /// The primitive name.
        name: String,
        /// The first list interpolation found, with its braces.
        interpolation: String,
    },
    /// `enum()` with no value at all (VAL046).
    #[error("enum() needs at least one value, e.g. enum(a,b)")]
    EmptyEnum,
    /// An empty item between commas, e.g. `enum(a,,b)` or `enum(a,)`; `position` is 1-based.
    #[error("enum value #{position} is empty (check for a stray comma)")]
    EmptyEnumValue {
        /// The 1-based position of the empty item.
        position: usize,
    },
    /// An enum item that contains `{{` or `}}` but is not exactly `{{listName:fieldName}}`.
    #[error("\"{item}\" is not a list interpolation; expected {{{{listName:fieldName}}}}")]
    InvalidListInterpolation {
        /// The item, trimmed.
        item: String,
    },
    /// An empty string in `z.options` (VAL045).
    #[error("option #{position} is empty", position = index + 1)]
    EmptyOption {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
    },
    /// An option name that is not known (VAL045).
    #[error("unknown option \"{option}\"; expected {expected}")]
    UnknownOption {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
        /// The entry's text, as written.
        option: String,
        /// The options accepted with the current flag, for the message.
        expected: &'static str,
    },
    /// `values(...)` or `regex(...)` without the compat flag (VAL045).
    #[error(
        "option \"{option}\" is not part of the specification; only the compat profile accepts {name}(...)"
    )]
    CompatOnlyOption {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
        /// The entry's text, as written.
        option: String,
        /// The option name: `values` or `regex`.
        name: &'static str,
    },
    /// A known option with a malformed argument or shape (VAL045).
    #[error("malformed option \"{option}\": {reason}")]
    MalformedOption {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
        /// The entry's text, as written.
        option: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `regex(...)` option whose pattern does not compile (VAL045, compat only).
    #[error("invalid pattern in option \"{option}\": {reason}")]
    InvalidRegex {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
        /// The entry's text, as written.
        option: String,
        /// Why the pattern does not compile (the text of a `JsRegexError`).
        reason: String,
    },
    /// A `default(...)` whose text cannot be read as a value of the primitive's type.
    #[error("option \"{option}\" does not fit {primitive}: {reason}")]
    InvalidDefault {
        /// The 0-based index of the entry in `z.options`.
        index: usize,
        /// The option in canonical form, `default(text)`.
        option: String,
        /// The primitive, e.g. `number()` (an enum is written `enum()`).
        primitive: String,
        /// Why the text does not fit (the text of a `DefaultError` or of a
        /// [`ZValueError`]).
        reason: String,
    },
    /// [`ZType::resolve_lists`](super::ZType::resolve_lists) found no data for a list
    /// interpolation.
    #[error("list interpolation {{{{{list}:{field}}}}} cannot be resolved")]
    UnresolvedList {
        /// The name of the shared list.
        list: String,
        /// The field of the list's entries.
        field: String,
    },
}

/// A value does not satisfy a [`ZType`](super::ZType).
///
/// Messages never quote more than a short prefix of the offending value, and only for
/// enum mismatches and unreadable command-line text; callers handling server parameters
/// must not surface these errors verbatim.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ZValueError {
    /// The JSON type is wrong, e.g. a string where a number is required.
    #[error("expected {expected}, found {found}")]
    Type {
        /// The required JSON type, with its article, e.g. `a number`.
        expected: &'static str,
        /// The JSON type found, with its article (or `null`).
        found: &'static str,
    },
    /// A string that is not one of the enum's values.
    #[error("\"{value}\" is not one of the allowed values: {allowed}")]
    NotInEnum {
        /// The value, shortened to a quotable prefix.
        value: String,
        /// The allowed values, comma-separated; long lists are shortened.
        allowed: String,
    },
    /// A number below `min(n)`.
    #[error("must be at least {min} (found {actual})")]
    BelowMin {
        /// The bound, as JavaScript writes the number.
        min: String,
        /// The value, as JavaScript writes the number.
        actual: String,
    },
    /// A number above `max(n)`.
    #[error("must be at most {max} (found {actual})")]
    AboveMax {
        /// The bound, as JavaScript writes the number.
        max: String,
        /// The value, as JavaScript writes the number.
        actual: String,
    },
    /// A string or array shorter than `min(n)`.
    #[error("must have at least {min} {unit} (found {actual})")]
    TooShort {
        /// The minimum length, as JavaScript writes the number.
        min: String,
        /// The actual length.
        actual: usize,
        /// `characters` or `items`.
        unit: &'static str,
    },
    /// A string or array longer than `max(n)`.
    #[error("must have at most {max} {unit} (found {actual})")]
    TooLong {
        /// The maximum length, as JavaScript writes the number.
        max: String,
        /// The actual length.
        actual: usize,
        /// `characters` or `items`.
        unit: &'static str,
    },
    /// A string or array whose length differs from `length(n)`.
    #[error("must have exactly {expected} {unit} (found {actual})")]
    WrongLength {
        /// The required length.
        expected: u64,
        /// The actual length.
        actual: usize,
        /// `characters` or `items`.
        unit: &'static str,
    },
    /// A string that does not match a `regex(...)` option.
    #[error("does not match the pattern {pattern}")]
    PatternMismatch {
        /// The pattern as written inside `regex(...)`.
        pattern: String,
    },
    /// No value and no default for a required parameter.
    #[error("a value is required")]
    Missing,
    /// Command-line text that is not a number.
    #[error("cannot read \"{text}\" as a number")]
    NotANumber {
        /// The trimmed text, shortened to a quotable prefix.
        text: String,
    },
    /// Command-line text that is not `true` or `false`.
    #[error("cannot read \"{text}\" as a boolean; expected true or false")]
    NotABoolean {
        /// The trimmed text, shortened to a quotable prefix.
        text: String,
    },
    /// Command-line text that is not JSON of the required kind.
    #[error("cannot read the text as a JSON {expected}: {reason}")]
    NotJson {
        /// `array` or `object`.
        expected: &'static str,
        /// The JSON parser's message, or the JSON type found.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_error_messages() {
        assert_eq!(
            ZValueError::PatternMismatch {
                pattern: "x".into()
            }
            .to_string(),
            "does not match the pattern x"
        );
        assert_eq!(
            ZValueError::BelowMin {
                min: "1".into(),
                actual: "0".into()
            }
            .to_string(),
            "must be at least 1 (found 0)"
        );
    }
}
