//! The syntax of paths that come from files flowmcp did not write: a resource's `path` or
//! `database`, and names (a namespace, a tool, a route) that become parts of file names.
//!
//! These are pure functions of text. Resolving a path against a directory on disk (following
//! symbolic links, checking that the result stays inside) is `flowmcp_files::Root`, which
//! calls [`check_relative`] first; validation calls the same function, so a schema is told about
//! a path that leaves its root before anything runs, and for the same reasons the runtime would
//! refuse it.
//!
//! ```
//! use flowmcp_spec::paths::{PathFault, check_relative, encode_name};
//!
//! assert_eq!(check_relative("cache/data.db"), Ok(()));
//! assert_eq!(check_relative("../../.bashrc"), Err(PathFault::Parent));
//! assert_eq!(check_relative("/etc/passwd"), Err(PathFault::Absolute));
//! // Any name becomes one harmless path component.
//! assert_eq!(encode_name("../x"), "%2E%2E%2Fx");
//! ```

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::hash::sha256_hex;

/// `path` with its `.` and `..` components folded away, without asking the file system; `None`
/// when a `..` would climb above the start. For joining a specifier written in a file (an
/// `import`, a package's `main`) to the directory it is relative to, before the result is
/// checked against its root.
pub fn fold_dots(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The name of the user's and the project's flowmcp folders (`~/.flowmcp/`, `.flowmcp/`) when
/// none is configured.
pub const DEFAULT_BASE: &str = "flowmcp";

/// Why a relative path taken from a file cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathFault {
    /// The path is empty (or only `.` and separators).
    Empty,
    /// The path is absolute (`/…`, `\…`, a drive such as `C:`), or starts with `~`.
    Absolute,
    /// A component is `..`.
    Parent,
    /// The path contains a NUL character or a backslash (which some systems read as a separator).
    Character,
    /// A `~/…` path outside the user's flowmcp folder (`~/.flowmcp/` unless configured).
    OutsideHomeFolder,
}

impl fmt::Display for PathFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathFault::Empty => "is empty",
            PathFault::Absolute => "is absolute (it must be relative to its folder)",
            PathFault::Parent => "contains `..` (it must stay inside its folder)",
            PathFault::Character => "contains a NUL character or a backslash",
            PathFault::OutsideHomeFolder => {
                "is outside the user's flowmcp folder (a `~/` path must start with `~/.flowmcp/`)"
            }
        })
    }
}

impl std::error::Error for PathFault {}

/// Checks a relative path written in a file: `/`-separated plain components, none of them `..`,
/// not absolute, no `~`, no drive letter, no NUL or backslash. `.` components and repeated
/// separators are harmless and allowed.
pub fn check_relative(text: &str) -> Result<(), PathFault> {
    if text.contains(['\0', '\\']) {
        return Err(PathFault::Character);
    }
    if text.starts_with('/') || text.starts_with('~') || has_drive(text) {
        return Err(PathFault::Absolute);
    }
    let mut plain = 0usize;
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathFault::Parent),
            _ => plain += 1,
        }
    }
    if plain == 0 {
        return Err(PathFault::Empty);
    }
    Ok(())
}

/// Where a FlowMCP 3.0 `database` path (accepted under `compat`) points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatabasePath<'a> {
    /// `~/.<base>/<rest>`: `rest` inside the user's flowmcp folder.
    HomeFolder(&'a str),
    /// A path relative to the schema's directory.
    BesideSchema(&'a str),
}

/// Reads a FlowMCP 3.0 `database` path: `~/.<base>/…` (`base` is `flowmcp` unless configured),
/// or a path relative to the schema. Either way the rest must pass [`check_relative`]; any other
/// `~` path is [`PathFault::OutsideHomeFolder`].
pub fn database_path<'a>(text: &'a str, base: &str) -> Result<DatabasePath<'a>, PathFault> {
    match text.strip_prefix("~/") {
        Some(rest) => {
            let inner = rest
                .strip_prefix('.')
                .and_then(|r| r.strip_prefix(base))
                .and_then(|r| r.strip_prefix('/'))
                .filter(|_| !base.is_empty())
                .ok_or(PathFault::OutsideHomeFolder)?;
            check_relative(inner)?;
            Ok(DatabasePath::HomeFolder(inner))
        }
        None => {
            check_relative(text)?;
            Ok(DatabasePath::BesideSchema(text))
        }
    }
}

/// `C:…` and the like: a letter and a colon at the start.
fn has_drive(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// The longest component [`encode_name`] returns; longer ones are shortened with a digest.
pub const MAX_NAME_LEN: usize = 120;

/// How many characters of a shortened component are kept before `~` and the digest.
const SHORTENED_PREFIX_LEN: usize = 100;

/// Turns any text (a namespace, a tool name, a test route) into one path component that is safe
/// on every platform: ASCII letters, digits, `-` and `_` stay; every other byte becomes `%XX`
/// (so `.`, `/` and `..` can never appear); a Windows device name (`CON`, `COM1`…) has its first
/// letter escaped; the empty text is `%`. Distinct texts give distinct components, except that a
/// component longer than [`MAX_NAME_LEN`] is cut and ends in `~` and 16 hex digits of the
/// SHA-256 of the whole text.
pub fn encode_name(name: &str) -> String {
    if name.is_empty() {
        return "%".to_string();
    }
    let device = is_windows_device_name(name);
    let mut out = String::with_capacity(name.len());
    for (i, byte) in name.bytes().enumerate() {
        let keep = byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_';
        if keep && !(device && i == 0) {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(hex_digit(byte >> 4));
            out.push(hex_digit(byte & 0x0f));
        }
    }
    if out.len() > MAX_NAME_LEN {
        // `out` is ASCII, so any byte index is a character boundary.
        let digest = sha256_hex(name.as_bytes());
        out.truncate(SHORTENED_PREFIX_LEN);
        out.push('~');
        out.push_str(&digest[..16]);
    }
    out
}

fn hex_digit(n: u8) -> char {
    char::from(b"0123456789ABCDEF"[usize::from(n & 0x0f)])
}

/// `CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`, `LPT1`–`LPT9` in any case.
fn is_windows_device_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.len() == 4
            && upper.as_bytes()[3].is_ascii_digit()
            && upper.as_bytes()[3] != b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside() {
        for ok in [
            "a.db",
            "data/a.db",
            "./a/./b",
            "a//b",
            "a..b",
            "...",
            ".hidden",
        ] {
            assert_eq!(check_relative(ok), Ok(()), "{ok}");
        }
        for (bad, fault) in [
            ("", PathFault::Empty),
            (".", PathFault::Empty),
            ("./", PathFault::Empty),
            ("..", PathFault::Parent),
            ("a/../../b", PathFault::Parent),
            ("a/..", PathFault::Parent),
            ("/etc/passwd", PathFault::Absolute),
            ("~/x.db", PathFault::Absolute),
            ("~user/x", PathFault::Absolute),
            ("C:/x", PathFault::Absolute),
            ("c:x", PathFault::Absolute),
            ("a\\..\\b", PathFault::Character),
            ("a\0b", PathFault::Character),
        ] {
            assert_eq!(check_relative(bad), Err(fault), "{bad:?}");
        }
    }

    #[test]
    fn database_paths_stay_in_two_folders() {
        assert_eq!(
            database_path("~/.flowmcp/data/a.db", "flowmcp"),
            Ok(DatabasePath::HomeFolder("data/a.db"))
        );
        assert_eq!(
            database_path("data/a.db", "flowmcp"),
            Ok(DatabasePath::BesideSchema("data/a.db"))
        );
        assert_eq!(
            database_path("~/.mine/a.db", "mine"),
            Ok(DatabasePath::HomeFolder("a.db"))
        );
        for (bad, fault) in [
            ("~/.ssh/id_rsa", PathFault::OutsideHomeFolder),
            ("~/Library/Cookies.db", PathFault::OutsideHomeFolder),
            ("~/.flowmcpx/a.db", PathFault::OutsideHomeFolder),
            ("~/.flowmcp", PathFault::OutsideHomeFolder),
            ("~/.flowmcp/../.ssh/x", PathFault::Parent),
            ("~/.flowmcp/", PathFault::Empty),
            ("/home/u/.flowmcp/a.db", PathFault::Absolute),
            ("../a.db", PathFault::Parent),
            ("~root/a.db", PathFault::Absolute),
        ] {
            assert_eq!(database_path(bad, "flowmcp"), Err(fault), "{bad}");
        }
    }

    #[test]
    fn names_become_one_safe_component() {
        assert_eq!(encode_name("getForecast"), "getForecast");
        assert_eq!(encode_name("a-b_c"), "a-b_c");
        assert_eq!(encode_name(""), "%");
        assert_eq!(encode_name("."), "%2E");
        assert_eq!(encode_name(".."), "%2E%2E");
        assert_eq!(encode_name("a/b"), "a%2Fb");
        assert_eq!(encode_name("con"), "%63on");
        assert_eq!(encode_name("COM1"), "%43OM1");
        assert_eq!(encode_name("COM0"), "COM0");
        assert_eq!(encode_name("ü"), "%C3%BC");
        assert_eq!(encode_name("a/b\\c"), "a%2Fb%5Cc");
        assert_eq!(encode_name("50%"), "50%25");
        assert_eq!(encode_name("etherscan-io"), "etherscan-io");
        let long = "x".repeat(500);
        let e = encode_name(&long);
        assert_eq!(e.len(), SHORTENED_PREFIX_LEN + 1 + 16);
        assert!(e.len() <= MAX_NAME_LEN, "{}", e.len());
        assert_ne!(e, encode_name(&"x".repeat(501)));
        for n in ["a/b", "..", "x\ny", "%2F"] {
            let e = encode_name(n);
            assert!(!e.contains(['/', '\\', '.', '\0']), "{e}");
        }
    }
}
