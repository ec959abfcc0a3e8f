//! A tool's own paging, found from its parameters, so that a cut result can say which call
//! fetches what comes next from the upstream (issue #44, D141).
//!
//! Three forms are recognised by parameter name (case and `_`/`-` ignored):
//!
//! - an **offset** (`offset`, `skip`, `start`): the next call starts after the elements kept, at
//!   the call's offset (or its default, else 0) plus the elements of the cut array kept;
//! - a **page number** (`page`, `pagenumber`, `pageno`): the next page is the call's page (or its
//!   default) plus one; the elements cut from this page are in the whole result;
//! - a **cursor** (`cursor`, `after`, `pagetoken`, `continuation`, `nextcursor`, `starting_after`):
//!   its next value is taken from the answer, a member named like `next_cursor`, `nextCursor`,
//!   `next_page_token`, `cursor` or `after` at the top of the data or one level down in a member
//!   named `meta`, `pagination`, `paging` or `response_metadata`.
//!
//! The form is decided once per served tool ([`Paging::of`]).

use flowmcp_catalog::runtime::ToolDescriptor;
use flowmcp_catalog::serde_json::{Map, Value, json};

/// How a tool pages through its upstream's results.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Paging {
    /// An element offset, named by the parameter; its default when the schema gives one.
    Offset(String, Option<i64>),
    /// A page number, named by the parameter; its default when the schema gives one.
    Page(String, Option<i64>),
    /// A cursor taken from the answer, named by the parameter.
    Cursor(String),
}

/// A parameter name as compared: lower case, without `_` and `-`.
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

impl Paging {
    /// The paging of the tool `d` describes, if its parameters show one (an offset first, then a
    /// page number, then a cursor).
    pub(crate) fn of(d: &ToolDescriptor) -> Option<Paging> {
        let default = |key: &str| {
            d.input_schema
                .get("properties")
                .and_then(|p| p.get(key))
                .and_then(|p| p.get("default"))
                .and_then(Value::as_i64)
        };
        let find = |names: &[&str]| {
            d.params
                .iter()
                .find(|p| names.contains(&folded(&p.key).as_str()))
                .map(|p| p.key.clone())
        };
        if let Some(k) = find(&["offset", "skip", "start"]) {
            let dflt = default(&k);
            return Some(Paging::Offset(k, dflt));
        }
        if let Some(k) = find(&["page", "pagenumber", "pageno"]) {
            let dflt = default(&k);
            return Some(Paging::Page(k, dflt));
        }
        find(&[
            "cursor",
            "after",
            "pagetoken",
            "continuation",
            "nextcursor",
            "startingafter",
        ])
        .map(Paging::Cursor)
    }

    /// The parameter the call's value of which [`Paging::next`] needs.
    pub(crate) fn param(&self) -> &str {
        match self {
            Paging::Offset(k, _) | Paging::Page(k, _) | Paging::Cursor(k) => k,
        }
    }

    /// The arguments that fetch what follows: `current` is the call's value of
    /// [`Paging::param`], `data` the whole answer and `kept` the elements kept of its first cut
    /// array. `None` when the answer does not say (no cursor in it, no page number known).
    pub(crate) fn next(&self, current: Option<&Value>, data: &Value, kept: usize) -> Option<Value> {
        let number = |v: Option<&Value>, dflt: Option<i64>| {
            v.and_then(|v| {
                v.as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            })
            .or(dflt)
        };
        let (key, value) = match self {
            Paging::Offset(k, dflt) => {
                let at = number(current, *dflt).unwrap_or(0);
                (k, json!(at.saturating_add(i64::try_from(kept).ok()?)))
            }
            Paging::Page(k, dflt) => (k, json!(number(current, *dflt)?.checked_add(1)?)),
            Paging::Cursor(k) => (k, cursor_in(data)?),
        };
        let mut args = Map::new();
        args.insert(key.clone(), value);
        Some(Value::Object(args))
    }
}

/// The next cursor an answer carries, if any.
fn cursor_in(data: &Value) -> Option<Value> {
    const NAMES: [&str; 7] = [
        "nextcursor",
        "nextpagetoken",
        "nexttoken",
        "cursor",
        "after",
        "next",
        "continuation",
    ];
    const HOLDERS: [&str; 4] = ["meta", "pagination", "paging", "responsemetadata"];
    let find = |o: &Map<String, Value>| {
        NAMES.iter().find_map(|n| {
            o.iter()
                .find(|(k, v)| folded(k) == *n && (v.is_string() || v.is_i64()))
                .map(|(_, v)| v.clone())
                .filter(|v| v.as_str() != Some(""))
        })
    };
    let top = data.as_object()?;
    find(top).or_else(|| {
        top.iter()
            .filter(|(k, _)| HOLDERS.contains(&folded(k).as_str()))
            .find_map(|(_, v)| v.as_object().and_then(find))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i44_the_next_call_of_each_paging_form() {
        let off = Paging::Offset("offset".into(), None);
        assert_eq!(
            off.next(Some(&json!(40)), &json!([]), 20),
            Some(json!({"offset": 60}))
        );
        assert_eq!(off.next(None, &json!([]), 20), Some(json!({"offset": 20})));
        let page = Paging::Page("page".into(), Some(1));
        assert_eq!(page.next(None, &json!([]), 5), Some(json!({"page": 2})));
        assert_eq!(
            page.next(Some(&json!("3")), &json!([]), 5),
            Some(json!({"page": 4}))
        );
        assert_eq!(
            Paging::Page("page".into(), None).next(None, &json!([]), 5),
            None
        );
        let cur = Paging::Cursor("cursor".into());
        let slack =
            json!({"members": [], "response_metadata": {"next_cursor": "dXNlcjpVMEc5V0ZYTlo="}});
        assert_eq!(
            cur.next(None, &slack, 5),
            Some(json!({"cursor": "dXNlcjpVMEc5V0ZYTlo="}))
        );
        assert_eq!(
            cur.next(None, &json!({"items": [], "nextCursor": ""}), 5),
            None
        );
        assert_eq!(cur.next(None, &json!([1, 2]), 5), None);
    }
}
