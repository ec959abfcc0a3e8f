//! `flowmcp agent verify` and `flowmcp agent rehash` on copies of the example catalog.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

mod common;
use common::{copy_dir, flowmcp, repo_root, temp_dir};

#[test]
fn verify_and_rehash_round_trip_and_a_changed_tool_is_named() {
    // The example agent's stored hashes are current.
    let r = flowmcp(
        &[
            "agent",
            "verify",
            "holiday-planner",
            "--catalog",
            "examples/catalog",
        ],
        &repo_root(),
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "Agent \"holiday-planner\": 3 tools, all hashes valid\n"
    );

    let base = temp_dir("agent-hashes");
    let cat = base.join("catalog");
    copy_dir(&repo_root().join("examples/catalog"), &cat);
    let c = cat.to_str().unwrap();
    let manifest = cat.join("agents/holiday-planner/agent.mjs");
    let original = std::fs::read_to_string(&manifest).unwrap();

    // A tool's path changes: verify warns, names it, exits 1, and writes nothing.
    let schema = cat.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(
        &schema,
        text.replace(
            "path: '/check/{{countryCode}}/{{date}}'",
            "path: '/v2/check/{{countryCode}}/{{date}}'",
        ),
    )
    .unwrap();
    let r = flowmcp(
        &["agent", "verify", "holiday-planner", "--catalog", c],
        &base,
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .starts_with("Agent \"holiday-planner\": HASH MISMATCH"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\n  - holidaykit-net/tool/checkWorkingDay: expected sha256:"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("getPublicHolidays"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), original);

    // Rehash writes the new hash (only that value changes) and the lock file; verify passes.
    let r = flowmcp(
        &["agent", "rehash", "holiday-planner", "--catalog", c],
        &base,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let after = std::fs::read_to_string(&manifest).unwrap();
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.trim_start().starts_with("hash: 'sha256:"));
    assert_eq!(original.lines().count(), after.lines().count());
    let r = flowmcp(
        &["agent", "verify", "holiday-planner", "--catalog", c],
        &base,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    // Without a hash, rehash inserts the key.
    let without: String = after
        .lines()
        .filter(|l| !l.trim_start().starts_with("hash:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&manifest, &without).unwrap();
    let r = flowmcp(
        &["agent", "verify", "holiday-planner", "--catalog", c],
        &base,
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("NO HASH"), "{}", r.stdout);
    let r = flowmcp(
        &["agent", "rehash", "holiday-planner", "--catalog", c],
        &base,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), after);

    let r = flowmcp(&["agent", "verify", "nobody", "--catalog", c], &base);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no agent \"nobody\" in the catalog (it has holiday-planner)"),
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(base);
}
