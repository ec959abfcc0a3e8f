//! `flowmcp validate --id` end to end: the three examples of chapter 16 (DIGEST §4.4) in our
//! `CODE severity: message` layout, JSON output and exit codes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn flowmcp(args: &[&str]) -> Run {
    let cwd = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_flowmcp"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flowmcp");
    // Drain both pipes on their own threads so a large output cannot fill a pipe and stall the child.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut b);
        b
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("flowmcp {args:?} did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned(),
    }
}

#[test]
fn valid_id() {
    let r = flowmcp(&["validate", "--id", "coingecko/tool/simplePrice"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "0 errors, 0 warnings\nID is valid\n");
    assert_eq!(r.stderr, "");
}

#[test]
fn uppercase_namespace_is_id002() {
    let r = flowmcp(&["validate", "--id", "COINGECKO/tool/simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID002 error: Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$\n\
         1 error, 0 warnings\n\
         ID is invalid\n"
    );
}

#[test]
fn bare_name_is_id001() {
    let r = flowmcp(&["validate", "--id", "simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID001 error: ID MUST contain at least one \"/\" separator\n\
         1 error, 0 warnings\n\
         ID is invalid\n"
    );
}

#[test]
fn schema_file_id_is_valid_and_short_form_is_not() {
    let r = flowmcp(&["validate", "--id", "etherscan-io/contracts"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "0 errors, 0 warnings\nID is valid\n");

    let r = flowmcp(&["validate", "--id", "moralis/getTokenBalance"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("ID005 error: "), "{}", r.stdout);
    assert!(r.stdout.ends_with("ID is invalid\n"), "{}", r.stdout);

    let r = flowmcp(&["validate", "--id", "tool/simplePrice"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("ID006 error: "), "{}", r.stdout);
}

#[test]
fn json_output_is_the_file_report() {
    let r = flowmcp(&[
        "validate",
        "--id",
        "COINGECKO/tool/simplePrice",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["file"], "COINGECKO/tool/simplePrice");
    assert_eq!(v["kind"], "id");
    assert_eq!(v["verdict"], "invalid");
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 0);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "ID002");
    assert_eq!(d["severity"], "error");
    assert_eq!(
        d["message"],
        "Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$"
    );
    assert!(d.get("file").is_none() && d.get("pointer").is_none(), "{d}");

    let r = flowmcp(&[
        "validate",
        "--id",
        "coingecko/tool/simplePrice",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["verdict"], "valid");
    assert_eq!(v["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn rule_overrides_apply_to_ids() {
    let r = flowmcp(&[
        "validate",
        "--id",
        "COINGECKO/tool/simplePrice",
        "--rule",
        "ID002=warning",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "ID002 warning: Namespace \"COINGECKO\" must match ^[a-z][a-z0-9-]*$\n\
         0 errors, 1 warning\n\
         ID is valid\n"
    );
}

#[test]
fn id_and_paths_conflict() {
    let r = flowmcp(&["validate", "--id", "coingecko/tool/simplePrice", "src"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
}
