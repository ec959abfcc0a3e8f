//! `.flowmcp/config.json`: the project configuration, found in the current directory or the nearest
//! parent that has one.
//!
//! ```json
//! { "profile": "compat",
//!   "rules": { "VAL036": "off" },
//!   "security": { "allowedLibraries": ["my-lib"] } }
//! ```
//! Unknown keys are ignored (later features add more); a key with the wrong type is an error.

use std::path::{Path, PathBuf};

use flowmcp_spec::{Code, Level, Profile};
use serde_json::Value;

#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub profile: Option<Profile>,
    pub rules: Vec<(Code, Level)>,
    pub allowed_libraries: Vec<String>,
}

impl Config {
    /// Finds and reads the nearest `.flowmcp/config.json` from `start` upwards.
    pub fn discover(start: &Path) -> Result<Config, String> {
        for dir in start.ancestors() {
            let candidate = dir.join(".flowmcp").join("config.json");
            if candidate.is_file() {
                return Config::read(&candidate);
            }
        }
        Ok(Config::default())
    }

    pub fn read(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut cfg = Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        cfg.path = Some(path.to_path_buf());
        Ok(cfg)
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let obj = v
            .as_object()
            .ok_or("the configuration must be a JSON object")?;
        let mut cfg = Config::default();
        if let Some(p) = obj.get("profile") {
            let s = p.as_str().ok_or("\"profile\" must be a string")?;
            cfg.profile = Some(s.parse()?);
        }
        if let Some(r) = obj.get("rules") {
            let map = r
                .as_object()
                .ok_or("\"rules\" must be an object of CODE: level")?;
            for (code, level) in map {
                let c = Code::parse(code)
                    .ok_or_else(|| format!("\"rules\": unknown rule code {code:?}"))?;
                let l = level
                    .as_str()
                    .ok_or_else(|| format!("\"rules\".{code} must be a string"))?;
                cfg.rules
                    .push((c, l.parse().map_err(|e| format!("\"rules\".{code}: {e}"))?));
            }
        }
        if let Some(sec) = obj.get("security") {
            let sec = sec.as_object().ok_or("\"security\" must be an object")?;
            if let Some(libs) = sec.get("allowedLibraries") {
                let arr = libs
                    .as_array()
                    .ok_or("\"security\".allowedLibraries must be an array of strings")?;
                for l in arr {
                    let s = l
                        .as_str()
                        .ok_or("\"security\".allowedLibraries must be an array of strings")?;
                    cfg.allowed_libraries.push(s.to_string());
                }
            }
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_fields() {
        let c = Config::parse(r#"{"profile":"compat","rules":{"val036":"off"},"security":{"allowedLibraries":["x"]},"other":1}"#)
            .unwrap();
        assert_eq!(c.profile, Some(Profile::Compat));
        assert_eq!(c.rules, vec![(Code::VAL036, Level::Off)]);
        assert_eq!(c.allowed_libraries, vec!["x".to_string()]);
    }

    #[test]
    fn rejects_bad_values() {
        assert!(Config::parse("[]").is_err());
        assert!(Config::parse(r#"{"profile":"loose"}"#).is_err());
        assert!(Config::parse(r#"{"rules":{"NOPE1":"off"}}"#).is_err());
        assert!(Config::parse(r#"{"security":{"allowedLibraries":[1]}}"#).is_err());
        assert!(Config::parse("{").is_err());
    }
}
