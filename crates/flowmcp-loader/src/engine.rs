//! The QuickJS side of evaluation (feature `quickjs`): a fresh sandboxed runtime per module, the
//! module run to completion within the limits, and its exports copied out as JSON. What a build
//! without the engine does instead is in [`crate::eval`].

use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::rc::Rc;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use rquickjs::context::intrinsic;
use rquickjs::loader::{BuiltinLoader, BuiltinResolver};
use rquickjs::object::{Accessor, Property};
use rquickjs::{
    CatchResultExt, CaughtError, Context, Ctx, Function, Module, Object, Persistent, Runtime, Value,
};

use crate::literal::MainLiteral;
use serde_json::Value as Json;

use crate::evaluated::{DATA_EXPORTS, EvalFailure, Exports, HandlersExport, Limits, Position};
use crate::evaluated::{MAIN_GLOBAL, names_main_global, only_declares_main};
use crate::extract::{Abort, Extractor, Intrinsics, frozen_json, handler_shape};

/// Evaluates `source` (see [`crate::eval::evaluate_in`]): a module that is nothing but
/// `export const main = <literal>` is read without starting the engine, and so is one whose code
/// beside a literal `main` is a `handlers` factory that [`crate::factory::read`] can read (D197);
/// otherwise the engine runs it, given a literal `main` as a value rather than as source text. With the exports, the byte
/// range of the literal when the `main` export is exactly its value (read here, and not
/// reachable by the module's code).
pub(crate) fn evaluate(
    name: &str,
    source: &str,
    blanked: Option<&str>,
    pre_read: Option<crate::literal::PreRead>,
    lists: Option<&str>,
    limits: &Limits,
    timers: bool,
) -> Result<(Exports, Option<MainLiteral>), EvalFailure> {
    let mut fast = blanked.and_then(|b| FastMain::prepare(source, b, pre_read));
    if let Some(f) = fast.take_if(|f| f.data_only) {
        // The module is nothing but `export const main = <literal>`: running it could only
        // produce the value already read, so the engine is not started at all.
        let mut data = IndexMap::new();
        data.insert("main".to_string(), f.value);
        let literal = MainLiteral::new(f.range, f.facts);
        let exports = Exports {
            names: vec!["main".to_string()],
            data,
            handlers: HandlersExport::Absent,
            unserializable: Vec::new(),
        };
        return Ok((exports, Some(literal)));
    }
    let readable = crate::factory::inputs_allow(lists, limits);
    if let Some(read) = fast
        .as_ref()
        .filter(|f| !f.referenced && readable)
        .and_then(|f| crate::factory::read(&f.source))
        && let Some(f) = fast.take()
    {
        // The rest of the module is a `handlers` factory whose call only builds its routes: read
        // without starting the engine, as the engine would give it (D197).
        let mut data = IndexMap::new();
        data.insert("main".to_string(), f.value);
        let exports = Exports {
            names: read.names,
            data,
            handlers: HandlersExport::Function {
                shape: Ok(read.shape),
            },
            unserializable: Vec::new(),
        };
        return Ok((exports, Some(MainLiteral::new(f.range, f.facts))));
    }
    let (module, mut fast) = match fast {
        Some(mut f) => (std::mem::take(&mut f.source), Some(f)),
        None => (source.to_string(), None),
    };
    let key = MemoKey {
        name: name.to_string(),
        main_json: fast.as_ref().map(|f| f.json.clone()),
        module,
        lists: lists.map(str::to_string),
        limits: limits.clone(),
        timers,
    };
    // The value a literal `main` the module cannot reach is given back as: the one read now.
    let unreached = fast.as_ref().is_some_and(|f| !f.referenced);
    // What the reading learnt moves to the loaded file; the engine needs none of it.
    let literal = fast
        .as_mut()
        .filter(|_| unreached)
        .map(|f| MainLiteral::new(f.range.clone(), std::mem::take(&mut f.facts)));
    // Whether the exports' `main` is the literal's value.
    let with_range = move |exports: Exports| {
        let range = literal.filter(|_| exports.data.contains_key("main"));
        (exports, range)
    };
    if let Some(known) = memo::recall(&key) {
        return match (known, fast) {
            (Ok(mut exports), Some(f)) if unreached => {
                if let Some(main) = exports.data.get_mut("main") {
                    *main = f.value;
                }
                Ok(with_range(exports))
            }
            (known, _) => known.map(|e| (e, None)),
        };
    }
    let result = evaluate_inner(name, &key.module, fast, lists, limits, timers);
    memo::keep(key, &result, unreached);
    result.map(with_range)
}

/// What one evaluation depends on: the module's name and the text the engine reads, the `main`
/// value handed in (its JSON text; `{}` when the module cannot reach it), the shared lists, the
/// limits and the timers setting.
#[derive(PartialEq)]
struct MemoKey {
    name: String,
    module: String,
    main_json: Option<String>,
    lists: Option<String>,
    limits: Limits,
    timers: bool,
}

/// The last evaluations on this thread, so that a module evaluated again with exactly the same
/// inputs is not run again (D157). Checking a fix validates the fixed text, and most fixes change
/// only a literal `main`, which the engine does not read: the module it runs is the same. Only an
/// evaluation that ran to an outcome of the module's own making is kept; one stopped by the time
/// or memory limit is run again, in a fresh runtime as always.
mod memo {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use super::MemoKey;
    use crate::evaluated::{EvalFailure, Exports};

    /// How many evaluations a thread keeps: a file's own, and one fixed text of it.
    const KEPT: usize = 2;

    type Known = Result<Exports, EvalFailure>;

    thread_local! {
        static LAST: RefCell<VecDeque<(MemoKey, Known)>> = const { RefCell::new(VecDeque::new()) };
    }

    /// The outcome kept for `key`, if any.
    pub(super) fn recall(key: &MemoKey) -> Option<Known> {
        LAST.with_borrow(|last| {
            last.iter()
                .find(|(k, _)| k == key)
                .map(|(_, known)| known.clone())
        })
    }

    /// Keeps `result` under `key`, unless a limit stopped it. With `unreached`, the `main` in it is
    /// the literal read from the source, which the module could not see: it is kept as `null`, and
    /// [`recall`]'s caller puts the literal of the text being evaluated in its place.
    pub(super) fn keep(key: MemoKey, result: &Known, unreached: bool) {
        let known = match result {
            Err(EvalFailure::Timeout | EvalFailure::Memory { .. }) => return,
            Err(e) => Err(e.clone()),
            Ok(exports) => Ok(Exports {
                names: exports.names.clone(),
                data: exports
                    .data
                    .iter()
                    .map(|(k, v)| {
                        let v = if unreached && k == "main" {
                            serde_json::Value::Null
                        } else {
                            v.clone()
                        };
                        (k.clone(), v)
                    })
                    .collect(),
                handlers: exports.handlers.clone(),
                unserializable: exports.unserializable.clone(),
            }),
        };
        LAST.with_borrow_mut(|last| {
            if last.len() == KEPT {
                last.pop_front();
            }
            last.push_back((key, known));
        });
    }
}

/// A `main` literal read in Rust, and the source with the literal replaced by [`MAIN_GLOBAL`].
/// Made only of a source that does not name [`MAIN_GLOBAL`]: a file loaded with a
/// [`MainLiteral`] does not name it (`reload_edited` reads only the edited pieces for it).
pub(crate) struct FastMain {
    pub(crate) source: String,
    /// The literal's bytes in the module's text.
    pub(crate) range: Range<usize>,
    /// The value as JSON text for the engine (`{}` when the module cannot reach it).
    pub(crate) json: String,
    pub(crate) value: Json,
    /// Whether the rest of the module can reach `main` (it names it): then the export is read back
    /// from the engine, as it may have been changed after its declaration.
    pub(crate) referenced: bool,
    /// Whether the module consists of the declaration alone (comments and whitespace aside).
    pub(crate) data_only: bool,
    /// What the reader learnt of the literal besides its value.
    pub(crate) facts: crate::literal::Facts,
}

impl FastMain {
    /// `pre_read`: the literal the scan read while blanking `source`, if any.
    pub(crate) fn prepare(
        source: &str,
        blanked: &str,
        pre_read: Option<crate::literal::PreRead>,
    ) -> Option<FastMain> {
        let (lit, facts) = crate::literal::read_export(source, blanked, "main", pre_read).ok()?;
        let literal = source.get(lit.range.clone())?;
        if names_main_global(source.as_bytes()) {
            return None;
        }
        let range = blanked_range(source, blanked, &lit.range);
        let data_only = only_declares_main(blanked, &range);
        if data_only {
            // Nothing will run, so no rewritten source is needed.
            return Some(FastMain {
                data_only,
                range: lit.range,
                source: String::new(),
                json: String::new(),
                value: lit.value,
                referenced: false,
                facts,
            });
        }
        // Same lines and columns after the literal: the global's name, then only the line breaks of
        // the literal's lines but its last, which is blanked whole (the engine need not skip the
        // blanks of a large literal). A literal on one line gives its first characters to the name.
        let is_break = |ch: char| matches!(ch, '\n' | '\r' | '\u{2028}' | '\u{2029}');
        let mut replacement = String::with_capacity(MAIN_GLOBAL.len() + 64);
        replacement.push_str(MAIN_GLOBAL);
        match literal.rfind(is_break) {
            Some(last) => {
                push_line_breaks(&literal[..last], &mut replacement);
                let tail = &literal[last..];
                let break_len = tail.chars().next().map_or(0, char::len_utf8);
                replacement.push_str(&tail[..break_len]);
                let width = tail[break_len..].chars().count();
                replacement.extend(std::iter::repeat_n(' ', width));
            }
            None => {
                let width = literal.chars().count().checked_sub(MAIN_GLOBAL.len())?;
                replacement.extend(std::iter::repeat_n(' ', width));
            }
        }
        let mut rewritten = String::with_capacity(source.len());
        rewritten.push_str(&source[..lit.range.start]);
        rewritten.push_str(&replacement);
        rewritten.push_str(&source[lit.range.end..]);
        let referenced = mentions_identifier(blanked, "main", range);
        // The value only has to exist inside the engine when the module can reach it.
        let json = if referenced {
            serde_json::to_string(&lit.value).ok()?
        } else {
            "{}".to_string()
        };
        Some(FastMain {
            data_only,
            range: lit.range,
            source: rewritten,
            json,
            value: lit.value,
            referenced,
            facts,
        })
    }
}

/// Appends the line terminators of `text` (`\n`, `\r`, U+2028, U+2029) to `out`, in order.
fn push_line_breaks(text: &str, out: &mut String) {
    let b = text.as_bytes();
    for i in memchr::memchr3_iter(b'\n', b'\r', 0xE2, b) {
        match b[i] {
            b'\n' => out.push('\n'),
            b'\r' => out.push('\r'),
            _ => {
                if let Some(ch @ ('\u{2028}' | '\u{2029}')) =
                    text.get(i..).and_then(|t| t.chars().next())
                {
                    out.push(ch);
                }
            }
        }
    }
}

/// The byte range in `blanked` that corresponds to the byte range `r` of `source`: the same when
/// `blanked` keeps byte offsets (the loader's, `scan::blank_aligned`), mapped by characters for a
/// caller's `scan::blank`.
fn blanked_range(
    source: &str,
    blanked: &str,
    r: &std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    if source.len() == blanked.len() {
        // No multi-byte character was blanked: the offsets agree.
        return r.clone();
    }
    let start_char = source[..r.start].chars().count();
    let len_chars = source[r.clone()].chars().count();
    let mut indices = blanked
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(blanked.len()));
    let start = indices.nth(start_char).unwrap_or(blanked.len());
    let end = if len_chars == 0 {
        start
    } else {
        indices.nth(len_chars - 1).unwrap_or(blanked.len())
    };
    start..end
}

/// Whether `blanked` names the identifier `word` (ASCII) anywhere outside the byte range `skip`,
/// other than in its own declaration (`const main`) or as a property name (`.main`, `main:`).
/// Non-ASCII bytes count as identifier characters, so `émain` is not `main`.
fn mentions_identifier(blanked: &str, word: &str, skip: std::ops::Range<usize>) -> bool {
    let b = blanked.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    for i in memchr::memmem::find_iter(b, word.as_bytes()) {
        let end = i + word.len();
        if skip.contains(&i)
            || (i > 0 && is_ident(b[i - 1]))
            || b.get(end).is_some_and(|c| is_ident(*c))
        {
            continue;
        }
        let mut k = i;
        while k > 0 && b[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        let before = &b[..k];
        let declaration = before.ends_with(b"const") && (k < 6 || !is_ident(b[k - 6]));
        let member = before.ends_with(b".") && !before.ends_with(b"...");
        // A property name in an object literal (`{ main: … }`), not `cond ? main : other`.
        let key = b[end..].iter().find(|c| !c.is_ascii_whitespace()) == Some(&b':')
            && (before.ends_with(b"{") || before.ends_with(b","));
        if !(declaration || member || key) {
            return true;
        }
    }
    false
}

fn evaluate_inner(
    name: &str,
    source: &str,
    fast: Option<FastMain>,
    shared_lists: Option<&str>,
    limits: &Limits,
    timers: bool,
) -> Result<Exports, EvalFailure> {
    let deadline = Instant::now() + limits.eval_timeout;
    let fired = Rc::new(Cell::new(false));
    let fired_in = fired.clone();
    let interrupt = Box::new(move || {
        if Instant::now() > deadline {
            fired_in.set(true);
            true
        } else {
            false
        }
    });
    let (rt, ctx) =
        sandbox(limits.memory_bytes, limits.stack_bytes, interrupt, false).map_err(|e| {
            EvalFailure::Memory {
                message: e.to_string(),
            }
        })?;
    let clock = Clock {
        deadline,
        fired: &fired,
    };
    // Declared after the runtime, so dropped before it, also when a panic unwinds.
    let timers = timers.then(TimerSlot::default);
    let result = ctx.with(|ctx| {
        run(
            &ctx,
            name,
            source,
            fast,
            shared_lists,
            timers.as_ref(),
            &clock,
        )
    });
    // Drop order: the timers' handle, the context, the runtime (explicitly, for clarity).
    drop(timers);
    drop(ctx);
    drop(rt);
    result
}

/// A fresh QuickJS runtime with the sandbox's limits (memory, stack, the `interrupt` check), a module
/// loader that finds nothing (every `import` fails), and a context with only the intrinsics schema
/// modules and handlers use. Left out: typed arrays, WeakRef, performance, DOMException (about
/// 60 µs less per runtime). The engine allocates through the process's global allocator (the
/// CLI's jemalloc) rather than the C library's `malloc`: one allocator for both sides, fewer page
/// faults (D192); its memory limit counts the same sizes. Shared by module evaluation and the
/// handler host.
pub(crate) fn sandbox(
    memory_bytes: usize,
    stack_bytes: usize,
    interrupt: Box<dyn FnMut() -> bool>,
    with_libraries: bool,
) -> Result<(Runtime, Context), rquickjs::Error> {
    let rt = Runtime::new_with_alloc(rquickjs::allocator::RustAllocator)?;
    rt.set_memory_limit(memory_bytes);
    rt.set_max_stack_size(stack_bytes);
    rt.set_loader(BuiltinResolver::default(), BuiltinLoader::default());
    rt.set_interrupt_handler(Some(interrupt));
    let base = Context::builder().with::<(
        intrinsic::Eval,
        intrinsic::Date,
        intrinsic::RegExpCompiler,
        intrinsic::RegExp,
        intrinsic::Json,
        intrinsic::Proxy,
        intrinsic::MapSet,
        intrinsic::Promise,
    )>();
    // npm libraries (ethers, indicator packages) need typed arrays and weak references.
    let ctx = if with_libraries {
        base.with::<(intrinsic::TypedArrays, intrinsic::WeakRef)>()
            .build(&rt)?
    } else {
        base.build(&rt)?
    };
    Ok((rt, ctx))
}

/// The timer globals at load time under `compat` ([`evaluate_in`]): `js/load_timers.js`, a
/// function of the pending-timer cap and the longest delay in milliseconds that returns the four
/// globals and `next`.
const LOAD_TIMERS: &str = include_str!("js/load_timers.js");

/// The names of the load-time timer globals.
const TIMER_GLOBALS: [&str; 4] = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"];

/// An evaluation's time limit: its deadline, and whether the interrupt handler fired for it.
struct Clock<'a> {
    deadline: Instant,
    fired: &'a Rc<Cell<bool>>,
}

/// Largest number of timers pending at once, at load time and in the handler host;
/// `setTimeout` throws a `RangeError` beyond it.
pub(crate) const MAX_PENDING_TIMERS: usize = 10_000;

/// The longest timer delay honoured, at load time and by default in the handler host
/// (`HostConfig::max_timer_delay`).
pub(crate) const MAX_TIMER_DELAY: Duration = Duration::from_millis(250);

/// A console that accepts everything and prints nothing (module bodies written for Node may log),
/// frozen: one native no-op function under each method name. It never writes anywhere.
fn install_silent_console<'js>(
    ctx: &Ctx<'js>,
    intrinsics: &Intrinsics<'js>,
) -> rquickjs::Result<()> {
    let silent = Function::new(ctx.clone(), || ())?;
    let console = Object::new(ctx.clone())?;
    for method in ["log", "info", "warn", "error", "debug", "trace"] {
        console.set(method, silent.clone())?;
    }
    intrinsics.freeze.call::<_, Value>((console.clone(),))?;
    ctx.globals().set("console", console)
}

/// The load-time timers of one evaluation ([`LOAD_TIMERS`]'s object), made when the module first
/// reads a timer global; most modules never do, and then the script is never compiled. Emptied
/// by its `Drop` before the runtime goes: the getters that share it belong to the engine, and
/// a handle held from inside the engine would keep what it reaches alive past the runtime.
#[derive(Default)]
struct TimerSlot(Shared);

/// The timers object, once made; shared by the slot and its getters.
type Shared = Rc<RefCell<Option<Persistent<Object<'static>>>>>;

impl Drop for TimerSlot {
    fn drop(&mut self) {
        let made = self.0.borrow_mut().take();
        drop(made);
    }
}

impl TimerSlot {
    /// Defines each timer global as an accessor: reading it makes the timers (once) and replaces
    /// the accessor with the function read, as a writable, configurable, non-enumerable data
    /// property (what the handler host's prelude defines); assigning it replaces the accessor with
    /// the value assigned. Either way the other names stay as they are.
    fn install<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<()> {
        let globals = ctx.globals();
        for name in TIMER_GLOBALS {
            let slot = Rc::clone(&self.0);
            let get = move |ctx: Ctx<'js>| -> rquickjs::Result<Value<'js>> {
                let f: Value = timers_object(&ctx, &slot)?.get(name)?;
                // A module that froze the global object keeps its accessor; the read still works.
                let _ = ctx
                    .globals()
                    .prop(name, Property::from(f.clone()).writable().configurable())
                    .catch(&ctx);
                Ok(f)
            };
            let set = move |ctx: Ctx<'js>, value: Value<'js>| -> rquickjs::Result<()> {
                ctx.globals()
                    .prop(name, Property::from(value).writable().configurable())
            };
            globals.prop(name, Accessor::new(get, set).configurable())?;
        }
        Ok(())
    }

    /// `next` of the timers, when the module has made them.
    fn next<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Option<Function<'js>>> {
        let made = self.0.borrow().clone();
        match made {
            Some(p) => p.restore(ctx)?.get("next").map(Some),
            None => Ok(None),
        }
    }
}

/// The timers object of `slot`, made now if it is not yet.
fn timers_object<'js>(ctx: &Ctx<'js>, slot: &Shared) -> rquickjs::Result<Object<'js>> {
    let made = slot.borrow().clone();
    if let Some(p) = made {
        return p.restore(ctx);
    }
    let make: Function = ctx.eval(LOAD_TIMERS)?;
    let timers: Object = make.call((
        MAX_PENDING_TIMERS as f64,
        MAX_TIMER_DELAY.as_secs_f64() * 1000.0,
    ))?;
    *slot.borrow_mut() = Some(Persistent::save(ctx, timers.clone()));
    Ok(timers)
}

/// Waits for the module's promise `done`, running due timers (`next`, when the module has made
/// them) whenever its job queue is empty. A timer callback's exception is ignored, as the handler host
/// ignores it (exhaustion and the time limit still end the evaluation).
fn settle<'js>(
    ctx: &Ctx<'js>,
    name: &str,
    done: &rquickjs::Promise<'js>,
    timers: Option<&TimerSlot>,
    clock: &Clock<'_>,
) -> Result<(), EvalFailure> {
    let fail = |e: CaughtError<'_>| classify(e, name, clock.fired, false);
    loop {
        match done.finish::<Value>().catch(ctx) {
            Ok(_) => return Ok(()),
            Err(CaughtError::Error(rquickjs::Error::WouldBlock)) => {}
            Err(e) => return Err(fail(e)),
        }
        let next = match timers.map(|t| t.next(ctx).catch(ctx)) {
            Some(Ok(Some(next))) => next,
            Some(Err(e)) => return Err(fail(e)),
            Some(Ok(None)) | None => return Err(EvalFailure::NeverSettles),
        };
        if Instant::now() > clock.deadline {
            return Err(EvalFailure::Timeout);
        }
        match next.call::<_, bool>(()).catch(ctx) {
            Ok(true) => {}
            Ok(false) => return Err(EvalFailure::NeverSettles),
            Err(e) => {
                if let failure @ (EvalFailure::Timeout | EvalFailure::Memory { .. }) = fail(e) {
                    return Err(failure);
                }
            }
        }
    }
}

fn run(
    ctx: &Ctx<'_>,
    name: &str,
    source: &str,
    fast: Option<FastMain>,
    shared_lists: Option<&str>,
    timers: Option<&TimerSlot>,
    clock: &Clock<'_>,
) -> Result<Exports, EvalFailure> {
    let fired = clock.fired;
    let fail = |e: CaughtError<'_>| classify(e, name, fired, false);
    let timeout = |_: Abort| {
        if fired.get() {
            EvalFailure::Timeout
        } else {
            EvalFailure::Memory {
                message: "out of memory or stack while reading the exports".into(),
            }
        }
    };
    // Captured before any untrusted code runs.
    let intrinsics = Intrinsics::capture(ctx).catch(ctx).map_err(fail)?;
    install_silent_console(ctx, &intrinsics)
        .catch(ctx)
        .map_err(fail)?;
    if let Some(t) = timers {
        t.install(ctx).catch(ctx).map_err(fail)?;
    }
    let mut fast = fast;
    if let Some(f) = &fast {
        // The engine's own JSON parser (not the global `JSON`, which nothing has touched yet anyway).
        let value = ctx.json_parse(f.json.as_str()).catch(ctx).map_err(fail)?;
        ctx.globals()
            .set(MAIN_GLOBAL, value)
            .catch(ctx)
            .map_err(fail)?;
    }

    // Resolved shared lists, parsed and deep-frozen before any untrusted code runs.
    let lists = match shared_lists {
        Some(text) => Some(
            frozen_json(ctx, &intrinsics, text)
                .catch(ctx)
                .map_err(fail)?,
        ),
        None => None,
    };

    let declared = Module::declare(ctx.clone(), name, source)
        .catch(ctx)
        .map_err(|e| classify(e, name, fired, true))?;
    let (module, done) = declared.eval().catch(ctx).map_err(fail)?;
    settle(ctx, name, &done, timers, clock)?;

    let ns: Object = module.namespace().catch(ctx).map_err(fail)?;
    let mut names = Vec::new();
    for key in ns.keys::<String>() {
        names.push(key.catch(ctx).map_err(fail)?);
    }

    let interrupted = || fired.get();
    let mut data = IndexMap::new();
    let mut unserializable = Vec::new();
    for export in DATA_EXPORTS {
        if !names.iter().any(|n| n == export) {
            continue;
        }
        if *export == "main"
            && let Some(f) = fast.take_if(|f| !f.referenced)
        {
            // Nothing else in the module names `main`: the export is the value read from the source.
            data.insert((*export).to_string(), f.value);
            continue;
        }
        let value: Value = ns.get(*export).catch(ctx).map_err(fail)?;
        let mut ex = Extractor::new(ctx.clone(), &intrinsics, &interrupted, export);
        let json = ex.walk(value).map_err(timeout)?;
        unserializable.extend(ex.problems);
        data.insert((*export).to_string(), json);
    }

    let handlers = if names.iter().any(|n| n == "handlers") {
        let value: Value = ns.get("handlers").catch(ctx).map_err(fail)?;
        match value.as_function() {
            Some(f) => HandlersExport::Function {
                shape: handler_shape(ctx, &intrinsics, &interrupted, f, lists.clone())
                    .map_err(timeout)?,
            },
            None => HandlersExport::NotFunction(value.type_name().to_string()),
        }
    } else {
        HandlersExport::Absent
    };

    Ok(Exports {
        names,
        data,
        handlers,
        unserializable,
    })
}

/// Turns an engine error into a failure class.
fn classify(
    err: CaughtError<'_>,
    file: &str,
    fired: &Rc<Cell<bool>>,
    declaring: bool,
) -> EvalFailure {
    if fired.get() {
        return EvalFailure::Timeout;
    }
    match err {
        CaughtError::Error(rquickjs::Error::Allocation) => EvalFailure::Memory {
            message: "out of memory".into(),
        },
        CaughtError::Error(rquickjs::Error::WouldBlock) => EvalFailure::NeverSettles,
        CaughtError::Error(rquickjs::Error::Resolving { name, .. })
        | CaughtError::Error(rquickjs::Error::Loading { name, .. }) => EvalFailure::Threw {
            message: format!("imports are not available in the sandbox (module {name:?})"),
            at: None,
        },
        CaughtError::Error(e) => EvalFailure::Threw {
            message: e.to_string(),
            at: None,
        },
        CaughtError::Exception(ex) => {
            let message = ex.message().unwrap_or_default();
            let stack = ex.stack().unwrap_or_default();
            let at = position_in_stack(&stack, file);
            let is_syntax = ex
                .get::<_, String>("name")
                .map(|n| n == "SyntaxError")
                .unwrap_or(false);
            exception_failure(&message, at, is_syntax, declaring)
        }
        CaughtError::Value(v) if v.is_null() => EvalFailure::Memory {
            message: THROWN_NULL.into(),
        },
        CaughtError::Value(v) => {
            let message = describe_thrown(&v);
            exception_failure(&message, None, false, declaring)
        }
    }
}

fn exception_failure(
    message: &str,
    at: Option<Position>,
    is_syntax: bool,
    declaring: bool,
) -> EvalFailure {
    let lower = message.to_ascii_lowercase();
    if is_exhaustion_message(&lower) {
        return EvalFailure::Memory {
            message: message.to_string(),
        };
    }
    if lower.contains("interrupted") {
        return EvalFailure::Timeout;
    }
    if lower.contains("could not load module") || lower.contains("error resolving module") {
        return EvalFailure::Threw {
            message: format!("imports are not available in the sandbox: {message}"),
            at,
        };
    }
    if is_syntax || declaring {
        return EvalFailure::Syntax {
            message: message.to_string(),
            at,
        };
    }
    EvalFailure::Threw {
        message: message.to_string(),
        at,
    }
}

/// Whether an engine message (in lower case) says that memory or stack ran out (QuickJS-NG:
/// "out of memory", "Maximum call stack size exceeded"; "stack overflow" from older builds).
pub(crate) fn is_exhaustion_message(lower: &str) -> bool {
    lower.contains("out of memory")
        || lower.contains("stack size exceeded")
        || lower.contains("stack overflow")
}

/// What a thrown `null` is reported as. QuickJS-NG throws `null` when memory runs out so far that
/// it cannot allocate even its out-of-memory error, and by then the memory may already be given
/// back (a module's or a function's locals), so the heap cannot tell; a script that throws `null`
/// on purpose is reported the same way (both stop the evaluation, and nothing else throws it).
pub(crate) const THROWN_NULL: &str =
    "out of memory (it threw null, which the engine throws when it cannot allocate even the error)";

pub(crate) fn describe_thrown(v: &Value<'_>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_else(|_| "a string".into());
    }
    if let Some(n) = v.as_number() {
        return n.to_string();
    }
    format!("a thrown {} value", v.type_name())
}

/// Finds `file:line:col` (QuickJS's stack format, `    at file:3:6`) for `file` in a stack trace.
fn position_in_stack(stack: &str, file: &str) -> Option<Position> {
    for line in stack.lines() {
        let Some(idx) = line.find(file) else { continue };
        let rest = &line[idx + file.len()..];
        let mut parts = rest
            .trim_start_matches(':')
            .split(|c: char| !c.is_ascii_digit());
        let l = parts.next().and_then(|s| s.parse::<u32>().ok());
        let c = parts.next().and_then(|s| s.parse::<u32>().ok());
        if let Some(l) = l {
            return Some(Position {
                line: l,
                column: c.unwrap_or(1),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{evaluate, evaluate_with_blanked};

    fn eval(src: &str) -> Result<Exports, EvalFailure> {
        evaluate(
            "t.mjs",
            src,
            &Limits {
                eval_timeout: Duration::from_millis(300),
                ..Limits::default()
            },
        )
    }

    /// D157: a module evaluated again with the same inputs is not run again; the outcome of its
    /// first run comes back (a module that names its handler by `Math.random()` shows it). A
    /// `main` literal the module cannot reach is not one of the inputs: the new literal comes
    /// back with the kept handlers. A reachable one is, as are the name and the rest of the text.
    #[test]
    fn i46_a_module_evaluated_again_with_the_same_inputs_is_not_run_again() {
        let limits = Limits::default();
        let run = |name: &str, src: &str| {
            evaluate_with_blanked(name, src, Some(&crate::scan::blank_aligned(src)), &limits)
                .unwrap()
        };
        let handler = |e: &Exports| match &e.handlers {
            HandlersExport::Function { shape: Ok(shape) } => shape[0].0.clone(),
            other => panic!("{other:?}"),
        };
        let random = "export const handlers = () => ({ [String(Math.random())]: {} });\n";
        let unreached =
            |n: u32| format!("export const main = {{\n  namespace: 'x',\n  n: {n}\n}};\n{random}");
        let first = run("a.mjs", &unreached(1));
        let again = run("a.mjs", &unreached(2));
        assert_eq!(handler(&first), handler(&again));
        assert_eq!(
            first.data["main"],
            serde_json::json!({ "namespace": "x", "n": 1 })
        );
        assert_eq!(
            again.data["main"],
            serde_json::json!({ "namespace": "x", "n": 2 })
        );
        // Another name, or another text the engine reads, runs the module.
        assert_ne!(handler(&first), handler(&run("b.mjs", &unreached(1))));
        let longer = format!("{}// more\n", unreached(1));
        assert_ne!(handler(&first), handler(&run("a.mjs", &longer)));
        // A `main` the module reads is an input: another value runs it again.
        let reached = |n: u32| {
            format!(
                "export const main = {{\n  namespace: 'x',\n  n: {n}\n}};\nexport const handlers = () => ({{ [String(main.n + Math.random())]: {{}} }});\n"
            )
        };
        let one = run("c.mjs", &reached(1));
        assert_eq!(handler(&one), handler(&run("c.mjs", &reached(1))));
        let two = run("c.mjs", &reached(2));
        assert_ne!(handler(&one), handler(&two));
        assert!(handler(&two).starts_with('2'), "{}", handler(&two));
        // Without the literal read in Rust, the whole text is the input.
        let plain = |n: u32| format!("const n = {n};\nexport const main = {{ n }};\n{random}");
        let p1 = eval(&plain(1));
        assert_eq!(p1, eval(&plain(1)));
        assert_ne!(
            p1.as_ref().map(handler),
            eval(&plain(2)).as_ref().map(handler)
        );
    }

    #[test]
    fn extracts_plain_main() {
        let e =
            eval("export const main = { namespace: 'x', n: [1, 2.5, true, null, 'a'] };").unwrap();
        assert_eq!(e.names, vec!["main".to_string()]);
        assert_eq!(e.data["main"]["n"][1], serde_json::json!(2.5));
        assert!(e.unserializable.is_empty());
        assert_eq!(e.handlers, HandlersExport::Absent);
    }

    /// The engine reads the module with the literal `main` taken out; what follows it keeps its
    /// line and column, whether the literal spans lines or not (CRLF line ends too).
    #[test]
    fn positions_after_a_read_literal_are_kept() {
        let limits = Limits::default();
        for (src, at) in [
            (
                "export const main = {\n  namespace: 'abc',\n  tools: {}\n}; const x = 1; null.boom;\nexport const handlers = () => ({});\n",
                Position {
                    line: 4,
                    column: 17,
                },
            ),
            (
                "export const main = {\r\n  tools: {}\r\n}; null.boom;\r\nexport const handlers = () => ({});\r\n",
                Position { line: 3, column: 4 },
            ),
            (
                "export const main = { namespace: 'abc', tools: {} }; null.boom;\nexport const handlers = () => ({});\n",
                Position {
                    line: 1,
                    column: 53,
                },
            ),
        ] {
            let blanked = crate::scan::blank(src);
            assert!(FastMain::prepare(src, &blanked, None).is_some_and(|f| !f.data_only));
            match evaluate_with_blanked("t.mjs", src, Some(&blanked), &limits) {
                Err(EvalFailure::Threw { at: Some(p), .. }) => assert_eq!(p, at, "{src}"),
                other => panic!("{src}: {other:?}"),
            }
        }
    }

    #[test]
    fn stack_positions() {
        assert_eq!(
            position_in_stack("    at t.mjs:3:6\n", "t.mjs"),
            Some(Position { line: 3, column: 6 })
        );
        assert_eq!(position_in_stack("    at <eval>:1:1\n", "t.mjs"), None);
    }

    /// The engine's outcome for `src` (which declares a literal `main`), given the literal as a
    /// value as `evaluate` does, and what `factory::read` made of the same text.
    fn engine_and_reader(
        src: &str,
    ) -> (Result<Exports, EvalFailure>, Option<crate::factory::Read>) {
        let blanked = crate::scan::blank_aligned(src);
        let fast = FastMain::prepare(src, &blanked, None).expect("a literal `main`");
        assert!(!fast.referenced && !fast.data_only, "{src}");
        let module = fast.source.clone();
        let read = crate::factory::read(&module);
        let engine = evaluate_inner("t.mjs", &module, Some(fast), None, &Limits::default(), true);
        (engine, read)
    }

    /// Whether the reader read `src`; when it did, it gave what the engine gives.
    fn read_as_engine(src: &str) -> bool {
        let (engine, read) = engine_and_reader(src);
        let Some(read) = read else { return false };
        let exports =
            engine.unwrap_or_else(|e| panic!("read, but the engine failed: {e:?}\n{src}"));
        assert_eq!(exports.names, read.names, "{src}");
        assert_eq!(
            exports.handlers,
            HandlersExport::Function {
                shape: Ok(read.shape)
            },
            "{src}"
        );
        assert!(exports.unserializable.is_empty());
        true
    }

    fn with_main(code: &str) -> String {
        format!("export const main = {{\n    namespace: 'x',\n    tools: {{}}\n}}\n\n{code}\n")
    }

    /// D197: modules of the common shape are read without the engine, and give exactly its exports:
    /// names sorted, routes and hooks in insertion order (a key written twice keeps its first place
    /// and its last value), methods and function values as hooks, other values left out.
    #[test]
    fn i46_a_handlers_factory_is_read_as_the_engine_evaluates_it() {
        let read = [
            "export const handlers = ( { sharedLists, libraries } ) => ( {\n    getA: {\n        preRequest: async ( { struct, payload } ) => {\n            struct.url = `${struct.url}?q=${encodeURIComponent( payload.q ?? '' )}`\n            return { struct }\n        },\n        postRequest: async function ( { response } ) { return { response: response?.items?.map( ( i ) => i.id ) } }\n    },\n    'get-b': { note: 'x', count: 3, postRequest( { response } ) { return { response } } },\n    getA2: {},\n    getA: { executeRequest: async () => ( { struct: {} } ), limit: -1 }\n} )",
            "export const handlers = () => ({})",
            "export const handlers = ( { libraries } ) => {\n    const ethers = libraries['ethers']\n    const other = libraries.other\n    const table = { a: [ 1, 2, { b: null } ], re: /a+(?:b|c)\\d{2,3}$/giu, t: `plain`, n: -2.5, big: 10n }\n    function helper( x ) { return x * 2 }\n    const twice = ( x ) => helper( x ) + table.n\n    return {\n        signMessage: {\n            executeRequest: async ( { struct, payload } ) => {\n                class Kept { #p = 1; static s = 2; static { this.t = 3 } get p() { return #p in this ? this.#p : 0 } }\n                try { struct.data = await ethers.sign( payload.userParams ) } catch( e ) { struct.status = false }\n                label: for( const [ k, v ] of Object.entries( table ) ) { if( v ) break label }\n                return { struct, n: twice( 2 ) ?? 0, o: { ...struct }, s: String.raw`a${1}` }\n            }\n        }\n    }\n}",
            "const LIMIT = 50\nfunction clamp( n ) { return Math.min( n, LIMIT ) }\nexport const VERSION = '2'\nexport function helper() { return clamp( 1 ) }\nexport const handlers = ( { sharedLists } ) => ( {\n    'ünïcode': { preRequest: async ( { struct } ) => ( { struct } ) },\n    \"quoted\\u0041\": { postRequest: async ( x ) => x }\n} )",
        ];
        for code in read {
            assert!(read_as_engine(&with_main(code)), "not read:\n{code}");
        }
    }

    /// Each of `codes` (after a literal `main`) is declined by the reader, and the engine finds a
    /// syntax error in it.
    fn declined_as_syntax_errors(codes: &[&str]) {
        for code in codes {
            let (engine, read) = engine_and_reader(&with_main(code));
            assert!(read.is_none(), "read:\n{code}");
            assert!(
                matches!(engine, Err(EvalFailure::Syntax { .. })),
                "{engine:?}\n{code}"
            );
        }
    }

    /// D197: what the reader declines is evaluated; where it declines because the text is wrong,
    /// the engine finds it wrong too. Each case here is declined.
    #[test]
    fn i46_the_handlers_reader_declines_what_it_cannot_know() {
        let errors = [
            "export const handlers = () => ({ a: { pre: async () => { let x = 1; let x = 2 } } })",
            "export const handlers = () => ({ a: { pre: () => { await 1 } } })",
            "export const handlers = () => ({ a: { pre: async () => { return ( } } })",
            "export const handlers = () => ({ a: { pre: () => /(/ } })",
            "export const handlers = () => ({ a: { pre: () => { with( x ) {} } } })",
            "export const handlers = () => ({})\nexport const handlers2 = 1\nexport { handlers2 as handlers }",
        ];
        declined_as_syntax_errors(&errors);
        let declined = [
            // Computed, prototype and index keys, getters, spreads.
            "export const handlers = () => ({ ['a' + 1]: {} })",
            "export const handlers = () => ({ __proto__: { a: {} } })",
            "export const handlers = () => ({ b: {}, 1: {} })",
            "export const handlers = () => ({ a: { get pre() { return () => 1 } } })",
            "export const handlers = () => ({ ...{ a: {} } })",
            // Code that runs: in the factory, at the top level, in a route's value.
            "export const handlers = ( { sharedLists } ) => { const chains = sharedLists.EVM.filter( ( c ) => c ); return {} }",
            "export const handlers = () => ({ a: make() })",
            "export const handlers = () => ({ a: { pre: make() } })",
            "const routes = build()\nexport const handlers = () => ({})",
            "console.log( 1 )\nexport const handlers = () => ({})",
            "export const handlers = async () => ({})",
            "export const handlers = ( { sharedLists = {} } ) => ({})",
            "export const handlers = ( { other } ) => { const x = other.y; return {} }",
            "export const handlers = ( { libraries } ) => { const x = libraries.a.b; return {} }",
            "export const handlers = function () { return {} }",
            "export const handlers = () => { if( true ) {} return {} }",
            "export const handlers = 5",
            "export const list = { a: 1 }\nexport const handlers = () => ({})",
            "import x from 'y'\nexport const handlers = () => ({})",
            // Syntax the engine may not know.
            "export const handlers = () => ({ a: { pre: () => /[\\p{L}--[a-z]]/v } })",
            "export const handlers = () => ({ a: { pre: () => /(?i:a)b/ } })",
            "export const handlers = () => ({ a: { pre: () => /(?<y>a)|(?<y>b)/ } })",
            "export const handlers = () => ({ a: { pre: () => { using r = res() } } })",
            "export const handlers = () => ({ a: { pre: () => import( 'x' ) } })",
        ];
        // What the engine reads otherwise than the parser (its look-ahead for arrow parameters
        // takes a `/` after a template for a regular expression and one after `)` for a division;
        // a class field named `get` before a generator; its limits in regular expressions; a
        // newer Unicode in the parser's names): declined, and the engine finds an error.
        let misread = [
            "export const handlers = () => ({ a: { pre: (a = `x` / 2) => a } })",
            "export const handlers = () => ({ a: { pre: (f = function () { if (f) /[)]/ }) => f } })",
            "export const handlers = () => ({ a: { pre: () => { class C { get\n *g() {} } } } })",
            &format!(
                "export const handlers = () => ({{ a: {{ pre: () => /{}/ }} }})",
                "()".repeat(255)
            ),
            "export const handlers = () => ({ a: { pre: () => { let \u{0558} = 1 } } })",
        ];
        declined_as_syntax_errors(&misread);
        // Where a read would differ from the engine's outcome: a `var` declared again, a key
        // the engine cuts at a NUL. And names beyond ASCII, which the engine may not know.
        let differ = [
            "export var handlers = () => ({ a: { pre() {} } })\nvar handlers = () => ({ b: {} })",
            "export const handlers = () => ({ 'a\\0b': { pre() {} } })",
            "export const handlers = () => ({ a: { pre: () => { const é = 1; return é } } })",
        ];
        for code in declined.iter().chain(&differ) {
            let (_, read) = engine_and_reader(&with_main(code));
            assert!(read.is_none(), "read:\n{code}");
        }
        // Inputs besides the text: lists that are not an object, limits below the defaults.
        let least = Limits::default();
        assert!(crate::factory::inputs_allow(None, &least));
        assert!(crate::factory::inputs_allow(Some(" {\"a\": []}"), &least));
        assert!(!crate::factory::inputs_allow(Some("null"), &least));
        let small = Limits {
            memory_bytes: 1 << 20,
            ..Limits::default()
        };
        assert!(!crate::factory::inputs_allow(None, &small));
        // No handlers, or a `main` the engine must build: nothing for the reader.
        let (_, read) = engine_and_reader(&with_main("export const other = 1"));
        assert!(read.is_none());
    }

    /// D197: at the deepest tree the reader reads, the engine compiles every shape within its
    /// default stack limit and agrees; one level more is declined. A text nested far deeper than
    /// any stack it runs on is declined without exhausting it.
    #[test]
    fn i46_at_the_depth_bound_the_engine_agrees() {
        for (open, inner, close) in crate::factory::tests::NESTING {
            let module = |n: usize| {
                with_main(&format!(
                    "export const handlers = () => ({{ a: {{ pre: () => ({}{inner}{}) }} }})",
                    open.repeat(n),
                    close.repeat(n)
                ))
            };
            let mut n = 1;
            while read_as_engine(&module(n)) {
                n += 1;
                assert!(n < 4 * crate::factory::MAX_DEPTH as usize, "{open}");
            }
            assert!(n > 8, "only {n} levels of {open} read");
            let (_, read) = engine_and_reader(&module(n));
            assert!(read.is_none());
        }
        // 20,000 brackets on a thread with a quarter of a megabyte of stack.
        let deep = with_main(&format!(
            "export const handlers = () => ({{ a: {}1{} }})",
            "(".repeat(20_000),
            ")".repeat(20_000)
        ));
        let declined = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let blanked = crate::scan::blank_aligned(&deep);
                let fast = FastMain::prepare(&deep, &blanked, None).expect("literal");
                crate::factory::read(&fast.source).is_none()
            })
            .expect("thread")
            .join()
            .expect("no overflow");
        assert!(declined);
    }
}
