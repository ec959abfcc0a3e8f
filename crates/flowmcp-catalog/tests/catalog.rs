//! Opening catalogs: the manifest decides what is part of a catalog, every file is validated
//! before its tools are callable, links never lead outside, and secrets stay out of problems.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;
use crate::support;

use std::path::PathBuf;

use flowmcp_catalog::{Catalog, runtime::ToolNames};
use flowmcp_runtime::descriptor::reference_tool_name;
use flowmcp_spec::{Profile, Severity};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use support::{Scratch, Seen, TestServer, copy_dir, reply};

use common::{examples, local_options as options};

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn the_example_catalog_opens_whole_and_valid() {
    let c = Catalog::open(&examples(), &options(Profile::Spec, &[])).expect("opens");
    assert!(c.has_manifest());
    assert!(!c.has_errors(), "{:?}", c.reports());
    // The manifest's report first, then every file of the catalog (lists, prompt content files,
    // skills, the selection and the agent included).
    assert!(c.reports()[0].file().ends_with("registry.json"));
    assert_eq!(c.reports().len(), 1 + 5 + 3 + 3 + 1 + 1);
    // 11 tools, and 10 resource entries: the queries (two, and three with fieldnotes' getSchema),
    // runSql and describeTables of each SQLite resource, and the markdown guide.
    assert_eq!(c.list().len(), 21);
    assert_eq!(
        c.list()
            .iter()
            .filter(|t| t.descriptor.kind == flowmcp_catalog::runtime::Kind::Tool)
            .count(),
        11
    );
    assert!(
        c.toolset().problems().is_empty(),
        "{:?}",
        c.toolset().problems()
    );
    let hits = c.search("holidays");
    assert!(
        hits.iter()
            .any(|(_, t)| t.descriptor.wire_name == "getPublicHolidays_holidaykit-net")
    );
    // List-interpolated enums got their values from the catalog's lists.
    let t = c
        .find("holidaykit-net/tool/getPublicHolidays")
        .expect("tool");
    assert!(
        t.descriptor.warnings.is_empty(),
        "{:?}",
        t.descriptor.warnings
    );
}

#[test]
fn reference_tool_names_find_the_tools() {
    let mut opts = options(Profile::Spec, &[]);
    opts.tool_names = ToolNames::Reference;
    let c = Catalog::open(&examples(), &opts).expect("opens");
    assert_eq!(c.list().len(), 21);
    let t = c
        .find("get_public_holidays_holidaykit_net")
        .expect("by reference name");
    assert_eq!(
        t.descriptor.id.to_string(),
        "holidaykit-net/tool/getPublicHolidays"
    );
    assert_eq!(t.descriptor.wire_name, "get_public_holidays_holidaykit_net");
    // Primitive-IDs are unchanged; the spec's name is not a wire name any more.
    assert!(c.find("holidaykit-net/tool/getPublicHolidays").is_some());
    assert!(c.find("getPublicHolidays_holidaykit-net").is_none());
    for t in c.list() {
        let d = &t.descriptor;
        assert_eq!(d.wire_name, reference_tool_name(&d.tool, &d.namespace));
        assert!(std::ptr::eq(c.find(&d.wire_name).expect("found"), t));
    }
    let hits = c.search("holidays");
    assert!(
        hits.iter()
            .any(|(_, t)| t.descriptor.wire_name == "get_public_holidays_holidaykit_net")
    );

    // A file with errors: its tools are known by the reference's name as well.
    let dir = Scratch::new("cat-invalid-reference");
    dir.write(
        "bad.mjs",
        "export const main = { namespace: 'bad-ns', name: 'Bad', description: 'd', version: '1.2.0',
         root: 'https://api.example.com',
         tools: { getThing: { method: 'GET', path: '/t', description: 'd', parameters: [] } } }",
    );
    let c = Catalog::open(&dir.0, &opts).expect("opens");
    assert!(c.list().is_empty());
    for name in [
        "get_thing_bad_ns",
        "getThing_bad-ns",
        "bad-ns/tool/getThing",
    ] {
        assert_eq!(c.rejected(name).expect(name).tool, "getThing");
    }
}

#[test]
fn a_schema_with_errors_is_not_callable_and_nothing_is_sent() {
    let dir = Scratch::new("cat-invalid");
    dir.write(
        "bad.mjs",
        "export const main = { namespace: 'bad', name: 'Bad', description: 'd', version: '1.2.0',
         root: 'https://api.example.com',
         tools: { t: { method: 'GET', path: '/t', description: 'd', parameters: [],
             meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'x', aliases: [], alwaysLoad: false },
             tests: [ { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ] } } }",
    );
    let server = TestServer::start(1, |_: &Seen| reply(200, Some("application/json"), "{}"));
    let c =
        Catalog::open(&dir.0, &options(Profile::Spec, &[("bad", &server.base)])).expect("opens");
    assert!(c.find("t_bad").is_none());
    let r = c.rejected("bad/tool/t").expect("known");
    assert_eq!(r.codes, vec![flowmcp_spec::Code::VAL014]);
    let report = &c.reports()[0];
    assert!(
        report
            .diagnostics()
            .iter()
            .any(|d| d.severity == Severity::Error)
    );
    for name in ["t_bad", "bad/tool/t"] {
        let e = c.call(name, &Map::new());
        assert!(!e.status());
        let m = e.messages().first().cloned().unwrap_or_default();
        assert!(
            m.starts_with("E007 t: not callable: ") && m.contains("bad.mjs has errors (VAL014)"),
            "{m}"
        );
    }
    assert!(server.finish().is_empty(), "a request was sent");
    assert!(
        c.toolset()
            .problems()
            .iter()
            .any(|p| p.message == "not callable: it has errors (VAL014)"),
        "{:?}",
        c.toolset().problems()
    );
}

#[test]
fn the_manifest_decides_which_schemas_are_part_of_the_catalog() {
    let dir = Scratch::new("cat-manifest");
    let tool = "{ method: 'GET', path: '/t', description: 'd', parameters: [],
         meta: { isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'x', aliases: [], alwaysLoad: false },
         tests: [ { _description: 'a' }, { _description: 'b' }, { _description: 'c' } ] }";
    for ns in ["listed", "unlisted"] {
        dir.write(
            &format!("providers/{ns}/s.mjs"),
            &format!(
                "export const main = {{ namespace: '{ns}', name: 'S', description: 'd', version: '4.2.0',
                 root: 'https://api.example.com', tools: {{ t: {tool} }} }}"
            ),
        );
    }
    let name = dir
        .0
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    dir.write(
        "registry.json",
        &json!({"name": name, "version": "1.0.0", "description": "d", "schemaSpec": "4.2.0",
                "shared": [],
                "schemas": [{"namespace": "listed", "file": "providers/listed/s.mjs", "name": "S",
                             "requiredServerParams": [], "hasHandlers": false, "sharedLists": []},
                            {"namespace": "gone", "file": "providers/gone/s.mjs", "name": "S",
                             "requiredServerParams": [], "hasHandlers": false, "sharedLists": []}]})
        .to_string(),
    );
    let c = Catalog::open(&dir.0, &options(Profile::Spec, &[])).expect("opens");
    assert!(c.find("t_listed").is_some());
    assert!(c.find("t_unlisted").is_none());
    let manifest = &c.reports()[0].diagnostics();
    let has = |code: &str, text: &str| {
        manifest
            .iter()
            .any(|d| d.code.as_str() == code && d.message.contains(text))
    };
    assert!(has("CAT004", "does not exist"), "{manifest:?}");
    assert!(has("CAT006", "providers/unlisted/s.mjs"), "{manifest:?}");
}

/// The catalog walk does not follow a link out of the catalog, and a load problem that quotes a
/// secret's file shows the value redacted (SECURITY.md).
#[cfg(unix)]
#[test]
fn links_out_of_the_catalog_are_not_followed_and_problems_are_redacted() {
    let base = Scratch::new("cat-link");
    base.write(".env", "GH_TOKEN=ghp_CANARYsecret0042\n");
    base.write("cat/p/ok.mjs", "export const x = 1\n");
    std::os::unix::fs::symlink(base.0.join(".env"), base.0.join("cat/p/secrets.mjs"))
        .expect("symlink");
    // A copy inside the catalog is read, but its error message is redacted.
    base.write("cat/p/copy.mjs", "GH_TOKEN=ghp_CANARYsecret0042\n");
    let mut env_file = BTreeMap::new();
    env_file.insert("GH_TOKEN".to_string(), "ghp_CANARYsecret0042".to_string());
    let mut opts = options(Profile::Spec, &[]);
    opts.env_file = env_file;
    let c = Catalog::open(&base.0.join("cat"), &opts).expect("opens");
    let problems = &c.toolset().problems();
    let text = format!("{problems:?}");
    assert!(!text.contains("ghp_CANARY"), "{text}");
    assert!(
        problems
            .iter()
            .any(|p| p.file.ends_with("secrets.mjs") && p.message.contains("outside the catalog")),
        "{text}"
    );
    // The copy's report is the validator's: it is not callable.
    assert!(
        c.reports()
            .iter()
            .any(|r| r.file().ends_with("copy.mjs") && r.counts().errors > 0),
        "{:?}",
        c.reports()
    );
}

#[test]
fn a_caller_per_thread_over_one_shared_catalog() {
    let server = TestServer::start(4, |seen: &Seen| {
        reply(
            200,
            Some("application/json"),
            json!([{"code": "DE", "name": seen.url.clone()}]).to_string(),
        )
    });
    let c = Catalog::open(
        &examples(),
        &options(Profile::Spec, &[("holidaykit-net", &server.base)]),
    )
    .expect("opens");
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let caller = c.caller_with_log(Box::new(|_| {}));
                for _ in 0..2 {
                    let e = caller.call_json("listCountries_holidaykit-net", &obj(json!({})));
                    assert!(e.status(), "{e:?}");
                }
            });
        }
    });
    assert_eq!(server.finish().len(), 4);
}

#[test]
fn schema_files_open_as_one_catalog_with_their_lists() {
    let dir = examples();
    let files: Vec<PathBuf> = [
        "providers/holidaykit-net/public-holidays.mjs",
        "providers/skycast-io/forecast.mjs",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    for f in &files {
        assert!(
            f.is_file(),
            "{} is part of the example catalog",
            f.display()
        );
    }
    // The same file twice is read once.
    let mut named = files.clone();
    named.push(files[0].clone());
    let c = Catalog::open_files(&named, &options(Profile::Spec, &[])).expect("opens");
    assert!(!c.has_manifest());
    // The two files, and the content files of holidaykit-net's provider prompts.
    assert_eq!(c.reports().len(), 2 + 2, "{:?}", c.reports());
    assert!(!c.has_errors(), "{:?}", c.reports());
    assert_eq!(c.prompts().len(), 2, "the provider prompts, not the skill");
    assert_eq!(c.root(), dir.join("providers"));
    // Only these files' tools, with the catalog's shared lists found from each file.
    assert!(c.list().iter().all(|t| {
        let ns = t.descriptor.id.namespace.as_str();
        ns == "holidaykit-net" || ns == "skycast-io"
    }));
    let t = c
        .find("holidaykit-net/tool/getPublicHolidays")
        .expect("tool");
    assert!(
        t.descriptor.warnings.is_empty(),
        "{:?}",
        t.descriptor.warnings
    );

    // A directory among files, a missing file and no file at all are errors.
    let mut with_dir = files.clone();
    with_dir.push(dir.clone());
    let e = Catalog::open_files(&with_dir, &options(Profile::Spec, &[])).unwrap_err();
    assert!(e.to_string().contains("a directory"), "{e}");
    let e = Catalog::open_files(&[dir.join("nope.mjs")], &options(Profile::Spec, &[])).unwrap_err();
    assert!(e.to_string().contains("nope.mjs"), "{e}");
    let e = Catalog::open_files(&[], &options(Profile::Spec, &[])).unwrap_err();
    assert!(e.to_string().contains("no schema files"), "{e}");
}

/// A valid schema of namespace `ns` with one tool `t` described as `about`.
fn one_tool(ns: &str, about: &str) -> String {
    format!(
        "export const main = {{ namespace: '{ns}', name: 'N', description: 'd', version: '4.2.0',
         root: 'https://api.example.com',
         tools: {{ t: {{ method: 'GET', path: '/t', description: '{about}', parameters: [],
             tests: [ {{ _description: 'a' }}, {{ _description: 'b' }}, {{ _description: 'c' }} ],
             meta: {{ isReadOnly: true, isConcurrencySafe: true, isDestructive: false, searchHint: 'x', aliases: [], alwaysLoad: false }} }} }} }}\n"
    )
}

#[test]
fn a_reload_reads_only_what_changed_and_a_broken_file_keeps_its_good_version() {
    let dir = Scratch::new("cat-reload");
    dir.write("a.mjs", &one_tool("aaa", "first"));
    dir.write("b.mjs", &one_tool("bbb", "stays"));
    let mut opts = options(Profile::Compat, &[]);
    opts.reloadable = true;
    let c = Catalog::open(&dir.0, &opts).expect("opens");
    assert!(!c.has_errors(), "{:?}", c.reports());
    assert_eq!(c.list().len(), 2);
    assert!(!c.is_stale());
    assert!(c.reload().expect("reads").is_none(), "nothing changed");

    // A changed file is read again; the other one is not.
    dir.write("a.mjs", &one_tool("aaa", "second version"));
    assert!(c.is_stale());
    let r = c.reload().expect("reads").expect("changed");
    assert!(
        r.changed.len() == 1 && r.changed[0].ends_with("a.mjs"),
        "{:?}",
        r.changed
    );
    assert!(r.kept.is_empty() && r.removed.is_empty());
    assert!(r.tools_changed());
    let c = r.catalog;
    assert_eq!(
        c.find("t_aaa").expect("tool").descriptor.description,
        "second version"
    );
    assert!(!c.is_stale());

    // Broken now: the previous good version keeps serving, and the report says why.
    dir.write("a.mjs", "export const main = { namespace: 'aaa', tools: ");
    let r = c.reload().expect("reads").expect("changed");
    assert_eq!(r.kept.len(), 1);
    assert!(r.kept[0].counts().errors > 0);
    assert!(!r.tools_changed());
    let c = r.catalog;
    assert!(c.has_errors());
    assert_eq!(
        c.find("t_aaa").expect("kept").descriptor.description,
        "second version"
    );
    assert!(c.rejected("t_aaa").is_none());

    // A new file and a removed one.
    dir.write("c.mjs", &one_tool("ccc", "new"));
    std::fs::remove_file(dir.0.join("b.mjs")).unwrap();
    let r = c.reload().expect("reads").expect("changed");
    assert!(
        r.changed.iter().any(|f| f.ends_with("c.mjs")),
        "{:?}",
        r.changed
    );
    assert!(
        r.removed.len() == 1 && r.removed[0].ends_with("b.mjs"),
        "{:?}",
        r.removed
    );
    let c = r.catalog;
    assert!(c.find("t_ccc").is_some());
    assert!(c.find("t_bbb").is_none());
    // Fixed again: the new version replaces the kept one.
    dir.write("a.mjs", &one_tool("aaa", "third"));
    let c = c.reload().expect("reads").expect("changed").catalog;
    assert!(!c.has_errors(), "{:?}", c.reports());
    assert_eq!(
        c.find("t_aaa").expect("tool").descriptor.description,
        "third"
    );
}

#[test]
fn a_manifest_catalog_reloads_a_changed_schema_and_a_changed_list() {
    let home = Scratch::new("cat-reload-manifest");
    // The manifest's name must be the directory's.
    let dir = home.0.join("catalog");
    copy_dir(&examples(), &dir);
    let mut opts = options(Profile::Spec, &[]);
    opts.reloadable = true;
    let c = Catalog::open(&dir, &opts).expect("opens");
    assert!(c.has_manifest() && !c.has_errors(), "{:?}", c.reports());
    let file = dir.join("providers/skycast-io/forecast.mjs");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n// touched\n")).unwrap();
    let r = c.reload().expect("reads").expect("changed");
    assert_eq!(r.changed.len(), 1, "{:?}", r.changed);
    let c = r.catalog;
    assert!(c.has_manifest() && !c.has_errors(), "{:?}", c.reports());
    assert_eq!(c.list().len(), 21);
    // A shared list changed: the whole catalog is read again. The manifest's content hash no
    // longer matches the edited files (CAT008), while every schema still serves.
    let list = dir.join("_lists/languages.mjs");
    let text = std::fs::read_to_string(&list).unwrap();
    std::fs::write(&list, format!("{text}\n// touched\n")).unwrap();
    let c = c.reload().expect("reads").expect("changed").catalog;
    assert!(c.has_manifest());
    let codes: Vec<&str> = c.reports()[0]
        .diagnostics()
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["CAT008"]);
    assert!(
        c.reports()[1..].iter().all(|r| r.counts().errors == 0),
        "{:?}",
        c.reports()
    );
    assert_eq!(c.list().len(), 21);
    assert!(c.reload().expect("reads").is_none());
}

#[test]
fn without_reloadable_a_reload_reads_every_file_and_a_broken_one_loses_its_tools() {
    let dir = Scratch::new("cat-reload-plain");
    dir.write("a.mjs", &one_tool("aaa", "first"));
    dir.write("b.mjs", &one_tool("bbb", "stays"));
    let c = Catalog::open(&dir.0, &options(Profile::Compat, &[])).expect("opens");
    assert!(c.reload().expect("reads").is_none());
    dir.write("a.mjs", "export const main = { namespace: 'aaa', tools: ");
    let r = c.reload().expect("reads").expect("changed");
    // Only the changed file counts as changed, though both were read.
    assert!(
        r.changed.len() == 1 && r.changed[0].ends_with("a.mjs"),
        "{:?}",
        r.changed
    );
    assert!(r.kept.is_empty());
    let c = r.catalog;
    assert!(c.find("t_aaa").is_none());
    assert!(c.find("t_bbb").is_some());
}

/// A copy of the example catalog (in a directory named `catalog`, as its manifest's name wants).
fn example_copy(tag: &str) -> (Scratch, PathBuf) {
    let home = Scratch::new(tag);
    let dir = home.0.join("catalog");
    copy_dir(&examples(), &dir);
    (home, dir)
}

/// Takes the comma off the end of the first line after the third that ends with one: one
/// missing comma, as a person typing makes it. Returns that line's number.
fn drop_a_comma(file: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let at = (3..lines.len())
        .find(|&i| lines[i].trim_end().ends_with(','))
        .expect("a line ending with a comma");
    let trimmed = lines[at].trim_end().trim_end_matches(',').to_string();
    lines[at] = trimmed;
    std::fs::write(file, lines.join("\n")).unwrap();
    at + 1
}

/// Issue #28 item 7a: calling a tool of a file that cannot be loaded names the file, says that it
/// cannot be loaded and why (the loader's code and position), by ID and by wire name; nothing is
/// sent.
#[test]
fn i28_7a_a_tool_of_a_file_that_cannot_be_loaded_says_which_file_and_why() {
    let (_home, dir) = example_copy("i28-7a");
    let file = dir.join("providers/holidaykit-net/public-holidays.mjs");
    drop_a_comma(&file);
    let c = Catalog::open(&dir, &options(Profile::Spec, &[])).expect("opens");
    for name in [
        "holidaykit-net/tool/getPublicHolidays",
        "getPublicHolidays_holidaykit-net",
    ] {
        assert!(c.find(name).is_none());
        let r = c.rejected(name).expect(name);
        assert_eq!(r.tool, "getPublicHolidays");
        let e = c.call(name, &obj(json!({"countryCode": "DE", "year": 2026})));
        assert!(!e.status());
        let m = e.messages().first().cloned().unwrap_or_default();
        assert!(
            m.starts_with("E007 getPublicHolidays: not callable: ")
                && m.contains("providers/holidaykit-net/public-holidays.mjs cannot be loaded: LDR003 at line 5, column 5: Syntax error")
                // Issue #29, scope 3 (D74): the library states the facts; the CLI adds the
                // command (`flowmcp call`), and the MCP wire text stays fact-only.
                && !m.contains("flowmcp validate"),
            "{m}"
        );
    }
    // The problem says it too; another namespace is still unknown, and valid tools still work.
    assert!(
        c.toolset()
            .problems()
            .iter()
            .any(|p| p.message.starts_with("cannot be loaded: LDR003 at line 5")),
        "{:?}",
        c.toolset().problems()
    );
    assert!(c.rejected("nowhere-net/tool/x").is_none());
    assert!(c.rejected("getCurrentConditions_skycast-io").is_none());
    assert!(c.find("getCurrentConditions_skycast-io").is_some());
}

/// Issue #28 item 7b: one missing comma in a schema that skills, prompts, a selection and an
/// agent use gives the one error that matters, and one line (CAT009) on that file naming the
/// files whose findings about it are left out — not an error in each of them.
#[test]
fn i28_7b_one_missing_comma_reports_its_cause_not_the_cascade() {
    let (_home, dir) = example_copy("i28-7b");
    let file = dir.join("providers/holidaykit-net/public-holidays.mjs");
    drop_a_comma(&file);
    let c = Catalog::open(&dir, &options(Profile::Spec, &[])).expect("opens");
    let errors: Vec<String> = c
        .reports()
        .iter()
        .flat_map(|r| r.diagnostics().iter().map(move |d| (r, d)))
        .filter(|(_, d)| d.severity == Severity::Error)
        .map(|(r, d)| format!("{} {}", d.code.as_str(), r.file()))
        .collect();
    // The manifest's content hash no longer matches the edited file (CAT008), and the file does
    // not load: nothing else.
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].starts_with("CAT008 "), "{errors:#?}");
    assert!(
        errors[1].starts_with("LDR003 ") && errors[1].ends_with("public-holidays.mjs"),
        "{errors:#?}"
    );
    let report = c
        .reports()
        .iter()
        .find(|r| r.file().ends_with("public-holidays.mjs"))
        .unwrap();
    let folded: Vec<&str> = report
        .diagnostics()
        .iter()
        .filter(|d| d.code.as_str() == "CAT009")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(folded.len(), 1, "{:#?}", report.diagnostics());
    for dependent in [
        "agents/holiday-planner/agent.mjs",
        "providers/holidaykit-net/skills/plan-long-weekends.mjs",
        "selections/days-off/selection.mjs",
    ] {
        assert!(folded[0].contains(dependent), "{}", folded[0]);
    }
    assert!(
        folded[0].contains("namespace holidaykit-net"),
        "{}",
        folded[0]
    );
    // No file but the broken one says anything of it.
    for r in c.reports() {
        if r.file().ends_with("public-holidays.mjs") {
            continue;
        }
        for d in r.diagnostics() {
            assert!(
                !d.message.contains("holidaykit-net/"),
                "{} {}: {}",
                d.code.as_str(),
                r.file(),
                d.message
            );
        }
    }
}

/// Issue #28 item 7j: under a reload (`serve --watch`), a file that breaks keeps its previous
/// good version whole — its tools and its prompts — and so does a skill file.
#[test]
fn i28_7j_a_file_that_breaks_keeps_its_tools_prompts_and_skills() {
    let (_home, dir) = example_copy("i28-7j");
    let mut opts = options(Profile::Spec, &[]);
    opts.reloadable = true;
    let c = Catalog::open(&dir, &opts).expect("opens");
    let names = |c: &Catalog| -> Vec<String> { c.prompts().into_iter().map(|p| p.name).collect() };
    let before = names(&c);
    for id in [
        "holidaykit-net/prompt/about",
        "holidaykit-net/prompt/bridge-days",
        "holidaykit-net/skill/plan-long-weekends",
    ] {
        assert!(before.iter().any(|n| n == id), "{before:?}");
    }
    drop_a_comma(&dir.join("providers/holidaykit-net/public-holidays.mjs"));
    drop_a_comma(&dir.join("providers/holidaykit-net/skills/plan-long-weekends.mjs"));
    let r = c.reload().expect("reads").expect("changed");
    assert_eq!(r.kept.len(), 2, "{:?}", r.changed);
    assert!(!r.tools_changed());
    let c = r.catalog;
    assert!(c.has_errors());
    assert_eq!(names(&c), before);
    assert!(c.find("holidaykit-net/tool/getPublicHolidays").is_some());
    let args = obj(json!({"countryCode": "DE", "year": "2026"}));
    let rendered = c
        .render_prompt("holidaykit-net/prompt/bridge-days", &args)
        .expect("still renders");
    assert!(
        rendered.messages[0]
            .text
            .starts_with("Find the bridge days of DE in 2026"),
        "{:?}",
        rendered.messages
    );
}

/// Issue #28, item 5: the index of a copied catalog (its `name` is the old directory's) says the
/// name is wrong, keeps it unless asked, and `rename` sets the directory's name.
#[test]
fn i28_5_index_names_a_misnamed_catalog_and_renames_it() {
    let scratch = Scratch::new("i28-5-index");
    let cat = scratch.0.join("mycat");
    copy_dir(&examples(), &cat);
    let mut index = flowmcp_catalog::manifest::build_index(&cat).expect("index");
    assert!(index.is_current());
    assert_eq!(index.dir_name, "mycat");
    assert_eq!(index.misnamed().as_deref(), Some("\"catalog\""));
    index.rename();
    assert!(!index.is_current());
    assert_eq!(index.misnamed(), None);
    assert_eq!(
        index.changes,
        vec!["~ name: \"catalog\" -> \"mycat\"".to_string()]
    );
    flowmcp_catalog::manifest::write_index(&index).expect("written");
    let again = flowmcp_catalog::manifest::build_index(&cat).expect("index");
    assert!(again.is_current() && again.misnamed().is_none());
}

/// Issue #28, item 6: a directory whose `registry.json` is a grading list (the public schema
/// collection's root) opens under `compat` as a directory of schemas with one problem that
/// names the list; under `spec` it serves nothing and the problem says what to do.
#[test]
fn i28_6_a_grading_list_root_is_a_directory_of_schemas_under_compat() {
    let scratch = Scratch::new("i28-6-grading");
    for ns in ["alpha", "beta"] {
        scratch.write(
            &format!("schemas/v4.0.0/providers/{ns}/{ns}.mjs"),
            &one_tool(ns, "Calls t"),
        );
    }
    scratch.write(
        "registry.json",
        &json!({
            "version": "v4.0.0",
            "totalSchemas": 2,
            "schemas": [
                {"schemaId": "alpha/alpha", "schemaPath": "schemas/v4.0.0/providers/alpha/alpha.mjs", "grade": "A", "score": 5},
                {"schemaId": "beta/beta", "schemaPath": "schemas/v4.0.0/providers/beta/beta.mjs", "grade": "B", "score": 4}
            ]
        })
        .to_string(),
    );
    assert!(flowmcp_catalog::manifest::has_grading_list(&scratch.0));
    let c = Catalog::open(&scratch.0, &options(Profile::Compat, &[])).expect("opens");
    assert!(!c.has_manifest());
    assert_eq!(c.list().len(), 2);
    let problems = &c.toolset().problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].file.ends_with("registry.json"), "{problems:?}");
    assert!(
        problems[0].message.starts_with("warning: a grading list"),
        "{problems:?}"
    );

    let c = Catalog::open(&scratch.0, &options(Profile::Spec, &[])).expect("opens");
    assert!(c.list().is_empty());
    let problems = &c.toolset().problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains("the compat profile reads")
            && !problems[0].message.contains("--profile"),
        "{problems:?}"
    );
    // The manifest's report says it once, not once per entry.
    let codes: Vec<&str> = c.reports()[0]
        .diagnostics()
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, vec!["CAT001"]);

    // A catalog manifest is never taken for a grading list.
    assert!(!flowmcp_catalog::manifest::has_grading_list(&examples()));
}
