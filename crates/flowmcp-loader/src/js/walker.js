// Installed before any untrusted module runs. Captures the built-ins it needs so that a module that
// replaces Object.keys, Array.isArray, JSON.stringify … afterwards cannot change how its exports are read.
// Defines one global, __flowmcpExtract(value) -> { json, problems: [[path, kind, detail]] }, which copies
// `value` into plain JSON data and lists every place that would not survive a JSON round trip.
(() => {
    const G = globalThis;
    const apply = Reflect.apply;
    const ownKeys = Reflect.ownKeys;
    const getDesc = Reflect.getOwnPropertyDescriptor;
    const getProto = Reflect.getPrototypeOf;
    const isArray = Array.isArray;
    const stringify = JSON.stringify;
    const isFinite = Number.isFinite;
    const ObjectProto = Object.prototype;
    const ArrayProto = Array.prototype;
    const toStr = ObjectProto.toString;
    const defineProperty = Reflect.defineProperty;
    const freeze = Object.freeze;
    const typeOf = (v) => typeof v;
    const hasOwn = Object.hasOwn;
    const arraySlice = ArrayProto.slice;
    const strSlice = String.prototype.slice;

    function describe(v) {
        try {
            const tag = apply(toStr, v, []);
            return apply(strSlice, tag, [8, -1]);
        } catch (_) {
            return 'object';
        }
    }

    function extract(root) {
        const problems = [];
        const stack = [];
        const report = (path, kind, detail) => {
            problems[problems.length] = [apply(arraySlice, path, []), kind, detail];
        };
        function walk(v, path) {
            const t = typeOf(v);
            if (v === null || t === 'string' || t === 'boolean') return v;
            if (t === 'number') {
                if (!isFinite(v)) { report(path, 'number', String(v)); return null; }
                return v;
            }
            if (t === 'undefined') { report(path, 'undefined', ''); return null; }
            if (t === 'function') { report(path, 'function', ''); return null; }
            if (t === 'symbol') { report(path, 'symbol', ''); return null; }
            if (t === 'bigint') { report(path, 'bigint', ''); return null; }
            if (t !== 'object') { report(path, t, ''); return null; }
            for (let i = 0; i < stack.length; i++) {
                if (stack[i] === v) { report(path, 'cycle', ''); return null; }
            }
            const arr = isArray(v);
            const proto = getProto(v);
            if (!arr && proto !== ObjectProto && proto !== null) {
                report(path, 'non-plain', describe(v));
                return null;
            }
            if (arr && proto !== ArrayProto) {
                report(path, 'non-plain', describe(v));
                return null;
            }
            stack[stack.length] = v;
            let out;
            if (arr) {
                out = [];
                const n = v.length;
                for (let i = 0; i < n; i++) {
                    path[path.length] = i;
                    const d = getDesc(v, i);
                    let item;
                    if (d === undefined) {
                        report(path, 'undefined', 'hole');
                        item = null;
                    } else if (hasOwn(d, 'get') || hasOwn(d, 'set')) {
                        item = readAccessor(v, i, d, path);
                    } else {
                        item = walk(d.value, path);
                    }
                    out[i] = item;
                    path.length = path.length - 1;
                }
            } else {
                out = {};
                const keys = ownKeys(v);
                for (let k = 0; k < keys.length; k++) {
                    const key = keys[k];
                    const d = getDesc(v, key);
                    if (d === undefined || !d.enumerable) continue;
                    if (typeOf(key) === 'symbol') {
                        path[path.length] = String(key);
                        report(path, 'symbol-key', '');
                        path.length = path.length - 1;
                        continue;
                    }
                    path[path.length] = key;
                    let item;
                    if (hasOwn(d, 'get') || hasOwn(d, 'set')) {
                        item = readAccessor(v, key, d, path);
                    } else {
                        item = walk(d.value, path);
                    }
                    defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
                    path.length = path.length - 1;
                }
            }
            stack.length = stack.length - 1;
            return out;
        }
        function readAccessor(obj, key, d, path) {
            if (d.get === undefined) { report(path, 'undefined', 'setter without getter'); return null; }
            let value;
            try {
                value = apply(d.get, obj, []);
            } catch (e) {
                let msg = '';
                try { msg = String(e && e.message !== undefined ? e.message : e); } catch (_) { msg = 'exception'; }
                report(path, 'getter-threw', msg);
                return null;
            }
            return walk(value, path);
        }
        const copy = walk(root, []);
        return { json: stringify(copy), problems };
    }
    // Calls a `handlers` factory with empty shared lists and libraries and describes what it returned:
    // { ok: true, tools: [[toolName, [hookName…]]…], other: [key…] } or { ok: false, error: message }.
    function handlerShape(factory) {
        let made;
        try {
            made = apply(factory, undefined, [freeze({ sharedLists: freeze({}), libraries: freeze({}) })]);
        } catch (e) {
            let msg = '';
            try { msg = String(e && e.message !== undefined ? e.message : e); } catch (_) { msg = 'exception'; }
            return { ok: false, error: msg };
        }
        if (made === null || typeOf(made) !== 'object' || isArray(made)) {
            return { ok: false, error: 'the factory returned ' + (made === null ? 'null' : isArray(made) ? 'an array' : typeOf(made)) + ', not an object' };
        }
        const tools = [];
        const keys = ownKeys(made);
        for (let k = 0; k < keys.length; k++) {
            const key = keys[k];
            if (typeOf(key) !== 'string') continue;
            const d = getDesc(made, key);
            if (d === undefined || !d.enumerable || !hasOwn(d, 'value')) { tools[tools.length] = [key, []]; continue; }
            const entry = d.value;
            const hooks = [];
            if (entry !== null && typeOf(entry) === 'object') {
                const hk = ownKeys(entry);
                for (let h = 0; h < hk.length; h++) {
                    const hd = getDesc(entry, hk[h]);
                    if (typeOf(hk[h]) === 'string' && hd !== undefined && hasOwn(hd, 'value') && typeOf(hd.value) === 'function') {
                        hooks[hooks.length] = hk[h];
                    }
                }
            }
            tools[tools.length] = [key, hooks];
        }
        return { ok: true, tools };
    }
    freeze(handlerShape);
    defineProperty(G, '__flowmcpHandlerShape', { value: (f) => stringify(handlerShape(f)), enumerable: false, writable: false, configurable: false });
    freeze(extract);
    defineProperty(G, '__flowmcpExtract', { value: extract, enumerable: false, writable: false, configurable: false });

    // A console that accepts everything and prints nothing: module bodies written for Node may log.
    const noop = () => undefined;
    const con = { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop };
    defineProperty(G, 'console', { value: freeze(con), enumerable: false, writable: true, configurable: true });
})();
