//! The `{{…}}` placeholder grammar and the compat `:key` path inserts, in one place: finding
//! interpolations in text, classifying them by their syntax — as request templates read them
//! ([`InterpolationKind`]) and as prompt and skill content reads them ([`ContentPlaceholder`]) —
//! reading the `:name`s of a path, and the role of a parameter's value (user input, server
//! parameter, fixed text) under a profile.

use crate::Profile;

/// One `{{...}}` occurrence found by [`find_interpolations`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpolation {
    /// Byte offset of the opening `{{`.
    pub start: usize,
    /// Byte offset just past the closing `}}`.
    pub end: usize,
    /// The text between the braces, not trimmed.
    pub inner: String,
}

/// What an [`Interpolation`] is, judged by its syntax alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterpolationKind<'a> {
    /// `{{USER_PARAM}}`.
    UserParam,
    /// `{{SERVER_PARAM:KEY}}` with a non-empty key.
    ServerParam(&'a str),
    /// `{{listName:fieldName}}`: two names separated by one colon. (Prompt and skill content
    /// reads the same shape as [`ContentPlaceholder`]: `{{tool:name}}` is a tool there.)
    ListRef { list: &'a str, field: &'a str },
    /// `{{name}}`: a single name, e.g. an insert key in a path or a bare server param.
    Bare(&'a str),
    /// Anything else, e.g. `{{}}`, `{{ a }}` or `{{a:b:c}}`.
    Other(&'a str),
}

impl<'a> InterpolationKind<'a> {
    /// Classifies the text between `{{` and `}}` (not trimmed).
    pub fn of(inner: &'a str) -> InterpolationKind<'a> {
        classify_inner(inner)
    }
}

impl Interpolation {
    /// The whole `{{...}}` text.
    pub fn text(&self) -> String {
        format!("{{{{{}}}}}", self.inner)
    }

    /// Classifies the interpolation by its syntax.
    pub fn kind(&self) -> InterpolationKind<'_> {
        classify_inner(&self.inner)
    }

    /// `Some((list, field))` when this is a `{{listName:fieldName}}` interpolation.
    pub fn as_list_ref(&self) -> Option<(&str, &str)> {
        match self.kind() {
            InterpolationKind::ListRef { list, field } => Some((list, field)),
            _ => None,
        }
    }
}

/// True for a name made of ASCII letters, digits, `_` and `-`.
fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn classify_inner(inner: &str) -> InterpolationKind<'_> {
    if inner == "USER_PARAM" {
        return InterpolationKind::UserParam;
    }
    if let Some(key) = inner.strip_prefix("SERVER_PARAM:") {
        if !key.is_empty() {
            return InterpolationKind::ServerParam(key);
        }
        return InterpolationKind::Other(inner);
    }
    match inner.split_once(':') {
        Some((list, field)) if is_name(list) && is_name(field) => {
            InterpolationKind::ListRef { list, field }
        }
        None if is_name(inner) => InterpolationKind::Bare(inner),
        _ => InterpolationKind::Other(inner),
    }
}

/// The kinds of primitive a content placeholder names (skills, prompts, prefill: chapters 14,
/// 16 and 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContentType {
    /// `{{tool:…}}`: a tool, or one field of it.
    Tool,
    /// `{{resource:…}}`: a resource.
    Resource,
    /// `{{prompt:…}}`: a prompt's content.
    Prompt,
    /// `{{skill:…}}`: another skill (one level deep).
    Skill,
    /// `{{input:key}}`: an input value given when the skill is rendered.
    Input,
    /// `{{prefill:ns/tool/name}}`: the result of a tool the skill runs before it is delivered.
    Prefill,
}

impl ContentType {
    /// Every type, in the order chapter 18's table lists them.
    pub const ALL: [ContentType; 6] = [
        ContentType::Tool,
        ContentType::Resource,
        ContentType::Prompt,
        ContentType::Skill,
        ContentType::Input,
        ContentType::Prefill,
    ];

    /// The type named `text` (`tool`, `resource`, `prompt`, `skill`, `input`, `prefill`).
    pub fn parse(text: &str) -> Option<ContentType> {
        ContentType::ALL.into_iter().find(|t| t.as_str() == text)
    }

    /// The type's name as placeholders write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentType::Tool => "tool",
            ContentType::Resource => "resource",
            ContentType::Prompt => "prompt",
            ContentType::Skill => "skill",
            ContentType::Input => "input",
            ContentType::Prefill => "prefill",
        }
    }

    /// The Primitive-ID type a three-segment reference of this placeholder type must carry
    /// (`prefill` runs tools); `None` for `input`, which names no primitive.
    pub fn id_type(self) -> Option<&'static str> {
        match self {
            ContentType::Tool | ContentType::Prefill => Some("tool"),
            ContentType::Resource => Some("resource"),
            ContentType::Prompt => Some("prompt"),
            ContentType::Skill => Some("skill"),
            ContentType::Input => None,
        }
    }
}

/// How a content placeholder names its target: `name` (in the same schema or scope),
/// `namespace/name`, or a whole Primitive-ID `namespace/type/name` (both resolved in the catalog).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetRef<'a> {
    /// The namespace, when the reference has one.
    pub namespace: Option<&'a str>,
    /// The ID type of a three-segment reference (`tool` in `ns/tool/name`).
    pub id_type: Option<&'a str>,
    /// The name.
    pub name: &'a str,
}

impl TargetRef<'_> {
    /// Whether the reference is a bare name, resolved in the same schema or scope.
    pub fn is_local(&self) -> bool {
        self.namespace.is_none()
    }
}

/// The fields a `{{tool:…:field}}` placeholder may ask for (chapter 18).
pub const TOOL_FIELDS: [&str; 5] = ["description", "parameters", "test", "meta", "call"];

/// A placeholder in prompt or skill content, judged by its syntax alone
/// ([`ContentPlaceholder::of`]). Whether its target exists is for the caller to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentPlaceholder<'a> {
    /// `{{type:ref}}` or `{{type:ref:field}}` for `tool`, `resource`, `prompt`, `skill` and
    /// `prefill`.
    Reference {
        /// The placeholder type.
        ty: ContentType,
        /// What it names.
        target: TargetRef<'a>,
        /// The field asked for (`{{tool:…:description}}`; only tools have fields).
        field: Option<&'a str>,
    },
    /// `{{input:key}}`.
    Input(&'a str),
    /// `{{listName:alias}}`: a shared-list value by its alias.
    ListAlias {
        /// The list.
        list: &'a str,
        /// The alias.
        alias: &'a str,
    },
    /// A placeholder of a known type that does not read as one: its type and why.
    Malformed {
        /// The type its first part names.
        ty: ContentType,
        /// What is wrong, in a few words.
        reason: &'static str,
    },
}

impl<'a> ContentPlaceholder<'a> {
    /// Reads the text between `{{` and `}}` (not trimmed) as content reads it; `None` when it is
    /// not a content placeholder at all (`{{USER_PARAM}}`, `{{SERVER_PARAM:KEY}}`,
    /// `{{ spaced }}`, `{{a:b:c}}` of no known type), which content keeps as literal text.
    ///
    /// The grammar: `{{type:ref}}` or `{{type:ref:field}}`, `type` one of [`ContentType`], `ref`
    /// a name, `namespace/name` or `namespace/type/name`, names of ASCII letters, digits, `-`
    /// and `_`. A three-segment reference carries the ID type the placeholder type implies
    /// ([`ContentType::id_type`]). Only `tool` takes a field, one of [`TOOL_FIELDS`]. `prefill`
    /// names a tool by its whole ID. `{{input:key}}` takes a key of `^[a-z][a-zA-Z0-9]*$` (the
    /// skill input rule) and no field. Two names of no known type, `{{list:alias}}`, are a
    /// shared-list alias.
    pub fn of(inner: &'a str) -> Option<ContentPlaceholder<'a>> {
        let (head, rest) = inner.split_once(':')?;
        // The request templates' own placeholder; never a shared list.
        if head == "SERVER_PARAM" {
            return None;
        }
        let Some(ty) = ContentType::parse(head) else {
            return (is_name(head) && is_name(rest)).then_some(ContentPlaceholder::ListAlias {
                list: head,
                alias: rest,
            });
        };
        let bad = |reason| Some(ContentPlaceholder::Malformed { ty, reason });
        if ty == ContentType::Input {
            return if is_input_key(rest) {
                Some(ContentPlaceholder::Input(rest))
            } else {
                bad(
                    "an input key is a name of letters and digits starting with a lower-case letter",
                )
            };
        }
        let (reference, field) = match rest.split_once(':') {
            Some((r, f)) => (r, Some(f)),
            None => (rest, None),
        };
        let segments: Vec<&str> = reference.split('/').collect();
        if !segments.iter().all(|s| is_name(s)) {
            return bad("a reference is a name, namespace/name or namespace/type/name");
        }
        let target = match segments.as_slice() {
            [name] => TargetRef {
                namespace: None,
                id_type: None,
                name,
            },
            [ns, name] => TargetRef {
                namespace: Some(ns),
                id_type: None,
                name,
            },
            [ns, id_type, name] => TargetRef {
                namespace: Some(ns),
                id_type: Some(id_type),
                name,
            },
            _ => return bad("a reference has at most three segments"),
        };
        if target.id_type.is_some() && target.id_type != ty.id_type() {
            return bad("the ID type in the reference does not match the placeholder type");
        }
        if ty == ContentType::Prefill && target.id_type.is_none() {
            return bad("a prefill names its tool by the whole ID, namespace/tool/name");
        }
        match field {
            None => {}
            Some(f) if ty == ContentType::Tool && TOOL_FIELDS.contains(&f) => {}
            Some(_) if ty == ContentType::Tool => {
                return bad("a tool field is description, parameters, test, meta or call");
            }
            Some(_) => return bad("only tool placeholders take a field"),
        }
        Some(ContentPlaceholder::Reference { ty, target, field })
    }
}

/// Whether `text` is a skill input key: `^[a-z][a-zA-Z0-9]*$` (SKL012), the key `{{input:key}}`
/// names.
pub fn is_input_key(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// The byte offset of the first `cc` in `text` (`c` twice, as `{{` or `}}`; `c` is ASCII):
/// `text.find("{{")` without setting up a substring search, which costs more than most of the
/// short texts it is asked about (D171). The byte is found with `memchr` (D182).
pub fn find_double(text: &str, c: char) -> Option<usize> {
    let Some(byte) = ascii_byte(c) else {
        return text.find(String::from_iter([c, c]).as_str());
    };
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(byte, b.get(from..)?) {
        let at = from + i;
        if b.get(at + 1) == Some(&byte) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The byte offset of the last `cc` in `text` ([`find_double`] from the end: `text.rfind("{{")`).
fn rfind_double(text: &str, c: char) -> Option<usize> {
    let Some(byte) = ascii_byte(c) else {
        return text.rfind(String::from_iter([c, c]).as_str());
    };
    let b = text.as_bytes();
    let mut end = b.len();
    while let Some(i) = memchr::memrchr(byte, b.get(..end)?) {
        if i > 0 && b.get(i - 1) == Some(&byte) {
            return Some(i - 1);
        }
        end = i;
    }
    None
}

/// `c` as its byte, when it is ASCII (its one byte in UTF-8 is then always a whole character).
fn ascii_byte(c: char) -> Option<u8> {
    u8::try_from(c).ok().filter(u8::is_ascii)
}

/// Finds every complete `{{...}}` interpolation in `text`, left to right, with byte
/// positions. An interpolation ends at the first `}}` after its `{{`; when another `{{`
/// comes in between, the innermost one is taken (`{{a{{b:c}}` yields `{{b:c}}`).
/// An unterminated `{{` is not reported.
pub fn find_interpolations(text: &str) -> Vec<Interpolation> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(rel_open) = find_double(&text[from..], '{') {
        let open = from + rel_open;
        let Some(rel_close) = find_double(&text[open + 2..], '}') else {
            break;
        };
        let close = open + 2 + rel_close;
        // The last `{{` that starts before the closing braces.
        let start = rfind_double(&text[open..close], '{').map_or(open, |p| open + p);
        found.push(Interpolation {
            start,
            end: close + 2,
            inner: text[start + 2..close].to_string(),
        });
        from = close + 2;
    }
    found
}

/// Whether `c` continues a `:key` name: an ASCII letter, digit or `_`. Any other character — `-`,
/// `.`, `/`, `(` — ends the name, as the JavaScript reference reads it (`/forecast/:city-detail`
/// inserts `city`).
pub fn is_colon_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The compat `:key` inserts of `text` for the insert `keys`: the byte offset of each colon that is
/// followed by a key and then by a character that cannot continue a name (or the end), with that
/// key; the longest key wins where several fit. `/forecast/:city-detail` with the key `city` has
/// one, as has `/range/:from-date` with the key `from-date`; `/feed/:cityName` has none for `city`.
pub fn colon_key_matches<'k>(text: &str, keys: &[&'k str]) -> Vec<(usize, &'k str)> {
    let mut sorted: Vec<&'k str> = keys.iter().copied().filter(|k| !k.is_empty()).collect();
    sorted.sort_by_key(|k| std::cmp::Reverse(k.len()));
    text.match_indices(':')
        .filter_map(|(at, _)| {
            let rest = &text[at + 1..];
            sorted
                .iter()
                .find(|k| {
                    rest.strip_prefix(**k)
                        .is_some_and(|tail| !tail.starts_with(is_colon_name_char))
                })
                .map(|k| (at, *k))
        })
        .collect()
}

/// Every `:name` in `text`: the byte offset of the colon and the name (a non-empty run of
/// [`is_colon_name_char`] characters right after it), left to right.
pub fn colon_names(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(':') {
        let rest = &text[at + 1..];
        let end = rest
            .char_indices()
            .find(|(_, c)| !is_colon_name_char(*c))
            .map_or(rest.len(), |(i, _)| i);
        if end > 0 {
            out.push((at, &rest[..end]));
        }
    }
    out
}

/// Where a parameter's value comes from (chapter 02, and the compat reading of bare placeholders).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRole<'a> {
    /// Supplied by the caller: `{{USER_PARAM}}`, or (compat) an undeclared bare `{{X}}`.
    User,
    /// A server parameter: `{{SERVER_PARAM:KEY}}`, or (compat) a bare `{{KEY}}` naming a
    /// `requiredServerParams` entry. Whether `KEY` is declared is the caller's to check (VAL083;
    /// the runtime sends an undeclared one as literal text).
    Server(&'a str),
    /// A fixed value (it may contain placeholders inside a longer text).
    Fixed(&'a str),
}

/// The role of a parameter's `position.value` under `profile`; `declared` tells whether a name is
/// in the schema's `requiredServerParams`. The whole value must be the placeholder.
pub fn param_role<'a>(
    value: &'a str,
    declared: impl Fn(&str) -> bool,
    profile: Profile,
) -> ParamRole<'a> {
    let Some(inner) = value.strip_prefix("{{").and_then(|v| v.strip_suffix("}}")) else {
        return ParamRole::Fixed(value);
    };
    match InterpolationKind::of(inner) {
        InterpolationKind::UserParam => ParamRole::User,
        InterpolationKind::ServerParam(key) => ParamRole::Server(key),
        InterpolationKind::Bare(name) if profile.is_compat() => {
            if declared(name) {
                ParamRole::Server(name)
            } else {
                ParamRole::User
            }
        }
        _ => ParamRole::Fixed(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D171: `find_double` and `rfind_double` are `find` and `rfind` of the doubled character,
    /// on texts with runs of braces, other characters and characters of several bytes.
    #[test]
    fn i46_double_searches_are_find_and_rfind() {
        let alphabet = ['{', '}', 'a', 'é', '{', 'x'];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..5000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 12) as usize;
            let text: String = (0..len)
                .map(|k| alphabet[((seed >> (4 * k)) % alphabet.len() as u64) as usize])
                .collect();
            for (c, pair) in [('{', "{{"), ('}', "}}"), ('é', "éé")] {
                assert_eq!(find_double(&text, c), text.find(pair), "{text:?}");
                assert_eq!(rfind_double(&text, c), text.rfind(pair), "{text:?}");
            }
        }
    }

    #[test]
    fn finds_interpolations_with_positions() {
        let text = "/api/{{chainId}}/x/{{SERVER_PARAM:KEY}}";
        let found = find_interpolations(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].start, 5);
        assert_eq!(found[0].end, 16);
        assert_eq!(&text[found[0].start..found[0].end], "{{chainId}}");
        assert_eq!(found[0].inner, "chainId");
        assert_eq!(found[0].kind(), InterpolationKind::Bare("chainId"));
        assert_eq!(found[1].kind(), InterpolationKind::ServerParam("KEY"));
        assert_eq!(found[1].text(), "{{SERVER_PARAM:KEY}}");
    }

    #[test]
    fn classifies_interpolations() {
        let kinds: Vec<_> = [
            "{{USER_PARAM}}",
            "{{list:field}}",
            "{{}}",
            "{{a b}}",
            "{{a:b:c}}",
        ]
        .iter()
        .map(|t| find_interpolations(t).remove(0))
        .collect();
        assert_eq!(kinds[0].kind(), InterpolationKind::UserParam);
        assert_eq!(kinds[1].as_list_ref(), Some(("list", "field")));
        assert_eq!(kinds[2].kind(), InterpolationKind::Other(""));
        assert_eq!(kinds[3].kind(), InterpolationKind::Other("a b"));
        assert_eq!(kinds[4].kind(), InterpolationKind::Other("a:b:c"));
        assert_eq!(kinds[0].as_list_ref(), None);
        assert_eq!(
            find_interpolations("{{SERVER_PARAM:}}")[0].kind(),
            InterpolationKind::Other("SERVER_PARAM:")
        );
        assert_eq!(
            InterpolationKind::of("a-b:c_d"),
            InterpolationKind::ListRef {
                list: "a-b",
                field: "c_d"
            }
        );
        assert_eq!(
            InterpolationKind::of("CITY"),
            InterpolationKind::Bare("CITY")
        );
    }

    #[test]
    fn colon_keys_match_whole_names() {
        assert_eq!(
            colon_key_matches("/forecast/:city-detail", &["city"]),
            vec![(10, "city")]
        );
        assert_eq!(
            colon_key_matches("/r/:from-date/:from", &["from", "from-date"]),
            vec![(3, "from-date"), (14, "from")]
        );
        assert!(colon_key_matches("/feed/:cityName", &["city"]).is_empty());
        assert_eq!(colon_key_matches("/Things(:id)", &["id"]), vec![(8, "id")]);
        assert!(colon_key_matches("/x:", &[""]).is_empty());
    }

    #[test]
    fn colon_names_end_at_any_other_character() {
        assert_eq!(
            colon_names("/forecast/:city-detail/:id(x):a_b1"),
            vec![(10, "city"), (23, "id"), (29, "a_b1")]
        );
        assert_eq!(colon_names("/v1/claims:search"), vec![(10, "search")]);
        assert!(colon_names("/x/:/y:").is_empty());
    }

    #[test]
    fn roles_under_each_profile() {
        let declared = |k: &str| k == "KEY";
        for p in [Profile::Spec, Profile::Compat] {
            assert_eq!(param_role("{{USER_PARAM}}", declared, p), ParamRole::User);
            assert_eq!(
                param_role("{{SERVER_PARAM:OTHER}}", declared, p),
                ParamRole::Server("OTHER")
            );
            assert_eq!(param_role("fixed", declared, p), ParamRole::Fixed("fixed"));
            assert_eq!(
                param_role("a {{KEY}}", declared, p),
                ParamRole::Fixed("a {{KEY}}")
            );
        }
        assert_eq!(
            param_role("{{KEY}}", declared, Profile::Spec),
            ParamRole::Fixed("{{KEY}}")
        );
        assert_eq!(
            param_role("{{KEY}}", declared, Profile::Compat),
            ParamRole::Server("KEY")
        );
        assert_eq!(
            param_role("{{CITY}}", declared, Profile::Compat),
            ParamRole::User
        );
        assert_eq!(
            param_role("{{ CITY }}", declared, Profile::Compat),
            ParamRole::Fixed("{{ CITY }}")
        );
    }

    #[test]
    fn content_placeholders_read_types_references_and_fields() {
        use super::{ContentPlaceholder as P, ContentType as T, TargetRef};
        let r = |ns, id_type, name| TargetRef {
            namespace: ns,
            id_type,
            name,
        };
        assert_eq!(
            P::of("tool:getAbi"),
            Some(P::Reference {
                ty: T::Tool,
                target: r(None, None, "getAbi"),
                field: None
            })
        );
        assert_eq!(
            P::of("tool:etherscan-io/getAbi:parameters"),
            Some(P::Reference {
                ty: T::Tool,
                target: r(Some("etherscan-io"), None, "getAbi"),
                field: Some("parameters")
            })
        );
        assert_eq!(
            P::of("resource:tranco/resource/rankingDb"),
            Some(P::Reference {
                ty: T::Resource,
                target: r(Some("tranco"), Some("resource"), "rankingDb"),
                field: None
            })
        );
        assert_eq!(
            P::of("prefill:etherscan-io/tool/getNetworkStatus"),
            Some(P::Reference {
                ty: T::Prefill,
                target: r(Some("etherscan-io"), Some("tool"), "getNetworkStatus"),
                field: None
            })
        );
        assert_eq!(P::of("input:chainName"), Some(P::Input("chainName")));
        assert_eq!(
            P::of("evmChains:ethereum"),
            Some(P::ListAlias {
                list: "evmChains",
                alias: "ethereum"
            })
        );
        assert!(
            P::of("tool:getAbi")
                .is_some_and(|p| matches!(p, P::Reference { target, .. } if target.is_local()))
        );
    }

    #[test]
    fn content_placeholders_that_do_not_read_are_malformed_or_not_placeholders() {
        use super::{ContentPlaceholder as P, ContentType as T};
        let malformed = |inner: &str, ty| {
            assert!(
                matches!(P::of(inner), Some(P::Malformed { ty: t, .. }) if t == ty),
                "{inner}: {:?}",
                P::of(inner)
            );
        };
        malformed("tool:", T::Tool);
        malformed("tool:a b", T::Tool);
        malformed("tool:a/b/c/d", T::Tool);
        malformed("tool:ns/resource/x", T::Tool);
        malformed("tool:getAbi:colour", T::Tool);
        malformed("resource:x:description", T::Resource);
        malformed("prefill:ns/getAbi", T::Prefill);
        malformed("prefill:ns/resource/x", T::Prefill);
        malformed("input:Chain", T::Input);
        malformed("input:chain:x", T::Input);
        malformed("skill:../x", T::Skill);
        // Not content placeholders: kept as literal text.
        for inner in [
            "USER_PARAM",
            "name",
            " tool:x",
            "a:b:c",
            "SERVER_PARAM:KEY",
            "",
        ] {
            assert_eq!(P::of(inner), None, "{inner}");
        }
        assert_eq!(T::parse("prefill"), Some(T::Prefill));
        assert_eq!(T::parse("list"), None);
        assert!(T::ALL.iter().all(|t| T::parse(t.as_str()) == Some(*t)));
    }
}
