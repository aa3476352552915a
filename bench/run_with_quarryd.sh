#!/usr/bin/env bash
# Runs a benchmark against a fresh quarryd on a free 127.0.0.1 port, passing it --uri and
# --server-pid (and --quarry, the command-line tool, when asked), and stops the server (by PID)
# and removes its data directory on exit. Builds nothing: build the benchmark and quarryd first,
# e.g. bash scripts/build.sh -- --target quarryd vector_bench
# Usage: bench/run_with_quarryd.sh [--pass-tool] BENCH [--build DIR] [BENCH options]
set -euo pipefail
cd "$(dirname "$0")/.."

pass_tool=
if [ "${1:-}" = "--pass-tool" ]; then pass_tool=1; shift; fi
name="${1:?usage: bench/run_with_quarryd.sh [--pass-tool] BENCH [--build DIR] [options]}"
shift
build=build
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
quarryd="$build/src/main/quarryd"
bench="$build/bench/$name"
tool="$build/tools/quarry"
binaries=("$quarryd" "$bench")
if [ -n "$pass_tool" ]; then binaries+=("$tool"); fi
for binary in "${binaries[@]}"; do
  [ -x "$binary" ] || { echo "run_with_quarryd.sh: $binary is missing; build it first" >&2; exit 1; }
done

source bench/ports.sh
port=$(free_port)

dbpath=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
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

wait_for_port "$port" "$quarry_pid" || { echo "run_with_quarryd.sh: quarryd did not start" >&2; cat "$dbpath/quarryd.log" >&2; exit 1; }
echo "run_with_quarryd.sh: quarryd pid $quarry_pid on port $port" >&2

extra=()
if [ -n "$pass_tool" ]; then extra+=(--quarry "$tool"); fi
"$bench" --uri "mongodb://127.0.0.1:$port" --server-pid "$quarry_pid" "${extra[@]}" "$@"
