//! `flowmcp libs status` and `flowmcp libs install`: the states of required libraries in a
//! library directory, and installing the missing ones with the user's npm (`--ignore-scripts`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod common;

use std::path::Path;

use common::{flowmcp_env, temp_dir};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A catalog whose schemas need ethers (installed), moment (missing), talib (a native addon,
/// installed), zlib (a Node built-in) and left-pad (not allowlisted); and the library directory.
fn setup(tag: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let root = temp_dir(tag);
    let catalog = root.join("catalog");
    write(
        &catalog.join("providers/a/a.mjs"),
        "export const main = { namespace: 'a', requiredLibraries: [ 'ethers', 'moment', 'zlib' ], tools: {} }\n",
    );
    write(
        &catalog.join("providers/b/b.mjs"),
        "export const main = { namespace: 'b', requiredLibraries: [ 'ethers', 'talib', 'left-pad' ], tools: {} }\n",
    );
    let libs = root.join("libs");
    write(
        &libs.join("node_modules/ethers/package.json"),
        r#"{"name": "ethers", "version": "6.17.0", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/ethers/index.js"),
        "module.exports = {};",
    );
    write(
        &libs.join("node_modules/talib/package.json"),
        r#"{"name": "talib", "version": "2.0.5", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/talib/index.js"),
        "module.exports = require('./build/Release/talib.node');",
    );
    write(&libs.join("node_modules/talib/binding.gyp"), "{}");
    (root, catalog, libs)
}

#[test]
fn status_names_each_library_and_its_state() {
    let (root, catalog, libs) = setup("libs-status");
    let (c, l) = (catalog.display().to_string(), libs.display().to_string());
    let run = flowmcp_env(
        &["libs", "status", &c, "--libs", &l, "--profile", "compat"],
        &root,
        &[],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    for line in [
        "installed        ethers (2 schemas): 6.17.0",
        "missing          moment (1 schema): not installed",
        "builtin          zlib (1 schema)",
        "native           talib (1 schema): a native addon",
        "missing          left-pad (1 schema)",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.stdout);
    }
    // Under spec, a library off the allowlist is SEC020.
    let run = flowmcp_env(&["libs", "status", &c, "--libs", &l, "--json"], &root, &[]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let state = |name: &str| {
        v["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .map(|x| x["state"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(state("left-pad"), "not-allowlisted");
    assert_eq!(state("ethers"), "installed");
    // The directory from the environment when no flag is given.
    let run = flowmcp_env(
        &["libs", "status", &c, "--profile", "compat"],
        &root,
        &[("FLOWMCP_LIBS", &l)],
    );
    assert!(
        run.stdout.contains(&format!("library directory: {l}")),
        "{}",
        run.stdout
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
#[test]
fn install_runs_npm_with_ignore_scripts_for_what_is_missing() {
    use std::os::unix::fs::PermissionsExt;
    let (root, catalog, libs) = setup("libs-install");
    // A stand-in npm that records its arguments.
    let bin = root.join("bin");
    let record = root.join("npm-args.txt");
    write(
        &bin.join("npm"),
        &format!("#!/bin/sh\necho \"$@\" > '{}'\n", record.display()),
    );
    std::fs::set_permissions(bin.join("npm"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (c, l) = (catalog.display().to_string(), libs.display().to_string());
    let path = bin.display().to_string();
    let run = flowmcp_env(
        &["libs", "install", &c, "--libs", &l, "--profile", "compat"],
        &root,
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let args = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        args.trim(),
        format!("install --prefix {l} --ignore-scripts --no-audit --no-fund left-pad moment")
    );
    // Not installed: the native addon and the built-in, each with the reason.
    assert!(
        run.stderr.contains("not installing talib"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("not installing zlib"), "{}", run.stderr);
    // Without npm: the command to run by hand.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let run = flowmcp_env(
        &["libs", "install", "moment", "--libs", &l],
        &root,
        &[("PATH", &empty.display().to_string())],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "run by hand: npm install --prefix {l} --ignore-scripts"
        )),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&root);
}
