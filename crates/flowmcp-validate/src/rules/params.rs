//! Rules on parameters: VAL040–VAL050, VAL082–VAL085, PH004.

use super::SchemaRule;

/// The rules of this module, in the order they run.
pub static RULES: &[SchemaRule] = &[];
