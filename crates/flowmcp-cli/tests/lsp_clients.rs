//! `flowmcp lsp` driven by real LSP clients (issue #42): `pytest-lsp` (a Python LSP client, from
//! PyPI) runs `tests/lsp_clients/test_flowmcp_lsp.py` through initialize, open, change, hover,
//! completion, definition, code action and shutdown on a copy of the example catalog; Neovim
//! (headless, its built-in LSP client) opens a schema with an error and writes the diagnostics it
//! received (`tests/lsp_clients/nvim_diagnostics.lua`).
//!
//! The clients are the commands `FLOWMCP_PYTEST_LSP` (a Python with pytest-lsp installed) and
//! `FLOWMCP_NVIM` (an `nvim`) name; `.ci/run` installs them (a virtual environment from PyPI,
//! Debian's neovim). Without one, its test says so and passes, unless `FLOWMCP_REQUIRE_LSP_CLIENTS=1`
//! (CI sets it once both are installed): then a missing client is a failure.

use std::path::PathBuf;
use std::process::Command;

use crate::common::{binary, copy_dir, repo_root, temp_dir};

/// The client command `var` names, or `None` (with a note) when the test cannot run here.
fn client(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var).filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                !std::env::var("FLOWMCP_REQUIRE_LSP_CLIENTS").is_ok_and(|v| v == "1"),
                "FLOWMCP_REQUIRE_LSP_CLIENTS=1, but {var} names no client"
            );
            eprintln!("lsp_clients: {var} is not set; this client's test is skipped");
            None
        }
    }
}

/// A scratch copy of the example catalog (the clients edit only in memory; nothing is written).
fn catalog_copy(name: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir(name);
    let catalog = dir.join("catalog");
    copy_dir(&repo_root().join("examples/catalog"), &catalog);
    (dir, catalog)
}

fn lsp_tests() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lsp_clients")
}

#[test]
fn i42_pytest_lsp_drives_the_server_through_every_feature() {
    let Some(python) = client("FLOWMCP_PYTEST_LSP") else {
        return;
    };
    let (dir, catalog) = catalog_copy("lsp-pytest");
    let out = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args([
            "-o",
            "asyncio_default_fixture_loop_scope=function",
            "--rootdir",
        ])
        .arg(&dir)
        .arg(lsp_tests().join("test_flowmcp_lsp.py"))
        .current_dir(&dir)
        .env("FLOWMCP_BIN", binary())
        .env("FLOWMCP_CATALOG", &catalog)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "pytest-lsp failed:\n{stdout}\n{stderr}"
    );
    // Every test of the file ran and passed (none skipped or deselected).
    assert!(
        stdout.contains(" passed") && !stdout.contains("skipped") && !stdout.contains("failed"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn i42_neovim_receives_the_diagnostics_of_a_schema_with_an_error() {
    let Some(nvim) = client("FLOWMCP_NVIM") else {
        return;
    };
    let (dir, catalog) = catalog_copy("lsp-nvim");
    let schema = catalog.join("providers/holidaykit-net/public-holidays.mjs");
    let text = std::fs::read_to_string(&schema).unwrap();
    // A method the specification does not have: VAL032 where the first `method: 'PATCH'` is.
    let broken = text.replacen("method: 'GET'", "method: 'PATCH'", 2);
    assert_ne!(broken, text);
    std::fs::write(&schema, &broken).unwrap();
    let line = broken
        .lines()
        .position(|l| l.contains("method: 'PATCH'"))
        .unwrap()
        + 1;
    let report = dir.join("diagnostics.txt");
    let out = Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            lsp_tests().join("nvim_diagnostics.lua").display()
        ))
        .current_dir(&catalog)
        .env("FLOWMCP_BIN", binary())
        .env("FLOWMCP_CATALOG", &catalog)
        .env("FLOWMCP_LSP_FILE", &schema)
        .env("FLOWMCP_LSP_OUT", &report)
        .output()
        .unwrap();
    let got = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(
        out.status.success(),
        "nvim: {}\n{}\n{got}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        got.lines()
            .any(|l| l.starts_with(&format!("VAL032 {line}:"))),
        "no VAL032 on line {line} in what Neovim received:\n{got}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
