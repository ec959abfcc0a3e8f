// Silent console for load time: accepts every call and prints nothing (module bodies written for
// Node may log). Run by crate::eval in each fresh sandbox before the module is evaluated. It must
// never write anywhere, reach the host or touch secrets.
(() => { const n = () => undefined; globalThis.console = Object.freeze({ log: n, info: n, warn: n, error: n, debug: n, trace: n }); })();
