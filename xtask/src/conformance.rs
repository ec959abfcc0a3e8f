//! `cargo xtask conformance <dir> [--profile spec|compat] [--expect FILE] [--write FILE]`
//!
//! Validates every `.mjs` file under `<dir>`, prints a summary (files, verdicts, a histogram of codes,
//! timing) and, with `--expect`, compares each file's verdict and error codes with an expectations
//! file of JSON lines `{"file":"relative/path.mjs","verdict":"valid","errors":["VAL014"]}` (error
//! codes sorted, one entry per diagnostic). Every difference is printed and makes the command fail.
//! `--write FILE` records the current results (atomically).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use flowmcp_catalog::ListDiscovery;
use flowmcp_spec::{FileReport, Profile, Severity};
use flowmcp_validate::Options;
use serde_json::{Value, json};

/// The outcome of one file, as recorded in an expectations file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub file: String,
    pub verdict: String,
    pub errors: Vec<String>,
}

impl Outcome {
    fn of(rel: String, r: &FileReport) -> Outcome {
        let mut errors: Vec<String> = r
            .diagnostics()
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.code.as_str().to_string())
            .collect();
        errors.sort();
        Outcome {
            file: rel,
            verdict: if r.counts().errors > 0 {
                "invalid"
            } else {
                "valid"
            }
            .into(),
            errors,
        }
    }

    fn to_line(&self) -> String {
        json!({ "file": self.file, "verdict": self.verdict, "errors": self.errors }).to_string()
    }
}

/// Every `.mjs` file under `dir`, sorted, with its path relative to `dir` (forward slashes).
pub(crate) fn corpus_files(dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", d.display()))?;
            let p = e.path();
            let ft = e.file_type().map_err(|e| format!("{}: {e}", p.display()))?;
            let name = e.file_name().to_string_lossy().to_string();
            if ft.is_dir() {
                if !name.starts_with('.') && name != "node_modules" {
                    stack.push(p);
                }
            } else if name.ends_with(".mjs") {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap_or(&p)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().to_string())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((p, rel));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

/// Validates every file (on all cores) and returns the reports in file order.
pub(crate) fn validate_corpus(files: &[(PathBuf, String)], profile: Profile) -> Vec<FileReport> {
    let opts = Options::new(profile);
    let discovery = ListDiscovery::new();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .max(1);
    let chunk = files.len().div_ceil(threads).max(1);
    let mut out: Vec<FileReport> = Vec::with_capacity(files.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let opts = &opts;
                let discovery = &discovery;
                s.spawn(move || {
                    part.iter()
                        .map(|(p, rel)| discovery.validate_file(p, rel, opts))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            if let Ok(v) = h.join() {
                out.extend(v);
            }
        }
    });
    out
}

/// Reads an expectations file.
pub(crate) fn read_expectations(path: &Path) -> Result<Vec<Outcome>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let file = v["file"]
            .as_str()
            .ok_or_else(|| format!("{}:{}: missing \"file\"", path.display(), n + 1))?;
        let verdict = v["verdict"].as_str().unwrap_or("valid");
        let errors = v["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        out.push(Outcome {
            file: file.to_string(),
            verdict: verdict.to_string(),
            errors,
        });
    }
    Ok(out)
}

/// The differences between expected and actual outcomes, one line each.
pub(crate) fn compare(expected: &[Outcome], actual: &[Outcome]) -> Vec<String> {
    let exp: BTreeMap<&str, &Outcome> = expected.iter().map(|o| (o.file.as_str(), o)).collect();
    let act: BTreeMap<&str, &Outcome> = actual.iter().map(|o| (o.file.as_str(), o)).collect();
    let mut diffs = Vec::new();
    for (file, e) in &exp {
        match act.get(file) {
            None => diffs.push(format!("{file}: expected in the corpus but not found")),
            Some(a) => {
                if a.verdict != e.verdict {
                    diffs.push(format!(
                        "{file}: verdict {} (expected {})",
                        a.verdict, e.verdict
                    ));
                }
                if a.errors != e.errors {
                    diffs.push(format!(
                        "{file}: errors {:?} (expected {:?})",
                        a.errors, e.errors
                    ));
                }
            }
        }
    }
    for file in act.keys().filter(|f| !exp.contains_key(*f)) {
        diffs.push(format!("{file}: not in the expectations file"));
    }
    diffs
}

/// Writes `text` to `path` atomically (temp file in the same directory, then rename).
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    flowmcp_loader::edit::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut dir: Option<PathBuf> = None;
    let mut profile = Profile::Spec;
    let mut expect: Option<PathBuf> = None;
    let mut write: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => {
                profile = it
                    .next()
                    .ok_or("--profile needs a value")?
                    .parse()
                    .map_err(|e: flowmcp_spec::SettingError| e.to_string())?
            }
            "--expect" => expect = Some(PathBuf::from(it.next().ok_or("--expect needs a file")?)),
            "--write" => write = Some(PathBuf::from(it.next().ok_or("--write needs a file")?)),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => dir = Some(PathBuf::from(other)),
        }
    }
    let dir = dir.ok_or(
        "usage: cargo xtask conformance <dir> [--profile P] [--expect FILE] [--write FILE]",
    )?;
    let files = corpus_files(&dir)?;
    let started = Instant::now();
    let reports = validate_corpus(&files, profile);
    let elapsed = started.elapsed();
    let outcomes: Vec<Outcome> = files
        .iter()
        .zip(&reports)
        .map(|((_, rel), r)| Outcome::of(rel.clone(), r))
        .collect();

    let valid = outcomes.iter().filter(|o| o.verdict == "valid").count();
    let mut histogram: BTreeMap<(String, &'static str), usize> = BTreeMap::new();
    for r in &reports {
        for d in r.diagnostics() {
            *histogram
                .entry((d.code.as_str().to_string(), d.severity.as_str()))
                .or_default() += 1;
        }
    }
    let mut rows: Vec<_> = histogram.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("corpus:   {}", dir.display());
    println!("profile:  {}", profile.as_str());
    println!("files:    {}", outcomes.len());
    println!(
        "verdicts: {valid} valid, {} invalid",
        outcomes.len() - valid
    );
    println!("time:     {:.1} ms", elapsed.as_secs_f64() * 1000.0);
    println!("codes:");
    for ((code, sev), n) in &rows {
        println!("  {code:<7} {sev:<8} {n}");
    }

    if let Some(path) = write {
        let mut text: String = outcomes.iter().map(|o| o.to_line() + "\n").collect();
        if text.is_empty() {
            text.push('\n');
        }
        write_atomic(&path, &text)?;
        println!(
            "wrote {} expectations to {}",
            outcomes.len(),
            path.display()
        );
    }
    if let Some(path) = expect {
        let expected = read_expectations(&path)?;
        let diffs = compare(&expected, &outcomes);
        if !diffs.is_empty() {
            for d in &diffs {
                println!("DIFF {d}");
            }
            return Err(format!(
                "{} difference(s) from {}",
                diffs.len(),
                path.display()
            ));
        }
        println!("matches {} ({} files)", path.display(), expected.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_match_their_expectations() {
        let root = crate::workspace_root();
        let dir = root.join("examples");
        let files = corpus_files(&dir).unwrap();
        assert!(!files.is_empty());
        let reports = validate_corpus(&files, Profile::Spec);
        let outcomes: Vec<Outcome> = files
            .iter()
            .zip(&reports)
            .map(|((_, rel), r)| Outcome::of(rel.clone(), r))
            .collect();
        let expected = read_expectations(&root.join("examples/expectations.jsonl")).unwrap();
        let diffs = compare(&expected, &outcomes);
        assert!(
            diffs.is_empty(),
            "examples differ from examples/expectations.jsonl:\n{}",
            diffs.join("\n")
        );
    }

    #[test]
    fn compare_reports_every_kind_of_difference() {
        let o = |f: &str, v: &str, e: &[&str]| Outcome {
            file: f.into(),
            verdict: v.into(),
            errors: e.iter().map(|s| s.to_string()).collect(),
        };
        let expected = vec![
            o("a.mjs", "valid", &[]),
            o("b.mjs", "invalid", &["VAL014"]),
            o("gone.mjs", "valid", &[]),
        ];
        let actual = vec![
            o("a.mjs", "invalid", &["VAL011"]),
            o("b.mjs", "invalid", &["VAL014"]),
            o("new.mjs", "valid", &[]),
        ];
        let d = compare(&expected, &actual);
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(compare(&actual, &actual).is_empty());
    }
}
