#!/usr/bin/env bash
# The CLI as a user meets it: help of every command, exit statuses (0 ok,
# 1 run failed, 2 bad input), progress lines when stderr is not a terminal,
# the terminal progress line (under script(1) when present), --quiet,
# SIGINT / SIGTERM during a run (exit 1, a message, nothing written),
# --force, and output paths that cannot be written (refused before the run
# with 2) or fill up during the writing (1, no temporary directory left).
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root;  RX_REPLEX  the replex binary
#
# Output: one line per case (ok NAME / FAIL NAME: why / skip NAME: why),
# then "N passed, M failed"; exit status 1 if M > 0.

set -u

SRCDIR=${RX_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
REPLEX=${RX_REPLEX:-$SRCDIR/build/replex}
if [ ! -x "$REPLEX" ]; then
    echo "FAIL setup: $REPLEX is not an executable"
    echo "0 passed, 1 failed"
    exit 1
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/replex-ux-test.XXXXXX") || exit 1
MNT=""
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    chmod -R u+w "$W" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
cd "$W" || exit 1

npass=0 nfail=0 nskip=0
ok()   { npass=$((npass + 1)); echo "ok $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: $2"; }
skip() { nskip=$((nskip + 1)); echo "skip $1: $2"; }
line1() { head -n 1 "$1" 2>/dev/null; }

# run_rx NAME EXPECTED_RC ARGS...: runs replex with stdout/stderr in
# out/err; fails NAME (and returns 1) when the status differs
run_rx() {
    local name=$1 want=$2
    shift 2
    "$REPLEX" "$@" > out 2> err < /dev/null
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want [$(line1 err)]"
        return 1
    fi
    return 0
}

# nothing named DIR, DIR.tmp-*, DIR.probe-* (the temporary and probe names)
nothing_at() {
    [ ! -e "$1" ] && [ -z "$(ls -d "$1".tmp-* "$1".probe-* 2>/dev/null)" ]
}

cat > tiny.yaml <<'EOF'
seed: 11
iterations: 20000
tempering:
  n_chains: 4
  scheme: deo_w
  window: 3
  window_correction: logW   # unbiased with Metropolis swaps: no warning
ladder:
  eta: {min: 0.001, max: 0.01}
  tau: [1, 2, 4, 8]
record:
  trace_every: 100
EOF

# ---------------------------------------------------------------------------
# Help.
# ---------------------------------------------------------------------------

for form in "--help" "-h" "help"; do
    if run_rx "help[$form]" 0 $form; then
        if ! grep -q '^usage: replex <command>' out; then
            fail "help[$form]" "no usage line: $(line1 out)"
        elif ! grep -q '^exit status: 0 ok; 1 the run failed' out; then
            fail "help[$form]" "the exit statuses are not documented"
        elif [ -s err ]; then
            fail "help[$form]" "wrote to stderr: $(line1 err)"
        else
            ok "help[$form]"
        fi
    fi
done
cp out general_help

# every command listed by --help has its own help, three ways, identical
cmds=$(sed -n '/^commands:/,/^$/p' general_help | awk 'NF > 1 {print $1}')
ncmds=0
for c in $cmds; do
    ncmds=$((ncmds + 1))
    if ! run_rx "help_$c" 0 help "$c"; then continue; fi
    cp out h1
    if ! grep -q "^usage: replex $c" h1; then
        fail "help_$c" "no usage line: $(line1 h1)"
        continue
    elif ! grep -q -- '-h, --help' h1 && [ "$c" != help ]; then
        fail "help_$c" "does not list -h, --help"
        continue
    elif ! grep -q '^exit status:' h1; then
        fail "help_$c" "no exit statuses"
        continue
    fi
    run_rx "help_$c" 0 "$c" --help || continue
    cmp -s h1 out || { fail "help_$c" "'$c --help' differs from 'help $c'"; continue; }
    run_rx "help_$c" 0 "$c" -h || continue
    cmp -s h1 out || { fail "help_$c" "'$c -h' differs from 'help $c'"; continue; }
    run_rx "help_$c" 0 --help "$c" || continue
    cmp -s h1 out || { fail "help_$c" "'--help $c' differs"; continue; }
    ok "help_$c"
done
for c in run validate keys info help; do
    case " $(echo $cmds) " in
        *" $c "*) ;;
        *) fail "help_lists_$c" "'replex --help' does not list $c" ;;
    esac
done
[ "$ncmds" -ge 5 ] && ok help_lists_commands

# run's help lists every option with its default
run_rx help_run_options 0 help run
miss=""
for o in -o --out --threads --set --force --quiet --no-plots \
         --progress-every --progress-interval; do
    grep -q -- "$o\b" out || miss="$miss $o"
done
if [ -n "$miss" ]; then
    fail help_run_options "not listed:$miss"
elif [ "$(grep -c 'default' out)" -lt 8 ]; then
    fail help_run_options "options without their defaults"
else
    ok help_run_options
fi
# --help wins wherever it stands, even after a file that does not exist
if run_rx help_after_args 0 run no-such-file.yaml -o x --help; then
    if grep -q '^usage: replex run' out && nothing_at x; then
        ok help_after_args
    else
        fail help_after_args "no run help, or something written"
    fi
fi

if run_rx help_unknown 2 help bogus; then
    [ "$(cat err)" = "replex: help: unknown command 'bogus'
Try 'replex --help'." ] \
        && ok help_unknown || fail help_unknown "stderr [$(line1 err)]"
fi
if run_rx no_args 2; then
    grep -q '^usage: replex' err && [ ! -s out ] && ok no_args \
        || fail no_args "usage not on stderr"
fi
if run_rx version 0 --version; then
    grep -q '^replex [0-9]' out && ok version || fail version "[$(line1 out)]"
fi
if run_rx info_extra_operand 2 info extra; then
    [ "$(cat err)" = "replex: info: unexpected argument 'extra'
Try 'replex info --help'." ] \
        && ok info_extra_operand || fail info_extra_operand "stderr [$(line1 err)]"
fi
run_rx info_extra_arg 2 info --bogus && ok info_extra_arg

# ---------------------------------------------------------------------------
# Exit statuses of run.
# ---------------------------------------------------------------------------

# bad input: 2, nothing written, stderr exactly msg (a usage error: its
# line and the hint "Try 'replex CMD --help'.", made by usage)
usage() { printf "replex: %s: %s\nTry 'replex %s --help'." "$1" "$2" "$1"; }
check2() {
    local name=$1 msg=$2
    shift 2
    if run_rx "$name" 2 "$@"; then
        if [ "$(cat err)" != "$msg" ]; then
            fail "$name" "stderr [$(cat err)], expected [$msg]"
        elif ! nothing_at r2; then
            fail "$name" "wrote r2"
        else
            ok "$name"
        fi
    fi
}
check2 exit2_unknown_option "$(usage run "unknown option '--bogus'")" \
    run tiny.yaml -o r2 --bogus
check2 exit2_threads "$(usage run "--threads: expected an integer in [0, 4096], got 'x'")" \
    run tiny.yaml -o r2 --threads x
check2 exit2_progress_every "$(usage run "--progress-every: expected an integer in [0, 1000000000000], got '-1'")" \
    run tiny.yaml -o r2 --progress-every -1
check2 exit2_progress_interval "$(usage run "--progress-interval: expected seconds >= 0, got 'soon'")" \
    run tiny.yaml -o r2 --progress-interval soon
check2 exit2_missing_file "replex: no-such.yaml: cannot open: No such file or directory" \
    run no-such.yaml -o r2
check2 exit2_bad_value "replex: --set:1:20: tempering.n_chains: value 0 out of range: must be in [1, 1048576]" \
    run tiny.yaml -o r2 --set tempering.n_chains=0
check2 exit2_two_files "$(usage run "one experiment file only ('tiny.yaml')")" \
    run tiny.yaml tiny.yaml -o r2
check2 exit2_validate_option "$(usage validate "unknown option '-o'")" \
    validate tiny.yaml -o r2

# a run that fails (non-finite energies): 1, a message, nothing written
if run_rx exit1_run_failed 1 run tiny.yaml -o r1 --no-plots \
        --set ladder.eta=1e300; then
    if ! grep -q '^replex: run failed: rx_run: particle .* non-finite' err; then
        fail exit1_run_failed "stderr [$(line1 err)]"
    elif ! nothing_at r1; then
        fail exit1_run_failed "wrote r1"
    else
        ok exit1_run_failed
    fi
fi

# ---------------------------------------------------------------------------
# Option syntax (getopt_long), one-line usage errors, keys SECTION,
# validate's keys that apply, shortest numbers, the notes of a run.
# ---------------------------------------------------------------------------

# --threads=2 and --threads 2; -oDIR and -o DIR; bundled -qo DIR
if run_rx opt_long_equals 0 run tiny.yaml --threads=2 -oe1 --no-plots -q \
        --set=iterations=200; then
    if [ ! -s e1/samples.npy ]; then
        fail opt_long_equals "-oe1 did not write e1"
    elif ! grep -q '^threads: 2$' e1/config.yaml ||
         ! grep -q '^iterations: 200$' e1/config.yaml; then
        fail opt_long_equals "--threads=2 / --set=k=v not applied"
    elif [ -s out ] || [ -s err ]; then
        fail opt_long_equals "printed with -q: $(line1 out)$(line1 err)"
    else
        ok opt_long_equals
    fi
fi
if run_rx opt_bundled 0 run -qo e2 tiny.yaml --threads 1 --no-plots \
        --set iterations=200; then
    [ -s e2/samples.npy ] && grep -q '^threads: 1$' e2/config.yaml &&
        [ ! -s out ] && ok opt_bundled || fail opt_bundled "-qo e2 not taken"
fi
# -- ends the options: a file whose name starts with '-'
cp tiny.yaml ./-t.yaml
if run_rx opt_dashdash 0 run -o e3 -q --no-plots -- -t.yaml; then
    [ -s e3/samples.npy ] && ok opt_dashdash || fail opt_dashdash "no e3"
fi
check2 opt_no_dashdash "$(usage run "unknown option '-t'")" \
    run -o r2 -q -t.yaml
# a usage error is one line and the hint, never the help
check2 usage_missing_value "$(usage run "option '-o' needs a value")" \
    run tiny.yaml -o
check2 usage_flag_value "$(usage run "option '--force' takes no value")" \
    run tiny.yaml -o r2 --force=yes
check2 usage_ambiguous "$(usage run "option '--progress' is ambiguous (--progress-every, --progress-interval)")" \
    run tiny.yaml -o r2 --progress 3
check2 usage_missing_file "$(usage run "missing FILE.yaml")" run -o r2
check2 usage_bench "$(usage bench "unknown option '--bogus'")" bench --bogus
check2 usage_unknown_command "replex: unknown command 'runn'
Try 'replex --help'." runn tiny.yaml

# keys SECTION: only that section's keys; an unknown one names them all.
# A key whose value is a table's row lists the rows below it, indented
# (keys_all: the key lines only)
"$REPLEX" keys 2> /dev/null | grep -v '^    ' > keys_all
if run_rx keys_section 0 keys ladder; then
    nl=$(grep -c '^ladder\.' keys_all)
    if [ "$nl" -lt 3 ] || [ "$(grep -vc '^    ' out)" -ne "$nl" ] ||
       grep -v '^    ' out | grep -qv '^ladder\.'; then
        fail keys_section "$(wc -l < out) lines for $nl ladder keys: $(line1 out)"
    else
        ok keys_section
    fi
fi
if run_rx keys_sections 0 keys step seed; then
    n=$(grep -Ec '^(step\.|seed )' keys_all)
    # the step rules under step.target, from the table: sgld ... sgnht
    [ "$(grep -vc '^    ' out)" -eq "$n" ] &&
        ! grep -v '^    ' out | grep -Eqv '^(step\.|seed )' &&
        grep -A1 '^step\.target ' out | grep -q '^    sgld ' &&
        ok keys_sections || fail keys_sections "$(wc -l < out) lines, expected $n key lines and the rules"
fi
if run_rx keys_unknown 2 keys ladders; then
    if [ "$(wc -l < err)" -ne 2 ] || [ -s out ]; then
        fail keys_unknown "not one line and a hint: $(cat err)"
    elif ! grep -q "^replex: keys: unknown section 'ladders' (one of rng, target, data, .*ladder, step, .*bias" err; then
        fail keys_unknown "[$(line1 err)]"
    else
        ok keys_unknown
    fi
fi

# validate: the keys that apply to the target and sampler; --all: every key
leaves() { grep -c '^ *[a-z_0-9]*: [^ ]' "$1"; } # "key: value" lines
if run_rx validate_analytic 0 validate tiny.yaml; then
    cp out v_analytic
    bad=$(grep -E '^(data|model|evaluate|variance|correction):|^  (bins|sgnht_c|momentum|batch_size|means|betas|reference_sd):' out | tr '\n' ' ')
    if [ -n "$bad" ]; then
        fail validate_analytic "keys that do not apply: $bad"
    elif ! grep -q '^  window: 3$' out || ! grep -q '^  confine_radius2: ' out ||
         ! grep -q '^  kind: none$' out; then
        fail validate_analytic "keys that apply are missing"
    elif ! grep -q '^# [0-9]* keys that do not apply are not shown' out; then
        fail validate_analytic "no note of the keys left out"
    else
        ok validate_analytic
    fi
fi
if run_rx validate_network 0 validate "$SRCDIR/yaml/mlp_synthetic.yaml"; then
    if ! grep -q '^data:' out || ! grep -q '^  synthetic_n: 1000$' out ||
       ! grep -q '^model:' out || ! grep -q '^  precision_a: ' out; then
        fail validate_network "the data and model keys are missing"
    elif grep -Eq '^  (confine_radius2|pixel_mean|labels_path|header|low|grid_bins):' out; then
        fail validate_network "keys of other targets or formats: $(grep -E '^  (confine_radius2|pixel_mean|labels_path|header|low|grid_bins):' out | tr '\n' ' ')"
    else
        ok validate_network
    fi
fi
# the temperature ladder applies to the temperature path only: the
# reference path steps at temperature 1 and shows its betas instead
cat > ref.yaml <<'EOF'
seed: 5
iterations: 300
tempering: {n_chains: 4}
ladder:
  path: reference
  reference_sd: 3
  eta: {min: 0.001, max: 0.01}
  tau: [1, 2, 4, 8]
record: {burn_in: 200}
EOF
if run_rx validate_ref_path 0 validate ref.yaml; then
    if grep -q '^  tau:' out; then
        fail validate_ref_path "ladder.tau shown: $(grep '^  tau:' out)"
    elif ! grep -q '^  beta_exponent: 3$' out; then
        fail validate_ref_path "ladder.beta_exponent missing"
    else
        ok validate_ref_path
    fi
fi
if run_rx validate_temperature_path 0 validate tiny.yaml; then
    grep -q '^  tau: \[1, 2, 4, 8\]$' out && ! grep -q '^  beta_exponent:' out &&
        ok validate_temperature_path ||
        fail validate_temperature_path "ladder.tau missing or betas shown"
fi
if run_rx validate_ref_path_all 0 validate --all ref.yaml; then
    grep -q '^  tau: \[1, 2, 4, 8\]$' out && ok validate_ref_path_all ||
        fail validate_ref_path_all "--all leaves ladder.tau out"
fi
# log Z: 100 kept rows per position give a number; 99 give "not valid" and
# the reason, in summary.json and on the terminal (never "+- nan"). The
# valid run spreads its rows and takes steps at beta = 0 that cross the
# reference (ref.yaml's 100 rows of 300 iterations at eta 0.01 do not: the
# check of the beta = 0 chain reports that log Z as not valid)
if run_rx logz_valid 0 run ref.yaml -o r_logz100 --no-plots \
        --set iterations=2200 --set record.thin=20 \
        --set 'ladder.eta={min: 0.001, max: 0.3}'; then
    grep -q '^log Z (stepping stone): -\{0,1\}[0-9.]* +- [0-9.]* (se)$' out &&
        grep -q '"log_z": {"valid": true, "estimate"' r_logz100/summary.json &&
        ok logz_valid ||
        fail logz_valid "$(grep '^log Z' out)"
fi
if run_rx logz_too_few_rows 0 run ref.yaml -o r_logz99 --no-plots \
        --set record.burn_in=201; then
    why='99 kept rows per position; the standard error needs at least 100'
    if ! grep -q "^log Z (stepping stone): not valid: $why" out; then
        fail logz_too_few_rows "terminal: $(grep '^log Z' out)"
    elif ! grep -q "\"log_z\": {\"valid\": false, \"reason\": \"$why" \
            r_logz99/summary.json; then
        fail logz_too_few_rows "summary.json: $(grep '"log_z"' r_logz99/summary.json)"
    elif ! grep -q "^replex: warning: --set:1:16: record.burn_in: 99 kept rows" err; then
        fail logz_too_few_rows "no warning: $(line1 err)"
    else
        ok logz_too_few_rows
    fi
fi
# a key appears once its condition holds
if run_rx validate_conditional 0 validate tiny.yaml --set bias.kind=csgld \
        --set step.others=sgnht --set tempering.rule=deterministic; then
    grep -q '^  bins: 100$' out && grep -q '^  sgnht_c: 0.1$' out &&
        grep -q '^correction:' out && ok validate_conditional ||
        fail validate_conditional "bias.bins, step.sgnht_c or correction missing"
fi
if run_rx validate_all 0 validate --all tiny.yaml; then
    if [ "$(leaves out)" -ne "$(wc -l < keys_all)" ]; then
        fail validate_all "$(leaves out) keys, replex keys lists $(wc -l < keys_all)"
    elif [ "$(leaves v_analytic)" -ge "$(leaves out)" ]; then
        fail validate_all "validate shows as many keys as --all"
    else
        ok validate_all
    fi
fi

# numbers in their shortest exact form: config.yaml, summary.json, validate
if run_rx shortest_numbers 0 run tiny.yaml -o n1 -q --no-plots \
        --set ladder.eta=0.003 --set iterations=2000 \
        --set target.grad_noise_sd=0.1; then
    if ! grep -q '^  eta: 0.003$' n1/config.yaml ||
       ! grep -q '^  grad_noise_sd: 0.1$' n1/config.yaml; then
        fail shortest_numbers "config.yaml: $(grep -E '^  (eta|grad_noise_sd):' n1/config.yaml | tr '\n' ' ')"
    elif ! grep -q '"eta": \[0.003, 0.003, 0.003, 0.003\]' n1/summary.json; then
        fail shortest_numbers "summary.json: $(grep -o '"eta": [^]]*' n1/summary.json)"
    elif ! python3 - n1/summary.json n1/config.yaml <<'PY'
import re, sys
# every number: as few significant digits as the shortest that reads back
bad = []
for f in sys.argv[1:]:
    for t in re.findall(r'(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?', open(f).read()):
        sig = lambda s: len(s.split('e')[0].replace('-', '').replace('.', '').lstrip('0').rstrip('0') or '0')
        if sig(t) > sig(repr(float(t))):
            bad.append(f + ': ' + t)
print(' '.join(bad[:5]))
sys.exit(1 if bad else 0)
PY
    then
        fail shortest_numbers "longer than needed"
    else
        ok shortest_numbers
    fi
fi
if run_rx shortest_validate 0 validate tiny.yaml --set ladder.eta=0.003; then
    grep -q '^  eta: 0.003$' out && ok shortest_validate ||
        fail shortest_validate "$(grep '^  eta:' out)"
fi

# the notes of a run (thread efficiency, ...): not in a short default
# run, printed with -v
if run_rx notes_default 0 run tiny.yaml -o q1 --threads 2 --no-plots; then
    if grep -q 'replex: info:' err; then
        fail notes_default "a short run printed notes: $(grep 'info:' err | head -n 1)"
    elif ! grep -q '^q1: 20000 iterations' out; then
        fail notes_default "no summary"
    else
        ok notes_default
    fi
fi
if run_rx notes_verbose 0 run tiny.yaml -o q2 --threads 2 --no-plots -v; then
    if ! grep -q '^replex: info: run done: 20000 iterations' err; then
        fail notes_verbose "no notes with -v: [$(line1 err)]"
    elif python3 -c "import json,sys; w=json.load(open('q2/summary.json'))['timing'].get('wait_share'); sys.exit(0 if w and sum(w)/len(w) >= 0.25 else 1)" 2>/dev/null &&
         ! grep -q 'replex: info: the 2 threads waited for each other' err; then
        fail notes_verbose "the threads waited, but no note with -v"
    else
        ok notes_verbose
    fi
fi

# ---------------------------------------------------------------------------
# Progress, --quiet.
# ---------------------------------------------------------------------------

pline='^replex: run: [0-9]+% \([0-9]+/20000 iterations\), [0-9.]+[kMG]? it/s, [0-9.]+[kMG]? chain-steps/s, ETA [0-9:?]+, round trips [0-9]+, mean acceptance [01]\.[0-9]{3}$'
if run_rx progress_plain 0 run tiny.yaml -o p1 --no-plots \
        --progress-interval 0 --progress-every 100; then
    n=$(grep -Ec "$pline" err)
    pct=$(grep -E "$pline" err | sed -E 's/^replex: run: ([0-9]+)%.*/\1/' |
          tr '\n' ' ')
    if [ "$n" -ne 10 ]; then
        fail progress_plain "$n progress lines, expected 10 (every tenth): $(head -c 300 err)"
    elif [ "$pct" != "10 20 30 40 50 60 70 80 90 100 " ]; then
        fail progress_plain "percentages: $pct"
    elif grep -q $'\r' err; then
        fail progress_plain "carriage returns when stderr is a file"
    elif ! grep -q '^p1: 20000 iterations x 4 chains' out; then
        fail progress_plain "no summary on stdout"
    else
        ok progress_plain
    fi
fi
# the 10-second floor: a short run prints no progress line
if run_rx progress_interval 0 run tiny.yaml -o p2 --no-plots; then
    if grep -q '^replex: run: ' err; then
        fail progress_interval "progress lines in a run shorter than 10 s"
    else
        ok progress_interval
    fi
fi
if run_rx progress_off 0 run tiny.yaml -o p3 --no-plots --progress-every 0 \
        --progress-interval 0; then
    if grep -q '^replex: run: ' err; then
        fail progress_off "progress lines with --progress-every 0"
    elif [ ! -s out ]; then
        fail progress_off "no summary"
    else
        ok progress_off
    fi
fi
if run_rx quiet 0 run tiny.yaml -o p4 --no-plots --quiet \
        --progress-interval 0; then
    if [ -s out ] || [ -s err ]; then
        fail quiet "printed: $(line1 out) $(line1 err)"
    elif [ ! -s p4/samples.npy ]; then
        fail quiet "no run directory"
    else
        ok quiet
    fi
fi
# same results with and without progress (the callback changes nothing)
if cmp -s p1/samples.npy p4/samples.npy && cmp -s p1/index.npy p4/index.npy
then
    ok progress_same_results
else
    fail progress_same_results "samples.npy or index.npy differ"
fi

# a terminal: one self-overwriting line, ended by a newline
if command -v script > /dev/null 2>&1; then
    script -q -e -c "'$REPLEX' run tiny.yaml -o t1 --no-plots \
        --set iterations=400000" /dev/null > tty.txt 2>&1 < /dev/null
    rc=$?
    last=$(tr '\r' '\n' < tty.txt | grep -a '^run ' | tail -n 1)
    if [ "$rc" -ne 0 ]; then
        fail progress_tty "exit status $rc: $(tail -n 1 tty.txt)"
    elif ! grep -aq $'\r' tty.txt; then
        fail progress_tty "no carriage return on a terminal"
    elif ! echo "$last" | grep -Eq '^run .*100\.0% 400k/400k .* it/s .* steps/s +ETA .* trips [0-9]+ +acc [01]\.[0-9]+'; then
        fail progress_tty "last line [$last]"
    elif grep -aq '^replex: run: ' tty.txt; then
        fail progress_tty "plain lines on a terminal"
    else
        ok progress_tty
    fi
else
    skip progress_tty "script(1) not installed"
fi

# ---------------------------------------------------------------------------
# SIGINT / SIGTERM: the run stops, exit 1, a message, nothing written.
# ---------------------------------------------------------------------------

# interrupt NAME SIGNAL: a long run, the signal after its first progress line
interrupt() {
    local name=$1 sig=$2
    "$REPLEX" run tiny.yaml -o "$name" --no-plots --threads 2 \
        --set iterations=2000000 --set record.index_every=0 \
        --set record.trace_every=0 --set record.thin=1000 \
        --progress-interval 0 --progress-every 1000 > "$name.out" \
        2> "$name.err" < /dev/null &
    local pid=$! t=0
    while ! grep -q '^replex: run: ' "$name.err" 2>/dev/null && [ $t -lt 600 ]; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
        t=$((t + 1))
    done
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"
    local rc=$?
    local msg
    msg=$(grep -v '^replex: run: ' "$name.err" | head -n 1)
    if ! grep -q '^replex: run: ' "$name.err"; then
        fail "$name" "no progress line before the signal (rc $rc): $(line1 "$name.err")"
    elif [ "$rc" -ne 1 ]; then
        fail "$name" "exit status $rc, expected 1"
    elif ! echo "$msg" | grep -Eq "^replex: interrupted \($sig\) at iteration [0-9]+ of 2000000; nothing written( \(.*\))?$"; then
        fail "$name" "message [$msg]"
    elif ! nothing_at "$name"; then
        fail "$name" "left $(ls -d "$name"* | tr '\n' ' ')"
    elif [ -s "$name.out" ]; then
        fail "$name" "printed a summary: $(line1 "$name.out")"
    else
        ok "$name"
    fi
}
interrupt sigint SIGINT
interrupt sigterm SIGTERM

# ---------------------------------------------------------------------------
# --force, existing and unwritable output paths.
# ---------------------------------------------------------------------------

run_rx force_first 0 run tiny.yaml -o f1 --no-plots -q && ok force_first
touch f1/marker
if run_rx force_refused 2 run tiny.yaml -o f1 --no-plots -q; then
    exp="replex: f1: already exists; choose another -o or pass --force"
    if [ "$(cat err)" != "$exp" ]; then
        fail force_refused "stderr [$(line1 err)]"
    elif [ ! -e f1/marker ] || [ -n "$(ls -d f1.tmp-* 2>/dev/null)" ]; then
        fail force_refused "f1 was modified or a temporary directory left"
    else
        ok force_refused
    fi
fi
if run_rx force_replaces 0 run tiny.yaml -o f1 --no-plots -q --force; then
    if [ -e f1/marker ] || [ ! -s f1/samples.npy ]; then
        fail force_replaces "f1 not replaced"
    elif [ -n "$(ls -d f1.tmp-* f1.probe-* 2>/dev/null)" ]; then
        fail force_replaces "temporary directory left"
    else
        ok force_replaces
    fi
fi
# an existing regular file is not overwritten either
echo keep > ffile
if run_rx force_file 2 run tiny.yaml -o ffile --no-plots -q &&
   [ "$(cat ffile)" = keep ]; then
    ok force_file
else
    fail force_file "the file was touched"
fi
# a sweep directory too
cat > sweep.yaml <<'EOF'
seed: 3
iterations: 2000
tempering: {n_chains: 4, scheme: deo}
ladder: {eta: 0.001, tau: {min: 1, max: 8}}
sweep:
  seed: [1, 2]
EOF
run_rx sweep_first 0 run sweep.yaml -o s1 --no-plots -q && ok sweep_first
if run_rx sweep_refused 2 run sweep.yaml -o s1 --no-plots -q; then
    [ "$(cat err)" = "replex: s1: already exists; choose another -o or pass --force" ] \
        && ok sweep_refused || fail sweep_refused "stderr [$(line1 err)]"
fi

# unwritable paths are refused before the run: 2, a clear message
touch afile
check_unwritable() {
    local name=$1 dir=$2 msg=$3
    if run_rx "$name" 2 run tiny.yaml -o "$dir" --no-plots; then
        if [ "$(line1 err)" != "$msg" ]; then
            fail "$name" "stderr [$(line1 err)], expected [$msg]"
        elif ! nothing_at "$dir"; then
            fail "$name" "left something at $dir"
        elif [ -s out ]; then
            fail "$name" "the run went ahead"
        else
            ok "$name"
        fi
    fi
}
check_unwritable unwritable_notdir afile/out \
    "replex: afile/out: cannot create the run directory: Not a directory"
check_unwritable unwritable_parent afile/sub/out \
    "replex: afile/sub/out: cannot create the parent directories: Not a directory"
if [ "$(id -u)" -ne 0 ]; then
    mkdir ro && chmod 555 ro
    check_unwritable unwritable_readonly ro/out \
        "replex: ro/out: cannot create the run directory: Permission denied"
else
    # root writes through permissions; /proc refuses everyone
    check_unwritable unwritable_proc /proc/replex-ux-test \
        "replex: /proc/replex-ux-test: cannot create the run directory: No such file or directory"
fi

# a full disk while writing: 1, the file and the reason, no temporary
# directory left. RLIMIT_FSIZE with SIGXFSZ ignored makes write(2) fail with
# EFBIG like a full disk does with ENOSPC.
(trap '' XFSZ; ulimit -f 4; exec "$REPLEX" run tiny.yaml -o full1 --no-plots) \
    > out 2> err < /dev/null
rc=$?
if [ "$rc" -ne 1 ]; then
    fail disk_full_fsize "exit status $rc, expected 1 [$(line1 err)]"
elif ! grep -Eq '^replex: full1\.tmp-[0-9]+/[a-z]+\.(csv|npy|json|yaml): (write failed|cannot write): File too large$' err; then
    fail disk_full_fsize "stderr [$(grep -v info: err | head -n 1)]"
elif ! nothing_at full1; then
    fail disk_full_fsize "left $(ls -d full1* | tr '\n' ' ')"
else
    ok disk_full_fsize
fi
# a real full file system when a small tmpfs can be mounted (root only)
mkdir -p mnt
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=16k tmpfs mnt 2>/dev/null
then
    MNT=$W/mnt
    run_rx disk_full_tmpfs 1 run tiny.yaml -o mnt/out --no-plots
    if ! grep -Eq '^replex: mnt/out\.tmp-[0-9]+/[a-z]+\.(csv|npy|json|yaml): (write failed|cannot write): No space left on device$' err; then
        fail disk_full_tmpfs "stderr [$(grep -v info: err | head -n 1)]"
    elif [ -n "$(ls -A mnt)" ]; then
        fail disk_full_tmpfs "left $(ls -A mnt | tr '\n' ' ')"
    else
        ok disk_full_tmpfs
    fi
    umount mnt && MNT=""
else
    skip disk_full_tmpfs "cannot mount a tmpfs here"
fi

# --- data that cannot fit: refused before anything is generated ----------
# (issue 5: "a full-data pass larger than memory allows"); the limit is the
# address space (ulimit -v, 4 GB) against 10^9 data points (7.45 GiB). An
# ASan binary cannot start under such a limit: skipped there.
if (ulimit -v 4000000; "$REPLEX" --version) > /dev/null 2>&1; then
    (ulimit -v 4000000
     "$REPLEX" run "$SRCDIR/yaml/vr_mixture_data.yaml" -o toobig --no-plots \
         -q --set target.n_data=1000000000 > out 2> err < /dev/null)
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail data_beyond_memory "exit status $rc, expected 2 [$(line1 err)]"
    elif ! grep -q 'target.n_data: 1000000000 data points take 7.45 GiB, more than 80 % of the 3.81 GiB this process may use (memory or ulimit -v)' err; then
        fail data_beyond_memory "stderr [$(line1 err)]"
    elif [ -e toobig ]; then
        fail data_beyond_memory "wrote toobig"
    else
        ok data_beyond_memory
    fi
else
    skip data_beyond_memory "replex does not start under ulimit -v 4000000"
fi

echo "$npass passed, $nfail failed$([ "$nskip" -gt 0 ] && echo " ($nskip skipped)")"
[ "$nfail" -eq 0 ]
