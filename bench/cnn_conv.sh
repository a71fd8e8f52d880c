#!/usr/bin/env bash
# The MNIST CNN step (batch 100, forward + backward, one thread) with
# conv im2col and conv auto (Winograd for conv2), each under OpenBLAS's
# default kernel choice and under OPENBLAS_CORETYPE=SkylakeX, and PyTorch's
# step (bench/torch_cnn.py), interleaved in R rounds. Each program reports
# thread CPU time per step, best and median of REPS steps.
# Needs: meson setup build-model -Dbench=true && ninja -C build-model;
#        apt-get install -y python3-torch (Debian's PyTorch).
# Usage: bash bench/cnn_conv.sh [ROUNDS] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-5}; REPS=${2:-7}
B=${BENCH_MODEL:-build-model/bench/bench_model}
[ -x "$B" ] || { echo "cnn_conv: $B missing (meson setup build-model -Dbench=true && ninja -C build-model)" >&2; exit 2; }
torch=1
/usr/bin/python3 -c 'import torch' 2>/dev/null || {
  torch=0; echo "cnn_conv: no PyTorch (apt-get install -y python3-torch); replex only" >&2; }
for r in $(seq 1 "$R"); do
  for kern in default SkylakeX; do
    for conv in im2col auto; do
      if [ "$kern" = SkylakeX ]; then e=(env OPENBLAS_CORETYPE=SkylakeX); else e=(env); fi
      "${e[@]}" "$B" --net cnn --reps "$REPS" --conv "$conv" --peak 512 |
        awk -v r="$r" -v k="$kern" -v c="$conv" '
          /^thread CPU time/ { printf "round %s replex %-6s %-8s best_ms %7.1f median_ms %7.1f\n", r, c, k, $6 / 1000, $9 / 1000 }'
    done
  done
  if [ $torch = 1 ]; then
    /usr/bin/python3 bench/torch_cnn.py --reps "$REPS" |
      awk -v r="$r" '/^thread CPU/ { printf "round %s torch  oneDNN          best_ms %7.1f median_ms %7.1f\n", r, $5, $8 }'
  fi
done
