//! Rendering the example catalog's skill from your own program: list the catalog's prompts and
//! skills, then render `holidaykit-net/skill/plan-long-weekends` with its arguments. Its prefill
//! calls `getPublicHolidays` against the demo upstream first.
//!
//! ```sh
//! cargo run -p flowmcp-runtime --example demo_upstream        # terminal 1: the demo APIs on :8080
//! cargo run -p flowmcp-catalog --example skill                # terminal 2
//! cargo run -p flowmcp-catalog --example skill -- 127.0.0.1:9000   # another address
//! ```
//!
//! Without the demo upstream the skill is still delivered: its prefill placeholder shows
//! `[ERROR: Prefill execution failed: E002 …]` instead of the holidays.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

use flowmcp_catalog::serde_json::{Map, Value};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};

fn main() {
    let upstream = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut options = CatalogOptions::new(Profile::Spec);
    if let Err(e) = options.add_upstream("holidaykit-net", &format!("http://{upstream}")) {
        eprintln!("skill: {upstream}: {e}");
        std::process::exit(2);
    }
    let catalog = match Catalog::open(&dir, &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skill: {e}");
            std::process::exit(2);
        }
    };

    // What an MCP client's prompts/list shows: IDs and arguments (`*` = required).
    for p in catalog.prompts() {
        let args: Vec<String> = p
            .arguments
            .iter()
            .map(|a| format!("{}{}", a.name, if a.required { "*" } else { "" }))
            .collect();
        println!("{}  {}", p.name, args.join(" "));
    }

    // Arguments are text, as MCP sends them; each is checked against the skill's input types.
    let mut args = Map::new();
    args.insert("year".into(), Value::String("2026".into()));
    args.insert("countryCode".into(), Value::String("DE".into()));
    match catalog.render_prompt("holidaykit-net/skill/plan-long-weekends", &args) {
        Ok(rendered) => {
            for m in rendered.messages {
                println!("\n{}", m.text);
            }
        }
        Err(e) => {
            eprintln!("skill: {e}");
            std::process::exit(1);
        }
    }
}
