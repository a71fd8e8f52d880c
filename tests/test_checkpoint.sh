#!/usr/bin/env bash
# Nothing lost (issue 7):
#  1. a run killed with SIGKILL at a random moment after its first
#     checkpoint, resumed with another thread count, writes samples.npy,
#     index.npy, trace.csv, inference.nc (the draws' energies travel in the
#     checkpoint) and summary.json (but "timing") identical to an
#     uninterrupted run; the same for a network target (the MLP) and a
#     variance-reduced run (anchors travel in the checkpoint), and the
#     deterministic rule with adaptive C and ladder (yaml/deo_sgd_2d.yaml);
#  2. SIGINT stops a checkpointing run cleanly (exit 1, a checkpoint, no
#     run directory), and --resume finishes it to the same bits;
#  3. a corrupted or truncated checkpoint is refused (exit 2, message);
#  4. a NaN gradient injected at a chosen iteration: policy stop fails the
#     run naming particle, position and iteration, and writes nothing;
#     policy rollback finishes, reports the rollback in summary.json, and
#     stays bitwise identical across thread counts.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

same_run() { # dir1 dir2 label
  for x in samples.npy index.npy trace.csv inference.nc; do
    cmp -s "$1/$x" "$2/$x" && ok || bad "$3: $x differs"
  done
  if cmp -s <(grep -v '"timing"' "$1/summary.json") \
            <(grep -v '"timing"' "$2/summary.json"); then ok
  else bad "$3: summary.json differs"; fi
}

# --- 1. SIGKILL at a random moment, resume with another thread count ---
kill_resume() { # name file iterations every sets...
  local name=$1 file=$2 iters=$3 every=$4; shift 4
  local sets=(--set "iterations=$iters" --set "checkpoint.every=$every" "$@")
  "$RX_REPLEX" run "$file" -o "$tmp/$name.ref" -q --no-plots --threads 2 \
    "${sets[@]}" || { bad "$name: reference run failed"; return; }
  [ ! -e "$tmp/$name.ref.partial" ] && ok || bad "$name: .partial left"
  local killed=0 try
  for try in 1 2 3 4 5; do
    rm -rf "$tmp/$name.k" "$tmp/$name.k.partial"
    "$RX_REPLEX" run "$file" -o "$tmp/$name.k" -q --no-plots --threads 2 \
      "${sets[@]}" &
    local pid=$!
    # wait for the first checkpoint (up to 30 s: a loaded machine), then a
    # random extra delay
    for _ in $(seq 1 3000); do
      [ -f "$tmp/$name.k.partial/checkpoint.bin" ] && break; sleep 0.01
    done
    sleep "0.$((RANDOM % 30))"
    if kill -9 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null; killed=1; break
    fi
    wait "$pid"
  done
  [ "$killed" -eq 1 ] && ok || { bad "$name: never caught the run alive"; return; }
  [ ! -e "$tmp/$name.k" ] && ok || bad "$name: a killed run left its directory"
  "$RX_REPLEX" run --resume "$tmp/$name.k" -q --no-plots --threads 1 ||
    { bad "$name: resume failed"; return; }
  [ ! -e "$tmp/$name.k.partial" ] && ok ||
    bad "$name: .partial not removed; it holds: $(ls -a "$tmp/$name.k.partial" | tr '\n' ' ')"
  same_run "$tmp/$name.ref" "$tmp/$name.k" "$name (SIGKILL + resume)"
}
kill_resume m25 yaml/mixture25_deo_star.yaml 400000 20000
kill_resume mlp yaml/mlp_synthetic.yaml 30000 500
# variance reduction: the anchors, U(anchor) and coefficients are restored
kill_resume vr yaml/vr_mixture_data.yaml 20000 2000
# the deterministic rule: the buffer C and the learning-rate ladder adapt
# every iteration and travel in the checkpoint (tests/test_resume.c too)
kill_resume deo yaml/deo_sgd_2d.yaml 100001 5000

# --- 2. SIGINT: checkpoint, exit 1, resume --------------------------------
rm -rf "$tmp/int" "$tmp/int.partial"
"$RX_REPLEX" run yaml/mixture25_deo_star.yaml -o "$tmp/int" --no-plots \
  --threads 2 --set iterations=400000 --set checkpoint.every=1000000 \
  2> "$tmp/int.err" &
pid=$!
for _ in $(seq 1 100); do grep -q "run:" "$tmp/int.err" 2>/dev/null && break; sleep 0.02; done
sleep 0.2
kill -INT "$pid" 2>/dev/null
wait "$pid"; rc=$?
if [ "$rc" -eq 1 ] && grep -q "interrupted (SIGINT) after the run; $tmp/int is complete" "$tmp/int.err"; then
  # the signal came after the last iteration (while the files were
  # written): the run is complete, nothing to resume; as with exit 0 below
  [ -f "$tmp/int/samples.npy" ] && [ ! -e "$tmp/int.partial" ] && ok ||
    bad "SIGINT after the run: not a complete run directory"
  echo "note: the SIGINT came after the run's last iteration (machine too fast)"
elif [ "$rc" -eq 1 ]; then
  ok
  grep -q "interrupted (SIGINT).*checkpoint written to $tmp/int.partial/checkpoint.bin; continue with .replex run --resume $tmp/int." "$tmp/int.err" \
    && ok || bad "SIGINT message: $(tail -1 "$tmp/int.err")"
  [ -f "$tmp/int.partial/checkpoint.bin" ] && [ ! -e "$tmp/int" ] && ok ||
    bad "SIGINT: expected a checkpoint and no run directory"
  "$RX_REPLEX" run --resume "$tmp/int" -q --no-plots --threads 2 &&
    ok || bad "SIGINT: resume failed"
  same_run "$tmp/m25.ref" "$tmp/int" "SIGINT + resume"
elif [ "$rc" -eq 0 ]; then
  echo "note: the SIGINT run finished before the signal (machine too fast)"
else
  bad "SIGINT run exit $rc: $(tail -2 "$tmp/int.err")"
fi

# --- 3. corrupt and truncated checkpoints --------------------------------
rm -rf "$tmp/c" "$tmp/c.partial"
"$RX_REPLEX" run yaml/mixture25_deo_star.yaml -o "$tmp/c" -q --no-plots \
  --set iterations=400000 --set checkpoint.every=20000 &
pid=$!
for _ in $(seq 1 3000); do [ -f "$tmp/c.partial/checkpoint.bin" ] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
if [ -f "$tmp/c.partial/checkpoint.bin" ]; then
  ck=$tmp/c.partial/checkpoint.bin
  cp "$ck" "$tmp/ck.orig"
  printf '\xff' | dd of="$ck" bs=1 seek=5000 conv=notrunc 2>/dev/null
  "$RX_REPLEX" run --resume "$tmp/c" -q 2> "$tmp/c.err"; rc=$?
  [ "$rc" -eq 2 ] && grep -q "checksum mismatch (the file is corrupt)" "$tmp/c.err" &&
    ok || bad "corrupt checkpoint: exit $rc: $(cat "$tmp/c.err")"
  head -c 3000 "$tmp/ck.orig" > "$ck"
  "$RX_REPLEX" run --resume "$tmp/c" -q 2> "$tmp/c.err"; rc=$?
  [ "$rc" -eq 2 ] && grep -q "truncated checkpoint" "$tmp/c.err" &&
    ok || bad "truncated checkpoint: exit $rc: $(cat "$tmp/c.err")"
  [ ! -e "$tmp/c" ] && ok || bad "a refused resume wrote a run directory"
else
  bad "no checkpoint to corrupt"
fi
"$RX_REPLEX" run --resume "$tmp/nowhere" -q 2> "$tmp/n.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "no checkpoint $tmp/nowhere.partial/checkpoint.bin" "$tmp/n.err" &&
  ok || bad "resume of nothing: exit $rc: $(cat "$tmp/n.err")"

# --- 3b. a full disk during a checkpoint keeps the previous one ----------
# (a file-size limit of 3 MB: the checkpoint at 20,000 iterations fits, the
# one at 40,000 does not)
rm -rf "$tmp/fx" "$tmp/fx.partial"
( ulimit -f 3000; trap '' XFSZ
  "$RX_REPLEX" run yaml/mixture25_deo_star.yaml -o "$tmp/fx" -q --no-plots \
    --set iterations=400000 --set checkpoint.every=20000 2> "$tmp/fx.err" )
rc=$?
[ "$rc" -eq 1 ] && grep -q "checkpoint at iteration 40000 failed: .*checkpoint.bin.tmp: write failed: File too large (the previous checkpoint is intact)" "$tmp/fx.err" &&
  ok || bad "checkpoint on a full disk: exit $rc: $(cat "$tmp/fx.err")"
[ ! -e "$tmp/fx.partial/checkpoint.bin.tmp" ] && [ ! -e "$tmp/fx" ] && ok ||
  bad "a failed checkpoint left its temporary file or a run directory"
"$RX_REPLEX" run --resume "$tmp/fx" -q --no-plots --threads 1 &&
  ok || bad "resume after the failed checkpoint"
[ -f "$tmp/fx/samples.npy" ] && same_run "$tmp/m25.ref" "$tmp/fx" "resume after a failed checkpoint"

# --- 4. NaN gradient at iteration 50 of particle 3: both policies ---------
inj=(--set faults.inject_iteration=50 --set faults.inject_particle=3)
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/nan_stop" -q --no-plots \
  "${inj[@]}" 2> "$tmp/nan.err"; rc=$?
[ "$rc" -eq 1 ] && ok || bad "policy stop: exit $rc"
grep -q "rx_run: particle 3 at position [0-9]*.*, iteration 50: non-finite gradient (coordinate 0); last finite energy [-0-9.e]*, |theta| = " "$tmp/nan.err" &&
  ok || bad "policy stop message: $(cat "$tmp/nan.err")"
[ ! -e "$tmp/nan_stop" ] && ok || bad "policy stop wrote a run directory"
for t in 1 2 3; do
  "$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/nan_rb$t" -q \
    --no-plots --threads "$t" "${inj[@]}" --set faults.policy=rollback ||
    bad "policy rollback: run failed ($t threads)"
done
grep -q '"faults": {"policy": "rollback", "rollbacks": 1, "chains": \[{"particle": 3, "rollbacks": 1, "last_iteration": 50, "step_scale": 0.5}\]}' \
  "$tmp/nan_rb1/summary.json" && ok || bad "rollback not reported: $(grep faults "$tmp/nan_rb1/summary.json")"
same_run "$tmp/nan_rb1" "$tmp/nan_rb2" "rollback, 1 vs 2 threads"
same_run "$tmp/nan_rb1" "$tmp/nan_rb3" "rollback, 1 vs 3 threads"
# the rolled-back chain differs from an undisturbed one (the fault mattered)
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/nan_none" -q --no-plots \
  --set faults.policy=rollback
cmp -s "$tmp/nan_none/samples.npy" "$tmp/nan_rb1/samples.npy" &&
  bad "rollback changed nothing" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
