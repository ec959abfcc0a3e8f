//! The CLI's advice: which `flowmcp` command helps with a problem the libraries report.
//!
//! The library crates state facts (what is wrong, in which file, which setting); they never name
//! a `flowmcp` command or flag, because a program that embeds them has neither (D74,
//! `cargo xtask tidy` checks it). The CLI adds the command here, in one place.

use flowmcp_catalog::CatalogError;
use flowmcp_spec::catalog::REGISTRY_FILE;
use flowmcp_spec::{Code, Diagnostic};

/// The command that does what a diagnostic's help asks, by rule code: `<dir>` is the catalog's
/// directory, `<file>` the diagnostic's file. Printed by `flowmcp validate` (human output) as
/// `    run: …` after the help; JSON and SARIF output keep the library's help alone.
const VALIDATE: [(Code, &str); 6] = [
    (
        Code::CAT001,
        "`flowmcp catalog index <dir>` writes registry.json; `flowmcp list --profile compat <dir>` \
         reads a grading list's directory as schema files",
    ),
    (
        Code::CAT002,
        "`flowmcp catalog index <dir> --rename` sets the name",
    ),
    (
        Code::CAT004,
        "`flowmcp catalog index <dir>` updates the entries",
    ),
    (Code::CAT006, "`flowmcp catalog index <dir>` lists it"),
    (
        Code::CAT008,
        "`flowmcp catalog index <dir>` updates the hash",
    ),
    (Code::VAL087, "`flowmcp hash <file>` prints the value"),
];

/// The command for a diagnostic with a help text ([`flowmcp_validate::render::HumanStyle::advice`]).
pub(crate) fn validate(d: &Diagnostic) -> Option<String> {
    let (_, text) = VALIDATE.iter().find(|(code, _)| *code == d.code)?;
    let mut text = (*text).to_string();
    if let Some(file) = &d.file {
        if let Some(dir) = file
            .strip_suffix(REGISTRY_FILE)
            .map(|d| d.trim_end_matches('/'))
        {
            text = text.replace("<dir>", if dir.is_empty() { "." } else { dir });
        }
        text = text.replace("<file>", file);
    }
    Some(text)
}

/// What to add to a tool's "not callable" reason ([`flowmcp_catalog::Rejected::reason`]): the
/// command that shows the file's findings.
pub(crate) fn rejected(file: &str) -> String {
    format!("see `flowmcp validate {file}`")
}

/// What to add where a library a schema requires cannot be loaded because no library directory
/// is configured or the package is not installed in it (the loader says which).
pub(crate) const LIBS: &str = "a library the schema requires is not available: choose the \
     library directory with --libs DIR, FLOWMCP_LIBS or `libs` of the configuration, and install \
     the catalog's libraries into it with `flowmcp libs install`";

/// A catalog error as the CLI prints it: the library's text, and the command that fixes a missing
/// manifest.
pub(crate) fn catalog_error(e: &CatalogError) -> String {
    match e {
        CatalogError::NoRegistry { dir, .. } => {
            format!("{e} (create it with `flowmcp catalog index {dir}`)")
        }
        _ => e.to_string(),
    }
}

/// Why an agent cannot be activated, with what to run or set about it.
pub(crate) fn activation_error(e: &flowmcp_catalog::ActivationError) -> String {
    use flowmcp_catalog::ActivationError as A;
    match e {
        A::ManifestErrors { file, .. } => format!("{e}; {}", rejected(file)),
        A::ResourceNotServed { .. } => format!("{e} (see `flowmcp list`)"),
        A::MissingServerParams { .. } => format!(
            "{e}\nSet the missing server parameters (environment, --env-file or the configuration) to activate the agent."
        ),
        _ => e.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use flowmcp_spec::Severity;

    fn diagnostic(code: Code, file: &str) -> Diagnostic {
        Diagnostic {
            code,
            variant: None,
            severity: Severity::Error,
            message: "m".into(),
            file: Some(file.into()),
            line: None,
            column: None,
            pointer: None,
            path: None,
            help: Some("h".into()),
            fix: None,
        }
    }

    /// Issue #29, scope 3: the CLI's table fills the catalog's directory and the file in.
    #[test]
    fn i29_3_advice_names_the_directory_and_the_file() {
        assert_eq!(
            validate(&diagnostic(Code::CAT002, "mycat/registry.json")).unwrap(),
            "`flowmcp catalog index mycat --rename` sets the name"
        );
        assert_eq!(
            validate(&diagnostic(Code::VAL087, "p/x.mjs")).unwrap(),
            "`flowmcp hash p/x.mjs` prints the value"
        );
        assert!(validate(&diagnostic(Code::VAL014, "p/x.mjs")).is_none());
    }
}
