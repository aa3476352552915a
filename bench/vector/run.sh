#!/usr/bin/env bash
# Runs vector_bench against a fresh quarryd on a free 127.0.0.1 port, passing it the server's
# PID for its memory, and stops it on exit (bench/run_with_quarryd.sh). Builds nothing: build
# first with
#   bash scripts/build.sh -- --target quarryd vector_bench
# Usage: bench/vector/run.sh [--build DIR] [vector_bench options, e.g. --vectors 5000]
exec "$(dirname "$0")/../run_with_quarryd.sh" vector_bench "$@"
