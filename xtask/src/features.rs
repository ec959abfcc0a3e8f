//! `cargo xtask features` — every feature combination a user would pick builds (like
//! `cargo hack check --each-feature --no-dev-deps`): for each workspace member that declares
//! features, `cargo check -p <crate> --no-default-features`, then once with each single feature
//! (without the defaults), all in one target directory (`CARGO_TARGET_DIR`, or
//! `target/features`). Warnings are errors (`RUSTFLAGS=-D warnings`), so a combination that
//! leaves an unused import behind fails.

use std::path::PathBuf;
use std::process::Command;

/// One member's name and its features (without `default`).
struct Member {
    name: String,
    features: Vec<String>,
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("features takes no arguments (got {extra:?})"));
    }
    let members = members()?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/features"));
    let mut failed = Vec::new();
    let mut runs = 0usize;
    for member in members.iter().filter(|m| !m.features.is_empty()) {
        let mut sets = vec![None];
        sets.extend(member.features.iter().map(Some));
        for feature in sets {
            let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
            cmd.args(["check", "-p", &member.name, "--no-default-features"])
                .env("CARGO_TARGET_DIR", &target)
                .env("RUSTFLAGS", "-D warnings");
            if let Some(feature) = feature {
                cmd.args(["--features", feature]);
            }
            let label = format!("{} [{}]", member.name, feature.map_or("", String::as_str));
            println!("features: {label}");
            runs += 1;
            let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
            if !status.success() {
                failed.push(label);
            }
        }
    }
    if failed.is_empty() {
        println!("features: {runs} combination(s) build");
        Ok(())
    } else {
        Err(format!(
            "{} of {runs} combination(s) do not build: {}",
            failed.len(),
            failed.join(", ")
        ))
    }
}

/// The workspace's members with their declared features, from `cargo metadata`.
fn members() -> Result<Vec<Member>, String> {
    let meta = crate::cargo_metadata(&crate::workspace_root())?;
    members_of(&meta)
}

/// The members and features named in `cargo metadata`'s JSON, `default` left out.
fn members_of(meta: &serde_json::Value) -> Result<Vec<Member>, String> {
    let packages = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    let mut members = Vec::new();
    for package in packages {
        let name = package["name"]
            .as_str()
            .ok_or("cargo metadata: a package without a name")?
            .to_string();
        let mut features: Vec<String> = package["features"]
            .as_object()
            .map(|f| f.keys().filter(|k| *k != "default").cloned().collect())
            .unwrap_or_default();
        features.sort();
        members.push(Member { name, features });
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i40_features_reads_members_without_default() {
        let meta = serde_json::json!({"packages": [
            {"name": "a", "features": {"default": ["x"], "y": [], "x": []}},
            {"name": "b", "features": {}},
        ]});
        let members = members_of(&meta).unwrap_or_default();
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].features, vec!["x".to_string(), "y".to_string()]);
        assert!(members[1].features.is_empty());
    }
}
