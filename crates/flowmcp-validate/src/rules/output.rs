//! Rules on output schemas: VAL060–VAL065.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
