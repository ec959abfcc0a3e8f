//! Page file names made from IDs: ASCII letters, digits, `-` and `_` only (so no `..`, no
//! separator, no control character), at most 80 characters of the ID, unique even on a file
//! system that ignores case.

use std::collections::HashSet;

/// The names given so far.
#[derive(Default)]
pub(crate) struct Names {
    taken: HashSet<String>,
}

impl Names {
    /// A new page name `<prefix>-<id, made safe>.html`, with `-2`, `-3`, … added when that
    /// name (in any case) is taken.
    pub(crate) fn name(&mut self, prefix: &str, id: &str) -> String {
        let safe: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(80)
            .collect();
        let base = format!("{prefix}-{safe}");
        let mut candidate = format!("{base}.html");
        let mut n = 2;
        while !self.taken.insert(candidate.to_ascii_lowercase()) {
            candidate = format!("{base}-{n}.html");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_unique() {
        let mut names = Names::default();
        let a = names.name("t", "../ns/tool/x\u{0}y");
        assert_eq!(a, "t-___ns_tool_x_y.html");
        assert_eq!(names.name("t", "ns/tool/A"), "t-ns_tool_A.html");
        assert_eq!(names.name("t", "ns/tool/a"), "t-ns_tool_a-2.html");
        assert_eq!(names.name("t", "ns:tool:a"), "t-ns_tool_a-3.html");
        assert!(names.name("t", &"x".repeat(500)).len() < 100);
    }
}
