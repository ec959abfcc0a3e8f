//! A catalog's prompts and skills: loaded with the catalog, listed by ID, rendered with their
//! arguments (prefill through a local upstream), broken references shown as `[ERROR: …]` and
//! named by validation.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::common;
use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{
    Catalog, CatalogOptions, Profile, primitives::PrimitiveError, prompts::PromptKind,
};

use common::{examples, local_options};

/// Local options (spec) with `holidaykit-net` sent to `upstream`.
fn options(upstream: &str) -> CatalogOptions {
    local_options(Profile::Spec, &[("holidaykit-net", upstream)])
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// No `{{type:…}}` of a known content type is left in `text`.
fn fully_resolved(text: &str) -> bool {
    ["tool", "resource", "prompt", "skill", "input", "prefill"]
        .iter()
        .all(|t| !text.contains(&format!("{{{{{t}:")))
}

#[test]
fn the_example_prompts_and_skill_are_listed_by_id() {
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    assert!(!c.has_errors(), "{:?}", c.reports());
    let ids: Vec<String> = c.prompts().into_iter().map(|p| p.name).collect();
    assert_eq!(
        ids,
        [
            "holidaykit-net/prompt/about",
            "holidaykit-net/prompt/bridge-days",
            "holidaykit-net/skill/plan-long-weekends"
        ]
    );
    let skill = c
        .prompts()
        .into_iter()
        .find(|p| p.name.ends_with("plan-long-weekends"))
        .unwrap();
    let required: Vec<(String, bool)> = skill
        .arguments
        .iter()
        .map(|a| (a.name.clone(), a.required))
        .collect();
    assert_eq!(
        required,
        [
            ("year".to_string(), true),
            ("countryCode".to_string(), true),
            ("region".to_string(), false)
        ]
    );
    assert_eq!(
        skill.arguments[0].description.as_deref(),
        Some("Four-digit calendar year (number)")
    );
    assert_eq!(skill.meta["flowmcp/kind"], json!("skill"));
    let entry = c
        .library()
        .get("holidaykit-net/skill/plan-long-weekends")
        .unwrap();
    assert_eq!(entry.kind, PromptKind::Skill);
    assert_eq!(
        entry.prefill[0].tool,
        "holidaykit-net/tool/getPublicHolidays"
    );
    // Prompts and skills are found by search too.
    let hits = c.search_prompts("long weekends");
    assert_eq!(hits[0].1.id, "holidaykit-net/skill/plan-long-weekends");
}

#[test]
fn a_skill_renders_with_its_prefill_and_every_placeholder_resolved() {
    let (base, server) = common::json_upstream(
        1,
        r#"[{"date": "2026-10-03", "name": "German Unity Day", "type": "public"}]"#,
    );
    let c = Catalog::open(&examples(), &options(&base)).unwrap();
    let r = c
        .render_prompt(
            "holidaykit-net/skill/plan-long-weekends",
            &args(json!({"year": "2026", "countryCode": "DE"})),
        )
        .unwrap();
    assert_eq!(r.messages.len(), 1);
    let text = &r.messages[0].text;
    // The prefill ran with the typed inputs, and its result is in the text.
    assert_eq!(server.join().unwrap(), ["/holidays/2026/DE"]);
    assert!(text.contains("German Unity Day"), "{text}");
    // Inputs, a whole tool block, a parameter table and a call line.
    assert!(
        text.starts_with("## Plan long weekends in DE for 2026"),
        "{text}"
    );
    assert!(text.contains(
        "### `holidaykit-net/tool/getPublicHolidays` (MCP tool `getPublicHolidays_holidaykit-net`)"
    ));
    assert!(text.contains("| `year` | number (1900–2100) | yes | Four-digit calendar year |"));
    assert!(text.contains("| `date` | string | yes | Date in YYYY-MM-DD format |"));
    assert!(text.contains(
        "`flowmcp call holidaykit-net/tool/checkWorkingDay --input '{\"countryCode\":\"DE\",\"date\":\"2025-12-25\"}'`"
    ));
    // The optional region was not given: an empty string, not a placeholder.
    assert!(text.contains("to the region  when one was given"), "{text}");
    assert!(fully_resolved(text), "{text}");
    assert!(!text.contains("[ERROR"), "{text}");
}

#[test]
fn a_failing_prefill_is_shown_inline_and_the_skill_is_still_delivered() {
    // Nothing listens on port 9.
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    let r = c
        .render_prompt(
            "holidaykit-net/skill/plan-long-weekends",
            &args(json!({"year": 2026, "countryCode": "DE", "region": "DE-BY"})),
        )
        .unwrap();
    let text = &r.messages[0].text;
    assert!(
        text.contains("[ERROR: Prefill execution failed: E002"),
        "{text}"
    );
    assert!(text.contains("to the region DE-BY when one was given"));
    assert!(text.contains("## Step 3: Answer"));
}

#[test]
fn arguments_are_checked_against_the_inputs() {
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    let id = "holidaykit-net/skill/plan-long-weekends";
    let invalid = |a: Value| match c.render_prompt(id, &args(a)) {
        Err(PrimitiveError::InvalidArguments(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(invalid(json!({"year": 2026})).contains("missing required argument `countryCode`"));
    assert!(invalid(json!({"year": "soon", "countryCode": "DE"})).contains("must be a number"));
    assert!(
        invalid(json!({"year": 2026, "countryCode": "DE", "city": "Bonn"}))
            .contains("unknown argument `city`")
    );
    assert!(matches!(
        c.render_prompt("holidaykit-net/skill/nothing", &Map::new()),
        Err(PrimitiveError::NotFound(_))
    ));
}

#[test]
fn argument_text_is_never_read_for_placeholders() {
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    let r = c
        .render_prompt(
            "holidaykit-net/prompt/bridge-days",
            &args(json!({"countryCode": "{{tool:getNextHolidays}}", "year": "{{input:year}}"})),
        )
        .unwrap();
    let text = &r.messages[0].text;
    assert!(
        text.starts_with(
            "Find the bridge days of {{tool:getNextHolidays}} in {{input:year}}: working days"
        ),
        "{text}"
    );
    assert!(!text.contains("getNextHolidays_holidaykit-net"));
}

#[test]
fn referenced_prompts_come_along_as_context() {
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    let r = c
        .render_prompt(
            "holidaykit-net/prompt/bridge-days",
            &args(json!({"countryCode": "DE", "year": 2026})),
        )
        .unwrap();
    assert_eq!(r.messages.len(), 2);
    let context = &r.messages[1].text;
    assert!(
        context.starts_with("Context from prompt `holidaykit-net/prompt/about`:"),
        "{context}"
    );
    // The shared list's values and a tool's description.
    assert!(context.contains("alpha-2: AT, AU, BR, CA, DE"), "{context}");
    assert!(context.contains("- Tells whether a date is a working day or a holiday"));
    assert!(fully_resolved(context), "{context}");
}

/// A copy of the example catalog in a scratch directory.
fn scratch_copy(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-prompts-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = dir.join("catalog");
    support::copy_dir(&examples(), &dir);
    dir
}

#[test]
fn a_broken_reference_renders_as_an_error_and_validation_names_it() {
    let dir = scratch_copy("broken");
    let file = dir.join("providers/holidaykit-net/prompts/about.mjs");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "{{tool:getNextHolidays:description}}",
            "{{tool:getLastHolidays}}",
        ),
    )
    .unwrap();
    let mut o = options("http://127.0.0.1:9");
    o.reloadable = true;
    let c = Catalog::open(&dir, &o).unwrap();
    // Validation names it, on the content file (the example's two other findings are a warning
    // and a note).
    assert_eq!(
        c.reports().iter().map(|r| r.counts().errors).sum::<usize>(),
        1
    );
    let findings: Vec<String> = c
        .reports()
        .iter()
        .flat_map(|r| {
            r.diagnostics()
                .iter()
                .filter(|d| d.severity == flowmcp_spec::Severity::Error)
                .map(move |d| format!("{} {} {}", d.code, r.file(), d.message))
        })
        .collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].starts_with("PRM009 "), "{findings:?}");
    assert!(findings[0].contains("prompts/about.mjs"), "{findings:?}");
    assert!(findings[0].contains("no tool holidaykit-net/tool/getLastHolidays"));
    // The prompt is still served, with the error in its text.
    let r = c
        .render_prompt("holidaykit-net/prompt/about", &Map::new())
        .unwrap();
    assert!(
        r.messages[0]
            .text
            .contains("- [ERROR: Tool 'holidaykit-net/tool/getLastHolidays' not found]"),
        "{}",
        r.messages[0].text
    );
    // The tools are unaffected.
    assert!(c.find("holidaykit-net/tool/getNextHolidays").is_some());

    // A reload after another file changed finds it once, not twice; fixing it clears it.
    std::thread::sleep(Duration::from_millis(20));
    let skill = dir.join("providers/holidaykit-net/skills/plan-long-weekends.mjs");
    let s = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(&skill, format!("{s}\n")).unwrap();
    let c = c.reload().unwrap().expect("changed").catalog;
    let count = |c: &Catalog| {
        c.reports()
            .iter()
            .flat_map(|r| r.diagnostics())
            .filter(|d| d.code.as_str() == "PRM009")
            .count()
    };
    assert_eq!(count(&c), 1);
    std::fs::write(&file, text).unwrap();
    let c = c.reload().unwrap().expect("changed").catalog;
    assert_eq!(count(&c), 0);
    assert!(!c.has_errors());
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_prefill_never_runs_a_tool_that_may_change_data() {
    let dir = scratch_copy("prefill-write");
    let skills = dir.join("providers/openshelf-org/skills");
    std::fs::create_dir_all(&skills).unwrap();
    std::fs::write(
        skills.join("start-list.mjs"),
        r#"const content = `Your new list: {{prefill:openshelf-org/tool/createReadingList}}
Add books with {{tool:createReadingList}} for {{input:name}}.`

export const skill = {
    name: 'start-list',
    version: 'flowmcp/4.0.0',
    type: 'namespace',
    description: 'Starts a reading list',
    whenToUse: 'When the user wants a reading list.',
    requires: { tools: [ 'createReadingList' ], resources: [], external: [] },
    input: [ { key: 'name', type: 'string', description: 'The list name', required: true } ],
    output: 'The new list',
    prefill: [ { tool: 'openshelf-org/tool/createReadingList', params: { name: '{{input:name}}', isbns: [ '9780141439518' ] } } ],
    content
}
"#,
    )
    .unwrap();
    let mut o = options("http://127.0.0.1:9");
    o.env_override = Some(BTreeMap::from([(
        "OPENSHELF_API_KEY".to_string(),
        "k".to_string(),
    )]));
    let c = Catalog::open(&dir, &o).unwrap();
    let r = c
        .render_prompt(
            "openshelf-org/skill/start-list",
            &args(json!({"name": "Summer"})),
        )
        .unwrap();
    let text = &r.messages[0].text;
    assert!(
        text.starts_with(
            "Your new list: [ERROR: Prefill execution failed: refused: openshelf-org/tool/createReadingList may change data"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// Issue #28 item 7i: a prompt or skill rendered without its required arguments is refused with
/// a typed error (MCP invalid params) naming every missing one; a provider prompt's arguments
/// (the `{{input:…}}` keys of its text) are required.
#[test]
fn i28_7i_missing_arguments_are_an_error_naming_them() {
    let c = Catalog::open(&examples(), &options("http://127.0.0.1:9")).unwrap();
    let info = c
        .prompts()
        .into_iter()
        .find(|p| p.name == "holidaykit-net/prompt/bridge-days")
        .unwrap();
    assert!(info.arguments.iter().all(|a| a.required), "{info:?}");
    for (id, given) in [
        ("holidaykit-net/prompt/bridge-days", json!({})),
        (
            "holidaykit-net/skill/plan-long-weekends",
            json!({"region": "DE-BY"}),
        ),
    ] {
        match c.render_prompt(id, &args(given)) {
            Err(PrimitiveError::InvalidArguments(m)) => {
                assert!(
                    m.contains("missing required arguments")
                        && m.contains("`countryCode`")
                        && m.contains("`year`"),
                    "{m}"
                );
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    // One missing: named alone.
    match c.render_prompt(
        "holidaykit-net/prompt/bridge-days",
        &args(json!({"year": "2026"})),
    ) {
        Err(PrimitiveError::InvalidArguments(m)) => {
            assert!(m.contains("missing required argument `countryCode`"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}
