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
    const body = opts.body == null ? null : (typeof opts.body === 'string' ? opts.body : Str(opts.body));
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

  const makeHeaders = (pairs) => {
    const m = new MapC();
    for (const [k, v] of pairs) {
      const key = k.toLowerCase();
      const prev = m.get(key);
      m.set(key, prev === undefined ? v : prev + ', ' + v);
    }
    const norm = (n) => Str(n).toLowerCase();
    const headers = {
      get(name) { const v = m.get(norm(name)); return v === undefined ? null : v; },
      has(name) { return m.has(norm(name)); },
      forEach(cb, thisArg) { m.forEach((v, k) => { apply(cb, thisArg, [v, k, headers]); }); },
      entries() { return m.entries(); },
      keys() { return m.keys(); },
      values() { return m.values(); },
      [Symbol.iterator]() { return m.entries(); },
    };
    return headers;
  };
  const makeResponse = (status, statusText, pairs, text, url) => {
    const response = {
      ok: status >= 200 && status <= 299,
      status, statusText, url,
      headers: makeHeaders(pairs),
      redirected: false, type: 'basic', bodyUsed: false,
      text() { return resolve(text); },
      json() { try { return resolve(parse(text)); } catch (e) { return reject(e); } },
      clone() { return makeResponse(status, statusText, pairs, text, url); },
    };
    return response;
  };
  const makeError = (name, message) => new (errors[name] || ErrorC)(message);
  return [makeResponse, makeError, apply, resolve];
})
