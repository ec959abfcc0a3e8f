//! `flowmcp libs status` and `flowmcp libs install`: the states of required libraries in a
//! library directory, and installing the missing ones with the user's npm (`--ignore-scripts`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::Path;

use common::{flowmcp_env, temp_dir};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A stand-in for talib in `libs`: a native addon (`binding.gyp`, a `.node` require).
fn native_talib(libs: &Path) {
    write(
        &libs.join("node_modules/talib/package.json"),
        r#"{"name": "talib", "version": "2.0.5", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/talib/index.js"),
        "module.exports = require('./build/Release/talib.node');",
    );
    write(&libs.join("node_modules/talib/binding.gyp"), "{}");
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
    native_talib(&libs);
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
        format!("install --prefix {l} --ignore-scripts --no-audit --no-fund -- left-pad moment")
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
            "run by hand: cd '{l}' && npm_config_ignore_scripts=true npm install --prefix {l} \
             --ignore-scripts --no-audit --no-fund -- moment"
        )),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue #27, item 1: a hostile repository (its config says `compat`, its `.npmrc` turns install
/// scripts back on, its catalog lists npm options, a tarball URL, a path and a git source as
/// libraries) cannot make `flowmcp libs install` run a package script: only registry names
/// reach npm, after `--`, npm runs in the library directory with `--ignore-scripts` on its
/// command line and in its environment, and npm's own configuration lookup then says scripts
/// stay off.
#[cfg(unix)]
#[test]
fn item01_a_hostile_catalog_cannot_make_libs_install_run_scripts() {
    use std::os::unix::fs::PermissionsExt;
    let root = temp_dir("libs-hostile");
    let repo = root.join("repo");
    let libs = root.join("libs");
    write(
        &repo.join(".flowmcp/config.json"),
        r#"{"profile": "compat"}"#,
    );
    write(
        &repo.join(".npmrc"),
        "ignore-scripts=false\ngit=./evil.sh\n",
    );
    write(
        &repo.join("catalog/providers/x/x.mjs"),
        "export const main = { namespace: 'x', requiredLibraries: [ '--ignore-scripts=false', \
         'https://evil.example/pwn.tgz', 'file:../pwn', 'git+ssh://git@evil.example/pwn.git', \
         'evil/pwn', 'moment@^2.30', '@scope/ok' ], tools: {} }\n",
    );
    // A stand-in npm: records its arguments, its directory and npm's variables, then asks the
    // real npm (when there is one) what `ignore-scripts` is, from the same directory, with the
    // same environment and the arguments it was given.
    let bin = root.join("bin");
    let record = root.join("npm-record.txt");
    let real_npm = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("npm"))
            .find(|p| p.is_file())
    });
    // The product's own options (between `install` and `--`) are passed on to the real npm.
    let ask = match &real_npm {
        Some(npm) => format!(
            "shift; flags=''; while [ $# -gt 0 ] && [ \"$1\" != -- ]; do flags=\"$flags $1\"; shift; done\n\
             echo \"real: $('{}' config get ignore-scripts $flags 2>&1)\" >> '{rec}'\n",
            npm.display(),
            rec = record.display()
        ),
        None => String::new(),
    };
    write(
        &bin.join("npm"),
        &format!(
            "#!/bin/sh\n{{ echo \"args: $*\"; echo \"pwd: $PWD\"; echo \"env: $npm_config_ignore_scripts\"; }} > '{}'\n{ask}",
            record.display()
        ),
    );
    std::fs::set_permissions(bin.join("npm"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let l = libs.display().to_string();
    let run = flowmcp_env(
        &["libs", "install", "catalog", "--libs", &l],
        &repo,
        &[
            ("FLOWMCP_NPM", &bin.join("npm").display().to_string()),
            ("HOME", &root.display().to_string()),
        ],
    );
    // Something was refused: exit 1, each refused entry named.
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    for bad in [
        "--ignore-scripts=false",
        "https://evil.example/pwn.tgz",
        "file:../pwn",
        "git+ssh://git@evil.example/pwn.git",
        "evil/pwn",
    ] {
        assert!(
            run.stderr.contains(&format!("not installing \"{bad}\"")),
            "{bad}: {}",
            run.stderr
        );
    }
    let record = std::fs::read_to_string(&record).unwrap();
    assert!(
        record.contains(&format!(
            "args: install --prefix {l} --ignore-scripts --no-audit --no-fund -- @scope/ok moment@^2.30\n"
        )),
        "{record}"
    );
    let pwd = std::fs::canonicalize(&libs).unwrap();
    assert!(
        record.contains(&format!("pwd: {}\n", pwd.display()))
            || record.contains(&format!("pwd: {l}\n")),
        "{record}"
    );
    assert!(record.contains("env: true\n"), "{record}");
    if let Some(npm) = &real_npm {
        assert!(record.contains("real: true"), "{record}");
        // The repository's .npmrc does turn scripts on where npm would read it.
        let there = std::process::Command::new(npm)
            .args(["config", "get", "ignore-scripts"])
            .current_dir(&repo)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&there.stdout).trim(), "false");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A schema file whose tools answer from their libraries (no request leaves: executeRequest
/// answers itself), and a library directory with the packages written for it.
fn calling_setup(tag: &str, libraries: &str) -> (std::path::PathBuf, String, String) {
    let root = temp_dir(tag);
    let schema = root.join("catalog/providers/lib/lib.mjs");
    write(
        &schema,
        &format!(
            "export const main = {{ namespace: 'libdemo', name: 'Lib demo', description: 'Answers from npm libraries', \
             version: '4.2.0', root: 'https://lib.example', requiredLibraries: [ {libraries} ],\n\
             tools: {{\n\
               pad: {{ method: 'GET', path: '/', description: 'Pads a word', parameters: [], tests: [ {{ _description: 'Pads x' }} ] }},\n\
               indicator: {{ method: 'GET', path: '/', description: 'Uses a native addon', parameters: [], tests: [ {{ _description: 'Calls talib' }} ] }}\n\
             }} }}\n\
             export const handlers = ( {{ sharedLists, libraries }} ) => ( {{\n\
               pad: {{ executeRequest: async ( {{ struct }} ) => {{ struct.data = {{ padded: libraries[ 'left-pad' ]( 'x', 4, '.' ) }}; return {{ struct }} }} }},\n\
               indicator: {{ executeRequest: async ( {{ struct }} ) => {{ struct.data = libraries.talib.execute( {{}} ); return {{ struct }} }} }}\n\
             }} )\n"
        ),
    );
    let libs = root.join("libs");
    write(
        &libs.join("node_modules/left-pad/package.json"),
        r#"{"name": "left-pad", "version": "1.3.0", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/left-pad/index.js"),
        "module.exports = function leftPad(s, n, c) { s = String(s); while (s.length < n) s = c + s; return s; };",
    );
    native_talib(&libs);
    (
        root.clone(),
        schema.display().to_string(),
        libs.display().to_string(),
    )
}

/// `flowmcp call TOOL --catalog SCHEMA --libs LIBS --profile PROFILE` in `root`.
fn call_tool(root: &Path, schema: &str, libs: &str, tool: &str, profile: &str) -> common::Run {
    flowmcp_env(
        &[
            "call",
            tool,
            "--catalog",
            schema,
            "--libs",
            libs,
            "--profile",
            profile,
        ],
        root,
        &[],
    )
}

#[test]
fn a_library_off_the_allowlist_is_sec020_under_spec_and_loads_under_compat() {
    let (root, schema, libs) = calling_setup("libs-call-allow", "'left-pad'");
    let call = |profile: &str| call_tool(&root, &schema, &libs, "libdemo/tool/pad", profile);
    let spec = call("spec");
    assert_ne!(spec.code, 0, "{}\n{}", spec.stdout, spec.stderr);
    assert!(
        format!("{}{}", spec.stdout, spec.stderr).contains("SEC020"),
        "{}\n{}",
        spec.stdout,
        spec.stderr
    );
    assert!(!spec.stdout.contains("...x"), "{}", spec.stdout);
    let compat = call("compat");
    assert_eq!(compat.code, 0, "{}\n{}", compat.stdout, compat.stderr);
    let out: serde_json::Value = serde_json::from_str(&compat.stdout).unwrap();
    assert_eq!(out["data"]["padded"], "...x", "{}", compat.stdout);
}

#[test]
fn a_native_addon_is_named_when_used_and_the_other_tools_still_run_under_compat() {
    let (root, schema, libs) = calling_setup("libs-call-native", "'left-pad', 'talib'");
    let call = |tool: &str, profile: &str| call_tool(&root, &schema, &libs, tool, profile);
    let pad = call("libdemo/tool/pad", "compat");
    assert_eq!(pad.code, 0, "{}\n{}", pad.stdout, pad.stderr);
    assert!(pad.stdout.contains("...x"), "{}", pad.stdout);
    let native = call("libdemo/tool/indicator", "compat");
    assert_ne!(native.code, 0, "{}", native.stdout);
    assert!(
        native
            .stdout
            .contains("SEC103 the library \\\"talib\\\" cannot be used")
            && native.stdout.contains("native addon"),
        "{}",
        native.stdout
    );
    // A library directory the user names must exist: a usage error naming it.
    let nowhere = root.join("nowhere").display().to_string();
    let missing = call_tool(&root, &schema, &nowhere, "libdemo/tool/pad", "compat");
    assert_eq!(missing.code, 2, "{}\n{}", missing.stdout, missing.stderr);
    assert!(
        missing
            .stderr
            .contains(&format!("the library directory {nowhere} does not exist")),
        "{}",
        missing.stderr
    );
    // Without any library directory (none chosen, no ~/.flowmcp/allowed-libraries), the
    // schema's tools name the missing piece.
    let home = root.display().to_string();
    let none = flowmcp_env(
        &[
            "call",
            "libdemo/tool/pad",
            "--catalog",
            &schema,
            "--profile",
            "compat",
        ],
        &root,
        &[("HOME", home.as_str()), ("FLOWMCP_LIBS", "")],
    );
    assert_ne!(none.code, 0);
    assert!(none.stdout.contains("SEC103"), "{}", none.stdout);
    assert!(none.stdout.contains("left-pad"), "{}", none.stdout);
    assert!(
        none.stdout.contains("no library directory is configured"),
        "{}",
        none.stdout
    );
    // Issue #29, scope 3 (D74): the envelope states the fact; the CLI adds how to choose a
    // library directory and install into it.
    assert!(!none.stdout.contains("flowmcp libs"), "{}", none.stdout);
    assert!(
        none.stderr.contains("--libs DIR") && none.stderr.contains("`flowmcp libs install`"),
        "{}",
        none.stderr
    );
}

#[test]
fn status_loads_each_installed_library_and_names_one_that_fails() {
    let root = temp_dir("libs-status-load");
    write(
        &root.join("catalog/providers/a/a.mjs"),
        "export const main = { namespace: 'a', requiredLibraries: [ 'good-lib', 'bad-lib' ], tools: {} }\n",
    );
    let libs = root.join("libs");
    write(
        &libs.join("node_modules/good-lib/package.json"),
        r#"{"name": "good-lib", "version": "1.0.0", "type": "module", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/good-lib/index.js"),
        "export const ok = true;",
    );
    write(
        &libs.join("node_modules/bad-lib/package.json"),
        r#"{"name": "bad-lib", "version": "0.1.0", "main": "index.js"}"#,
    );
    write(
        &libs.join("node_modules/bad-lib/index.js"),
        "module.exports = require('fs');",
    );
    let (c, l) = (
        root.join("catalog").display().to_string(),
        libs.display().to_string(),
    );
    let run = flowmcp_env(
        &["libs", "status", &c, "--libs", &l, "--profile", "compat"],
        &root,
        &[],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("installed        good-lib (1 schema): 1.0.0, loads in the sandbox"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("fails            bad-lib (1 schema): 0.1.0: ")
            && run.stdout.contains("fs is a Node built-in module"),
        "{}",
        run.stdout
    );
}
