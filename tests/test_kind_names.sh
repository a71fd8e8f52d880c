#!/usr/bin/env bash
# No kind's name or count outside its row and its table (docs/
# architecture.md, "The kinds and their contracts"): in src/, with the
# comments removed, no file but a row's own and its table's names a step
# rule, exchange test or bias (its YAML name, its enum value, a kind count
# or a name table), and none compares kinds by enum range. The keys'
# defaults in the schema (`K_ENUM, OFF(...), "sgld"`) are the one allowed
# mention: a default is the configuration's choice of row. The check runs
# first on a planted file, where it must find the mentions (so it can
# fail).
# The names are the rows' own, as `replex keys` lists them under the keys
# that pick a row (so a new row is guarded without editing this file);
# the allowed files are the tables' and every file that declares a row.
# Environment (set by meson): RX_SRCDIR  the project root; RX_REPLEX  the
# replex binary
set -u
cd "${RX_SRCDIR:-.}" || exit 1
pass=0; fail=0
names=$("${RX_REPLEX:-build/replex}" keys 2>/dev/null |
        sed -n 's/^    \([a-z_][a-z0-9_]*\) .*/\1/p' | grep -vx none |
        LC_ALL=C sort -u | paste -sd '|')
if [ -z "$names" ] || ! printf '%s\n' "$names" | grep -q 'sgld' ||
   ! printf '%s\n' "$names" | grep -q 'metropolis'; then
  echo "FAIL: no row names from replex keys: '$names'"; echo "0 passed, 1 failed"; exit 1
fi
pat="\"($names)\"|RX_RULE_[A-Z_]+|RX_STEP_(SGLD|SGD|MSGD|PSGD|SGHMC|SGNHT)\\b|RX_BIAS_(CSGLD|NONE)\\b|RX__(STEP|XTEST|BIAS)_KINDS|rx__(rule|step|bias)_names"
# the tables, and the files that declare a row (`.row = {.name = ...`)
allowed='^src/step/step\.[ch]$|^src/exchange/xtest\.[ch]$|^src/bias/bias\.[ch]$'
for f in $(grep -rlE '\.row = \{\.name = "' src --include='*.c' | LC_ALL=C sort); do
  allowed="$allowed|^${f//./\\.}\$"
done

# scan DIR: print "file:line: text" for each mention outside the allowed
scan() {
  local root=$1
  (cd "$root" && find src -name '*.[ch]' | LC_ALL=C sort) | while read -r f; do
    if [[ "$f" =~ $allowed ]]; then continue; fi
    gcc -fpreprocessed -dD -E -P -x c "$root/$f" 2>/dev/null |
      grep -nE "$pat" | grep -vE 'K_ENUM, OFF\(' | sed "s|^|$f:|"
  done
}

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/config"
printf '/* metropolis in a comment is fine */\nint f(int r) { return r == RX_RULE_METROPOLIS || r > RX_RULE_BIAS_CORRECTED; }\nconst char *n = "sghmc";\n' \
  > "$tmp/src/config/planted.c"
if [ "$(scan "$tmp" | wc -l)" -eq 2 ]; then pass=$((pass+1)); else
  echo "FAIL: the check missed the planted mentions: $(scan "$tmp")"; fail=$((fail+1)); fi

hits=$(scan "$PWD")
if [ -z "$hits" ]; then pass=$((pass+1)); else
  echo "FAIL: kinds named outside their rows and tables:"; echo "$hits"; fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
