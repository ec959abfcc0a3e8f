//! Validating IDs (`namespace/type/name`, `namespace/schema-name`): ID001–ID006.
//!
//! The parsing and the choice of code live in [`flowmcp_spec::id`] (see its module documentation for
//! how ID001, ID005 and ID006 divide the structural mistakes); this module turns its findings into
//! diagnostics under the active profile and overrides.

use flowmcp_spec::id::{self, Expect};
use flowmcp_spec::{FileReport, diagnostic::Collector};

use crate::Options;

/// The report kind of an ID (its verdict reads `ID is valid` / `ID is invalid`).
pub(crate) const KIND: flowmcp_spec::diagnostic::ReportKind =
    flowmcp_spec::diagnostic::ReportKind::Id;

/// Validates one ID given as text, as `flowmcp validate --id` does: 3 segments are read as a
/// Primitive-ID, 2 as a Schema-File-ID. The report's `file` is the ID text itself, its kind `"id"`;
/// the diagnostics have no location.
pub fn validate_id(text: &str, opts: &Options) -> FileReport {
    validate_id_as(text, Expect::Either, opts)
}

/// Validates one ID read in a context that accepts `expect`.
pub(crate) fn validate_id_as(text: &str, expect: Expect, opts: &Options) -> FileReport {
    let mut c = Collector::new(&opts.settings, None);
    for e in id::diagnose(text, expect) {
        c.emit(e.code(), None, e.to_string());
    }
    FileReport::new(text, KIND, c.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::{Code, Level, Profile, Severity, Verdict};

    #[test]
    fn valid_and_invalid() {
        let opts = Options::default();
        let r = validate_id("coingecko/tool/simplePrice", &opts);
        assert_eq!(r.file(), "coingecko/tool/simplePrice");
        assert_eq!(r.kind().as_str(), "id");
        assert_eq!(r.verdict(), Verdict::Valid);
        assert!(r.diagnostics().is_empty());

        let r = validate_id("COINGECKO/tool/simplePrice", &opts);
        assert_eq!(r.verdict(), Verdict::Invalid);
        assert_eq!(r.diagnostics().len(), 1);
        let d = &r.diagnostics()[0];
        assert_eq!(d.code, Code::ID002);
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.file, None);
        assert_eq!(d.pointer, None);
        assert_eq!(d.line, None);
    }

    #[test]
    fn overrides_apply() {
        let mut opts = Options::new(Profile::Compat);
        opts.settings.overrides.set(Code::ID002, Level::Warning);
        let r = validate_id("COINGECKO/tool/simplePrice", &opts);
        assert_eq!(r.verdict(), Verdict::Valid);
        assert_eq!(r.counts().warnings, 1);
        opts.settings.overrides.set(Code::ID002, Level::Off);
        assert!(
            validate_id("COINGECKO/tool/simplePrice", &opts)
                .diagnostics()
                .is_empty()
        );
    }

    #[test]
    fn contexts() {
        let opts = Options::default();
        let codes = |text: &str, expect: Expect| -> Vec<Code> {
            validate_id_as(text, expect, &opts)
                .diagnostics()
                .iter()
                .map(|d| d.code)
                .collect()
        };
        assert_eq!(codes("etherscan-io/contracts", Expect::Either), vec![]);
        assert_eq!(
            codes("etherscan-io/contracts", Expect::Primitive),
            vec![Code::ID005]
        );
        assert_eq!(
            codes("etherscan-io/tool/getAbi", Expect::SchemaFile),
            vec![Code::ID001]
        );
    }
}
