//! Timing of the SQLite resource engine against bare rusqlite.
//!
//! `cargo run --release -p flowmcp-resources --example bench_resources -- [--iters N] [--rows R] [--tables T]`
//!
//! Builds two databases in a temporary directory: `tokens` with `R` rows (default 10,000) and an
//! index on `symbol`, and one with `T` tables (default 50) of 8 columns each. Then, over `N`
//! iterations (default 20,000), interleaved so both sides see the same machine state, it runs
//! the lookup `SELECT … FROM tokens WHERE symbol = ?` with a different symbol each time:
//!
//! - **bare**: the same statement with plain rusqlite on a connection opened as the engine
//!   opens read-only files (`mode=ro&immutable=1`), `prepare_cached`, values read into owned
//!   `rusqlite::types::Value`s (a line for a plain read-only open, which locks the file on
//!   every statement, is shown too);
//! - **bare+json**: the same, with each row built into a JSON object by hand;
//! - **engine**: `Database::query` on a read-only database (authorizer, one-statement check,
//!   limits, deadline, JSON rows).
//!
//! Each line gives p50 and p99 in µs; the ratio line compares engine with bare at p50 (target
//! at most 1.3×). Last, `describeTables` on the `T`-table database (target at most 2 ms p50).
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flowmcp_resources::sqlite::{Database, Limits, Mode, QueryLimits};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};

const LOOKUP: &str = "SELECT id, symbol, name, decimals, price FROM tokens WHERE symbol = ?";

fn main() {
    let mut iters = 20_000usize;
    let mut rows = 10_000usize;
    let mut tables = 50usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next().and_then(|v| v.parse::<usize>().ok());
        match (a.as_str(), value) {
            ("--iters", Some(n)) if n > 0 => iters = n,
            ("--rows", Some(n)) if n > 0 => rows = n,
            ("--tables", Some(n)) if n > 0 => tables = n,
            _ => {
                eprintln!("usage: bench_resources [--iters N] [--rows R] [--tables T]");
                std::process::exit(2);
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("flowmcp-bench-resources-{}", std::process::id()));
    let result = run(&dir, iters, rows, tables);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(message) = result {
        eprintln!("bench_resources: {message}");
        std::process::exit(1);
    }
}

fn run(dir: &Path, iters: usize, rows: usize, tables: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let tokens = dir.join("bench-tokens.db");
    let wide = dir.join("bench-wide.db");
    build(&tokens, &tokens_sql(rows))?;
    build(&wide, &wide_sql(tables))?;

    let engine =
        Database::open(&tokens, Mode::ReadOnly, &Limits::default()).map_err(|e| e.to_string())?;
    // The same open as the engine's read-only mode, so only the engine's own work differs.
    let bare = Connection::open_with_flags(
        format!("file:{}?mode=ro&immutable=1", tokens.display()),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| e.to_string())?;
    // A plain read-only open takes a file lock on every statement; shown for comparison.
    let locking = Connection::open_with_flags(&tokens, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| e.to_string())?;
    let limits = QueryLimits::default();
    println!(
        "bench_resources: {rows} rows, lookup by indexed symbol, {iters} iterations, interleaved"
    );

    let mut t_bare = Vec::with_capacity(iters);
    let mut t_bare_json = Vec::with_capacity(iters);
    let mut t_engine = Vec::with_capacity(iters);
    let mut t_locking = Vec::with_capacity(iters);
    let warmup = iters / 10;
    for i in 0..iters + warmup {
        let symbol = format!("SYM{}", (i * 7919) % rows);
        let param = Value::String(symbol.clone());

        let start = Instant::now();
        let got = bare_query(&bare, &symbol)?;
        let d_bare = start.elapsed();

        let start = Instant::now();
        let got_json = bare_query_json(&bare, &symbol)?;
        let d_bare_json = start.elapsed();

        let start = Instant::now();
        let got_engine = engine
            .query(LOOKUP, std::slice::from_ref(&param), &limits)
            .map_err(|e| e.to_string())?;
        let d_engine = start.elapsed();

        let start = Instant::now();
        let got_locking = bare_query(&locking, &symbol)?;
        let d_locking = start.elapsed();

        if got.len() != 1
            || got_json.len() != 1
            || got_engine.rows.len() != 1
            || got_locking.len() != 1
        {
            return Err(format!("lookup of {symbol} did not return one row"));
        }
        if i >= warmup {
            t_bare.push(d_bare);
            t_bare_json.push(d_bare_json);
            t_engine.push(d_engine);
            t_locking.push(d_locking);
        }
    }
    report(
        "bare rusqlite, plain read-only open (locks)",
        &mut t_locking,
    );
    let p_bare = report("bare rusqlite, immutable open (owned values)", &mut t_bare);
    report("bare rusqlite + JSON row objects", &mut t_bare_json);
    let p_engine = report("engine Database::query (read-only)", &mut t_engine);
    println!(
        "  ratio engine / bare at p50: {:.2}x (target <= 1.30x)",
        p_engine.as_secs_f64() / p_bare.as_secs_f64().max(1e-9)
    );

    let described =
        Database::open(&wide, Mode::ReadOnly, &Limits::default()).map_err(|e| e.to_string())?;
    let count = described
        .describe_tables(&limits)
        .map_err(|e| e.to_string())?
        .rows
        .len();
    let mut t_describe = Vec::new();
    for i in 0..(iters / 20).max(50) + 10 {
        let start = Instant::now();
        let out = described
            .describe_tables(&limits)
            .map_err(|e| e.to_string())?;
        let took = start.elapsed();
        if out.rows.len() != count {
            return Err("describeTables changed its answer".to_owned());
        }
        if i >= 10 {
            t_describe.push(took);
        }
    }
    let p_describe = report(
        &format!("describeTables, {tables} tables, {count} columns"),
        &mut t_describe,
    );
    println!(
        "  describeTables p50: {:.3} ms (target <= 2 ms)",
        p_describe.as_secs_f64() * 1e3
    );
    Ok(())
}

fn build(path: &PathBuf, sql: &str) -> Result<(), String> {
    let _ = std::fs::remove_file(path);
    let conn = Connection::open(path).map_err(|e| e.to_string())?;
    conn.execute_batch(sql).map_err(|e| e.to_string())?;
    conn.close().map_err(|(_, e)| e.to_string())
}

fn tokens_sql(rows: usize) -> String {
    format!(
        "CREATE TABLE tokens (id INTEGER PRIMARY KEY, symbol TEXT NOT NULL, name TEXT, decimals INTEGER, price REAL);
         WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM c WHERE x < {last})
         INSERT INTO tokens (symbol, name, decimals, price)
           SELECT 'SYM' || x, 'Token number ' || x, x % 19, x * 1.25 FROM c;
         CREATE INDEX tokens_symbol ON tokens(symbol);",
        last = rows - 1
    )
}

fn wide_sql(tables: usize) -> String {
    (0..tables)
        .map(|t| {
            format!(
                "CREATE TABLE table_{t} (id INTEGER PRIMARY KEY, name TEXT, kind TEXT, amount REAL, created_at TEXT, owner TEXT, flags INTEGER, payload BLOB);"
            )
        })
        .collect()
}

fn bare_query(conn: &Connection, symbol: &str) -> Result<Vec<Vec<SqlValue>>, String> {
    let mut stmt = conn.prepare_cached(LOOKUP).map_err(|e| e.to_string())?;
    let width = stmt.column_count();
    let mut rows = stmt.query([symbol]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let mut values = Vec::with_capacity(width);
        for i in 0..width {
            values.push(row.get::<_, SqlValue>(i).map_err(|e| e.to_string())?);
        }
        out.push(values);
    }
    Ok(out)
}

fn bare_query_json(conn: &Connection, symbol: &str) -> Result<Vec<Map<String, Value>>, String> {
    let mut stmt = conn.prepare_cached(LOOKUP).map_err(|e| e.to_string())?;
    let names: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let mut rows = stmt.query([symbol]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        let mut object = Map::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let value = match row.get::<_, SqlValue>(i).map_err(|e| e.to_string())? {
                SqlValue::Null => Value::Null,
                SqlValue::Integer(n) => Value::from(n),
                SqlValue::Real(f) => Value::from(f),
                SqlValue::Text(s) => Value::String(s),
                SqlValue::Blob(b) => Value::from(b),
            };
            object.insert(name.clone(), value);
        }
        out.push(object);
    }
    Ok(out)
}

fn report(label: &str, times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    let (p50, p99) = (at(0.50), at(0.99));
    println!(
        "  {label:<48} p50 {:>9.2} µs   p99 {:>9.2} µs",
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
    p50
}
