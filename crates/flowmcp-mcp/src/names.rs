//! The MCP names of prompts and skills (D134): the catalog names them by Primitive-ID
//! (`namespace/prompt/name`); under the reference's tool names (`--tool-names reference`) they get
//! flat names the way tools do (`test_simple_prompt`), for clients whose prompt names (slash
//! commands) cannot hold `/`. Decided once per catalog load; a flat name two prompts would share
//! is given to neither (both keep their IDs).

use std::collections::HashMap;

use flowmcp_catalog::runtime::ToolNames;
use flowmcp_spec::id::PrimitiveId;

/// Both directions between the names the catalog uses and the names clients see.
#[derive(Debug, Default)]
pub(crate) struct PromptNames {
    /// Catalog name → client name, for the renamed ones only.
    wire_of: HashMap<String, String>,
    /// Client name → catalog name, for the renamed ones only.
    id_of: HashMap<String, String>,
}

impl PromptNames {
    /// The names of the prompts `names` (as the catalog names them) under `naming`. A name
    /// that is not a Primitive-ID keeps its name.
    pub(crate) fn of<'a>(naming: ToolNames, names: impl Iterator<Item = &'a str>) -> PromptNames {
        if naming == ToolNames::Spec {
            return PromptNames::default();
        }
        let mut claimed: HashMap<String, Vec<String>> = HashMap::new();
        for name in names {
            if let Ok(id) = name.parse::<PrimitiveId>() {
                claimed
                    .entry(naming.prompt_name(&id))
                    .or_default()
                    .push(name.to_string());
            }
        }
        let mut out = PromptNames::default();
        for (wire, mut ids) in claimed {
            if let (Some(id), true) = (ids.pop(), ids.is_empty()) {
                out.wire_of.insert(id.clone(), wire.clone());
                out.id_of.insert(wire, id);
            }
        }
        out
    }

    /// The name clients see for the catalog's `name`.
    pub(crate) fn wire<'a>(&'a self, name: &'a str) -> &'a str {
        self.wire_of.get(name).map_or(name, String::as_str)
    }

    /// The catalog's name for the name a client gave (a client name, or the catalog's own).
    pub(crate) fn catalog<'a>(&'a self, asked: &'a str) -> &'a str {
        self.id_of.get(asked).map_or(asked, String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i43_reference_names_flatten_prompt_ids_and_colliders_keep_theirs() {
        let ids = [
            "prompt/prompt/test-simple",
            "arguments/prompt/test-prompt-with",
            "x/prompt/foo-bar",
            "bar-x/prompt/foo",
            "not an id",
        ];
        let names = PromptNames::of(ToolNames::Reference, ids.iter().copied());
        assert_eq!(
            names.wire("prompt/prompt/test-simple"),
            "test_simple_prompt"
        );
        assert_eq!(
            names.wire("arguments/prompt/test-prompt-with"),
            "test_prompt_with_arguments"
        );
        assert_eq!(
            names.catalog("test_simple_prompt"),
            "prompt/prompt/test-simple"
        );
        // The catalog's own name still finds it.
        assert_eq!(
            names.catalog("prompt/prompt/test-simple"),
            "prompt/prompt/test-simple"
        );
        // `foo_bar_x` twice: neither is renamed.
        assert_eq!(names.wire("x/prompt/foo-bar"), "x/prompt/foo-bar");
        assert_eq!(names.wire("bar-x/prompt/foo"), "bar-x/prompt/foo");
        assert_eq!(names.catalog("foo_bar_x"), "foo_bar_x");
        assert_eq!(names.wire("not an id"), "not an id");
        let spec = PromptNames::of(ToolNames::Spec, ids.iter().copied());
        assert_eq!(
            spec.wire("prompt/prompt/test-simple"),
            "prompt/prompt/test-simple"
        );
    }
}
