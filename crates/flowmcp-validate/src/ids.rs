//! Validating IDs (`namespace/type/name`, `namespace/schema-name`): ID001–ID006. (Being written for the
//! catalog issue.)

use flowmcp_spec::FileReport;

use crate::Options;

/// Validates one ID given as text (as `flowmcp validate --id` does) and reports under the name `ID`.
pub fn validate_id(text: &str, _opts: &Options) -> FileReport {
    FileReport::new(text, "id", Vec::new())
}
