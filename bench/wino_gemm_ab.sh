#!/usr/bin/env bash
# Builds and runs bench/wino_gemm_ab.c: src/model/winograd.c compiled with
# its GEMM choice (RX__WINO_OWN_GEMM) bound to a runtime flag, linked
# ahead of the library built in build-model (meson setup build-model
# -Dbench=true && ninja -C build-model).
# Usage: bash bench/wino_gemm_ab.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
inc=(-Iinclude -Isrc $(pkg-config --cflags openblas 2>/dev/null || echo -I/usr/include/x86_64-linux-gnu/openblas-pthread))
echo 'extern int rxb_own_gemm;' > "$out/flag.h"
cc -O3 -std=c11 -DNDEBUG -fopenmp "${inc[@]}" -DRX_CACHELINE=64 \
   -DRX__WINO_OWN_GEMM=rxb_own_gemm -include "$out/flag.h" \
   -c src/model/winograd.c -o "$out/winograd.o"
cc -O2 -std=c11 -fopenmp "${inc[@]}" -DRX_CACHELINE=64 bench/wino_gemm_ab.c \
   "$out/winograd.o" build-model/libreplex_internal.a \
   $(pkg-config --libs yaml-0.1) -lopenblas -lz -lm -o "$out/ab"
"$out/ab" "${1:-15}"
