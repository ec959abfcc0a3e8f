//! The directive header of a runtime fixture (`tests/fixtures/<CODE>/*.mjs`): the leading
//! `// key: value` lines. Shared by the runtime's fixture test and `cargo xtask docs` (which
//! includes this file by path), so both read a fixture the same way.

/// The header's `(key, value)` pairs in order (values trimmed) and the text after the header.
/// The header ends at the first line that is not a `// key: value` comment.
pub(super) fn split(text: &str) -> (Vec<(String, String)>, String) {
    let mut directives = Vec::new();
    let mut body = String::new();
    let mut in_header = true;
    for line in text.split_inclusive('\n') {
        let directive = line
            .trim_end()
            .strip_prefix("// ")
            .and_then(|rest| rest.split_once(": "))
            .filter(|_| in_header);
        match directive {
            Some((key, value)) => directives.push((key.to_string(), value.trim().to_string())),
            None => {
                in_header = false;
                body.push_str(line);
            }
        }
    }
    (directives, body)
}
