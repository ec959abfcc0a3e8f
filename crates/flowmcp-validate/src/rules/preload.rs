//! Rules on `preload`: PRE001–PRE006.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
