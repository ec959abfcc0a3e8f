//! SARIF 2.1.0 output for code-scanning services and editors.
//!
//! [`sarif`] turns a [`Report`] into one SARIF log with a single run:
//!
//! - `tool.driver` names `flowmcp` and lists one `reportingDescriptor` per code that occurs in the
//!   results (in registry order), with the registry summary, a link to `docs/rules/<CODE>.md`, the
//!   registry metadata under `properties`, and `defaultConfiguration.level` taken from the report's
//!   profile;
//! - each diagnostic becomes one `result` whose `level` is the severity it was reported with (after
//!   overrides), located by the file (a relative or `file://` URI), the line and column when known, and
//!   the JSON path inside the export as a logical location (`main.tools.getX`, pointer in
//!   `properties.pointer`).
//!
//! The model below is written for this crate and covers only the parts of the SARIF object model that
//! flowmcp fills in. Output is deterministic: results keep the report's order and rules are sorted.

use std::collections::BTreeMap;

use flowmcp_spec::{
    Code, Diagnostic, Level, Profile, Report, Severity, diagnostic::Seg, registry::Origin,
    registry::RuleInfo,
};
use serde::Serialize;

/// The JSON schema of SARIF 2.1.0 (OASIS, errata 01).
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF version this renderer writes.
pub const SARIF_VERSION: &str = "2.1.0";

/// The project's home: a placeholder until the project has a public address (docs/decisions.md,
/// D103).
pub const REPOSITORY: &str = "https://example.invalid/flowmcp-rs";

/// Renders a run as a pretty-printed SARIF 2.1.0 log.
pub fn sarif(report: &Report) -> String {
    let log = build(report);
    serde_json::to_string_pretty(&log).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// The absolute documentation address of a rule (`…/docs/rules/VAL014.md`).
pub fn rule_help_uri(code: Code) -> String {
    format!("{REPOSITORY}/blob/main/docs/rules/{}.md", code.as_str())
}

// ---------------------------------------------------------------------------------------------
// The SARIF object model (the subset flowmcp writes). Field names follow SARIF 2.1.0 §3.
// ---------------------------------------------------------------------------------------------

/// `sarifLog` (§3.13).
#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

/// `run` (§3.14).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    /// Columns count characters (decisions D9), i.e. Unicode code points.
    column_kind: &'static str,
    results: Vec<SarifResult>,
    properties: RunProperties,
}

#[derive(Serialize)]
struct RunProperties {
    profile: &'static str,
}

/// `tool` (§3.18).
#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

/// `toolComponent` (§3.19), used as the driver.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    information_uri: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<ReportingDescriptor>,
}

/// `reportingDescriptor` (§3.49).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Message,
    help_uri: String,
    help: MultiformatMessage,
    default_configuration: ReportingConfiguration,
    properties: RuleProperties,
}

/// `reportingConfiguration` (§3.50).
#[derive(Serialize)]
struct ReportingConfiguration {
    level: &'static str,
}

/// The rule's registry metadata, in the descriptor's property bag.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleProperties {
    family: &'static str,
    /// The specification file that defines the code, or `flowmcp-rs` for a code the project adds.
    section: &'static str,
    origin: &'static str,
    spec_severity: &'static str,
    compat_severity: &'static str,
    status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    variants: Vec<VariantProperties>,
    /// SARIF's conventional property for categories (§3.8.4).
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VariantProperties {
    name: &'static str,
    spec_severity: &'static str,
    compat_severity: &'static str,
    summary: &'static str,
}

/// `message` (§3.11) with plain text only.
#[derive(Serialize)]
struct Message {
    text: String,
}

/// `multiformatMessageString` (§3.12).
#[derive(Serialize)]
struct MultiformatMessage {
    text: String,
    markdown: String,
}

/// `result` (§3.27).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "ResultProperties::is_empty")]
    properties: ResultProperties,
}

#[derive(Serialize)]
struct ResultProperties {
    /// RFC 6901 pointer into the export (`/main/tools/getX`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pointer: Option<String>,
    /// The named variant of the code that was reported (`v3`, `handlers-only`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'static str>,
}

impl ResultProperties {
    fn is_empty(&self) -> bool {
        self.pointer.is_none() && self.variant.is_none()
    }
}

/// `location` (§3.28).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

/// `physicalLocation` (§3.29).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

/// `artifactLocation` (§3.4).
#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

/// `region` (§3.30); lines and columns are 1-based.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u32>,
}

/// `logicalLocation` (§3.33).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    name: String,
    fully_qualified_name: String,
    kind: &'static str,
}

// ---------------------------------------------------------------------------------------------
// Building the log.
// ---------------------------------------------------------------------------------------------

fn build(report: &Report) -> Log {
    // The codes that occur, in registry order; each gets its index in `driver.rules`.
    let mut codes: Vec<Code> = report
        .reports()
        .iter()
        .flat_map(|r| r.diagnostics().iter().map(|d| d.code))
        .collect();
    codes.sort();
    codes.dedup();
    let index: BTreeMap<Code, usize> = codes.iter().enumerate().map(|(i, c)| (*c, i)).collect();

    let rules = codes
        .iter()
        .map(|c| descriptor(c.info(), report.profile()))
        .collect();
    let results = report
        .reports()
        .iter()
        .flat_map(|r| r.diagnostics().iter())
        .map(|d| result(d, index.get(&d.code).copied().unwrap_or_default()))
        .collect();

    Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "flowmcp",
                    information_uri: REPOSITORY,
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            results,
            properties: RunProperties {
                profile: report.profile().as_str(),
            },
        }],
    }
}

/// The SARIF level of a registry level (`off` is `none`).
fn level_of(level: Level) -> &'static str {
    match level {
        Level::Off => "none",
        Level::Info => "note",
        Level::Warning => "warning",
        Level::Error => "error",
    }
}

/// The SARIF level of an emitted diagnostic.
fn level_of_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "note",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

fn origin_text(origin: Origin) -> &'static str {
    match origin {
        Origin::Spec => "specification v4.2.0",
        Origin::Extension => "project extension",
    }
}

fn descriptor(info: &'static RuleInfo, profile: Profile) -> ReportingDescriptor {
    let code = info.code.as_str();
    let default_level = match profile {
        Profile::Spec => info.spec,
        Profile::Compat => info.compat,
    };
    let doc = format!("docs/rules/{code}.md");
    let mut tags = vec![info.family.as_str()];
    if info.family == flowmcp_spec::registry::Family::Sec {
        tags.push("security");
    }
    // "Defined in `09-validation-rules.md`" for a chapter, "Defined by flowmcp-rs" for the project.
    let (defined, defined_md) = if info.defined_by_project() {
        let text = format!("Defined by {}", info.section);
        (text.clone(), text)
    } else {
        (
            format!("Defined in {}", info.section),
            format!("Defined in `{}`", info.section),
        )
    };
    ReportingDescriptor {
        id: code,
        name: code,
        short_description: Message {
            text: info.summary.to_string(),
        },
        help_uri: rule_help_uri(info.code),
        help: MultiformatMessage {
            text: format!(
                "{summary}. {defined} ({origin}). Severity: {spec} under profile spec, \
                 {compat} under profile compat; a run can set another severity for {code}. \
                 See {doc}.",
                summary = info.summary.trim_end_matches('.'),
                origin = origin_text(info.origin),
                spec = info.spec,
                compat = info.compat,
            ),
            markdown: format!(
                "{summary}.\n\n{defined_md} ({origin}). Severity: **{spec}** under profile \
                 `spec`, **{compat}** under profile `compat`; a run can set another severity for \
                 {code}. See [{doc}]({uri}).",
                summary = info.summary.trim_end_matches('.'),
                origin = origin_text(info.origin),
                spec = info.spec,
                compat = info.compat,
                uri = rule_help_uri(info.code),
            ),
        },
        default_configuration: ReportingConfiguration {
            level: level_of(default_level),
        },
        properties: RuleProperties {
            family: info.family.as_str(),
            section: info.section,
            origin: origin_text(info.origin),
            spec_severity: info.spec.as_str(),
            compat_severity: info.compat.as_str(),
            status: info.status.to_string(),
            variants: info
                .variants
                .iter()
                .map(|v| VariantProperties {
                    name: v.name,
                    spec_severity: v.spec.as_str(),
                    compat_severity: v.compat.as_str(),
                    summary: v.summary,
                })
                .collect(),
            tags,
        },
    }
}

fn result(d: &Diagnostic, rule_index: usize) -> SarifResult {
    let mut text = d.message.clone();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }

    let physical = d.file.as_deref().map(|file| PhysicalLocation {
        artifact_location: ArtifactLocation {
            uri: file_uri(file),
        },
        region: d.line.filter(|l| *l >= 1).map(|line| Region {
            start_line: line,
            start_column: d.column.filter(|c| *c >= 1),
        }),
    });
    let logical: Vec<LogicalLocation> = d
        .pointer
        .as_ref()
        .filter(|p| !p.is_empty())
        .map(|p| LogicalLocation {
            name: match p.last() {
                Some(Seg::Key(k)) => k.clone(),
                Some(Seg::Index(i)) => format!("[{i}]"),
                None => String::new(),
            },
            fully_qualified_name: p.dotted(),
            kind: "member",
        })
        .into_iter()
        .collect();
    let locations = if physical.is_none() && logical.is_empty() {
        Vec::new()
    } else {
        vec![Location {
            physical_location: physical,
            logical_locations: logical,
        }]
    };

    SarifResult {
        rule_id: d.code.as_str(),
        rule_index,
        level: level_of_severity(d.severity),
        message: Message { text },
        locations,
        properties: ResultProperties {
            pointer: d
                .pointer
                .as_ref()
                .filter(|p| !p.is_empty())
                .map(|p| p.pointer()),
            variant: d.variant,
        },
    }
}

/// Turns a file name as given on the command line into a URI reference.
///
/// Relative paths stay relative (forward slashes, percent-encoded where a URI needs it, `:` encoded so
/// the first segment cannot read as a scheme); absolute paths become `file://` URIs (`C:\x` becomes
/// `file:///C:/x`). A name that already is a `file:` URI is kept.
pub fn file_uri(path: &str) -> String {
    if path.starts_with("file:") {
        return path.to_string();
    }
    let slashed = path.replace('\\', "/");
    let bytes = slashed.as_bytes();
    let is_drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/';
    if is_drive {
        // `C:/dir/x.mjs` → `file:///C:/dir/x.mjs` (the drive colon stays).
        let (drive, rest) = slashed.split_at(2);
        return format!("file:///{drive}{}", encode_path(rest, false));
    }
    if let Some(rest) = slashed.strip_prefix("//") {
        // A UNC path `\\server\share\x.mjs`: the server is the authority.
        return format!("file://{}", encode_path(rest, false));
    }
    if slashed.starts_with('/') {
        return format!("file://{}", encode_path(&slashed, false));
    }
    encode_path(&slashed, true)
}

/// Percent-encodes a path for a URI: unreserved characters, `/` and a few safe sub-delimiters stay,
/// everything else (spaces, `%`, `#`, `?`, non-ASCII bytes …) is encoded. `:` is encoded when
/// `relative` so the reference cannot be mistaken for a scheme.
fn encode_path(path: &str, relative: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'/'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'@'
            )
            || (b == b':' && !relative);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowmcp_spec::{FileReport, JsonPath};

    fn diag(code: Code, file: Option<&str>) -> Diagnostic {
        Diagnostic {
            code,
            variant: None,
            severity: Severity::Warning,
            message: "m".into(),
            file: file.map(str::to_string),
            line: None,
            column: None,
            pointer: None,
            path: None,
            help: None,
            fix: None,
        }
    }

    #[test]
    fn uris() {
        assert_eq!(file_uri("fixtures/a b.mjs"), "fixtures/a%20b.mjs");
        assert_eq!(file_uri("dir\\x.mjs"), "dir/x.mjs");
        assert_eq!(file_uri("a:b.mjs"), "a%3Ab.mjs");
        assert_eq!(file_uri("ab:c/d.mjs"), "ab%3Ac/d.mjs");
        assert_eq!(file_uri("/home/u/x#1.mjs"), "file:///home/u/x%231.mjs");
        assert_eq!(file_uri("C:\\work\\x.mjs"), "file:///C:/work/x.mjs");
        assert_eq!(file_uri("\\\\srv\\share\\x.mjs"), "file://srv/share/x.mjs");
        assert_eq!(file_uri("ü.mjs"), "%C3%BC.mjs");
        assert_eq!(file_uri("100%.mjs"), "100%25.mjs");
    }

    #[test]
    fn rules_are_deduplicated_and_indexed() {
        let mut a = diag(Code::VAL036, Some("a.mjs"));
        a.pointer = Some(JsonPath::root("main").key("tools").key("getX"));
        let b = diag(Code::VAL014, None);
        let c = diag(Code::VAL036, Some("a.mjs"));
        let report = Report::new(
            Profile::Compat,
            vec![FileReport::new(
                "a.mjs",
                flowmcp_spec::catalog::FileKind::Schema,
                vec![a, b, c],
            )],
        );
        let v: serde_json::Value = serde_json::from_str(&sarif(&report)).unwrap();
        let run = &v["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["id"], "VAL014");
        assert_eq!(rules[1]["id"], "VAL036");
        for r in run["results"].as_array().unwrap() {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], r["ruleId"]);
        }
        let first = &run["results"][0];
        assert_eq!(
            first["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "main.tools.getX"
        );
        assert_eq!(first["properties"]["pointer"], "/main/tools/getX");
        assert!(run["results"][1].get("locations").is_none());
        assert_eq!(run["properties"]["profile"], "compat");
    }
}
