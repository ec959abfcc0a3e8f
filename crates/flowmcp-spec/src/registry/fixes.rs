//! Which codes have fixes ([`crate::diagnostic::Fix`]), how safe they are and what they do: the
//! table `flowmcp rules` shows. The fixes themselves are built where the problem is found (the
//! validator's VAL087 rule; the 3 → 4 rewrites of the catalog's migration for the others).

use crate::diagnostic::Applicability;

use super::Code;

/// One kind of fix of a code.
#[derive(Clone, Debug)]
pub struct FixInfo {
    /// The code whose findings it repairs.
    pub code: Code,
    /// Whether it may be applied unreviewed.
    pub applicability: Applicability,
    /// What it does.
    pub how: &'static str,
}

/// Every kind of fix, by code (a code may have a safe and an unsafe kind).
pub const FIXES: &[FixInfo] = &[
    FixInfo {
        code: Code::VAL016,
        applicability: Applicability::Unsafe,
        how: "removes `main.skills`, keeping its text in a `// REVIEW:` comment above `main`",
    },
    FixInfo {
        code: Code::VAL030,
        applicability: Applicability::Unsafe,
        how: "renames the tool to camelCase (and its handler keys); its ID changes, noted in a `// REVIEW:` comment",
    },
    FixInfo {
        code: Code::VAL045,
        applicability: Applicability::Safe,
        how: "an enum written as an option (`enum()` with `values(a,b)`, or `string()` with `enum(a,b)`) becomes `primitive: 'enum(a,b)'`",
    },
    FixInfo {
        code: Code::VAL045,
        applicability: Applicability::Unsafe,
        how: "removes a `regex(…)` option (v4 has none), keeping the pattern in a `// REVIEW:` comment",
    },
    FixInfo {
        code: Code::VAL046,
        applicability: Applicability::Safe,
        how: "`enum()` takes its values from a `values(a,b)` option",
    },
    FixInfo {
        code: Code::VAL050,
        applicability: Applicability::Safe,
        how: "`:key` and `{key}` segments of `path` become `{{key}}`",
    },
    FixInfo {
        code: Code::VAL050,
        applicability: Applicability::Unsafe,
        how: "in a file with handlers, an insert parameter without a placeholder becomes `location: 'query'`, under a `// REVIEW:` comment",
    },
    FixInfo {
        code: Code::VAL061,
        applicability: Applicability::Safe,
        how: "output schema type `integer` becomes `number`",
    },
    FixInfo {
        code: Code::VAL081,
        applicability: Applicability::Safe,
        how: "removes the trailing `/` of `root`",
    },
    FixInfo {
        code: Code::VAL085,
        applicability: Applicability::Safe,
        how: "`{{KEY}}` of a server parameter becomes `{{SERVER_PARAM:KEY}}`; a user parameter's `{{NAME}}` becomes `{{USER_PARAM}}`",
    },
    FixInfo {
        code: Code::VAL087,
        applicability: Applicability::Safe,
        how: "sets `schemaHash` to the hash recomputed from `main`",
    },
    FixInfo {
        code: Code::VAL089,
        applicability: Applicability::Safe,
        how: "tags become kebab-case (`cacheTtlDaily` → `cache-ttl-daily`), duplicates dropped",
    },
    FixInfo {
        code: Code::VAL100,
        applicability: Applicability::Unsafe,
        how: "drafts `meta` from the tool's method, path and description, under a `// REVIEW:` comment",
    },
    FixInfo {
        code: Code::TST004,
        applicability: Applicability::Safe,
        how: "a test value of a `number()` parameter written as a decimal string becomes the number",
    },
    FixInfo {
        code: Code::TST006,
        applicability: Applicability::Safe,
        how: "a test key written as a user parameter's old `{{NAME}}` becomes the parameter's key",
    },
];

/// The kinds of fix of `code` (none when it has no fix).
pub fn fixes_of(code: Code) -> impl Iterator<Item = &'static FixInfo> {
    FIXES.iter().filter(move |f| f.code == code)
}
