#!/usr/bin/env bash
# Builds quarryd and the unit tests of the layers that own memory across threads (storage, exec,
# vector and the text indexes it holds, commands, server) with AddressSanitizer and UBSan
# (./build-asan), then runs those unit tests, the pytest integration tests, the Node.js driver
# tests and the spec tests against that quarryd. Any sanitizer report makes the server abort,
# so it shows up as failing tests (and the server logs keep the report). Slow (a full second
# build, and the server runs several times slower), so it is not part of scripts/test.sh: run
# it before changing memory-sensitive code, or nightly.
# Needs what scripts/test.sh installs. The last line is `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${QUARRY_ASAN_BUILD_DIR:-build-asan}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
generator=()
[ -f "$BUILD/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S . -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUARRY_SANITIZE=ON \
  -DQUARRY_BUILD_TESTS=ON >/dev/null || exit 1
UNIT_TESTS=(quarry_storage_tests quarry_exec_tests quarry_commands_tests quarry_server_tests
            quarry_vector_tests quarry_text_tests)
# The quarry tool and the libmongoc test clients too: integration tests drive them.
cmake --build "$BUILD" -j "$(nproc)" --target quarryd quarry quarry_libmongoc_auth_test \
  quarry_libmongoc_client_test "${UNIT_TESTS[@]}" || exit 1

export QUARRY_BINARY="$PWD/$BUILD/src/main/quarryd"
export QUARRY_TOOL="$PWD/$BUILD/tools/quarry"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quarry-sanitize.XXXXXX")
trap 'rm -rf "$LOG_DIR"' EXIT
passed=0
failed=0
count() {  # count NAME PASSED FAILED
  local p=${2:-0} f=${3:-0}
  printf '%-20s %5s passed %5s failed\n' "$1" "$p" "$f"
  passed=$((passed + p))
  failed=$((failed + f))
}

for binary in "${UNIT_TESTS[@]}"; do
  ASAN_OPTIONS=detect_leaks=1 "$BUILD/tests/$binary" >"$LOG_DIR/$binary.log" 2>&1
  status=$?
  unit_failed=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?,.*/\1/p' "$LOG_DIR/$binary.log" | tail -n1)
  # A sanitizer report aborts the binary before GoogleTest's summary: that is a failure too.
  if [ "$status" -ne 0 ] && [ -z "$unit_failed" ]; then
    unit_failed=1
    echo "$binary exited with status $status; its log:" >&2
    grep -m 5 -E 'ERROR|runtime error|SUMMARY' "$LOG_DIR/$binary.log" >&2
  fi
  count "${binary#quarry_}" \
    "$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$LOG_DIR/$binary.log" | tail -n1)" \
    "$unit_failed"
done

# The RSS bound of a 48 MB message does not hold under ASan's quarantine and shadow memory.
/usr/bin/python3 -m pytest tests/integration --ignore=tests/integration/clients -q \
  -k "not grows_the_server" >"$LOG_DIR/pytest.log" 2>&1
line=$(grep -E '(passed|failed).* in [0-9.]+s' "$LOG_DIR/pytest.log" | tail -n1)
count pytest "$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || echo 0)" \
  "$(($(grep -oE '[0-9]+ (failed|errors?)' <<<"$line" | grep -oE '[0-9]+' | paste -sd+ - || echo 0)))"

node --test tests/integration/node/*.test.mjs >"$LOG_DIR/node.log" 2>&1
count node "$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$LOG_DIR/node.log" | tail -n1)" \
  "$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$LOG_DIR/node.log" | tail -n1)"

node tests/spec/run.js >"$LOG_DIR/spec.log" 2>&1
regressed=$(sed -nE 's/^([0-9]+) baseline test\(s\) failed:.*/\1/p' "$LOG_DIR/spec.log" | tail -n1)
count spec "$(sed -nE 's/^([0-9]+) passed, .*/\1/p' "$LOG_DIR/spec.log" | tail -n1)" "${regressed:-0}"

for log in "$LOG_DIR"/*.log; do
  if grep -qE 'ERROR: AddressSanitizer|runtime error:' "$log"; then
    echo "sanitizer report in $(basename "$log"):"
    grep -E -A30 'ERROR: AddressSanitizer|runtime error:' "$log" | head -60
  fi
  if grep -qE 'failed|FAILED|not ok' "$log" && [ "$failed" -gt 0 ]; then
    echo "--- $(basename "$log"), last lines ---"
    tail -n 30 "$log"
  fi
done
echo "$passed passed, $failed failed"
((failed == 0))
