//! Editing one member of an exported object literal in place, leaving every other character of
//! the file as it is (for tools that write a value back into a module, such as an agent's
//! `hash`).
//!
//! The file is read on its blanked form ([`crate::scan::blank`]: comments and string contents
//! are spaces, characters stay aligned), so brackets and quotes inside strings or comments cannot
//! mislead the reader.

use crate::scan;

/// Why a member could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// There is no `export const <name> = { … }` in the file.
    #[error("no `export const {0} = {{ … }}` object literal in the file")]
    NoExport(String),
    /// The member exists but its value is not a plain string literal (a template with
    /// substitutions, a variable, a call), which cannot be replaced without changing meaning.
    #[error("`{0}` is not a plain string literal; change it by hand")]
    NotAString(String),
    /// The object literal is not closed (the file is not valid JavaScript).
    #[error("the object literal of `{0}` is not closed")]
    Unclosed(String),
}

/// Sets the member `key` of the object literal exported as `export const <export_name> = { … }`
/// to the string `value` (written in single quotes; `value` must not contain `'`, `\` or line
/// breaks): the text of an existing string value is replaced; a missing member is inserted as
/// the object's first member, on its own line with the indentation of the next one. Nothing else
/// in the text changes.
pub fn set_string_member(
    source: &str,
    export_name: &str,
    key: &str,
    value: &str,
) -> Result<String, EditError> {
    let blanked: Vec<char> = scan::blank(source).chars().collect();
    let chars: Vec<char> = source.chars().collect();
    let open = find_export_object(&blanked, export_name)
        .ok_or_else(|| EditError::NoExport(export_name.to_string()))?;
    let literal = format!("'{value}'");
    let byte = |ci: usize| -> usize {
        source
            .char_indices()
            .nth(ci)
            .map_or(source.len(), |(b, _)| b)
    };
    match find_member(&blanked, &chars, open, key, export_name)? {
        Some(start) => {
            let quote = chars.get(start).copied();
            let end = match quote {
                Some(q @ ('\'' | '"' | '`')) => (start + 1..blanked.len())
                    .find(|&i| blanked[i] == q)
                    .filter(|&i| q != '`' || !blanked[start..i].contains(&'$'))
                    .ok_or_else(|| EditError::NotAString(key.to_string()))?,
                _ => return Err(EditError::NotAString(key.to_string())),
            };
            let mut out = String::with_capacity(source.len() + literal.len());
            out.push_str(&source[..byte(start)]);
            out.push_str(&literal);
            out.push_str(&source[byte(end + 1)..]);
            Ok(out)
        }
        None => {
            // The indentation of the first member (or nothing on a one-line object).
            let after = open + 1;
            let first = (after..blanked.len()).find(|&i| !blanked[i].is_whitespace());
            let insert = match first {
                Some(f) if blanked[after..f].contains(&'\n') => {
                    let line_start = (after..f)
                        .rev()
                        .find(|&i| blanked[i] == '\n')
                        .map_or(after, |i| i + 1);
                    let indent: String = chars[line_start..f].iter().collect();
                    format!("\n{indent}{key}: {literal},")
                }
                _ => format!(" {key}: {literal},"),
            };
            let at = byte(after);
            let mut out = String::with_capacity(source.len() + insert.len());
            out.push_str(&source[..at]);
            out.push_str(&insert);
            out.push_str(&source[at..]);
            Ok(out)
        }
    }
}

/// The character index of the `{` of `export const <name> = {`.
fn find_export_object(b: &[char], name: &str) -> Option<usize> {
    let text: String = b.iter().collect();
    let mut from = 0;
    while let Some(rel) = text[from..].find("export") {
        let start = from + rel;
        from = start + "export".len();
        let rest = &text[from..];
        let rest_trim = rest.trim_start();
        let Some(after_const) = rest_trim.strip_prefix("const") else {
            continue;
        };
        let after_name = after_const.trim_start();
        let Some(after) = after_name.strip_prefix(name) else {
            continue;
        };
        if after
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            continue;
        }
        let after_eq = after.trim_start().strip_prefix('=')?;
        let brace = after_eq.trim_start();
        if !brace.starts_with('{') {
            return None;
        }
        // Back from bytes of `text` to a character index.
        let byte_at = text.len() - brace.len();
        return Some(text[..byte_at].chars().count());
    }
    None
}

/// The character index where the value of the member `key` of the object opened at `open`
/// starts, or `None` when the object has no such member.
fn find_member(
    b: &[char],
    chars: &[char],
    open: usize,
    key: &str,
    export_name: &str,
) -> Result<Option<usize>, EditError> {
    let mut depth = 0usize;
    let mut expect_key = true;
    let mut i = open;
    while i < b.len() {
        let c = b[i];
        match c {
            '{' | '[' | '(' => {
                depth += 1;
                if depth == 1 {
                    expect_key = true;
                }
            }
            '}' | ']' | ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(None);
                }
            }
            ',' if depth == 1 => expect_key = true,
            c if depth == 1 && expect_key && !c.is_whitespace() => {
                expect_key = false;
                // A key: an identifier, or a quoted name (its text is in the source).
                let (name, end) = if c == '\'' || c == '"' {
                    let close = (i + 1..b.len()).find(|&j| b[j] == c).unwrap_or(b.len());
                    (
                        chars[i + 1..close.min(chars.len())]
                            .iter()
                            .collect::<String>(),
                        close + 1,
                    )
                } else {
                    let end = (i..b.len())
                        .find(|&j| !(b[j].is_alphanumeric() || b[j] == '_' || b[j] == '$'))
                        .unwrap_or(b.len());
                    (chars[i..end].iter().collect::<String>(), end)
                };
                let colon = (end..b.len()).find(|&j| !b[j].is_whitespace());
                if name == key
                    && let Some(colon) = colon.filter(|&j| b[j] == ':')
                {
                    let value = (colon + 1..b.len()).find(|&j| !b[j].is_whitespace());
                    return Ok(value);
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Err(EditError::Unclosed(export_name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENT: &str = "// the agent\nexport const agent = {\n    name: 'helper', // its name\n    tools: { 'a/tool/b': null, inline: { description: 'hash: no' } },\n    hash: 'sha256:old'\n}\n";

    #[test]
    fn an_existing_value_is_replaced_and_nothing_else_changes() {
        let out = set_string_member(AGENT, "agent", "hash", "sha256:new").unwrap_or_default();
        assert_eq!(out, AGENT.replace("'sha256:old'", "'sha256:new'"));
    }

    #[test]
    fn a_missing_member_is_inserted_first_with_the_indentation() {
        let src = AGENT.replace(",\n    hash: 'sha256:old'", "");
        let out = set_string_member(&src, "agent", "hash", "sha256:x").unwrap_or_default();
        assert_eq!(
            out,
            src.replace(
                "export const agent = {\n",
                "export const agent = {\n    hash: 'sha256:x',\n"
            )
        );
        let one = "export const agent = { name: 'a' }";
        assert_eq!(
            set_string_member(one, "agent", "hash", "h").unwrap_or_default(),
            "export const agent = { hash: 'h', name: 'a' }"
        );
    }

    #[test]
    fn keys_in_nested_objects_strings_and_comments_are_not_members() {
        let src = "export const agent = {\n    // hash: 'in a comment'\n    inline: { hash: 'nested' },\n    note: 'hash: text'\n}\n";
        let out = set_string_member(src, "agent", "hash", "h").unwrap_or_default();
        assert!(
            out.starts_with("export const agent = {\n    hash: 'h',\n    // hash: 'in a comment'"),
            "{out}"
        );
        assert!(out.contains("inline: { hash: 'nested' }"));
    }

    #[test]
    fn what_cannot_be_edited_is_refused() {
        assert_eq!(
            set_string_member("export const main = {}", "agent", "hash", "h"),
            Err(EditError::NoExport("agent".into()))
        );
        assert_eq!(
            set_string_member("export const agent = { hash: HASH }", "agent", "hash", "h"),
            Err(EditError::NotAString("hash".into()))
        );
        assert_eq!(
            set_string_member("export const agent = { name: 'a'", "agent", "hash", "h"),
            Err(EditError::Unclosed("agent".into()))
        );
    }
}
