//! Computes `FLOWMCP_BUILD_ID`, the identity of the code that validates a file: the result cache
//! (`src/results.rs`) keys every entry by it, so a build whose rules differ never reads another
//! build's results.
//!
//! In the workspace it is a hash of the sources of every crate a file's validation runs through
//! (spec, files, loader, resources, validate and this one) and of `Cargo.lock` (which fixes the
//! JavaScript engine and every other dependency); outside it (a published crate) the package
//! version stands in for them. `src/results.rs` adds, at run time, the version of every flowmcp
//! crate this build links and a digest of the rule registry (`build_key`), so a published
//! catalog that is built against a newer `flowmcp-validate` has another key.
// The build script reads the bundled catalog at build time; the capability rule is for product code.
#![allow(clippy::disallowed_methods)]

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let crates = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut inputs: Vec<PathBuf> = Vec::new();
    for name in [
        "flowmcp-spec",
        // How files are found and read (the walk, links, caps) decides what is validated.
        "flowmcp-files",
        "flowmcp-loader",
        "flowmcp-resources",
        "flowmcp-validate",
        "flowmcp-catalog",
    ] {
        let src = crates.join(name).join("src");
        if src.is_dir() {
            println!("cargo:rerun-if-changed={}", src.display());
            collect(&src, &mut inputs);
        }
    }
    let lock = crates.join("..").join("Cargo.lock");
    if lock.is_file() {
        println!("cargo:rerun-if-changed={}", lock.display());
        inputs.push(lock);
    }
    inputs.sort();
    // Two differently seeded 64-bit hashes: an identity, not a defence against anyone.
    let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
    b.write(b"flowmcp-build-id/second");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    for h in [&mut a, &mut b] {
        h.write(version.as_bytes());
    }
    for path in &inputs {
        let bytes = std::fs::read(path).unwrap_or_default();
        let rel = path.strip_prefix(&crates).unwrap_or(path);
        for h in [&mut a, &mut b] {
            h.write(rel.to_string_lossy().as_bytes());
            h.write_usize(bytes.len());
            h.write(&bytes);
        }
    }
    println!(
        "cargo:rustc-env=FLOWMCP_BUILD_ID={version}-{:016x}{:016x}",
        a.finish(),
        b.finish()
    );
    println!("cargo:rerun-if-changed=build.rs");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => collect(&p, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}
