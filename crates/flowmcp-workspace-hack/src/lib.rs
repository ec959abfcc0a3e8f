//! Not code. This crate exists for its dependency list: the features the workspace's builds ask of
//! shared third-party crates, unified, so that `cargo test --workspace`, `cargo run -p … --example …`
//! and `cargo xtask …` compile each of those crates once, with one feature set, instead of again for
//! each command (see ARCHITECTURE.md, "Building"). Every member has it as a dev-dependency (xtask as
//! a normal one); published crates do not depend on it.
