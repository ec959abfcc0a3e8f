#!/usr/bin/env bash
# Starts a scale-out deployment of `flowmcp serve` on this machine, every part on a loopback port:
# Redis (the replicas' shared preload cache), three replicas, HAProxy in front of them
# (haproxy.cfg) and Prometheus scraping each replica (prometheus.yml). It waits until each part
# answers, prints where each listens and then one line that starts with `scale-out: ready`, and
# runs until SIGINT or SIGTERM (Ctrl-C); then it stops everything it started: the replicas drain
# (SIGTERM), HAProxy stops softly (SIGUSR1), and what is still running after
# SCALE_OUT_STOP_TIMEOUT seconds is killed. A part that dies meanwhile is reported on stderr and
# not restarted. See README.md here.
#
# Usage: examples/scale-out/run.sh [SERVE-OPTION]...
#   The options are passed to every replica's `flowmcp serve`, e.g.
#   --upstream holidaykit-net=http://127.0.0.1:8080 or --log-level warn.
#
# Environment [default]:
#   FLOWMCP                     the flowmcp binary [flowmcp]
#   SCALE_OUT_CATALOG           the catalog the replicas serve [examples/catalog of this repository]
#   SCALE_OUT_BALANCER_PORT     HAProxy's port: clients POST to http://127.0.0.1:PORT/mcp [8780]
#   SCALE_OUT_REPLICA_PORTS     the three replicas' ports, separated by spaces [8781 8782 8783]
#   SCALE_OUT_REDIS_PORT        Redis' port [6380]
#   SCALE_OUT_PROMETHEUS_PORT   Prometheus' port (its UI and HTTP API) [9095]
#   SCALE_OUT_SCRAPE_INTERVAL   how often Prometheus scrapes each replica [5s]
#   SCALE_OUT_DIR               where logs (NAME.log), pid files (NAME.pid), HAProxy's runtime API
#                               socket (haproxy.sock), Prometheus' data and Redis' working
#                               directory go; kept at exit [a new temporary directory, removed at
#                               exit unless SCALE_OUT_KEEP=1]
#   SCALE_OUT_STOP_TIMEOUT      seconds the parts get to stop before they are killed [40]
#   SCALE_OUT_START_TIMEOUT     seconds each part gets to start answering [60]
#
# Needs bash, and redis-server, haproxy and prometheus from Debian's packages
# (`apt-get install redis-server haproxy prometheus`); /usr/sbin is searched too.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
flowmcp="${FLOWMCP:-flowmcp}"
catalog="${SCALE_OUT_CATALOG:-$(dirname "$here")/catalog}"
balancer_port="${SCALE_OUT_BALANCER_PORT:-8780}"
read -r -a replica_ports <<<"${SCALE_OUT_REPLICA_PORTS:-8781 8782 8783}"
redis_port="${SCALE_OUT_REDIS_PORT:-6380}"
prometheus_port="${SCALE_OUT_PROMETHEUS_PORT:-9095}"
scrape_interval="${SCALE_OUT_SCRAPE_INTERVAL:-5s}"
stop_timeout="${SCALE_OUT_STOP_TIMEOUT:-40}"
start_timeout="${SCALE_OUT_START_TIMEOUT:-60}"

say() { printf 'scale-out: %s\n' "$*"; }
fail() {
  printf 'scale-out: error: %s\n' "$*" >&2
  exit 1
}

# A program of a Debian package: on PATH, or in an sbin directory that a user's PATH lacks.
tool() {
  local d
  if command -v "$1" 2>/dev/null; then return 0; fi
  for d in /usr/sbin /sbin /usr/local/sbin; do
    if [ -x "$d/$1" ]; then
      printf '%s\n' "$d/$1"
      return 0
    fi
  done
  fail "$1 is not installed (Debian: apt-get install -y $2)"
}

[ "${#replica_ports[@]}" = 3 ] ||
  fail "SCALE_OUT_REPLICA_PORTS must name three ports (haproxy.cfg has three servers)"
[[ $scrape_interval =~ ^[0-9]+(ms|s|m)$ ]] ||
  fail "SCALE_OUT_SCRAPE_INTERVAL must look like 5s, 500ms or 1m"
command -v "$flowmcp" >/dev/null ||
  fail "$flowmcp not found (install flowmcp, or set FLOWMCP to the binary)"
[ -e "$catalog" ] || fail "no catalog at $catalog (set SCALE_OUT_CATALOG)"
redis_server="$(tool redis-server redis-server)"
haproxy="$(tool haproxy haproxy)"
prometheus="$(tool prometheus prometheus)"

# The HTTP status of `GET PATH` on a loopback port (000 when nothing answers), with bash's own
# /dev/tcp, so that no HTTP client needs to be installed.
http_status() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$2" "$1" >&3
    IFS=' ' read -r -t 5 _ code _ <&3
    printf '%s\n' "$code"
  ) 2>/dev/null || echo 000
}
http_ok() { [ "$(http_status "$1" "$2")" = 200 ]; }
redis_ok() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    printf 'PING\r\n' >&3
    IFS= read -r -t 5 line <&3
    [[ $line == +PONG* ]]
  ) 2>/dev/null
}
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

for port in "$balancer_port" "${replica_ports[@]}" "$redis_port" "$prometheus_port"; do
  [[ $port =~ ^[0-9]+$ ]] || fail "not a port: $port"
  if port_in_use "$port"; then fail "port $port is in use (choose others with SCALE_OUT_*_PORT)"; fi
done

made_dir=""
if [ -n "${SCALE_OUT_DIR:-}" ]; then
  dir="$SCALE_OUT_DIR"
  mkdir -p "$dir"
else
  dir="$(mktemp -d "${TMPDIR:-/tmp}/flowmcp-scale-out.XXXXXX")"
  made_dir="$dir"
fi
dir="$(cd "$dir" && pwd)"

# What this script started, in order: names and process ids.
names=()
pids=()
stopping=0

alive() { kill -0 "$1" 2>/dev/null; }

# Waits until none of the given process ids is alive, at most $1 seconds; 1 when some still are.
wait_gone() {
  local limit=$1 pid left
  shift
  local deadline=$((SECONDS + limit))
  while :; do
    left=0
    for pid in "$@"; do
      if alive "$pid"; then left=1; fi
    done
    [ "$left" = 0 ] && return 0
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}

# Stops everything started, in two steps: the replicas, HAProxy and Prometheus first (so that the
# replicas' draining calls still have the cache), then Redis; SIGKILL for what outlives the
# timeout.
stop_all() {
  [ "$stopping" = 1 ] && return 0
  stopping=1
  trap '' INT TERM
  local i first=() last=()
  for i in "${!pids[@]}"; do
    alive "${pids[i]}" || continue
    case "${names[i]}" in
      redis) last+=("${pids[i]}") ;;
      haproxy) kill -USR1 "${pids[i]}" 2>/dev/null && first+=("${pids[i]}") ;;
      *) kill -TERM "${pids[i]}" 2>/dev/null && first+=("${pids[i]}") ;;
    esac
  done
  if [ "${#first[@]}" -gt 0 ] && ! wait_gone "$stop_timeout" "${first[@]}"; then
    say "killing what did not stop within ${stop_timeout}s" >&2
    kill -KILL "${first[@]}" 2>/dev/null || true
  fi
  if [ "${#last[@]}" -gt 0 ]; then
    kill -TERM "${last[@]}" 2>/dev/null || true
    wait_gone "$stop_timeout" "${last[@]}" || kill -KILL "${last[@]}" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  for i in "${!names[@]}"; do rm -f "$dir/${names[i]}.pid"; done
  if [ -n "$made_dir" ] && [ "${SCALE_OUT_KEEP:-0}" != 1 ]; then
    rm -rf "$made_dir"
  else
    say "stopped; logs are in $dir" >&2
  fi
}
trap 'stop_all' EXIT
trap 'stop_all; exit 0' INT TERM

# Starts NAME as `COMMAND...` in the background, its output in NAME.log, its id in NAME.pid.
start() {
  local name=$1
  shift
  "$@" </dev/null >"$dir/$name.log" 2>&1 &
  names+=("$name")
  pids+=("$!")
  printf '%s\n' "$!" >"$dir/$name.pid"
}

# Waits until `CHECK...` succeeds for the part NAME with process id PID.
await() {
  local name=$1 pid=$2
  shift 2
  local deadline=$((SECONDS + start_timeout))
  until "$@"; do
    if ! alive "$pid"; then
      tail -n 20 "$dir/$name.log" >&2 || true
      fail "$name exited while starting (its log: $dir/$name.log)"
    fi
    [ "$SECONDS" -lt "$deadline" ] ||
      fail "$name did not answer within ${start_timeout}s (its log: $dir/$name.log)"
    sleep 0.1
  done
}

pid_of() { cat "$dir/$1.pid"; }

mkdir -p "$dir/redis"
start redis "$redis_server" --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no \
  --daemonize no --dir "$dir/redis"
await redis "$(pid_of redis)" redis_ok "$redis_port"
cache="redis://127.0.0.1:$redis_port/0"
say "redis       $cache (pid $(pid_of redis))"
# The key every replica binds cache entries to server-parameter values with: one per deployment,
# the same for all its replicas (yours, if you set it).
if [ -z "${FLOWMCP_CACHE_KEY:-}" ]; then
  FLOWMCP_CACHE_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
fi
export FLOWMCP_CACHE_KEY

# JSON logs with one line per call, unless the options given say otherwise (`flowmcp serve`
# takes each option once).
log_options=()
case " $* " in *" --log-format"*) ;; *) log_options+=(--log-format json) ;; esac
case " $* " in *" --log-level"*) ;; *) log_options+=(--log-level info) ;; esac
# After SIGTERM a replica keeps answering (503, /readyz unready) for 3 s even when idle: longer
# than HAProxy's health check needs to take it out (1 s x 2), so no request meets a closed port.
case " $* " in *" --drain-min"*) ;; *) log_options+=(--drain-min 3) ;; esac
# Every request reaches a replica through HAProxy, which marks it with X-Forwarded-For; a replica
# without a token refuses forwarded requests unless --no-auth says that is meant. Here the
# balancer listens on loopback only, so only this machine reaches the tools, as with one replica
# on loopback; pass --auth-token (it still applies) before anyone else can reach the balancer.
# Every connection comes from HAProxy's address: it may hold all of a replica's connections.
case " $* " in *" --no-auth"* | *" --auth-token"* | *" --oauth-issuer"*) ;; *) log_options+=(--no-auth) ;; esac
case " $* " in *" --max-connections-per-client"*) ;; *) log_options+=(--max-connections-per-client 512) ;; esac
replicas=()
for i in 1 2 3; do
  port="${replica_ports[i - 1]}"
  replicas+=("127.0.0.1:$port")
  start "replica$i" "$flowmcp" serve "$catalog" --transport http --listen "127.0.0.1:$port" \
    --cache "$cache" "${log_options[@]}" "$@"
done
for i in 1 2 3; do
  port="${replica_ports[i - 1]}"
  await "replica$i" "$(pid_of "replica$i")" http_ok "$port" /readyz
  say "replica$i    http://127.0.0.1:$port (pid $(pid_of "replica$i")): /mcp, /readyz, /metrics"
done

export SCALE_OUT_BALANCER_ADDR="127.0.0.1:$balancer_port"
export SCALE_OUT_REPLICA1_ADDR="${replicas[0]}"
export SCALE_OUT_REPLICA2_ADDR="${replicas[1]}"
export SCALE_OUT_REPLICA3_ADDR="${replicas[2]}"
export SCALE_OUT_HAPROXY_SOCKET="$dir/haproxy.sock"
start haproxy "$haproxy" -db -f "$here/haproxy.cfg"
await haproxy "$(pid_of haproxy)" http_ok "$balancer_port" /readyz
say "balancer    http://127.0.0.1:$balancer_port/mcp (HAProxy, pid $(pid_of haproxy);" \
  "runtime API: $dir/haproxy.sock)"

sed "s/^  scrape_interval: .*/  scrape_interval: $scrape_interval/" "$here/prometheus.yml" \
  >"$dir/prometheus.yml"
{
  printf '['
  for i in 1 2 3; do
    [ "$i" = 1 ] || printf ','
    printf '\n  {"targets": ["%s"], "labels": {"replica": "replica%s"}}' "${replicas[i - 1]}" "$i"
  done
  printf '\n]\n'
} >"$dir/replicas.json"
start prometheus "$prometheus" --config.file="$dir/prometheus.yml" \
  --storage.tsdb.path="$dir/prometheus-data" --web.listen-address="127.0.0.1:$prometheus_port" \
  --log.level=warn
await prometheus "$(pid_of prometheus)" http_ok "$prometheus_port" /-/ready
say "prometheus  http://127.0.0.1:$prometheus_port (pid $(pid_of prometheus))," \
  "scraping every $scrape_interval"
say "logs and pid files in $dir; Ctrl-C stops everything"

replica_pids="$(pid_of replica1),$(pid_of replica2),$(pid_of replica3)"
say "ready balancer=http://127.0.0.1:$balancer_port/mcp replicas=$(
  IFS=,
  echo "${replicas[*]}"
) replica-pids=$replica_pids prometheus=http://127.0.0.1:$prometheus_port redis=$cache dir=$dir"

# Runs until a signal comes; says when a part dies (nothing restarts it: HAProxy routes around a
# replica that is gone).
reported=()
while :; do
  for i in "${!pids[@]}"; do
    if [ -z "${reported[i]:-}" ] && ! alive "${pids[i]}"; then
      reported[i]=1
      say "${names[i]} (pid ${pids[i]}) exited; see $dir/${names[i]}.log" >&2
    fi
  done
  sleep 1 &
  wait $! || true
done
