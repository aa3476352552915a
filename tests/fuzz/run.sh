#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in BUILD_DIR (its own build directory) and runs each
# for DURATION seconds (default 30). Fails on any crash, sanitizer report, leak or timeout.
# The last line is "N passed, N failed".
#   tests/fuzz/run.sh /work/main/build-fuzz 30
set -u

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
BUILD_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
DURATION=${2:-30}
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
FUZZERS=(wire_request_fuzzer bson_validate_fuzzer index_bounds_fuzzer search_query_fuzzer)
# As scripts/build.sh: paths under the checkout count as relative, so another clone's build
# of the same sources hits ccache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$SOURCE_DIR}"

passed=0
failed=0

if ! cmake -S "$SOURCE_DIR" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DQUARRY_BUILD_FUZZERS=ON -DQUARRY_BUILD_TESTS=OFF >"$BUILD_DIR/fuzz-configure.log" 2>&1 ||
   ! cmake --build "$BUILD_DIR" -j2 --target quarry_fuzzers >"$BUILD_DIR/fuzz-build.log" 2>&1; then
  echo "fuzz: build failed; see $BUILD_DIR/fuzz-configure.log and fuzz-build.log" >&2
  tail -n 30 "$BUILD_DIR/fuzz-build.log" >&2 2>/dev/null
  echo "0 passed, ${#FUZZERS[@]} failed"
  exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for fuzzer in "${FUZZERS[@]}"; do
  binary="$BUILD_DIR/tests/fuzz/$fuzzer"
  work="$BUILD_DIR/fuzz-corpus/$fuzzer"     # grows as the fuzzer finds new inputs
  artifacts="$BUILD_DIR/fuzz-artifacts/$fuzzer"
  log="$BUILD_DIR/fuzz-$fuzzer.log"
  mkdir -p "$work" "$artifacts"
  echo "fuzz: $fuzzer for ${DURATION}s"
  if "$binary" -max_total_time="$DURATION" -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$artifacts/" \
       "$work" "$SOURCE_DIR/tests/fuzz/corpus/$fuzzer" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "fuzz: $fuzzer passed ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
      grep -o '[0-9]*$') runs)"
  else
    failed=$((failed + 1))
    echo "fuzz: $fuzzer FAILED; log $log, reproducer in $artifacts/" >&2
    tail -n 40 "$log" >&2
  fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
