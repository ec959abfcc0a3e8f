//! `.flowmcp/config.json`: the project configuration, found in the current directory or the nearest
//! parent that has one.
//!
//! ```json
//! { "profile": "compat",
//!   "rules": { "VAL036": "off" },
//!   "security": { "allowedLibraries": ["my-lib"] } }
//! ```
//! Running tools adds (all optional):
//! ```json
//! { "catalog": "examples/catalog",
//!   "envFile": ".env",
//!   "serverParams": { "SKYCAST_API_KEY": "…" },
//!   "upstreams": { "skycast-io": "http://127.0.0.1:8080" },
//!   "cacheDir": "/var/cache/flowmcp" }
//! ```
//! Relative paths are relative to the directory that holds `.flowmcp/`. The user configuration
//! `~/.flowmcp/config.json` is read first and the project's keys win over it
//! ([`Config::discover_layered`]); `serverParams` and `upstreams` are merged key by key.
//! Unknown keys are ignored (later features add more); a key with the wrong type is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use flowmcp_spec::{Code, Level, Profile};
use serde_json::Value;

#[derive(Debug, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub profile: Option<Profile>,
    pub rules: Vec<(Code, Level)>,
    pub allowed_libraries: Vec<String>,
    /// Default catalog for `call`, `list` and `search`.
    pub catalog: Option<PathBuf>,
    pub env_file: Option<PathBuf>,
    /// Server parameter values (the last source after the environment and the env file).
    pub server_params: IndexMap<String, String>,
    /// Namespace → base URL replacing the schema's `root`.
    pub upstreams: BTreeMap<String, String>,
    pub cache_dir: Option<PathBuf>,
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
        // Paths are relative to the directory holding `.flowmcp/`.
        if let Some(base) = path.parent().and_then(Path::parent) {
            for p in [&mut cfg.catalog, &mut cfg.env_file, &mut cfg.cache_dir]
                .into_iter()
                .flatten()
            {
                if p.is_relative() {
                    *p = base.join(&*p);
                }
            }
        }
        Ok(cfg)
    }

    /// The user configuration (`$HOME/.flowmcp/config.json`, when it exists) overlaid by the
    /// nearest project configuration from `start` upwards.
    pub fn discover_layered(start: &Path) -> Result<Config, String> {
        let user_path = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".flowmcp").join("config.json"))
            .filter(|p| p.is_file());
        let project = Config::discover(start)?;
        let Some(user_path) = user_path else {
            return Ok(project);
        };
        if project.path.as_deref() == Some(user_path.as_path()) {
            return Ok(project);
        }
        let mut merged = Config::read(&user_path)?;
        merged.overlay(project);
        Ok(merged)
    }

    /// Applies `other` on top of `self`: its values win; maps are merged key by key.
    fn overlay(&mut self, other: Config) {
        if other.path.is_some() {
            self.path = other.path;
        }
        if other.profile.is_some() {
            self.profile = other.profile;
        }
        self.rules.extend(other.rules);
        self.allowed_libraries.extend(other.allowed_libraries);
        if other.catalog.is_some() {
            self.catalog = other.catalog;
        }
        if other.env_file.is_some() {
            self.env_file = other.env_file;
        }
        if other.cache_dir.is_some() {
            self.cache_dir = other.cache_dir;
        }
        self.server_params.extend(other.server_params);
        self.upstreams.extend(other.upstreams);
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
        let path_of = |key: &str| -> Result<Option<PathBuf>, String> {
            match obj.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(PathBuf::from(s))),
                Some(_) => Err(format!("\"{key}\" must be a string (a path)")),
            }
        };
        cfg.catalog = path_of("catalog")?;
        cfg.env_file = path_of("envFile")?;
        cfg.cache_dir = path_of("cacheDir")?;
        let string_map = |key: &str| -> Result<Vec<(String, String)>, String> {
            match obj.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| {
                        v.as_str()
                            .map(|s| (k.clone(), s.to_string()))
                            .ok_or_else(|| format!("\"{key}\".{k} must be a string"))
                    })
                    .collect(),
                Some(_) => Err(format!("\"{key}\" must be an object of strings")),
            }
        };
        cfg.server_params = string_map("serverParams")?.into_iter().collect();
        cfg.upstreams = string_map("upstreams")?.into_iter().collect();
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
        assert!(Config::parse(r#"{"serverParams":{"K":1}}"#).is_err());
        assert!(Config::parse(r#"{"upstreams":[]}"#).is_err());
        assert!(Config::parse(r#"{"catalog":3}"#).is_err());
    }

    #[test]
    fn runtime_fields_and_overlay() {
        let mut user = Config::parse(
            r#"{"serverParams":{"A":"1","B":"2"},"upstreams":{"ns":"https://u"},"cacheDir":"/c"}"#,
        )
        .unwrap();
        let project =
            Config::parse(r#"{"serverParams":{"B":"3"},"catalog":"cat","profile":"compat"}"#)
                .unwrap();
        user.overlay(project);
        assert_eq!(user.server_params.get("A").map(String::as_str), Some("1"));
        assert_eq!(user.server_params.get("B").map(String::as_str), Some("3"));
        assert_eq!(
            user.upstreams.get("ns").map(String::as_str),
            Some("https://u")
        );
        assert_eq!(user.catalog, Some(PathBuf::from("cat")));
        assert_eq!(user.cache_dir, Some(PathBuf::from("/c")));
        assert_eq!(user.profile, Some(Profile::Compat));
    }
}
