#!/usr/bin/env bash
# replex bench on bench/grid_tiny.yaml (16 cells, 2000 iterations, about a
# second): bench.csv has the expected columns, one row per cell with every
# field, and sane values (positive rates and times, consistent round-trip
# rates, efficiency in (0, 1.5], phases that fit in the iteration, RSS);
# bench.md has one table row per cell; the figures are drawn when gnuplot
# is on PATH; bad grid files and options exit 2 with a file:line:col
# message and write nothing. No timing thresholds: the machine may be busy.
# The CSV checker is also run on a copy with one column removed and must
# fail there (so it can fail). A grid over `normals` (a file target that
# sets rng.normal itself, and a built-in one) has one row per normal
# method, the grid's method overrides the file's, and every cell's 1-thread
# reference has its normal method (no round-trip warning). A DEO* cell
# whose pairs' condition rate gives a W* at least twice the one it ran with
# gets a note naming it (the noisy 25-mode target); the same target as a
# file with S near that rate gets none; the tiny grid's notes name only
# its DEO* cells.
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root;  RX_REPLEX  the replex binary
set -u
cd "$RX_SRCDIR" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

COLS="cell,grid,target,energy_noise_sd,rule,normal,scheme,window,chains,\
threads,threads_used,iterations,reps,wall_s_best,wall_s_median,\
wall_us_per_iter_best,wall_us_per_iter_median,chain_steps_per_s_best,\
chain_steps_per_s_median,trips_a5,trips_per_1000,trips_per_s,swap_rate,\
speedup,efficiency,timed_wall_us_per_iter,step_us,energy_us,wait_us,\
exchange_us,adapt_us,record_us,imbalance,peak_rss_kib,foreign_load,\
wait_share,steal_share"
NCELLS=16   # 2 targets x 2 schemes x 2 chain counts x 2 thread counts

# check_csv FILE: prints one line per problem; exit status = problems > 0
check_csv() {
    procstat=0; [ -r /proc/stat ] && procstat=1
    awk -F, -v cols="$COLS" -v ncells="$NCELLS" -v procstat=$procstat '
    function num(name) { return $(ix[name]) + 0 }
    function has(name) { return $(ix[name]) != "" }
    function err(msg) { print "  row " NR - 1 ": " msg; nerr++ }
    NR == 1 {
        if ($0 != cols) { print "  header differs:\n  got  " $0 "\n  want " cols; nerr++ }
        nf = NF
        for (i = 1; i <= NF; ++i) ix[$i] = i
        need = "chains iterations threads threads_used wall_s_best wall_s_median " \
               "wall_us_per_iter_best wall_us_per_iter_median chain_steps_per_s_best " \
               "chain_steps_per_s_median trips_a5 trips_per_1000 trips_per_s swap_rate " \
               "efficiency speedup timed_wall_us_per_iter step_us energy_us wait_us " \
               "exchange_us adapt_us record_us imbalance peak_rss_kib foreign_load " \
               "wait_share steal_share " \
               "target scheme " \
               "normal"
        n = split(need, nm, " ")
        for (i = 1; i <= n; ++i)
            if (!(nm[i] in ix)) { print "  missing column " nm[i]; nerr++; bad_header = 1 }
        next
    }
    bad_header { exit }
    {
        rows++
        if (NF != nf) { err("has " NF " fields, the header " nf); next }
        K = num("iterations"); P = num("chains")
        if (!(num("chain_steps_per_s_median") > 0)) err("chain_steps_per_s_median <= 0")
        if (!(num("chain_steps_per_s_best") >= num("chain_steps_per_s_median")))
            err("best chain-steps/s below the median")
        if (!(num("wall_us_per_iter_median") > 0 && num("wall_us_per_iter_best") > 0))
            err("wall per iteration <= 0")
        w = num("wall_s_best"); c = P * K / w
        if (w <= 0 || (c - num("chain_steps_per_s_best")) ^ 2 > (1e-4 * c) ^ 2)
            err("chain_steps_per_s_best != chains * iterations / wall_s_best")
        if (num("trips_a5") < 0 || num("trips_per_1000") < 0 || num("trips_per_s") < 0)
            err("negative round trips")
        t = num("trips_per_1000") * K / 1000 / num("wall_s_median")
        if ((t - num("trips_per_s")) ^ 2 > (1e-4 * (t > 1 ? t : 1)) ^ 2)
            err("trips_per_s " num("trips_per_s") " != trips_per_1000 * iterations/1000 / wall_s_median = " t)
        if (!(num("swap_rate") >= 0 && num("swap_rate") <= 1)) err("swap_rate outside [0, 1]")
        if (!(num("threads_used") >= 1 && num("threads_used") <= num("threads")))
            err("threads_used outside [1, threads]")
        if (has("efficiency")) {
            neff++
            e = num("efficiency")
            if (!(e > 0 && e <= 1.5)) err("efficiency " e " outside (0, 1.5]")
            if (num("threads") == 1 && e != 1) err("a 1-thread cell with efficiency " e)
        }
        s = 0
        split("step_us energy_us wait_us exchange_us adapt_us record_us", ph, " ")
        for (i = 1; i <= 6; ++i) {
            if (!has(ph[i])) { err(ph[i] " missing"); continue }
            if (num(ph[i]) < 0) err(ph[i] " < 0")
            s += num(ph[i])
        }
        tw = num("timed_wall_us_per_iter")
        if (!(tw > 0)) err("timed_wall_us_per_iter <= 0")
        if (s > tw * 1.05 + 0.5) err("phases sum to " s " us > timed wall " tw " us")
        if (has("imbalance") && num("imbalance") < 0) err("imbalance < 0")
        if (!(num("peak_rss_kib") > 0)) err("peak_rss_kib <= 0")
        if (has("foreign_load") && !(num("foreign_load") >= 0 && num("foreign_load") <= 1))
            err("foreign_load outside [0, 1]")
        # a wait share for every run on more than one thread, none on one
        if (num("threads_used") > 1 && !has("wait_share")) err("no wait_share on " num("threads_used") " threads")
        if (num("threads_used") == 1 && has("wait_share")) err("a wait_share on 1 thread")
        if (has("wait_share") && !(num("wait_share") >= 0 && num("wait_share") <= 1))
            err("wait_share outside [0, 1]")
        # the host steal is measured on every run where /proc/stat is
        # (a median of shares of whole runs: >= 0, no upper bound, since
        # one 10 ms tick in a run of a few ms reads as more than 1)
        if (procstat && !has("steal_share")) err("no steal_share")
        if (has("steal_share") && !(num("steal_share") >= 0)) err("steal_share < 0")
        if ($(ix["normal"]) != "ziggurat") err("normal " $(ix["normal"]) ", not the default ziggurat")
        # results do not depend on the thread count: same trips at 1 and 2
        key = $(ix["target"]) "/" $(ix["normal"]) "/" $(ix["scheme"]) "/" P
        if (key in trips && trips[key] != $(ix["trips_a5"]))
            err("round trips differ between thread counts for " key)
        trips[key] = $(ix["trips_a5"])
    }
    END {
        if (!bad_header && rows != ncells) { print "  " rows " rows, expected " ncells; nerr++ }
        if (!bad_header && neff != ncells) { print "  efficiency in " neff " rows, expected every row"; nerr++ }
        exit nerr > 0
    }' "$1"
}

out="$tmp/out"
plots=--no-plots
command -v gnuplot >/dev/null 2>&1 && plots=
"$RX_REPLEX" bench bench/grid_tiny.yaml -o "$out" $plots > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ $rc -eq 0 ] && ok || bad "grid_tiny: exit $rc: $(tail -3 "$tmp/stderr")"
if [ -f "$out/bench.csv" ]; then
    if check_csv "$out/bench.csv"; then ok; else bad "bench.csv (above)"; fi
    # the checker must catch a missing column and a short row
    cut -d, -f1-20,22- "$out/bench.csv" > "$tmp/nocol.csv"
    if check_csv "$tmp/nocol.csv" > /dev/null; then bad "checker missed a removed column"; else ok; fi
    awk -F, -v OFS=, 'NR == 3 { NF = NF - 1 } 1' "$out/bench.csv" > "$tmp/short.csv"
    if check_csv "$tmp/short.csv" > /dev/null; then bad "checker missed a short row"; else ok; fi
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i }
        NR == 3 { $(ix["peak_rss_kib"]) = 0 } 1' "$out/bench.csv" > "$tmp/rss.csv"
    if check_csv "$tmp/rss.csv" > /dev/null; then bad "checker missed RSS 0"; else ok; fi
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i }
        NR == 3 { $(ix["foreign_load"]) = 1.5 } 1' "$out/bench.csv" > "$tmp/fg.csv"
    if check_csv "$tmp/fg.csv" > /dev/null; then bad "checker missed foreign_load 1.5"; else ok; fi
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i }
        $(ix["threads_used"]) == 2 { $(ix["wait_share"]) = 1.5 } 1' "$out/bench.csv" > "$tmp/ws.csv"
    if check_csv "$tmp/ws.csv" > /dev/null; then bad "checker missed wait_share 1.5"; else ok; fi
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i }
        NR == 3 { $(ix["steal_share"]) = -0.1 } 1' "$out/bench.csv" > "$tmp/st.csv"
    if check_csv "$tmp/st.csv" > /dev/null; then bad "checker missed steal_share -0.1"; else ok; fi
    if [ -r /proc/stat ]; then
        awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i }
            NR == 3 { $(ix["steal_share"]) = "" } 1' "$out/bench.csv" > "$tmp/st0.csv"
        if check_csv "$tmp/st0.csv" > /dev/null; then bad "checker missed an empty steal_share"; else ok; fi
    fi
else
    bad "no bench.csv"
fi
rows=$(grep -cE '^\| [0-9]+ \|' "$out/bench.md" 2>/dev/null)
[ "${rows:-0}" -eq $NCELLS ] && ok || bad "bench.md has ${rows:-0} table rows, expected $NCELLS"
grep -q '^| cell | target |' "$out/bench.md" 2>/dev/null && ok || bad "bench.md table header"
rows=$(grep -cE '^\| [0-9]+ \|' "$tmp/stdout")
[ "$rows" -eq $NCELLS ] && ok || bad "stdout has $rows table rows, expected $NCELLS"
grep -q 'wrote .*bench.csv' "$tmp/stderr" && ok || bad "no 'wrote' line on stderr"
if [ -z "$plots" ]; then
    n=$(ls "$out"/plots/speedup-*.svg 2>/dev/null | wc -l)
    [ "$n" -eq 4 ] && ok || bad "expected 4 speed-up figures, got $n"
fi
# -q: nothing on stdout or stderr; an existing DIR needs --force
"$RX_REPLEX" bench bench/grid_tiny.yaml -o "$out" -q --no-plots > "$tmp/so" 2> "$tmp/se"; rc=$?
[ $rc -eq 2 ] && ok || bad "existing DIR without --force: exit $rc"
grep -q 'already exists' "$tmp/se" && ok || bad "existing DIR message: $(cat "$tmp/se")"
"$RX_REPLEX" bench bench/grid_tiny.yaml -o "$out" -q --force --no-plots \
    --chains 4 --threads 1 --iterations 300 --reps 2 > "$tmp/so" 2> "$tmp/se"; rc=$?
[ $rc -eq 0 ] && ok || bad "-q --force with overrides: exit $rc: $(cat "$tmp/se")"
[ ! -s "$tmp/so" ] && [ ! -s "$tmp/se" ] && ok || bad "-q printed something"
awk -F, 'NR > 1 && ($9 != 4 || $10 != 1 || $12 != 300 || $13 != 2) { bad = 1 }
         END { exit bad || NR != 5 }' "$out/bench.csv" && ok ||
    bad "overrides not applied: $(cat "$out/bench.csv")"

# run_grid NAME: replex bench $tmp/NAME.yaml into $tmp/o_NAME, stderr in
# $tmp/se, exit 0 expected
run_grid() {
    "$RX_REPLEX" bench "$tmp/$1.yaml" -o "$tmp/o_$1" --no-plots \
        > /dev/null 2> "$tmp/se"; local rc=$?
    [ $rc -eq 0 ] && ok || bad "$1 grid: exit $rc: $(tail -3 "$tmp/se")"
}

# the DEO* window note: the Metropolis rule on the noisy 25-mode energies
# meets the swap condition far above S = 0.4 (about 0.88: W* 2 where DEO*
# runs 8): a note naming cell 1; the same target as a file with S = 0.88
# (so W = 2): none; in the tiny grid, notes only on DEO* cells
cat > "$tmp/wnote.yaml" <<'EOF'
targets: [mixture25]
energy_noise_sd: 2
schemes: [deo_star]
chains: 16
threads: 1
iterations: 3000
reps: 1
phase_timing: false
EOF
run_grid wnote
grep -q "note: cell 1 (.*deo_star P=16.*): DEO\\* ran with W = 8; its pairs' condition rate 0\\.[0-9]* (the rate S stands for) gives W\\* = [1-4] " \
    "$tmp/se" && ok || bad "no DEO* window note: $(cat "$tmp/se")"
cat > "$tmp/s88.yaml" <<'EOF'
target: {kind: mixture25, energy_noise_sd: 2, grad_noise_sd: 2, confine_radius2: 20}
tempering: {n_chains: 16, scheme: deo_star, rule: metropolis, target_swap_rate: 0.88}
ladder: {eta: 0.003, tau: {min: 1, max: 30}}
EOF
cat > "$tmp/wnone.yaml" <<EOF
targets: [$tmp/s88.yaml]
schemes: [deo_star]
threads: 1
iterations: 3000
reps: 1
phase_timing: false
EOF
run_grid wnone
grep -q 'note:' "$tmp/se" && bad "S = 0.88: $(grep note: "$tmp/se")" || ok
grep 'note:' "$tmp/stderr" | grep -v 'deo_star P=' &&
    bad "tiny grid: a note on a cell other than DEO*" || ok

# normals: one row per method; the grid's method, not the file's (which
# says box_muller), is the one run: the file's two 1-thread rows differ
cat > "$tmp/bm.yaml" <<'EOF'
seed: 3
rng: {normal: box_muller}
target:
  kind: gmm
  weights: [0.5, 0.5]
  means: [[-3, 0], [3, 0]]
  scales: [[1, 1], [1, 1]]
tempering: {n_chains: 4, scheme: deo}
ladder:
  eta: 0.02
  tau: {min: 1, max: 20}
EOF
cat > "$tmp/normals.yaml" <<EOF
targets: [$tmp/bm.yaml, gmm_cheap]
normals: [ziggurat, box_muller]
schemes: deo
chains: 4
threads: [1, 2]
iterations: 2000
reps: 1
phase_timing: false
EOF
run_grid normals
# no warning about the grid itself; the foreign-load warning only says the
# machine was busy (other tests run beside this one) and may come any time
warn=$(grep warning "$tmp/se" | grep -v 'its times are suspect')
[ -n "$warn" ] && bad "normals grid: $warn" || ok
awk -F, -v F="$tmp/bm.yaml" '
    NR == 1 { for (i = 1; i <= NF; ++i) ix[$i] = i; next }
    { t = $(ix["target"]); m = $(ix["normal"]); n[m]++
      if ($(ix["efficiency"]) == "") bad = 1
      if ($(ix["threads"]) == 1)
          r[t "/" m] = $(ix["trips_a5"]) "/" $(ix["swap_rate"]) }
    END { exit bad || NR != 9 || n["ziggurat"] != 4 || n["box_muller"] != 4 ||
          r["gmm_cheap/ziggurat"] == r["gmm_cheap/box_muller"] ||
          r[F "/ziggurat"] == r[F "/box_muller"] }' "$tmp/o_normals/bench.csv" &&
    ok || bad "normals grid rows: $(cat "$tmp/o_normals/bench.csv" 2>/dev/null)"

# bad input: exit 2, the place and the problem, nothing written
# expect NAME FILE-CONTENT MESSAGE-REGEX [OPTIONS...]
expect() {
    local name=$1 body=$2 re=$3; shift 3
    printf '%s\n' "$body" > "$tmp/$name.yaml"
    "$RX_REPLEX" bench "$tmp/$name.yaml" -o "$tmp/o_$name" -q "$@" 2> "$tmp/err"
    local rc=$?
    if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
    if ! grep -qE -- "$re" "$tmp/err"; then bad "$name: message: $(cat "$tmp/err")"; return; fi
    if [ -e "$tmp/o_$name" ]; then bad "$name: wrote $tmp/o_$name"; return; fi
    ok
}
f="$tmp"
expect unknown_key 'schemes: [deo]
chainz: [4]' "^replex: $f/unknown_key.yaml:2:1: chainz: unknown key 'chainz'; did you mean 'chains'\?"
expect bad_value 'chains: [4, 1]' \
    "^replex: $f/bad_value.yaml:1:13: chains\[1\]: expected an integer in \[2, 65536\], got '1'"
expect bad_scheme 'schemes: [deo, deo_wx]' \
    "^replex: $f/bad_scheme.yaml:1:16: schemes\[1\]: unknown scheme 'deo_wx'; did you mean 'deo_w'\?"
expect unknown_target 'targets: [mixture25, mixtur25]' \
    "^replex: $f/unknown_target.yaml:1:22: targets\[1\]: unknown target 'mixtur25'; did you mean 'mixture25'\?"
expect missing_file 'targets: [no/such.yaml]' \
    "^replex: $f/missing_file.yaml:1:11: targets\[0\]: no/such.yaml: cannot open"
expect empty_list 'iterations: 100
chains: []' "^replex: $f/empty_list.yaml:2:9: chains: empty list"
expect threads_zero 'threads: [1, 0]' \
    "^replex: $f/threads_zero.yaml:1:14: threads\[1\]: expected an integer in \[1, 4096\] or all, got '0'"
expect sub_grid 'grids:
  - chains: [4]
    reps: 0' "^replex: $f/sub_grid.yaml:3:11: grids\[0\].reps: expected an integer in \[1, 1000\], got '0'"
expect bad_normal 'normals: [gaussian]' \
    "^replex: $f/bad_normal.yaml:1:11: normals\[0\]: unknown normal method 'gaussian' \(one of box_muller, ziggurat\)"
expect syntax 'schemes: [deo' "^replex: $f/syntax.yaml:2:1: invalid YAML: "
# the rule names are the exchange-test table's rows, none left out
expect bad_rule 'rules: [metropolis, barkr]' \
    "^replex: $f/bad_rule.yaml:1:21: rules\[1\]: unknown rule 'barkr'; did you mean 'barker'\? \(one of metropolis, bernoulli, deterministic, bias_corrected, barker(, [a-z_]+)*\)$"
# a rule added as a row runs in a grid (one tiny cell)
printf 'schemes: [deo]\nchains: [4]\ntargets: [gmm_cheap]\nrules: [barker]\niterations: 200\nreps: 1\n' > "$tmp/barker.yaml"
if "$RX_REPLEX" bench "$tmp/barker.yaml" -o "$tmp/o_barker" -q --no-plots \
     && grep -q ',barker,' "$tmp/o_barker/bench.csv"; then ok
else bad "rules: [barker] did not run"; fi
# the noise-aware rule in a grid: on a noisy built-in target it runs with
# the noise the cell sets; its acceptance is Barker's on exact energies
printf 'schemes: [deo]\nchains: [6]\ntargets: [gmm_cheap]\nenergy_noise_sd: [0.05]\nrules: [noise_aware]\niterations: 2000\nreps: 1\n' > "$tmp/na.yaml"
if "$RX_REPLEX" bench "$tmp/na.yaml" -o "$tmp/o_na" -q --no-plots \
     && grep -q ',noise_aware,' "$tmp/o_na/bench.csv"; then ok
else bad "rules: [noise_aware] did not run"; fi
expect cli_threads 'iterations: 100' "--threads: expected a comma-separated list" --threads 1,0
expect cli_option 'iterations: 100' "^replex: bench: unknown option '--bogus'$" --bogus

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
