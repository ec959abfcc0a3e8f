//! Rules on shared-list references (structure only): VAL070, VAL071, VAL074, VAL075; and `schemaVersion`/`schemaHash`: VAL086, VAL087.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
