//! SQLite resources: opening databases by mode and origin, and running queries safely.
