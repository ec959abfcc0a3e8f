//! The markdown of the rule pages (`docs/rules/*.md`, made by `cargo xtask docs`) as HTML: the
//! subset they use — headings, paragraphs, fenced code, tables, lists, inline code, bold and
//! links. Every piece of text goes through [`esc`]; a link becomes one only when `link` maps its
//! target to a page of the site, otherwise its text stays.

use std::fmt::Write;

use super::html::{code_block, esc};

/// `md` as HTML; `link` turns a link target into a page name of ours, or `None`.
pub(crate) fn to_html(md: &str, link: &dyn Fn(&str) -> Option<String>) -> String {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::with_capacity(md.len() * 2);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        if line.trim().is_empty() {
            i += 1;
        } else if line.starts_with("```") {
            let mut code = String::new();
            i += 1;
            while i < lines.len() && !lines[i].starts_with("```") {
                code.push_str(lines[i]);
                code.push('\n');
                i += 1;
            }
            i += 1;
            out.push_str(&code_block(&code));
        } else if let Some(level) = heading_level(line) {
            let text = line[level..].trim();
            let _ = writeln!(out, "<h{level}>{}</h{level}>", inline(text, link));
            i += 1;
        } else if line.starts_with('|') {
            let start = i;
            while i < lines.len() && lines[i].starts_with('|') {
                i += 1;
            }
            out.push_str(&table(&lines[start..i], link));
        } else if line.starts_with("- ") || line.starts_with("* ") {
            out.push_str("<ul>\n");
            while i < lines.len() && (lines[i].starts_with("- ") || lines[i].starts_with("* ")) {
                let _ = writeln!(out, "<li>{}</li>", inline(lines[i][2..].trim(), link));
                i += 1;
            }
            out.push_str("</ul>\n");
        } else {
            let mut text = String::new();
            while i < lines.len() && is_paragraph_line(lines[i]) {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(lines[i].trim());
                i += 1;
            }
            let _ = writeln!(out, "<p>{}</p>", inline(&text, link));
        }
    }
    out
}

/// The level of a `#` heading line (1 to 6), if it is one.
fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&level) && line[level..].starts_with(' ')).then_some(level)
}

/// Whether a line continues a paragraph (it starts no other block).
fn is_paragraph_line(line: &str) -> bool {
    !line.trim().is_empty()
        && !line.starts_with("```")
        && !line.starts_with('|')
        && !line.starts_with("- ")
        && !line.starts_with("* ")
        && heading_level(line).is_none()
}

/// A table's lines (header, separator, rows) as an HTML table.
fn table(rows: &[&str], link: &dyn Fn(&str) -> Option<String>) -> String {
    let cells = |row: &str| -> Vec<String> {
        let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut out = String::from("<div class=\"scroll\"><table>\n");
    for (n, row) in rows.iter().enumerate() {
        let row = cells(row);
        if n == 1 && row.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch))) {
            continue;
        }
        let tag = if n == 0 { "th" } else { "td" };
        out.push_str("<tr>");
        for c in &row {
            let _ = write!(out, "<{tag}>{}</{tag}>", inline(c, link));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out
}

/// Inline markdown: `` `code` ``, `**bold**`, `[text](target)`; the rest escaped text.
fn inline(text: &str, link: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find(['`', '[', '*']) {
        out.push_str(&esc(&rest[..at]));
        let tail = &rest[at..];
        if let Some(body) = tail.strip_prefix('`')
            && let Some(end) = body.find('`')
        {
            let _ = write!(out, "<code>{}</code>", esc(&body[..end]));
            rest = &body[end + 1..];
        } else if let Some(body) = tail.strip_prefix("**")
            && let Some(end) = body.find("**")
        {
            let _ = write!(out, "<strong>{}</strong>", inline(&body[..end], link));
            rest = &body[end + 2..];
        } else if let Some((label, target, after)) = link_parts(tail) {
            match link(target) {
                Some(page) => {
                    let _ = write!(
                        out,
                        "<a href=\"{}\">{}</a>",
                        esc(&page),
                        inline(label, link)
                    );
                }
                None => out.push_str(&inline(label, link)),
            }
            rest = after;
        } else {
            out.push_str(&esc(&tail[..1]));
            rest = &tail[1..];
        }
    }
    out.push_str(&esc(rest));
    out
}

/// `[label](target)` at the start of `text`: the label, the target and what follows.
fn link_parts(text: &str) -> Option<(&str, &str, &str)> {
    let body = text.strip_prefix('[')?;
    let close = body.find("](")?;
    let label = &body[..close];
    let after_label = &body[close + 2..];
    let end = after_label.find(')')?;
    Some((label, &after_label[..end], &after_label[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subset_renders_and_everything_is_escaped() {
        let md = "# VAL001 — <b>x</b>\n\n| A | B |\n|---|---|\n| `<i>` | **y** |\n\n\
                  Text with [VAL002](VAL002.md) and [evil](javascript:alert).\n\n\
                  - one\n- `two`\n\n```js\n</script><script>\n```\n";
        let html = to_html(md, &|t: &str| {
            (t == "VAL002.md").then(|| "r-VAL002.html".to_string())
        });
        assert!(
            html.contains("<h1>VAL001 — &lt;b&gt;x&lt;/b&gt;</h1>"),
            "{html}"
        );
        assert!(html.contains("<tr><th>A</th><th>B</th></tr>"), "{html}");
        assert!(html.contains("<td><code>&lt;i&gt;</code></td><td><strong>y</strong></td>"));
        assert!(html.contains("<a href=\"r-VAL002.html\">VAL002</a>"));
        assert!(
            html.contains(" and evil.") && !html.contains("javascript"),
            "{html}"
        );
        assert!(html.contains("<li><code>two</code></li>"));
        assert!(html.contains("&lt;/script&gt;&lt;script&gt;"));
        assert!(!html.contains("<script") && !html.contains("<b>") && !html.contains("<i>"));
    }
}
