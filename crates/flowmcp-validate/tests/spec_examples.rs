//! The specification's own validation-output examples, reproduced from equivalent inputs.
//!
//! The chapters print findings in several layouts; this project uses one for all of them: every
//! line is `CODE severity file[:line:col] [json.path]: message`, then the footer
//! `N errors, M warnings` and the verdict. Where the project's reading of the specification changes
//! a code, a severity or the layout of an example, the test says which and why.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::Path;

use flowmcp_validate::render::{HumanStyle, human};
use flowmcp_validate::{Options, Profile, lists, validate_str};

fn render(name: &str, source: &str, profile: Profile) -> String {
    let opts = Options::new(profile);
    let scope = lists::scope_near(Path::new(name), name, &opts.settings, &opts.limits);
    let report = validate_str(source, name, &scope, &opts);
    human(&[report], HumanStyle::default())
}

/// A spec-valid tool definition named `name` (output, meta, three tests), or one without output and
/// tests when `bare`.
fn tool(name: &str, bare: bool) -> String {
    let output = if bare {
        String::new()
    } else {
        "            output: { mimeType: 'application/json', schema: { type: 'object', properties: { abi: { type: 'string' } } } },\n".to_string()
    };
    let tests = if bare {
        String::new()
    } else {
        "            tests: [ { _description: 'first' }, { _description: 'second' }, { _description: 'third' } ],\n"
            .to_string()
    };
    format!(
        "        {name}: {{\n            method: 'GET',\n            path: '/api',\n            description: 'Reads {name}',\n            parameters: [],\n{output}            meta: {{ isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'contract abi', aliases: [], alwaysLoad: false }},\n{tests}        }}"
    )
}

fn contracts_schema(version: &str, tools: &[String]) -> String {
    format!(
        "export const main = {{\n    namespace: 'etherscan',\n    name: 'Contracts',\n    description: 'Smart contract tools',\n    version: '{version}',\n    root: 'https://api.etherscan.io',\n    tools: {{\n{}\n    }}\n}}\n",
        tools.join(",\n")
    )
}

/// Chapter 09, "Validation Output Format", first example. Differences:
/// - layout (the one layout above): the file and the value's position follow the code and
///   severity, and paths are full JSON paths (`main.tools`, `main.tools.getContractAbi`);
/// - TST001 for a tool with no tests at all is an error in both profiles (the code's `none`
///   variant: the chapters disagree on TST001's severity, and a tool without a single test is the
///   clear case), where the example prints a warning — hence `3 errors, 1 warning`.
#[test]
fn chapter_09_schema_example() {
    let mut tools = vec![tool("getContractAbi", true)];
    for i in 1..10 {
        tools.push(tool(&format!("getTool{i}"), false));
    }
    let out = render(
        "etherscan/contracts.mjs",
        &contracts_schema("1.2.0", &tools),
        Profile::Spec,
    );
    assert_eq!(
        out,
        "VAL014 error etherscan/contracts.mjs:5:14 main.version: Must match ^4\\.\\d+\\.\\d+$ (found \"1.2.0\")\n\
         VAL031 error etherscan/contracts.mjs:7:12 main.tools: Maximum 8 tools exceeded (found 10)\n\
         VAL036 warning etherscan/contracts.mjs:8:25 main.tools.getContractAbi: getContractAbi: output schema is recommended\n\
         TST001 error etherscan/contracts.mjs:8:25 main.tools.getContractAbi.tests: getContractAbi: No tests found\n\
         3 errors, 1 warning\n\
         Schema cannot be loaded (has errors)\n"
    );
}

/// The same input under `compat`: VAL014 and VAL031 stay errors, TST001 for no tests stays an error.
#[test]
fn chapter_09_schema_example_compat() {
    let mut tools = vec![tool("getContractAbi", true)];
    for i in 1..10 {
        tools.push(tool(&format!("getTool{i}"), false));
    }
    let out = render(
        "etherscan/contracts.mjs",
        &contracts_schema("1.2.0", &tools),
        Profile::Compat,
    );
    assert!(
        out.ends_with("3 errors, 1 warning\nSchema cannot be loaded (has errors)\n"),
        "{out}"
    );
}

/// Chapter 09, "When all rules pass".
#[test]
fn chapter_09_all_rules_pass() {
    let out = render(
        "etherscan/contracts.mjs",
        &contracts_schema("4.2.0", &[tool("getContractAbi", false)]),
        Profile::Spec,
    );
    assert_eq!(out, "0 errors, 0 warnings\nSchema is valid\n");
}

/// Chapter 09, "With security flag", first line; chapter 05 "Static Security Scan" example
/// (`SEC001 etherscan/SmartContractExplorer.mjs: Forbidden pattern "import " found at line 3`).
/// Both become the one layout, and the pattern is reported as `import` (`import(`, `import ` and
/// `import{` are all SEC001, as the security chapter's table numbers them). No `--security` flag
/// exists: the scan always runs.
#[test]
fn security_scan_line() {
    let source = format!(
        "// Smart contract explorer\n\n{}",
        "import { ethers } from 'ethers'\n"
    ) + &contracts_schema("4.2.0", &[tool("getContractAbi", false)]);
    let out = render(
        "etherscan/SmartContractExplorer.mjs",
        &source,
        Profile::Spec,
    );
    assert_eq!(
        out,
        "SEC001 error etherscan/SmartContractExplorer.mjs:3:1: Forbidden pattern \"import\" found at line 3\n\
         1 error, 0 warnings\n\
         Schema cannot be loaded (has errors)\n"
    );
}

/// Chapter 05's second example prints SEC002 for `process.`; the chapter's own table of patterns
/// wins over its example, so `process.` is SEC006.
#[test]
fn process_access_is_sec006() {
    let source = "const key = process.env.KEY\n".to_string()
        + &contracts_schema("4.2.0", &[tool("getContractAbi", false)]);
    let out = render(
        "etherscan/SmartContractExplorer.mjs",
        &source,
        Profile::Spec,
    );
    assert!(out.starts_with("SEC006 error etherscan/SmartContractExplorer.mjs:1:13: Forbidden pattern \"process.\" found at line 1\n"), "{out}");
}

/// Chapter 09, "With security flag", second line: a function inside `main` is SEC017 at its path.
/// `main.handlers` is also not a field of `main` (VAL003), reported with it.
#[test]
fn non_serializable_value_in_main() {
    let source = contracts_schema("4.2.0", &[tool("getContractAbi", false)]).replace(
        "    root: 'https://api.etherscan.io',\n",
        "    root: 'https://api.etherscan.io',\n    handlers: { preRequest: ( { struct, payload } ) => ( { struct, payload } ) },\n",
    );
    let out = render("etherscan/contracts.mjs", &source, Profile::Spec);
    assert_eq!(
        out,
        "VAL003 error etherscan/contracts.mjs:7:15 main.handlers: \"handlers\" is not a valid field of main\n    \
         help: handlers are a separate export: `export const handlers = ( { sharedLists, libraries } ) => ( { … } )`\n\
         SEC017 error etherscan/contracts.mjs:7:29 main.handlers.preRequest: Non-serializable value (function)\n\
         2 errors, 0 warnings\n\
         Schema cannot be loaded (has errors)\n"
    );
}

/// The footer's plural forms (chapter 16 and chapter 03 examples print `1 error`).
#[test]
fn footer_singular_and_plural() {
    let out = render(
        "x.mjs",
        &contracts_schema("1.2.0", &[tool("getContractAbi", false)]),
        Profile::Spec,
    );
    assert!(
        out.ends_with("1 error, 0 warnings\nSchema cannot be loaded (has errors)\n"),
        "{out}"
    );
}
