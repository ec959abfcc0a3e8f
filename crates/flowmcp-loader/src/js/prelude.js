// Handler sandbox prelude: installs console (to the host's log), the compat fetch shim (only
// builds the request; the host decides and performs it) and, with `timers`, the timer globals;
// returns the host's helpers [makeResponse, makeError, apply, resolve]. Evaluated by
// HandlerHost::load (host.rs, install_prelude) once per sandbox, before any untrusted code, so it
// captures the original built-ins. It must never see or fill secrets ({{SERVER_PARAM:...}}
// placeholders pass through; the Rust bridge fills them), log argument values, or do I/O itself.
(function (hostFetch, hostLog, hostSetTimeout, hostClearTimeout, timers) {
  'use strict';
  const G = globalThis;
  const keys = Object.keys, defineProperty = Object.defineProperty, isArray = Array.isArray;
  const Str = String, parse = JSON.parse, stringify = JSON.stringify;
  const P = Promise, resolve = P.resolve.bind(P), reject = P.reject.bind(P);
  const MapC = Map, ErrorC = Error;
  const apply = Function.prototype.call.bind(Function.prototype.apply);
  const errors = { TypeError, SyntaxError, RangeError, Error };
  const define = (name, value) => defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[Function' + (v.name ? ': ' + v.name : '') + ']';
    if (typeof v === 'symbol' || typeof v === 'bigint') return Str(v);
    try { if (v instanceof ErrorC) return Str(v.name) + ': ' + Str(v.message); } catch (_) {}
    try { const s = stringify(v); if (s !== undefined) return s; } catch (_) {}
    try { return Str(v); } catch (_) { return '[unprintable]'; }
  };
  const logger = (level) => function (...args) {
    let out = '';
    for (let i = 0; i < args.length; i++) { if (i) out += ' '; out += show(args[i]); }
    hostLog(level, out);
  };
  define('console', {
    log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'),
    debug: logger('debug'), trace: logger('debug'),
  });

  // UTF-8 for byte bodies (npm libraries send Uint8Array bodies and read arrayBuffer()), and
  // TextEncoder/TextDecoder on top of it. Typed arrays exist only in sandboxes that load libraries.
  const Bytes = typeof Uint8Array === 'function' ? Uint8Array : null;
  const AB = typeof ArrayBuffer === 'function' ? ArrayBuffer : null;
  const isBytes = (v) => Bytes !== null && v !== null && typeof v === 'object' &&
    (v instanceof AB || AB.isView(v));
  const utf8Decode = (v) => {
    const b = v instanceof AB ? new Bytes(v) : new Bytes(v.buffer, v.byteOffset, v.byteLength);
    let out = '';
    for (let i = 0; i < b.length;) {
      const c = b[i];
      let cp = 0xfffd, n = 1;
      if (c < 0x80) { cp = c; }
      else if (c >= 0xc2 && c < 0xe0 && i + 1 < b.length && (b[i + 1] & 0xc0) === 0x80) { cp = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f); n = 2; }
      else if (c >= 0xe0 && c < 0xf0 && i + 2 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80) {
        const x = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
        if (x >= 0x800 && (x < 0xd800 || x > 0xdfff)) { cp = x; n = 3; }
      } else if (c >= 0xf0 && c < 0xf5 && i + 3 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80) {
        const x = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
        if (x >= 0x10000 && x <= 0x10ffff) { cp = x; n = 4; }
      }
      out += String.fromCodePoint(cp);
      i += n;
    }
    return out;
  };
  const utf8Encode = (text) => {
    const s = Str(text), out = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.codePointAt(i);
      if (c > 0xffff) i++;
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    }
    return new Bytes(out);
  };
  if (Bytes !== null) {
    define('TextEncoder', class TextEncoder {
      get encoding() { return 'utf-8'; }
      encode(text) { return utf8Encode(text === undefined ? '' : text); }
    });
    define('TextDecoder', class TextDecoder {
      get encoding() { return 'utf-8'; }
      decode(bytes) { return bytes === undefined ? '' : utf8Decode(bytes); }
    });
  }

  // Headers (case-insensitive, repeated names joined with ", ") and a signal-only AbortController:
  // a request once handed to the host is not cancelled, but abort() is recorded and listeners run.
  const HEADER_MAP = Symbol('headers');
  class Headers {
    constructor(init) {
      this[HEADER_MAP] = new MapC();
      if (init == null) return;
      if (isArray(init)) { for (const pair of init) this.append(pair[0], pair[1]); }
      else if (typeof init.forEach === 'function' && typeof init.get === 'function') { init.forEach((v, k) => { this.append(k, v); }); }
      else { for (const k of keys(init)) this.append(k, init[k]); }
    }
    append(name, value) {
      const m = this[HEADER_MAP], key = Str(name).toLowerCase(), prev = m.get(key);
      m.set(key, prev === undefined ? Str(value) : prev + ', ' + Str(value));
    }
    set(name, value) { this[HEADER_MAP].set(Str(name).toLowerCase(), Str(value)); }
    get(name) { const v = this[HEADER_MAP].get(Str(name).toLowerCase()); return v === undefined ? null : v; }
    has(name) { return this[HEADER_MAP].has(Str(name).toLowerCase()); }
    delete(name) { this[HEADER_MAP].delete(Str(name).toLowerCase()); }
    forEach(cb, thisArg) { this[HEADER_MAP].forEach((v, k) => { apply(cb, thisArg, [v, k, this]); }); }
    entries() { return this[HEADER_MAP].entries(); }
    keys() { return this[HEADER_MAP].keys(); }
    values() { return this[HEADER_MAP].values(); }
    [Symbol.iterator]() { return this[HEADER_MAP].entries(); }
  }
  define('Headers', Headers);
  const LISTENERS = Symbol('listeners');
  class AbortSignal {
    constructor() { this.aborted = false; this.reason = undefined; this.onabort = null; this[LISTENERS] = []; }
    addEventListener(type, listener) { if (type === 'abort' && typeof listener === 'function') this[LISTENERS].push(listener); }
    removeEventListener(type, listener) { this[LISTENERS] = this[LISTENERS].filter((l) => l !== listener); }
    throwIfAborted() { if (this.aborted) throw this.reason; }
  }
  define('AbortSignal', AbortSignal);
  define('AbortController', class AbortController {
    constructor() { this.signal = new AbortSignal(); }
    abort(reason) {
      const s = this.signal;
      if (s.aborted) return;
      s.aborted = true;
      s.reason = reason === undefined ? new ErrorC('This operation was aborted') : reason;
      const event = { type: 'abort', target: s };
      if (typeof s.onabort === 'function') { try { apply(s.onabort, s, [event]); } catch (_) {} }
      for (const l of s[LISTENERS]) { try { apply(l, s, [event]); } catch (_) {} }
    }
  });

  // structuredClone for plain data: objects, arrays, Date, RegExp, Map, Set, typed arrays and
  // ArrayBuffer, with shared references and cycles kept; functions and symbols cannot be cloned.
  define('structuredClone', function structuredClone(value) {
    const seen = new MapC();
    const clone = (v) => {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
        if (typeof v === 'symbol') throw new TypeError('structuredClone: a symbol cannot be cloned');
        return v;
      }
      if (typeof v === 'function') throw new TypeError('structuredClone: a function cannot be cloned');
      if (seen.has(v)) return seen.get(v);
      let out;
      if (isArray(v)) { out = []; seen.set(v, out); for (let i = 0; i < v.length; i++) out[i] = clone(v[i]); return out; }
      if (v instanceof Date) { out = new Date(v.getTime()); seen.set(v, out); return out; }
      if (v instanceof RegExp) { out = new RegExp(v.source, v.flags); seen.set(v, out); return out; }
      if (v instanceof MapC) { out = new MapC(); seen.set(v, out); v.forEach((x, k) => { out.set(clone(k), clone(x)); }); return out; }
      if (v instanceof Set) { out = new Set(); seen.set(v, out); v.forEach((x) => { out.add(clone(x)); }); return out; }
      if (AB !== null && v instanceof AB) { out = v.slice(0); seen.set(v, out); return out; }
      if (AB !== null && AB.isView(v)) { out = new v.constructor(v); seen.set(v, out); return out; }
      if (v instanceof ErrorC) { out = new ErrorC(v.message); seen.set(v, out); return out; }
      out = {}; seen.set(v, out);
      for (const k of keys(v)) out[k] = clone(v[k]);
      return out;
    };
    return clone(value);
  });

  define('fetch', function fetch(resource, init) {
    const url = typeof resource === 'string' ? resource
      : (resource !== null && typeof resource === 'object' && typeof resource.url === 'string') ? resource.url
      : Str(resource);
    const opts = init == null ? {} : init;
    const method = opts.method == null ? 'GET' : Str(opts.method).toUpperCase();
    const headers = [];
    const h = opts.headers;
    if (h != null) {
      if (isArray(h)) {
        for (const pair of h) headers.push([Str(pair[0]), Str(pair[1])]);
      } else if (typeof h.forEach === 'function' && typeof h.get === 'function') {
        h.forEach((v, k) => { headers.push([Str(k), Str(v)]); });
      } else {
        for (const k of keys(h)) { const v = h[k]; if (v !== undefined) headers.push([k, Str(v)]); }
      }
    }
    const b = opts.body;
    const body = b == null ? null : typeof b === 'string' ? b : isBytes(b) ? utf8Decode(b) : Str(b);
    return hostFetch(url, method, headers, body);
  });

  if (timers) {
    const setTimeout = function setTimeout(callback, ms, ...args) {
      if (typeof callback !== 'function') throw new TypeError('setTimeout: the callback is not a function');
      return hostSetTimeout(callback, +ms, args);
    };
    const clearTimeout = function clearTimeout(id) { if (typeof id === 'number') hostClearTimeout(id); };
    define('setTimeout', setTimeout);
    define('clearTimeout', clearTimeout);
    define('setInterval', function setInterval(callback, ms, ...args) {
      if (typeof callback !== 'function') throw new TypeError('setInterval: the callback is not a function');
      return hostSetTimeout(callback, +ms, args);
    });
    define('clearInterval', clearTimeout);
  }

  const makeHeaders = (pairs) => new Headers(pairs);
  const makeResponse = (status, statusText, pairs, text, url) => {
    const response = {
      ok: status >= 200 && status <= 299,
      status, statusText, url,
      headers: makeHeaders(pairs),
      redirected: false, type: 'basic', bodyUsed: false,
      text() { return resolve(text); },
      json() { try { return resolve(parse(text)); } catch (e) { return reject(e); } },
      arrayBuffer() {
        if (Bytes === null) return reject(new TypeError('arrayBuffer: binary data is not available in this sandbox'));
        return resolve(utf8Encode(text).buffer);
      },
      clone() { return makeResponse(status, statusText, pairs, text, url); },
    };
    return response;
  };
  const makeError = (name, message) => new (errors[name] || ErrorC)(message);
  return [makeResponse, makeError, apply, resolve];
})
