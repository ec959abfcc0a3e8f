//! `flowmcp resource init` and resource calls from the command line: a file-based database is
//! created only when asked, from its schema SQL, never replaced; calls then read and write it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;

use common::{copy_dir, flowmcp_env, repo_root, temp_dir};

const SCHEMA: &str = r#"
export const main = {
    namespace: 'notes', name: 'Notes', description: 'Agent notes', version: '4.2.0', tools: {},
    resources: {
        memory: {
            source: 'sqlite', mode: 'file-based', origin: 'project', name: 'notes-memory.db',
            description: 'Notes the agent keeps',
            queries: {
                recent: {
                    sql: 'SELECT id, text FROM notes ORDER BY id DESC LIMIT ?',
                    description: 'The latest notes',
                    parameters: [ { position: { key: 'count', value: '{{USER_PARAM}}' }, z: { primitive: 'number()', options: [ 'min(1)', 'default(5)' ] } } ],
                    output: { mimeType: 'application/json', schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'number' }, text: { type: 'string' } } } } },
                    tests: [ { _description: 'a', count: 1 }, { _description: 'b', count: 2 }, { _description: 'c', count: 3 } ]
                }
            }
        }
    }
}
"#;

#[test]
fn resource_init_creates_a_file_based_database_once_and_only_when_asked() {
    let dir = temp_dir("resource-init");
    std::fs::create_dir_all(dir.join("cat/resources")).unwrap();
    std::fs::write(dir.join("cat/notes.mjs"), SCHEMA).unwrap();
    std::fs::write(
        dir.join("cat/resources/notes-memory.sql"),
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);",
    )
    .unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = [("HOME", home.to_str().unwrap())];
    // Issue #28: no `.flowmcp/` above the catalog nor the current directory, so the project is
    // the catalog's own directory.
    let db = dir.join("cat/.flowmcp/resources/notes-memory.db");

    // Before it exists, a call says how to create it (issue 29, item 4: the envelope names the
    // resource; the CLI adds the command on stderr).
    let r = flowmcp_env(&["call", "recent_notes", "--catalog", "cat"], &dir, &env);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("RES020"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("notes/resource/memory is not created yet"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("create it with `flowmcp resource init notes/resource/memory`"),
        "{}",
        r.stderr
    );

    // Standard input is not a terminal and there is no --yes: nothing is created.
    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "notes/resource/memory",
            "--catalog",
            "cat",
        ],
        &dir,
        &env,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--yes"), "{}", r.stderr);
    assert!(!db.exists());

    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "notes/resource/memory",
            "--catalog",
            "cat",
            "--yes",
        ],
        &dir,
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(1 table)"), "{}", r.stdout);
    assert!(db.is_file());

    let r = flowmcp_env(
        &[
            "call",
            "runSql_notes",
            "--catalog",
            "cat",
            "--arg",
            "sql=INSERT INTO notes (text) VALUES ('hello')",
        ],
        &dir,
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        dir.join("cat/.flowmcp/resources/notes-memory.db.bak")
            .is_file()
    );
    assert!(!dir.join(".flowmcp").exists());
    let r = flowmcp_env(
        &["call", "notes/resource/memory.recent", "--catalog", "cat"],
        &dir,
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("\"hello\""), "{}", r.stdout);

    // Asked again: the database is kept as it is.
    let before = std::fs::read(&db).unwrap();
    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "notes/resource/memory",
            "--catalog",
            "cat",
            "--yes",
        ],
        &dir,
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("already exists"), "{}", r.stdout);
    assert_eq!(std::fs::read(&db).unwrap(), before);

    // `list` shows each query by its own ID, under its resource's.
    let r = flowmcp_env(&["list", "--catalog", "cat"], &dir, &env);
    assert!(
        r.stdout.contains("notes/resource/memory-recent"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("0 tools and 3 resource entries in 1 schemas"),
        "{}",
        r.stdout
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The entries of the file system's root.
fn root_entries() -> Vec<std::ffi::OsString> {
    let mut names: Vec<_> = std::fs::read_dir("/")
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
}

/// Issue #28, items 3/4: a desktop client starts the server with the current directory `/` and
/// the catalog by absolute path. `resource init` and a call of the project resource's
/// `describeTables` then work as they do from a shell in the repository, and write nothing under
/// `/`: the project is found from the catalog (the nearest `.flowmcp/` above it, else the
/// current directory's, else the catalog's own directory), not from the current directory.
#[test]
fn i28_3_with_cwd_root_and_an_absolute_catalog_resources_land_in_the_catalogs_project() {
    if std::path::Path::new("/.flowmcp").exists() {
        // Then `/` is a project, and everything below it belongs to it: nothing to test here.
        eprintln!("skipped: /.flowmcp exists on this machine");
        return;
    }
    let dir = temp_dir("i28-3-cwd-root");
    let catalog = dir.join("catalog");
    copy_dir(&repo_root().join("examples/catalog"), &catalog);
    let _ = std::fs::remove_dir_all(catalog.join(".flowmcp"));
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = [("HOME", home.to_str().unwrap())];
    let cat = catalog.to_str().unwrap();
    let before = root_entries();

    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "fieldnotes-app/resource/notes",
            "--yes",
            "--catalog",
            cat,
        ],
        std::path::Path::new("/"),
        &env,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let db = catalog.join(".flowmcp/resources/fieldnotes-app-notes.db");
    assert!(db.is_file(), "{}{}", r.stdout, r.stderr);
    let r = flowmcp_env(
        &[
            "call",
            "fieldnotes-app/resource/notes.describeTables",
            "--catalog",
            cat,
        ],
        std::path::Path::new("/"),
        &env,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("\"notes\""), "{}", r.stdout);
    assert!(!std::path::Path::new("/.flowmcp").exists());
    assert_eq!(root_entries(), before, "something was written under /");

    // With a project above the catalog, the database lands in that project's .flowmcp/.
    std::fs::remove_dir_all(catalog.join(".flowmcp")).unwrap();
    std::fs::create_dir_all(dir.join(".flowmcp")).unwrap();
    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "fieldnotes-app/resource/notes",
            "--yes",
            "--catalog",
            cat,
        ],
        std::path::Path::new("/"),
        &env,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        dir.join(".flowmcp/resources/fieldnotes-app-notes.db")
            .is_file()
    );
    assert_eq!(root_entries(), before, "something was written under /");
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 29, item 2: the validator reads no environment and opens no database itself, so
/// `flowmcp validate` hands it `HOME`, `FLOWMCP_RESOURCES` and the file checks; the findings are
/// the ones the validator gave when it read them itself (RES033 where the variable led, RES020
/// for a missing inline database, RES035 when nothing resolves the variable).
#[test]
fn i29_2_flowmcp_validate_resolves_the_path_variable_and_checks_databases() {
    let dir = temp_dir("i29-validate-files");
    let gtfs = "export const main = {
    namespace: 'transit', name: 'Transit', description: 'Transit', version: '4.2.0', tools: {},
    resources: {
        timetable: { source: 'sqlite-gtfs', mode: 'file-based', path: '${FLOWMCP_RESOURCES}/i29-transit.db',
            addon: 'gtfs-sqlite-toolkit', description: 'Transit timetable' }
    }
}
";
    std::fs::write(dir.join("transit.mjs"), gtfs).unwrap();
    let home = dir.join("home");
    let data = dir.join("data");
    let home_s = home.to_str().unwrap();
    let data_s = data.to_str().unwrap();

    let r = flowmcp_env(
        &["validate", "transit.mjs"],
        &dir,
        &[("HOME", home_s), ("FLOWMCP_RESOURCES", "")],
    );
    assert!(r.stdout.contains("RES033"), "{}", r.stdout);
    assert!(
        r.stdout.contains("home/.flowmcp/resources/i29-transit.db"),
        "{}",
        r.stdout
    );
    let r = flowmcp_env(
        &["validate", "transit.mjs"],
        &dir,
        &[("HOME", home_s), ("FLOWMCP_RESOURCES", data_s)],
    );
    assert!(r.stdout.contains("RES033"), "{}", r.stdout);
    assert!(r.stdout.contains("data/i29-transit.db"), "{}", r.stdout);
    let r = flowmcp_env(
        &["validate", "transit.mjs"],
        &dir,
        &[("HOME", ""), ("FLOWMCP_RESOURCES", "")],
    );
    assert!(r.stdout.contains("RES035"), "{}", r.stdout);
    assert!(!r.stdout.contains("RES033"), "{}", r.stdout);

    let inline = SCHEMA
        .replace(
            "mode: 'file-based', origin: 'project'",
            "mode: 'in-memory', origin: 'inline'",
        )
        .replace("notes-memory.db", "i29-inline.db");
    std::fs::write(dir.join("inline.mjs"), inline).unwrap();
    let r = flowmcp_env(&["validate", "inline.mjs"], &dir, &[("HOME", home_s)]);
    assert!(r.stdout.contains("RES020"), "{}", r.stdout);
}

/// Issue #39, finding 1 through the binary: a repository whose `.flowmcp` is a symbolic link
/// (here to another program's folder of the user's) has it refused and named. Before the fix
/// `resource init` created the database through the link, calls read the user's SQLite files
/// through it, and the linked folder's `config.json` was read as the project's.
#[test]
fn i39_1_a_linked_project_folder_is_named_and_never_followed() {
    let dir = temp_dir("i39-1-linked-project");
    let catalog = dir.join("repo/catalog");
    copy_dir(&repo_root().join("examples/catalog"), &catalog);
    let _ = std::fs::remove_dir_all(catalog.join(".flowmcp"));
    let home = dir.join("home");
    let app = home.join(".config/browser");
    std::fs::create_dir_all(app.join("resources")).unwrap();
    std::fs::write(
        app.join("config.json"),
        r#"{"profile": "nonsense-profile"}"#,
    )
    .unwrap();
    std::fs::write(app.join("resources/keep.txt"), "the user's own file\n").unwrap();
    std::os::unix::fs::symlink(&app, dir.join("repo/.flowmcp")).unwrap();
    std::os::unix::fs::symlink(&app, catalog.join(".flowmcp")).unwrap();
    let env = [("HOME", home.to_str().unwrap())];
    let cat = catalog.to_str().unwrap();

    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "fieldnotes-app/resource/notes",
            "--yes",
            "--catalog",
            cat,
        ],
        &dir.join("repo"),
        &env,
    );
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("not using") && r.stderr.contains(".flowmcp"),
        "the link is named: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains("symbolic link"),
        "the refusal says why: {}{}",
        r.stdout,
        r.stderr
    );
    assert!(
        !r.stderr.contains("nonsense-profile"),
        "the linked folder's config.json was read: {}",
        r.stderr
    );
    let mut entries: Vec<_> = std::fs::read_dir(app.join("resources"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    entries.sort();
    assert_eq!(entries, vec![std::ffi::OsString::from("keep.txt")]);

    // The same catalog with a real project folder works.
    std::fs::remove_file(catalog.join(".flowmcp")).unwrap();
    std::fs::remove_file(dir.join("repo/.flowmcp")).unwrap();
    std::fs::create_dir_all(dir.join("repo/.flowmcp")).unwrap();
    let r = flowmcp_env(
        &[
            "resource",
            "init",
            "fieldnotes-app/resource/notes",
            "--yes",
            "--catalog",
            cat,
        ],
        &dir.join("repo"),
        &env,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("not using"), "{}", r.stderr);
    assert!(
        dir.join("repo/.flowmcp/resources/fieldnotes-app-notes.db")
            .is_file()
    );
}
