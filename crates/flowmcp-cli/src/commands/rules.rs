//! `flowmcp rules`: the rule registry listed, or one rule explained.

use std::process::ExitCode;

use clap::Args;
use flowmcp_spec::diagnostic::Applicability;
use flowmcp_spec::registry::fixes::fixes_of;
use flowmcp_spec::{Code, Level, registry::RULES, registry::Status};

use crate::output::{Format, write_stdout};

#[derive(Args, Debug)]
pub(crate) struct RulesArgs {
    /// A rule code to explain (e.g. VAL014). Without it, every rule is listed.
    code: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The status for the table of all rules: a not-emitted code's reason is left to
/// `flowmcp rules CODE`, so that the column stays narrow.
fn status_short(s: Status) -> String {
    match s {
        Status::NotEmitted(_) => s.label().to_string(),
        other => other.to_string(),
    }
}

/// The fix column: `safe`, `unsafe`, `both` or empty.
fn fix_short(code: Code) -> &'static str {
    let (mut safe, mut unsafe_) = (false, false);
    for f in fixes_of(code) {
        match f.applicability {
            Applicability::Safe => safe = true,
            Applicability::Unsafe => unsafe_ = true,
        }
    }
    match (safe, unsafe_) {
        (true, true) => "both",
        (true, false) => "safe",
        (false, true) => "unsafe",
        (false, false) => "",
    }
}

pub(crate) fn run(a: RulesArgs) -> Result<ExitCode, String> {
    let selected: Vec<_> = match &a.code {
        Some(code) => {
            let c = Code::parse(code)
                .ok_or_else(|| format!("unknown rule code {code:?} (see `flowmcp rules`)"))?;
            vec![c.info()]
        }
        None => RULES.iter().collect(),
    };
    if a.format != Format::Human {
        let s = serde_json::to_string_pretty(&selected).map_err(|e| e.to_string())?;
        write_stdout(&format!("{s}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    if let [one] = selected.as_slice()
        && a.code.is_some()
    {
        out.push_str(&format!("{}: {}\n\n", one.code, one.summary));
        out.push_str(&format!("  family:   {}\n", one.family.as_str()));
        out.push_str(&format!(
            "  origin:   {}\n",
            match one.origin {
                flowmcp_spec::registry::Origin::Spec => "specification v4.2.0",
                flowmcp_spec::registry::Origin::Extension => "project extension",
            }
        ));
        if one.defined_by_project() {
            out.push_str(&format!(
                "  section:  {} (not part of the specification)\n",
                one.section
            ));
        } else {
            out.push_str(&format!("  section:  {}\n", one.section));
        }
        out.push_str(&format!(
            "  severity: {} (spec), {} (compat)\n",
            one.spec, one.compat
        ));
        for v in one.variants {
            out.push_str(&format!(
                "  variant {:?}: {} (spec), {} (compat) — {}\n",
                v.name, v.spec, v.compat, v.summary
            ));
        }
        out.push_str(&format!("  status:   {}\n", one.status));
        for f in fixes_of(one.code) {
            out.push_str(&format!(
                "  fix ({}): {}\n",
                f.applicability.as_str(),
                f.how
            ));
        }
        if one.is_runtime() {
            out.push_str(
                "\nReported when a call or an agent runs, never by validation: `--rule` does not \
                 change it.\n",
            );
        } else {
            out.push_str(&format!(
                "\nOverride it with `--rule {}=off|info|warning|error`.\n",
                one.code
            ));
        }
    } else {
        // The longest code (`AGENT001`) sets the first column's width.
        let width = RULES
            .iter()
            .map(|r| r.code.as_str().len())
            .max()
            .unwrap_or(7);
        out.push_str(&format!(
            "{:<width$} {:<8} {:<8} {:<24} {:<6} {}\n",
            "CODE", "SPEC", "COMPAT", "STATUS", "FIX", "SUMMARY"
        ));
        for r in &selected {
            let lvl = |l: Level| {
                if r.variants.is_empty() {
                    l.to_string()
                } else {
                    format!("{l}*")
                }
            };
            out.push_str(&format!(
                "{:<width$} {:<8} {:<8} {:<24} {:<6} {}\n",
                r.code.as_str(),
                lvl(r.spec),
                lvl(r.compat),
                status_short(r.status),
                fix_short(r.code),
                r.summary
            ));
        }
        let implemented = selected
            .iter()
            .filter(|r| r.status == Status::Implemented)
            .count();
        out.push_str(&format!(
            "\n{} rules, {implemented} implemented. * = has variants with other severities (`flowmcp rules CODE`). FIX: `validate --fix` repairs its findings (safe), `--unsafe-fixes` does (unsafe), or it has both kinds of fix.\n",
            selected.len()
        ));
    }
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
