#!/usr/bin/env bash
# What the transaction machinery costs writes that use no transaction: the same plain inserts
# (`quarry bench bulk`, bulk and one by one) and plain updates (transfers.py's plain column, 4
# clients) against the quarryd of this tree and the quarryd of another build (e.g. one from
# before transactions), alternating, REPEATS times each. Builds nothing.
# Usage: bench/transactions/machinery_cost.sh OTHER_BUILD_DIR [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/../.."
other="${1:?usage: bench/transactions/machinery_cost.sh OTHER_BUILD_DIR [REPEATS]}"
repeats="${2:-3}"
tool=build/tools/quarry

run_one() {  # run_one BUILD_DIR -> prints "bulk_docs_per_s one_by_one_docs_per_s updates_per_s"
  local quarryd="$1/src/main/quarryd" port dbpath pid
  port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  dbpath=$(mktemp -d "${TMPDIR:-/tmp}/machinery.XXXXXX")
  "$quarryd" --bind_ip 127.0.0.1 --port "$port" --dbpath "$dbpath/db" --quiet \
    --logpath "$dbpath/quarryd.log" &
  pid=$!
  for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  local uri="mongodb://127.0.0.1:$port/?directConnection=true"
  local inserts updates
  inserts=$("$tool" bench bulk --uri "$uri" --json --no-progress --rounds bulk,one-by-one \
    --documents 100000 --one-by-one-documents 10000 --size 200)
  updates=$(/usr/bin/python3 - "$uri" <<'PY'
import sys
sys.path.insert(0, "bench/transactions")
import pymongo
import transfers
uri = sys.argv[1]
with pymongo.MongoClient(uri) as c:
    c.bench_txn.accounts.insert_many([{"_id": i, "balance": 1000} for i in range(100)])
print(round(2 * transfers.run_clients(uri, 4, 5, 100, transfers.plain)))
PY
)
  kill "$pid"; wait "$pid" 2>/dev/null || true; rm -rf "$dbpath"
  /usr/bin/python3 -c '
import json, sys
rows = {r["round"]: r for r in json.loads(sys.argv[1])["rows"]}
print(round(rows["acknowledged bulk"]["documents_per_second"]),
      round(rows["acknowledged one-by-one"]["documents_per_second"]), sys.argv[2])
' "$inserts" "$updates"
}

printf '%-8s %-22s %14s %16s %12s\n' run build 'bulk inserts/s' 'one-by-one ins/s' 'updates/s'
for r in $(seq 1 "$repeats"); do
  for build in build "$other"; do
    read -r bulk one updates < <(run_one "$build")
    label="$build"
    [ "$build" = build ] && label="this tree"
    printf '%-8s %-22s %14s %16s %12s\n' "$r" "$label" "$bulk" "$one" "$updates"
  done
done
