//! Timing of the markdown engine on a generated document.
//!
//! `cargo run --release -p flowmcp-resources --example bench_markdown -- [--iters N] [--mb M]`
//!
//! Builds a markdown document of about `M` MB (default 2) in memory: many sections of prose,
//! with code blocks whose lines start with `#`. Then it times, over `N` iterations (default 300):
//! making the document, the first search (which case-folds the text once), `search` for a word
//! with many hits and for one with few, the many-hit result made into JSON, a `section` and a
//! `lines` request. Each line gives p50 and p99; the target is at most 5 ms p50 for a search of
//! a 2 MB document.
// Examples and benchmarks make their fixture files freely; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use flowmcp_resources::markdown::Document;

fn main() {
    let mut iters = 300usize;
    let mut mb = 2usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next().and_then(|v| v.parse::<usize>().ok());
        match (a.as_str(), value) {
            ("--iters", Some(n)) if n > 0 => iters = n,
            ("--mb", Some(n)) if n > 0 => mb = n,
            _ => {
                eprintln!("usage: bench_markdown [--iters N] [--mb M]");
                std::process::exit(2);
            }
        }
    }

    let text = document(mb * 1_000_000);
    let built = time(iters.min(50), || Document::new(text.clone()));
    let doc = Document::new(text.clone());
    println!(
        "bench_markdown: {:.2} MB, {} lines, {} headings, {} iterations",
        text.len() as f64 / 1e6,
        doc.line_count(),
        doc.headings().len(),
        iters
    );
    report("make the document", &built);

    let first = time(iters.min(50), || {
        let fresh = Document::new(text.clone());
        let start = Instant::now();
        let _ = fresh.search("zebrafish");
        start.elapsed()
    });
    report("first search (folds the text once)", &first);

    let many = doc.search("value").map(|r| (r.matches, r.ranges.len()));
    let few = doc.search("Zebrafish").map(|r| (r.matches, r.ranges.len()));
    let (Ok(many), Ok(few)) = (many, few) else {
        eprintln!("search failed");
        std::process::exit(1);
    };
    let p50_many = report(
        &format!("search many hits ({} matches, {} ranges)", many.0, many.1),
        &time(iters, || doc.search("value").map(|r| r.matches)),
    );
    let p50_few = report(
        &format!("search few hits ({} matches, {} ranges)", few.0, few.1),
        &time(iters, || doc.search("Zebrafish").map(|r| r.matches)),
    );
    report(
        "search many hits, as JSON",
        &time(iters, || doc.search("value").map(|r| r.to_value())),
    );
    report(
        "section (\"## Section 1000\", of about 5000)",
        &time(iters, || doc.section("## Section 1000").map(|s| s.to)),
    );
    report(
        "lines (1000 lines from the middle)",
        &time(iters, || doc.lines("20000-20999").map(|e| e.text.len())),
    );
    let target = Duration::from_millis(5);
    let verdict = |p: Duration| if p <= target { "ok" } else { "OVER" };
    println!(
        "target: search p50 <= 5 ms: many hits {} ({:.3} ms), few hits {} ({:.3} ms)",
        verdict(p50_many),
        ms(p50_many),
        verdict(p50_few),
        ms(p50_few)
    );
}

/// A document of about `bytes` bytes: sections of prose with code blocks holding `#` lines.
/// "value" occurs in every section; "Zebrafish" (in varying case) three times.
fn document(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str("# Reference\n\nA generated document for timing — with some non-ASCII: Übersicht, Ärger.\n\n");
    let mut i = 0usize;
    let mut rare = 0usize;
    while s.len() < bytes {
        i += 1;
        s.push_str(&format!("## Section {i}\n\n"));
        s.push_str(&format!(
            "This section explains option {i}. Each option takes a value; the default value \
             is chosen so that most callers never set it.\nThe option is read at start and \
             checked against its type before the request is built.\n\n"
        ));
        if i.is_multiple_of(3) {
            s.push_str(&format!(
                "### Details {i}\n\nMore text about limits, errors and retries.\n\n"
            ));
        }
        s.push_str("```sh\n# a comment that is not a heading\nflowmcp call tool --arg 1\n```\n\n");
        s.push_str("| name | type | meaning |\n|------|------|---------|\n| limit | number | how many |\n\n");
        // At a quarter, half and three quarters of the document.
        if rare < 3 && s.len() * 4 >= bytes * (rare + 1) {
            rare += 1;
            s.push_str(if rare == 2 {
                "ZEBRAFISH appear here.\n\n"
            } else {
                "The zebrafish note.\n\n"
            });
        }
    }
    s
}

fn time<T>(n: usize, mut f: impl FnMut() -> T) -> Vec<Duration>
where
    T: Timed,
{
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let r = std::hint::black_box(f());
        out.push(r.duration(start.elapsed()));
    }
    out.sort();
    out
}

/// A result that may carry its own measured duration.
trait Timed {
    fn duration(&self, outer: Duration) -> Duration;
}

impl Timed for Duration {
    fn duration(&self, _: Duration) -> Duration {
        *self
    }
}

impl<T, E> Timed for Result<T, E> {
    fn duration(&self, outer: Duration) -> Duration {
        outer
    }
}

impl Timed for Document {
    fn duration(&self, outer: Duration) -> Duration {
        outer
    }
}

fn report(what: &str, sorted: &[Duration]) -> Duration {
    let at = |q: f64| {
        let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
        sorted.get(i).copied().unwrap_or_default()
    };
    let (p50, p99) = (at(0.5), at(0.99));
    println!(
        "{what:<48} p50 {:>8.3} ms   p99 {:>8.3} ms",
        ms(p50),
        ms(p99)
    );
    p50
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
