#!/usr/bin/env bash
# Builds replex if needed and runs the default experiment into runs/default
# (replaced if it exists). Extra arguments go to `replex run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec build/replex run yaml/default.yaml -o runs/default --force "$@"
