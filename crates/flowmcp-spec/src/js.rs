//! JavaScript's reading of numbers, in one place: how a number prints (`Number.prototype.toString`)
//! and how a JavaScript number becomes a JSON value (the way every part of the project stores them:
//! the export extractor, the literal reader, the `z` coercions).

use serde_json::{Number, Value};

/// 2^53: integral doubles below this magnitude are stored as JSON integers.
pub(crate) const EXACT_INT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// JavaScript's `Number.prototype.toString()` (radix 10): the shortest digits that round-trip,
/// placed as ECMAScript's Number::toString places them (`1e+21`, `1.5e-7`, `0.000001`, `-0` → `"0"`,
/// `NaN`, `Infinity`).
pub fn number_to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_string()
}

/// A JavaScript number as a JSON value: integral values below 2^53 in magnitude as integers (`-0`
/// as `0`), other finite values as floats; `None` for `NaN` and the infinities.
pub fn number_value(x: f64) -> Option<Value> {
    if x.fract() == 0.0 && x.abs() < EXACT_INT_LIMIT {
        // Exact: |x| < 2^53 fits an i64 without rounding.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Value::from(x as i64));
    }
    Number::from_f64(x).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        for (x, want) in [
            (0.0, "0"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-2.5e-300, "-2.5e-300"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (9_007_199_254_740_993.0, "9007199254740992"),
        ] {
            assert_eq!(number_to_string(x), want, "{x:e}");
        }
    }

    #[test]
    fn values_are_integers_below_two_to_the_53() {
        assert_eq!(number_value(5.0), Some(json!(5)));
        assert_eq!(number_value(-0.0), Some(json!(0)));
        assert_eq!(
            number_value(9_007_199_254_740_991.0),
            Some(json!(9_007_199_254_740_991_i64))
        );
        assert_eq!(
            number_value(9_007_199_254_740_992.0),
            Some(json!(9_007_199_254_740_992.0))
        );
        assert_eq!(number_value(1e300), Some(json!(1e300)));
        assert_eq!(number_value(0.5), Some(json!(0.5)));
        assert_eq!(number_value(f64::NAN), None);
        assert_eq!(number_value(f64::INFINITY), None);
    }
}
