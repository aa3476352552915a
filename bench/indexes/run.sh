#!/usr/bin/env bash
# Runs index_bench against a fresh quarryd and a Redis on free 127.0.0.1 ports, and stops both
# on exit (bench/run_with_redis.sh). Builds nothing: build first with
#   bash scripts/build.sh -- --target quarryd index_bench
# Usage: bench/indexes/run.sh [--build DIR] [index_bench options, e.g. --documents 100000]
exec "$(dirname "$0")/../run_with_redis.sh" index_bench "$@"
