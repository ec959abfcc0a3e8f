//! Judging the calls of a phase (leaks, outcomes) and printing the result.
//!
//! A canary leaks when it shows up
//! * in the envelope (data, messages, warnings), a log line of the runner or a panic message — any
//!   canary;
//! * in any request the foreign server received;
//! * in a request the upstream received under another namespace's path than the called schema's;
//! * in a request for a parameter the called schema does not declare in `requiredServerParams`;
//! * in a request where the tool's static request (root, headers, path, parameter values) does not
//!   use the parameter, unless the schema has an `executeRequest` handler that may fetch with it
//!   under compat: a handler or an input put it there;
//! * in a request the sweep's guard refused (it was not for the local servers) that was bound for
//!   another origin than the schema's `root`.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use flowmcp_runtime::{Failure, Toolset};
use flowmcp_spec::{Profile, registry::Family};
use serde_json::{Value, json};

use super::canary::{Canaries, Hit};
use super::catalog::FileInfo;
use super::server::{Record, Side, cut};
use super::worker::{Done, Ending};

/// One leak (identical ones of a call are counted, not repeated).
#[derive(Clone, Debug)]
pub(super) struct Leak {
    pub call: u64,
    pub tool: String,
    pub file: String,
    pub input: String,
    pub param: String,
    pub form: &'static str,
    /// Where it was seen: `envelope data`, `log line`, `foreign server: header X-Steal`, …
    pub place: String,
    /// Which rule it breaks.
    pub rule: String,
    pub count: usize,
}

/// What the judge needs to know about a phase.
pub(super) struct Judge<'a> {
    pub set: &'a Toolset,
    pub files: &'a HashMap<PathBuf, FileInfo>,
    pub canaries: &'a Canaries,
    pub profile: Profile,
}

impl Judge<'_> {
    /// Leaks in the call's envelope and log lines (or its panic message).
    pub(super) fn returned_leaks(&self, done: &Done) -> Vec<Leak> {
        let (envelope, logs) = match &done.ending {
            Ending::Returned { envelope, logs, .. } => (envelope, logs),
            Ending::Panicked(text) => return self.panic_leaks(done, text),
            Ending::Hung => return Vec::new(),
        };
        let mut out = Vec::new();
        // Each member of the envelope apart, to say where; the whole text if it is not an object.
        let parts: Vec<(String, String)> = match serde_json::from_str::<Value>(envelope) {
            Ok(Value::Object(members)) => members
                .iter()
                .map(|(k, v)| (format!("envelope {k}"), v.to_string()))
                .collect(),
            _ => vec![("envelope".to_string(), envelope.clone())],
        };
        for (part, text) in parts {
            for hit in self.canaries.find(&text) {
                out.push(self.leak(done, &hit, part.clone(), "a canary is in the envelope"));
            }
        }
        for line in logs {
            for hit in self.canaries.find(line) {
                out.push(self.leak(
                    done,
                    &hit,
                    format!("log line: {}", cut(line, 160)),
                    "a canary is in a log line",
                ));
            }
        }
        out
    }

    /// Leaks in a panic message (a server prints it to its log).
    fn panic_leaks(&self, done: &Done, text: &str) -> Vec<Leak> {
        self.canaries
            .find(text)
            .iter()
            .map(|hit| {
                self.leak(
                    done,
                    hit,
                    "panic message".into(),
                    "a canary is in a panic message",
                )
            })
            .collect()
    }

    /// Leaks in the requests the servers recorded for the calls of `calls`.
    pub(super) fn request_leaks(
        &self,
        calls: &HashMap<u64, &Done>,
        records: &[Record],
    ) -> Vec<Leak> {
        let mut out: Vec<Leak> = Vec::new();
        for r in records {
            let Some(done) = r.call.and_then(|c| calls.get(&c)) else {
                continue;
            };
            for f in &r.found {
                let Some(rule) = self.request_rule(done, r, &f.hit) else {
                    continue;
                };
                let place = format!("{} {} {}: {}", r.side.as_str(), r.method, r.url, f.part);
                let leak = self.leak(done, &f.hit, place, &rule);
                merge(&mut out, leak);
            }
        }
        out
    }

    /// Leaks in the requests the guard refused: a canary bound for another origin than the
    /// schema's `root` (the schema's own API may receive its parameters).
    pub(super) fn refused_leaks(&self, done: &Done) -> Vec<Leak> {
        let root = self
            .set
            .tools()
            .get(done.job.tool)
            .and_then(|e| self.set.schema_of(e).main.root.as_deref())
            .and_then(|r| url::Url::parse(r).ok())
            .map(|u| u.origin().ascii_serialization());
        let mut out = Vec::new();
        for r in done
            .refused
            .iter()
            .filter(|r| Some(&r.origin) != root.as_ref())
        {
            for f in &r.found {
                let place = format!("refused request to {}: {}", r.url, f.part);
                let rule = format!(
                    "would have gone to {}, not the schema's root (the sweep refused it)",
                    r.origin
                );
                merge(&mut out, self.leak(done, &f.hit, place, &rule));
            }
        }
        out
    }

    /// Requests that carry a canary and name no call of the sweep (every one is a leak).
    pub(super) fn unattributed(
        &self,
        records: &[Record],
        known: &dyn Fn(u64) -> bool,
    ) -> Vec<Leak> {
        let mut out = Vec::new();
        for r in records.iter().filter(|r| r.call.is_none_or(|c| !known(c))) {
            for f in &r.found {
                let param = self.param_of(&f.hit);
                merge(
                    &mut out,
                    Leak {
                        call: r.call.unwrap_or(0),
                        tool: "(unknown call)".into(),
                        file: String::new(),
                        input: String::new(),
                        param,
                        form: f.hit.form,
                        place: format!("{} {} {}: {}", r.side.as_str(), r.method, r.url, f.part),
                        rule: "a request without a known call carries a canary".into(),
                        count: 1,
                    },
                );
            }
        }
        out
    }

    /// Which rule a canary in a recorded request breaks, if any.
    fn request_rule(&self, done: &Done, r: &Record, hit: &Hit) -> Option<String> {
        if r.side == Side::Foreign {
            return Some("the foreign server received a canary".into());
        }
        let entry = self.set.tools().get(done.job.tool)?;
        let schema = self.set.schema_of(entry);
        let ns = &schema.main.namespace;
        let param = self.param_of(hit);
        let first = r
            .path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or("");
        if first != ns {
            return Some(format!(
                "sent under namespace \"{first}\"'s path, the call was for \"{ns}\""
            ));
        }
        if !schema.main.required_server_params.contains(&param) {
            return Some(format!(
                "{param} is not in the schema's requiredServerParams"
            ));
        }
        let info = self.files.get(&super::catalog::canonical(&schema.path));
        let static_use =
            info.is_some_and(|f| f.static_use(&entry.descriptor.tool, &param, self.profile));
        let may_fetch = self.profile.is_compat() && info.is_some_and(|f| f.may_execute);
        if !static_use && !may_fetch {
            return Some(format!(
                "the tool's request does not use {param}: a handler or an input put it there"
            ));
        }
        None
    }

    fn param_of(&self, hit: &Hit) -> String {
        self.canaries
            .list
            .get(hit.canary)
            .map(|c| c.param.clone())
            .unwrap_or_default()
    }

    fn leak(&self, done: &Done, hit: &Hit, place: String, rule: &str) -> Leak {
        let (tool, file) = self.names(done);
        Leak {
            call: done.job.id,
            tool,
            file,
            input: input_text(done),
            param: self.param_of(hit),
            form: hit.form,
            place,
            rule: rule.to_string(),
            count: 1,
        }
    }

    /// The tool's ID and file.
    pub(super) fn names(&self, done: &Done) -> (String, String) {
        match self.set.tools().get(done.job.tool) {
            Some(e) => (
                e.descriptor.id.to_string(),
                self.set.schema_of(e).display.clone(),
            ),
            None => (done.job.wire.clone(), String::new()),
        }
    }
}

/// Adds `leak`, or counts it when the same call already leaked the same way.
fn merge(out: &mut Vec<Leak>, leak: Leak) {
    let same = out.iter_mut().find(|l| {
        l.call == leak.call && l.param == leak.param && l.rule == leak.rule && l.place == leak.place
    });
    match same {
        Some(l) => l.count += 1,
        None => out.push(leak),
    }
}

/// `label {inputs}` (just `{}` for the empty call), cut.
pub(super) fn input_text(done: &Done) -> String {
    let inputs = Value::Object(done.job.inputs.clone()).to_string();
    if done.job.label == inputs {
        return inputs;
    }
    cut(&format!("{} {inputs}", done.job.label), 200)
}

/// The outcome class of a call: `OK`, the E-code of its failure, `FAILED` (a failure with a code
/// of another family), `PANIC`, `HANG`.
pub(super) fn outcome(done: &Done) -> String {
    match &done.ending {
        Ending::Returned { status: true, .. } => "OK".into(),
        Ending::Returned { failure, .. } => failure
            .as_ref()
            .map(Failure::code)
            .filter(|c| c.info().family == Family::E)
            .map_or_else(|| "FAILED".to_string(), |c| c.to_string()),
        Ending::Panicked(_) => "PANIC".into(),
        Ending::Hung => "HANG".into(),
    }
}

/// A failure as a kind: `E005 t: postRequest threw: x is undefined` becomes
/// `E005 postRequest threw: x is undefined` (the code and the message without the tool), cut
/// after 70 characters and before the first URL.
fn failure_kind(failure: &Failure) -> String {
    let rest = failure.message();
    let rest = rest.split("http").next().unwrap_or(rest);
    cut(&format!("{} {}", failure.code(), rest.trim_end()), 70)
}

/// A panic message as a kind, cut like [`failure_kind`]: its first word, then the text after the
/// first `: `.
fn message_kind(message: &str) -> String {
    let (code, rest) = message.split_once(' ').unwrap_or((message, ""));
    let rest = rest.split_once(": ").map_or(rest, |(_, r)| r);
    let rest = rest.split("http").next().unwrap_or(rest);
    cut(&format!("{code} {}", rest.trim_end()), 70)
}

/// A panic or a hang, for the report.
#[derive(Clone, Debug)]
pub(super) struct Incident {
    pub tool: String,
    pub file: String,
    pub input: String,
    pub detail: String,
}

/// The result of one phase (a catalog, or the hostile schemas under one profile).
#[derive(Clone, Debug, Default)]
pub(super) struct PhaseReport {
    pub name: String,
    pub profile: String,
    pub dir: String,
    pub schemas: usize,
    pub problems: Vec<String>,
    pub tools: usize,
    pub calls: usize,
    pub outcomes: BTreeMap<String, usize>,
    /// Per schema file: each call's first message cut like `kinds` (`OK` for a success), with
    /// counts (what a comparison of two sweeps, file by file, needs).
    pub by_file: BTreeMap<String, BTreeMap<String, usize>>,
    /// Up to three distinct first messages per outcome class.
    pub samples: BTreeMap<String, Vec<String>>,
    /// Failure messages without the tool name, cut to a common prefix, with counts.
    pub kinds: BTreeMap<String, usize>,
    pub panics: Vec<Incident>,
    pub hangs: Vec<Incident>,
    pub leaks: Vec<Leak>,
    /// URLs the sweep's guard refused (origin and path), with counts.
    pub refused: BTreeMap<String, usize>,
    pub upstream_requests: usize,
    pub foreign_requests: usize,
    pub elapsed: Duration,
    /// Every call's outcome (kept for the hostile phases, which are small).
    pub details: Vec<(String, String, String)>,
}

impl PhaseReport {
    /// Adds one call's outcome (not its leaks).
    pub(super) fn add(&mut self, judge: &Judge<'_>, done: &Done, keep_details: bool) {
        let class = outcome(done);
        *self.outcomes.entry(class.clone()).or_default() += 1;
        self.calls += 1;
        for r in &done.refused {
            *self.refused.entry(r.url.clone()).or_default() += 1;
        }
        let (tool, file) = judge.names(done);
        let message = match &done.ending {
            Ending::Returned { failure, .. } => failure
                .as_ref()
                .map_or_else(String::new, |f| cut(&f.to_string(), 300)),
            Ending::Panicked(p) => cut(p, 300),
            Ending::Hung => format!("no answer after {:.1} s", done.elapsed.as_secs_f64()),
        };
        let message_kind = match &done.ending {
            Ending::Returned {
                failure: Some(f), ..
            } => failure_kind(f),
            _ => message_kind(&message),
        };
        let kind = if message.is_empty() {
            class.clone()
        } else {
            message_kind.clone()
        };
        *self
            .by_file
            .entry(file.clone())
            .or_default()
            .entry(kind)
            .or_default() += 1;
        if !message.is_empty() {
            *self.kinds.entry(message_kind).or_default() += 1;
            let s = self.samples.entry(class.clone()).or_default();
            if s.len() < 3 && !s.contains(&message) {
                s.push(message.clone());
            }
        }
        let incident = || Incident {
            tool: tool.clone(),
            file: file.clone(),
            input: input_text(done),
            detail: message.clone(),
        };
        match &done.ending {
            Ending::Panicked(_) => self.panics.push(incident()),
            Ending::Hung => self.hangs.push(incident()),
            Ending::Returned { .. } => {}
        }
        if keep_details {
            let shown = if message.is_empty() {
                class
            } else {
                message.clone()
            };
            let shown = format!("{} [{} requests]", cut(&shown, 160), done.sent);
            self.details
                .push((tool.clone(), done.job.label.clone(), shown));
        }
    }

    /// True when the phase found a panic, a hang or a leak.
    pub(super) fn failed(&self) -> bool {
        !self.panics.is_empty() || !self.hangs.is_empty() || !self.leaks.is_empty()
    }

    /// The report as text.
    pub(super) fn print(&self) {
        println!("== {} ({}, profile {})", self.name, self.dir, self.profile);
        println!(
            "   schemas {}, tools {}, load problems {}, calls {} in {:.2} s",
            self.schemas,
            self.tools,
            self.problems.len(),
            self.calls,
            self.elapsed.as_secs_f64()
        );
        let outcomes: Vec<String> = self
            .outcomes
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("   outcomes: {}", outcomes.join(", "));
        println!(
            "   requests: upstream {}, foreign {}; refused by the sweep guard {}",
            self.upstream_requests,
            self.foreign_requests,
            self.refused.values().sum::<usize>()
        );
        println!(
            "   panics {}, hangs {}, leaks {}",
            self.panics.len(),
            self.hangs.len(),
            self.leaks.len()
        );
        for p in &self.problems {
            println!("   problem: {}", cut(p, 200));
        }
        let mut kinds: Vec<(&String, &usize)> = self.kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (kind, n) in kinds.iter().take(12) {
            println!("   {n:>5} × {kind}");
        }
        for (class, msgs) in &self.samples {
            for m in msgs {
                println!("   sample {class}: {m}");
            }
        }
        for i in &self.panics {
            println!("   PANIC {} [{}] {}: {}", i.tool, i.file, i.input, i.detail);
        }
        for i in &self.hangs {
            println!("   HANG  {} [{}] {}: {}", i.tool, i.file, i.input, i.detail);
        }
        for l in &self.leaks {
            println!(
                "   LEAK  {} [{}] {}\n         {} ({}) at {}\n         {}{}",
                l.tool,
                l.file,
                l.input,
                l.param,
                l.form,
                l.place,
                l.rule,
                if l.count > 1 {
                    format!(" (×{})", l.count)
                } else {
                    String::new()
                }
            );
        }
        for (tool, label, msg) in &self.details {
            println!("   call  {tool} {label}: {msg}");
        }
    }

    /// The report as JSON.
    pub(super) fn to_json(&self) -> Value {
        let incidents = |v: &[Incident]| -> Value {
            v.iter()
                .map(|i| json!({"tool": i.tool, "file": i.file, "input": i.input, "detail": i.detail}))
                .collect()
        };
        let leaks: Value = self
            .leaks
            .iter()
            .map(|l| {
                json!({"tool": l.tool, "file": l.file, "input": l.input, "param": l.param,
                       "form": l.form, "place": l.place, "rule": l.rule, "count": l.count})
            })
            .collect();
        let details: Value = self
            .details
            .iter()
            .map(|(t, l, m)| json!({"tool": t, "input": l, "outcome": m}))
            .collect();
        json!({
            "name": self.name,
            "profile": self.profile,
            "dir": self.dir,
            "schemas": self.schemas,
            "tools": self.tools,
            "problems": self.problems,
            "calls": self.calls,
            "outcomes": self.outcomes,
            "samples": self.samples,
            "kinds": self.kinds,
            "files": self.by_file,
            "panics": incidents(&self.panics),
            "hangs": incidents(&self.hangs),
            "leaks": leaks,
            "refused": self.refused,
            "requests": {"upstream": self.upstream_requests, "foreign": self.foreign_requests},
            "seconds": self.elapsed.as_secs_f64(),
            "details": details,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::catalog::Job;
    use flowmcp_runtime::transport::base64_encode;

    fn done(envelope: String, logs: Vec<String>) -> Done {
        Done {
            job: Job {
                id: 7,
                tool: 0,
                schema: 0,
                wire: "t_ns".into(),
                inputs: serde_json::Map::new(),
                label: "{}".into(),
            },
            ending: Ending::Returned {
                envelope,
                status: true,
                failure: None,
                logs,
            },
            elapsed: Duration::ZERO,
            refused: Vec::new(),
            sent: 1,
        }
    }

    #[test]
    fn envelope_and_log_leaks_are_found_in_any_form() {
        let canaries = Canaries::new(["A", "B"]);
        let set = Toolset::default();
        let files = HashMap::new();
        let judge = Judge {
            set: &set,
            files: &files,
            canaries: &canaries,
            profile: Profile::Spec,
        };
        let b = &canaries.list[0].value;
        let hidden = base64_encode(format!("user:{b}").as_bytes());
        let env = json!({"status": true, "messages": [], "data": {"auth": hidden}}).to_string();
        let leaks = judge.returned_leaks(&done(env, vec!["clean".into()]));
        assert_eq!(leaks.len(), 1, "{leaks:?}");
        assert_eq!(leaks[0].param, "A");
        assert_eq!(leaks[0].place, "envelope data");
        let clean = json!({"status": true, "messages": [], "data": "[redacted]"}).to_string();
        let a = canaries.list[1].value.clone();
        let leaks = judge.returned_leaks(&done(clean, vec![format!("GET /x?k={a}")]));
        assert_eq!(leaks.len(), 1);
        assert!(leaks[0].place.starts_with("log line"));
        assert_eq!(outcome(&done(String::new(), Vec::new())), "OK");
    }
}
