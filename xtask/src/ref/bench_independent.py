#!/usr/bin/env python3
"""A second way to measure ours against the JavaScript reference, independent of the xtask.

`cargo xtask bench reference` is the project's own harness. This script draws the same three
comparisons with its own process handling, so that a ratio does not depend on one harness's
choices: every sample is a fresh process, the sides alternate in each round (reference, ours
cold, ours warm, then the other way round), CPU is user + system time of the child as `wait4`
reports it, and the medians are compared.

- validate: `node bench_ref.mjs validate` against `flowmcp validate --format json`
- load:     `node bench_ref.mjs load` (the core's `Pipeline.load` and a tool descriptor per
            route) against `flowmcp list --json`
- start:    `node bench_ref.mjs serve` (the TypeScript SDK's `McpServer` over stdio) against
            `flowmcp serve`, from process start to the answer of the first `tools/list`; the
            server is killed there and its CPU read from `wait4`

Ours runs with `--profile compat` (real catalogs written for the reference), cold with
`--no-cache` and warm from a cache this script fills once in a scratch HOME.

Usage: bench_independent.py ROUNDS FLOWMCP_BINARY FLOWMCP_CORE_CHECKOUT SCHEMA_DIR

The core checkout needs its dependencies and the SDK installed (see README.md, "Side by side with
the JavaScript reference").
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def usage():
    sys.exit("usage: bench_independent.py ROUNDS FLOWMCP_BINARY FLOWMCP_CORE_CHECKOUT SCHEMA_DIR")


def main():
    if len(sys.argv) != 5 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        usage()
    rounds = int(sys.argv[1])
    binary, core, schemas = (os.path.abspath(a) for a in sys.argv[2:5])
    here = os.path.dirname(os.path.abspath(__file__))
    scratch = tempfile.mkdtemp(prefix="flowmcp-bench-independent-")
    try:
        # The driver resolves the SDK from a node_modules beside it: the core's.
        driver = os.path.join(scratch, "bench_ref.mjs")
        shutil.copy(os.path.join(here, "bench_ref.mjs"), driver)
        os.symlink(os.path.join(core, "node_modules"), os.path.join(scratch, "node_modules"))
        home = os.path.join(scratch, "home")
        os.mkdir(home)
        env = dict(os.environ, HOME=home)
        run(rounds, binary, core, schemas, driver, env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def batch(argv, env):
    """Wall seconds and CPU seconds of one process run to its end, output discarded."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    # Ours exits 1 when a file has errors: a result, not a failure.
    if code not in (0, 1):
        sys.exit(f"{' '.join(argv)} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime


def start(argv, env):
    """Wall seconds from process start to the first tools/list answer, and the CPU seconds the
    server used until then (it is killed at once)."""
    started = time.perf_counter()
    server = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )

    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    def answer():
        while True:
            line = server.stdout.readline()
            if not line:
                sys.exit(f"{' '.join(argv)} closed its output before answering")
            message = json.loads(line)
            if "id" in message:
                return message

    send({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench-independent", "version": "1"}},
    })
    answer()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    listed = answer()
    wall = time.perf_counter() - started
    if "result" not in listed:
        sys.exit(f"{' '.join(argv)}: tools/list failed: {listed}")
    os.kill(server.pid, signal.SIGKILL)
    _, _, usage = os.wait4(server.pid, 0)
    return wall, usage.ru_utime + usage.ru_stime


def run(rounds, binary, core, schemas, driver, env):
    profile = ["--profile", "compat"]
    cases = [
        ("validate", batch, ["node", driver, "validate", core, schemas],
         [binary, "validate", "--format", "json", *profile, schemas]),
        ("load", batch, ["node", driver, "load", core, schemas],
         [binary, "list", "--json", *profile, schemas]),
        ("start", start, ["node", driver, "serve", core, schemas],
         [binary, "serve", schemas, *profile]),
    ]
    # Fill our cache once (untimed), as a warm run finds it.
    batch(cases[0][3], env)
    batch(cases[1][3], env)
    print(f"bench independent: {schemas} ({rounds} rounds, medians; x = reference / ours)")
    for name, measure, reference, ours in cases:
        sides = {"reference": reference, "cold": ours + ["--no-cache"], "warm": ours}
        samples = {side: [] for side in sides}
        for i in range(rounds):
            order = list(sides) if i % 2 == 0 else list(reversed(sides))
            for side in order:
                samples[side].append(measure(sides[side], env)[:2])
        med = {
            side: (statistics.median(s[0] for s in got), statistics.median(s[1] for s in got))
            for side, got in samples.items()
        }
        rw, rc = med["reference"]
        cw, cc = med["cold"]
        ww, wc = med["warm"]
        print(
            f"{name:9} reference wall {rw * 1e3:7.1f} ms cpu {rc * 1e3:7.1f} ms | "
            f"cold wall {cw * 1e3:6.1f} cpu {cc * 1e3:6.1f} (cpu {rc / cc:4.1f}x) | "
            f"warm wall {ww * 1e3:6.1f} cpu {wc * 1e3:6.1f} (wall {rw / ww:4.1f}x)",
            flush=True,
        )


if __name__ == "__main__":
    main()
