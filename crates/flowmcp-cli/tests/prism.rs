//! The import's requests, checked against the API's own description (issue #41): each OpenAPI
//! document of `examples/openapi/` is imported, Stoplight Prism mocks it (`prism mock DOC
//! --errors`, which validates every request's parameters, body and security against the
//! document), and the generated files' tests run against the mock with a dummy value for every
//! server parameter. Every request must pass Prism's validation.
//!
//! Prism is the command `FLOWMCP_PRISM` names (`.ci/run` installs it from the npm registry with a
//! Node of its own). Without it the test says so and passes, unless `FLOWMCP_REQUIRE_PRISM=1`
//! (CI sets it once Prism is installed): then a missing Prism is a failure.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{flowmcp, flowmcp_env, repo_root, temp_dir};

/// The Prism command, or `None` (with a note) when the test cannot run here.
fn prism() -> Option<PathBuf> {
    match std::env::var_os("FLOWMCP_PRISM").filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                !std::env::var("FLOWMCP_REQUIRE_PRISM").is_ok_and(|v| v == "1"),
                "FLOWMCP_REQUIRE_PRISM=1, but FLOWMCP_PRISM names no Prism command"
            );
            eprintln!("prism: FLOWMCP_PRISM is not set; the Prism test is skipped");
            None
        }
    }
}

/// A Prism mock of one document, stopped when dropped; its log is read at the end.
struct Mock {
    child: Child,
    log: PathBuf,
    port: u16,
}

impl Mock {
    fn start(prism: &Path, doc: &Path, dir: &Path) -> Mock {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let log = dir.join("prism.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(prism)
            .args([
                "mock",
                "--errors",
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .arg(doc)
            .env("SCARF_ANALYTICS", "false")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut mock = Mock { child, log, port };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = mock.child.try_wait() {
                panic!(
                    "Prism ended ({status}) before listening: {}",
                    mock.log_text()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "Prism did not listen within 180 s: {}",
                mock.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        mock
    }

    fn log_text(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn i41_prism_accepts_every_request_of_the_imported_examples() {
    let Some(prism) = prism() else {
        return;
    };
    let root = repo_root();
    for doc in [
        "holidaykit-net.yaml",
        "skycast-io.json",
        "openshelf-org.json",
    ] {
        let doc = root.join("examples/openapi").join(doc);
        let dir = temp_dir(&format!(
            "prism-{}",
            doc.file_stem().unwrap().to_string_lossy()
        ));
        let out = dir.join("schemas");
        let import = flowmcp(
            &[
                "import",
                "openapi",
                doc.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &dir,
        );
        assert_eq!(import.code, 0, "{}: {}", doc.display(), import.stderr);
        // The namespace and the server parameters the generated tools need.
        let list = flowmcp(
            &["list", "--json", "--no-cache", out.to_str().unwrap()],
            &dir,
        );
        assert_eq!(list.code, 0, "{}", list.stderr);
        let listed: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
        let tools = listed["tools"].as_array().unwrap();
        assert!(!tools.is_empty(), "{}", list.stdout);
        let namespace = tools[0]["id"]
            .as_str()
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let params = crate::common::missing_server_params(&listed);
        let mock = Mock::start(&prism, &doc, &dir);
        let upstream = format!("{namespace}=http://127.0.0.1:{}", mock.port);
        // Base64 of `dummy:dummy`: a value HTTP basic accepts as well as any key scheme.
        let env: Vec<(&str, &str)> = params
            .iter()
            .map(|p| (p.as_str(), "ZHVtbXk6ZHVtbXk="))
            .collect();
        let test = flowmcp_env(
            &[
                "test",
                out.to_str().unwrap(),
                "--upstream",
                &upstream,
                "--delay-ms",
                "0",
                "--no-cache",
            ],
            &dir,
            &env,
        );
        let log = mock.log_text();
        drop(mock);
        let requests = log.matches("Request received").count();
        let rejected = log
            .matches("Request did not pass the validation rules")
            .count()
            + log.matches("NO_PATH_MATCHED_ERROR").count()
            + log.matches("NO_METHOD_MATCHED_ERROR").count();
        assert!(
            requests > 0,
            "{}: no request reached Prism: {}\n{}",
            doc.display(),
            test.stdout,
            test.stderr
        );
        assert_eq!(
            rejected,
            0,
            "{}: Prism rejected {rejected} of {requests} requests:\n{log}",
            doc.display()
        );
        assert!(
            !test.stdout.contains(" SKIP "),
            "{}: {}",
            doc.display(),
            test.stdout
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
