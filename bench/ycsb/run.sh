#!/usr/bin/env bash
# Runs ycsb_bench against a fresh quarryd and Redis (bench/run_with_redis.sh) and a temporary
# PostgreSQL cluster, all on free 127.0.0.1 ports. The cluster is made with initdb in a
# temporary directory, started with synchronous_commit = off, and stopped (pg_ctl stop -m fast)
# and removed on exit, failure or Ctrl-C alike. As root, the cluster runs as the `postgres`
# user, since initdb refuses root. Builds nothing: build first with
#   bash scripts/build.sh -- --target quarryd ycsb_bench
# Usage: bench/ycsb/run.sh [--build DIR] [ycsb_bench options, e.g. --quick --json]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

build_option=()
if [ "${1:-}" = "--build" ]; then build_option=(--build "$2"); shift 2; fi

# The cluster is needed unless --systems leaves postgres out.
systems=quarry,postgres,redis
previous=
for arg in "$@"; do
  [ "$previous" = "--systems" ] && systems="$arg"
  case "$arg" in --systems=*) systems="${arg#--systems=}" ;; esac
  previous="$arg"
done

pg_bin=${QUARRY_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
pg_dir=
pg_as=()
# run_with_redis.sh runs in the foreground: Ctrl-C reaches it and the benchmark too, it stops
# its own servers, and this trap runs once it has ended.
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$pg_dir" ]; then
    if [ -f "$pg_dir/data/postmaster.pid" ]; then
      (cd "$pg_dir" && "${pg_as[@]}" "$pg_bin/pg_ctl" stop -D "$pg_dir/data" -m fast -s) \
        >/dev/null 2>&1 || true
    fi
    rm -rf "$pg_dir"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

postgres_options=()
if [[ ",$systems," == *,postgres,* ]]; then
  [ -x "$pg_bin/initdb" ] || { echo "run.sh: $pg_bin/initdb is missing (Debian's postgresql)" >&2; exit 1; }
  pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/ycsb-postgres.XXXXXX")
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$pg_dir"
    pg_as=(runuser -u postgres --)
  fi
  port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # C collation: keys compare bytewise, as _id strings do in Quarry and members in a sorted set.
  # From the cluster's directory: the postgres user may not be allowed into the current one.
  (cd "$pg_dir" && "${pg_as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U ycsb --auth=trust \
    --no-locale -E UTF8) >"$pg_dir/initdb.log" 2>&1 ||
    { echo "run.sh: initdb failed" >&2; cat "$pg_dir/initdb.log" >&2; exit 1; }
  (cd "$pg_dir" && "${pg_as[@]}" "$pg_bin/pg_ctl" start -D "$pg_dir/data" -l "$pg_dir/postgres.log" \
    -w -s -o "-p $port -k $pg_dir -c listen_addresses=127.0.0.1 -c synchronous_commit=off") ||
    { echo "run.sh: PostgreSQL did not start" >&2; cat "$pg_dir/postgres.log" >&2; exit 1; }
  echo "run.sh: postgres pid $(head -n1 "$pg_dir/data/postmaster.pid") on port $port, cluster in $pg_dir" >&2
  postgres_options=(--postgres-port "$port" --postgres-user ycsb
    --postgres-pid "$(head -n1 "$pg_dir/data/postmaster.pid")")
fi

"$here/../run_with_redis.sh" --pass-redis-pid ycsb_bench "${build_option[@]}" "${postgres_options[@]}" "$@"
