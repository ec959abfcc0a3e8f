//! Rules on tool tests: TST001–TST008.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
