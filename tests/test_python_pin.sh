#!/usr/bin/env bash
# The Python tests run on /usr/bin/python3 (the interpreter that
# scripts/bootstrap.sh --tests provisions), not on the first python3 of the
# PATH, even when build/ was configured before numpy and netCDF4 were
# installed: configures a fresh build directory with a PATH whose first
# python3 lacks them and a PYTHONPATH that hides them from every
# interpreter (as a machine without Debian's packages yet), and checks the
# interpreter of each Python test.
set -u
SRC=${RX_SRCDIR:?}
command -v meson > /dev/null || { echo "no meson: skipped"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/hide"
# a python3 without site-packages: no numpy, no netCDF4
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' > "$tmp/bin/python3"
chmod +x "$tmp/bin/python3"
for m in numpy xarray netCDF4 h5netcdf; do
    mkdir -p "$tmp/hide/$m"
    echo 'raise ImportError("hidden")' > "$tmp/hide/$m/__init__.py"
done
PATH="$tmp/bin:$PATH" PYTHONPATH="$tmp/hide" \
    meson setup "$tmp/build" "$SRC" -Dbench=false > "$tmp/setup.log" 2>&1 \
    || { cat "$tmp/setup.log"; echo "FAIL: meson setup"; exit 1; }
meson introspect --tests "$tmp/build" > "$tmp/tests.json"
/usr/bin/python3 -S - "$tmp/tests.json" <<'P'
import json, sys
tests = {t["name"]: t["cmd"][0] for t in json.load(open(sys.argv[1]))}
bad = 0
for name in ("cli_inference", "ess_numpy", "cli_summary_table", "layers",
             "lstm_torch"):
    cmd = tests.get(name)
    ok = cmd == "/usr/bin/python3"
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, cmd))
    bad += not ok
sys.exit(1 if bad else 0)
P
