set -u
B=build-devbundle
(cd $B && tar xJf libs.tar.xz)
export LD_LIBRARY_PATH=$PWD/$B/lib
mix() { # binary threads
  $B/$1 run yaml/mixture25_deo.yaml -o /tmp/e --force -q --no-plots --threads $2 --set rng.normal=ziggurat --set tempering.scheme=deo_star --set iterations=200000 --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 --set record.index_every=0 --set record.trace_every=0 --set record.thin=100
  grep -o '"chain_steps_per_s": [0-9.]*' /tmp/e/summary.json | awk '{printf "%.3f", $2/1e6}'; }
{ echo "round,old_1t,old_2t,new_1t,new_2t"
for r in 1 2 3 4 5 6 7 8; do
  if [ $((r%2)) = 1 ]; then a1=$(mix replex_old 1); a2=$(mix replex_old 2); b1=$(mix replex 1); b2=$(mix replex 2)
  else b2=$(mix replex 2); b1=$(mix replex 1); a2=$(mix replex_old 2); a1=$(mix replex_old 1); fi
  echo "$r,$a1,$a2,$b1,$b2"; done; } > /tmp/poolab.csv
mkdir -p /tmp/m; cp /tmp/poolab.csv /tmp/m/
python3 bench/round_stats.py /tmp/poolab.csv M old_2t/old_1t new_2t/new_1t new_2t/old_2t new_1t/old_1t | tee /tmp/m/poolab.txt
( time $B/replex_old run yaml/mixture25_deo.yaml -o /tmp/e --force -q --no-plots --threads 2 ) 2>&1 | tr '\n' ' '; echo
( time $B/replex run yaml/mixture25_deo.yaml -o /tmp/e --force -q --no-plots --threads 2 ) 2>&1 | tr '\n' ' '; echo
(time bash bench/many_cores.sh /tmp/m $B 1,2,4,8,16) 2>&1 | tail -3
tar czf $OUT/many3.tgz -C /tmp/m .
cat /tmp/m/model.md; tail -9 /tmp/m/noisy16.txt; cat /tmp/m/engine_ab.txt
