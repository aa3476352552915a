#!/usr/bin/env bash
# Runs import_bench against a fresh quarryd on a free 127.0.0.1 port, passing the server's PID
# and the quarry tool, and stops the server (by PID) and removes its data directory on exit.
# Builds nothing: build first with
#   bash scripts/build.sh -- --target quarryd quarry import_bench
# Usage: bench/import/run.sh [--build DIR] [import_bench options, e.g. --size 200mb]
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
quarryd="$build/src/main/quarryd"
tool="$build/tools/quarry"
bench="$build/bench/import_bench"
for binary in "$quarryd" "$tool" "$bench"; do
  [ -x "$binary" ] || { echo "run.sh: $binary is missing; build it first" >&2; exit 1; }
done

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dbpath=$(mktemp -d "${TMPDIR:-/tmp}/import_bench.XXXXXX")
quarry_pid=
cleanup() {
  if [ -n "$quarry_pid" ]; then
    kill "$quarry_pid" 2>/dev/null || true
    wait "$quarry_pid" 2>/dev/null || true
  fi
  rm -rf "$dbpath"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$quarryd" --bind_ip 127.0.0.1 --port "$port" --dbpath "$dbpath/db" --quiet \
  --logpath "$dbpath/quarryd.log" &
quarry_pid=$!
started=
for _ in $(seq 1 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then started=1; break; fi
  kill -0 "$quarry_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$started" ] || { echo "run.sh: quarryd did not start" >&2; cat "$dbpath/quarryd.log" >&2; exit 1; }

"$bench" --uri "mongodb://127.0.0.1:$port" --quarry "$tool" --server-pid "$quarry_pid" "$@"
