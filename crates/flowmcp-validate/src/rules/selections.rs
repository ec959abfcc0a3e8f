//! Rules on selection files (`export const selection`, chapter 17) that a file can be checked
//! for on its own: `whenToUse`, at least one member, and inline skills run through the skill
//! rules. Whether the members resolve needs the catalog (SEL003, [`crate::prompts`]).

use flowmcp_loader::{Exports, HandlersExport};
use flowmcp_spec::{Code, JsonPath, diagnostic::Collector, diagnostic::Seg};
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, SchemaRule, required_string};

/// The rules of a selection file, in the order they run.
pub(super) static RULES: &[SchemaRule] = &[
    SchemaRule {
        codes: &[Code::SEL001],
        check: sel001_when_to_use,
    },
    SchemaRule {
        codes: &[Code::SEL002],
        check: sel002_members,
    },
    SchemaRule {
        // SEL004 and every code of the skill rules it runs on each inline skill (a test holds
        // this list to theirs).
        codes: &[
            Code::SEL004,
            Code::SKL002,
            Code::SKL004,
            Code::SKL007,
            Code::SKL010,
            Code::SKL011,
            Code::VAL091,
            Code::VAL092,
            Code::VAL093,
            Code::SKL012,
            Code::SKL013,
            Code::SKL014,
            Code::SKL015,
            Code::SKL009,
            Code::SKL008,
            Code::PH001,
            Code::PH002,
            Code::PH003,
        ],
        check: sel004_inline_skills,
    },
    SchemaRule {
        codes: &[Code::VAL110],
        check: val110_slash_rule,
    },
];

/// The member lists of a selection.
pub(crate) const MEMBER_LISTS: [&str; 4] = ["tools", "skills", "resources", "prompts"];

/// `selection` when it is an object.
fn selection<'a>(ctx: &SchemaCtx<'a>) -> Option<&'a Map<String, Value>> {
    ctx.export("selection").and_then(Value::as_object)
}

/// SEL001: `whenToUse` is missing, not a string, or empty.
///
/// # Why
///
/// An agent decides from `whenToUse` whether to activate the selection; without it the selection
/// is never chosen on purpose.
fn sel001_when_to_use(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = selection(ctx) else { return };
    let path = JsonPath::root("selection").key("whenToUse");
    if let Some(text) = required_string(s.field("whenToUse"), &path, "whenToUse", Code::SEL001, c)
        && text.trim().is_empty()
    {
        c.emit(Code::SEL001, Some(&path), "Must not be empty");
    }
}

/// SEL002: None of `tools`, `skills`, `resources` and `prompts` has a member (each is missing,
/// empty or not a list).
///
/// # Why
///
/// A selection is a set of primitives; an empty one activates nothing.
fn sel002_members(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = selection(ctx) else { return };
    let has_members = MEMBER_LISTS.iter().any(|k| match s.field(k) {
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        _ => false,
    });
    if !has_members {
        c.emit(
            Code::SEL002,
            Some(&JsonPath::root("selection")),
            "Has no members: at least one of tools, skills, resources or prompts must list one",
        );
    }
}

/// VAL110: In the object form of a selection's lists, a key of `tools`, `resources` or `prompts`
/// has no `/`, or a key of `skills` has one. (The array form lists IDs, which other rules check;
/// an agent's keys follow the same rule and are reported as AGT007, AGT013, AGT014 and AGT020.)
///
/// # Why
///
/// A key with `/` is a reference to a primitive by its ID (`namespace/type/name`); a key without
/// one names something the manifest defines itself, which for skills is a `{ file }` entry and for
/// tools, resources and prompts does not exist. The slash is how a reader tells the two apart.
fn val110_slash_rule(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(s) = selection(ctx) else { return };
    for list in MEMBER_LISTS {
        let Some(Value::Object(members)) = s.field(list) else {
            continue;
        };
        let references = list != "skills";
        for key in members.keys() {
            if key.contains('/') == references {
                continue;
            }
            let at = JsonPath::root("selection").key(list).key(key);
            let message = if references {
                format!(
                    "Key {key:?} of {list} must be a Primitive-ID with `/` (namespace/type/name)"
                )
            } else {
                format!(
                    "Key {key:?} of skills must be a skill name without `/` (its value gives the file)"
                )
            };
            c.emit(Code::VAL110, Some(&at), message);
        }
    }
}

/// SEL004: A selection's `skills` list holds a whole skill object (an inline skill) rather than
/// an ID; it is checked with the skill rules, whose findings follow at its place in the list.
///
/// # Why
///
/// An inline skill is delivered like a skill file, so it must meet the same rules; the note
/// records that they ran on it.
fn sel004_inline_skills(ctx: &SchemaCtx<'_>, c: &mut Collector<'_>) {
    let Some(Value::Array(skills)) = selection(ctx).and_then(|s| s.field("skills")) else {
        return;
    };
    for (i, skill) in skills.iter().enumerate() {
        if !skill.is_object() {
            continue;
        }
        let at = JsonPath::root("selection").key("skills").index(i);
        let name = skill
            .field("name")
            .and_then(Value::as_str)
            .unwrap_or("(unnamed)");
        c.emit(
            Code::SEL004,
            Some(&at),
            format!("Inline skill {name:?} was checked with the skill rules"),
        );
        let mut data = IndexMap::new();
        data.insert("skill".to_string(), skill.clone());
        let exports = Exports {
            names: vec!["skill".into()],
            data,
            handlers: HandlersExport::Absent,
            unserializable: Vec::new(),
        };
        let inner = SchemaCtx::new(&exports, ctx.options(), ctx.loaded());
        let mut found = Collector::new(c.settings(), None);
        super::context::run(super::skills::RULES, &inner, &mut found);
        for mut d in found.finish() {
            // `/skill/…` of the inline skill is `/selection/skills/<i>/…` of the file.
            let rest: Vec<Seg> = d
                .pointer
                .as_ref()
                .map(|p| p.segments().into_iter().skip(1).collect())
                .unwrap_or_default();
            let path = JsonPath::from_segments(at.segments().into_iter().chain(rest));
            d.path = Some(path.dotted());
            d.pointer = Some(path);
            c.push(d);
        }
    }
}
