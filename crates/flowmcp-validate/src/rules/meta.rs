//! Rules on the per-tool `meta` block: VAL100–VAL106.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
