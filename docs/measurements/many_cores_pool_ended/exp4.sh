set -u
B=build-devbundle
(cd $B && tar xJf libs.tar.xz)
export LD_LIBRARY_PATH=$PWD/$B/lib
$B/replex info | grep -A1 BLAS
mlp() { # file threads
  $B/replex run $1 -o /tmp/u --force -q --no-plots --threads $2 --set iterations=3000 --set tempering.n_chains=16 --set evaluate.final_ensemble=false --set record.index_every=0 --set record.trace_every=0
  grep -o '"chain_steps_per_s": [0-9.]*' /tmp/u/summary.json | awk '{printf "%.1f k ", $2/1e3}'; }
echo "MLP k chain-steps/s, P = 16, per core type: gemm blas 1t, 16t | gemm auto 1t, 16t (3 rounds)"
for r in 1 2 3; do for ct in default Haswell SkylakeX; do
  if [ $ct = default ]; then unset OPENBLAS_CORETYPE; else export OPENBLAS_CORETYPE=$ct; fi
  echo -n "$ct: "; mlp yaml/uci_boston.yaml 1; mlp yaml/uci_boston.yaml 16; echo -n "| "; mlp bench/boston_mlp_auto.yaml 1; mlp bench/boston_mlp_auto.yaml 16; echo
done; done
unset OPENBLAS_CORETYPE
echo "CNN 8 chains, steady-state iteration ms, 1 and 8 threads"
for ct in default Haswell SkylakeX; do for c in auto im2col; do
  if [ $ct = default ]; then unset OPENBLAS_CORETYPE; else export OPENBLAS_CORETYPE=$ct; fi
  echo "$ct conv $c:"; CONV=$c THREADS="1 8" BUILD=$B bash bench/cnn_scaling.sh 1 3 | awk '{print "  ", $3, $4, $7, $8}'
done; done
