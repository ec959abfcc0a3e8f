// URL and URLSearchParams: the small WHATWG subset that handlers written for Node use to build
// requests. Run by HandlerHost::load (host.rs, install_prelude) once per handler sandbox, before
// any untrusted code. It only defines these two globals: it must never touch secrets or server
// parameters, reach the host or the network, or trust anything untrusted code could change.
(function () {
  'use strict';
  const G = globalThis, Str = String, isArray = Array.isArray, keys = Object.keys;
  const encode = (s) => encodeURIComponent(Str(s)).replace(/%20/g, '+')
    .replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  const decode = (s) => { const t = Str(s).replace(/\+/g, ' '); try { return decodeURIComponent(t); } catch (_) { return t; } };
  const LIST = Symbol('list');
  class URLSearchParams {
    constructor(init) {
      this[LIST] = [];
      if (init == null) return;
      if (typeof init === 'string') {
        const text = init.charAt(0) === '?' ? init.slice(1) : init;
        for (const part of text.split('&')) {
          if (part === '') continue;
          const i = part.indexOf('=');
          this[LIST].push(i < 0 ? [decode(part), ''] : [decode(part.slice(0, i)), decode(part.slice(i + 1))]);
        }
      } else if (init instanceof URLSearchParams) {
        for (const [k, v] of init[LIST]) this[LIST].push([k, v]);
      } else if (isArray(init) || typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) this[LIST].push([Str(pair[0]), Str(pair[1])]);
      } else if (typeof init === 'object') {
        for (const k of keys(init)) this[LIST].push([k, Str(init[k])]);
      } else {
        return new URLSearchParams(Str(init));
      }
    }
    append(k, v) { this[LIST].push([Str(k), Str(v)]); }
    delete(k) { k = Str(k); this[LIST] = this[LIST].filter((p) => p[0] !== k); }
    get(k) { k = Str(k); const p = this[LIST].find((q) => q[0] === k); return p ? p[1] : null; }
    getAll(k) { k = Str(k); return this[LIST].filter((p) => p[0] === k).map((p) => p[1]); }
    has(k) { k = Str(k); return this[LIST].some((p) => p[0] === k); }
    set(k, v) {
      k = Str(k); v = Str(v);
      const i = this[LIST].findIndex((p) => p[0] === k);
      if (i < 0) { this[LIST].push([k, v]); return; }
      this[LIST][i] = [k, v];
      this[LIST] = this[LIST].filter((p, j) => j <= i || p[0] !== k);
    }
    sort() { this[LIST].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); }
    forEach(cb, thisArg) { for (const [k, v] of this[LIST]) cb.call(thisArg, v, k, this); }
    entries() { return this[LIST].map((p) => [p[0], p[1]])[Symbol.iterator](); }
    keys() { return this[LIST].map((p) => p[0])[Symbol.iterator](); }
    values() { return this[LIST].map((p) => p[1])[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    get size() { return this[LIST].length; }
    toString() { return this[LIST].map((p) => encode(p[0]) + '=' + encode(p[1])).join('&'); }
  }
  const dots = (path) => {
    const segs = path.split('/'), out = [];
    for (let i = 1; i < segs.length; i++) {
      const seg = segs[i], last = i === segs.length - 1;
      if (seg === '..') { out.pop(); if (last) out.push(''); }
      else if (seg === '.') { if (last) out.push(''); }
      else out.push(seg);
    }
    return '/' + out.join('/');
  };
  const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*:)\/\/([^\/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;
  const PARTS = Symbol('parts');
  class URL {
    constructor(url, base) {
      let text = Str(url).trim();
      let m = ABSOLUTE.exec(text);
      if (!m && base !== undefined) {
        const b = new URL(base);
        if (text.startsWith('//')) text = b.protocol + text;
        else if (text.startsWith('/')) text = b.origin + text;
        else if (text.startsWith('?')) text = b.origin + b.pathname + text;
        else if (text.startsWith('#')) text = b.origin + b.pathname + b.search + text;
        else text = b.origin + b.pathname.replace(/[^\/]*$/, '') + text;
        m = ABSOLUTE.exec(text);
      }
      if (!m) throw new TypeError('Invalid URL: ' + Str(url));
      let auth = '', host = m[2];
      const at = host.lastIndexOf('@');
      if (at >= 0) { auth = host.slice(0, at); host = host.slice(at + 1); }
      const colon = host.lastIndexOf(':');
      const hasPort = colon >= 0 && host.indexOf(']', colon) < 0;
      this[PARTS] = {
        protocol: m[1].toLowerCase(),
        username: auth ? auth.split(':')[0] : '',
        password: auth.indexOf(':') >= 0 ? auth.slice(auth.indexOf(':') + 1) : '',
        hostname: (hasPort ? host.slice(0, colon) : host).toLowerCase(),
        port: hasPort ? host.slice(colon + 1) : '',
        pathname: m[3] === '' ? '/' : dots(m[3]),
        hash: m[5] && m[5] !== '#' ? m[5] : '',
      };
      this.searchParams = new URLSearchParams(m[4] && m[4] !== '?' ? m[4] : '');
    }
    get protocol() { return this[PARTS].protocol; }
    set protocol(v) { v = Str(v); this[PARTS].protocol = v.endsWith(':') ? v : v + ':'; }
    get username() { return this[PARTS].username; }
    get password() { return this[PARTS].password; }
    get hostname() { return this[PARTS].hostname; }
    set hostname(v) { this[PARTS].hostname = Str(v); }
    get port() { return this[PARTS].port; }
    set port(v) { this[PARTS].port = Str(v); }
    get host() { const p = this[PARTS]; return p.port ? p.hostname + ':' + p.port : p.hostname; }
    get origin() { return this.protocol + '//' + this.host; }
    get pathname() { return this[PARTS].pathname; }
    set pathname(v) { v = Str(v); this[PARTS].pathname = v.startsWith('/') ? v : '/' + v; }
    get search() { const s = this.searchParams.toString(); return s ? '?' + s : ''; }
    set search(v) { this.searchParams = new URLSearchParams(Str(v)); }
    get hash() { return this[PARTS].hash; }
    set hash(v) { v = Str(v); this[PARTS].hash = v === '' || v === '#' ? '' : (v.startsWith('#') ? v : '#' + v); }
    get href() {
      const p = this[PARTS];
      const auth = p.username ? p.username + (p.password ? ':' + p.password : '') + '@' : '';
      return p.protocol + '//' + auth + this.host + p.pathname + this.search + p.hash;
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  for (const [name, value] of [['URL', URL], ['URLSearchParams', URLSearchParams]]) {
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }
})();
