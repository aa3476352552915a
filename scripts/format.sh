#!/usr/bin/env bash
# Lays out Quarry's C++ sources with clang-format (.clang-format: Google style, 100 columns).
#   scripts/format.sh          rewrite every file that is not laid out yet
#   scripts/format.sh --check  change nothing; list those files and end with `N passed, N failed`
set -uo pipefail
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true

mapfile -t files < <(find src tools bench tests -path '*/node_modules' -prune -o \
                       \( -name '*.cc' -o -name '*.h' \) -print | sort)
# One clang-format run reads every file (fast); its complaints name the files to report or fix.
mapfile -t unformatted < <(clang-format --dry-run "${files[@]}" 2>&1 |
                             sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (warning|error): .*/\1/p' | sort -u)
if $check; then
  for file in "${unformatted[@]}"; do
    echo "not laid out by clang-format: $file (run scripts/format.sh)"
  done
  failed=${#unformatted[@]}
else
  ((${#unformatted[@]})) && clang-format -i "${unformatted[@]}"
  failed=0
fi
echo "$((${#files[@]} - failed)) passed, $failed failed"
((failed == 0))
