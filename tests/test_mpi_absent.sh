#!/usr/bin/env bash
# A build without MPI (meson -Dmpi=disabled, or no Open MPI found): the
# configuration refuses mpi.ranks > 0 at its file:line:col (exit 2), and a
# replex started as one of several ranks of a launcher refuses to run
# (each rank would write the same directory); mpi.ranks: 0 runs as ever.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
printf 'iterations: 100\ntempering:\n  n_chains: 4\nmpi:\n  ranks: 2\n' \
  > "$tmp/r2.yaml"
"$RX_REPLEX" run "$tmp/r2.yaml" -o "$tmp/out" -q --no-plots 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "mpi.ranks 2: exit $rc, not 2"
grep -q "r2.yaml:5:10: mpi.ranks: 2 ranks asked, but this replex was built without MPI" \
  "$tmp/err" && ok || bad "mpi.ranks 2: message: $(cat "$tmp/err")"
[ ! -e "$tmp/out" ] && ok || bad "mpi.ranks 2: something was written"
OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$RX_REPLEX" run \
  yaml/deo_star_sgd_2d.yaml -o "$tmp/out2" -q --no-plots 2>"$tmp/err2"
rc=$?
[ "$rc" -eq 2 ] && ok || bad "under a launcher: exit $rc, not 2"
grep -q "built without MPI" "$tmp/err2" && ok ||
  bad "under a launcher: message: $(cat "$tmp/err2")"
[ ! -e "$tmp/out2" ] && ok || bad "under a launcher: something was written"
"$RX_REPLEX" run yaml/deo_star_sgd_2d.yaml -o "$tmp/out3" -q --no-plots \
  --set iterations=200 --set mpi.ranks=0 && ok || bad "mpi.ranks 0 failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
