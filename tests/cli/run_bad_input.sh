#!/usr/bin/env bash
# End-to-end CLI tests: bad input is refused with exit status 2, the exact
# message, and nothing written; plus a few positive checks of the commands.
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root; the script runs from there so that paths in
#              messages read tests/cli/bad/NAME.yaml
#   RX_REPLEX  the replex binary
#
# Fixtures, in tests/cli/bad/ (one case per NAME.expect):
#   NAME.yaml     the experiment file (absent for missing_file)
#   NAME.expect   the exact stderr of `replex run tests/cli/bad/NAME.yaml
#                 -o DIR [ARGS]`; run from RX_SRCDIR
#   NAME.args     optional extra arguments, one per line
#   NAME.xfail    optional: the message is known to be wrong (first line says
#                 why, with the source location); NAME.expect then holds the
#                 CORRECT message. Exit status and "nothing written" are still
#                 checked strictly. When the message starts to match, the case
#                 fails (XPASS) so that the .xfail file gets deleted.
#
# Each case NAME is also run as `replex validate FILE [ARGS]` (case
# NAME/validate), which must exit 2 with the same message as run, unless
# NAME.args holds a run-only option (--threads). validate builds the target
# as run does (data files, network shapes), so no file is run-only.
#
# Output: one line per case (ok NAME / FAIL NAME: why / xfail NAME: why /
# skip NAME: why), then "N passed, M failed"; exit status 1 if M > 0.

set -u

SRCDIR=${RX_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
REPLEX=${RX_REPLEX:-$SRCDIR/build/replex}
BAD=tests/cli/bad

cd "$SRCDIR" || { echo "FAIL setup: cannot cd to $SRCDIR"; echo "0 passed, 1 failed"; exit 1; }
if [ ! -x "$REPLEX" ]; then
    echo "FAIL setup: $REPLEX is not an executable"
    echo "0 passed, 1 failed"
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/replex-cli-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

npass=0 nfail=0 nxfail=0 nskip=0
ok()    { npass=$((npass + 1)); echo "ok $1"; }
fail()  { nfail=$((nfail + 1)); echo "FAIL $1: $2"; }
xfail() { nxfail=$((nxfail + 1)); echo "xfail $1: $2"; }
skip()  { nskip=$((nskip + 1)); echo "skip $1: $2"; }

# first line of a file, for messages
line1() { head -n 1 "$1" 2>/dev/null; }

# A fresh empty directory under $WORK.
fresh() { mktemp -d "$WORK/case.XXXXXX"; }

# ---------------------------------------------------------------------------
# Bad input.
# ---------------------------------------------------------------------------

shopt -s nullglob
ncases=0
for expect in "$BAD"/*.expect; do
    name=$(basename "$expect" .expect)
    file=$BAD/$name.yaml
    ncases=$((ncases + 1))
    args=()
    if [ -f "$BAD/$name.args" ]; then
        mapfile -t args < "$BAD/$name.args"
    fi
    if [ "$name" = missing_file ] && [ -e "$file" ]; then
        fail "$name" "$file must not exist"
        continue
    fi

    # -- replex run FILE -o DIR/out ARGS --
    tmp=$(fresh)
    "$REPLEX" run "$file" -o "$tmp/out" "${args[@]}" \
        > "$WORK/stdout" 2> "$WORK/stderr" < /dev/null
    rc=$?
    why=""
    if [ "$rc" -ne 2 ]; then
        why="exit status $rc, expected 2"
    elif [ -e "$tmp/out" ]; then
        why="created the run directory $tmp/out"
    elif [ -n "$(ls -A "$tmp")" ]; then
        why="left files in the output's parent: $(ls -A "$tmp" | tr '\n' ' ')"
    elif [ -s "$WORK/stdout" ]; then
        why="wrote to stdout: $(line1 "$WORK/stdout")"
    fi
    same=0
    cmp -s "$expect" "$WORK/stderr" && same=1
    if [ -n "$why" ]; then
        fail "$name" "$why"
    elif [ -f "$BAD/$name.xfail" ]; then
        if [ "$same" -eq 1 ]; then
            fail "$name" "XPASS: the message is now right; delete $BAD/$name.xfail"
        else
            xfail "$name" "$(line1 "$BAD/$name.xfail") [got: $(line1 "$WORK/stderr")]"
        fi
    elif [ "$same" -eq 1 ]; then
        ok "$name"
    else
        fail "$name" "stderr differs: expected [$(line1 "$expect")] got [$(line1 "$WORK/stderr")]$([ "$(wc -l < "$WORK/stderr")" -gt 1 ] && echo ' (+ more lines)')"
    fi
    cp "$WORK/stderr" "$WORK/run_stderr"
    rm -rf "$tmp"

    # -- replex validate FILE ARGS: same verdict as run --
    case " ${args[*]:-} " in
        *" --threads "*) continue ;;  # an option of run only
    esac
    "$REPLEX" validate "$file" "${args[@]}" \
        > "$WORK/stdout" 2> "$WORK/stderr" < /dev/null
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name/validate" "exit status $rc, expected 2"
    elif ! cmp -s "$WORK/run_stderr" "$WORK/stderr"; then
        fail "$name/validate" "message differs from run: [$(line1 "$WORK/stderr")]"
    elif [ -s "$WORK/stdout" ]; then
        fail "$name/validate" "wrote to stdout"
    else
        ok "$name/validate"
    fi
done
shopt -u nullglob

# every fixture has its expectation
for y in "$BAD"/*.yaml; do
    n=$(basename "$y" .yaml)
    [ -f "$BAD/$n.expect" ] || fail "$n" "$y has no $BAD/$n.expect"
done
if [ "$ncases" -lt 25 ]; then
    fail fixtures "only $ncases cases in $BAD (expected at least 25)"
fi

# ---------------------------------------------------------------------------
# Positive checks.
# ---------------------------------------------------------------------------

P=$(fresh)
cat > "$P/tiny.yaml" <<'EOF'
# a small valid experiment
seed: 11
iterations: 200
tempering:
  n_chains: 4
  scheme: deo_w
  window: 3
  window_correction: logW   # unbiased with Metropolis swaps: no warning
ladder:
  eta: {min: 0.001, max: 0.01}
  tau: [1, 2, 4, 8]
record:
  trace_every: 10
EOF

# validate, then validate the resolved config: identical output
"$REPLEX" validate "$P/tiny.yaml" > "$P/resolved1.yaml" 2> "$P/err1"
rc=$?
if [ "$rc" -ne 0 ]; then
    fail validate_valid "exit status $rc: $(line1 "$P/err1")"
elif ! grep -q '^  n_chains: 4$' "$P/resolved1.yaml" ||
     ! grep -q '^  window: 3$' "$P/resolved1.yaml" ||
     ! grep -q '^seed: 11$' "$P/resolved1.yaml"; then
    fail validate_valid "resolved config lacks the given values"
elif [ "$(cat "$P/err1")" != "$P/tiny.yaml: valid" ]; then
    fail validate_valid "stderr: $(line1 "$P/err1")"
else
    ok validate_valid
fi
"$REPLEX" validate "$P/resolved1.yaml" > "$P/resolved2.yaml" 2> "$P/err2"
rc=$?
if [ "$rc" -ne 0 ]; then
    fail validate_roundtrip "exit status $rc: $(line1 "$P/err2")"
elif ! cmp -s "$P/resolved1.yaml" "$P/resolved2.yaml"; then
    fail validate_roundtrip "resolved config changed: $(diff "$P/resolved1.yaml" "$P/resolved2.yaml" | head -n 3 | tr '\n' ' ')"
else
    ok validate_roundtrip
fi

# check_run NAME [ARGS]: replex run tiny.yaml -o run exits 0, writes the five
# files and leaves no temporary directory
check_run() {
    local name=$1; shift
    "$REPLEX" run "$P/tiny.yaml" -o "$P/run" "$@" > "$P/out" 2> "$P/err"
    local rc=$? missing="" f
    for f in config.yaml summary.json trace.csv index.npy samples.npy; do
        [ -s "$P/run/$f" ] || missing="$missing $f"
    done
    if [ "$rc" -ne 0 ]; then
        fail "$name" "exit status $rc: $(line1 "$P/err")"
    elif [ -n "$missing" ]; then
        fail "$name" "missing or empty in the run directory:$missing"
    elif [ -n "$(ls -d "$P"/run.tmp-* 2>/dev/null)" ]; then
        fail "$name" "left a temporary directory behind"
    else
        ok "$name"
    fi
}

# run: exit 0 and the five files
check_run run_valid
# the run directory's config.yaml is the resolved config: every key, as
# validate --all prints it (validate alone: the keys that apply)
"$REPLEX" validate --all "$P/tiny.yaml" > "$P/resolved_all.yaml" 2> /dev/null
if cmp -s "$P/run/config.yaml" "$P/resolved_all.yaml"; then
    ok run_config_is_resolved
else
    fail run_config_is_resolved "$P/run/config.yaml differs from validate --all's output"
fi

snapshot() { (cd "$1" && find . -type f -exec sha256sum {} + | sort \
              && find . -printf '%p %i %s %T@\n' | sort); }
snapshot "$P/run" > "$P/snap1"

# a second run to the same directory: refused, first run untouched
"$REPLEX" run "$P/tiny.yaml" -o "$P/run" > "$P/out" 2> "$P/err"
rc=$?
snapshot "$P/run" > "$P/snap2"
exp="replex: $P/run: already exists; choose another -o or pass --force"
if [ "$rc" -ne 2 ]; then
    fail run_exists "exit status $rc, expected 2"
elif [ "$(cat "$P/err")" != "$exp" ]; then
    fail run_exists "stderr [$(line1 "$P/err")], expected [$exp]"
elif ! cmp -s "$P/snap1" "$P/snap2"; then
    fail run_exists "the existing run directory was modified"
elif [ -n "$(ls -d "$P"/run.tmp-* 2>/dev/null)" ]; then
    fail run_exists "left a temporary directory behind"
else
    ok run_exists
fi

# --force replaces it
check_run run_force --force

# keys, info, unknown command, missing arguments
"$REPLEX" keys > "$P/keys" 2> "$P/err"
rc=$?
if [ "$rc" -ne 0 ]; then
    fail keys "exit status $rc"
elif ! grep -q '^tempering\.n_chains ' "$P/keys"; then
    fail keys "tempering.n_chains is not listed"
else
    ok keys
fi

"$REPLEX" info > "$P/info" 2> "$P/err"
rc=$?
if [ "$rc" -ne 0 ]; then
    fail info "exit status $rc"
elif [ ! -s "$P/info" ]; then
    fail info "printed nothing"
else
    ok info
fi

"$REPLEX" bogus > "$P/out" 2> "$P/err"
rc=$?
if [ "$rc" -ne 2 ]; then
    fail unknown_command "exit status $rc, expected 2"
elif [ "$(cat "$P/err")" != "replex: unknown command 'bogus'
Try 'replex --help'." ]; then
    fail unknown_command "stderr [$(line1 "$P/err")]"
else
    ok unknown_command
fi

"$REPLEX" > "$P/out" 2> "$P/err"
rc=$?
[ "$rc" -eq 2 ] && ok no_command || fail no_command "exit status $rc, expected 2"

"$REPLEX" run > "$P/out" 2> "$P/err"
rc=$?
if [ "$rc" -ne 2 ]; then
    fail run_no_file "exit status $rc, expected 2"
elif [ "$(cat "$P/err")" != "replex: run: missing FILE.yaml
Try 'replex run --help'." ]; then
    fail run_no_file "stderr [$(line1 "$P/err")]"
else
    ok run_no_file
fi

rm -rf "$P"

if [ "$nxfail" -gt 0 ] || [ "$nskip" -gt 0 ]; then
    echo "($nxfail known-wrong messages (xfail), $nskip skipped; see $BAD/*.xfail)"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
