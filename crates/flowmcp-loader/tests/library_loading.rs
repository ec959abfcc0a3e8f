//! Loading `requiredLibraries` into the handler sandbox: ES modules with an `exports` map and a
//! nested CommonJS dependency, CommonJS with `require` and JSON, default exports, scoped names;
//! what the factory receives; evaluation once per sandbox; confinement; limits; the bytecode
//! cache. The packages are small ones written for these tests.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::{Path, PathBuf};
use std::time::Duration;

use flowmcp_loader::libs::LibraryDir;
use flowmcp_loader::{
    HandlerHost, HostConfig, HostError, Libraries, host::HostBridge, host::Phase,
};
use serde_json::{Value, json};

/// A scratch library directory (and a file beside it, outside it) with the test packages.
struct Fixture {
    base: PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

impl Fixture {
    fn new(tag: &str) -> Fixture {
        let base =
            std::env::temp_dir().join(format!("flowmcp-libload-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let f = Fixture { base };
        f.write("outside.js", "module.exports = 'outside';");
        // ESM, an `exports` map with import/require conditions, a nested CommonJS dependency,
        // no default export (the factory gets the namespace).
        f.lib(
            "node_modules/esm-lib/package.json",
            r#"{"name": "esm-lib", "version": "1.0.0", "exports": {
                ".": {"import": "./esm/index.js", "require": "./cjs/index.js"}
            }}"#,
        );
        f.lib(
            "node_modules/esm-lib/esm/index.js",
            "import { twice } from './math.js';\n\
             import dep from 'nested-dep';\n\
             globalThis.esmLoads = (globalThis.esmLoads || 0) + 1;\n\
             export const answer = twice(dep);\n\
             let hits = 0;\n\
             export function hit() { hits += 1; return hits; }",
        );
        f.lib(
            "node_modules/esm-lib/esm/math.js",
            "export const twice = (n) => n * 2;",
        );
        f.lib(
            "node_modules/esm-lib/cjs/index.js",
            "module.exports = 'wrong';",
        );
        f.lib(
            "node_modules/esm-lib/node_modules/nested-dep/package.json",
            r#"{"name": "nested-dep", "main": "lib.js"}"#,
        );
        f.lib(
            "node_modules/esm-lib/node_modules/nested-dep/lib.js",
            "module.exports = 21;",
        );
        // CommonJS: a function as module.exports, a relative require, a JSON file.
        f.lib(
            "node_modules/cjs-lib/package.json",
            r#"{"name": "cjs-lib", "main": "index.js"}"#,
        );
        f.lib(
            "node_modules/cjs-lib/index.js",
            "const helper = require('./helper');\n\
             const data = require('./data.json');\n\
             module.exports = function cjsLib(x) { return helper(x) + data.offset; };\n\
             module.exports.kind = typeof __filename + ' ' + __filename;",
        );
        f.lib(
            "node_modules/cjs-lib/helper.js",
            "module.exports = (x) => x * 10;",
        );
        f.lib("node_modules/cjs-lib/data.json", r#"{"offset": 2}"#);
        // ESM with a default export, and a scoped CommonJS package.
        f.lib(
            "node_modules/default-lib/package.json",
            r#"{"name": "default-lib", "type": "module", "main": "index.js"}"#,
        );
        f.lib(
            "node_modules/default-lib/index.js",
            "export default { name: 'dflt' };\nexport const other = 1;",
        );
        // A falsy default export: the factory gets the namespace (`mod.default || mod`).
        f.lib(
            "node_modules/falsy-lib/package.json",
            r#"{"name": "falsy-lib", "type": "module", "main": "index.js"}"#,
        );
        f.lib(
            "node_modules/falsy-lib/index.js",
            "export default 0;\nexport const named = 'n';",
        );
        f.lib(
            "node_modules/@scope/pkg/package.json",
            r#"{"name": "@scope/pkg", "main": "main.js"}"#,
        );
        f.lib(
            "node_modules/@scope/pkg/main.js",
            "exports.hello = () => 'hi';",
        );
        // Reaching out: `../` past the directory, a Node built-in, an absolute path.
        f.lib(
            "node_modules/escape-lib/index.js",
            "module.exports = require('../../../outside.js');",
        );
        f.lib(
            "node_modules/builtin-lib/index.js",
            "const fs = require('fs'); module.exports = fs;",
        );
        f.lib(
            "node_modules/esm-escape/package.json",
            r#"{"name": "esm-escape", "type": "module", "main": "index.js"}"#,
        );
        f.lib(
            "node_modules/esm-escape/index.js",
            "export { default } from '../../../outside.js';",
        );
        // Misbehaving at load time.
        f.lib("node_modules/loop-lib/index.js", "for (;;) {}");
        f.lib(
            "node_modules/hog-lib/index.js",
            "const a = []; for (;;) a.push(new Array(100000).fill(1));",
        );
        // Catches the engine's out-of-memory error and throws what the engine throws when not
        // even that error can be allocated.
        f.lib(
            "node_modules/hog-null-lib/index.js",
            "const a = []; try { for (;;) a.push(new Array(100000).fill(1)); } catch (e) { throw null; }",
        );
        // Keeps what it allocated and throws an error of its own.
        f.lib(
            "node_modules/hog-keep-lib/index.js",
            "globalThis.kept = []; try { for (;;) kept.push(new Array(100000).fill(1)); } catch (e) { throw new Error('gave up'); }",
        );
        f.lib(
            "node_modules/throw-lib/index.js",
            "throw new Error('broken at load');",
        );
        f.lib("node_modules/native-lib/binding.gyp", "{}");
        f.lib("node_modules/native-lib/index.js", "module.exports = 1;");
        f
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.base.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn lib(&self, rel: &str, text: &str) {
        self.write(&format!("libs/{rel}"), text);
    }

    fn libs(&self) -> PathBuf {
        self.base.join("libs")
    }

    fn dir(&self) -> LibraryDir {
        LibraryDir::new(&self.libs()).unwrap()
    }
}

struct Quiet;

impl HostBridge for Quiet {
    fn fetch(
        &mut self,
        _req: flowmcp_loader::host::FetchRequest,
    ) -> Result<flowmcp_loader::host::FetchResponse, flowmcp_loader::host::FetchError> {
        Err("no network in this test".into())
    }
    fn log(&mut self, _level: &str, _text: &str) {}
}

fn config() -> HostConfig {
    {
        let mut v = HostConfig::spec();
        v.call_timeout = Duration::from_millis(500);
        v.factory_timeout = Duration::from_millis(500);
        v.library_timeout = Duration::from_millis(1500);
        v.memory_bytes = 32 * 1024 * 1024;
        v.library_memory_bytes = 32 * 1024 * 1024;
        v
    }
}

/// A schema whose tool `t` answers `probe(libraries)` in postRequest.
fn schema(probe: &str) -> String {
    format!(
        "export const main = {{ namespace: 'x', tools: {{}} }};\n\
         export const handlers = ({{ sharedLists, libraries }}) => ({{\n\
           t: {{ postRequest: ({{ response }}) => ({{ response: ({probe})(libraries) }}) }}\n\
         }});"
    )
}

fn load(names: &[&str], dir: Option<&LibraryDir>, probe: &str) -> Result<HandlerHost, HostError> {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    HandlerHost::load(
        "schema.mjs",
        &schema(probe),
        &json!({}),
        Libraries::new(&names, dir),
        &["t".to_string()],
        config(),
    )
}

fn call(host: &mut HandlerHost) -> Result<Value, HostError> {
    let out = host.call(
        "t",
        Phase::PostRequest,
        &json!({ "response": null, "struct": {}, "payload": {} }),
        &mut Quiet,
    )?;
    Ok(out["response"].clone())
}

fn library_error(r: Result<HandlerHost, HostError>) -> (String, String) {
    match r {
        Err(HostError::Library { package, message }) => (package, message),
        Err(other) => panic!("expected a library error, got {other:?}"),
        Ok(_) => panic!("expected a library error, the host loaded"),
    }
}

#[test]
fn the_factory_receives_each_library_as_the_reference_hands_it_over() {
    let f = Fixture::new("shape");
    let dir = f.dir();
    let mut host = load(
        &[
            "esm-lib",
            "cjs-lib",
            "default-lib",
            "@scope/pkg",
            "falsy-lib",
        ],
        Some(&dir),
        "(l) => ({ keys: Object.keys(l),
                   answer: l['esm-lib'].answer,
                   esmDefault: l['esm-lib'].default === undefined,
                   cjs: l['cjs-lib'](4),
                   cjsKind: l['cjs-lib'].kind,
                   dflt: l['default-lib'].name,
                   scoped: l['@scope/pkg'].hello(),
                   falsy: [l['falsy-lib'].default, l['falsy-lib'].named],
                   frozen: Object.isFrozen(l) })",
    )
    .unwrap();
    let out = call(&mut host).unwrap();
    assert_eq!(
        out,
        json!({
            "keys": ["esm-lib", "cjs-lib", "default-lib", "@scope/pkg", "falsy-lib"],
            // ESM through the `import` condition (not the CommonJS entry), with its nested dependency.
            "answer": 42,
            "esmDefault": true,
            // module.exports itself (a function), with a relative require and a JSON file.
            "cjs": 42,
            // Module names are relative to the library directory: no user path reaches JavaScript.
            "cjsKind": "string /node_modules/cjs-lib/index.js",
            "dflt": "dflt",
            "scoped": "hi",
            "falsy": [0, "n"],
            "frozen": true,
        })
    );
}

#[test]
fn a_library_is_evaluated_once_and_keeps_its_state_across_calls() {
    let f = Fixture::new("once");
    let dir = f.dir();
    let mut host = load(
        &["esm-lib"],
        Some(&dir),
        "(l) => [globalThis.esmLoads, l['esm-lib'].hit()]",
    )
    .unwrap();
    assert_eq!(call(&mut host).unwrap(), json!([1, 1]));
    assert_eq!(call(&mut host).unwrap(), json!([1, 2]));
}

#[test]
fn no_library_means_an_empty_frozen_object() {
    let mut host = load(
        &[],
        None,
        "(l) => [Object.keys(l).length, Object.isFrozen(l)]",
    )
    .unwrap();
    assert_eq!(call(&mut host).unwrap(), json!([0, true]));
    assert_eq!(host.compiled_library_modules(), 0);
}

#[test]
fn paths_out_of_the_directory_and_node_builtins_are_refused() {
    let f = Fixture::new("escape");
    let dir = f.dir();
    let (package, message) = library_error(load(&["escape-lib"], Some(&dir), "(l) => 1"));
    assert_eq!(package, "escape-lib");
    assert!(
        message.contains("outside the library directory"),
        "{message}"
    );
    let (_, message) = library_error(load(&["esm-escape"], Some(&dir), "(l) => 1"));
    assert!(
        message.contains("outside the library directory"),
        "{message}"
    );
    let (_, message) = library_error(load(&["builtin-lib"], Some(&dir), "(l) => 1"));
    assert!(
        message.contains("fs is a Node built-in module"),
        "{message}"
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_directory_is_refused() {
    let f = Fixture::new("symlink");
    f.lib(
        "node_modules/link-lib/package.json",
        r#"{"name": "link-lib", "main": "index.js"}"#,
    );
    std::os::unix::fs::symlink(
        f.base.join("outside.js"),
        f.libs().join("node_modules/link-lib/index.js"),
    )
    .unwrap();
    let dir = f.dir();
    let (package, message) = library_error(load(&["link-lib"], Some(&dir), "(l) => 1"));
    assert_eq!(package, "link-lib");
    assert!(
        message.contains("outside the library directory"),
        "{message}"
    );
}

#[test]
fn a_library_that_loops_or_allocates_without_bound_is_stopped_by_the_limits() {
    let f = Fixture::new("limits");
    let dir = f.dir();
    match load(&["loop-lib"], Some(&dir), "(l) => 1") {
        Err(HostError::Timeout) => {}
        other => panic!("expected the time limit, got {other:?}"),
    }
    // The engine throws an out-of-memory error, or `null` when it cannot allocate even that
    // (issue #46's CI run); a library that keeps the memory and throws its own error failed with
    // the heap full: all three are out of memory.
    for lib in ["hog-lib", "hog-null-lib", "hog-keep-lib"] {
        match load(&[lib], Some(&dir), "(l) => 1") {
            Err(HostError::Memory(_)) => {}
            other => panic!("{lib}: expected the memory limit, got {other:?}"),
        }
    }
}

#[test]
fn unusable_libraries_are_named_with_the_reason() {
    let f = Fixture::new("unusable");
    let dir = f.dir();
    let (package, message) = library_error(load(&["native-lib"], Some(&dir), "(l) => 1"));
    assert_eq!(package, "native-lib");
    assert!(message.contains("native addon"), "{message}");
    let (package, message) = library_error(load(&["absent-lib"], Some(&dir), "(l) => 1"));
    assert_eq!(package, "absent-lib");
    assert!(message.contains("not installed"), "{message}");
    // Issue #29, scope 3 (D74): facts only; the CLI adds its commands and flags.
    assert!(
        !message.contains("flowmcp libs") && !message.contains("--libs"),
        "{message}"
    );
    let (_, message) = library_error(load(&["throw-lib"], Some(&dir), "(l) => 1"));
    assert!(message.contains("broken at load"), "{message}");
    let (package, message) = library_error(load(&["esm-lib"], None, "(l) => 1"));
    assert_eq!(package, "esm-lib");
    assert!(message.contains("no library directory"), "{message}");
    assert_eq!(message, "no library directory is configured", "{message}");
    let err = HostError::Library {
        package: "x".into(),
        message: "y".into(),
    };
    assert_eq!(err.sec_code(), Some("SEC103"));
    assert!(!err.poisons());
}

#[test]
fn the_bytecode_cache_spares_a_second_sandbox_the_compilation() {
    let f = Fixture::new("bytecode");
    let dir = f.dir();
    let probe = "(l) => [l['esm-lib'].answer, l['default-lib'].name]";
    let first = load(&["esm-lib", "default-lib"], Some(&dir), probe).unwrap();
    assert_eq!(first.compiled_library_modules(), 3);
    // A clone shares the cache: nothing is compiled again, and the result is the same.
    let shared = dir.clone();
    let mut second = load(&["esm-lib", "default-lib"], Some(&shared), probe).unwrap();
    assert_eq!(second.compiled_library_modules(), 0);
    assert_eq!(call(&mut second).unwrap(), json!([42, "dflt"]));
    // A changed file is compiled again.
    std::thread::sleep(Duration::from_millis(20));
    f.lib(
        "node_modules/default-lib/index.js",
        "export default { name: 'changed' };",
    );
    let mut third = load(&["esm-lib", "default-lib"], Some(&dir), probe).unwrap();
    assert_eq!(third.compiled_library_modules(), 1);
    assert_eq!(call(&mut third).unwrap(), json!([42, "changed"]));
    // Without the cache every sandbox compiles.
    let uncached = f.dir().without_cache();
    for _ in 0..2 {
        let h = load(&["esm-lib"], Some(&uncached), "(l) => 1").unwrap();
        assert_eq!(h.compiled_library_modules(), 2);
    }
}

#[test]
fn the_library_directory_itself_must_exist() {
    let missing = Path::new("/nonexistent/flowmcp-libs");
    assert!(LibraryDir::new(missing).is_err());
}

#[test]
fn under_compat_an_unusable_library_is_a_stand_in_that_fails_only_when_used() {
    let f = Fixture::new("stand-in");
    let dir = f.dir();
    let names: Vec<String> = ["esm-lib", "native-lib", "absent-lib", "throw-lib"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let source = "export const main = { namespace: 'x', tools: {} };\n\
         export const handlers = ({ libraries }) => ({\n\
           ok: { postRequest: () => ({ response: libraries['esm-lib'].answer }) },\n\
           native: { postRequest: () => ({ response: libraries['native-lib'].execute({}) }) },\n\
           absent: { postRequest: () => ({ response: new libraries['absent-lib']() }) },\n\
           thrower: { postRequest: () => ({ response: libraries['throw-lib']() }) }\n\
         });";
    let tools: Vec<String> = ["ok", "native", "absent", "thrower"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let compat = {
        let mut v = HostConfig::compat();
        v.library_timeout = Duration::from_millis(1500);
        v
    };
    let mut host = HandlerHost::load(
        "schema.mjs",
        source,
        &json!({}),
        Libraries::new(&names, Some(&dir)),
        &tools,
        compat,
    )
    .unwrap();
    let warnings: Vec<String> = host
        .take_load_logs()
        .into_iter()
        .filter(|(level, _)| level == "warn")
        .map(|(_, text)| text)
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    let run = |host: &mut HandlerHost, tool: &str| {
        host.call(
            tool,
            Phase::PostRequest,
            &json!({ "response": null, "struct": {}, "payload": {} }),
            &mut Quiet,
        )
    };
    assert_eq!(run(&mut host, "ok").unwrap()["response"], json!(42));
    for (tool, package, why) in [
        ("native", "native-lib", "native addon"),
        ("absent", "absent-lib", "not installed"),
        ("thrower", "throw-lib", "broken at load"),
    ] {
        match run(&mut host, tool) {
            Err(HostError::Threw(m)) => {
                assert!(
                    m.starts_with(&format!(
                        "SEC103 the library \"{package}\" cannot be used: "
                    )),
                    "{m}"
                );
                assert!(m.contains(why), "{m}");
            }
            other => panic!("{tool}: expected the stand-in's error, got {other:?}"),
        }
    }
    // A limit breach while loading is not papered over.
    let loop_names = vec!["loop-lib".to_string()];
    let r = HandlerHost::load(
        "schema.mjs",
        source,
        &json!({}),
        Libraries::new(&loop_names, Some(&dir)),
        &tools,
        {
            let mut v = HostConfig::compat();
            v.library_timeout = Duration::from_millis(300);
            v
        },
    );
    assert!(matches!(r, Err(HostError::Timeout)), "{r:?}");
}
