#!/usr/bin/env bash
# libFuzzer harnesses: the YAML experiment loader (fuzz/fuzz_config.c),
# the data loaders of src/data/ (fuzz/fuzz_csv.c, fuzz_idx.c, fuzz_json.c)
# and the resume path (fuzz/fuzz_resume.c: checkpoints, whole library).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET] [extra libFuzzer flags...]
#
# TARGET: config (the default), csv, idx, json, data (the three data
# loaders), resume or all; several targets run one after the other,
# SECONDS each.
# Builds build-fuzz/fuzz_TARGET with clang -fsanitize=fuzzer,address,undefined
# (installs clang via apt when missing and running as root), seeds the
# working corpus build-fuzz/corpus (config: yaml/*.yaml, tests/cli/bad/*.yaml,
# fuzz/corpus/*) or build-fuzz/corpus_T (data: fuzz/corpus_T/*; resume:
# real checkpoints that the harness writes at every run, RX_FUZZ_RESUME_SEEDS,
# and fuzz/corpus_resume/*), and fuzzes
# for SECONDS (default 60); config uses the dictionary build-fuzz/config.dict
# (fuzz/config.dict + the schema's names). Crashing inputs land in
# build-fuzz/crash-* (config) or build-fuzz/T-crash-* (libFuzzer prints the
# path); exit status non-zero on a finding.
#   RX_FUZZ_BUILD_ONLY=1   build and exit
#   SECONDS = 0            run every seed once and stop (a regression check)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
targets=()
case "${1:-}" in
  config|csv|idx|json|resume) targets=("$1"); shift ;;
  data) targets=(csv idx json); shift ;;
  all) targets=(config csv idx json resume); shift ;;
  *) targets=(config) ;;
esac
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
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -Iinclude
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -DRX_CACHELINE=64)

# OpenMP for clang: its own libomp when installed, else GCC's libgomp
omp_flags() {
  if echo 'int main(void){return 0;}' |
       "$cc" -fopenmp -x c - -o "$out/omp-probe" 2>/dev/null; then
    echo -fopenmp
  else
    echo -fopenmp=libgomp
  fi
  rm -f "$out/omp-probe"
}

# build T: build-fuzz/fuzz_T, only when a source is newer. Returns 2 when
# the compiler has no libFuzzer runtime.
build() {
  local t=$1 srcs deps libs
  if [ "$t" = config ]; then
    # Only the loader, the rows of the type tables it reads (steps,
    # exchange tests, biases: their names, keys and checks), the test
    # functions' names and dimensions (optfun.c) and the status/message
    # helpers: no OpenMP or BLAS.
    srcs=(fuzz/fuzz_config.c src/io/yaml.c src/io/config.c
          src/io/config_leaf.c src/config/*.c src/bias/*.c src/step/*.c
          $(ls src/exchange/*.c | grep -v -e '/exchange\.c$' -e '/sched\.c$')
          src/target/optfun.c
          src/core/status.c src/core/names.c src/core/rng.c src/core/mem.c
          src/core/num.c)
    deps=(src/io/config.h src/io/yaml.h src/config/config.h src/core/row.h)
    libs=($(pkg-config --cflags --libs yaml-0.1) -lm)
  elif [ "$t" = resume ]; then
    # the whole library (not the CLI), with OpenMP, BLAS, libyaml, zlib
    srcs=(fuzz/fuzz_resume.c $(ls src/*/*.c | grep -v '^src/cli/'))
    deps=(src/*/*.h)
    libs=($(omp_flags) $(pkg-config --cflags --libs yaml-0.1 zlib netcdf)
          $(pkg-config --cflags --libs "${RX_BLAS_PKG:-openblas}") -lm)
  else
    # the data layer with the RNG (splits, batches) and the allocator
    srcs=(fuzz/fuzz_$t.c src/data/*.c src/core/status.c src/core/rng.c
          src/core/mem.c)
    deps=(fuzz/fuzz_data_common.h src/data/data.h)
    libs=(-lz -lm)
  fi
  local bin=$out/fuzz_$t
  if [ ! -x "$bin" ] || [ -n "$(find "${srcs[@]}" "${deps[@]}" \
         src/core/internal.h include/replex/replex.h -newer "$bin")" ]; then
    if ! "$cc" "${flags[@]}" "${srcs[@]}" "${libs[@]}" -o "$bin.new" \
         2> "$out/build-$t.log"; then
      if grep -qi "libclang_rt.fuzzer\|unsupported option" \
           "$out/build-$t.log"; then
        echo "fuzz: $cc has no libFuzzer runtime (Debian:" \
             "libclang-rt-14-dev); skipped" >&2
        return 2
      fi
      cat "$out/build-$t.log" >&2
      return 1
    fi
    mv "$bin.new" "$bin"
  fi
}

for t in "${targets[@]}"; do
  rc=0
  build "$t" || rc=$?
  [ $rc -eq 2 ] && exit 0
  [ $rc -ne 0 ] && exit 1
done
[ "${RX_FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

# the dictionary: fuzz/config.dict, the schema's names from schema.c and
# the rows' names and keys
config_dict() {
  cat fuzz/config.dict
  grep -oE '^ +\{"[A-Za-z_0-9.]+", K_' src/config/schema.c |
    sed -E 's/^ +\{"([^"]+)".*/\1/' > "$out/keys.txt"
  awk '{printf "path_%d=\"%s\"\n", NR, $1}' "$out/keys.txt"
  tr '.' '\n' < "$out/keys.txt" | sort -u |
    awk '{printf "name_%d=\"%s: \"\n", NR, $1}'
  # string literals of the name tables (may span lines)
  awk '/^const char \*const rx__[a-z_]+\[\] = \{/,/NULL\};/' \
    src/config/schema.c | grep -oE '"[A-Za-z_0-9]+"' | sort -u |
    awk '{printf "word_%d=%s\n", NR, $1}'
  # the rows' names and their own keys (src/core/row.h declarations)
  grep -ohE '\.row = \{\.name = "[a-z_0-9]+"' src/*/*.c |
    grep -oE '"[a-z_0-9]+"' | sort -u | awk '{printf "row_%d=%s\n", NR, $1}'
  grep -ohE '^ *\{"[a-z_0-9]+\.[a-z_0-9.]+", K_' src/step/*.c src/exchange/*.c \
    src/bias/*.c | grep -oE '"[^"]+"' | sort -u |
    awk '{printf "rowkey_%d=%s\n", NR, $1}'
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# run T: fuzz it (or run its seeds once) with its corpus and options
run() {
  local t=$1; shift
  local corpus opts=() prefix
  if [ "$t" = config ]; then
    config_dict > "$out/config.dict"
    corpus=$out/corpus
    mkdir -p "$corpus"
    cp -n yaml/*.yaml tests/cli/bad/*.yaml "$corpus/" 2>/dev/null || true
    [ -d fuzz/corpus ] && cp -n fuzz/corpus/* "$corpus/" 2>/dev/null || true
    opts=(-dict="$out/config.dict" -max_len=4096)
    prefix=$out/
  elif [ "$t" = resume ]; then
    corpus=$out/corpus_resume
    mkdir -p "$corpus"
    # real checkpoints of the harness's configurations, in this build's
    # format (2 option bytes + the file)
    RX_FUZZ_RESUME_SEEDS=$corpus "$out/fuzz_resume"
    cp -n fuzz/corpus_resume/* "$corpus/" 2>/dev/null || true
    opts=(-max_len=16384)
    prefix=$out/resume-
  else
    corpus=$out/corpus_$t
    mkdir -p "$corpus"
    cp -n fuzz/corpus_$t/* "$corpus/" 2>/dev/null || true
    case $t in
      csv) opts=(-max_len=4096) ;;    # 4 option bytes + the CSV text
      idx) opts=(-max_len=8192) ;;    # 3 header bytes + images + labels
      json) opts=(-max_len=16384) ;;  # 1 byte + a digit file (~2.3 KB/image)
    esac
    prefix=$out/$t-
  fi
  if [ "$secs" = 0 ]; then
    # run every seed once; fails on any crash, leak or UB report
    local seedopts=()
    [ "$t" = config ] && seedopts=("${opts[0]}")
    "$out/fuzz_$t" ${seedopts[@]+"${seedopts[@]}"} "$@" "$corpus"/*
  else
    "$out/fuzz_$t" "${opts[@]}" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$prefix" -print_final_stats=1 \
      "$@" "$corpus"
  fi
}

failed=()
for t in "${targets[@]}"; do
  [ ${#targets[@]} -gt 1 ] && echo "fuzz: $t (${secs} s)" >&2
  run "$t" "$@" || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
