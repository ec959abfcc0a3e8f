//! The rule registry: every code, declared once.
//!
//! The table lives in `table` as one `declare_rules!` invocation. The macro generates the [`Code`] enum
//! (one variant per code, so no diagnostic can carry a code that is not registered) and the static
//! [`RULES`] slice with each rule's metadata.

use serde::Serialize;

use crate::level::Level;

mod table;

pub use table::RULES;

/// The [`RuleInfo::section`] of a code that no chapter of the specification defines: the project
/// added it (see [`Origin::Extension`]).
pub const PROJECT_SECTION: &str = "flowmcp-rs";

/// The family a code belongs to (its alphabetic prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Family {
    Val,
    Sec,
    Lst,
    Res,
    Skl,
    Dep,
    Prm,
    Agt,
    Sel,
    Cat,
    Id,
    Ph,
    Tst,
    Pre,
    Ldr,
    E,
    Md,
    Agent,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Val => "VAL",
            Family::Sec => "SEC",
            Family::Lst => "LST",
            Family::Res => "RES",
            Family::Skl => "SKL",
            Family::Dep => "DEP",
            Family::Prm => "PRM",
            Family::Agt => "AGT",
            Family::Sel => "SEL",
            Family::Cat => "CAT",
            Family::Id => "ID",
            Family::Ph => "PH",
            Family::Tst => "TST",
            Family::Pre => "PRE",
            Family::Ldr => "LDR",
            Family::E => "E",
            Family::Md => "MD",
            Family::Agent => "AGENT",
        }
    }
}

/// Where a code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Defined by the specification v4.2.0.
    Spec,
    /// Added by this project: a check the specification requires but gives no code (section
    /// [`PROJECT_SECTION`]), or a code renumbered because the specification gives one number two
    /// meanings (the PRE family, which takes chapter 11's preload rules off VAL060–VAL065).
    Extension,
}

/// Whether the code is produced by this implementation.
///
/// Serialised as `{"state":"implemented"}`,
/// `{"state":"not-emitted","reason":"SEC200–SEC204 report the check"}` or
/// `{"state":"planned","issue":3}` (`"issue":null` when no issue has been filed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Checked and emitted.
    Implemented,
    /// Never emitted; the string says why in a few words, usually which code reports the check
    /// instead (the specification defines the check twice, or contradicts itself).
    NotEmitted(&'static str),
    /// Will be implemented by the named issue (`Planned(0)` means no issue has been filed yet).
    Planned(u32),
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        match self {
            Status::Implemented => m.serialize_entry("state", "implemented")?,
            Status::NotEmitted(r) => {
                m.serialize_entry("state", "not-emitted")?;
                m.serialize_entry("reason", r)?;
            }
            Status::Planned(n) => {
                m.serialize_entry("state", "planned")?;
                m.serialize_entry("issue", &(*n != 0).then_some(*n))?;
            }
        }
        m.end()
    }
}

impl Status {
    /// The state alone, without the reason or issue: `implemented`, `not emitted` or `planned`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Implemented => "implemented",
            Status::NotEmitted(_) => "not emitted",
            Status::Planned(_) => "planned",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Implemented => f.write_str("implemented"),
            Status::NotEmitted(r) => write!(f, "not emitted ({r})"),
            Status::Planned(0) => f.write_str("planned (no issue yet)"),
            Status::Planned(n) => write!(f, "planned (issue #{n})"),
        }
    }
}

/// A named variant of a code with its own severities (e.g. VAL014 `v3`: a 3.x version is a deprecation
/// warning). The unnamed default variant uses the rule's own severities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Variant {
    pub name: &'static str,
    pub spec: Level,
    pub compat: Level,
    pub summary: &'static str,
}

/// Everything known about one code.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RuleInfo {
    pub code: Code,
    pub family: Family,
    pub origin: Origin,
    /// The specification file that defines it (`09-validation-rules.md`), or [`PROJECT_SECTION`]
    /// for a code this project defines.
    pub section: &'static str,
    /// Severity under profile `spec`.
    pub spec: Level,
    /// Severity under profile `compat`.
    pub compat: Level,
    pub status: Status,
    pub summary: &'static str,
    pub variants: &'static [Variant],
}

impl RuleInfo {
    /// Whether this project, not a chapter of the specification, defines the code.
    pub fn defined_by_project(&self) -> bool {
        self.section == PROJECT_SECTION
    }

    /// Whether the code is reported when something runs (a tool or resource call: E001–E009,
    /// SEC100–SEC104 inside an E005 message, MD001–MD007; an agent run: AGENT001–AGENT005),
    /// never in a validation report, so that a rule override does not change it.
    pub fn is_runtime(&self) -> bool {
        matches!(self.family, Family::E | Family::Md | Family::Agent)
            || matches!(
                self.code,
                Code::SEC100 | Code::SEC101 | Code::SEC102 | Code::SEC103 | Code::SEC104
            )
    }

    pub fn variant(&self, name: &str) -> Option<&'static Variant> {
        self.variants.iter().find(|v| v.name == name)
    }
}

macro_rules! declare_rules {
    ( $(
        $( #[$attr:meta] )*
        $code:ident : $fam:ident, $origin:ident, $section:literal, $spec:ident / $compat:ident, $status:expr,
        $summary:literal
        $( , [ $( $vname:literal => $vspec:ident / $vcompat:ident : $vsum:literal ),* $(,)? ] )?
        ;
    )* ) => {
        /// Every diagnostic code known to flowmcp-rs. Generated from the registry table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Code { $( $( #[$attr] )* $code ),* }

        impl Code {
            /// The code as text, e.g. `"VAL014"`.
            pub const fn as_str(self) -> &'static str {
                match self { $( Code::$code => stringify!($code) ),* }
            }
        }

        /// The registry, in declaration order.
        pub static RULES: &[$crate::registry::RuleInfo] = &[ $(
            $crate::registry::RuleInfo {
                code: Code::$code,
                family: $crate::registry::Family::$fam,
                origin: $crate::registry::Origin::$origin,
                section: $section,
                spec: $crate::level::Level::$spec,
                compat: $crate::level::Level::$compat,
                status: $status,
                summary: $summary,
                variants: &[ $( $( $crate::registry::Variant {
                    name: $vname,
                    spec: $crate::level::Level::$vspec,
                    compat: $crate::level::Level::$vcompat,
                    summary: $vsum,
                } ),* )? ],
            }
        ),* ];
    };
}
pub(crate) use declare_rules;

pub use table::Code;

impl Code {
    /// The registry entry of this code.
    pub fn info(self) -> &'static RuleInfo {
        // The table is declared in the same order as the enum, so the discriminant is the index.
        &RULES[self as usize]
    }

    /// Looks a code up by its text (`"VAL014"`, case-insensitive).
    pub fn parse(text: &str) -> Option<Code> {
        // Cached reports restore thousands of codes: an index, and no allocation when the text
        // is already upper case.
        static INDEX: std::sync::OnceLock<std::collections::HashMap<&'static str, Code>> =
            std::sync::OnceLock::new();
        let index = INDEX.get_or_init(|| RULES.iter().map(|r| (r.code.as_str(), r.code)).collect());
        let text = text.trim();
        index
            .get(text)
            .or_else(|| index.get(text.to_ascii_uppercase().as_str()))
            .copied()
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Code::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown rule code {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_order_matches_enum() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.code as usize, i, "{} is out of order", r.code);
        }
    }

    #[test]
    fn codes_are_unique_and_prefixed_by_family() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.code.as_str()), "duplicate {}", r.code);
            assert!(
                r.code.as_str().starts_with(r.family.as_str()),
                "{} not in {:?}",
                r.code,
                r.family
            );
            let digits = &r.code.as_str()[r.family.as_str().len()..];
            assert!(
                digits.len() == 3 && digits.chars().all(|c| c.is_ascii_digit()),
                "{}",
                r.code
            );
        }
    }

    #[test]
    fn compat_never_stricter_than_spec() {
        for r in RULES {
            assert!(
                r.compat <= r.spec,
                "{}: compat is stricter than spec",
                r.code
            );
            for v in r.variants {
                assert!(
                    v.compat <= v.spec,
                    "{}/{}: compat is stricter than spec",
                    r.code,
                    v.name
                );
            }
        }
    }

    #[test]
    fn sections_name_a_chapter_or_the_project() {
        for r in RULES {
            if r.defined_by_project() {
                assert_eq!(r.origin, Origin::Extension, "{}", r.code);
            } else {
                assert!(
                    r.section.ends_with(".md")
                        && r.section.as_bytes()[..2].iter().all(u8::is_ascii_digit),
                    "{}: section {:?} is neither a chapter file nor {PROJECT_SECTION:?}",
                    r.code,
                    r.section
                );
            }
        }
    }

    #[test]
    fn not_emitted_codes_say_why() {
        for r in RULES {
            if let Status::NotEmitted(reason) = r.status {
                assert!(!reason.trim().is_empty(), "{}", r.code);
                assert_eq!(r.spec, Level::Off, "{}", r.code);
                assert_eq!(r.compat, Level::Off, "{}", r.code);
            }
        }
        let json = serde_json::to_value(Code::SEC018.info().status).unwrap();
        assert_eq!(json["state"], "not-emitted");
        assert!(json["reason"].as_str().unwrap().contains("SEC200"));
    }

    /// Issue 29, item 1: every code the runtime, the markdown engine and the agent runner emit
    /// is in the registry, as a runtime code.
    #[test]
    fn i29_1_markdown_and_agent_codes_are_registered_runtime_codes() {
        for text in [
            "MD001", "MD002", "MD003", "MD004", "MD005", "MD006", "MD007", "AGENT001", "AGENT002",
            "AGENT003", "AGENT004", "AGENT005", "E001", "E009", "SEC102",
        ] {
            let code = Code::parse(text).unwrap_or_else(|| panic!("{text} is not registered"));
            assert!(code.info().is_runtime(), "{text}");
            assert_eq!(code.info().status, Status::Implemented, "{text}");
        }
        assert_eq!(Code::MD004.info().family.as_str(), "MD");
        assert_eq!(Code::AGENT001.info().family.as_str(), "AGENT");
        assert!(!Code::VAL014.info().is_runtime());
        assert!(!Code::SEC001.info().is_runtime());
    }

    #[test]
    fn parse_round_trips() {
        for r in RULES {
            assert_eq!(Code::parse(r.code.as_str()), Some(r.code));
        }
        assert_eq!(Code::parse("val014"), Some(Code::VAL014));
        assert_eq!(Code::parse("VAL999"), None);
    }
}
