#!/usr/bin/env bash
# Configures (once) and builds Quarry with CMake + Ninja, Release, ccache when installed.
# Usage: scripts/build.sh [--tests] [--dir DIR] [-- cmake --build args...]
#   --tests  also build the unit tests and the client programs of tests/integration
#   --dir    build directory (default: ./build)
# Anything after `--` goes to `cmake --build`, e.g. `-- --target quarryd`.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
tests=OFF
while (($#)); do
  case "$1" in
    --tests) tests=ON; shift ;;
    --dir) build_dir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# ccache keys on the compiler command line; with a base dir, absolute paths under the checkout
# become relative, so a clone in another folder (as CI makes) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
configure=(-S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DQUARRY_BUILD_TESTS="$tests")
# Keep whatever generator an existing build directory was made with; new ones use Ninja.
[ -f "$build_dir/CMakeCache.txt" ] || configure+=(-G Ninja)
cmake "${configure[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
