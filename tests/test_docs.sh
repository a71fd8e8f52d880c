#!/usr/bin/env bash
# Every key of the configuration schema is documented in docs/yaml.md;
# the user documentation cites papers, not files a user does not have, and
# docs/performance.md stays short enough to read.
set -u
cd "$RX_SRCDIR"
pass=0; fail=0
while read -r key _; do
  if grep -q "\`$key\`" docs/yaml.md; then pass=$((pass+1)); else
    echo "undocumented key: $key"; fail=$((fail+1)); fi
done < <("$RX_REPLEX" keys)
for f in yaml/*.yaml; do
  if "$RX_REPLEX" validate "$f" >/dev/null 2>&1; then pass=$((pass+1)); else
    echo "shipped file does not validate: $f"; fail=$((fail+1)); fi
  b=$(basename "$f")
  if grep -q "$b" docs/yaml.md; then pass=$((pass+1)); else
    echo "shipped file not listed in docs/yaml.md: $b"; fail=$((fail+1)); fi
done
# Citations of the internal specification files ("deo.md 2.5", "spec claim
# T9", "[P0 C.2.1]") instead of the paper and its equation.
cite='(deo|csgld|renhd|resgld_vr|anchors|design)\.md|spec claims?|the spec\b|\bspec (T[0-9]|[0-9§])|\[(P0|P1|D|DER|CAL|CH[0-9]|SUP|APA|APB|REF|CODE|PAPER|DERIVED|DECISION)( [^]]*)?\]'
hits=$(grep -rnE "$cite" README.md docs yaml 2>/dev/null
       { "$RX_REPLEX" keys; "$RX_REPLEX" help; "$RX_REPLEX" help run; } 2>&1 |
         grep -E "$cite" | sed 's/^/replex keys|help: /')
if [ -z "$hits" ]; then pass=$((pass+1)); else
  echo "citation of a file a user does not have (cite the paper and equation):"
  echo "$hits"; fail=$((fail+1)); fi
n=$(wc -l < docs/performance.md)
if [ "$n" -le 400 ]; then pass=$((pass+1)); else
  echo "docs/performance.md has $n lines (at most 400)"; fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
