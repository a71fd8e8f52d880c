set -u
B=build-devbundle
(cd $B && tar xJf libs.tar.xz)
mix() { # variant threads scheme
  case $1 in p) L=lib; E=;; s) L=libserial; E=;; e) L=lib; E=OPENBLAS_NUM_THREADS=1;; esac
  env $E LD_LIBRARY_PATH=$PWD/$B/$L $B/replex run yaml/mixture25_deo.yaml -o /tmp/e --force -q --no-plots --threads $2 --set rng.normal=ziggurat --set tempering.scheme=$3 --set iterations=200000 --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 --set record.index_every=0 --set record.trace_every=0 --set record.thin=100
  grep -o '"chain_steps_per_s": [0-9.]*' /tmp/e/summary.json | awk '{printf "%.3f ", $2/1e6}'; }
mlp() { # variant threads
  case $1 in p) L=lib; E=;; s) L=libserial; E=;; e) L=lib; E=OPENBLAS_NUM_THREADS=1;; esac
  env $E LD_LIBRARY_PATH=$PWD/$B/$L $B/replex run yaml/uci_boston.yaml -o /tmp/u --force -q --no-plots --threads $2 --set iterations=1000 --set tempering.n_chains=16 --set evaluate.final_ensemble=false --set record.index_every=0 --set record.trace_every=0
  grep -o '"chain_steps_per_s": [0-9.]*' /tmp/u/summary.json | awk '{printf "%.0f ", $2/1e3}'; }
for v in p s; do LD_LIBRARY_PATH=$PWD/$B/$([ $v = p ] && echo lib || echo libserial) $B/replex info | grep -i blas; done
echo "25-mode DEO* M/s; per round: pthread 1t 2t | serial 1t 2t | pthread+OPENBLAS_NUM_THREADS=1 1t 2t"
for r in 1 2 3 4 5 6; do
  if [ $((r%2)) = 1 ]; then for v in p s e; do echo -n "$v: "; mix $v 1 deo_star; mix $v 2 deo_star; done
  else for v in e s p; do echo -n "$v: "; mix $v 2 deo_star; mix $v 1 deo_star; done; fi; echo
done
echo "MLP k chain-steps/s, threads 1 2 4 8 16"
for r in 1 2; do for v in p s e; do echo -n "$v: "; for t in 1 2 4 8 16; do mlp $v $t; done; echo; done; done
for v in p s; do echo "time $v 2t:"; ( time mix $v 2 deo_star ) 2>&1 | tr '\n' ' '; echo; done
