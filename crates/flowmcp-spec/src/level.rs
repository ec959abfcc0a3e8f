//! A rule's level and the errors of reading levels, profiles and `CODE=LEVEL` settings. Its own
//! module so that the registry (which declares each rule's levels) and the profiles (which pick
//! among them) both build on it without naming each other.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A rule's level: the severity it reports with, or `Off`. Ordered from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    Info,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// Why a profile, a level or a `CODE=LEVEL` override could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// Not one of `error`, `warning`, `info`, `off` (or their aliases).
    #[error("unknown level {0:?} (expected error, warning, info or off)")]
    UnknownLevel(String),
    /// Not `spec` or `compat`.
    #[error("unknown profile {0:?} (expected spec or compat)")]
    UnknownProfile(String),
    /// An override without `=`.
    #[error("expected CODE=LEVEL, got {0:?}")]
    NotCodeLevel(String),
    /// A code the registry does not know.
    #[error("unknown rule code {0:?}")]
    UnknownCode(String),
}

impl FromStr for Level {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" => Ok(Level::Off),
            "info" => Ok(Level::Info),
            "warning" | "warn" => Ok(Level::Warning),
            "error" | "deny" => Ok(Level::Error),
            other => Err(SettingError::UnknownLevel(other.to_string())),
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
