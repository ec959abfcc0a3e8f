//! The rule registry: every code, declared once.
//!
//! The table lives in `table` as one `declare_rules!` invocation. The macro generates the [`Code`] enum
//! (one variant per code, so no diagnostic can carry a code that is not registered) and the static
//! [`RULES`] slice with each rule's metadata ([`RuleInfo`], declared beside the table because it
//! names a [`Code`]); what a line says apart from its code ([`Family`], [`Origin`], [`Status`],
//! [`Variant`]) is in `kinds`, below the table.

use serde::Serialize;

pub mod fixes;
mod kinds;
mod table;

pub use kinds::{Family, Origin, PROJECT_SECTION, Status, Variant};
pub use table::{Code, RULES, RuleInfo};

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
    use crate::level::Level;

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
