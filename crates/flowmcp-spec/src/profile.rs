//! Profiles and per-rule overrides.

use std::collections::BTreeMap;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::level::{Level, SettingError};
use crate::registry::Code;

/// Which reading of the specification applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The specification v4.2.0 as written; where it contradicts itself, as this project reads it
    /// (each rule page in `docs/rules/` says which reading applies).
    #[default]
    Spec,
    /// Accepts what real catalogs written for the JavaScript reference need; never rejects what
    /// `spec` accepts.
    Compat,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Compat => "compat",
        }
    }
    pub fn is_compat(self) -> bool {
        self == Profile::Compat
    }
}

impl FromStr for Profile {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "spec" => Ok(Profile::Spec),
            "compat" => Ok(Profile::Compat),
            other => Err(SettingError::UnknownProfile(other.to_string())),
        }
    }
}

/// Per-rule overrides, as given with `--rule CODE=LEVEL` or in the config file (kept in code order,
/// so that their `Debug` text is the same from run to run). An override applies to
/// every variant of the code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides(BTreeMap<Code, Level>);

impl Overrides {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn set(&mut self, code: Code, level: Level) {
        self.0.insert(code, level);
    }
    pub fn get(&self, code: Code) -> Option<Level> {
        self.0.get(&code).copied()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parses one `CODE=LEVEL` item.
    pub fn parse_item(item: &str) -> Result<(Code, Level), SettingError> {
        let (code, level) = item
            .split_once('=')
            .ok_or_else(|| SettingError::NotCodeLevel(item.to_string()))?;
        let parsed =
            Code::parse(code).ok_or_else(|| SettingError::UnknownCode(code.trim().to_string()))?;
        Ok((parsed, level.parse()?))
    }
}

/// A profile plus overrides: decides the level of every emitted diagnostic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleSettings {
    pub profile: Profile,
    pub overrides: Overrides,
}

impl RuleSettings {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            overrides: Overrides::default(),
        }
    }

    /// The level of `code` (in its named `variant`, if any) under these settings.
    pub fn level(&self, code: Code, variant: Option<&str>) -> Level {
        if let Some(level) = self.overrides.get(code) {
            return level;
        }
        let info = code.info();
        let (spec, compat) = match variant.and_then(|v| info.variant(v)) {
            Some(v) => (v.spec, v.compat),
            None => (info.spec, info.compat),
        };
        match self.profile {
            Profile::Spec => spec,
            Profile::Compat => compat,
        }
    }

    /// Whether these settings are `base` with at most some codes turned off: every level they
    /// give, of every code in every variant, is off or the level `base` gives. (`false` may
    /// also mean it cannot be told from the overrides alone: an override of a code `base` does
    /// not override, to a level other than off.)
    pub fn only_turns_off(&self, base: &RuleSettings) -> bool {
        self.profile == base.profile
            && self.overrides.0.iter().all(|(code, level)| {
                *level == Level::Off || base.overrides.get(*code) == Some(*level)
            })
            && base
                .overrides
                .0
                .keys()
                .all(|code| self.overrides.0.contains_key(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Settings that only turn codes off say so; any other change of a level does not (D186).
    #[test]
    fn i46_settings_that_only_turn_codes_off() {
        let mut base = RuleSettings::new(Profile::Compat);
        base.overrides.set(Code::VAL089, Level::Error);
        let mut narrowed = base.clone();
        narrowed.overrides.set(Code::VAL021, Level::Off);
        narrowed.overrides.set(Code::VAL089, Level::Off);
        assert!(narrowed.only_turns_off(&base) && base.only_turns_off(&base));
        let mut raised = base.clone();
        raised.overrides.set(Code::VAL021, Level::Error);
        assert!(!raised.only_turns_off(&base));
        let mut dropped = base.clone();
        dropped.overrides = Overrides::new();
        assert!(!dropped.only_turns_off(&base));
        let mut other = narrowed.clone();
        other.profile = Profile::Spec;
        assert!(!other.only_turns_off(&base));
    }

    #[test]
    fn levels_order() {
        assert!(
            Level::Off < Level::Info
                && Level::Info < Level::Warning
                && Level::Warning < Level::Error
        );
    }

    #[test]
    fn override_beats_profile_and_variant() {
        let mut s = RuleSettings::new(Profile::Spec);
        assert_eq!(s.level(Code::VAL014, None), Level::Error);
        assert_eq!(s.level(Code::VAL014, Some("v3")), Level::Warning);
        s.overrides.set(Code::VAL014, Level::Off);
        assert_eq!(s.level(Code::VAL014, Some("v3")), Level::Off);
        assert_eq!(s.level(Code::VAL014, None), Level::Off);
    }

    #[test]
    fn parse_items() {
        assert_eq!(
            Overrides::parse_item("val036=off"),
            Ok((Code::VAL036, Level::Off))
        );
        assert!(Overrides::parse_item("VAL036").is_err());
        assert!(Overrides::parse_item("NOPE001=off").is_err());
        assert!(Overrides::parse_item("VAL036=loud").is_err());
    }
}
