#!/usr/bin/env bash
# The paper's 2-D experiment (deo.md 5.1) with noisy energies: DEO-SGD vs
# DEO*-SGD round trips, condition rates, buffer C, ladder, the W and S
# sweeps, and the TV distance of DEO*-SGD, DEO-SGD and the two baselines of
# Fig. 5. Prints Markdown tables (docs/reproduction.md). Needs only bash,
# awk and build/replex; runs single-threaded, JOBS at a time (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
REPLEX=${REPLEX:-build/replex}
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8 9 10"}
JOBS=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME FILE [--set ...]: one run per seed, summaries into $tmp/NAME.S
run() {
  local name=$1 file=$2; shift 2
  for s in $SEEDS; do
    echo "$REPLEX run yaml/$file -o $tmp/$name.$s -q --threads 1 --set seed=$s $*"
  done
}
field() { # field FILE KEY -> first numeric value after "KEY":
  grep -o "\"$2\": [-0-9.e]*" "$1" | head -1 | awk '{print $2}'
}
stats() { # mean and sd of stdin numbers
  awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=q/n-m*m; if (v<0) v=0;
       printf "%.2f +- %.2f", m, sqrt(v*n/(n>1?n-1:1))}'
}
{
  run deo deo_sgd_2d.yaml
  run star deo_star_sgd_2d.yaml
  run sgld sgld_x16_2d.yaml
  run cyc cycsgld_x16_2d.yaml
  for W in 1 2 3 4 5 6 7 8 9 10 12 16 20; do
    run w$W deo_star_sgd_2d.yaml --set tempering.scheme=deo_w --set tempering.window=$W
  done
  for S in 0.2 0.3 0.4 0.5 0.6; do
    run s$S deo_star_sgd_2d.yaml --set tempering.target_swap_rate=$S
  done
} > "$tmp/jobs"
xargs -P "$JOBS" -I{} sh -c '{}' < "$tmp/jobs"

echo "### DEO-SGD vs DEO*-SGD (P = 16, 20,001 iterations, seeds: $SEEDS)"
echo
echo "| run | W | A.5 trips / 1000 | 1->P->1 / 1000 | mean condition rate | final C | eta(2) | TV |"
echo "|---|---|---|---|---|---|---|---|"
for n in deo star; do
  w=$(field "$tmp/$n.1/summary.json" window)
  a=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" a5_per_1000; done | stats)
  l=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" l1_per_1000; done | stats)
  c=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" condition_rate_mean; done |
      awk '{s+=$1; n++} END {printf "%.4f", s/n}')
  C=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" correction; done | stats)
  e=$(for s in $SEEDS; do grep -o '"eta": \[[^]]*' "$tmp/$n.$s/summary.json" |
      awk -F', ' '{print $2}'; done | awk '{s+=$1; n++} END {printf "%.4f", s/n}')
  t=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" tv_distance; done |
      awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; printf "%.3f +- %.3f", m, sqrt((q/n-m*m)*n/(n-1))}')
  echo "| $([ $n = deo ] && echo DEO-SGD || echo DEO*-SGD) | $w | $a | $l | $c | $C | $e | $t |"
done
echo
echo "### Accuracy against the baselines of Fig. 5 (about 2,000 samples each)"
echo
echo "| method | samples | TV to the true density on the 30 x 30 grid | mode-weight TV | mass on the outer 16 modes (truth $(field "$tmp/star.1/summary.json" outer16_true | awk '{printf "%.3f", $1}')) |"
echo "|---|---|---|---|---|"
msd() { awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; printf "%.3f +- %.3f", m, sqrt((q/n-m*m)*n/(n-1))}'; }
for n in star deo sgld cyc; do
  cnt=$(field "$tmp/$n.1/summary.json" count)
  t=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" tv_distance; done | msd)
  # the second tv_distance of summary.json: the "modes" block
  mt=$(for s in $SEEDS; do grep -o '"tv_distance": [-0-9.e]*' \
      "$tmp/$n.$s/summary.json" | sed -n 2p | awk '{print $2}'; done | msd)
  o=$(for s in $SEEDS; do field "$tmp/$n.$s/summary.json" outer16_est; done | msd)
  case $n in star) m="DEO*-SGD x P16";; deo) m="DEO-SGD x P16";;
    sgld) m="SGLD x P16 (independent chains)";; cyc) m="cycSGLD x T16 (one chain, 16x budget)";; esac
  echo "| $m | $cnt | $t | $mt | $o |"
done
echo
echo "### W sweep (DEO_W-SGD, A.5 trips / 1000)"
echo
echo "| W | A.5 trips / 1000 | 1->P->1 / 1000 |"
echo "|---|---|---|"
for W in 1 2 3 4 5 6 7 8 9 10 12 16 20; do
  a=$(for s in $SEEDS; do field "$tmp/w$W.$s/summary.json" a5_per_1000; done | stats)
  l=$(for s in $SEEDS; do field "$tmp/w$W.$s/summary.json" l1_per_1000; done | stats)
  echo "| $W | $a | $l |"
done
echo
echo "### S sweep (DEO*-SGD; W* follows S)"
echo
echo "| S | W* | A.5 trips / 1000 | mean condition rate | TV |"
echo "|---|---|---|---|---|"
for S in 0.2 0.3 0.4 0.5 0.6; do
  w=$(field "$tmp/s$S.1/summary.json" window)
  a=$(for s in $SEEDS; do field "$tmp/s$S.$s/summary.json" a5_per_1000; done | stats)
  c=$(for s in $SEEDS; do field "$tmp/s$S.$s/summary.json" condition_rate_mean; done |
      awk '{s+=$1; n++} END {printf "%.4f", s/n}')
  t=$(for s in $SEEDS; do field "$tmp/s$S.$s/summary.json" tv_distance; done |
      awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; printf "%.3f +- %.3f", m, sqrt((q/n-m*m)*n/(n-1))}')
  echo "| $S | $w | $a | $c | $t |"
done
