// Timers for load time under profile compat (crate::eval, issue #31 item 5): the globals the handler
// host's prelude installs (setTimeout, clearTimeout, a run-once setInterval, clearInterval) with
// its caps (at most `maxPending` pending timers, a delay counted up to `maxDelay` ms), but nothing
// ever waits: crate::eval runs pending timers in order of their due time on a clock of their own,
// only while the module's own promise (top-level await) is pending, and discards the rest when it
// settles. crate::eval evaluates this only when the module first reads one of the four globals
// (until then they are accessors of its own), and puts the function read in place of the accessor.
// Returns the four functions and `next`, which removes and runs the earliest pending timer and says
// whether there was one (an exception of the callback propagates; crate::eval decides). It must
// never write anywhere, reach the host or touch secrets.
(function (maxPending, maxDelay) {
  'use strict';
  const apply = Function.prototype.call.bind(Function.prototype.apply);
  // Pending timers; only indexed access, so that nothing the module changes later is used here.
  const pending = [];
  let count = 0, seq = 0, now = 0;
  const schedule = (name) => function (callback, ms, ...args) {
    if (typeof callback !== 'function') throw new TypeError(name + ': the callback is not a function');
    if (count >= maxPending) throw new RangeError('setTimeout: too many timers pending');
    let delay = +ms;
    if (!(delay > 0)) delay = 0;
    if (delay > maxDelay) delay = maxDelay;
    seq += 1;
    pending[count] = { id: seq, due: now + delay, callback, args };
    count += 1;
    return seq;
  };
  const remove = (i) => {
    const timer = pending[i];
    for (let j = i + 1; j < count; j++) pending[j - 1] = pending[j];
    count -= 1;
    pending[count] = undefined;
    return timer;
  };
  const clear = function clearTimeout(id) {
    if (typeof id !== 'number') return;
    for (let i = 0; i < count; i++) {
      if (pending[i].id === id) { remove(i); return; }
    }
  };
  const next = function next() {
    if (count === 0) return false;
    // Earliest due time; among equals the first scheduled (they are kept in that order).
    let best = 0;
    for (let i = 1; i < count; i++) {
      if (pending[i].due < pending[best].due) best = i;
    }
    const timer = remove(best);
    if (timer.due > now) now = timer.due;
    apply(timer.callback, undefined, timer.args);
    return true;
  };
  return {
    setTimeout: schedule('setTimeout'),
    clearTimeout: clear,
    setInterval: schedule('setInterval'),
    clearInterval: clear,
    next,
  };
})
