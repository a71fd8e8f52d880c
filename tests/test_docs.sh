#!/usr/bin/env bash
# Every key of the configuration schema is documented in docs/yaml.md.
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
