#!/usr/bin/env bash
# Runs fulltext_bench against a fresh quarryd (bench/run_with_quarryd.sh) and a temporary
# PostgreSQL 15 cluster (bench/postgres.sh), both on free 127.0.0.1 ports. The cluster is started
# with synchronous_commit = off (Quarry acknowledges w:1 without waiting for its journal) and
# otherwise default settings, and stopped and removed on exit, failure or Ctrl-C alike. As
# root, the cluster runs as the `postgres` user, since initdb refuses root. Builds nothing:
# build first with
#   bash scripts/build.sh -- --target quarryd fulltext_bench
# Usage: bench/fulltext/run.sh [--build DIR] [fulltext_bench options, e.g. --quick --json]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../postgres.sh"

build_option=()
if [ "${1:-}" = "--build" ]; then build_option=(--build "$2"); shift 2; fi

start_postgres fulltext fulltext synchronous_commit=off

# In the foreground: Ctrl-C reaches it and the benchmark too, it stops its own server, and the
# cluster's trap runs once it has ended.
"$here/../run_with_quarryd.sh" fulltext_bench "${build_option[@]}" \
  --postgres-port "$postgres_port" --postgres-user fulltext --postgres-pid "$postgres_pid" "$@"
