//! The connection authorizer: what a statement may do, decided by SQLite while it compiles the
//! statement, not by reading the SQL text.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// Which rule set a connection compiles statements under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// `in-memory` and `http` resources: reading only.
    ReadOnly,
    /// `file-based` resources: reading and writing the database's own tables.
    ReadWrite,
    /// The author's schema SQL in `Database::create`: like `ReadWrite`, plus the transaction the
    /// engine wraps it in and setting `user_version` / `application_id`.
    Schema,
}

/// Pragmas that only report, whatever argument they are given (`PRAGMA table_info(t)` passes
/// the table name as the pragma's value).
const REPORTING_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "collation_list",
    "function_list",
    "module_list",
    "pragma_list",
    "compile_options",
];

/// Pragmas that report a setting when given no value and change it when given one.
const SETTING_PRAGMAS: &[&str] = &[
    "user_version",
    "application_id",
    "schema_version",
    "encoding",
    "page_size",
    "page_count",
    "freelist_count",
    "foreign_keys",
    "journal_mode",
];

/// Pragmas the schema SQL may set.
const SCHEMA_SETTABLE_PRAGMAS: &[&str] = &["user_version", "application_id"];

/// The reason the last action was denied, kept for the error message.
pub(crate) type Denial = Arc<Mutex<Option<String>>>;

/// Installs the authorizer for `policy`; a denial's reason is written to `denial`.
pub(crate) fn install(
    conn: &mut Connection,
    policy: Policy,
    denial: Denial,
) -> rusqlite::Result<()> {
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        match decide(policy, &ctx.action) {
            Ok(()) => Authorization::Allow,
            Err(reason) => {
                *denial.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
                Authorization::Deny
            }
        }
    }))
}

fn contains(list: &[&str], name: &str) -> bool {
    list.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// Whether `action` is allowed under `policy`; the error is the reason, in a sentence.
pub(crate) fn decide(policy: Policy, action: &AuthAction<'_>) -> Result<(), String> {
    use AuthAction as A;
    let write = || match policy {
        Policy::ReadOnly => Err(
            "this resource is read-only: statements that change the database are not allowed"
                .to_owned(),
        ),
        Policy::ReadWrite | Policy::Schema => Ok(()),
    };
    match action {
        A::Select | A::Read { .. } | A::Recursive => Ok(()),
        A::Function { function_name } => {
            if function_name.eq_ignore_ascii_case("load_extension") {
                Err("loading extensions is not allowed".to_owned())
            } else {
                Ok(())
            }
        }
        A::Attach { .. } | A::Detach { .. } => Err(
            "ATTACH and DETACH are not allowed: a resource uses its own database only".to_owned(),
        ),
        A::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let reporting = contains(REPORTING_PRAGMAS, pragma_name)
                || (pragma_value.is_none() && contains(SETTING_PRAGMAS, pragma_name))
                || (policy == Policy::Schema && contains(SCHEMA_SETTABLE_PRAGMAS, pragma_name));
            if reporting {
                Ok(())
            } else {
                Err(format!(
                    "PRAGMA {pragma_name} is not allowed: only pragmas that report (such as table_info) may run"
                ))
            }
        }
        A::Transaction { .. } | A::Savepoint { .. } => match policy {
            Policy::Schema => Ok(()),
            Policy::ReadOnly | Policy::ReadWrite => Err(
                "transaction control is not available: every statement runs as its own transaction"
                    .to_owned(),
            ),
        },
        A::Insert { .. }
        | A::Update { .. }
        | A::Delete { .. }
        | A::CreateIndex { .. }
        | A::CreateTable { .. }
        | A::CreateTempIndex { .. }
        | A::CreateTempTable { .. }
        | A::CreateTempTrigger { .. }
        | A::CreateTempView { .. }
        | A::CreateTrigger { .. }
        | A::CreateView { .. }
        | A::DropIndex { .. }
        | A::DropTable { .. }
        | A::DropTempIndex { .. }
        | A::DropTempTable { .. }
        | A::DropTempTrigger { .. }
        | A::DropTempView { .. }
        | A::DropTrigger { .. }
        | A::DropView { .. }
        | A::AlterTable { .. }
        | A::Reindex { .. }
        | A::Analyze { .. }
        | A::CreateVtable { .. }
        | A::DropVtable { .. } => write(),
        // An action this engine does not know is refused rather than guessed at.
        _ => Err("this kind of statement is not allowed".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pragmas_with_an_argument_are_allowed_only_when_they_report() {
        let table_info = A::Pragma {
            pragma_name: "TABLE_INFO",
            pragma_value: Some("t"),
        };
        assert!(decide(Policy::ReadOnly, &table_info).is_ok());
        let read = A::Pragma {
            pragma_name: "user_version",
            pragma_value: None,
        };
        assert!(decide(Policy::ReadOnly, &read).is_ok());
        let set = A::Pragma {
            pragma_name: "user_version",
            pragma_value: Some("3"),
        };
        assert!(decide(Policy::ReadWrite, &set).is_err());
        assert!(decide(Policy::Schema, &set).is_ok());
        let unknown = A::Pragma {
            pragma_name: "writable_schema",
            pragma_value: None,
        };
        assert!(decide(Policy::Schema, &unknown).is_err());
    }

    #[test]
    fn writes_depend_on_the_policy_and_attach_never_passes() {
        let insert = A::Insert { table_name: "t" };
        assert!(decide(Policy::ReadOnly, &insert).is_err());
        assert!(decide(Policy::ReadWrite, &insert).is_ok());
        for policy in [Policy::ReadOnly, Policy::ReadWrite, Policy::Schema] {
            assert!(decide(policy, &A::Attach { filename: "x.db" }).is_err());
            assert!(
                decide(
                    policy,
                    &A::Function {
                        function_name: "LOAD_EXTENSION"
                    }
                )
                .is_err()
            );
            assert!(
                decide(
                    policy,
                    &A::Unknown {
                        code: 99,
                        arg1: None,
                        arg2: None
                    }
                )
                .is_err()
            );
        }
    }

    use AuthAction as A;
}
