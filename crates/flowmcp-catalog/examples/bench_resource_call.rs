//! Timing of a resource query through the catalog against the same prepared query with bare
//! rusqlite.
//!
//! `cargo run --release -p flowmcp-catalog --example bench_resource_call -- [--iters N] [--rows R]`
//!
//! Builds a `tokens` database of `R` rows (default 10,000, indexed on `symbol`) beside a schema
//! whose in-memory resource has the query `bySymbol` (`SELECT … WHERE symbol = ?`, with an output
//! schema), opens it as a catalog and, over `N` iterations (default 20,000), interleaved, looks up
//! a different symbol each time:
//!
//! - **bare**: the statement with plain rusqlite on a connection opened as the engine opens
//!   read-only files, `prepare_cached`, each row read into a JSON object;
//! - **catalog**: `Caller::call_json("bySymbol_bench", {"symbol": …})` — finding the entry,
//!   checking the input, binding, the engine's authorizer and limits, the output-schema check and
//!   the envelope.
//!
//! Prints p50 and p99 in µs and the ratio of the two p50s (target at most 1.3×).
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::{Map, Value, json};
use flowmcp_catalog::{Catalog, CatalogOptions, Profile};
use rusqlite::{Connection, OpenFlags};

const LOOKUP: &str = "SELECT id, symbol, name, decimals, price FROM tokens WHERE symbol = ?";

fn main() {
    let mut iters = 20_000usize;
    let mut rows = 10_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next().and_then(|v| v.parse::<usize>().ok());
        match (a.as_str(), value) {
            ("--iters", Some(n)) if n > 0 => iters = n,
            ("--rows", Some(n)) if n > 0 => rows = n,
            _ => {
                eprintln!("usage: bench_resource_call [--iters N] [--rows R]");
                std::process::exit(2);
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("flowmcp-bench-call-{}", std::process::id()));
    let result = run(&dir, iters, rows);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(message) = result {
        eprintln!("bench_resource_call: {message}");
        std::process::exit(1);
    }
}

fn schema() -> String {
    let properties = ["id", "symbol", "name", "decimals", "price"]
        .iter()
        .map(|c| {
            let t = if matches!(*c, "symbol" | "name") {
                "string"
            } else {
                "number"
            };
            format!("{c}: {{ type: '{t}' }}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "export const main = {{
    namespace: 'bench', name: 'Bench', description: 'Benchmark', version: '4.2.0', tools: {{}},
    resources: {{
        tokens: {{
            source: 'sqlite', mode: 'in-memory', origin: 'inline', name: 'bench-tokens.db',
            description: 'Tokens',
            queries: {{
                bySymbol: {{
                    sql: '{LOOKUP}',
                    description: 'One token by symbol',
                    parameters: [ {{ position: {{ key: 'symbol', value: '{{{{USER_PARAM}}}}' }}, z: {{ primitive: 'string()', options: [ 'min(1)' ] }} }} ],
                    output: {{ mimeType: 'application/json', schema: {{ type: 'array', items: {{ type: 'object', properties: {{ {properties} }} }} }} }},
                    tests: [ {{ _description: 'a', symbol: 'SYM1' }}, {{ _description: 'b', symbol: 'SYM2' }}, {{ _description: 'c', symbol: 'SYM3' }} ]
                }}
            }}
        }}
    }}
}}
"
    )
}

fn run(dir: &Path, iters: usize, rows: usize) -> Result<(), String> {
    let resources = dir.join("resources");
    std::fs::create_dir_all(&resources).map_err(|e| e.to_string())?;
    let db = resources.join("bench-tokens.db");
    let conn = Connection::open(&db).map_err(|e| e.to_string())?;
    conn.execute_batch(&format!(
        "CREATE TABLE tokens (id INTEGER PRIMARY KEY, symbol TEXT NOT NULL, name TEXT, decimals INTEGER, price REAL);
         WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM c WHERE x < {last})
         INSERT INTO tokens (symbol, name, decimals, price)
           SELECT 'SYM' || x, 'Token number ' || x, x % 19, x * 1.25 FROM c;
         CREATE INDEX tokens_symbol ON tokens(symbol);",
        last = rows - 1
    ))
    .map_err(|e| e.to_string())?;
    conn.close().map_err(|(_, e)| e.to_string())?;
    let schema_file = dir.join("bench.mjs");
    std::fs::write(&schema_file, schema()).map_err(|e| e.to_string())?;

    let catalog = Catalog::open(&schema_file, &CatalogOptions::new(Profile::Spec))
        .map_err(|e| e.to_string())?;
    if catalog.has_errors() || catalog.find("bySymbol_bench").is_none() {
        return Err(format!("the schema does not load: {:?}", catalog.reports()));
    }
    let caller = catalog.caller();
    let bare = Connection::open_with_flags(
        format!("file:{}?mode=ro&immutable=1", db.display()),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| e.to_string())?;
    println!(
        "bench_resource_call: {rows} rows, lookup by indexed symbol, {iters} iterations, interleaved"
    );
    let mut t_bare = Vec::with_capacity(iters);
    let mut t_catalog = Vec::with_capacity(iters);
    let warmup = iters / 10;
    for i in 0..iters + warmup {
        let symbol = format!("SYM{}", (i * 7919) % rows);
        let mut args = Map::new();
        args.insert("symbol".into(), json!(symbol));

        let start = Instant::now();
        let got = bare_json(&bare, &symbol)?;
        let d_bare = start.elapsed();

        let start = Instant::now();
        let envelope = caller.call_json("bySymbol_bench", &args);
        let d_catalog = start.elapsed();

        if got.len() != 1
            || !envelope.status()
            || envelope.data().as_array().map(Vec::len) != Some(1)
            || !envelope.warnings().is_empty()
        {
            return Err(format!("lookup of {symbol} failed: {envelope:?}"));
        }
        if i >= warmup {
            t_bare.push(d_bare);
            t_catalog.push(d_catalog);
        }
    }
    let p_bare = report("bare rusqlite, prepared, JSON row objects", &mut t_bare);
    let p_catalog = report("catalog call (bySymbol_bench)", &mut t_catalog);
    println!(
        "  ratio catalog / bare at p50: {:.2}x (target <= 1.30x)",
        p_catalog.as_secs_f64() / p_bare.as_secs_f64().max(1e-9)
    );
    Ok(())
}

fn bare_json(conn: &Connection, symbol: &str) -> Result<Vec<Value>, String> {
    let mut stmt = conn.prepare_cached(LOOKUP).map_err(|e| e.to_string())?;
    let names: Vec<String> = stmt.column_names().map(String::from).collect();
    let mut rows = stmt.query([symbol]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let mut obj = Map::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let v = match row.get_ref(i).map_err(|e| e.to_string())? {
                rusqlite::types::ValueRef::Null => Value::Null,
                rusqlite::types::ValueRef::Integer(n) => json!(n),
                rusqlite::types::ValueRef::Real(f) => json!(f),
                rusqlite::types::ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
                rusqlite::types::ValueRef::Blob(b) => json!(b.len()),
            };
            obj.insert(name.clone(), v);
        }
        out.push(Value::Object(obj));
    }
    Ok(out)
}

/// Prints p50 and p99 of `times` under `label`; returns p50.
fn report(label: &str, times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    let at = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).copied().unwrap_or_default()
    };
    let (p50, p99) = (at(0.5), at(0.99));
    println!(
        "  {label:<44} p50 {:>8.2} µs  p99 {:>8.2} µs",
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
    p50
}
