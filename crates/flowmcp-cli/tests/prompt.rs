//! `flowmcp prompt list` and `flowmcp prompt get` end to end, `flowmcp list`/`search` showing
//! prompts and skills, and `flowmcp validate` naming a broken reference.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use std::path::PathBuf;

use serde_json::Value;

use common::{copy_dir, flowmcp_env, repo_root, temp_dir};

fn flowmcp(args: &[&str]) -> common::Run {
    common::flowmcp(args, &repo_root())
}

#[test]
fn prompt_list_shows_ids_kinds_and_arguments() {
    let r = flowmcp(&["prompt", "list", "examples/catalog"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    assert!(lines[0].starts_with("holidaykit-net/prompt/about "));
    // A provider prompt's arguments are required (issue #28 item 7i).
    assert!(
        lines[1].contains("provider-prompt") && lines[1].ends_with("countryCode* year*"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("holidaykit-net/skill/plan-long-weekends")
            && lines[2].ends_with("year* countryCode* region"),
        "{}",
        lines[2]
    );
    assert_eq!(lines[3], "2 prompts and 1 skill");

    let r = flowmcp(&["prompt", "list", "--json", "examples/catalog"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["prompts"][2]["arguments"][0],
        serde_json::json!({"name": "year", "description": "Four-digit calendar year (number)", "required": true})
    );
}

#[test]
fn prompt_get_renders_and_refuses_bad_arguments() {
    let r = flowmcp(&[
        "prompt",
        "get",
        "holidaykit-net/prompt/bridge-days",
        "--catalog",
        "examples/catalog",
        "--arg",
        "countryCode=DE",
        "--arg",
        "year=2026",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .starts_with("--- message 1 (user) ---\nFind the bridge days of DE in 2026")
    );
    assert!(
        r.stdout.contains(
            "--- message 2 (user) ---\nContext from prompt `holidaykit-net/prompt/about`:"
        )
    );

    // The prefill cannot reach the upstream (nothing listens): still delivered, error inline.
    let r = flowmcp(&[
        "prompt",
        "get",
        "holidaykit-net/skill/plan-long-weekends",
        "--catalog",
        "examples/catalog",
        "--upstream",
        "holidaykit-net=http://127.0.0.1:9",
        "--input",
        r#"{"year": 2026, "countryCode": "DE"}"#,
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let text = v["messages"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("[ERROR: Prefill execution failed: E002"),
        "{text}"
    );

    let r = flowmcp(&[
        "prompt",
        "get",
        "holidaykit-net/skill/plan-long-weekends",
        "--catalog",
        "examples/catalog",
        "--arg",
        "year=2026",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("missing required argument `countryCode`"),
        "{}",
        r.stderr
    );

    let r = flowmcp(&[
        "prompt",
        "get",
        "holidaykit-net/skill/plan-long-weekend",
        "--catalog",
        "examples/catalog",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("did you mean holidaykit-net/skill/plan-long-weekends?"),
        "{}",
        r.stderr
    );
}

/// Issue #28 item 7i: `prompt get` without the prompt's arguments is a usage error (exit 2) that
/// names them, not "Find the bridge days of  in :".
#[test]
fn i28_7i_prompt_get_without_its_arguments_names_them() {
    let r = flowmcp(&[
        "prompt",
        "get",
        "holidaykit-net/prompt/bridge-days",
        "--catalog",
        "examples/catalog",
    ]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("missing required arguments `countryCode`")
            && r.stderr.contains("`year`"),
        "{}",
        r.stderr
    );
}

#[test]
fn list_and_search_include_prompts_and_skills() {
    let r = flowmcp(&["list", "examples/catalog"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("\nholidaykit-net/skill/plan-long-weekends"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("2 prompts and 1 skill\n"),
        "{}",
        r.stdout
    );
    let r = flowmcp(&["list", "--json", "examples/catalog"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["prompts"].as_array().unwrap().len(), 3);

    let r = flowmcp(&[
        "search",
        "--catalog",
        "examples/catalog",
        "long",
        "weekends",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("prompts and skills:\n"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("holidaykit-net/skill/plan-long-weekends  (skill)")
    );
}

#[test]
fn validate_names_a_broken_skill_reference() {
    let base: PathBuf = temp_dir("prompt-validate");
    let cat = base.join("catalog");
    copy_dir(&repo_root().join("examples/catalog"), &cat);
    let skill = cat.join("providers/holidaykit-net/skills/plan-long-weekends.mjs");
    let text = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(
        &skill,
        text.replace(
            "{{tool:checkWorkingDay:parameters}}",
            "{{tool:checkHoliday}}",
        ),
    )
    .unwrap();
    let r = common::flowmcp(&["validate", cat.to_str().unwrap()], &base);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("PH002 error")
            && r.stdout.contains("plan-long-weekends.mjs")
            && r.stdout.contains(
                "`{{tool:checkHoliday}}`: no tool holidaykit-net/tool/checkHoliday in the catalog"
            ),
        "{}",
        r.stdout
    );
    let _ = std::fs::remove_dir_all(base);
}

/// Issue #28, item 8: the command `{{tool:…:call}}` renders is one the CLI accepts — run exactly
/// as the rendered prompt shows it, it calls the tool (and fails only for want of a network).
#[test]
fn i28_8_the_rendered_call_command_is_accepted_by_the_cli() {
    let home = temp_dir("prompt-call-line");
    let h = home.display().to_string();
    let run = flowmcp_env(
        &[
            "prompt",
            "get",
            "holidaykit-net/prompt/bridge-days",
            "--catalog",
            "examples/catalog",
            "--arg",
            "countryCode=DE",
            "--arg",
            "year=2026",
        ],
        &repo_root(),
        &[("HOME", &h)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let command = run
        .stdout
        .split('`')
        .find(|part| part.starts_with("flowmcp call "))
        .unwrap_or_else(|| panic!("a rendered call command: {}", run.stdout))
        .to_string();
    let server = common::support::TestServer::start(1, |_| {
        common::support::reply(200, Some("application/json"), r#"{"workingDay": false}"#)
    });
    let shell = format!(
        "{command} --catalog examples/catalog --upstream holidaykit-net={}",
        server.base
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &shell])
        .current_dir(repo_root())
        .env("PATH", common::path_with_flowmcp())
        .env("HOME", &h)
        .output()
        .unwrap();
    let _ = server.finish();
    // 0 or 1 is a call's answer; 2 would be a usage error.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "`{shell}` exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&home);
}
