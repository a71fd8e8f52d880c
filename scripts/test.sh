#!/usr/bin/env bash
# Builds replex if needed and runs the whole test suite (meson test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
meson test -C build --print-errorlogs "$@"
