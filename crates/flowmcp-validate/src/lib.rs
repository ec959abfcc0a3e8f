//! # flowmcp-validate
//!
//! Rule-coded validation of FlowMCP files. Entry points never fail on bad input: they return a
//! [`FileReport`] whose diagnostics say what is wrong, each with a code from the registry in
//! `flowmcp-spec` and the severity of the active profile.
//!
//! ```
//! use flowmcp_validate::{ListScope, Options, Profile, Severity, render, validate_str};
//!
//! let source = r#"export const main = { namespace: 'demo', name: 'Demo', description: 'x',
//!     version: '1.2.0', root: 'https://api.example.com', tools: {} }"#;
//! let report = validate_str(source, "demo.mjs", &ListScope::NotSearched, &Options::new(Profile::Spec));
//! let errors: Vec<_> = report.diagnostics().iter().filter(|d| d.severity == Severity::Error).collect();
//! assert!(errors.iter().any(|d| d.code.as_str() == "VAL014")); // version must be 4.x.y
//! print!("{}", render::human(&[report], render::HumanStyle::default()));
//! ```
//!
//! Shared lists are always the caller's to give ([`ListScope`]): nothing here walks the disk
//! behind the caller's back or caches across calls. Nor does anything here read the environment
//! or the current directory: the home directory and `FLOWMCP_RESOURCES` come in [`Options`], and
//! the checks that open a database a schema names go through [`Options::files`] ([`FileChecks`],
//! which `flowmcp_resources::LocalFiles` implements), so this crate builds no SQLite. [`lists::scope_near`] finds and loads the
//! `_lists/` directory a file on disk sees; `flowmcp-catalog`'s `ListDiscovery` does the same with
//! a cache, for many files.
//!
//! # Features
//!
//! - `quickjs` (default): modules are evaluated in the loader's sandboxed JavaScript engine
//!   (QuickJS, C built by a build script), so every rule runs on every file. Without it this crate
//!   builds no C: a module that is nothing but `export const` data declarations (most schemas
//!   without `handlers`, lists, prompts, skills) is checked in full, with the same findings; any
//!   other module gets the static security scan and LDR009, whose message names the checks that
//!   were skipped. [`JAVASCRIPT_ENGINE`] tells which build a program has.
// Unit tests make their fixture files freely; the capability rule is for product code.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod catalog;
mod entry;
mod grading;
mod ids;
pub mod inline;
pub mod lists;
pub mod prompts;
mod quote;
pub mod render;
mod rules;

use std::path::PathBuf;
use std::sync::Arc;

// Validating one file (the entry points are below).
pub use flowmcp_loader::{JAVASCRIPT_ENGINE, Limits};
pub use flowmcp_spec::files::FileChecks;
pub use flowmcp_spec::lists::ListScope;
pub use flowmcp_spec::{Code, Diagnostic, FileReport, Profile, Report, RuleSettings, Severity};

// Validating a catalog as a whole (the parts are in [`catalog`]; an agent's inline schema in
// [`inline`]), and IDs.
pub use catalog::validate_catalog;
pub use ids::validate_id;

// The entry points.
pub use entry::{
    RuleTrace, validate_edited, validate_file, validate_loaded_in, validate_loaded_mut,
    validate_loaded_traced, validate_str,
};

/// The libraries every runtime accepts in `requiredLibraries` (chapter 05, "Default Allowlist").
pub const DEFAULT_ALLOWLIST: &[&str] = &[
    "ethers",
    "moment",
    "indicatorts",
    "@erc725/erc725.js",
    "ccxt",
    "axios",
];

/// How to validate.
///
/// Validation reads no environment and no current directory: what a rule needs of the machine
/// (the home directory, `FLOWMCP_RESOURCES`, the file checks that open databases) is given here.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    pub settings: RuleSettings,
    pub limits: Limits,
    /// Extra libraries allowed in `requiredLibraries` (`security.allowedLibraries` in
    /// `.flowmcp/config.json`); the default allowlist always applies too.
    pub allowed_libraries: Vec<String>,
    /// Give every diagnostic that has a JSON path the line and column of that value in the source
    /// (default). Costs a pass over the source of every file with findings; a caller that does
    /// not show the diagnostics (say, a catalog opened only to call its tools) can skip it.
    pub positions: bool,
    /// The value of `FLOWMCP_RESOURCES`, the path variable of `sqlite-gtfs` resources (RES035;
    /// an empty value counts as unset). Default: unset.
    pub resources_variable: Option<String>,
    /// The user's home directory, for the default `~/.flowmcp/resources` of that variable (an
    /// empty path counts as unset). Default: none.
    pub home: Option<PathBuf>,
    /// The checks of files a schema on disk names (RES020, RES032–RES034), for example
    /// `flowmcp_resources::LocalFiles`. Default: none, and those checks do not run.
    pub files: Option<Arc<dyn FileChecks>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            settings: RuleSettings::default(),
            limits: Limits::default(),
            allowed_libraries: Vec::new(),
            positions: true,
            resources_variable: None,
            home: None,
            files: None,
        }
    }
}

impl Options {
    pub fn new(profile: Profile) -> Self {
        Options {
            settings: RuleSettings::new(profile),
            ..Options::default()
        }
    }

    /// Options under `settings`: a profile with the levels its rules are raised or lowered to.
    pub fn with_settings(settings: RuleSettings) -> Self {
        Options {
            settings,
            ..Options::default()
        }
    }

    /// These options for files on the machine that validates them: its home directory and the
    /// value of `FLOWMCP_RESOURCES` (both as the caller read them; the path variable of
    /// `sqlite-gtfs` resources, RES035) and the checks of files a schema names (RES020,
    /// RES032–RES034; `flowmcp_resources::LocalFiles` looks at the local file system). The three
    /// belong together: a program that validates files as the `flowmcp` binary does sets them
    /// here, at once.
    pub fn on_machine(
        mut self,
        home: Option<PathBuf>,
        resources_variable: Option<String>,
        files: Arc<dyn FileChecks>,
    ) -> Self {
        self.home = home;
        self.resources_variable = resources_variable;
        self.files = Some(files);
        self
    }

    /// Whether `lib` is on the effective allowlist.
    pub fn library_allowed(&self, lib: &str) -> bool {
        DEFAULT_ALLOWLIST.contains(&lib) || self.allowed_libraries.iter().any(|l| l == lib)
    }
}

/// This crate's version (its `Cargo.toml`'s). The catalog's cache of validation results keys its
/// entries by the version of every flowmcp crate a validation runs through, so a fixed rule in a
/// newer release never serves results an older one cached.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The random sequence the crate's randomised tests draw from (xorshift64): fixed seeds, so a
/// failure is found again on the next run.
#[cfg(test)]
pub(crate) mod test_rng {
    /// Advances `seed` one step and returns it.
    pub(crate) fn step(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Numbers below the `n` given at each call, from `seed`.
    pub(crate) fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| (step(&mut seed) % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// File checks that find nothing (the test looks only at where they end up).
    #[derive(Debug)]
    struct NoFiles;

    impl FileChecks for NoFiles {
        fn inline_database_present(&self, _: &std::path::Path, _: &str) -> Option<bool> {
            None
        }

        fn gtfs_seal(
            &self,
            _: &std::path::Path,
        ) -> Result<flowmcp_spec::gtfs::Seal, flowmcp_spec::gtfs::SealError> {
            Err(flowmcp_spec::gtfs::SealError::NoMetaTable)
        }
    }

    /// Issue #40 (D114): the settings and the machine are set by the constructors, the rest
    /// stays at its default.
    #[test]
    fn i40_options_are_built_with_settings_on_a_machine() {
        let mut settings = RuleSettings::new(Profile::Compat);
        settings
            .overrides
            .set(Code::VAL036, flowmcp_spec::Level::Off);
        let opts = Options::with_settings(settings).on_machine(
            Some(PathBuf::from("/home/u")),
            Some("/data".into()),
            Arc::new(NoFiles),
        );
        assert_eq!(opts.settings.profile, Profile::Compat);
        assert_eq!(
            opts.settings.level(Code::VAL036, None),
            flowmcp_spec::Level::Off
        );
        assert_eq!(opts.home.as_deref(), Some(std::path::Path::new("/home/u")));
        assert_eq!(opts.resources_variable.as_deref(), Some("/data"));
        assert!(opts.files.is_some());
        assert!(opts.positions, "the other fields keep their defaults");
        assert!(opts.allowed_libraries.is_empty());
    }
}
