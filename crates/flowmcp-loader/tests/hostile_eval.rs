//! The engine-level behaviour on hostile modules: each ends in a failure class, never a crash or hang.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::time::Duration;

use flowmcp_loader::{EvalFailure, HandlersExport, Limits, eval::evaluate};

fn limits() -> Limits {
    {
        let mut v = Limits::default();
        v.eval_timeout = Duration::from_millis(300);
        v
    }
}

fn eval(src: &str) -> Result<flowmcp_loader::Exports, EvalFailure> {
    evaluate("hostile.mjs", src, &limits())
}

#[test]
fn infinite_loop_times_out() {
    assert_eq!(
        eval("for(;;){}\nexport const main = {};").unwrap_err(),
        EvalFailure::Timeout
    );
}

#[test]
fn unbounded_allocation_hits_memory_limit() {
    let e = eval("const a = []; for(;;) { a.push('x'.repeat(1 << 20)); }\nexport const main = {};")
        .unwrap_err();
    assert!(matches!(e, EvalFailure::Memory { .. }), "{e:?}");
}

/// The engine throws `null` when it cannot allocate even its out-of-memory error, and by then
/// the module's locals are freed: a thrown `null` is the memory limit (issue #46's CI run).
#[test]
fn a_thrown_null_is_the_memory_limit() {
    let e = eval(
        "const a = []; try { for(;;) a.push(new Array(100000).fill(1)); } catch (e) { throw null; }\nexport const main = {};",
    )
    .unwrap_err();
    assert!(matches!(e, EvalFailure::Memory { .. }), "{e:?}");
    let e = eval("throw null;\nexport const main = {};").unwrap_err();
    match e {
        EvalFailure::Memory { message } => assert!(message.contains("threw null"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unbounded_recursion_hits_stack_limit() {
    let e =
        eval("function f(n) { return f(n + 1) + 1; }\nf(0);\nexport const main = {};").unwrap_err();
    assert!(matches!(e, EvalFailure::Memory { .. }), "{e:?}");
}

#[test]
fn syntax_error_has_position() {
    let e = eval("export const main = {\n  a: 1,,\n};").unwrap_err();
    match e {
        EvalFailure::Syntax { at: Some(at), .. } => assert_eq!(at.line, 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn throwing_module() {
    let e = eval("throw new Error('boom');\nexport const main = {};").unwrap_err();
    match e {
        EvalFailure::Threw { message, at } => {
            assert!(message.contains("boom"));
            assert_eq!(at.map(|p| p.line), Some(1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn top_level_await_never_settles() {
    assert_eq!(
        eval("await new Promise(() => {});\nexport const main = {};").unwrap_err(),
        EvalFailure::NeverSettles
    );
}

#[test]
fn static_and_dynamic_imports_fail() {
    assert!(matches!(
        eval("import fs from 'fs';\nexport const main = {};").unwrap_err(),
        EvalFailure::Threw { .. }
    ));
    let e = eval("await import('fs');\nexport const main = {};").unwrap_err();
    assert!(matches!(e, EvalFailure::Threw { .. }), "{e:?}");
}

#[test]
fn host_globals_are_absent() {
    for g in [
        "process",
        "fetch",
        "require",
        "setTimeout",
        "setInterval",
        "std",
        "os",
    ] {
        let e = eval(&format!("export const main = {{ t: typeof {g} }};")).unwrap();
        assert_eq!(
            e.data["main"]["t"], "undefined",
            "{g} exists in the sandbox"
        );
    }
    let e = eval("process.exit(1);\nexport const main = {};").unwrap_err();
    assert!(
        matches!(e, EvalFailure::Threw { ref message, .. } if message.contains("process")),
        "{e:?}"
    );
}

#[test]
fn proxy_trap_loop_times_out() {
    let src = "export const main = new Proxy({}, { ownKeys() { for(;;){} } });";
    assert_eq!(eval(src).unwrap_err(), EvalFailure::Timeout);
}

#[test]
fn unserializable_values_are_listed_with_paths() {
    let src = r#"
        const cyc = { a: 1 }; cyc.self = cyc;
        export const main = {
            f: () => 1, u: undefined, s: Symbol('x'), b: 10n, n: NaN, i: Infinity,
            d: new Date(0), c: cyc, list: [1, () => 2],
            get boom() { throw new Error('nope'); },
            ok: 'fine',
        };"#;
    let e = eval(src).unwrap();
    let kinds: Vec<(String, String)> = e
        .unserializable
        .iter()
        .map(|u| (format!("{:?}", u.path), u.kind.as_str().to_string()))
        .collect();
    let has = |k: &str| e.unserializable.iter().any(|u| u.kind.as_str() == k);
    for k in [
        "function",
        "undefined",
        "symbol",
        "bigint",
        "number",
        "non-plain",
        "cycle",
        "getter-threw",
    ] {
        assert!(has(k), "missing {k} in {kinds:?}");
    }
    assert_eq!(e.data["main"]["ok"], "fine");
    assert!(
        e.unserializable
            .iter()
            .any(|u| u.kind.as_str() == "function" && u.path.len() == 2)
    );
}

#[test]
fn handlers_shape_is_reported() {
    let src = "export const main = {};\nexport const handlers = ({ sharedLists }) => ({ getX: { postRequest: async ({ response }) => ({ response }) }, other: 1 });";
    let e = eval(src).unwrap();
    match e.handlers {
        HandlersExport::Function { shape: Ok(tools) } => {
            assert_eq!(
                tools[0],
                ("getX".to_string(), vec!["postRequest".to_string()])
            );
            assert_eq!(tools[1], ("other".to_string(), vec![]));
        }
        other => panic!("{other:?}"),
    }
    let e = eval("export const main = {};\nexport const handlers = 5;").unwrap();
    assert_eq!(e.handlers, HandlersExport::NotFunction("int".into()));
}

#[test]
fn handler_factory_that_loops_times_out() {
    let src = "export const main = {};\nexport const handlers = () => { for(;;){} };";
    assert_eq!(eval(src).unwrap_err(), EvalFailure::Timeout);
}

#[test]
fn poisoned_builtins_do_not_change_extraction() {
    let src = "Object.keys = () => []; JSON.stringify = () => '{}'; Array.isArray = () => false;\nexport const main = { a: [1, 2] };";
    let e = eval(src).unwrap();
    assert_eq!(e.data["main"]["a"], serde_json::json!([1, 2]));
}

#[test]
fn default_export_only_has_no_data() {
    let e = eval("export default { main: {} };").unwrap();
    assert_eq!(e.names, vec!["default".to_string()]);
    assert!(e.data.is_empty());
}

mod fast_main {
    use super::*;
    use flowmcp_loader::eval::evaluate_with_blanked;
    use flowmcp_loader::scan::blank;

    fn eval_fast(src: &str) -> Result<flowmcp_loader::Exports, EvalFailure> {
        evaluate_with_blanked("fast.mjs", src, Some(&blank(src)), &limits())
    }

    #[test]
    fn same_exports_as_the_engine_path() {
        let src = "export const main = {\n  b: [1, 2.5, -0, 'x\\ny', { z: null }],\n  a: true,\n  7: 'seven'\n};\nexport const handlers = () => ({ a: { postRequest: async ({ response }) => ({ response }) } });\n";
        assert_eq!(eval_fast(src).unwrap(), eval(src).unwrap());
    }

    #[test]
    fn a_main_changed_after_its_declaration_is_read_back() {
        let src = "export const main = { namespace: 'x', tools: {} };\nmain.extra = () => 1;\nmain.namespace = 'y';\n";
        let e = eval_fast(src).unwrap();
        assert_eq!(e.data["main"]["namespace"], "y");
        assert!(
            e.unserializable
                .iter()
                .any(|u| u.kind == flowmcp_loader::UnserializableKind::Function)
        );
        assert_eq!(e, eval(src).unwrap());
    }

    #[test]
    fn positions_after_the_literal_are_kept() {
        let src = "export const main = {\n  a: 1,\n  b: 2\n};\n\nconst broken = ;\n";
        assert_eq!(eval_fast(src), eval(src));
        match eval_fast(src).unwrap_err() {
            EvalFailure::Syntax { at: Some(at), .. } => assert_eq!(at.line, 6),
            other => panic!("{other:?}"),
        }
        let src = "export const main = {\n  a: 1,\n  b: 2\n};\nthrow new Error('late');\n";
        match eval_fast(src).unwrap_err() {
            EvalFailure::Threw { at: Some(at), .. } => assert_eq!(at.line, 5),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hostile_files_behave_the_same() {
        for src in [
            "export const main = { a: 1, b: 2, c: 3 };\nfor(;;){}\n",
            "export const main = { a: 1, b: 2, c: 3 };\nawait new Promise(() => {});\n",
            "export const main = { a: 1, b: 2, c: 3, d: undefined };\n",
            "export const main = { a: 1, b: 2, c: 3 };\nexport const handlers = 5;\n",
        ] {
            assert_eq!(eval_fast(src), eval(src), "{src}");
        }
    }
}

mod shared_lists {
    use super::*;
    use flowmcp_loader::eval::evaluate_with;

    fn eval_lists(
        src: &str,
        lists: serde_json::Value,
    ) -> Result<flowmcp_loader::Exports, EvalFailure> {
        evaluate_with("lists.mjs", src, None, &limits(), Some(&lists))
    }

    #[test]
    fn factory_sees_the_lists() {
        let src = "export const main = { tools: { a: {} } };\nexport const handlers = ({ sharedLists }) => { const n = sharedLists.evmChains.length; return n === 2 ? { a: { postRequest: async (x) => x } } : {}; };";
        let lists = serde_json::json!({ "evmChains": [ { "alias": "ETH" }, { "alias": "BASE" } ] });
        match eval_lists(src, lists).unwrap().handlers {
            HandlersExport::Function { shape: Ok(tools) } => assert_eq!(
                tools,
                vec![("a".to_string(), vec!["postRequest".to_string()])]
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lists_are_deep_frozen() {
        let lists = serde_json::json!({ "evmChains": [ { "alias": "ETH", "ids": [1] } ] });
        for mutation in [
            "sharedLists.evmChains.push({ alias: 'X' })",
            "sharedLists.evmChains[0].alias = 'X'",
            "sharedLists.evmChains[0].ids.push(2)",
            "sharedLists.other = []",
            "delete sharedLists.evmChains",
        ] {
            let src = format!(
                "export const main = {{}};\nexport const handlers = ({{ sharedLists }}) => {{ {mutation}; return {{}}; }};"
            );
            match eval_lists(&src, lists.clone()).unwrap().handlers {
                HandlersExport::Function {
                    shape: Err(message),
                } => {
                    assert!(!message.is_empty(), "{mutation}");
                }
                other => panic!("{mutation} did not fail: {other:?}"),
            }
        }
    }
}

mod fast_main_references {
    use super::*;
    use flowmcp_loader::eval::evaluate_with_blanked;
    use flowmcp_loader::scan::blank;

    #[test]
    fn every_way_of_reaching_main_reads_it_back() {
        for tail in [
            "const alias = true ? main : null; alias.extra = 1;",
            "export { main as other };",
            "const f = (m) => { m.extra = 1; }; f(main);",
            "const o = { main }; o.main.extra = 1;",
        ] {
            let src = format!("export const main = {{ a: 1, b: 2, c: 3 }};\n{tail}\n");
            let fast = evaluate_with_blanked("m.mjs", &src, Some(&blank(&src)), &limits());
            let slow = evaluate("m.mjs", &src, &limits());
            assert_eq!(fast, slow, "{tail}");
        }
    }
}

mod data_only {
    use super::*;
    use flowmcp_loader::eval::evaluate_with_blanked;
    use flowmcp_loader::scan::blank;

    #[test]
    fn a_module_that_is_only_main_gives_the_engine_result() {
        for src in [
            "// comment\nexport const main = { a: [1, 'two', { three: 3.5 }], 'b-c': null }\n",
            "export const main = [ true, false ];",
            "/* x */ export const main = { a: 1 } ; // end\n",
        ] {
            let fast = evaluate_with_blanked("d.mjs", src, Some(&blank(src)), &limits());
            assert_eq!(fast, eval(src), "{src}");
        }
    }

    #[test]
    fn anything_more_runs_the_engine() {
        let src = "export const main = { a: 1 };\nfor(;;){}\n";
        let fast = evaluate_with_blanked("d.mjs", src, Some(&blank(src)), &limits());
        assert_eq!(fast.unwrap_err(), EvalFailure::Timeout);
    }
}

/// Loads `bytes` as a file and returns its first diagnostic as `CODE line:col message`.
fn first_diagnostic(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("flowmcp-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    let loaded = flowmcp_loader::load_file(
        &path,
        name,
        &limits(),
        &flowmcp_spec::RuleSettings::new(flowmcp_spec::Profile::Spec),
    );
    let _ = std::fs::remove_dir_all(&dir);
    loaded
        .diagnostics
        .first()
        .map(|d| {
            format!(
                "{} {}:{} {}",
                d.code.as_str(),
                d.line.unwrap_or(0),
                d.column.unwrap_or(0),
                d.message
            )
        })
        .unwrap_or_default()
}

#[test]
fn a_deep_literal_is_a_limit_not_a_syntax_error() {
    let deep = format!(
        "export const main = {}1{};\n",
        "{a:".repeat(600),
        "}".repeat(600)
    );
    let d = first_diagnostic("deep.mjs", deep.as_bytes());
    assert!(
        d.starts_with(
            "LDR006 0:0 Evaluation passed its stack limit: the code is nested 600 levels deep"
        ),
        "{d}"
    );
}

#[test]
fn a_nul_character_is_named_with_its_position() {
    let d = first_diagnostic(
        "nul.mjs",
        b"export const main = {\n  namespace: \"a\x00b\" };\n",
    );
    assert!(
        d.starts_with("LDR003 2:16 The file contains a NUL character"),
        "{d}"
    );
}

/// Found by fuzzing the literal reader against QuickJS: keys holding a NUL character were cut at
/// it by the extractor (`{"a\0b": 1, "a": 2}` became `{"a": 2}`), so the fast path and the
/// engine disagreed.
#[test]
fn keys_with_nul_characters_survive_extraction() {
    let e = eval("const k = 'a\\0b';\nexport const main = { [k]: 1, a: 2, ['\\0']: [] };").unwrap();
    assert_eq!(
        e.data["main"],
        serde_json::json!({"a\u{0}b": 1, "a": 2, "\u{0}": []})
    );
}

/// Loads `src` as `name` under `profile`: the codes of its diagnostics and its `main` export.
fn load_under(
    profile: flowmcp_spec::Profile,
    name: &str,
    src: &str,
) -> (Vec<String>, Option<serde_json::Value>) {
    let loaded = flowmcp_loader::load_source(
        std::path::Path::new(name),
        name,
        src,
        &limits(),
        &flowmcp_spec::RuleSettings::new(profile),
    );
    let codes = loaded
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect();
    (codes, loaded.exports.and_then(|e| e.get("main").cloned()))
}

/// Issue #31 item 5: under compat a module may use `setTimeout` at its top level, as a handler may
/// (the handler host's timer globals, with its caps); nothing really waits, and every evaluation
/// still ends within its time limit. Under spec the scan refuses it before evaluation (SEC015).
#[test]
fn i31_5_compat_modules_may_use_timers_at_top_level() {
    use flowmcp_spec::Profile;
    let src = "const order = [];\n\
        setTimeout(() => order.push('late'), 20);\n\
        setTimeout((x) => order.push(x), 10, 'early');\n\
        const dropped = setTimeout(() => order.push('cleared'), 1);\n\
        clearTimeout(dropped);\n\
        setInterval(() => order.push('interval once'), 30);\n\
        setTimeout(() => { throw new Error('ignored, as in the handler host'); }, 0);\n\
        // An hour-long delay: waiting for real would pass the 300 ms time limit.\n\
        await new Promise((resolve) => setTimeout(resolve, 3600000));\n\
        setTimeout(() => order.push('after the module settled'), 0);\n\
        export const main = { order };\n";
    let (codes, main) = load_under(Profile::Compat, "timers.mjs", src);
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(
        main.unwrap()["order"],
        serde_json::json!(["early", "late", "interval once"])
    );

    // Every evaluation ends: a timer that keeps re-arming itself meets the time limit, an await
    // nothing can resolve is still LDR007, a pending-timer flood is a RangeError (LDR004).
    let (codes, _) = load_under(
        Profile::Compat,
        "ticks.mjs",
        "function tick() { setTimeout(tick, 0); }\ntick();\n\
         await new Promise(() => {});\nexport const main = {};\n",
    );
    assert!(codes[0].starts_with("LDR005 "), "{codes:?}");
    let (codes, _) = load_under(
        Profile::Compat,
        "never.mjs",
        "setTimeout(() => {}, 5);\nawait new Promise(() => {});\nexport const main = {};\n",
    );
    assert!(codes[0].starts_with("LDR007 "), "{codes:?}");
    let (codes, _) = load_under(
        Profile::Compat,
        "flood.mjs",
        "for (let i = 0; i < 20000; i++) setTimeout(() => {}, 0);\nexport const main = {};\n",
    );
    assert!(
        codes[0].starts_with("LDR004 ") && codes[0].contains("too many timers pending"),
        "{codes:?}"
    );

    // spec: the static scan refuses the file, which is not evaluated.
    let (codes, main) = load_under(Profile::Spec, "timers.mjs", src);
    assert!(codes.iter().any(|c| c.starts_with("SEC015 ")), "{codes:?}");
    assert_eq!(main, None);
}

/// Issue #30: the load-time timers are made only when a module first reads one of them (most
/// never do, and then their script is not compiled at all). Reading them any way at all still
/// finds them, a module's own assignment to one name leaves the others alone, and a module that
/// keeps the lazy getter alive from inside a pending timer does not outlive the evaluation.
#[test]
fn i30_lazy_timers_behave_as_eager_ones() {
    use flowmcp_spec::Profile;
    let src = "const order = [];\n\
        const g = globalThis;\n\
        const desc = Object.getOwnPropertyDescriptor(g, 'setInterval');\n\
        setTimeout = function mine() { order.push('own setTimeout'); return 0; };\n\
        setTimeout();\n\
        // Reached by a computed name, and through the function constructor.\n\
        g['set' + 'Inter' + 'val'](() => order.push('computed'), 5);\n\
        const F = (() => {}).constructor;\n\
        F('return clearTimeout')()(99);\n\
        const kinds = ['setTimeout', 'setInterval', 'clearInterval'].map((n) => {\n\
          const d = Object.getOwnPropertyDescriptor(g, n);\n\
          return ['value' in d ? 'data' : 'accessor', d.writable, d.enumerable, d.configurable].join(' ');\n\
        });\n\
        console.log('silent'); console.error(order);\n\
        await new Promise((resolve) => g.setInterval(resolve, 10));\n\
        export const main = { order, kinds, frozenConsole: Object.isFrozen(console),\n\
          own: setTimeout.name, lazy: typeof desc.get };\n";
    let (codes, main) = load_under(Profile::Compat, "lazy.mjs", src);
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(
        main.unwrap(),
        serde_json::json!({
            "order": ["own setTimeout", "computed"],
            "kinds": ["data true false true", "data true false true", "accessor  false true"],
            "frozenConsole": true,
            "own": "mine",
            "lazy": "function",
        })
    );

    // A frozen global object keeps the accessors, and the timers still work.
    let (codes, main) = load_under(
        Profile::Compat,
        "frozen.mjs",
        "Object.freeze(globalThis);\n\
         const seen = [];\n\
         await new Promise((resolve) => setTimeout(() => { seen.push('ran'); resolve(); }, 1));\n\
         export const main = { seen };\n",
    );
    assert!(codes.is_empty(), "{codes:?}");
    assert_eq!(main.unwrap()["seen"], serde_json::json!(["ran"]));

    // The getter kept alive by a pending timer's callback (a cycle through the engine's own
    // handle) must not keep anything past the runtime: each of these ends with a verdict.
    for (tail, code) in [
        ("await new Promise(() => {});", "LDR007 "),
        ("await new Promise((r) => setTimeout(r, 1));", ""),
        ("throw new Error('late');", "LDR004 "),
    ] {
        let src = format!(
            "const get = Object.getOwnPropertyDescriptor(globalThis, 'setTimeout').get;\n\
             const keep = {{ get }};\n\
             setTimeout(() => keep, 50);\n\
             setInterval(() => get, 60);\n\
             {tail}\nexport const main = {{}};\n"
        );
        let (codes, _) = load_under(Profile::Compat, "cycle.mjs", &src);
        match code {
            "" => assert!(codes.is_empty(), "{codes:?}"),
            c => assert!(codes[0].starts_with(c), "{codes:?}"),
        }
    }
}
