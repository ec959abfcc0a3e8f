//! Whole results kept for reading page by page (issue #44, D140).
//!
//! When a tool result is cut to fit the server's result budget, the whole data (its compact JSON
//! text) is kept for [`KEPT_FOR`] under an unguessable id, and is readable through
//! `resources/read` at `flowmcp-result://<id>/<page>`, one budget-sized page of text at a time
//! (pages start at 1 and end on character boundaries; each page's `_meta` names the next). A kept
//! result belongs to the principal of the call that made it (over HTTP the endpoint and the
//! credential, as tasks do; over stdio the session's client): anyone else is told it does not
//! exist. With the preload cache in Redis, results are kept there, so any replica serves the
//! pages; otherwise in memory, at most [`MEMORY_CAP`] bytes, the oldest dropped first.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use flowmcp_catalog::serde_json::{self, Value, json};
use rmcp::model::{MetaObject, ReadResourceResult, ResourceContents};

/// The scheme of a kept result's pages.
pub(crate) const SCHEME: &str = "flowmcp-result://";

/// How long a whole result stays readable.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(600);

/// The most bytes of results kept in memory at once.
const MEMORY_CAP: usize = 64 * 1024 * 1024;

/// A result kept for reading.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Record {
    owner: String,
    page_bytes: usize,
    text: String,
}

/// Where whole results are kept.
#[derive(Default)]
pub(crate) struct Kept {
    memory: Mutex<VecDeque<(String, Instant, Record)>>,
    #[cfg(feature = "redis")]
    shared: Option<flowmcp_catalog::runtime::RedisCache>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kept")
    }
}

/// The Redis key of a kept result.
#[cfg(feature = "redis")]
fn record_key(id: &str) -> String {
    format!("flowmcp:result:v1:{id}")
}

/// A link to a kept result: the first page's URI and how many pages there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) uri: String,
    pub(crate) pages: usize,
}

/// Why a page cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PageError {
    /// No such result for this principal (never made, expired, or someone else's).
    Unknown,
    /// The page number is not one of the result's.
    NoSuchPage(usize),
}

impl Kept {
    /// Results kept in `cache` (the preload cache's Redis), shared by every replica that uses it.
    #[cfg(feature = "redis")]
    pub(crate) fn shared_in(cache: flowmcp_catalog::runtime::RedisCache) -> Kept {
        Kept {
            shared: Some(cache),
            ..Kept::default()
        }
    }

    /// Keeps `text` for `owner`, to be read in pages of `page_bytes`; `None` when it cannot be
    /// kept (the store failed: the caller says the rest is not readable).
    pub(crate) fn keep(&self, owner: &str, text: String, page_bytes: usize) -> Option<Link> {
        let page_bytes = page_bytes.max(1024);
        let pages = page_starts(&text, page_bytes).len();
        let id = new_id(&text);
        let record = Record {
            owner: owner.to_string(),
            page_bytes,
            text,
        };
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            let bytes = serde_json::to_vec(&record).ok()?;
            if let Err(e) = redis.put_value(&record_key(&id), &bytes, KEPT_FOR) {
                tracing::warn!(target: "flowmcp::call", "the result store: {e}");
                return None;
            }
            return Some(link(&id, pages));
        }
        if record.text.len() > MEMORY_CAP {
            return None;
        }
        let mut memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        memory.retain(|(_, at, _)| now.duration_since(*at) < KEPT_FOR);
        let mut held: usize = memory.iter().map(|(_, _, r)| r.text.len()).sum();
        while held + record.text.len() > MEMORY_CAP {
            match memory.pop_front() {
                Some((_, _, r)) => held -= r.text.len(),
                None => break,
            }
        }
        memory.push_back((id.clone(), now, record));
        Some(link(&id, pages))
    }

    /// Page `uri` (`flowmcp-result://<id>/<page>`) for `owner`.
    pub(crate) fn read(&self, uri: &str, owner: &str) -> Result<ReadResourceResult, PageError> {
        let rest = uri.strip_prefix(SCHEME).ok_or(PageError::Unknown)?;
        let (id, page) = rest.split_once('/').ok_or(PageError::Unknown)?;
        let page: usize = page.parse().map_err(|_| PageError::Unknown)?;
        let record = self.load(id).filter(|r| r.owner == owner);
        let record = record.ok_or(PageError::Unknown)?;
        let starts = page_starts(&record.text, record.page_bytes);
        if page == 0 || page > starts.len() {
            return Err(PageError::NoSuchPage(page));
        }
        let start = starts[page - 1];
        let end = starts.get(page).copied().unwrap_or(record.text.len());
        let mut meta = serde_json::Map::new();
        meta.insert("page".into(), json!(page));
        meta.insert("pages".into(), json!(starts.len()));
        meta.insert("bytes".into(), json!(record.text.len()));
        if page < starts.len() {
            meta.insert(
                "next".into(),
                Value::String(format!("{SCHEME}{id}/{}", page + 1)),
            );
        }
        Ok(ReadResourceResult::new(vec![
            ResourceContents::TextResourceContents {
                uri: uri.to_string(),
                mime_type: Some("application/json".into()),
                text: record.text[start..end].to_string(),
                meta: Some(MetaObject(meta)),
            },
        ]))
    }

    fn load(&self, id: &str) -> Option<Record> {
        #[cfg(feature = "redis")]
        if let Some(redis) = &self.shared {
            return match redis.get_value(&record_key(id)) {
                Ok(Some(bytes)) => serde_json::from_slice(&bytes).ok(),
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!(target: "flowmcp::call", "the result store: {e}");
                    None
                }
            };
        }
        let memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        memory
            .iter()
            .find(|(i, at, _)| i == id && now.duration_since(*at) < KEPT_FOR)
            .map(|(_, _, r)| r.clone())
    }
}

fn link(id: &str, pages: usize) -> Link {
    Link {
        uri: format!("{SCHEME}{id}/1"),
        pages,
    }
}

/// Where each page of `text` starts: every `page_bytes` bytes, moved back to a character
/// boundary.
fn page_starts(text: &str, page_bytes: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let mut at = 0;
    while text.len() - at > page_bytes {
        let mut next = at + page_bytes;
        while !text.is_char_boundary(next) {
            next -= 1;
        }
        starts.push(next);
        at = next;
    }
    starts
}

/// A new result id ([`crate::tasks::unguessable_id`]), 32 hex digits.
fn new_id(text: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    crate::tasks::unguessable_id(
        MADE.fetch_add(1, Ordering::Relaxed),
        &text.len().to_le_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(r: &ReadResourceResult) -> (String, Option<Value>) {
        match &r.contents[0] {
            ResourceContents::TextResourceContents { text, meta, .. } => (
                text.clone(),
                meta.as_ref().and_then(|m| m.0.get("next").cloned()),
            ),
            _ => (String::new(), None),
        }
    }

    #[test]
    fn i44_a_kept_result_reads_back_whole_page_by_page_for_its_owner_only() {
        let kept = Kept::default();
        // Multi-byte characters straddle the page boundaries.
        let text: String = (0..3000)
            .map(|i| if i % 7 == 0 { 'é' } else { 'a' })
            .collect();
        let link = kept
            .keep("alice", text.clone(), 1024)
            .unwrap_or_else(|| panic!("kept"));
        assert!(link.pages >= 3);
        let mut whole = String::new();
        let mut uri = Some(link.uri.clone());
        let mut pages = 0;
        while let Some(u) = uri {
            let r = kept.read(&u, "alice").unwrap_or_else(|e| panic!("{e:?}"));
            let (t, next) = text_of(&r);
            assert!(t.len() <= 1024);
            whole.push_str(&t);
            uri = next.and_then(|n| n.as_str().map(str::to_string));
            pages += 1;
        }
        assert_eq!((whole, pages), (text, link.pages));
        assert_eq!(
            kept.read(&link.uri, "mallory").err(),
            Some(PageError::Unknown)
        );
        let beyond = format!("{}/{}", link.uri.trim_end_matches("/1"), link.pages + 1);
        assert_eq!(
            kept.read(&beyond, "alice").err(),
            Some(PageError::NoSuchPage(link.pages + 1))
        );
        assert_eq!(
            kept.read("flowmcp-result://nope/1", "alice").err(),
            Some(PageError::Unknown)
        );
    }
}
