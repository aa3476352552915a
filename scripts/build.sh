#!/usr/bin/env bash
# Configures (once) and builds Quarry with CMake + Ninja, Release, ccache when installed.
# Usage: scripts/build.sh [--tests] [--dir DIR] [-- cmake --build args...]
#   --tests  also build the unit tests and the client programs of tests/integration
#   --dir    build directory (default: ./build)
# Anything after `--` goes to `cmake --build`, e.g. `-- --target quarryd`.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
tests=
while (($#)); do
  case "$1" in
    --tests) tests=ON; shift ;;  # without it, an existing build dir keeps its setting
    --dir) build_dir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# ccache keys on the compiler command line; with a base dir, absolute paths under the checkout
# become relative, so a clone in another folder (as CI makes) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
configure=(-S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release)
if [ -f "$build_dir/CMakeCache.txt" ]; then
  # Keep the generator and test setting it was made with, so scripts/run.sh does not drop the
  # test targets that scripts/test.sh configured in the same directory.
  if [ -n "$tests" ]; then configure+=(-DQUARRY_BUILD_TESTS="$tests"); fi
else
  configure+=(-G Ninja -DQUARRY_BUILD_TESTS="${tests:-OFF}")
fi
cmake "${configure[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
