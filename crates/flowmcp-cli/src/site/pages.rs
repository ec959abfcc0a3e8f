//! The pages: the index, one per schema file, one per tool entry, one per prompt or skill.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use flowmcp_catalog::runtime::Kind;
use flowmcp_catalog::{Catalog, FileReport, ToolEntry};
use serde_json::{Map, Value, json};

use super::html::{code_block, esc, json_block, page};
use super::index::{self, first_line};
use super::names::Names;

/// Every generated file but the assets, each given to `emit` (file name, text) as soon as it is
/// made, so that no more than one page is held at a time. `tests` is a report of `flowmcp
/// test --format json`, shown on the pages of the entries it names; `rule_docs` the rule pages'
/// markdown by code, each rendered as its rule's page (a rule without one that a finding names
/// gets a page from the registry); `grades` grade reports of `flowmcp grade`, each shown on the
/// page of the schema file whose tools it names.
pub(crate) fn render(
    catalog: &Catalog,
    catalog_arg: &str,
    tests: Option<&Value>,
    grades: &[Value],
    rule_docs: &BTreeMap<String, String>,
    emit: &mut dyn FnMut(String, String) -> Result<(), String>,
) -> Result<(), String> {
    // Entry ID → its results in the test report.
    let results: BTreeMap<&str, &Value> = tests
        .and_then(|t| t.get("schemas"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("primitives").and_then(Value::as_array))
        .flatten()
        .filter_map(|p| Some((p.get("id")?.as_str()?, p)))
        .collect();
    let site = catalog.root().file_name().map_or_else(
        || "catalog".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let set = catalog.toolset();
    let mut names = Names::default();
    // A schema page is named by the file's path inside the catalog (its display path otherwise).
    let root = catalog.root().display().to_string();
    let schema_pages: Vec<String> = set
        .schemas()
        .iter()
        .map(|s| {
            let inside = s.display.strip_prefix(root.as_str());
            names.name(
                "s",
                inside.map_or(&s.display, |p| p.trim_start_matches('/')),
            )
        })
        .collect();
    let tool_pages: Vec<String> = set
        .tools()
        .iter()
        .map(|t| names.name("t", &t.descriptor.lookup_key()))
        .collect();
    let prompts = catalog.library().entries();
    let prompt_pages: Vec<String> = prompts.iter().map(|e| names.name("p", &e.id)).collect();
    let selections = catalog.library().selections();
    let selection_pages: Vec<String> = selections
        .iter()
        .map(|e| names.name("sel", &e.id))
        .collect();
    let agents: Vec<flowmcp_spec::model::AgentManifest> = catalog
        .agent_names()
        .iter()
        .filter_map(|n| catalog.agent_manifest(n))
        .collect();
    let agent_pages: Vec<String> = agents.iter().map(|a| names.name("a", &a.name)).collect();
    let reports: BTreeMap<&str, &FileReport> =
        catalog.reports().iter().map(|r| (r.file(), r)).collect();
    // A page per rule that some finding names.
    let mut codes: BTreeSet<flowmcp_spec::Code> = catalog
        .reports()
        .iter()
        .flat_map(|r| r.diagnostics().iter().map(|d| d.code))
        .collect();
    codes.extend(
        flowmcp_spec::registry::RULES
            .iter()
            .map(|r| r.code)
            .filter(|c| rule_docs.contains_key(c.as_str())),
    );
    let rules: BTreeMap<String, String> = codes
        .iter()
        .map(|c| (c.as_str().to_string(), names.name("r", c.as_str())))
        .collect();

    emit(
        "search-index.js".to_string(),
        index::script(catalog, &tool_pages, &prompt_pages),
    )?;
    emit(
        "index.html".to_string(),
        page(
            &site,
            "Index",
            &index_body(
                catalog,
                &site,
                &IndexPages {
                    schema_pages: &schema_pages,
                    tool_pages: &tool_pages,
                    prompt_pages: &prompt_pages,
                    selection_pages: &selection_pages,
                    agents: &agents.iter().zip(&agent_pages).collect::<Vec<_>>(),
                },
                &rules,
            ),
            &["search-index.js"],
        ),
    )?;
    // Schema → its tool entries, so that no page walks every tool.
    let mut by_schema: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (at, t) in set.tools().iter().enumerate() {
        by_schema.entry(t.schema).or_default().push(at);
    }
    for (i, s) in set.schemas().iter().enumerate() {
        let mut body = format!("<h1>{}</h1>\n<dl>\n", esc(&s.display));
        for (term, value) in [
            ("Namespace", s.main.namespace.as_str()),
            ("Name", s.main.name.as_str()),
            ("Description", s.main.description.as_str()),
        ] {
            let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(value));
        }
        let _ = writeln!(
            body,
            "<dt>Tags</dt><dd>{}</dd>\n<dt>Required server parameters</dt><dd>{}</dd>\n</dl>",
            esc(&s.main.tags.join(", ")),
            esc(&s.main.required_server_params.join(", "))
        );
        body.push_str("<h2>Tools and resource entries</h2>\n<ul>\n");
        for &at in by_schema.get(&i).into_iter().flatten() {
            let d = &set.tools()[at].descriptor;
            let _ = writeln!(
                body,
                "<li><a href=\"{}\">{}</a> — {}</li>",
                esc(&tool_pages[at]),
                esc(&d.lookup_key()),
                esc(first_line(&d.description))
            );
        }
        body.push_str("</ul>\n");
        // A grade report names the primitives of the file it graded.
        let ids: BTreeSet<String> = by_schema
            .get(&i)
            .into_iter()
            .flatten()
            .map(|&at| set.tools()[at].descriptor.lookup_key())
            .collect();
        for g in grades.iter().filter(|g| {
            g.get("primitives")
                .and_then(Value::as_array)
                .is_some_and(|p| p.iter().filter_map(Value::as_str).any(|p| ids.contains(p)))
        }) {
            body.push_str(&grade(g));
        }
        body.push_str(&findings(reports.get(s.display.as_str()).copied(), &rules));
        emit(schema_pages[i].clone(), page(&site, &s.display, &body, &[]))?;
    }
    for (t, p) in set.tools().iter().zip(&tool_pages) {
        let mut body = tool_body(catalog, t, &schema_pages[t.schema], catalog_arg);
        if let Some(r) = results.get(t.descriptor.lookup_key().as_str()) {
            body.push_str(&test_results(r));
        }
        emit(
            p.clone(),
            page(&site, &t.descriptor.lookup_key(), &body, &[]),
        )?;
    }
    // A rule page's link to another rule's page (`VAL014.md`) goes to that page, if there is one.
    let rule_link = |target: &str| {
        let name = target.trim_start_matches("./").strip_suffix(".md")?;
        rules.get(name).cloned()
    };
    for code in &codes {
        let body = match rule_docs.get(code.as_str()) {
            Some(md) => super::md::to_html(md, &rule_link),
            None => rule_from_registry(*code),
        };
        if let Some(page_name) = rules.get(code.as_str()) {
            emit(page_name.clone(), page(&site, code.as_str(), &body, &[]))?;
        }
    }
    // Member ID → page: an entry's lookup key and its ID (a resource's), a prompt's or skill's ID.
    let mut member_pages: BTreeMap<String, &str> = BTreeMap::new();
    for (t, p) in set.tools().iter().zip(&tool_pages) {
        member_pages.entry(t.descriptor.id.to_string()).or_insert(p);
        member_pages.insert(t.descriptor.lookup_key(), p);
    }
    for (e, p) in prompts.iter().zip(&prompt_pages) {
        member_pages.insert(e.id.clone(), p);
    }
    for (sel, p) in selections.iter().zip(&selection_pages) {
        let mut body = format!("<h1>{}</h1>\n<dl>\n", esc(&sel.id));
        for (term, value) in [
            ("File", sel.file.as_str()),
            ("Description", sel.description.as_str()),
            ("When to use", sel.when_to_use.as_str()),
        ] {
            let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(value));
        }
        body.push_str("</dl>\n");
        for (what, members) in [
            ("Tools", &sel.tools),
            ("Resources", &sel.resources),
            ("Prompts", &sel.prompts),
            ("Skills", &sel.skills),
            ("Members that do not resolve", &sel.unresolved),
        ] {
            member_list(&mut body, what, members.iter(), &member_pages);
        }
        emit(p.clone(), page(&site, &sel.id, &body, &[]))?;
    }
    for (agent, p) in agents.iter().zip(&agent_pages) {
        emit(
            p.clone(),
            page(
                &site,
                &agent.name,
                &agent_body(agent, &member_pages, catalog_arg),
                &[],
            ),
        )?;
    }
    for (e, p) in prompts.iter().zip(&prompt_pages) {
        let mut body = format!("<h1>{}</h1>\n<dl>\n", esc(&e.id));
        for (term, value) in [
            ("Kind", e.kind.id_type()),
            ("File", e.file.as_str()),
            ("Description", e.description.as_str()),
            ("When to use", e.when_to_use.as_deref().unwrap_or("—")),
        ] {
            let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(value));
        }
        body.push_str("</dl>\n<h2>Content</h2>\n");
        body.push_str(&code_block(&e.content));
        let _ = write!(
            body,
            "<h2>Get it</h2>\n{}",
            code_block(&format!(
                "flowmcp prompt get {} --catalog {}",
                quote(&e.id),
                quote(catalog_arg)
            ))
        );
        emit(p.clone(), page(&site, &e.id, &body, &[]))?;
    }
    Ok(())
}

/// A heading `what` and the list of `members` (IDs), each linked to its page when the site has
/// one; nothing when there are none.
fn member_list<'m>(
    body: &mut String,
    what: &str,
    members: impl ExactSizeIterator<Item = &'m String>,
    member_pages: &BTreeMap<String, &str>,
) {
    if members.len() == 0 {
        return;
    }
    let _ = writeln!(body, "<h2>{what}</h2>\n<ul>");
    for m in members {
        match member_pages.get(m) {
            Some(page_name) => {
                let _ = writeln!(
                    body,
                    "<li><a href=\"{}\">{}</a></li>",
                    esc(page_name),
                    esc(m)
                );
            }
            None => {
                let _ = writeln!(body, "<li>{}</li>", esc(m));
            }
        }
    }
    body.push_str("</ul>\n");
}

/// An agent's page: what its manifest says (model, limits, system prompt), its tools, prompts,
/// skills and resources (linked where the catalog has a page for them) and the command that runs
/// it.
fn agent_body(
    agent: &flowmcp_spec::model::AgentManifest,
    member_pages: &BTreeMap<String, &str>,
    catalog_arg: &str,
) -> String {
    let mut body = format!("<h1>{}</h1>\n<dl>\n", esc(&agent.name));
    let number = |n: Option<u64>| n.map_or_else(|| "—".to_string(), |n| n.to_string());
    for (term, value) in [
        ("Kind", "agent".to_string()),
        ("Description", agent.description.clone().unwrap_or_default()),
        ("Version", agent.version.clone().unwrap_or_default()),
        ("Model", agent.model.clone().unwrap_or_default()),
        ("Most rounds", number(agent.max_rounds)),
        ("Most tokens", number(agent.max_tokens)),
        ("Tests", agent.tests.len().to_string()),
    ] {
        let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(&value));
    }
    body.push_str("</dl>\n");
    for (what, members) in [
        ("Tools", &agent.tools),
        ("Prompts", &agent.prompts),
        ("Skills", &agent.skills),
        ("Resources", &agent.resources),
    ] {
        member_list(&mut body, what, members.keys(), member_pages);
    }
    if let Some(system) = &agent.system_prompt {
        body.push_str("<h2>System prompt</h2>\n");
        body.push_str(&code_block(system));
    }
    let _ = write!(
        body,
        "<h2>Run it</h2>\n{}",
        code_block(&format!(
            "flowmcp agent run {} '<your request>' --catalog {}",
            quote(&agent.name),
            quote(catalog_arg)
        ))
    );
    body
}

/// A rule's page from the registry: its summary, severities, status and section.
fn rule_from_registry(code: flowmcp_spec::Code) -> String {
    let info = code.info();
    let mut body = format!(
        "<h1>{} — {}</h1>\n<dl>\n",
        esc(code.as_str()),
        esc(info.summary)
    );
    for (term, value) in [
        ("Severity under spec", info.spec.to_string()),
        ("Severity under compat", info.compat.to_string()),
        ("Status", info.status.to_string()),
        ("Specification section", info.section.to_string()),
    ] {
        let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(&value));
    }
    body.push_str("</dl>\n<h2>Explain it</h2>\n");
    body.push_str(&code_block(&format!("flowmcp rules {}", code.as_str())));
    body
}

/// A word for a POSIX shell: as it is when it is plain, else in single quotes.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The shared list a parameter's `z` type names (`enum({{countries:alpha2}})` → `countries:alpha2`).
fn list_reference(primitive: &str) -> Option<&str> {
    let start = primitive.find("{{")? + 2;
    let end = start + primitive[start..].find("}}")?;
    let inner = &primitive[start..end];
    inner.contains(':').then_some(inner)
}

/// The shared lists each parameter of a tool names, by parameter key.
fn list_references(catalog: &Catalog, t: &ToolEntry) -> BTreeMap<String, String> {
    let main = &catalog.toolset().schema_of(t).main;
    main.tools
        .get(&t.descriptor.tool)
        .map(|tool| {
            tool.parameters
                .iter()
                .filter_map(|p| {
                    list_reference(&p.z.primitive).map(|l| (p.position.key.clone(), l.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A tool entry's page body.
fn tool_body(catalog: &Catalog, t: &ToolEntry, schema_page: &str, catalog_arg: &str) -> String {
    let d = &t.descriptor;
    let schema = catalog.toolset().schema_of(t);
    let kind = match &d.kind {
        Kind::Tool => "tool".to_string(),
        Kind::Query { resource, .. } => format!("query of resource {resource}"),
        Kind::Document { resource } => format!("markdown resource {resource}"),
    };
    let mut body = format!("<h1>{}</h1>\n<dl>\n", esc(&d.lookup_key()));
    for (term, value) in [
        ("ID", d.id.to_string()),
        ("MCP name", d.wire_name.clone()),
        ("Kind", kind),
        ("Namespace", d.namespace.clone()),
        (
            "Server parameters",
            if d.required_server_params.is_empty() {
                "none".to_string()
            } else {
                d.required_server_params.join(", ")
            },
        ),
    ] {
        let _ = writeln!(body, "<dt>{term}</dt><dd>{}</dd>", esc(&value));
    }
    let _ = writeln!(
        body,
        "<dt>Schema file</dt><dd><a href=\"{}\">{}</a></dd>\n</dl>",
        esc(schema_page),
        esc(&schema.display)
    );
    let _ = writeln!(
        body,
        "<h2>Description</h2>\n<p class=\"text\">{}</p>",
        esc(&d.description)
    );
    body.push_str(&parameter_table(
        &d.input_schema,
        &list_references(catalog, t),
    ));
    let example: Map<String, Value> = schema
        .main
        .tools
        .get(&d.tool)
        .and_then(|tool| tool.tests.first())
        .map(|test| {
            test.iter()
                .filter(|(k, _)| !k.starts_with('_'))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let input = Value::Object(example.clone()).to_string();
    body.push_str("<h2>Call it</h2>\n");
    body.push_str(&code_block(&format!(
        "flowmcp call {} --catalog {} --input {}",
        quote(&d.lookup_key()),
        quote(catalog_arg),
        quote(&input)
    )));
    body.push_str("<h3>As an MCP request</h3>\n");
    body.push_str(&json_block(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": d.wire_name, "arguments": example},
    })));
    if let Some(output) = &d.output_schema {
        body.push_str("<h2>Output schema</h2>\n");
        body.push_str(&json_block(&output.parse()));
    }
    if let Some(test) = schema
        .main
        .tools
        .get(&d.tool)
        .and_then(|tool| tool.tests.first())
    {
        body.push_str("<h2>Example test</h2>\n");
        body.push_str(&json_block(&json!(test)));
    }
    body
}

/// A JSON value of a report as text: a string as itself, nothing for null or missing, anything
/// else as JSON.
fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// A grade report: the letter, the score, whether validation passed, and each dimension's score.
fn grade(report: &Value) -> String {
    format!("<h2>Grade</h2>\n{}", grade_summary(report))
}

/// A grade report's letter, score, validation and date, and its dimensions as a table.
pub(super) fn grade_summary(report: &Value) -> String {
    let mut out = format!(
        "<p><strong>{}</strong> (score {}, validation passed: {}, {})</p>\n",
        esc(&text(report.get("grade"))),
        esc(&text(report.get("score"))),
        esc(&text(report.get("validationPassed"))),
        esc(&text(report.get("date")))
    );
    let dimensions = report.get("dimensions").and_then(Value::as_array);
    if let Some(dimensions) = dimensions.filter(|d| !d.is_empty()) {
        out.push_str(
            "<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">Dimension</th>\
             <th scope=\"col\">Score</th><th scope=\"col\">Reasoning</th></tr></thead>\n<tbody>\n",
        );
        for d in dimensions {
            let why = ["reasoning", "rationale", "comment", "notes"]
                .iter()
                .find_map(|k| d.get(*k));
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&text(d.get("dimension"))),
                esc(&text(d.get("score"))),
                esc(&text(why))
            );
        }
        out.push_str("</tbody>\n</table></div>\n");
    }
    out
}

/// An entry's results from a test report: its verdict, then each test's.
fn test_results(primitive: &Value) -> String {
    let mut out = format!(
        "<h2>Test results</h2>\n<p>Verdict: <strong>{}</strong> {}</p>\n",
        esc(&text(primitive.get("verdict"))),
        esc(&text(primitive.get("reason")))
    );
    let tests = primitive.get("tests").and_then(Value::as_array);
    let Some(tests) = tests.filter(|t| !t.is_empty()) else {
        return out;
    };
    out.push_str(
        "<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">Test</th>\
         <th scope=\"col\">Passed</th><th scope=\"col\">Code</th><th scope=\"col\">Messages</th>\
         </tr></thead>\n<tbody>\n",
    );
    for t in tests {
        let messages: Vec<String> = t
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|m| text(Some(m)))
            .collect();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&text(t.get("description"))),
            esc(&text(t.get("passed"))),
            esc(&text(t.get("code"))),
            esc(&messages.join("; "))
        );
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// The parameters of an input schema as a table: name, type, required, default, allowed values,
/// shared list, description.
fn parameter_table(schema: &Value, lists: &BTreeMap<String, String>) -> String {
    let props = schema.get("properties").and_then(Value::as_object);
    let Some(props) = props.filter(|p| !p.is_empty()) else {
        return "<h2>Parameters</h2>\n<p>No parameters.</p>\n".into();
    };
    let required: BTreeSet<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from(
        "<h2>Parameters</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">Name</th>\
         <th scope=\"col\">Type</th><th scope=\"col\">Required</th><th scope=\"col\">Default</th>\
         <th scope=\"col\">Allowed values</th><th scope=\"col\">Shared list</th>\
         <th scope=\"col\">Description</th></tr></thead>\n<tbody>\n",
    );
    let text = |v: Option<&Value>| match v {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    for (name, p) in props {
        let allowed = p
            .get("enum")
            .and_then(Value::as_array)
            .map(|values| {
                values
                    .iter()
                    .map(|v| text(Some(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            esc(name),
            esc(&text(p.get("type"))),
            if required.contains(name.as_str()) {
                "yes"
            } else {
                "no"
            },
            esc(&text(p.get("default"))),
            esc(&allowed),
            esc(lists.get(name).map_or("", String::as_str)),
            esc(&text(p.get("description")))
        );
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// A file's validation findings as a list (or a line saying there are none).
fn findings(report: Option<&FileReport>, rules: &BTreeMap<String, String>) -> String {
    match report.filter(|r| !r.diagnostics().is_empty()) {
        Some(report) => format!("<h2>Findings</h2>\n{}", finding_list(report, rules)),
        None => "<h2>Findings</h2>\n<p>No findings.</p>\n".into(),
    }
}

/// A report's findings as a list: code (linked to its rule's page), severity, place, message.
fn finding_list(report: &FileReport, rules: &BTreeMap<String, String>) -> String {
    let mut out = String::from("<ul class=\"findings\">\n");
    for d in report.diagnostics() {
        let place = match (d.line, &d.path) {
            (Some(line), _) => format!(" line {line}"),
            (None, Some(path)) => format!(" {path}"),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            out,
            "<li><a href=\"{}\"><code>{}</code></a> {}{}: {}</li>",
            esc(rules
                .get(d.code.as_str())
                .map_or("index.html", String::as_str)),
            esc(d.code.as_str()),
            esc(&format!("{:?}", d.severity).to_lowercase()),
            esc(&place),
            esc(&d.message)
        );
    }
    out.push_str("</ul>\n");
    out
}

/// The pages the index links to, in the order of what they show.
#[derive(Clone, Copy)]
struct IndexPages<'a> {
    schema_pages: &'a [String],
    tool_pages: &'a [String],
    prompt_pages: &'a [String],
    selection_pages: &'a [String],
    agents: &'a [(&'a flowmcp_spec::model::AgentManifest, &'a String)],
}

/// The index page's body: search, namespaces with counts and tags, schema files, prompts and
/// skills, shared lists with the tools that use them, load problems.
fn index_body(
    catalog: &Catalog,
    site: &str,
    pages: &IndexPages<'_>,
    rules: &BTreeMap<String, String>,
) -> String {
    let IndexPages {
        schema_pages,
        tool_pages,
        prompt_pages,
        selection_pages,
        agents,
    } = *pages;
    let set = catalog.toolset();
    let mut body = format!(
        "<h1>{}</h1>\n<section aria-labelledby=\"search-h\"><h2 id=\"search-h\">Search</h2>\n\
         <div role=\"search\"><label for=\"q\">Tools, prompts and skills (press /)</label> \
         <input id=\"q\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\"></div>\n\
         <p id=\"search-note\" aria-live=\"polite\"></p>\n<ol id=\"results\"></ol></section>\n",
        esc(site)
    );
    // Namespace → (schema files, tools, resource entries, prompts and skills, tags).
    #[derive(Default)]
    struct Counts {
        files: usize,
        tools: usize,
        resources: usize,
        prompts: usize,
        tags: BTreeSet<String>,
    }
    let mut spaces: BTreeMap<String, Counts> = BTreeMap::new();
    for s in set.schemas() {
        let c = spaces.entry(s.main.namespace.clone()).or_default();
        c.files += 1;
        c.tags.extend(s.main.tags.iter().cloned());
    }
    for t in set.tools() {
        let c = spaces.entry(t.descriptor.namespace.clone()).or_default();
        match t.descriptor.kind {
            Kind::Tool => c.tools += 1,
            _ => c.resources += 1,
        }
    }
    for e in catalog.library().entries() {
        spaces.entry(e.owner.clone()).or_default().prompts += 1;
    }
    body.push_str(
        "<section aria-labelledby=\"ns-h\"><h2 id=\"ns-h\">Namespaces</h2>\n<div class=\"scroll\">\
         <table>\n<thead><tr><th scope=\"col\">Namespace</th><th scope=\"col\">Schema files</th>\
         <th scope=\"col\">Tools</th><th scope=\"col\">Resource entries</th>\
         <th scope=\"col\">Prompts and skills</th><th scope=\"col\">Tags</th></tr></thead>\n<tbody>\n",
    );
    for (ns, c) in &spaces {
        let tags: Vec<&str> = c.tags.iter().map(String::as_str).collect();
        let _ = writeln!(
            body,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(ns),
            c.files,
            c.tools,
            c.resources,
            c.prompts,
            esc(&tags.join(", "))
        );
    }
    body.push_str("</tbody>\n</table></div></section>\n");

    body.push_str(
        "<section aria-labelledby=\"files-h\"><h2 id=\"files-h\">Schema files</h2>\n<ul>\n",
    );
    for (s, p) in set.schemas().iter().zip(schema_pages) {
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a> ({})</li>",
            esc(p),
            esc(&s.display),
            esc(&s.main.namespace)
        );
    }
    body.push_str("</ul></section>\n");

    body.push_str("<section aria-labelledby=\"tools-h\"><h2 id=\"tools-h\">Tools</h2>\n<ul>\n");
    for (t, p) in set.tools().iter().zip(tool_pages) {
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a> — {}</li>",
            esc(p),
            esc(&t.descriptor.lookup_key()),
            esc(first_line(&t.descriptor.description))
        );
    }
    body.push_str("</ul></section>\n");

    let prompts = catalog.library().entries();
    if !prompts.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"prompts-h\"><h2 id=\"prompts-h\">Prompts and skills</h2>\n<ul>\n",
        );
        for (e, p) in prompts.iter().zip(prompt_pages) {
            let _ = writeln!(
                body,
                "<li><a href=\"{}\">{}</a> ({}) — {}</li>",
                esc(p),
                esc(&e.id),
                e.kind.id_type(),
                esc(first_line(&e.description))
            );
        }
        body.push_str("</ul></section>\n");
    }

    let selections = catalog.library().selections();
    if !selections.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"sel-h\"><h2 id=\"sel-h\">Selections</h2>\n<ul>\n",
        );
        for (e, p) in selections.iter().zip(selection_pages) {
            let _ = writeln!(
                body,
                "<li><a href=\"{}\">{}</a> — {}</li>",
                esc(p),
                esc(&e.id),
                esc(first_line(&e.description))
            );
        }
        body.push_str("</ul></section>\n");
    }

    if !agents.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"agents-h\"><h2 id=\"agents-h\">Agents</h2>\n<ul>\n",
        );
        for (a, p) in agents {
            let _ = writeln!(
                body,
                "<li><a href=\"{}\">{}</a> — {}</li>",
                esc(p),
                esc(&a.name),
                esc(first_line(a.description.as_deref().unwrap_or_default()))
            );
        }
        body.push_str("</ul></section>\n");
    }

    // Shared list → the tools (with their pages) whose parameters name it.
    let mut lists: BTreeMap<String, BTreeSet<(String, &str)>> = BTreeMap::new();
    for (t, p) in set.tools().iter().zip(tool_pages) {
        for reference in list_references(catalog, t).into_values() {
            let list = reference.split(':').next().unwrap_or_default().to_string();
            lists
                .entry(list)
                .or_default()
                .insert((t.descriptor.lookup_key(), p.as_str()));
        }
    }
    if !lists.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"lists-h\"><h2 id=\"lists-h\">Shared lists</h2>\n<dl>\n",
        );
        for (list, users) in &lists {
            let links: Vec<String> = users
                .iter()
                .map(|(id, p)| format!("<a href=\"{}\">{}</a>", esc(p), esc(id)))
                .collect();
            let _ = writeln!(body, "<dt>{}</dt><dd>{}</dd>", esc(list), links.join(", "));
        }
        body.push_str("</dl></section>\n");
    }

    if !rules.is_empty() {
        body.push_str("<section aria-labelledby=\"rules-h\"><h2 id=\"rules-h\">Rules</h2>\n<p>");
        let links: Vec<String> = rules
            .iter()
            .map(|(code, p)| format!("<a href=\"{}\">{}</a>", esc(p), esc(code)))
            .collect();
        body.push_str(&links.join(" "));
        body.push_str("</p></section>\n");
    }
    // Findings of files without a page of their own (the manifest, files that do not load).
    let paged: BTreeSet<&str> = set.schemas().iter().map(|s| s.display.as_str()).collect();
    let others: Vec<&FileReport> = catalog
        .reports()
        .iter()
        .filter(|r| !paged.contains(r.file()) && !r.diagnostics().is_empty())
        .collect();
    if !others.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"other-h\"><h2 id=\"other-h\">Other findings</h2>\n",
        );
        for r in others {
            let _ = writeln!(body, "<h3>{}</h3>", esc(r.file()));
            body.push_str(&finding_list(r, rules));
        }
        body.push_str("</section>\n");
    }
    if !set.problems().is_empty() {
        body.push_str(
            "<section aria-labelledby=\"problems-h\"><h2 id=\"problems-h\">Files that do not load</h2>\n<ul>\n",
        );
        for p in set.problems() {
            let _ = writeln!(body, "<li>{}: {}</li>", esc(&p.file), esc(&p.message));
        }
        body.push_str("</ul></section>\n");
    }
    body
}
