#!/usr/bin/env bash
# Runs import_bench against a fresh quarryd on a free 127.0.0.1 port, passing the server's PID
# and the quarry tool, and stops the server on exit (bench/run_with_quarryd.sh). Builds nothing:
# build first with
#   bash scripts/build.sh -- --target quarryd quarry import_bench
# Usage: bench/import/run.sh [--build DIR] [import_bench options, e.g. --size 200mb]
exec "$(dirname "$0")/../run_with_quarryd.sh" --pass-tool import_bench "$@"
