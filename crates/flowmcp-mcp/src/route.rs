//! Routes: several MCP endpoints on one listener, each with its own members and bearer token.
//!
//! A route is a path (`/holidays`) and a [`Selector`] that says which of the catalog's exposed
//! tools, resource queries and documents it serves (and, through its namespaces, which prompts
//! and skills). `ServeOptions::only` is a selector too. `--route /path=SELECTOR` is parsed by [`Route::parse`]; a route's token is
//! set separately (`/path=TOKEN`, [`parse_route_token`]) so that it does not sit in the selector.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use flowmcp_catalog::{Catalog, ToolEntry, runtime::Kind};

/// Why a route or selector is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// A route is written `/path=SELECTOR`.
    #[error("route {0:?}: expected /path=SELECTOR")]
    Syntax(String),
    /// The path is not one a route may have.
    #[error("route path {path:?}: {why}")]
    BadPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Two routes have the same path.
    #[error("route path {0} is given twice")]
    DuplicatePath(String),
    /// A route's token is empty (`/path=`, or an unset variable after the `=`).
    #[error("route token for {0}: empty (give a token, or leave the route's token out)")]
    EmptyToken(String),
    /// A token was given for a path that no route has.
    #[error("route token for {0}: no route has this path")]
    TokenWithoutRoute(String),
    /// The selector names nothing, or has an empty member (`a,,b`).
    #[error("selector {0:?}: empty (expected a namespace or a comma-separated list of tools)")]
    EmptySelector(String),
    /// Selection IDs (`namespace/selection/name`) are not supported yet.
    #[error(
        "selector member {0}: selection IDs are not supported yet; name a namespace or the tools \
         themselves"
    )]
    SelectionUnsupported(String),
    /// The namespace has no exposed tool, resource query or document in the catalog.
    #[error(
        "selector member {0}: no exposed tool, resource query or document of this namespace in \
         the catalog"
    )]
    EmptyNamespace(String),
    /// The member names no exposed tool, resource query or document of the catalog.
    #[error("selector member {0}: no such exposed tool, resource query or document in the catalog")]
    UnknownTool(String),
    /// What the member names is in the catalog, but none of it is served: a server parameter
    /// it needs has no value.
    #[error("selector member {member}: {}", crate::unknown::until(.keys))]
    NotServed {
        /// The member as given.
        member: String,
        /// The variables without a value, sorted, each once.
        keys: Vec<String>,
    },
    /// `ServeOptions::only` and routes cannot be combined: each route has its own selector.
    #[error(
        "a selector for the whole server cannot be combined with routes: each route selects its \
         own tools"
    )]
    OnlyWithRoutes,
}

/// One member of a [`Selector`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectorItem {
    /// Every exposed tool, resource query and document whose Primitive-ID has this namespace
    /// (`holidaykit-net`), and the namespace's prompts and skills.
    Namespace(String),
    /// One tool, resource query or document, by Primitive-ID
    /// (`holidaykit-net/tool/getPublicHolidays`), lookup key
    /// (`atlasdata-org/resource/countries-byCode`) or wire name (`getDailyForecast_skycast-io`);
    /// the ID of a SQLite resource names all its queries.
    Tool(String),
}

impl fmt::Display for SelectorItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectorItem::Namespace(s) | SelectorItem::Tool(s) => f.write_str(s),
        }
    }
}

/// Which of a catalog's exposed entries (tools, resource queries, documents) a route or
/// `--only` serves: a comma-separated list of members, each a namespace or one entry.
///
/// A member is read by its shape alone, so no catalog is needed to parse it:
/// - text matching the namespace pattern `^[a-z][a-z0-9-]*$` is a namespace (wire names always
///   hold a `_`, Primitive-IDs a `/`, so neither can be mistaken for one);
/// - `namespace/selection/name` is a selection ID, which is **not supported yet** and is
///   rejected with [`RouteError::SelectionUnsupported`] (selections will become a third kind of
///   member);
/// - anything else is one entry, by Primitive-ID, lookup key or wire name, looked up when the
///   selector is [resolved](Selector::resolve).
///
/// What an endpoint serves in the end (its prompts, skills and resources with the entries) is
/// decided in one place for every endpoint; see [`ServeOptions`](crate::ServeOptions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    items: Vec<SelectorItem>,
}

impl Selector {
    /// Parses `holidaykit-net` or `holidaykit-net/tool/getPublicHolidays,getDailyForecast_skycast-io`.
    pub fn parse(text: &str) -> Result<Selector, RouteError> {
        let mut items = Vec::new();
        for member in text.split(',').map(str::trim) {
            if member.is_empty() {
                return Err(RouteError::EmptySelector(text.to_string()));
            }
            items.push(item_of(member)?);
        }
        Ok(Selector { items })
    }

    /// The members in the order given.
    pub fn items(&self) -> &[SelectorItem] {
        &self.items
    }

    /// The selector made of `members` as [`ServeOptions::only`](crate::ServeOptions::only) gives
    /// them (each read by its shape, as [`Selector::parse`] reads one member); `None` when there
    /// are none.
    pub(crate) fn of_members(members: &[String]) -> Result<Option<Selector>, RouteError> {
        if members.is_empty() {
            return Ok(None);
        }
        let items = members
            .iter()
            .map(|m| match m.trim() {
                "" => Err(RouteError::EmptySelector(m.clone())),
                member => item_of(member),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Selector { items }))
    }

    /// The namespaces this selector names (whose prompts and skills an endpoint of the whole
    /// catalog serves with their tools).
    pub(crate) fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|i| match i {
            SelectorItem::Namespace(ns) => Some(ns.as_str()),
            SelectorItem::Tool(_) => None,
        })
    }

    /// The lookup keys of the exposed entries this selector names, in the order named, each
    /// once: a namespace names every exposed tool, resource query and document of the
    /// namespace; any other member the entry with that Primitive-ID, lookup key or wire name,
    /// and the ID of a SQLite resource all its queries. Never empty: a member that names nothing
    /// is an error.
    pub fn resolve(&self, catalog: &Catalog) -> Result<Vec<String>, RouteError> {
        Ok(self
            .entries(catalog, true)?
            .iter()
            .map(|e| e.descriptor.lookup_key())
            .collect())
    }

    /// The exposed entries of `catalog` this selector names, in the order named, each once: a
    /// namespace names every exposed tool, resource query and document of the namespace; any
    /// other member names the entry with that Primitive-ID, lookup key or wire name, and the ID
    /// of a SQLite resource names all its queries. A member that names nothing is an error when
    /// `strict` (at start) and is logged and left out otherwise (after a reload). Naming nothing
    /// at all is an error when `strict`: an empty selector never means "everything".
    pub(crate) fn entries<'c>(
        &self,
        catalog: &'c Catalog,
        strict: bool,
    ) -> Result<Vec<&'c ToolEntry>, RouteError> {
        self.members(catalog, strict, false)
            .map(|(exposed, _)| exposed)
    }

    /// [`Selector::entries`], and the entries it names that are hidden because a server
    /// parameter they need has no value (in the order named, each once). A member that names
    /// only hidden entries is [`RouteError::NotServed`] when `strict`, unless `clients_bring`
    /// (per-client credentials, D142: its clients may bring the values).
    pub(crate) fn members<'c>(
        &self,
        catalog: &'c Catalog,
        strict: bool,
        clients_bring: bool,
    ) -> Result<(Vec<&'c ToolEntry>, Vec<&'c ToolEntry>), RouteError> {
        let mut out: Vec<&'c ToolEntry> = Vec::new();
        let mut hidden: Vec<&'c ToolEntry> = Vec::new();
        let mut seen: HashSet<&'c str> = HashSet::new();
        for item in &self.items {
            let (found, waiting): (Vec<&'c ToolEntry>, Vec<&'c ToolEntry>) = named(item, catalog)
                .into_iter()
                .partition(|e| e.descriptor.is_exposed());
            if found.is_empty() {
                let e = match item {
                    _ if !waiting.is_empty() => {
                        let mut keys: Vec<String> = waiting
                            .iter()
                            .flat_map(|e| e.descriptor.missing_server_params.iter().cloned())
                            .collect();
                        keys.sort();
                        keys.dedup();
                        RouteError::NotServed {
                            member: item.to_string(),
                            keys,
                        }
                    }
                    SelectorItem::Namespace(ns) => RouteError::EmptyNamespace(ns.clone()),
                    SelectorItem::Tool(name) => RouteError::UnknownTool(name.clone()),
                };
                if clients_bring && !waiting.is_empty() {
                    // Served: each client brings the values.
                } else if strict {
                    return Err(e);
                } else {
                    tracing::warn!("{e}; left out");
                }
            }
            for e in found {
                if seen.insert(e.descriptor.wire_name.as_str()) {
                    out.push(e);
                }
            }
            for e in waiting {
                if seen.insert(e.descriptor.wire_name.as_str()) {
                    hidden.push(e);
                }
            }
        }
        if strict && out.is_empty() {
            // Only reachable for a selector built without members; never serve "everything".
            return Err(RouteError::EmptySelector(String::new()));
        }
        Ok((out, hidden))
    }
}

/// Every entry of `catalog` that `item` names, exposed or hidden by a missing server parameter.
fn named<'c>(item: &SelectorItem, catalog: &'c Catalog) -> Vec<&'c ToolEntry> {
    match item {
        SelectorItem::Namespace(ns) => catalog
            .list()
            .iter()
            .filter(|e| e.descriptor.id.namespace == *ns)
            .collect(),
        SelectorItem::Tool(name) => match catalog.find(name) {
            Some(e) => vec![e],
            // A SQLite resource's ID: its queries share it.
            None => catalog
                .list()
                .iter()
                .filter(|e| {
                    matches!(e.descriptor.kind, Kind::Query { .. })
                        && e.descriptor.id.to_string() == *name
                })
                .collect(),
        },
    }
}

impl FromStr for Selector {
    type Err = RouteError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selector::parse(s)
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

fn is_namespace(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn item_of(member: &str) -> Result<SelectorItem, RouteError> {
    if is_namespace(member) {
        return Ok(SelectorItem::Namespace(member.to_string()));
    }
    let parts: Vec<&str> = member.split('/').collect();
    if parts.len() == 3 && parts[1] == "selection" {
        return Err(RouteError::SelectionUnsupported(member.to_string()));
    }
    Ok(SelectorItem::Tool(member.to_string()))
}

/// One MCP endpoint on a shared listener: a path, the tools it serves and, optionally, its own
/// bearer token (which replaces the listener-wide one for this path).
#[derive(Clone, PartialEq, Eq)]
pub struct Route {
    /// The path, such as `/holidays` (see [`check_path`] for what is accepted).
    pub path: String,
    /// What the endpoint serves.
    pub selector: Selector,
    /// When set, requests to this path need `Authorization: Bearer <token>` with this token,
    /// whatever [`HttpOptions::auth_token`](crate::HttpOptions::auth_token) says.
    pub auth_token: Option<String>,
}

impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Route")
            .field("path", &self.path)
            .field("selector", &self.selector)
            .field(
                "auth_token",
                &self.auth_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl Route {
    /// Parses `/path=SELECTOR` (as `--route` takes it); the route has no token of its own.
    pub fn parse(spec: &str) -> Result<Route, RouteError> {
        let Some((path, selector)) = spec.split_once('=') else {
            return Err(RouteError::Syntax(spec.to_string()));
        };
        let path = path.trim();
        check_path(path)?;
        Ok(Route {
            path: path.to_string(),
            selector: Selector::parse(selector)?,
            auth_token: None,
        })
    }
}

/// Parses `/path=TOKEN` (as a per-route token option takes it) into the path and the token. The
/// token may hold `=` (base64 padding): the text is split at the first `=`, and paths have none.
/// Errors never quote the token.
pub fn parse_route_token(spec: &str) -> Result<(String, String), RouteError> {
    match spec.split_once('=') {
        Some((path, token)) if !token.trim().is_empty() => {
            let path = path.trim();
            check_path(path)?;
            Ok((path.to_string(), token.trim().to_string()))
        }
        Some((path, _)) => Err(RouteError::EmptyToken(path.trim().to_string())),
        None => Err(RouteError::Syntax("<path>=<token>".to_string())),
    }
}

/// Checks that `path` can be a route's path: it starts with `/`, has at least one segment, and
/// its segments are non-empty, not `.` or `..`, and made of `A-Z a-z 0-9 - . _ ~`. `/healthz`
/// and everything under `/.well-known/` belong to the server itself.
pub fn check_path(path: &str) -> Result<(), RouteError> {
    let bad = |why| {
        Err(RouteError::BadPath {
            path: path.to_string(),
            why,
        })
    };
    let Some(rest) = path.strip_prefix('/') else {
        return bad("must start with /");
    };
    if rest.is_empty() {
        return bad("needs at least one segment (such as /mcp)");
    }
    if path.len() > 200 {
        return bad("longer than 200 characters");
    }
    for segment in rest.split('/') {
        if segment.is_empty() {
            return bad("has an empty segment (// or a trailing /)");
        }
        if segment == "." || segment == ".." {
            return bad("has a . or .. segment");
        }
        if !segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
        {
            return bad("may only hold A-Z a-z 0-9 - . _ ~ between its slashes");
        }
    }
    if path == "/healthz" || path == "/.well-known" || path.starts_with("/.well-known/") {
        return bad("is reserved for the server (/healthz, /.well-known/…)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn selectors_read_members_by_shape() {
        let s = Selector::parse("holidaykit-net").unwrap();
        assert_eq!(
            s.items(),
            [SelectorItem::Namespace("holidaykit-net".into())]
        );
        let s = Selector::parse(
            "holidaykit-net/tool/getPublicHolidays, getDailyForecast_skycast-io,skycast-io",
        )
        .unwrap();
        assert_eq!(
            s.items(),
            [
                SelectorItem::Tool("holidaykit-net/tool/getPublicHolidays".into()),
                SelectorItem::Tool("getDailyForecast_skycast-io".into()),
                SelectorItem::Namespace("skycast-io".into()),
            ]
        );
        assert_eq!(
            s.to_string(),
            "holidaykit-net/tool/getPublicHolidays,getDailyForecast_skycast-io,skycast-io"
        );
        assert_eq!(s.to_string().parse::<Selector>().unwrap(), s);
    }

    #[test]
    fn selectors_reject_selections_and_empty_members() {
        assert_eq!(
            Selector::parse("demo/selection/travel"),
            Err(RouteError::SelectionUnsupported(
                "demo/selection/travel".into()
            ))
        );
        let e = Selector::parse("a,demo/selection/travel").unwrap_err();
        assert!(e.to_string().contains("not supported yet"), "{e}");
        assert!(matches!(
            Selector::parse(""),
            Err(RouteError::EmptySelector(_))
        ));
        assert!(matches!(
            Selector::parse("a,,b"),
            Err(RouteError::EmptySelector(_))
        ));
    }

    #[test]
    fn routes_parse_and_check_paths() {
        let r = Route::parse("/cal=holidaykit-net").unwrap();
        assert_eq!(r.path, "/cal");
        assert_eq!(r.selector.to_string(), "holidaykit-net");
        assert_eq!(r.auth_token, None);
        assert!(matches!(Route::parse("/cal"), Err(RouteError::Syntax(_))));
        for bad in [
            "cal",
            "/",
            "/a//b",
            "/a/",
            "/a/../b",
            "/healthz",
            "/.well-known/x",
            "/a b",
            "/a?b",
        ] {
            assert!(
                matches!(check_path(bad), Err(RouteError::BadPath { .. })),
                "{bad}"
            );
        }
        for good in ["/mcp", "/v1/holidays", "/a-b_c.d~e"] {
            assert_eq!(check_path(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn route_tokens_split_at_the_first_equals_and_are_never_quoted() {
        assert_eq!(
            parse_route_token("/cal=abc==").unwrap(),
            ("/cal".to_string(), "abc==".to_string())
        );
        let e = parse_route_token("/cal=").unwrap_err();
        assert_eq!(e, RouteError::EmptyToken("/cal".into()));
        let e = parse_route_token("/cal=  ").unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let e = parse_route_token("cal=s3cret-value").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
        let e = parse_route_token("s3cret-value").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
        let r = Route {
            auth_token: Some("s3cret-value".into()),
            ..Route::parse("/cal=x").unwrap()
        };
        assert!(!format!("{r:?}").contains("s3cret"));
    }
}
