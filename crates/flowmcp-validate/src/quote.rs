//! How a value from a file is quoted in a message: its JSON text, cut to 60 characters.

use serde_json::Value;

/// A value quoted for a message, shortened when long.
pub(crate) fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}
