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
passed=0
failed=0
for file in "${files[@]}"; do
  if clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then
    passed=$((passed + 1))
  elif $check; then
    echo "not laid out by clang-format: $file (run scripts/format.sh)"
    failed=$((failed + 1))
  else
    clang-format -i "$file"
    passed=$((passed + 1))
  fi
done
echo "$passed passed, $failed failed"
((failed == 0))
