#!/usr/bin/env bash
# A run on MPI ranks (docs/architecture.md, "Ranks"), under mpirun on this
# machine's cores (oversubscribed):
#  1. the same bits for any split: samples.npy, index.npy, trace.csv,
#     weights.npy (where written), inference.nc and summary.json (but its
#     "timing" line) of 1 x 4, 2 x 2, 4 x 1 and 3 x 1 ranks x threads
#     equal those of one process on one thread, for an analytic DEO* run,
#     a bias-corrected run on noisy energies, CSGLD chains under a ladder,
#     the shared-bias row (ICSGLD), the MLP, a variance-reduced run and
#     log Z on the reference path (where data/uci is there), and on one
#     split each the deterministic rule with adaptive C and ladder,
#     Barker's test, the noise-aware test, SGNHT, RENHD's rounds and the
#     well-tempered ensemble with swaps, and a run that stops at its first
#     hit (hit.stop: every rank leaves after the same iteration);
#     a sweep's runs spread over 3 ranks and replicates over 1, 2, 3 and
#     5 (each copy alone on one rank) give the one-process directories and
#     tables, each copy on the rank its line names; a copy that fails on
#     a worker gives the one-process message and exit status;
#  2. a checkpointing run on 2 ranks stopped by SIGTERM (mpirun passes it
#     on: a non-zero exit, a checkpoint) resumes on 3 ranks x 1 thread, and one
#     whose rank 1 is killed (SIGKILL) ends with the launcher's message and
#     an intact checkpoint that resumes on 1 rank x 2 threads; both to the
#     bits of an uninterrupted run;
#  3. bad input, refused with exit 2 and nothing written: more ranks than
#     chains; mpi.ranks other than the launch's rank count; the noise-aware
#     test on minibatch energies on more than one rank.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
MPIRUN=${RX_MPIRUN:-mpirun}
mpi() { # ranks, then replex's arguments
  local n=$1; shift
  "$MPIRUN" --allow-run-as-root --oversubscribe -np "$n" "$RX_REPLEX" "$@"
}

same_run() { # dir1 dir2 label
  local x
  for x in samples.npy index.npy trace.csv weights.npy inference.nc; do
    [ -f "$1/$x" ] || [ -f "$2/$x" ] || continue
    cmp -s "$1/$x" "$2/$x" && ok || bad "$3: $x differs"
  done
  if cmp -s <(grep -v '"timing"' "$1/summary.json") \
            <(grep -v '"timing"' "$2/summary.json"); then ok
  else bad "$3: summary.json differs"; fi
}

# --- 1. splits ---------------------------------------------------------
splits() { # name file splits... -- sets...
  local name=$1 file=$2; shift 2
  local sp=() s
  while [ "$1" != -- ]; do sp+=("$1"); shift; done; shift
  "$RX_REPLEX" run "$file" -o "$tmp/$name.ref" -q --no-plots --threads 1 \
    "$@" || { bad "$name: one-process run failed"; return; }
  for s in "${sp[@]}"; do
    local r=${s%x*} t=${s#*x}
    mpi "$r" run "$file" -o "$tmp/$name.$s" -q --no-plots --threads "$t" \
      "$@" >"$tmp/$name.$s.log" 2>&1 ||
      { bad "$name: $s failed: $(head -n 3 "$tmp/$name.$s.log")"; continue; }
    same_run "$tmp/$name.ref" "$tmp/$name.$s" "$name $s"
    grep -q "\"ranks\": $r," "$tmp/$name.$s/summary.json" && ok ||
      bad "$name $s: summary.json does not say $r ranks"
  done
}
S4=(1x4 2x2 4x1 3x1)
splits deo_star yaml/deo_star_sgd_2d.yaml "${S4[@]}" -- \
  --set iterations=1000
splits bias_corrected yaml/resgld_gmm_ex1.yaml "${S4[@]}" -- \
  --set iterations=1000 --set record.burn_in=0 --set tempering.n_chains=4 \
  --set 'ladder.tau=[1, 2, 4, 10]' --set tempering.scheme=deo
splits csgld yaml/csgld_gmm_1d.yaml 2x2 3x1 -- \
  --set iterations=1000 --set tempering.n_chains=4 \
  --set tempering.scheme=deo --set 'ladder.tau=[1, 1.5, 2.5, 4]'
splits icsgld yaml/icsgld_gmm_1d.yaml "${S4[@]}" -- --set iterations=1000
splits mlp yaml/mlp_synthetic.yaml 2x2 4x1 3x1 -- \
  --set iterations=100 --set record.burn_in=0
splits vr yaml/vr_mixture_data.yaml 1x2 2x1 -- \
  --set iterations=300 --set record.burn_in=0
# more kinds of the tables, one split each: the deterministic rule with
# adaptive C and ladder, Barker's test, the noise-aware test, SGNHT
splits adaptive yaml/deo_sgd_2d.yaml 3x1 -- --set iterations=1000
splits barker yaml/mixture25_deo.yaml 3x1 -- --set iterations=1000 \
  --set tempering.rule=barker
splits noise_aware yaml/noise_aware_t9.yaml 3x1 -- --set iterations=1000 \
  --set record.burn_in=0
splits sgnht yaml/sgnht_gmm_2d.yaml 2x1 -- --set iterations=1000 \
  --set record.burn_in=0
splits renhd yaml/renhd_t9.yaml 3x1 -- --set iterations=1000 \
  --set record.burn_in=0
# the well-tempered ensemble with swaps (its shift read from the states
# after step 3, which every rank repeats)
splits wte yaml/wte_swaps_gauss_50d.yaml 3x1 -- --set iterations=2000 \
  --set record.burn_in=0
# the hitting-time record: every rank's chains (from the gathered energies)
splits hit yaml/deo_star_sgd_2d.yaml 2x1 -- --set iterations=1000 \
  --set hit.rho=0.5 --set hit.u_min=-2
# hit.stop: every rank leaves after the same iteration (the first hit, at
# 303 of 3000 here), the same bits as one process
splits hitstop yaml/deo_star_sgd_2d.yaml 2x1 3x1 2x2 -- --set iterations=3000 \
  --set hit.rho=0.0001 --set hit.u_min=-4 --set hit.stop=true
grep -q '"stopped": true' "$tmp/hitstop.ref/summary.json" &&
  grep -q '^  "iterations": 303,' "$tmp/hitstop.ref/summary.json" && ok ||
  bad "hitstop: the one-process run did not stop at its first hit (303)"
# the reference path and log Z (its check of the beta = 0 chain included)
if [ -f data/uci/diabetes.csv ]; then
  splits logz yaml/logz_diabetes.yaml 2x1 3x1 -- \
    --set iterations=400 --set record.burn_in=0 --set record.thin=2
fi

# a sweep's runs spread over 3 ranks (run r on rank r mod 3): the same
# run directories and sweep table (but its wall_s column)
"$RX_REPLEX" run yaml/sweep_s_2d.yaml -o "$tmp/sw.ref" -q --no-plots \
  --threads 1 --set iterations=1000 || bad "sweep: one-process run failed"
if mpi 3 run yaml/sweep_s_2d.yaml -o "$tmp/sw.3" -q --no-plots --threads 1 \
     --set iterations=1000 >"$tmp/sw.log" 2>&1; then
  for d in "$tmp"/sw.ref/run-*; do
    b=$(basename "$d")
    same_run "$d" "$tmp/sw.3/$b" "sweep on 3 ranks, $b"
  done
  cmp -s <(cut -d, -f1-10 "$tmp/sw.ref/sweep.csv") \
         <(cut -d, -f1-10 "$tmp/sw.3/sweep.csv") && ok ||
    bad "sweep on 3 ranks: sweep.csv differs"
else
  bad "sweep on 3 ranks failed: $(head -n 3 "$tmp/sw.log")"
fi

# replicates spread over the ranks (copy r alone on rank r mod R, with
# its threads; rank 0 finishes the workers' copies from their last state
# for the summary): on 1 x 1, 2 x 2, 3 x 1 and 5 x 1 (rank 4 has no
# copy and waits; 4 chains do not limit the ranks) the one-process rep-NN
# directories and R-hat summary; each copy's line names the rank that
# ran it; no state file is left
printf 'iterations: 1000\nreplicates: 4\ntempering:\n  n_chains: 4\n' \
  > "$tmp/rep.yaml"
"$RX_REPLEX" run "$tmp/rep.yaml" -o "$tmp/rep.ref" -q --no-plots \
  --threads 1 || bad "replicates: one-process run failed"
for s in 1x1 2x2 3x1 5x1; do
  n=${s%x*}
  if mpi "$n" run "$tmp/rep.yaml" -o "$tmp/rep.$s" --no-plots \
       --threads "${s#*x}" >"$tmp/rep.$s.log" 2>&1; then
    for r in 0 1 2 3; do
      same_run "$tmp/rep.ref/rep-0$r" "$tmp/rep.$s/rep-0$r" \
        "replicates on $s, rep-0$r"
      [ "$n" -eq 1 ] && continue
      grep -q "/rep-0$r: seed .* on rank $((r % n))\$" "$tmp/rep.$s.log" &&
        ok || bad "replicates on $s: rep-0$r not run by rank $((r % n))"
    done
    same_run "$tmp/rep.ref" "$tmp/rep.$s" "replicates on $s, the summary"
    cmp -s "$tmp/rep.ref/summary.csv" "$tmp/rep.$s/summary.csv" && ok ||
      bad "replicates on $s: summary.csv differs"
    [ -z "$(ls -A "$tmp/rep.$s" | grep state)" ] && ok ||
      bad "replicates on $s: a state file is left"
  else
    bad "replicates on $s failed: $(head -n 3 "$tmp/rep.$s.log")"
  fi
done
# a copy that fails at run time on a worker (copy 2 of seed 6: a
# particle's initial point overflows): the one-process message, once,
# and its exit status
fx=(--set seed=6 --set init.low=-1.2e154 --set init.high=1.2e154
    --set iterations=100)
"$RX_REPLEX" run "$tmp/rep.yaml" -o "$tmp/repf.ref" -q --no-plots \
  --threads 1 "${fx[@]}" 2>"$tmp/repf.ref.log"
rc1=$?
[ "$rc1" -eq 1 ] && grep -q "replicate 2 failed" "$tmp/repf.ref.log" && ok ||
  bad "failing copy: one process gave exit $rc1: $(cat "$tmp/repf.ref.log")"
for n in 2 3; do
  timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np "$n" \
    "$RX_REPLEX" run "$tmp/rep.yaml" -o "$tmp/repf.$n" -q --no-plots \
    --threads 1 "${fx[@]}" >"$tmp/repf.$n.log" 2>&1
  rc=$?
  [ "$rc" -eq "$rc1" ] && ok ||
    bad "failing copy on $n ranks: exit $rc, one process $rc1 (124: a hang)"
  [ "$(grep -cxF -- "$(cat "$tmp/repf.ref.log")" "$tmp/repf.$n.log")" -eq 1 ] &&
    ok || bad "failing copy on $n ranks: not the one message: $(head -n 3 "$tmp/repf.$n.log")"
  [ ! -e "$tmp/repf.$n/summary.json" ] &&
    [ -z "$(ls -A "$tmp/repf.$n" | grep state)" ] && ok ||
    bad "failing copy on $n ranks: a summary or a state file was written"
done

# --- 2. stop and kill, resume on another split -----------------------
ck=(--set iterations=100000 --set checkpoint.every=500 --set record.burn_in=0)
"$RX_REPLEX" run yaml/mlp_synthetic.yaml -o "$tmp/ck.ref" -q --no-plots \
  --threads 2 "${ck[@]}" || bad "checkpointing reference run failed"
wait_ckpt() {
  for _ in $(seq 1 3000); do
    [ -f "$1.partial/checkpoint.bin" ] && return 0; sleep 0.01
  done
  return 1
}
# until no rank of the job is left (the launcher may return first)
wait_ranks() {
  for _ in $(seq 1 500); do
    pgrep -f -- "-o $1 " >/dev/null || return 0; sleep 0.02
  done
}
# SIGTERM to mpirun: it passes it on to the ranks, which stop at one
# iteration; rank 0 writes the checkpoint (the launcher may end before
# forwarding their messages)
for try in 1 2 3; do
  rm -rf "$tmp/term" "$tmp/term.partial"
  "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$RX_REPLEX" run \
    yaml/mlp_synthetic.yaml -o "$tmp/term" -q --no-plots --threads 1 \
    "${ck[@]}" >"$tmp/term.log" 2>&1 &
  pid=$!
  wait_ckpt "$tmp/term"; sleep "0.$((RANDOM % 20))"
  kill -TERM "$pid" 2>/dev/null; wait "$pid"; rc=$?
  wait_ranks "$tmp/term"
  [ -e "$tmp/term" ] || break # caught it running
done
[ "$rc" -ne 0 ] && ok || bad "SIGTERM: exit $rc"
[ ! -e "$tmp/term" ] && ok || bad "SIGTERM: a run directory was written"
if mpi 3 run --resume "$tmp/term" -q --no-plots --threads 1 \
     >"$tmp/term.resume" 2>&1; then
  same_run "$tmp/ck.ref" "$tmp/term" "SIGTERM, resumed on 3 x 1"
else
  bad "SIGTERM: resume on 3 ranks failed: $(head -n 3 "$tmp/term.resume")"
fi
# SIGKILL of rank 1: the launcher ends the job with a message naming the
# rank and the signal; the last checkpoint is intact
killed=0
for try in 1 2 3 4 5; do
  rm -rf "$tmp/kill" "$tmp/kill.partial"
  "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$RX_REPLEX" run \
    yaml/mlp_synthetic.yaml -o "$tmp/kill" -q --no-plots --threads 1 \
    "${ck[@]}" >"$tmp/kill.log" 2>&1 &
  pid=$!
  wait_ckpt "$tmp/kill"; sleep "0.$((RANDOM % 20))"
  kids=($(pgrep -P "$pid"))
  if [ "${#kids[@]}" -ge 2 ] && kill -9 "${kids[1]}" 2>/dev/null; then
    wait "$pid"; rc=$?; killed=1; break
  fi
  wait "$pid"
done
if [ "$killed" -eq 1 ]; then
  ok
  wait_ranks "$tmp/kill"
  [ "$rc" -ne 0 ] && ok || bad "SIGKILL: mpirun exited 0"
  grep -q "rank 1 .*signal 9" "$tmp/kill.log" && ok ||
    bad "SIGKILL: no message naming the rank and signal: $(head -n 5 "$tmp/kill.log")"
  [ ! -e "$tmp/kill" ] && ok || bad "SIGKILL: a run directory was written"
  if "$RX_REPLEX" run --resume "$tmp/kill" -q --no-plots --threads 2 \
       >"$tmp/kill.resume" 2>&1; then
    same_run "$tmp/ck.ref" "$tmp/kill" "SIGKILL, resumed on 1 x 2"
  else
    bad "SIGKILL: resume failed: $(head -n 3 "$tmp/kill.resume")"
  fi
else
  bad "SIGKILL: never caught the run alive"
fi

# --- 3. bad input ------------------------------------------------------
refuse() { # label expected-text ranks args...
  local label=$1 want=$2 n=$3; shift 3
  rm -rf "$tmp/bad" "$tmp/bad.partial"
  mpi "$n" "$@" -o "$tmp/bad" -q --no-plots >"$tmp/bad.log" 2>&1; local rc=$?
  [ "$rc" -eq 2 ] && ok || bad "$label: exit $rc, not 2"
  grep -q -- "$want" "$tmp/bad.log" && ok ||
    bad "$label: message lacks '$want': $(head -n 2 "$tmp/bad.log")"
  [ "$(grep -c -- "$want" "$tmp/bad.log")" -eq 1 ] && ok ||
    bad "$label: the message is printed more than once"
  [ ! -e "$tmp/bad" ] && [ ! -e "$tmp/bad.partial" ] && ok ||
    bad "$label: something was written"
}
refuse "5 ranks, 4 chains" "5 ranks for 4 chains" 5 run yaml/icsgld_gmm_1d.yaml \
  --set iterations=100
refuse "mpi.ranks 3 on 2" "mpi.ranks: the file asks for 3 ranks" 2 \
  run yaml/icsgld_gmm_1d.yaml --set iterations=100 --set mpi.ranks=3
refuse "checkpointing, too many ranks" "5 ranks for 4 chains" 5 run \
  yaml/icsgld_gmm_1d.yaml --set iterations=100 --set checkpoint.every=10
# the noise-aware test on minibatch energies evaluates a pair's two
# vectors together: one rank
refuse "noise_aware minibatch on 2 ranks" "runs on one rank" 2 run \
  yaml/noise_aware_minibatch.yaml --set iterations=100 --set record.burn_in=0

# rank 0 refuses before the go (DIR exists): no rank waits for it
mkdir -p "$tmp/exists"; : > "$tmp/exists/x"
timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$RX_REPLEX" \
  run yaml/icsgld_gmm_1d.yaml -o "$tmp/exists" -q --no-plots \
  --set iterations=100 >"$tmp/ex.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok || bad "DIR exists on 2 ranks: exit $rc (124: a hang)"
# a particle that fails at its initial point (set-up): the one message of
# one process, exit 1, nothing written, no crash
rm -rf "$tmp/ini"
timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$RX_REPLEX" \
  run yaml/deo_star_sgd_2d.yaml -o "$tmp/ini" -q --no-plots \
  --set init.low=1e200 --set init.high=2e200 >"$tmp/ini.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] && ok || bad "initial-point failure on 2 ranks: exit $rc"
grep -q "particle 0: non-finite energy or gradient at its initial point" \
  "$tmp/ini.log" && ok || bad "initial-point failure: $(head -n 2 "$tmp/ini.log")"
[ ! -e "$tmp/ini" ] && ok || bad "initial-point failure: a directory was written"
# mpi.ranks without a launcher: one process is not 3 ranks
"$RX_REPLEX" run yaml/icsgld_gmm_1d.yaml -o "$tmp/one" -q --no-plots \
  --set iterations=100 --set mpi.ranks=3 2>"$tmp/one.log"
rc=$?
[ "$rc" -eq 2 ] && grep -q "mpi.ranks: the file asks for 3 ranks" "$tmp/one.log" &&
  [ ! -e "$tmp/one" ] && ok || bad "mpi.ranks 3 on one process: exit $rc: $(cat "$tmp/one.log")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
