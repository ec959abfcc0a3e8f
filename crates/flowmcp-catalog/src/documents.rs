//! The catalog's markdown resources as MCP-style resources: each document has the URI
//! `flowmcp://<namespace>/resource/<name>` (its Primitive-ID behind the `flowmcp://` scheme),
//! read whole, and a template `flowmcp://<namespace>/resource/<name>{?section,lines,search}` for
//! a part of it. Reading goes through the same call as `flowmcp call <id>`, so a resource read
//! and a tool call of the document cannot answer differently.

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use crate::primitives::{
    PrimitiveError, ResourceBody, ResourceContent, ResourceInfo, ResourceSource,
    ResourceTemplateInfo,
};
use flowmcp_resources::markdown::MarkdownError;
use flowmcp_spec::Code;

use crate::caller::Caller;
use crate::{runtime::Kind, runtime::Toolset};

/// The URI scheme of the catalog's own resources.
pub(crate) const SCHEME: &str = "flowmcp://";

/// The access arguments a document takes, in the order the template lists them.
const ACCESS: [&str; 3] = ["section", "lines", "search"];

/// One document as listed.
#[derive(Clone, Debug)]
struct Doc {
    /// `flowmcp://<namespace>/resource/<name>`.
    uri: String,
    /// The resource's key.
    name: String,
    /// The entry's wire name (what a read calls).
    wire_name: String,
    /// The resource's description.
    description: String,
}

/// The markdown resources of a toolset, as a [`ResourceSource`].
#[derive(Debug, Default)]
pub(crate) struct Documents {
    docs: Vec<Doc>,
}

impl Documents {
    /// The exposed markdown resources of `set`, in catalog order.
    pub(crate) fn of(set: &Toolset) -> Documents {
        let docs = set
            .exposed()
            .filter_map(|t| {
                let d = &t.descriptor;
                let Kind::Document { resource } = &d.kind else {
                    return None;
                };
                let description = d
                    .meta
                    .as_ref()
                    .and_then(|m| m.get("anthropic/searchHint"))
                    .and_then(Value::as_str)
                    .unwrap_or(&d.description)
                    .to_string();
                Some(Doc {
                    uri: format!("{SCHEME}{}", d.id),
                    name: resource.clone(),
                    wire_name: d.wire_name.clone(),
                    description,
                })
            })
            .collect();
        Documents { docs }
    }

    /// Whether there is no document.
    pub(crate) fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

impl ResourceSource for Documents {
    fn resources(&self) -> Vec<ResourceInfo> {
        self.docs
            .iter()
            .map(|d| ResourceInfo {
                uri: d.uri.clone(),
                name: d.name.clone(),
                title: None,
                description: Some(d.description.clone()),
                mime_type: Some("text/markdown".into()),
            })
            .collect()
    }

    fn templates(&self) -> Vec<ResourceTemplateInfo> {
        self.docs
            .iter()
            .map(|d| ResourceTemplateInfo {
                uri_template: format!("{}{{?{}}}", d.uri, ACCESS.join(",")),
                name: format!("{} (part)", d.name),
                title: None,
                description: Some(format!(
                    "{} — one part: `section` (a heading), `lines` (`from-to`) or `search` (text, with 2 lines of context)",
                    d.description
                )),
                mime_type: Some("text/markdown".into()),
            })
            .collect()
    }

    fn read(
        &self,
        uri: &str,
        caller: &Caller<'_>,
    ) -> Result<Option<Vec<ResourceContent>>, PrimitiveError> {
        let (base, query) = uri.split_once('?').unwrap_or((uri, ""));
        let Some(doc) = self.docs.iter().find(|d| d.uri == base) else {
            return Ok(None);
        };
        let args = access_arguments(query)?;
        let searching = args.contains_key("search");
        let envelope = caller.call_json(&doc.wire_name, &args);
        if !envelope.status() {
            let message = envelope.messages().join("; ");
            // A part that does not exist, or arguments that do not fit, are the reader's error.
            let request = envelope
                .code()
                .is_some_and(|c| c == Code::E007 || MarkdownError::is_request_code(c));
            return Err(if request {
                PrimitiveError::InvalidArguments(message)
            } else {
                PrimitiveError::Failed(message)
            });
        }
        let (mime, text) = match envelope.data().get("text").and_then(Value::as_str) {
            Some(text) if !searching => ("text/markdown", text.to_string()),
            _ => (
                "application/json",
                serde_json::to_string(&envelope.data())
                    .map_err(|e| PrimitiveError::Failed(e.to_string()))?,
            ),
        };
        Ok(Some(vec![ResourceContent {
            uri: uri.to_string(),
            mime_type: Some(mime.into()),
            body: ResourceBody::Text(text),
        }]))
    }
}

/// The access arguments of a URI's query (`section=…&lines=…&search=…`, percent-encoded);
/// anything else, or an argument given twice, is refused.
fn access_arguments(query: &str) -> Result<Map<String, Value>, PrimitiveError> {
    let mut args = Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            percent_decode_str(&s.replace('+', " "))
                .decode_utf8()
                .map(|c| c.into_owned())
                .map_err(|_| {
                    PrimitiveError::InvalidArguments(format!("`{s}` is not UTF-8 when decoded"))
                })
        };
        let key = decode(key)?;
        if !ACCESS.contains(&key.as_str()) {
            return Err(PrimitiveError::InvalidArguments(format!(
                "unknown argument `{key}`: a document takes `section`, `lines` or `search`"
            )));
        }
        if args
            .insert(key.clone(), Value::String(decode(value)?))
            .is_some()
        {
            return Err(PrimitiveError::InvalidArguments(format!(
                "`{key}` is given twice"
            )));
        }
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_arguments_are_decoded_and_checked() {
        let a = access_arguments("section=%23%23%20Install").unwrap_or_default();
        assert_eq!(a.get("section"), Some(&Value::String("## Install".into())));
        let b = access_arguments("search=create+table").unwrap_or_default();
        assert_eq!(b.get("search"), Some(&Value::String("create table".into())));
        assert!(access_arguments("").is_ok_and(|m| m.is_empty()));
        assert!(matches!(
            access_arguments("x=1"),
            Err(PrimitiveError::InvalidArguments(_))
        ));
        assert!(matches!(
            access_arguments("lines=1-2&lines=3"),
            Err(PrimitiveError::InvalidArguments(_))
        ));
    }
}
