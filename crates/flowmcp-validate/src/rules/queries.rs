//! The resources and queries of a schema's `main.resources`, as the resource rules
//! (`resources.rs`) and the test rules (`tool_tests.rs`) walk them.

use flowmcp_spec::JsonPath;
use serde_json::{Map, Value};

use super::Field as _;
use super::{SchemaCtx, main_path};

/// One resource that is an object.
pub(super) struct ResRef<'a> {
    pub(super) res: &'a Map<String, Value>,
    /// `main.resources.<name>`
    pub(super) path: JsonPath,
}

/// One query that is an object, with its resource.
pub(super) struct QueryRef<'a> {
    pub(super) res: &'a Map<String, Value>,
    pub(super) name: &'a String,
    pub(super) query: &'a Map<String, Value>,
    /// `main.resources.<resource>.queries.<name>`
    pub(super) path: JsonPath,
}

impl<'a> QueryRef<'a> {
    pub(super) fn sql(&self) -> Option<&'a str> {
        self.query.field("sql").and_then(Value::as_str)
    }
    /// The parameter objects with their paths.
    pub(super) fn params(&self) -> Vec<(&'a Map<String, Value>, JsonPath)> {
        let Some(Value::Array(params)) = self.query.field("parameters") else {
            return Vec::new();
        };
        let base = self.path.key("parameters");
        params
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_object().map(|o| (o, base.index(i))))
            .collect()
    }
}

/// `main.resources` when it is an object.
pub(super) fn resources<'a>(ctx: &SchemaCtx<'a>) -> Option<&'a Map<String, Value>> {
    ctx.main_field("resources")?.as_object()
}

/// Every resource that is an object.
pub(super) fn each_resource<'a>(ctx: &SchemaCtx<'a>) -> Vec<ResRef<'a>> {
    let Some(all) = resources(ctx) else {
        return Vec::new();
    };
    let base = main_path("resources");
    all.iter()
        .filter_map(|(name, r)| {
            r.as_object().map(|res| ResRef {
                res,
                path: base.key(name),
            })
        })
        .collect()
}

/// Every query that is an object, of every resource whose `queries` is an object.
pub(super) fn each_query<'a>(ctx: &SchemaCtx<'a>) -> Vec<QueryRef<'a>> {
    let mut out = Vec::new();
    for r in each_resource(ctx) {
        let Some(queries) = r.res.field("queries").and_then(Value::as_object) else {
            continue;
        };
        let base = r.path.key("queries");
        for (name, q) in queries {
            if let Some(query) = q.as_object() {
                out.push(QueryRef {
                    res: r.res,
                    name,
                    query,
                    path: base.key(name),
                });
            }
        }
    }
    out
}

/// The tests of every query whose `tests` is an array, with the path of that array
/// (`main.resources.<resource>.queries.<query>.tests`): TST001 counts them as it counts a tool's.
pub(super) fn query_test_lists<'a>(ctx: &SchemaCtx<'a>) -> Vec<(&'a [Value], JsonPath)> {
    each_query(ctx)
        .into_iter()
        .filter_map(|q| match q.query.field("tests") {
            Some(Value::Array(tests)) => Some((tests.as_slice(), q.path.key("tests"))),
            _ => None,
        })
        .collect()
}
