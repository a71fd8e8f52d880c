#!/usr/bin/env bash
# libFuzzer harness for the YAML experiment loader (fuzz/fuzz_config.c).
#
#   bash scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
#
# Builds build-fuzz/fuzz_config with clang -fsanitize=fuzzer,address,undefined
# (installs clang via apt when missing and running as root), seeds the
# working corpus build-fuzz/corpus from yaml/*.yaml, tests/cli/bad/*.yaml and
# fuzz/corpus/*, and fuzzes for SECONDS (default 60) with the dictionary
# build-fuzz/config.dict (fuzz/config.dict + the schema's names). Crashing
# inputs land in build-fuzz/crash-* (libFuzzer prints the path); exit status
# non-zero on a finding.
#   RX_FUZZ_BUILD_ONLY=1   build and exit
#   SECONDS = 0            run every seed once and stop (a regression check)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
out=build-fuzz
cc=${CC_FUZZ:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fuzz: installing clang (libFuzzer comes with libclang-rt-*-dev)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends clang >/dev/null
  else
    echo "fuzz: $cc not found; skipped" >&2
    exit 0
  fi
fi

mkdir -p "$out"
# Only the loader and the status/message helpers: no OpenMP or BLAS needed.
srcs=(fuzz/fuzz_config.c src/io/config.c src/core/status.c)
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -Iinclude
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -DRX_CACHELINE=64)
stamp=$out/fuzz_config
if [ ! -x "$stamp" ] || [ -n "$(find "${srcs[@]}" src/io/config.h \
       src/core/internal.h include/replex/replex.h -newer "$stamp")" ]; then
  if ! "$cc" "${flags[@]}" "${srcs[@]}" $(pkg-config --cflags --libs \
       yaml-0.1) -lm -o "$stamp.new" 2> "$out/build.log"; then
    if grep -q -- "-fsanitize=fuzzer" "$out/build.log" &&
       grep -qi "libclang_rt.fuzzer\|unsupported option" "$out/build.log"; then
      echo "fuzz: $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev);" \
           "skipped" >&2
      exit 0
    fi
    cat "$out/build.log" >&2
    exit 1
  fi
  mv "$stamp.new" "$stamp"
fi
[ "${RX_FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

# the dictionary: fuzz/config.dict plus the schema's names from config.c
{
  cat fuzz/config.dict
  grep -oE '^ +\{"[A-Za-z_0-9.]+", K_' src/io/config.c |
    sed -E 's/^ +\{"([^"]+)".*/\1/' > "$out/keys.txt"
  awk '{printf "path_%d=\"%s\"\n", NR, $1}' "$out/keys.txt"
  tr '.' '\n' < "$out/keys.txt" | sort -u |
    awk '{printf "name_%d=\"%s: \"\n", NR, $1}'
  # string literals of the name tables (may span lines)
  awk '/static const char \*const [a-z_]+\[\] = \{/,/NULL\};/' \
    src/io/config.c | grep -oE '"[A-Za-z_0-9]+"' | sort -u |
    awk '{printf "word_%d=%s\n", NR, $1}'
} > "$out/config.dict"

mkdir -p "$out/corpus"
cp -n yaml/*.yaml tests/cli/bad/*.yaml "$out/corpus/" 2>/dev/null || true
[ -d fuzz/corpus ] && cp -n fuzz/corpus/* "$out/corpus/" 2>/dev/null || true

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
if [ "$secs" = 0 ]; then
  # run every seed once; fails on any crash, leak or UB report
  exec "$stamp" -dict="$out/config.dict" "$@" "$out"/corpus/*
fi
exec "$stamp" -dict="$out/config.dict" -max_total_time="$secs" -max_len=4096 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/" -print_final_stats=1 \
  "$@" "$out/corpus"
