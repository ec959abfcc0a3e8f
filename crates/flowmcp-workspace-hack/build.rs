// The build-dependencies of this crate unify the features of host crates (proc-macros and
// build scripts); cargo builds build-dependencies only for a package with a build script.
fn main() {}
