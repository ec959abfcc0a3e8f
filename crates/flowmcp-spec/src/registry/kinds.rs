//! What a line of the registry table says about a code, apart from the code itself: its
//! [`Family`], [`Origin`], [`Status`] and [`Variant`]s. Below the table (which names them), so
//! the table and the registry's front file both depend on this file and it on neither.

use serde::Serialize;

use crate::level::Level;

/// The [`RuleInfo::section`](super::RuleInfo::section) of a code that no chapter of the
/// specification defines: the project added it (see [`Origin::Extension`]).
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
