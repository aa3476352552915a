#!/usr/bin/env bash
# Runs ycsb_bench against a fresh quarryd and Redis (bench/run_with_redis.sh) and a temporary
# PostgreSQL cluster (bench/postgres.sh), all on free 127.0.0.1 ports. The cluster is started
# with synchronous_commit = off, and stopped and removed on exit, failure or Ctrl-C alike. As
# root, the cluster runs as the `postgres` user, since initdb refuses root. Builds nothing: build
# first with
#   bash scripts/build.sh -- --target quarryd ycsb_bench
# Usage: bench/ycsb/run.sh [--build DIR] [ycsb_bench options, e.g. --quick --json]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../postgres.sh"

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

postgres_options=()
if [[ ",$systems," == *,postgres,* ]]; then
  start_postgres ycsb ycsb synchronous_commit=off
  postgres_options=(--postgres-port "$postgres_port" --postgres-user ycsb --postgres-pid "$postgres_pid")
fi

# In the foreground: Ctrl-C reaches it and the benchmark too, it stops its own servers, and the
# cluster's trap runs once it has ended.
"$here/../run_with_redis.sh" --pass-redis-pid ycsb_bench "${build_option[@]}" "${postgres_options[@]}" "$@"
