#!/usr/bin/env bash
# Memory and undefined-behaviour checks, run by .ci/run after the test suite:
#   1. ASan + UBSan (meson's b_sanitize) build in build-asan; the unit and
#      determinism suites and the end-to-end CLI tests under it, each test
#      stopping at its first report;
#   2. valgrind memcheck on one small end-to-end `replex run` (release
#      build in build/, as scripts/test.sh leaves it): no errors, no
#      definite or indirect leaks;
#   3. the libFuzzer harnesses for a bounded time (scripts/fuzz.sh): the
#      YAML loader, then each data loader (CSV, IDX, JSON) and the resume
#      path (checkpoints) more briefly; skipped with a message when clang
#      is missing.
#
#   bash scripts/sanitize.sh [asan|valgrind|fuzz ...]   (default: all three)
#   RX_FUZZ_SECONDS        step 3 on the YAML loader (default 60)
#   RX_FUZZ_DATA_SECONDS   step 3 on each data loader (default 20)
#   RX_FUZZ_RESUME_SECONDS step 3 on the resume path (default 30)
# Installs valgrind (and, through scripts/fuzz.sh, clang) with apt when
# missing and running as root, like scripts/bootstrap.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(asan valgrind fuzz)
has() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
t_start=$(date +%s)
failed=()
stamp() { echo "sanitize: $1 ($(( $(date +%s) - t_start )) s so far)" >&2; }

apt_install() {
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    return 1
  fi
  echo "sanitize: installing $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

bash scripts/bootstrap.sh --tests  # packages and the release build in build/

# Halt on the first UBSan report; leaks are errors (no suppressions
# needed: libgomp's thread pool is reachable at exit, not leaked). Exit
# status 86 on a report, so that the cli suite never takes one for
# replex's own statuses 1 and 2.
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86

if has asan; then
  if [ ! -f build-asan/build.ninja ]; then
    # without MPI: the instrumented suites then also cover the build
    # without it (test mpi_absent); Open MPI's own allocations at start-up
    # would read as leaks (the MPI runs are tested in build/)
    meson setup build-asan --buildtype=debugoptimized \
      -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false \
      -Dmpi=disabled >/dev/null
  fi
  ninja -C build-asan >/dev/null
  stamp "ASan+UBSan build ready"
  # unit and determinism suites, and the end-to-end CLI tests that drive
  # the whole program through the instrumented replex (bad input, help,
  # progress, interrupts, full disks, sweeps, plots); not the long
  # checkpoint fault-injection test (minutes already without ASan)
  asan_test() {
    meson test -C build-asan --print-errorlogs --timeout-multiplier 3 "$@"
  }
  if asan_test --suite unit --suite determinism &&
     asan_test cli_bad_input cli_ux cli_sweep cli_plots mpi_absent; then
    stamp "ASan+UBSan suites passed"
  else
    failed+=(asan)   # go on: valgrind and the fuzzer still say something
    stamp "ASan+UBSan suites FAILED (build-asan/meson-logs/testlog.txt)"
  fi
fi

if has valgrind; then
  command -v valgrind >/dev/null 2>&1 || apt_install valgrind || {
    echo "sanitize: valgrind missing and cannot be installed" >&2
    exit 1
  }
  w=$(mktemp -d "${TMPDIR:-/tmp}/replex-valgrind.XXXXXX")
  trap 'rm -rf "$w"' EXIT
  # small but complete: every phase, 2 threads, all five output files;
  # --fair-sched keeps the spinning barrier from starving the other thread.
  # "possibly lost": glibc's TLS block of libgomp's pool thread, not a leak.
  vg=(valgrind --error-exitcode=1 --leak-check=full
      --errors-for-leak-kinds=definite,indirect
      --show-leak-kinds=definite,indirect --fair-sched=yes --quiet)
  vfail=0
  "${vg[@]}" build/replex run yaml/default.yaml -o "$w/run" --threads 2 \
    --no-plots --quiet --set iterations=3000 --set tempering.n_chains=8 ||
    vfail=1
  # and a network target (data set, minibatches, BLAS, evaluation)
  "${vg[@]}" build/replex run yaml/mlp_synthetic.yaml -o "$w/net" \
    --threads 2 --no-plots --quiet --set iterations=300 \
    --set record.burn_in=100 || vfail=1
  for f in config.yaml summary.json trace.csv index.npy samples.npy; do
    for r in run net; do
      [ -s "$w/$r/$f" ] || { echo "sanitize: valgrind run $r lacks $f" >&2; vfail=1; }
    done
  done
  if [ $vfail -eq 0 ]; then
    stamp "valgrind memcheck clean"
  else
    failed+=(valgrind)
    stamp "valgrind memcheck FAILED"
  fi
fi

if has fuzz; then
  mkdir -p build-fuzz
  log=build-fuzz/ci.log
  if bash scripts/fuzz.sh "${RX_FUZZ_SECONDS:-60}" config > "$log" 2>&1 &&
     bash scripts/fuzz.sh "${RX_FUZZ_DATA_SECONDS:-20}" data >> "$log" 2>&1 &&
     bash scripts/fuzz.sh "${RX_FUZZ_RESUME_SECONDS:-30}" resume >> "$log" 2>&1
  then
    grep -E '^(Done|fuzz:)' "$log" >&2 || true
    stamp "fuzzing done"
  else
    tail -n 40 "$log" >&2
    failed+=(fuzz)
    stamp "the fuzzer found a problem ($log, build-fuzz/*crash-*)"
  fi
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: all clean ($(( $(date +%s) - t_start )) s)" >&2
