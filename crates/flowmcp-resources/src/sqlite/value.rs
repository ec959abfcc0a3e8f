//! JSON values in and out of SQLite.
//!
//! The representation is described in the `sqlite` module documentation (*Values*).

use base64::Engine as _;
use rusqlite::Statement;
use rusqlite::types::ValueRef;
use serde_json::{Map, Number, Value};

/// The largest integer every JSON reader holds exactly (2^53 − 1).
pub(crate) const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The key of the object a BLOB is returned as.
pub const BLOB_KEY: &str = "$blob";

/// Binds `params` to `stmt` by position; the reason is returned for a value that cannot bind.
pub(crate) fn bind(stmt: &mut Statement<'_>, params: &[Value]) -> Result<(), String> {
    for (i, value) in params.iter().enumerate() {
        let index = i + 1;
        let bound = match value {
            Value::Null => stmt.raw_bind_parameter(index, rusqlite::types::Null),
            Value::Bool(b) => stmt.raw_bind_parameter(index, i64::from(*b)),
            Value::String(s) => stmt.raw_bind_parameter(index, s.as_str()),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    stmt.raw_bind_parameter(index, i)
                } else if n.is_u64() {
                    return Err(format!(
                        "parameter {index} is the integer {n}, larger than SQLite's 64-bit integers"
                    ));
                } else if let Some(f) = n.as_f64() {
                    stmt.raw_bind_parameter(index, f)
                } else {
                    return Err(format!(
                        "parameter {index} is the number {n}, which cannot bind"
                    ));
                }
            }
            Value::Array(_) | Value::Object(_) => {
                return Err(format!(
                    "parameter {index} is an array or object; only strings, numbers, booleans and null bind"
                ));
            }
        };
        bound.map_err(|e| format!("parameter {index}: {e}"))?;
    }
    Ok(())
}

/// A column value as JSON, with an estimate of its JSON length in bytes.
pub(crate) fn to_json(value: ValueRef<'_>) -> (Value, usize) {
    match value {
        ValueRef::Null => (Value::Null, 4),
        ValueRef::Integer(i) => {
            let digits = i.unsigned_abs().checked_ilog10().unwrap_or(0) as usize + 2;
            if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) {
                (Value::Number(i.into()), digits)
            } else {
                (Value::String(i.to_string()), digits + 2)
            }
        }
        ValueRef::Real(f) => match Number::from_f64(f) {
            Some(n) => (Value::Number(n), 24),
            None if f > 0.0 => (Value::String("Infinity".to_owned()), 10),
            None if f < 0.0 => (Value::String("-Infinity".to_owned()), 11),
            None => (Value::Null, 4),
        },
        ValueRef::Text(bytes) => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let len = text.len() + 2;
            (Value::String(text), len)
        }
        ValueRef::Blob(bytes) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
            let len = encoded.len() + BLOB_KEY.len() + 7;
            let mut object = Map::with_capacity(1);
            object.insert(BLOB_KEY.to_owned(), Value::String(encoded));
            (Value::Object(object), len)
        }
    }
}
