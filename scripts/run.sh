#!/usr/bin/env bash
# Installs what Quarry needs, builds quarryd and the `quarry` tool (Release, ./build; the README's
# import, export, dump and watch commands use build/tools/quarry) and runs quarryd in the
# foreground on port 27017 of the loopback addresses with its data in ./data. Extra arguments go
# to quarryd and replace the defaults they name, e.g. `scripts/run.sh --port 27018 --dbpath /tmp/q`.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh -- --target quarryd quarry

defaults=()
has() { local a; for a in "${@:2}"; do [[ "$a" == "$1" || "$a" == "$1="* ]] && return 0; done; return 1; }
if ! has --config "$@"; then
  has --port "$@" || defaults+=(--port 27017)
  has --dbpath "$@" || { mkdir -p data; defaults+=(--dbpath ./data); }
fi
exec build/src/main/quarryd "${defaults[@]}" "$@"
