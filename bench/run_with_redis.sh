#!/usr/bin/env bash
# Runs a benchmark against a fresh quarryd and a Redis, both on free 127.0.0.1 ports, passing
# it --uri, --redis-port and --server-pid (and --redis-pid when asked), and stops both servers
# (by PID) and removes the data directory on exit. Builds nothing: build the benchmark and
# quarryd first, e.g. bash scripts/build.sh -- --target quarryd index_bench
# Usage: bench/run_with_redis.sh [--pass-redis-pid] BENCH [--build DIR] [BENCH options]
# QUARRYD_ARGS adds options to quarryd's command line, e.g.
#   QUARRYD_ARGS="--setParameter ioThreadPollMicros=0"
set -euo pipefail
cd "$(dirname "$0")/.."

pass_redis_pid=
if [ "${1:-}" = "--pass-redis-pid" ]; then pass_redis_pid=1; shift; fi
name="${1:?usage: bench/run_with_redis.sh [--pass-redis-pid] BENCH [--build DIR] [options]}"
shift
build=build
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
quarryd="$build/src/main/quarryd"
bench="$build/bench/$name"
for binary in "$quarryd" "$bench"; do
  [ -x "$binary" ] || { echo "run_with_redis.sh: $binary is missing; build it first" >&2; exit 1; }
done
command -v redis-server >/dev/null || { echo "run_with_redis.sh: redis-server is not installed" >&2; exit 1; }

source bench/ports.sh

dbpath=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
quarry_pid=
redis_pid=
cleanup() {
  for pid in $quarry_pid $redis_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $quarry_pid $redis_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$dbpath"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

quarry_port=$(free_port)
"$quarryd" --bind_ip 127.0.0.1 --port "$quarry_port" --dbpath "$dbpath/db" --quiet \
  --logpath "$dbpath/quarryd.log" ${QUARRYD_ARGS:-} &
quarry_pid=$!
redis_port=$(free_port)
redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
  --dir "$dbpath" --logfile "$dbpath/redis.log" &
redis_pid=$!

wait_for_port "$quarry_port" "$quarry_pid" || { echo "run_with_redis.sh: quarryd did not start" >&2; cat "$dbpath/quarryd.log" >&2; exit 1; }
wait_for_port "$redis_port" "$redis_pid" || { echo "run_with_redis.sh: redis-server did not start" >&2; exit 1; }
echo "run_with_redis.sh: quarryd pid $quarry_pid on port $quarry_port, redis-server pid $redis_pid on port $redis_port" >&2

redis_pid_option=()
if [ -n "$pass_redis_pid" ]; then redis_pid_option=(--redis-pid "$redis_pid"); fi
"$bench" --uri "mongodb://127.0.0.1:$quarry_port" --redis-port "$redis_port" \
  --server-pid "$quarry_pid" "${redis_pid_option[@]}" "$@"
