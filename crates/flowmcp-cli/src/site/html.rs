//! The one escaper of the site, the page frame, and JSON made safe to embed in a script.
//!
//! Every piece of catalog text reaches a page through [`esc`]; every link is to a file name the
//! site made itself ([`super::names::Names`]), never to a URL from the catalog.

use std::fmt::Write;

/// The Content-Security-Policy of every page: our own stylesheet and scripts, nothing else; no
/// inline script or style, no connections, no forms, no base URL.
pub(crate) const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; \
     img-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'";

/// Text or an attribute value made safe for HTML: control characters (other than line breaks
/// and tabs) shown as escapes, then `&`, `<`, `>`, `"` and `'` as entities.
pub(crate) fn esc(text: &str) -> String {
    let visible = flowmcp_spec::diagnostic::escape_controls_in_block(text);
    let mut out = String::with_capacity(visible.len() + 8);
    for c in visible.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON text that cannot end a `<script>` element or a JavaScript string early:
/// `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes (they occur only inside strings).
pub(crate) fn script_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: `title` (escaped here) and `body` (HTML built with [`esc`]); `scripts` are our
/// own script files, loaded in order at the end.
pub(crate) fn page(site: &str, title: &str, body: &str, scripts: &[&str]) -> String {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{} · {}</title>\n<link rel=\"stylesheet\" href=\"site.css\">\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <header><nav aria-label=\"Site\"><a href=\"index.html\">{}</a> \
         <a href=\"index.html#q\">Search</a></nav>\
         <button type=\"button\" id=\"theme\" aria-pressed=\"false\">Dark theme</button></header>\n\
         <main id=\"main\" tabindex=\"-1\">\n{body}</main>\n",
        esc(title),
        esc(site),
        esc(site)
    );
    for s in scripts.iter().chain(&["site.js"]) {
        let _ = writeln!(out, "<script src=\"{}\"></script>", esc(s));
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// `<pre><code>` of some text. The block scrolls sideways when a line is long, so it takes the
/// keyboard's focus (`tabindex="0"`): a keyboard user can scroll it too (WCAG 2.1.1; axe-core's
/// `scrollable-region-focusable`).
pub(crate) fn code_block(text: &str) -> String {
    format!("<pre tabindex=\"0\"><code>{}</code></pre>\n", esc(text))
}

/// `value` as indented JSON in a code block.
pub(crate) fn json_block(value: &serde_json::Value) -> String {
    code_block(&serde_json::to_string_pretty(value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_quotes_and_controls_are_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script>&\"\u{1b}[31m"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;\\u{1b}[31m"
        );
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({"d": "</script><!-- \u{2028}&"});
        let text = script_json(&v);
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert!(!text.contains('\u{2028}'));
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
}
