#!/usr/bin/env bash
# Runs pointops_bench against a fresh quarryd and a Redis on free 127.0.0.1 ports, passing both
# PIDs (for CPU time and --strace), and stops both on exit (bench/run_with_redis.sh). Builds
# nothing: build first with
#   bash scripts/build.sh -- --target quarryd pointops_bench
# Usage: bench/pointops/run.sh [--build DIR] [pointops_bench options, e.g. --quick --json]
exec "$(dirname "$0")/../run_with_redis.sh" --pass-redis-pid pointops_bench "$@"
