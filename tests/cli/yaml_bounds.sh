#!/usr/bin/env bash
# The bounds on YAML input (docs/yaml.md "Size bounds"): a file larger than
# 16 MiB is refused before it is parsed; an alias bomb in a bench grid is
# refused like one in an experiment file; running out of memory while a
# file is read says so and exits 1 (never a made-up syntax error).
#
# Environment (set by meson): RX_SRCDIR, RX_REPLEX.
set -u
REPLEX=${RX_REPLEX:-build/replex}
SRC=${RX_SRCDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replex-bounds.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# 1. 17 MiB of valid YAML: exit 2, the bound named, in well under a second
#    of parsing (nothing is parsed)
python3 - "$tmp/big.yaml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("# " + "x" * (17 << 20) + "\nseed: 1\n")
PY
for cmd in validate run; do
    start=$(date +%s)
    out=(); [ $cmd = run ] && out=(-o "$tmp/o_big")
    "$REPLEX" $cmd "$tmp/big.yaml" "${out[@]}" > /dev/null 2> "$tmp/err"
    rc=$? end=$(date +%s)
    if [ $rc -ne 2 ]; then bad "big_$cmd" "exit $rc: $(head -c 300 "$tmp/err")"
    elif ! grep -q "big.yaml: larger than 16 MiB, the bound on a YAML file" "$tmp/err"; then
        bad "big_$cmd" "message: $(head -c 300 "$tmp/err")"
    elif [ $((end - start)) -gt 5 ]; then bad "big_$cmd" "took $((end - start)) s"
    elif [ -e "$tmp/o_big" ]; then bad "big_$cmd" "wrote $tmp/o_big"
    else ok "big_$cmd"; fi
done

# 2. the alias bomb as a bench grid: the grid goes through the same loader
#    and its bounds (exit 2 with the place, fast, in bounded memory)
cp "$SRC/tests/cli/bad/alias_bomb.yaml" "$tmp/bomb.yaml"
( ulimit -v 1000000; exec timeout 20 "$REPLEX" bench "$tmp/bomb.yaml" \
      -o "$tmp/o_bomb" -q ) > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "^replex: $tmp/bomb.yaml:7:36: aliases expand to more than 65536 nodes" "$tmp/err"; then
    ok bench_alias_bomb
else
    bad bench_alias_bomb "exit $rc: $(head -c 300 "$tmp/err")"
fi

# 3. out of memory while reading a file of a million nodes (within the
#    bounds, about 100 MB as a tree): under a small address-space limit
#    the answer is exit 1 and "out of memory", never exit 2 and a syntax
#    error at 1:1; where the machine fits the file in the limit, valid
python3 - "$tmp/million.yaml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("data: {classes: [" + ",".join(["1"] * 1000000) + "]}\n")
PY
if ( ulimit -v 250000; "$REPLEX" keys > /dev/null 2>&1 ); then
    ( ulimit -v 250000; exec "$REPLEX" validate "$tmp/million.yaml" ) \
        > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "million.yaml:[0-9:]* out of memory" "$tmp/err"; then
        ok oom_message
    elif [ $rc -eq 0 ]; then
        ok "oom_message (fits in the limit here)"
    else
        bad oom_message "exit $rc: $(head -c 300 "$tmp/err")"
    fi
else
    echo "skip oom_message: replex does not start under a 250 MB limit here"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
