// Library environment of a handler sandbox: the CommonJS loader and the few browser/Node globals
// npm libraries look for at load time. Evaluated by modules.rs (install) once per sandbox that
// loads libraries, before any library code. Resolution and file reading happen in Rust
// (hostResolve, hostCompile), confined to the library directory; this file only keeps the module
// cache and the CommonJS calling convention. It never sees secrets or the user's file paths
// (module names are relative to the library directory).
(function (hostResolve, hostCompile) {
  'use strict';
  const G = globalThis;
  const defineProperty = Object.defineProperty, freeze = Object.freeze;
  const MapC = Map, ErrorC = Error, Str = String;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const define = (name, value) => defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });

  // Libraries find the global object under one of these names (ethers throws without one).
  if (G.self === undefined) define('self', G);
  if (G.global === undefined) define('global', G);
  // Browser bundles of Node packages read process.env.NODE_ENV; nothing else of process exists.
  if (G.process === undefined) {
    define('process', freeze({
      env: freeze({ NODE_ENV: 'production' }),
      browser: true,
      version: '',
      versions: freeze({}),
      platform: 'browser',
    }));
  }

  const cache = new MapC();
  const dirname = (name) => { const i = name.lastIndexOf('/'); return i > 0 ? name.slice(0, i) : '/'; };

  function makeRequire(from) {
    const require = function require(specifier) {
      const found = hostResolve(Str(specifier), from);
      return load(found[0], found[1]);
    };
    require.resolve = function resolve(specifier) { return hostResolve(Str(specifier), from)[0]; };
    require.cache = {};
    return require;
  }

  function load(name, format) {
    const hit = cache.get(name);
    if (hit !== undefined) return hit.exports;
    if (format === 'empty') { const m = { exports: {} }; cache.set(name, m); return m.exports; }
    if (format === 'json') { const m = { exports: hostCompile(name) }; cache.set(name, m); return m.exports; }
    if (format === 'esm') throw new ErrorC('require() of the ES module ' + name + ' is not supported in the sandbox');
    const module = { exports: {}, id: name, filename: name, loaded: false, children: [], paths: [] };
    cache.set(name, module);
    const body = hostCompile(name);
    try {
      call(body, module.exports, module.exports, makeRequire(name), module, name, dirname(name));
    } catch (e) {
      cache.delete(name);
      throw e;
    }
    module.loaded = true;
    return module.exports;
  }
  return load;
})
