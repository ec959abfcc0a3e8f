//! Resolving library specifiers inside a library directory: `exports` maps with conditions and
//! patterns, `module`/`main`, folder indexes, nested dependencies, the `browser` map, formats —
//! and confinement (`../`, absolute paths, symbolic links out, Node built-ins).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::{Path, PathBuf};

use flowmcp_loader::libs::{LibError, LibraryDir, ModuleFormat};

/// A scratch library directory with small packages written for these tests.
fn fixture(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flowmcp-libs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let w = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // ESM with an `exports` map (conditions, a pattern) and a nested CommonJS dependency.
    w(
        "node_modules/esm-pkg/package.json",
        r#"{"name": "esm-pkg", "exports": {
            ".": {"node": "./node.js", "import": "./esm/index.js", "require": "./cjs/index.js"},
            "./util/*": {"import": "./esm/util/*.js"},
            "./only-require": {"require": "./cjs/only.js"}
        }}"#,
    );
    w("node_modules/esm-pkg/node.js", "export default 'node';");
    w(
        "node_modules/esm-pkg/esm/index.js",
        "import h from './helper'; import d from 'dep-pkg'; export default h + d;",
    );
    w("node_modules/esm-pkg/esm/helper.js", "export default 1;");
    w(
        "node_modules/esm-pkg/esm/util/math.js",
        "export const add = (a, b) => a + b;",
    );
    w("node_modules/esm-pkg/cjs/index.js", "module.exports = 1;");
    w("node_modules/esm-pkg/cjs/only.js", "module.exports = 2;");
    w(
        "node_modules/esm-pkg/node_modules/dep-pkg/package.json",
        r#"{"name": "dep-pkg", "main": "lib.js"}"#,
    );
    w(
        "node_modules/esm-pkg/node_modules/dep-pkg/lib.js",
        "module.exports = 41;",
    );
    // CommonJS whose `main` is a folder.
    w(
        "node_modules/cjs-pkg/package.json",
        r#"{"name": "cjs-pkg", "main": "./src/"}"#,
    );
    w(
        "node_modules/cjs-pkg/src/index.js",
        "module.exports = require('./other');",
    );
    w(
        "node_modules/cjs-pkg/src/other.js",
        "module.exports = 'other';",
    );
    // `"type": "module"` with a string `exports`.
    w(
        "node_modules/typed/package.json",
        r#"{"name": "typed", "type": "module", "exports": "./dist/index.js"}"#,
    );
    w(
        "node_modules/typed/dist/index.js",
        "export default 'typed';",
    );
    // `module` beside `main`.
    w(
        "node_modules/mod-field/package.json",
        r#"{"name": "mod-field", "main": "dist/cjs/index.js", "module": "dist/esm/index.js"}"#,
    );
    w(
        "node_modules/mod-field/dist/esm/index.js",
        "export default 'esm';",
    );
    w(
        "node_modules/mod-field/dist/cjs/index.js",
        "module.exports = 'cjs';",
    );
    // A scoped package with a `browser` map.
    w(
        "node_modules/@demo/mapped/package.json",
        r#"{"name": "@demo/mapped", "main": "./index.js", "browser": {"./crypto.js": "./crypto-browser.js", "./fs-use.js": false}}"#,
    );
    w(
        "node_modules/@demo/mapped/index.js",
        "module.exports = require('./crypto');",
    );
    w(
        "node_modules/@demo/mapped/crypto.js",
        "module.exports = require('crypto');",
    );
    w(
        "node_modules/@demo/mapped/crypto-browser.js",
        "module.exports = 'browser';",
    );
    w(
        "node_modules/@demo/mapped/fs-use.js",
        "module.exports = require('fs');",
    );
    w("node_modules/@demo/mapped/data.json", r#"{"a": 1}"#);
    // A native addon.
    w(
        "node_modules/native/package.json",
        r#"{"name": "native", "main": "index.js"}"#,
    );
    w(
        "node_modules/native/index.js",
        "module.exports = require('./build/Release/native.node');",
    );
    w("node_modules/native/binding.gyp", "{}");
    dir
}

fn lib(dir: &Path) -> LibraryDir {
    LibraryDir::new(dir).unwrap()
}

fn rel(lib: &LibraryDir, p: &Path) -> String {
    p.strip_prefix(lib.root())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn entries_follow_exports_conditions_module_main_and_folders() {
    let dir = fixture("entries");
    let l = lib(&dir);
    let e = l.entry("esm-pkg").unwrap();
    // `node` is never chosen; `import` is, and makes the file ESM.
    assert_eq!(rel(&l, &e.path), "node_modules/esm-pkg/esm/index.js");
    assert_eq!(e.format, ModuleFormat::Esm);
    let e = l.entry("cjs-pkg").unwrap();
    assert_eq!(rel(&l, &e.path), "node_modules/cjs-pkg/src/index.js");
    assert_eq!(e.format, ModuleFormat::CommonJs);
    let e = l.entry("typed").unwrap();
    assert_eq!(
        (rel(&l, &e.path).as_str(), e.format),
        ("node_modules/typed/dist/index.js", ModuleFormat::Esm)
    );
    let e = l.entry("mod-field").unwrap();
    assert_eq!(
        (rel(&l, &e.path).as_str(), e.format),
        (
            "node_modules/mod-field/dist/esm/index.js",
            ModuleFormat::Esm
        )
    );
    let e = l.entry("@demo/mapped").unwrap();
    assert_eq!(rel(&l, &e.path), "node_modules/@demo/mapped/index.js");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn specifiers_resolve_relative_nested_patterns_and_browser_maps() {
    let dir = fixture("specifiers");
    let l = lib(&dir);
    let index = l.entry("esm-pkg").unwrap();
    let helper = l.resolve("./helper", &index.path, index.format).unwrap();
    assert_eq!(rel(&l, &helper.path), "node_modules/esm-pkg/esm/helper.js");
    assert_eq!(helper.format, ModuleFormat::Esm);
    // The nested dependency, from inside the package.
    let dep = l.resolve("dep-pkg", &index.path, index.format).unwrap();
    assert_eq!(
        rel(&l, &dep.path),
        "node_modules/esm-pkg/node_modules/dep-pkg/lib.js"
    );
    assert_eq!(dep.format, ModuleFormat::CommonJs);
    // An `exports` pattern; a subpath exported only for `require`.
    let math = l
        .resolve("esm-pkg/util/math", &index.path, index.format)
        .unwrap();
    assert_eq!(rel(&l, &math.path), "node_modules/esm-pkg/esm/util/math.js");
    let only = l
        .resolve("esm-pkg/only-require", &index.path, index.format)
        .unwrap();
    assert_eq!(only.format, ModuleFormat::CommonJs);
    // The `browser` map: a replacement, an empty module, JSON.
    let mapped = l.entry("@demo/mapped").unwrap();
    let crypto = l.resolve("./crypto", &mapped.path, mapped.format).unwrap();
    assert_eq!(
        rel(&l, &crypto.path),
        "node_modules/@demo/mapped/crypto-browser.js"
    );
    let fs_use = l
        .resolve("./fs-use.js", &mapped.path, mapped.format)
        .unwrap();
    assert_eq!(fs_use.format, ModuleFormat::Empty);
    let data = l
        .resolve("./data.json", &mapped.path, mapped.format)
        .unwrap();
    assert_eq!(data.format, ModuleFormat::Json);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_is_not_there_or_not_allowed_is_refused_with_the_reason() {
    let dir = fixture("refused");
    let l = lib(&dir);
    let index = l.entry("esm-pkg").unwrap();
    let at = |s: &str| l.resolve(s, &index.path, index.format);
    assert!(matches!(at("fs"), Err(LibError::Builtin(_))));
    assert!(matches!(at("node:crypto"), Err(LibError::Builtin(_))));
    assert!(matches!(at("crypto/webcrypto"), Err(LibError::Builtin(_))));
    assert!(matches!(at("nope"), Err(LibError::NotInstalled { .. })));
    assert!(matches!(
        l.entry("nope"),
        Err(LibError::NotInstalled { .. })
    ));
    assert!(matches!(
        l.entry("../outside"),
        Err(LibError::NotInstalled { .. })
    ));
    assert!(matches!(
        at("esm-pkg/private"),
        Err(LibError::NotExported { .. })
    ));
    assert!(matches!(at("./missing"), Err(LibError::NotFound { .. })));
    // Climbing out of the directory, or an absolute path.
    assert!(matches!(
        at("../../../../../../etc/passwd"),
        Err(LibError::Escapes { .. })
    ));
    assert!(matches!(at("/etc/passwd"), Err(LibError::Escapes { .. })));
    assert!(l.is_native("native"));
    assert!(!l.is_native("cjs-pkg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_directory_are_refused() {
    let dir = fixture("links");
    let outside = std::env::temp_dir().join(format!("flowmcp-libs-outside-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("index.js"), "module.exports = 'secret';").unwrap();
    std::fs::write(
        outside.join("package.json"),
        r#"{"name": "evil", "main": "index.js"}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("node_modules/evil")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("index.js"),
        dir.join("node_modules/cjs-pkg/src/leak.js"),
    )
    .unwrap();
    let l = lib(&dir);
    assert!(matches!(l.entry("evil"), Err(LibError::Escapes { .. })));
    let index = l.entry("cjs-pkg").unwrap();
    assert!(matches!(
        l.resolve("./leak", &index.path, index.format),
        Err(LibError::Escapes { .. })
    ));
    // A link that stays inside is followed.
    std::os::unix::fs::symlink(
        dir.join("node_modules/cjs-pkg/src/other.js"),
        dir.join("node_modules/cjs-pkg/src/alias.js"),
    )
    .unwrap();
    let alias = l.resolve("./alias", &index.path, index.format).unwrap();
    assert_eq!(rel(&l, &alias.path), "node_modules/cjs-pkg/src/other.js");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&outside);
}

#[test]
fn a_require_from_commonjs_gets_the_commonjs_build() {
    let dir = fixture("require");
    let l = lib(&dir);
    let cjs = l.entry("cjs-pkg").unwrap();
    assert_eq!(cjs.format, ModuleFormat::CommonJs);
    // The `require` condition wins over `import` for a require() ...
    let e = l.resolve("esm-pkg", &cjs.path, cjs.format).unwrap();
    assert_eq!(
        (rel(&l, &e.path).as_str(), e.format),
        ("node_modules/esm-pkg/cjs/index.js", ModuleFormat::CommonJs)
    );
    // ... and `main` over `module`.
    let e = l.resolve("mod-field", &cjs.path, cjs.format).unwrap();
    assert_eq!(
        (rel(&l, &e.path).as_str(), e.format),
        (
            "node_modules/mod-field/dist/cjs/index.js",
            ModuleFormat::CommonJs
        )
    );
    // An import from an ES module still gets the ES build.
    let esm = l.entry("typed").unwrap();
    let e = l.resolve("mod-field", &esm.path, esm.format).unwrap();
    assert_eq!(rel(&l, &e.path), "node_modules/mod-field/dist/esm/index.js");
    let _ = std::fs::remove_dir_all(&dir);
}
