//! Activating the example agent: what it brings, and the shared lists it declares, which must be
//! in the catalog's `_lists/` (activation step 8).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use crate::support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog")
}

fn options() -> CatalogOptions {
    {
        let mut built = CatalogOptions::new(Profile::Spec);
        built.env_override = Some(BTreeMap::new());
        built
    }
}

#[test]
fn the_example_agent_brings_its_tools_prompts_and_lists() {
    let catalog = Catalog::open(&examples(), &options()).unwrap();
    let act = catalog.activate_agent("holiday-planner").unwrap();
    assert_eq!(act.lists, ["countries"]);
    assert!(
        act.tools
            .contains(&"holidaykit-net/tool/getPublicHolidays".to_string())
    );
    assert!(
        act.prompts
            .contains(&"holidaykit-net/prompt/about".to_string())
    );
    assert!(act.warnings.is_empty(), "{:?}", act.warnings);
}

#[test]
fn a_shared_list_that_is_not_there_stops_activation() {
    let dir = std::env::temp_dir().join(format!("flowmcp-activation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let copy = dir.join("catalog");
    support::copy_dir(&examples(), &copy);
    let manifest = copy.join("agents/holiday-planner/agent.mjs");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("sharedLists: [ 'countries' ]", "sharedLists: [ 'planets' ]"),
    )
    .unwrap();
    let catalog = Catalog::open(&copy, &options()).unwrap();
    let refused = catalog.activate_agent("holiday-planner").unwrap_err();
    assert!(
        refused.to_string().contains("shared list \"planets\""),
        "{refused}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
