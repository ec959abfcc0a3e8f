//! Integration tests of the static security scan (`flowmcp_loader::scan`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::path::Path;
use std::time::{Duration, Instant};

use flowmcp_loader::scan::{ScanHit, ScanKind, blank, is_shared_list, scan, scan_file};
use flowmcp_spec::Code;

fn module(src: &str) -> Vec<ScanHit> {
    scan(src, ScanKind::Module)
}

fn list(src: &str) -> Vec<ScanHit> {
    scan(src, ScanKind::SharedList)
}

fn codes(hits: &[ScanHit]) -> Vec<Code> {
    hits.iter().map(|h| h.code).collect()
}

fn patterns(hits: &[ScanHit]) -> Vec<&'static str> {
    hits.iter().map(|h| h.pattern).collect()
}

/// Asserts that `bad` reports exactly `code` (once) and `good` reports nothing, under module rules.
fn module_case(code: Code, bad: &str, good: &str) {
    let hits = module(bad);
    assert_eq!(
        codes(&hits),
        vec![code],
        "expected {code} for {bad:?}: {hits:?}"
    );
    let hits = module(good);
    assert!(hits.is_empty(), "expected no hit for {good:?}: {hits:?}");
}

/// The same for shared-list rules.
fn list_case(code: Code, bad: &str, good: &str) {
    let hits = list(bad);
    assert_eq!(
        codes(&hits),
        vec![code],
        "expected {code} for {bad:?}: {hits:?}"
    );
    let hits = list(good);
    assert!(hits.is_empty(), "expected no hit for {good:?}: {hits:?}");
}

// ---------------------------------------------------------------------------------------------------
// One failing and one passing case per code
// ---------------------------------------------------------------------------------------------------

#[test]
fn sec001_import() {
    module_case(Code::SEC001, "import x from 'y'", "const importance = 1");
    module_case(
        Code::SEC001,
        "const m = await import('x')",
        "const imports = []",
    );
    module_case(Code::SEC001, "import{ a } from 'b'", "x.import('y')");
    module_case(
        Code::SEC001,
        "import * as a from 'b'",
        "const o = { import: 1 }",
    );
    module_case(Code::SEC001, "import'side-effect'", "// import x from 'y'");
    module_case(
        Code::SEC001,
        "import\"side-effect\"",
        "const s = 'import x'",
    );
    module_case(Code::SEC001, "import\n\tx from 'y'", "reimport(1)");
    module_case(
        Code::SEC001,
        "const u = import.meta.url",
        "const u = meta.url",
    );
}

#[test]
fn sec002_require() {
    module_case(
        Code::SEC002,
        "const fs = require('fs')",
        "const r = required('x')",
    );
    module_case(Code::SEC002, "require ('x')", "x.require('y')");
    module_case(Code::SEC002, "require\n('x')", "const require_ = 1");
}

#[test]
fn sec003_eval() {
    module_case(Code::SEC003, "eval('1 + 1')", "retrieval('x')");
    module_case(Code::SEC003, "eval ('1')", "x.eval('1')");
    module_case(Code::SEC003, "eval/* hidden */('1')", "const evaluate = 1");
    module_case(Code::SEC003, "eval?.('1')", "const e = 'eval(1)'");
}

#[test]
fn sec004_function_constructor() {
    module_case(
        Code::SEC004,
        "const f = Function('return this')",
        "getFunction('x')",
    );
    module_case(Code::SEC004, "Function ('y')", "x.Function('y')");
    module_case(
        Code::SEC004,
        "Function`return this`",
        "const isFunction = typeof x === 'function'",
    );
}

#[test]
fn sec005_new_function() {
    // `new Function(` reports SEC005 only, not also SEC004.
    module_case(
        Code::SEC005,
        "const f = new Function('return 1')",
        "const f = new Functional()",
    );
    module_case(
        Code::SEC005,
        "new /* x */ Function",
        "const renewFunction = 1",
    );
    let hits = module("new\n  Function('a', 'b')");
    assert_eq!((hits[0].line, hits[0].column), (1, 1));
}

#[test]
fn sec006_process() {
    module_case(
        Code::SEC006,
        "const k = process.env.KEY",
        "const p = processed.env",
    );
    module_case(Code::SEC006, "process['env']", "child.process_id");
    module_case(Code::SEC006, "process\n  .exit(1)", "x.process.env");
    module_case(Code::SEC006, "process?.env", "typeof process");
    module_case(Code::SEC006, "[...process.argv]", "const s = 'process.env'");
}

#[test]
fn sec007_child_process() {
    module_case(
        Code::SEC007,
        "child_process.exec('ls')",
        "my_child_process.exec('ls')",
    );
    // As a module specifier the string is blanked; the import itself is caught.
    assert_eq!(
        codes(&module("import cp from 'child_process'")),
        vec![Code::SEC001]
    );
}

#[test]
fn sec008_fs() {
    module_case(Code::SEC008, "fs.readFileSync('x')", "refs.length");
    module_case(
        Code::SEC008,
        "fs['readFileSync']('x')",
        "const fsx = 1; fsx.a",
    );
    module_case(Code::SEC008, "fs .writeFile()", "obj.fs.x");
}

#[test]
fn sec009_node_fs() {
    module_case(Code::SEC009, "const a = node:fs", "const a = 'node:fs'");
    assert_eq!(
        codes(&module("import fs from 'node:fs'")),
        vec![Code::SEC001]
    );
}

#[test]
fn sec010_fs_promises() {
    module_case(
        Code::SEC010,
        "const x = fs/promises",
        "const x = 'fs/promises'",
    );
    assert_eq!(
        codes(&module("const p = require('fs/promises')")),
        vec![Code::SEC002]
    );
}

#[test]
fn sec011_global_this() {
    module_case(Code::SEC011, "globalThis.fetch('x')", "myglobalThis.x");
    module_case(
        Code::SEC011,
        "globalThis['fetch']",
        "const g = 'globalThis.x'",
    );
}

#[test]
fn sec012_global() {
    module_case(Code::SEC012, "global.x = 1", "myglobal.x = 1");
    module_case(
        Code::SEC012,
        "global['x']",
        "const globalConfig = {}; globalConfig.a",
    );
}

#[test]
fn sec013_dirname() {
    module_case(Code::SEC013, "const d = __dirname", "const d = x__dirname");
    module_case(Code::SEC013, "f(__dirname)", "// __dirname");
}

#[test]
fn sec014_filename() {
    module_case(
        Code::SEC014,
        "const f = __filename",
        "const f = '__filename'",
    );
    module_case(Code::SEC014, "f(__filename)", "const __filenames = 1");
}

#[test]
fn sec015_set_timeout() {
    module_case(Code::SEC015, "setTimeout(() => {}, 10)", "x.setTimeout(f)");
    module_case(
        Code::SEC015,
        "const t = setTimeout",
        "const setTimeoutMock = 1",
    );
}

#[test]
fn sec016_set_interval() {
    module_case(
        Code::SEC016,
        "setInterval(f, 10)",
        "/* setInterval(f, 10) */",
    );
    module_case(Code::SEC016, "a ? setInterval : b", "obj.setInterval(f)");
}

#[test]
fn sec200_function_in_list() {
    list_case(
        Code::SEC200,
        "export const list = { f: function () { return 1 } }",
        "export const list = { meta: { name: 'function' }, entries: [] }",
    );
    list_case(
        Code::SEC200,
        "export const list = { toJSON() { return 1 } }",
        "export const list = { function: 'key is fine' }",
    );
    list_case(
        Code::SEC200,
        "export const list = { get entries() { return [] } }",
        "export const list = { entries: [ { a: 'f() { }' } ] }",
    );
}

#[test]
fn sec201_arrow_in_list() {
    list_case(
        Code::SEC201,
        "export const list = { f: x => 1 }",
        "export const list = { a: '=>', b: 1 >= 0 }",
    );
}

#[test]
fn sec202_async_await_in_list() {
    list_case(
        Code::SEC202,
        "export const list = await load",
        "export const list = { async: true, note: 'await me' }",
    );
    let hits = list("export const list = { f: async function () {} }");
    assert_eq!(codes(&hits), vec![Code::SEC202, Code::SEC200]);
}

#[test]
fn sec203_template_expression_in_list() {
    list_case(
        Code::SEC203,
        "export const list = { a: `x${y}` }",
        "export const list = { a: `plain`, b: '${y}', c: `$\\{y}` } // ${y}",
    );
    let hits = list("export const list = { a: `${ `${b}` }` }");
    assert_eq!(codes(&hits), vec![Code::SEC203, Code::SEC203]);
    assert_eq!(
        hits.iter().map(|h| h.column).collect::<Vec<_>>(),
        vec![27, 31]
    );
}

#[test]
fn sec204_module_patterns_in_list() {
    list_case(
        Code::SEC204,
        "export const list = { a: process.env.X }",
        "export const list = { a: 'process.env.X' }",
    );
    let hits = list("import x from 'y'\nexport const list = { t: setTimeout }");
    assert_eq!(codes(&hits), vec![Code::SEC204, Code::SEC204]);
    assert_eq!(patterns(&hits), vec!["import", "setTimeout"]);
    assert_eq!(hits[1].rule(), Code::SEC015);
    // The declaration itself is not flagged.
    assert!(list("export const list = { meta: {}, entries: [] }").is_empty());
}

#[test]
fn list_rules_are_not_module_rules() {
    // Modules may use functions, arrows, async and templates.
    let src = "export const handlers = ({ sharedLists }) => ({ \
               getX: { postRequest: async ({ response }) => { \
               return { response: `${response.a}` } } } })\nfunction f() {}";
    assert!(module(src).is_empty(), "{:?}", module(src));
}

// ---------------------------------------------------------------------------------------------------
// Blanking
// ---------------------------------------------------------------------------------------------------

#[test]
fn prose_in_comments_and_strings_does_not_trigger() {
    let src = r#"
// Never import or require( anything; process.env is off limits, and so is eval(.
/* globalThis.x, global.y, fs.readFile, __dirname, __filename,
   setTimeout, setInterval, new Function, child_process, node:fs, fs/promises */
export const main = {
    description: 'Uses no import, no require(, no eval(, no process.env',
    notes: "globalThis. and global[ and fs. are words here",
    more: `setTimeout and setInterval in template text`,
    escaped: 'it\'s fine: import x',
    dq: "a \"quoted\" eval( call",
}
"#;
    let hits = module(src);
    assert!(hits.is_empty(), "{hits:?}");
}

#[test]
fn template_expressions_are_scanned() {
    let hits = module("const u = `https://x/${process.env.X}/y`");
    assert_eq!(codes(&hits), vec![Code::SEC006]);
    assert_eq!((hits[0].line, hits[0].column), (1, 24));
    // Nested templates, strings and braces inside the expression.
    let src = "const u = `a${ f({ k: `b${ 'c' + `d${ eval('x') }` }` }) }e` + process.env";
    let hits = module(src);
    assert_eq!(codes(&hits), vec![Code::SEC003, Code::SEC006]);
    // Text after the nested expression is template text again.
    assert!(module("`${ `${ a }` } process.env`").is_empty());
}

#[test]
fn blank_contract() {
    assert_eq!(blank("a = 'bc' + \"d\""), "a = '  ' + \" \"");
    assert_eq!(blank("x // c\ny"), "x     \ny");
    assert_eq!(blank("x /* a\nb */ y"), "x     \n     y");
    assert_eq!(blank("`a${b}c`"), "` ${b} `");
    assert_eq!(blank("'ä€😀'"), "'   '");
    assert_eq!(blank("#!/usr/bin/env node\nx"), "                   \nx");
    // Line continuation inside a string, with CRLF.
    assert_eq!(blank("'a\\\r\nb' + c"), "'  \r\n ' + c");
}

#[test]
fn unterminated_constructs() {
    // An unterminated string ends at the line break; code on the next line is still scanned.
    assert_eq!(
        codes(&module("const s = 'abc\nprocess.exit()")),
        vec![Code::SEC006]
    );
    // Unterminated comment, template and substitution at EOF: no panic, nothing hidden before them.
    assert_eq!(
        codes(&module("eval(1) /* never closed")),
        vec![Code::SEC003]
    );
    assert_eq!(
        codes(&module("eval(1) `never closed ${")),
        vec![Code::SEC003]
    );
    assert_eq!(codes(&module("`${ process.env")), vec![Code::SEC006]);
    assert!(module("'").is_empty());
    assert!(module("/").is_empty());
    assert!(module("\\").is_empty());
    assert!(module("\\u{").is_empty());
}

#[test]
fn regex_literals() {
    // A quote inside a regex does not open a string, a `//` inside one does not open a comment.
    assert_eq!(
        codes(&module("const r = /'/; process.exit()")),
        vec![Code::SEC006]
    );
    assert_eq!(
        codes(&module("const r = /a\\/\\/b/; eval(x)")),
        vec![Code::SEC003]
    );
    assert_eq!(
        codes(&module("s.replace(/[/'\"`]/g, ''); global.x")),
        vec![Code::SEC012]
    );
    assert_eq!(
        codes(&module("if (a) /'/.test(b); process.x")),
        vec![Code::SEC006]
    );
    assert_eq!(codes(&module("x => /`/.test(x); fs.x")), vec![Code::SEC008]);
    // Division stays division.
    assert_eq!(
        codes(&module("const a = b / c / 2; const s = '/'; eval(1)")),
        vec![Code::SEC003]
    );
    // Regex bodies are matched like code (conservative).
    assert_eq!(
        codes(&module("const r = /x process.env/")),
        vec![Code::SEC006]
    );
}

#[test]
fn u2028_ends_a_line_comment() {
    let hits = module("// comment\u{2028}process.exit()");
    assert_eq!(codes(&hits), vec![Code::SEC006]);
    assert_eq!((hits[0].line, hits[0].column), (1, 12));
}

// ---------------------------------------------------------------------------------------------------
// Identifier boundaries
// ---------------------------------------------------------------------------------------------------

#[test]
fn identifier_boundaries() {
    for clean in [
        "getFunction(x)",
        "retrieval(x)",
        "x.eval(y)",
        "refs.x",
        "importance",
        "imports.x",
        "a.import",
        "$process.env",
        "_eval(1)",
        "eval2(1)",
        "this.#process.env",
        "myglobal.x",
        "a.b.globalThis.c",
        "evaluation(1)",
        "xrequire(1)",
    ] {
        assert!(module(clean).is_empty(), "{clean:?}: {:?}", module(clean));
    }
    for (dirty, code) in [
        ("(eval)(1); eval(2)", Code::SEC003),
        ("!eval(1)", Code::SEC003),
        ("a=process.env", Code::SEC006),
        ("\u{00A0}process.env", Code::SEC006),
        ("{process:process.env}", Code::SEC006),
    ] {
        assert_eq!(codes(&module(dirty)), vec![code], "{dirty:?}");
    }
}

#[test]
fn whitespace_variants() {
    assert_eq!(codes(&module("eval (1)")), vec![Code::SEC003]);
    assert_eq!(codes(&module("eval\t\n (1)")), vec![Code::SEC003]);
    assert_eq!(codes(&module("require /* c */ ('x')")), vec![Code::SEC002]);
    assert_eq!(codes(&module("globalThis // c\n  .x")), vec![Code::SEC011]);
    assert_eq!(codes(&module("global ?.[ 'x' ]")), vec![Code::SEC012]);
    assert_eq!(patterns(&module("global ?.[ 'x' ]")), vec!["global["]);
    // Not a call: a bare reference to eval is not SEC003.
    assert!(module("const e = eval").is_empty());
}

#[test]
fn escaped_identifiers() {
    assert_eq!(codes(&module("\\u0065val('1')")), vec![Code::SEC003]);
    assert_eq!(codes(&module("glob\\u{61}lThis.x")), vec![Code::SEC011]);
    assert_eq!(
        codes(&module("new \\u0046unction('x')")),
        vec![Code::SEC005]
    );
}

// ---------------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------------

#[test]
fn every_match_reported_sorted_with_positions() {
    let src = "const a = process.env.A; eval('x')\n  setTimeout(f); setInterval(g)";
    let hits = module(src);
    let got: Vec<_> = hits.iter().map(|h| (h.code, h.line, h.column)).collect();
    assert_eq!(
        got,
        vec![
            (Code::SEC006, 1, 11),
            (Code::SEC003, 1, 26),
            (Code::SEC015, 2, 3),
            (Code::SEC016, 2, 18),
        ]
    );
}

#[test]
fn positions_after_multiline_comments_and_templates() {
    let src = "/* line 1\n   line 2\n*/ const t = `a\nb\nc ${x}`; eval(1)\n\nfs.x";
    let hits = module(src);
    let got: Vec<_> = hits.iter().map(|h| (h.code, h.line, h.column)).collect();
    assert_eq!(got, vec![(Code::SEC003, 5, 10), (Code::SEC008, 7, 1)]);
}

#[test]
fn columns_count_characters() {
    let src = "const s = 'äöü😀'; eval(1)";
    let hits = module(src);
    assert_eq!((hits[0].line, hits[0].column), (1, 19));
    let src = "const ü = 1; /* 😀😀 */ process.x";
    let hits = module(src);
    assert_eq!((hits[0].line, hits[0].column), (1, 23));
}

#[test]
fn crlf_line_endings() {
    let src = "// header\r\nconst a = 1;\r\n\r\n  process.env.X\r\n/* a\r\nb */ eval(1)\r\n";
    let hits = module(src);
    let got: Vec<_> = hits.iter().map(|h| (h.code, h.line, h.column)).collect();
    assert_eq!(got, vec![(Code::SEC006, 4, 3), (Code::SEC003, 6, 6)]);
    // A line comment ends at CR too.
    assert_eq!(codes(&module("// c\rprocess.x")), vec![Code::SEC006]);
}

// ---------------------------------------------------------------------------------------------------
// Shared-list detection
// ---------------------------------------------------------------------------------------------------

#[test]
fn shared_list_detection() {
    let plain = "export const main = {}";
    let decl = "export const list = { meta: {}, entries: [] }";
    assert!(is_shared_list(
        Path::new("lists/_lists/evm-chains.mjs"),
        plain
    ));
    assert!(is_shared_list(Path::new("/a/_lists/b/c.mjs"), plain));
    assert!(!is_shared_list(Path::new("providers/x.mjs"), plain));
    assert!(!is_shared_list(Path::new("providers/_lists"), plain));
    assert!(!is_shared_list(
        Path::new("providers/my_lists/x.mjs"),
        plain
    ));
    assert!(is_shared_list(Path::new("x.mjs"), decl));
    assert!(is_shared_list(
        Path::new("x.mjs"),
        "export\n  const /* c */ list={}"
    ));
    assert!(!is_shared_list(
        Path::new("x.mjs"),
        "// export const list = {}"
    ));
    assert!(!is_shared_list(
        Path::new("x.mjs"),
        "const s = 'export const list'"
    ));
    assert!(!is_shared_list(
        Path::new("x.mjs"),
        "export const listing = {}"
    ));
    assert!(!is_shared_list(
        Path::new("x.mjs"),
        "export const mylist = {}"
    ));

    let (kind, hits) = scan_file(Path::new("x.mjs"), "export const list = { f: () => 1 }");
    assert_eq!(kind, ScanKind::SharedList);
    assert_eq!(codes(&hits), vec![Code::SEC201]);
    let (kind, hits) = scan_file(Path::new("x.mjs"), "export const main = { f: () => 1 }");
    assert_eq!(kind, ScanKind::Module);
    assert!(hits.is_empty());
}

// ---------------------------------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Checks the blanking contract: same characters, each kept or turned into a space, and every
/// `\n` kept in place.
fn assert_blank_contract(src: &str) {
    let out = blank(src);
    let a: Vec<char> = src.chars().collect();
    let b: Vec<char> = out.chars().collect();
    assert_eq!(a.len(), b.len(), "char count differs for {src:?}");
    for (x, y) in a.iter().zip(&b) {
        assert!(x == y || *y == ' ', "{x:?} became {y:?} in {src:?}");
        if *x == '\n' || *x == '\r' {
            assert_eq!(x, y, "line break lost in {src:?}");
        }
    }
}

#[test]
fn fuzz_random_bytes_never_panic() {
    const ALPHABET: &[u8] = b"/*'\"`${}()[]\\\n\r =>.?:;,#u0aeflimnoprstvFTx_";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let len = (rng.next() % 200) as usize;
        let mut bytes = Vec::with_capacity(len);
        for _ in 0..len {
            let r = rng.next();
            if round % 3 == 0 || r.is_multiple_of(8) {
                bytes.push((r >> 8) as u8);
            } else {
                bytes.push(ALPHABET[(r >> 8) as usize % ALPHABET.len()]);
            }
        }
        let src = String::from_utf8_lossy(&bytes);
        assert_blank_contract(&src);
        for kind in [ScanKind::Module, ScanKind::SharedList] {
            let hits = scan(&src, kind);
            let lines = src.split('\n').count() as u32;
            for w in hits.windows(2) {
                assert!((w[0].line, w[0].column) <= (w[1].line, w[1].column));
            }
            for h in &hits {
                assert!(
                    h.line >= 1 && h.line <= lines && h.column >= 1,
                    "{h:?} in {src:?}"
                );
            }
        }
        let _ = is_shared_list(Path::new("a/_lists/b.mjs"), &src);
        let _ = scan_file(Path::new("b.mjs"), &src);
    }
}

#[test]
fn blank_contract_on_samples() {
    for src in [
        "a / b / c",
        "x = /[/]/g; y = `${`${'}'}`}`",
        "'\\\n'\"\\\r\n\"",
        "\u{2028}// a\u{2029}b\u{FEFF}",
        "}}}))]]``${{{(((",
        "/* 😀\n😀 */ '😀' `😀${'😀'}😀` /😀/",
    ] {
        assert_blank_contract(src);
    }
}

/// Pathological inputs must stay linear. Sizes are moderate so the test is quick in debug builds; the
/// ignored test below runs the 50 MiB version (`cargo test --release -- --ignored`).
fn pathological(size: usize) -> Vec<String> {
    let rep = |unit: &str| unit.repeat(size / unit.len());
    vec![
        rep("`${"),
        rep("${`"),
        rep("{"),
        rep("}"),
        rep("("),
        rep("f("),
        rep("a() {"),
        rep("/*"),
        rep("'"),
        rep("/"),
        rep("process "),
        rep("new "),
        rep(" "),
        rep("\\u{"),
        rep("eval(process.env) "),
        format!("process{}", " ".repeat(size)),
    ]
}

fn run_pathological(size: usize, budget: Duration) {
    for src in pathological(size) {
        let start = Instant::now();
        let _ = scan(&src, ScanKind::Module);
        let _ = scan(&src, ScanKind::SharedList);
        let spent = start.elapsed();
        let head: String = src.chars().take(12).collect();
        eprintln!("{head:?}…: {} bytes in {spent:?}", src.len());
        assert!(spent < budget, "{head:?}… took {spent:?}");
    }
}

#[test]
fn pathological_inputs_are_linear() {
    run_pathological(1 << 20, Duration::from_secs(20));
}

#[test]
#[ignore = "large; run with --release -- --ignored"]
fn pathological_inputs_50_mib() {
    run_pathological(50 << 20, Duration::from_secs(20));
}

#[test]
fn deep_template_nesting() {
    let depth = 200_000;
    let mut src = String::new();
    for _ in 0..depth {
        src.push_str("`${");
    }
    src.push_str("process.env");
    for _ in 0..depth {
        src.push_str("}`");
    }
    src.push_str(" + `${eval(1)}`");
    let hits = module(&src);
    assert_eq!(codes(&hits), vec![Code::SEC006, Code::SEC003]);
    assert_eq!(list(&src).len(), depth + 1 + 2);
}
