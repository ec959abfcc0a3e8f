//! A module's `handlers` factory read without running it (D197).
//!
//! Most schema modules are a literal `main` (read by [`crate::literal`]) and a `handlers` factory
//! of one common shape: an arrow function that returns an object literal of routes, each an object
//! literal of hook functions, maybe after some constants and helper functions. Evaluating such a
//! module in QuickJS and calling the factory only to list those names costs most of a cold
//! validation: the engine compiles every handler's body. This module parses the text the engine
//! would compile (the module with its literal `main` replaced by the carrying global) with a
//! JavaScript parser, checks it the way the engine would (syntax and early errors), and, when
//! every statement that would run is one whose outcome is known without running it, gives the
//! exports the engine would give.
//!
//! It declines (returns `None`, and the engine runs the module as before) on anything else:
//! a syntax error (the engine words the finding); any statement or value that runs code of the
//! module at load time or in the factory call; a `handlers` declared with `var` (a later `var`
//! may replace it); keys whose order or meaning is not plain insertion (`__proto__`, array
//! indices, computed keys) or that hold a NUL (the engine hands keys over as C strings); syntax
//! the engine may not know or reads otherwise (decorators, `using`, `import()`, names beyond
//! ASCII, regular expressions with the `v` flag, modifiers, a group name given twice or near the
//! engine's limits, a regular expression or a division where the engine's look-ahead for arrow
//! parameters tells them apart otherwise than the grammar, class fields named like modifiers, a
//! hashbang line); nesting deeper than the engine is sure to compile within its stack limit;
//! texts larger than [`MAX_TEXT`]; and inputs besides the text the engine might fail on
//! ([`inputs_allow`]). The parser recurses without a limit of its own, so it runs on a stack
//! sized from the text (`stack_for`): the thread's own when that has room, else one made for the
//! read, and no read asks for more than [`MAX_STACK`].

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{
    ArrowFunctionBody, BinaryOperator, BindingPattern, Comment, Declaration, Expression,
    FormalParameters, ObjectExpression, ObjectPropertyKind, Program, PropertyKey, PropertyKind,
    RegExpFlags, Statement, UnaryOperator, VariableDeclarationKind,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::SemanticBuilder;
use oxc_span::{GetSpan, SourceType};

use crate::bytes::is_ascii_ident;
use crate::evaluated::{DATA_EXPORTS, MAIN_GLOBAL};

/// The largest module text read here; a longer one is evaluated.
pub(crate) const MAX_TEXT: usize = 64 * 1024;

/// The largest shared lists (as JSON text) given with a module read here: the engine copies them
/// into the sandbox before it runs the module, within its memory limit, and larger ones are left
/// to it.
pub(crate) const MAX_LISTS: usize = 1 << 20;

/// Whether the engine, given these inputs besides the text, surely does what a read assumes: it
/// has at least the default limits (the bound on depth and size was measured with them), and the
/// shared lists are an object (reading a member of one cannot throw) of at most [`MAX_LISTS`].
pub(crate) fn inputs_allow(lists: Option<&str>, limits: &crate::evaluated::Limits) -> bool {
    let least = crate::evaluated::Limits::default();
    lists.is_none_or(|l| l.len() <= MAX_LISTS && l.trim_start().starts_with('{'))
        && limits.memory_bytes >= least.memory_bytes
        && limits.stack_bytes >= least.stack_bytes
        && limits.eval_timeout >= least.eval_timeout
}

/// The deepest syntax tree read here (nodes from the program down): a depth at which the engine
/// compiles every measured shape of nesting within its default stack limit (512 KiB);
/// `engine::tests::i46_at_the_depth_bound_the_engine_agrees` holds it to that.
pub(crate) const MAX_DEPTH: u32 = 120;

/// Stack the parser and its checks may take: a base, plus for each opening bracket (a level of
/// nesting costs at most about 1.8 KiB in the measured shapes) and for each other visible byte (a
/// level of an unbracketed chain, `!!x`, `a ? b : c ? …`, `x => y => …`, at most about 350 bytes
/// a byte). Counted over the raw text, so brackets in strings only make the estimate larger.
/// `tests::the_stack_estimate_holds` runs the deepest shapes on a stack of exactly this size.
fn stack_for(text: &str) -> usize {
    let (mut opens, mut visible) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => opens += 1,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => visible += 1,
        }
    }
    (512 << 10) + opens * 2560 + visible * 512
}

/// What reading the module gave: what the engine's evaluation would have.
#[derive(Debug, PartialEq)]
pub(crate) struct Read {
    /// Every export name, as the module namespace lists them (sorted).
    pub(crate) names: Vec<String>,
    /// The factory's routes, each with the names of its function-valued members.
    pub(crate) shape: Vec<(String, Vec<String>)>,
}

/// Reads `module`, the text the engine would compile (its `main` declared as
/// `export const main = __flowmcp_main__`, a value nothing else in it names), or declines.
pub(crate) fn read(module: &str) -> Option<Read> {
    if module.len() > MAX_TEXT {
        return None;
    }
    let stack = stack_for(module);
    if stack > MAX_STACK {
        return None;
    }
    stacker::maybe_grow(stack, stack, || read_on_stack(module))
}

/// The most stack a read may ask for: a text that needs more is evaluated (a stack that cannot be
/// had would end the read in a panic, not in the engine's answer).
const MAX_STACK: usize = 32 << 20;
const _: () = assert!(MAX_STACK + (1 << 20) < crate::THREAD_STACK_BYTES);

/// An arena kept between reads on a thread, unless a large text grew it past this.
const KEPT_ARENA: usize = 4 << 20;

thread_local! {
    /// The parser's arena for the next read on this thread, so that each read does not allocate
    /// and free the arena's blocks again.
    static ARENA: std::cell::Cell<Option<Allocator>> = const { std::cell::Cell::new(None) };
}

/// [`read`] on the stack the thread has, whatever its room (the tests give it an exact one).
pub(crate) fn read_on_stack(module: &str) -> Option<Read> {
    let mut allocator = ARENA.take().unwrap_or_default();
    let read = read_in(&allocator, module);
    if allocator.capacity() <= KEPT_ARENA {
        allocator.reset();
        ARENA.set(Some(allocator));
    }
    read
}

fn read_in(allocator: &Allocator, module: &str) -> Option<Read> {
    let options = ParseOptions {
        parse_regular_expression: true,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(allocator, module, SourceType::mjs())
        .with_options(options)
        .parse();
    // A hashbang line is left to the engine.
    if parsed.panicked || !parsed.diagnostics.is_empty() || parsed.program.hashbang.is_some() {
        return None;
    }
    // What the module would export, first: most modules that are declined are declined here,
    // before the longer checks.
    let read = exports(&parsed.program)?;
    let checked = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&parsed.program);
    if !checked.diagnostics.is_empty() {
        return None;
    }
    let mut guard = Guard {
        text: module,
        comments: &parsed.program.comments,
        depth: 0,
        deepest: 0,
        refused: false,
    };
    guard.visit_program(&parsed.program);
    (!guard.refused && guard.deepest <= MAX_DEPTH).then_some(read)
}

/// Refuses syntax the engine may not share with the parser, and measures the tree's depth.
struct Guard<'t> {
    text: &'t str,
    comments: &'t [Comment],
    depth: u32,
    deepest: u32,
    refused: bool,
}

impl<'a> Visit<'a> for Guard<'_> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let refused = match kind {
            AstKind::Decorator(_)
            | AstKind::AccessorProperty(_)
            | AstKind::V8IntrinsicExpression(_)
            | AstKind::ImportExpression(_) => true,
            AstKind::VariableDeclaration(v) => matches!(
                v.kind,
                VariableDeclarationKind::Using | VariableDeclarationKind::AwaitUsing
            ),
            AstKind::RegExpLiteral(r) => {
                r.regex.flags.contains(RegExpFlags::V)
                    || !plain_pattern(r.regex.pattern.text.as_str())
                    || !self.regex_may_follow(r.span.start as usize)
            }
            // The engine's look-ahead for arrow parameters reads a `/` after a template as the
            // start of a regular expression.
            AstKind::BinaryExpression(b) => {
                b.operator == BinaryOperator::Division
                    && (b.left.span().end as usize)
                        .checked_sub(1)
                        .and_then(|k| self.text.as_bytes().get(k))
                        == Some(&b'`')
            }
            // A class field named like a modifier, which the engine misreads before a generator.
            AstKind::PropertyDefinition(p) => {
                !p.computed
                    && matches!(
                        p.key.static_name().as_deref(),
                        Some("get" | "set" | "static" | "async" | "accessor")
                    )
            }
            // The parser knows a newer Unicode than the engine: only ASCII names are read.
            AstKind::IdentifierName(i) => !i.name.is_ascii(),
            AstKind::IdentifierReference(i) => !i.name.is_ascii(),
            AstKind::BindingIdentifier(i) => !i.name.is_ascii(),
            AstKind::LabelIdentifier(i) => !i.name.is_ascii(),
            AstKind::PrivateIdentifier(i) => !i.name.is_ascii(),
            _ => false,
        };
        self.refused |= refused;
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.depth -= 1;
    }

    // Nothing below the bound is looked at: the tree is refused already, and the walk stays shallow.
    fn visit_expression(&mut self, it: &Expression<'a>) {
        if self.deepest <= MAX_DEPTH {
            walk::walk_expression(self, it);
        }
    }

    fn visit_statement(&mut self, it: &Statement<'a>) {
        if self.deepest <= MAX_DEPTH {
            walk::walk_statement(self, it);
        }
    }
}

impl Guard<'_> {
    /// Whether the engine's look-ahead, which tells a regular expression from a division by the
    /// token before it, reads the one at `start` as the parser did: not after `)`, `}`, `]`, `+`,
    /// `-`, a name (other than a keyword after which the engine expects an expression) or anything
    /// it cannot tell (a character beyond ASCII).
    fn regex_may_follow(&self, start: usize) -> bool {
        let b = self.text.as_bytes();
        let mut i = start;
        loop {
            while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
                i -= 1;
            }
            match self.comments.iter().find(|c| c.span.end as usize == i) {
                Some(c) => i = c.span.start as usize,
                None => break,
            }
        }
        let Some(&before) = i.checked_sub(1).and_then(|k| b.get(k)) else {
            return true;
        };
        if is_ascii_ident(before) {
            let word_start = b[..i]
                .iter()
                .rposition(|c| !is_ascii_ident(*c))
                .map_or(0, |k| k + 1);
            return matches!(
                &b[word_start..i],
                b"return"
                    | b"typeof"
                    | b"case"
                    | b"do"
                    | b"else"
                    | b"in"
                    | b"instanceof"
                    | b"new"
                    | b"delete"
                    | b"void"
                    | b"throw"
            );
        }
        !matches!(before, b')' | b'}' | b']' | b'+' | b'-') && before.is_ascii()
    }
}

/// Whether the groups of a regular expression's pattern are of the kinds every engine has long
/// known: `(…)`, `(?:…)`, look-arounds and named groups with distinct names (no modifiers such as
/// `(?i:…)`, no name given twice). A `(` in a character class counts too, which only declines more.
/// Also whether the pattern stays well inside the engine's own limits (captures, group names,
/// alternatives, Unicode property classes, nesting): short, with few groups, ASCII names.
fn plain_pattern(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let count = |needle: &[u8]| memchr::memmem::find_iter(b, needle).count();
    if b.len() > 256 || count(b"(") > 64 || count(b"|") > 128 || count(b"\\p") + count(b"\\P") > 4 {
        return false;
    }
    let mut names: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'(' if b.get(i + 1) == Some(&b'?') => {
                match b.get(i + 2) {
                    Some(b':' | b'=' | b'!') => {}
                    Some(b'<') => match b.get(i + 3) {
                        Some(b'=' | b'!') => {}
                        _ => {
                            let rest = &b[i + 3..];
                            let Some(end) = rest.iter().position(|c| *c == b'>') else {
                                return false;
                            };
                            let name = &rest[..end];
                            if names.contains(&name) || !name.is_ascii() || name.len() > 64 {
                                return false;
                            }
                            names.push(name);
                        }
                    },
                    _ => return false,
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    true
}

/// The module's exports, when its top level runs nothing whose outcome is not known: function
/// declarations, constants of literal values, `main` as the carrying global, and `handlers`.
fn exports(program: &Program<'_>) -> Option<Read> {
    let mut names: Vec<String> = Vec::new();
    let mut factory = None;
    let mut main = false;
    for statement in &program.body {
        match statement {
            Statement::ExportDeclaration(export) => match &export.declaration {
                Declaration::VariableDeclaration(v) => {
                    for d in &v.declarations {
                        let BindingPattern::BindingIdentifier(id) = &d.id else {
                            return None;
                        };
                        let name = id.name.as_str();
                        let init = d.init.as_ref()?;
                        match name {
                            // A `var` could be declared again, and set, further on.
                            "handlers" if v.kind == VariableDeclarationKind::Var => return None,
                            "handlers" => factory = Some(init),
                            "main" => {
                                let Expression::Identifier(global) = init else {
                                    return None;
                                };
                                main = global.name.as_str() == MAIN_GLOBAL;
                            }
                            _ if DATA_EXPORTS.contains(&name) || !inert(init) => return None,
                            _ => {}
                        }
                        names.push(name.to_string());
                    }
                }
                Declaration::FunctionDeclaration(f) => {
                    let name = f.id.as_ref()?.name.as_str();
                    if name == "handlers" || DATA_EXPORTS.contains(&name) {
                        return None;
                    }
                    names.push(name.to_string());
                }
                _ => return None,
            },
            Statement::FunctionDeclaration(_) | Statement::EmptyStatement(_) => {}
            Statement::VariableDeclaration(v) => {
                let plain = v.declarations.iter().all(|d| {
                    matches!(d.id, BindingPattern::BindingIdentifier(_))
                        && d.init.as_ref().is_none_or(inert)
                });
                if !plain {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if !main || !names.iter().all(|n| n.is_ascii()) {
        return None;
    }
    let shape = shape(factory?)?;
    // A module namespace lists its exports sorted (by UTF-16 code units: bytes, for ASCII).
    names.sort_unstable();
    Some(Read { names, shape })
}

/// The routes the factory `f` returns when called with `{ sharedLists, libraries }`, when its
/// call can only build and return an object literal.
fn shape(f: &Expression<'_>) -> Option<Vec<(String, Vec<String>)>> {
    let (params, body) = match f {
        Expression::ArrowFunctionExpression(a) if !a.r#async => (&a.params, &a.body),
        _ => return None,
    };
    let readable = parameters(params)?;
    let statements = match body {
        ArrowFunctionBody::FunctionBody(b) => &b.statements,
        expression => return routes(object(expression.as_expression()?)?),
    };
    let (last, before) = statements.split_last()?;
    for statement in before {
        match statement {
            Statement::FunctionDeclaration(_) | Statement::EmptyStatement(_) => {}
            Statement::VariableDeclaration(v) => {
                for d in &v.declarations {
                    let BindingPattern::BindingIdentifier(id) = &d.id else {
                        return None;
                    };
                    if readable.contains(&id.name.as_str()) {
                        return None;
                    }
                    if let Some(init) = &d.init
                        && !(inert(init) || member_of(init, &readable))
                    {
                        return None;
                    }
                }
            }
            _ => return None,
        }
    }
    let Statement::ReturnStatement(r) = last else {
        return None;
    };
    routes(object(r.argument.as_ref()?)?)
}

/// The names the factory's parameter binds that are objects in its argument (`sharedLists`,
/// `libraries`): reading a member of one cannot throw. `None` for parameters that run code
/// (defaults, patterns beyond `{ a, b }`).
fn parameters<'a>(params: &'a FormalParameters<'_>) -> Option<Vec<&'a str>> {
    if params.rest.is_some() || params.items.len() > 1 {
        return None;
    }
    let mut readable = Vec::new();
    for p in &params.items {
        if p.initializer.is_some() {
            return None;
        }
        let BindingPattern::ObjectPattern(pattern) = &p.pattern else {
            return None;
        };
        if pattern.rest.is_some() {
            return None;
        }
        for property in &pattern.properties {
            let BindingPattern::BindingIdentifier(id) = &property.value else {
                return None;
            };
            if !property.shorthand || property.computed {
                return None;
            }
            let name = id.name.as_str();
            if matches!(name, "sharedLists" | "libraries") {
                readable.push(name);
            }
        }
    }
    Some(readable)
}

/// Whether `e` reads a member of one of `readable` by a fixed name (`libraries['x']`, `lists.y`).
fn member_of(e: &Expression<'_>, readable: &[&str]) -> bool {
    let object = match unparenthesized(e) {
        Expression::StaticMemberExpression(m) if !m.optional => &m.object,
        Expression::ComputedMemberExpression(m)
            if !m.optional && matches!(m.expression, Expression::StringLiteral(_)) =>
        {
            &m.object
        }
        _ => return false,
    };
    matches!(object, Expression::Identifier(i) if readable.contains(&i.name.as_str()))
}

fn unparenthesized<'b, 'a>(mut e: &'b Expression<'a>) -> &'b Expression<'a> {
    while let Expression::ParenthesizedExpression(p) = e {
        e = &p.expression;
    }
    e
}

fn object<'b, 'a>(e: &'b Expression<'a>) -> Option<&'b ObjectExpression<'a>> {
    match unparenthesized(e) {
        Expression::ObjectExpression(o) => Some(o),
        _ => None,
    }
}

/// Each route of the returned object with the names of its function-valued members, in the order
/// the engine lists them: a key written twice keeps its first place and takes its last value.
fn routes(returned: &ObjectExpression<'_>) -> Option<Vec<(String, Vec<String>)>> {
    let mut routes: Vec<(String, Vec<String>)> = Vec::new();
    for property in &returned.properties {
        let (key, value) = plain_member(property)?;
        let mut hooks: Vec<(String, bool)> = Vec::new();
        for member in &object(value?)?.properties {
            let (name, value) = plain_member(member)?;
            let function = match value {
                None => true,
                Some(v) if is_function(v) => true,
                Some(v) if inert(v) => false,
                Some(_) => return None,
            };
            put(&mut hooks, name, function);
        }
        let hooks = hooks.into_iter().filter(|(_, f)| *f).map(|(n, _)| n);
        put(&mut routes, key, hooks.collect());
    }
    Some(routes)
}

/// Sets `key` in an ordered list of entries as an object literal does.
fn put<V>(entries: &mut Vec<(String, V)>, key: String, value: V) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 = value,
        None => entries.push((key, value)),
    }
}

/// A member `key: value` or a method `key() {}` (`None` as its value) of an object literal
/// whose key is a plain name kept in insertion order; `None` for anything else.
fn plain_member<'b, 'a>(
    member: &'b ObjectPropertyKind<'a>,
) -> Option<(String, Option<&'b Expression<'a>>)> {
    let ObjectPropertyKind::ObjectProperty(p) = member else {
        return None;
    };
    if p.computed || p.kind != PropertyKind::Init {
        return None;
    }
    let key = match &p.key {
        PropertyKey::StaticIdentifier(id) => id.name.as_str(),
        PropertyKey::StringLiteral(s) if !s.lone_surrogates => s.value.as_str(),
        _ => return None,
    };
    // `__proto__: v` sets the prototype; a key of digits may be an array index, listed first.
    // The engine hands keys over as C strings, cut at a NUL.
    if key == "__proto__" || key.starts_with(|c: char| c.is_ascii_digit()) || key.contains('\0') {
        return None;
    }
    Some((key.to_string(), (!p.method).then_some(&p.value)))
}

fn is_function(e: &Expression<'_>) -> bool {
    matches!(
        unparenthesized(e),
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
    )
}

/// Whether evaluating `e` runs nothing and cannot throw: literals (a template without
/// substitutions), functions (made, not called), and arrays and object literals of such values.
fn inert(e: &Expression<'_>) -> bool {
    match unparenthesized(e) {
        Expression::StringLiteral(_)
        | Expression::NumericLiteral(_)
        | Expression::BigIntLiteral(_)
        | Expression::BooleanLiteral(_)
        | Expression::NullLiteral(_)
        | Expression::RegExpLiteral(_)
        | Expression::ArrowFunctionExpression(_)
        | Expression::FunctionExpression(_) => true,
        Expression::TemplateLiteral(t) => t.expressions.is_empty(),
        Expression::UnaryExpression(u) => {
            matches!(
                u.operator,
                UnaryOperator::UnaryNegation | UnaryOperator::UnaryPlus
            ) && matches!(u.argument, Expression::NumericLiteral(_))
        }
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .all(|el| el.is_elision() || el.as_expression().is_some_and(inert)),
        Expression::ObjectExpression(o) => o.properties.iter().all(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) => {
                !p.computed && p.kind == PropertyKind::Init && (p.method || inert(&p.value))
            }
            ObjectPropertyKind::SpreadProperty(_) => false,
        }),
        _ => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Nestings of expressions that cost the parser (and the engine) the most stack per level:
    /// each an opening, the innermost expression and a closing. Shared by the tests of the stack
    /// estimate and of the depth bound.
    pub(crate) const NESTING: [(&str, &str, &str); 16] = [
        ("a.", "a", ""),
        ("1+", "1", ""),
        ("(", "1", ")"),
        ("[", "1", "]"),
        ("{a:", "1", "}"),
        ("f(", "1", ")"),
        ("`${", "1", "}`"),
        ("[...", "x", "]"),
        ("!", "x", ""),
        ("a?b:", "1", ""),
        ("a=", "1", ""),
        ("a=>", "1", ""),
        ("new ", "X", ""),
        ("a**", "1", ""),
        ("typeof ", "x", ""),
        ("function f(){return ", "1", "}"),
    ];

    /// The deepest shapes, far beyond what is read, parsed on a thread whose stack is exactly the
    /// estimate: an estimate too small ends the test binary here.
    #[test]
    fn the_stack_estimate_holds() {
        let statements: [(&str, &str, &str); 4] = [
            ("if(a)", "x;", ""),
            ("{", "x;", "}"),
            ("a:", "x;", ""),
            ("if(a){}else ", "x;", ""),
        ];
        // Inside a hook of a module otherwise read, so that every step of a read walks them: a
        // few levels are read.
        let shapes = NESTING
            .iter()
            .map(|s| (("(", ")"), s))
            .chain(statements.iter().map(|s| (("{", "}"), s)));
        let text = |((head, tail), (open, inner, close)): ((&str, &str), &(&str, &str, &str)),
                    n: usize| {
            format!(
                "export const main = {MAIN_GLOBAL}\nexport const handlers = () => ({{ a: {{ pre: () => {head}{}{inner}{}{tail} }} }})",
                open.repeat(n),
                close.repeat(n)
            )
        };
        for shape in shapes.clone() {
            // A label used twice within itself is an early error.
            if shape.1.0 != "a:" {
                assert!(read_on_stack(&text(shape, 3)).is_some(), "{shape:?}");
            }
        }
        for text in shapes.map(|shape| text(shape, 3000)) {
            let stack = stack_for(&text);
            let read = std::thread::Builder::new()
                .stack_size(stack)
                .spawn(move || read_on_stack(&text))
                .expect("thread")
                .join()
                .expect("no overflow");
            assert_eq!(read, None);
        }
    }

    #[test]
    fn regular_expression_patterns() {
        assert!(plain_pattern(
            r"a(b)(?:c)(?=d)(?!e)(?<=f)(?<!g)(?<n>h)\(?i)\p{L}"
        ));
        assert!(!plain_pattern("(?i:a)"));
        assert!(!plain_pattern("(?<n>a)|(?<n>b)"));
        assert!(!plain_pattern("(?<n"));
        assert!(!plain_pattern(&"()".repeat(65)));
        assert!(!plain_pattern(&"a|".repeat(129)));
        assert!(!plain_pattern(&r"\p{L}".repeat(5)));
        assert!(!plain_pattern(&"a".repeat(257)));
        assert!(!plain_pattern(&format!("(?<{}>a)", "n".repeat(65))));
    }
}
