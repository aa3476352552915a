#!/usr/bin/env bash
# Runs bench/transactions/transfers.py against a fresh quarryd on a free 127.0.0.1 port, and
# stops it (by PID) and removes its data directory on exit. Builds nothing: build quarryd first.
# Usage: bench/transactions/run.sh [--build DIR] [transfers.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
if [ "${1:-}" = "--build" ]; then build="$2"; shift 2; fi
quarryd="$build/src/main/quarryd"
[ -x "$quarryd" ] || { echo "run.sh: $quarryd is missing; build it first" >&2; exit 1; }
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dbpath=$(mktemp -d "${TMPDIR:-/tmp}/transactions.XXXXXX")
"$quarryd" --bind_ip 127.0.0.1 --port "$port" --dbpath "$dbpath/db" --quiet \
  --logpath "$dbpath/quarryd.log" &
quarry_pid=$!
trap 'kill "$quarry_pid" 2>/dev/null || true; wait "$quarry_pid" 2>/dev/null || true; rm -rf "$dbpath"' EXIT
for _ in $(seq 1 300); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
/usr/bin/python3 bench/transactions/transfers.py --uri "mongodb://127.0.0.1:$port/?directConnection=true" "$@"
