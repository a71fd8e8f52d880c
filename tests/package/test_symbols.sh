#!/usr/bin/env bash
# The dynamic symbols libreplex.so exports are exactly the functions
# replex.h declares RX_API: every one starts with rx_, none with the
# internal prefix rx__ (visibility and src/libreplex.map keep those local).
#
# usage: test_symbols.sh LIBREPLEX.so REPLEX.h [REPLEX_MPI.h]
# (an MPI build also exports what replex_mpi.h declares)
set -u
lib=$1 header=$2 mpi_header=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v nm > /dev/null || { echo "nm not found: skipped"; exit 77; }
nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u \
  > "$tmp/exported" || { echo "nm -D failed on $lib"; exit 1; }
# RX_API TYPE [*]NAME(  -> NAME (the declaration may continue on more lines)
grep -ho '^RX_API[^(;]*(' "$header" $mpi_header | sed 's/ *($//; s/.*[ *]//' | sort -u \
  > "$tmp/declared"
fail=0
n=$(wc -l < "$tmp/exported")
[ "$n" -gt 0 ] || { echo "FAILED: no exported symbols in $lib"; fail=1; }
if grep -v '^rx_' "$tmp/exported" > "$tmp/bad"; then
  echo "FAILED: exported without the rx_ prefix:"; sed 's/^/  /' "$tmp/bad"
  fail=1
fi
if grep '^rx__' "$tmp/exported" > "$tmp/bad"; then
  echo "FAILED: internal rx__ symbols exported:"; sed 's/^/  /' "$tmp/bad"
  fail=1
fi
if ! diff "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
  echo "FAILED: exported symbols (>) differ from the RX_API declarations" \
       "of $(basename "$header") (<):"
  cat "$tmp/diff"
  fail=1
fi
[ $fail = 0 ] &&
  echo "ok: $n exported symbols, all rx_, none rx__, as replex.h declares"
exit $fail
