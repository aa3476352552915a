#!/usr/bin/env bash
# Installs what Quarry needs, builds everything with tests (./build), and runs every suite: the
# clang-format check (format), unit tests (ctest), the include-layering check, the pytest
# integration tests, the benchmarks' end-to-end tests (bench), the Node.js driver tests, the
# end-to-end browser test of the change-stream chat example (e2e), mongosh, the libmongoc
# client, the fuzzers and the spec-test runner. Each suite's output is shown as it runs; the
# last line is `N passed, N failed` over all suites, and the exit status is non-zero if anything
# failed.
#
# Environment: QUARRY_BUILD_DIR (default ./build), QUARRY_FUZZ_SECONDS (per fuzz target,
# default 45; 0 skips the fuzzers), QUARRY_SKIP_SUITES (space-separated suite names to leave
# out, e.g. "fuzz spec").
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
BUILD=${QUARRY_BUILD_DIR:-build}
FUZZ_SECONDS=${QUARRY_FUZZ_SECONDS:-45}
SKIP=" ${QUARRY_SKIP_SUITES:-} "

LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quarry-test.XXXXXX")
trap 'rm -rf "$LOG_DIR"' EXIT

declare -a SUITE_ROWS=()
TOTAL_PASSED=0
TOTAL_FAILED=0

banner() { printf '\n===== %s =====\n' "$*"; }

# Summary parsers: read a suite's log, print "passed failed" (or nothing if no summary found).
parse_ctest() {
  if grep -q 'No tests were found' "$1"; then echo "0 0"; return; fi
  sed -nE 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$1" |
    tail -n1 | awk '{print $2 - $1, $1}'
}
parse_pytest() {
  local line
  line=$(grep -E '(passed|failed|errors?|no tests ran|skipped|deselected)\b.* in [0-9.]+s' "$1" | tail -n1)
  [ -n "$line" ] || return 0
  awk -v l="$line" 'BEGIN {
    p = f = 0; n = split(l, w, /[ ,=]+/)
    for (i = 2; i <= n; i++) {
      if (w[i] == "passed") p += w[i-1]
      if (w[i] == "failed" || w[i] == "error" || w[i] == "errors") f += w[i-1]
    }
    print p, f }'
}
parse_node() {
  local pass fail cancelled
  pass=$(sed -nE 's/^(# |ℹ )pass ([0-9]+)$/\2/p' "$1" | tail -n1)
  fail=$(sed -nE 's/^(# |ℹ )fail ([0-9]+)$/\2/p' "$1" | tail -n1)
  cancelled=$(sed -nE 's/^(# |ℹ )cancelled ([0-9]+)$/\2/p' "$1" | tail -n1)
  [ -n "$pass" ] && echo "$pass $((${fail:-0} + ${cancelled:-0}))"
}
parse_summary_line() {  # the `N passed, N failed[, ...]` line our own runners print last
  sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$1" | tail -n1
}
parse_spec() {
  # The spec runner fails only on tests of its baseline (tests/spec/baseline.json); the others
  # are progress, shown but not counted as failures.
  local counts regressed
  counts=$(parse_summary_line "$1")
  if [ -z "$counts" ]; then
    grep -q '^spec tests skipped' "$1" && echo "0 0 (skipped: $(sed -n 's/^spec tests skipped: //p' "$1" | head -n1))"
    return 0
  fi
  regressed=$(sed -nE 's/^([0-9]+) baseline test\(s\) failed:.*/\1/p' "$1" | tail -n1)
  read -r passed failed <<<"$counts"
  echo "$passed ${regressed:-0} ($failed failing outside the baseline, not counted)"
}

# run_suite NAME PARSER TIMEOUT_SECONDS COMMAND...
run_suite() {
  local name=$1 parser=$2 limit=$3
  shift 3
  if [[ "$SKIP" == *" $name "* ]]; then
    SUITE_ROWS+=("$(printf '%-10s skipped (QUARRY_SKIP_SUITES)' "$name")")
    return
  fi
  banner "$name: $*"
  local log="$LOG_DIR/$name.log" start=$SECONDS status
  timeout --kill-after=20 "$limit" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  local counts passed failed note="" parser_note
  counts=$("$parser" "$log")
  read -r passed failed parser_note <<<"${counts:-}"
  [ -n "${parser_note:-}" ] && note=" $parser_note"
  passed=${passed:-0}
  failed=${failed:-0}
  if ((status == 124 || status == 137)); then
    note=" (timed out after ${limit} s)"
    failed=$((failed + 1))
  elif ((status != 0 && failed == 0)); then
    note=" (exited with status $status without reporting a failed test)"
    failed=1
  elif [ -z "$counts" ]; then
    note=" (no summary line found)"
  fi
  TOTAL_PASSED=$((TOTAL_PASSED + passed))
  TOTAL_FAILED=$((TOTAL_FAILED + failed))
  SUITE_ROWS+=("$(printf '%-10s %5d passed %5d failed  %4ds%s' "$name" "$passed" "$failed" \
    $((SECONDS - start)) "$note")")
}

finish() {
  banner "summary"
  local row
  for row in "${SUITE_ROWS[@]}"; do echo "$row"; done
  echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
  ((TOTAL_FAILED == 0))
  exit $?
}

banner "dependencies"
if ! bash scripts/install-deps.sh; then
  echo "scripts/install-deps.sh failed"
  TOTAL_FAILED=1; SUITE_ROWS+=("deps       failed"); finish
fi

banner "build (Release, tests on, $BUILD)"
build_start=$SECONDS
if ! bash scripts/build.sh --tests --dir "$BUILD"; then
  echo "the build failed: no suite can run"
  TOTAL_FAILED=1; SUITE_ROWS+=("build      failed"); finish
fi
SUITE_ROWS+=("$(printf '%-10s ok %29ds' build $((SECONDS - build_start)))")
BUILD=$(cd "$BUILD" && pwd)
export QUARRY_BINARY="$BUILD/src/main/quarryd"
export QUARRY_LIBMONGOC_CLIENT_TEST="$BUILD/tests/quarry_libmongoc_client_test"
export QUARRY_LIBMONGOC_BULK_TEST="$BUILD/tests/quarry_libmongoc_bulk_test"
export QUARRY_LIBMONGOC_AUTH_TEST="$BUILD/tests/quarry_libmongoc_auth_test"

run_suite format parse_summary_line 300 bash scripts/format.sh --check
run_suite unit parse_ctest 900 ctest --test-dir "$BUILD" -L unit --output-on-failure -j "$(nproc)" --timeout 300
run_suite layering parse_ctest 120 ctest --test-dir "$BUILD" -L layering --output-on-failure
run_suite pytest parse_pytest 900 "$PY" -m pytest tests/integration --ignore=tests/integration/clients -q
# Each benchmark's test runs it in a small mode against fresh servers and checks its tables.
run_suite bench parse_pytest 900 env QUARRY_BUILD="$BUILD" "$PY" -m pytest bench -q
shopt -s nullglob
run_suite node parse_node 600 node --test --test-reporter=spec tests/integration/node/*.test.mjs tests/spec/*.test.mjs
shopt -u nullglob
# e2e: the example keeps its own package-lock.json, so its node_modules are installed here.
run_suite e2e parse_node 300 bash -c '(cd examples/change-stream-chat && npm ci --no-audit --no-fund --loglevel=error) &&
  node --test --test-reporter=spec tests/e2e/*.test.mjs'
run_suite mongosh parse_pytest 600 "$PY" -m pytest tests/integration/clients/test_mongosh.py -q
run_suite libmongoc parse_pytest 300 "$PY" -m pytest tests/integration/clients/test_libmongoc.py -q
if [ -f tests/fuzz/run.sh ] && ((FUZZ_SECONDS > 0)); then
  run_suite fuzz parse_summary_line $((900 + 4 * FUZZ_SECONDS)) bash tests/fuzz/run.sh "$BUILD-fuzz" "$FUZZ_SECONDS"
else
  SUITE_ROWS+=("$(printf '%-10s not run (%s)' fuzz "$([ -f tests/fuzz/run.sh ] && echo 'QUARRY_FUZZ_SECONDS=0' || echo 'no tests/fuzz/run.sh')")")
fi
if [ -f tests/spec/run.js ]; then
  run_suite spec parse_spec 1200 node tests/spec/run.js
else
  SUITE_ROWS+=("$(printf '%-10s not run (no tests/spec/run.js)' spec)")
fi
finish
