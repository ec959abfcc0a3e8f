//! Copying exported JavaScript values into JSON, natively (no script runs for it).
//!
//! The copy follows what `JSON.stringify` would keep, and lists every value that would not survive a
//! JSON round trip (SEC017): functions, `undefined` (array holes too), symbols (values and keys),
//! BigInt, NaN/Infinity, objects that are not plain (`Date`, `Map`, class instances …), cycles, getters
//! that throw, and nesting deeper than [`MAX_DEPTH`]. The prototypes it compares against are captured
//! before the module runs, so a module cannot disguise a value by replacing globals.

use rquickjs::object::Filter;
use rquickjs::{Array, Atom, Ctx, Function, Object, Type, Value};
use serde_json::{Map, Number, Value as Json};

use crate::unserializable::{PathItem, Unserializable, UnserializableKind};

/// Deeper values are reported instead of copied (this also bounds the native recursion).
pub(crate) const MAX_DEPTH: usize = 256;

/// Built-ins captured before any untrusted code ran.
pub(crate) struct Intrinsics<'js> {
    pub object_proto: Value<'js>,
    pub array_proto: Value<'js>,
    pub freeze: Function<'js>,
    pub is_frozen: Function<'js>,
}

impl<'js> Intrinsics<'js> {
    pub(crate) fn capture(ctx: &Ctx<'js>) -> rquickjs::Result<Self> {
        let object: Object = ctx.globals().get("Object")?;
        let array: Object = ctx.globals().get("Array")?;
        Ok(Intrinsics {
            object_proto: object.get("prototype")?,
            array_proto: array.get("prototype")?,
            freeze: object.get("freeze")?,
            is_frozen: object.get("isFrozen")?,
        })
    }
}

/// An engine failure that must end extraction (interrupt, out of memory): the caller classifies it.
pub(crate) struct Abort;

pub(crate) struct Extractor<'a, 'js> {
    ctx: Ctx<'js>,
    intrinsics: &'a Intrinsics<'js>,
    /// Whether the interrupt handler fired: then every error is the deadline, not a getter.
    interrupted: &'a dyn Fn() -> bool,
    export: String,
    stack: Vec<Value<'js>>,
    path: Vec<PathItem>,
    pub problems: Vec<Unserializable>,
}

impl<'a, 'js> Extractor<'a, 'js> {
    pub(crate) fn new(
        ctx: Ctx<'js>,
        intrinsics: &'a Intrinsics<'js>,
        interrupted: &'a dyn Fn() -> bool,
        export: &str,
    ) -> Self {
        Extractor {
            ctx,
            intrinsics,
            interrupted,
            export: export.to_string(),
            stack: Vec::new(),
            path: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn report(&mut self, kind: UnserializableKind, detail: impl Into<String>) {
        self.problems.push(Unserializable {
            export: self.export.clone(),
            path: self.path.clone(),
            kind,
            detail: detail.into(),
        });
    }

    /// A caught exception: the deadline or memory limit ends extraction; anything else is the thrown
    /// value's message.
    fn exception_message(&mut self, err: rquickjs::Error) -> Result<String, Abort> {
        if (self.interrupted)() {
            return Err(Abort);
        }
        match err {
            rquickjs::Error::Exception => {
                let v = self.ctx.catch();
                let msg = v
                    .as_exception()
                    .and_then(|e| e.message())
                    .or_else(|| v.as_string().and_then(|s| s.to_string().ok()))
                    .unwrap_or_else(|| "an exception".to_string());
                let lower = msg.to_ascii_lowercase();
                if lower.contains("out of memory")
                    || lower.contains("interrupted")
                    || lower.contains("stack size")
                {
                    return Err(Abort);
                }
                Ok(msg)
            }
            rquickjs::Error::Allocation => Err(Abort),
            other => Ok(other.to_string()),
        }
    }

    /// Copies `v` into JSON. Unserialisable parts become `null` and are listed in `problems`.
    pub(crate) fn walk(&mut self, v: Value<'js>) -> Result<Json, Abort> {
        match v.type_of() {
            Type::Null => Ok(Json::Null),
            Type::Bool => Ok(Json::Bool(v.as_bool().unwrap_or(false))),
            Type::Int => Ok(Json::Number(Number::from(v.as_int().unwrap_or(0)))),
            Type::Float => {
                let f = v.as_float().unwrap_or(f64::NAN);
                match flowmcp_spec::js::number_value(f) {
                    Some(n) => Ok(n),
                    None => {
                        self.report(
                            UnserializableKind::Number,
                            flowmcp_spec::js::number_to_string(f),
                        );
                        Ok(Json::Null)
                    }
                }
            }
            Type::String => {
                let s = v
                    .as_string()
                    .and_then(|s| s.to_string().ok())
                    .unwrap_or_default();
                Ok(Json::String(s))
            }
            Type::Undefined | Type::Uninitialized => {
                self.report(UnserializableKind::Undefined, "");
                Ok(Json::Null)
            }
            Type::Symbol => {
                self.report(UnserializableKind::Symbol, "");
                Ok(Json::Null)
            }
            Type::BigInt => {
                self.report(UnserializableKind::BigInt, "");
                Ok(Json::Null)
            }
            Type::Function | Type::Constructor => {
                self.report(UnserializableKind::Function, "");
                Ok(Json::Null)
            }
            Type::Array | Type::Object | Type::Proxy | Type::Exception | Type::Promise => {
                self.composite(v)
            }
            _ => {
                self.report(UnserializableKind::NonPlain, v.type_name());
                Ok(Json::Null)
            }
        }
    }

    fn composite(&mut self, v: Value<'js>) -> Result<Json, Abort> {
        if self.stack.contains(&v) {
            self.report(UnserializableKind::Cycle, "");
            return Ok(Json::Null);
        }
        if self.stack.len() >= MAX_DEPTH {
            self.report(
                UnserializableKind::TooDeep,
                format!("more than {MAX_DEPTH} levels"),
            );
            return Ok(Json::Null);
        }
        let Some(obj) = v.as_object().cloned() else {
            self.report(UnserializableKind::NonPlain, v.type_name());
            return Ok(Json::Null);
        };
        let proto: Value = obj
            .get_prototype()
            .map(Object::into_value)
            .unwrap_or_else(|| Value::new_null(self.ctx.clone()));
        let is_array = v.is_array();
        let plain = if is_array {
            proto == self.intrinsics.array_proto
        } else {
            proto.is_null() || proto == self.intrinsics.object_proto
        };
        if !plain || v.is_function() {
            let name = constructor_name(&obj).unwrap_or_else(|| v.type_name().to_string());
            self.report(UnserializableKind::NonPlain, name);
            return Ok(Json::Null);
        }
        self.stack.push(v.clone());
        let out = if is_array {
            self.array(obj)
        } else {
            self.object(obj)
        };
        self.stack.pop();
        out
    }

    fn array(&mut self, obj: Object<'js>) -> Result<Json, Abort> {
        let Some(arr) = obj.into_array() else {
            return Ok(Json::Array(Vec::new()));
        };
        let arr: Array = arr;
        let len = arr.len();
        let mut out = Vec::with_capacity(len.min(1 << 16));
        for i in 0..len {
            self.path.push(PathItem::Index(i));
            let item = match arr.get::<Value>(i) {
                Ok(value) => self.walk(value)?,
                Err(e) => {
                    let msg = self.exception_message(e)?;
                    self.report(UnserializableKind::GetterThrew, msg);
                    Json::Null
                }
            };
            self.path.pop();
            out.push(item);
        }
        Ok(Json::Array(out))
    }

    fn object(&mut self, obj: Object<'js>) -> Result<Json, Abort> {
        // Enumerable symbol-keyed properties are dropped by JSON.stringify: report them.
        for key in obj.own_keys::<Atom>(Filter::new().symbol().enum_only()) {
            match key {
                Ok(atom) => {
                    let text = atom.to_string().unwrap_or_else(|_| "Symbol()".into());
                    self.path.push(PathItem::Key(text));
                    self.report(UnserializableKind::SymbolKey, "");
                    self.path.pop();
                }
                Err(e) => {
                    self.exception_message(e)?;
                }
            }
        }
        let mut map = Map::new();
        // Keys as atoms, read through a JavaScript string: a key may contain NUL characters, which
        // a conversion through a C string would cut off (two keys would collide).
        let keys: Vec<Atom<'js>> = match obj
            .own_keys::<Atom>(Filter::default())
            .collect::<rquickjs::Result<Vec<_>>>()
        {
            Ok(k) => k,
            Err(e) => {
                let msg = self.exception_message(e)?;
                self.report(UnserializableKind::GetterThrew, msg);
                return Ok(Json::Object(map));
            }
        };
        for atom in keys {
            let key = match atom.to_js_string().and_then(|s| s.to_string()) {
                Ok(k) => k,
                Err(e) => {
                    self.exception_message(e)?;
                    continue;
                }
            };
            self.path.push(PathItem::Key(key.clone()));
            let item = match obj.get::<_, Value>(atom) {
                Ok(value) => self.walk(value)?,
                Err(e) => {
                    let msg = self.exception_message(e)?;
                    self.report(UnserializableKind::GetterThrew, msg);
                    Json::Null
                }
            };
            self.path.pop();
            map.insert(key, item);
        }
        Ok(Json::Object(map))
    }
}

/// `obj.constructor.name` when it is a plain string property chain (best effort, for messages).
fn constructor_name(obj: &Object<'_>) -> Option<String> {
    let ctor: Object = obj.get("constructor").ok()?;
    let name: String = ctor.get("name").ok()?;
    (!name.is_empty()).then_some(name)
}

/// Each key the `handlers` factory returned with the names of its function-valued members, or the
/// error the factory threw.
pub(crate) type HandlerShape = Result<Vec<(String, Vec<String>)>, String>;

/// Calls a `handlers` factory with frozen empty `sharedLists` and `libraries` and describes the
/// result: each key with the names of its function-valued members, or the error.
pub(crate) fn handler_shape<'js>(
    ctx: &Ctx<'js>,
    intrinsics: &Intrinsics<'js>,
    interrupted: &dyn Fn() -> bool,
    factory: &Function<'js>,
    shared_lists: Option<Value<'js>>,
) -> Result<HandlerShape, Abort> {
    let mut ex = Extractor::new(ctx.clone(), intrinsics, interrupted, "handlers");
    let build = || -> rquickjs::Result<Value<'js>> {
        let empty = || -> rquickjs::Result<Value<'js>> {
            intrinsics.freeze.call((Object::new(ctx.clone())?,))
        };
        let lists = match shared_lists {
            Some(lists) => lists,
            None => empty()?,
        };
        let arg = factory_arg(ctx, intrinsics, lists, empty()?)?;
        factory.call((arg,))
    };
    let made = match build() {
        Ok(v) => v,
        Err(e) => return Ok(Err(ex.exception_message(e)?)),
    };
    let Some(obj) = made
        .as_object()
        .filter(|_| !made.is_array() && !made.is_function())
    else {
        let what = if made.is_null() {
            "null".to_string()
        } else {
            made.type_name().to_string()
        };
        return Ok(Err(format!("the factory returned {what}, not an object")));
    };
    let keys: Vec<String> = match obj
        .own_keys::<String>(Filter::default())
        .collect::<rquickjs::Result<Vec<_>>>()
    {
        Ok(k) => k,
        Err(e) => return Ok(Err(ex.exception_message(e)?)),
    };
    let mut tools = Vec::with_capacity(keys.len());
    for key in keys {
        let entry: Value = match obj.get(key.as_str()) {
            Ok(v) => v,
            Err(e) => return Ok(Err(ex.exception_message(e)?)),
        };
        let mut hooks = Vec::new();
        if let Some(entry) = entry.as_object() {
            let names: Vec<String> = match entry
                .own_keys::<String>(Filter::default())
                .collect::<rquickjs::Result<Vec<_>>>()
            {
                Ok(k) => k,
                Err(e) => return Ok(Err(ex.exception_message(e)?)),
            };
            for name in names {
                match entry.get::<_, Value>(name.as_str()) {
                    Ok(v) if v.is_function() => hooks.push(name),
                    Ok(_) => {}
                    Err(e) => return Ok(Err(ex.exception_message(e)?)),
                }
            }
        }
        tools.push((key, hooks));
    }
    Ok(Ok(tools))
}

/// Freezes `root` and every object and array reachable from it (iteratively). Each object is
/// frozen before its children are visited, and frozen objects are not entered, so shared or cyclic
/// data ends the walk instead of looping (shared data is parsed JSON, a tree, anyway).
pub(crate) fn deep_freeze<'js>(
    intrinsics: &Intrinsics<'js>,
    root: Value<'js>,
) -> rquickjs::Result<()> {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        let Some(obj) = v.as_object() else { continue };
        let frozen: bool = intrinsics.is_frozen.call((obj.clone(),))?;
        if frozen {
            continue;
        }
        let _: Value = intrinsics.freeze.call((obj.clone(),))?;
        for item in obj.own_props::<Atom, Value>(Filter::default()) {
            let (_, child) = item?;
            if child.is_object() {
                stack.push(child);
            }
        }
    }
    Ok(())
}

/// Parses JSON `text` with the engine's own parser and deep-freezes the result.
pub(crate) fn frozen_json<'js>(
    ctx: &Ctx<'js>,
    intrinsics: &Intrinsics<'js>,
    text: &str,
) -> rquickjs::Result<Value<'js>> {
    let value = ctx.json_parse(text)?;
    deep_freeze(intrinsics, value.clone())?;
    Ok(value)
}

/// The frozen `{ sharedLists, libraries }` argument of a `handlers` factory.
pub(crate) fn factory_arg<'js>(
    ctx: &Ctx<'js>,
    intrinsics: &Intrinsics<'js>,
    shared_lists: Value<'js>,
    libraries: Value<'js>,
) -> rquickjs::Result<Object<'js>> {
    let arg = Object::new(ctx.clone())?;
    arg.set("sharedLists", shared_lists)?;
    arg.set("libraries", libraries)?;
    let _: Value = intrinsics.freeze.call((arg.clone(),))?;
    Ok(arg)
}
