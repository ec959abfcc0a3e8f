// The stand-in a handlers factory gets, under profile compat, for a library that cannot be
// loaded (not installed, a native addon, failing to load): any use of it throws the coded
// message (calling it, constructing it, reading a member), so tools that never touch it still
// run. Evaluated by host.rs (load_in) before any library code; the message names the package and
// the reason, never a secret.
(function (message) {
  'use strict';
  const fail = function () { throw new Error(message); };
  return new Proxy(fail, {
    // Reading a member fails too (so `lib.version` cannot quietly become a function); `then`
    // and symbols answer undefined, so the stand-in is not mistaken for a promise or iterable.
    get(_, key) { if (key === 'then' || typeof key === 'symbol') return undefined; return fail(); },
    apply: fail,
    construct: fail,
  });
})
