#!/usr/bin/env bash
# Counts quarryd's user-space instructions per request (valgrind's callgrind) for small requests
# sent one at a time through pymongo: ping, the baseline every request pays, then find by _id,
# find by a unique key, insert_one and update_one by _id. The counts repeat from run to run
# where this machine's timings swing by 10%, so a change of a few percent shows; they see
# neither memory stalls nor the kernel, so time what they find with the other benchmarks.
# Builds nothing: build first with
#   bash scripts/build.sh -- --target quarryd
# Needs valgrind: sudo apt-get install -y valgrind
# Usage: bench/instructions/run.sh [--build DIR] [--requests N] [--documents N]
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build
requests=3000
documents=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --documents) documents="$2"; shift 2 ;;
    *) echo "usage: bench/instructions/run.sh [--build DIR] [--requests N] [--documents N]" >&2; exit 2 ;;
  esac
done
quarryd="$build/src/main/quarryd"
[ -x "$quarryd" ] || { echo "instructions: $quarryd is missing; build it first" >&2; exit 1; }
for tool in valgrind callgrind_control; do
  command -v "$tool" >/dev/null || { echo "instructions: $tool is missing: sudo apt-get install -y valgrind" >&2; exit 1; }
done
python=/usr/bin/python3
requests_py="bench/instructions/requests.py"

dir=$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

source bench/ports.sh
port=$(free_port)

serve() {
  "$@" --bind_ip 127.0.0.1 --port "$port" --dbpath "$dir/db" --quiet --logpath "$dir/quarryd.log" &
  pid=$!
  # Under valgrind quarryd takes tens of seconds to listen.
  wait_for_port "$port" "$pid" 120 || { echo "instructions: quarryd did not start" >&2; cat "$dir/quarryd.log" >&2; exit 1; }
}

# Loading runs at full speed; only the counted server runs under valgrind.
mkdir -p "$dir/db"
serve "$quarryd"
"$python" "$requests_py" "$port" load "$documents"
kill "$pid"; wait "$pid" 2>/dev/null || true
pid=

echo "instructions: starting quarryd under callgrind (slow to start)" >&2
# Its io threads sleep as soon as they run out of work: instructions spent polling for the
# next request are waiting, not work.
serve valgrind --tool=callgrind --instr-atstart=no --log-file="$dir/valgrind.log" \
  --callgrind-out-file="$dir/callgrind.out" "$quarryd" --setParameter ioThreadPollMicros=0

declare -A counts
dumps=0
for kind in ping find_id find_unique insert_one update_id; do
  "$python" "$requests_py" "$port" "$kind" "$pid" "$requests" "$documents"
  dumps=$((dumps + 1))
  dump="$dir/callgrind.out.$dumps"
  for _ in $(seq 1 100); do [ -s "$dump" ] && grep -q '^totals:' "$dump" && break; sleep 0.1; done
  total=$(awk '/^totals:/ {print $2; exit}' "$dump" 2>/dev/null || true)
  [ -n "$total" ] || { echo "instructions: callgrind wrote no counts for $kind" >&2; exit 1; }
  counts[$kind]=$((total / requests))
done

echo "instructions: quarryd's user-space instructions per request (callgrind)"
echo "requests per row: $requests (after as many uncounted)  documents: $documents (~1 KB, unique index on listing_id)"
echo
printf '%-12s  %16s  %16s\n' "request" "instructions" "beyond a ping"
printf '%-12s  %16s  %16s\n' "------------" "----------------" "----------------"
for kind in ping find_id find_unique insert_one update_id; do
  printf '%-12s  %16d  %16d\n' "$kind" "${counts[$kind]}" "$((counts[$kind] - counts[ping]))"
done
echo
echo "pymongo, one connection, one request at a time; insert_one and update_one with retryable writes (pymongo's default), w:1."
