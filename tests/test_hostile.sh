#!/usr/bin/env bash
# A careless or hostile user (issue 21; the table in docs/reliability.md):
# every case below must leave the user's files in place and be refused with
# exit 2 and a message, or be handled as documented.
set -u
cd "$RX_SRCDIR"
src=$PWD
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX
short=(--set iterations=300 -q)

# --- a path that reaches gnuplot: no shell, the plots still drawn ---
if grep -rnE '\b(system|popen)\s*\(' src; then
  bad "system() or popen() in src/"
else ok; fi
if command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$tmp/x"
  q="$tmp/x/q';touch $tmp/x/INJECTED;'"
  "$R" run yaml/default.yaml -o "$q" "${short[@]}" ||
    bad "run into a directory with an apostrophe failed"
  [ ! -e "$tmp/x/INJECTED" ] && ok || bad "the output path reached a shell"
  grep -q "<svg" "$q/plots/index.svg" 2>/dev/null && ok ||
    bad "no plots in a directory whose name has an apostrophe"
else
  echo "gnuplot not installed: the apostrophe case skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
