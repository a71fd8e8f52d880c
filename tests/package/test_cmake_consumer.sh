#!/usr/bin/env bash
# The CMake package of an INSTALLED replex: `meson install --destdir`,
# then a consumer project (tests/package/cmake_consumer) that calls
# find_package(replex X.Y REQUIRED) with CMAKE_PREFIX_PATH at the
# installed prefix and links replex::replex, builds docs/examples/embed.c
# and a version check, and runs both. Also: the version file accepts and
# refuses what docs/api.md says, and the tree holds the man page, the
# bash completion and the licence.
set -u
command -v cmake > /dev/null ||
  { echo "cmake not found (scripts/bootstrap.sh installs it): skipped"; exit 77; }
. "$RX_SRCDIR/tests/package/install_tree.sh"
version=$(sed -n 's/^#define RX_VERSION_STRING "\(.*\)"$/\1/p' include/replex/replex.h)
major=${version%%.*} rest=${version#*.}; minor=${rest%%.*}
cfgdir=$libdir/cmake/replex
for f in replexConfig.cmake replexConfigVersion.cmake; do
  [ -f "$cfgdir/$f" ] || fail_test "$f not installed in $cfgdir"
done
share=$prefix/share
for f in "$share/man/man1/replex.1" \
         "$share/bash-completion/completions/replex" \
         "$share/doc/replex/LICENSE" "$share/doc/replex/CHANGELOG.md"; do
  [ -f "$f" ] || fail_test "${f#$root} not installed"
done

# The version file alone, as find_package evaluates it: WANT -> compatible?
cat > "$tmp/version.cmake" <<'CM'
include("${F}")
message("compatible=${PACKAGE_VERSION_COMPATIBLE}")
CM
check_version() {  # WANT EXPECTED(TRUE|FALSE) [MAX INCLUDE|EXCLUDE]
  local w=$1 out range=()
  IFS=. read -r wmaj wmin wpat <<< "$w"
  [ $# -gt 2 ] && range=(-DPACKAGE_FIND_VERSION_RANGE="$w...$3"
    -DPACKAGE_FIND_VERSION_MIN="$w" -DPACKAGE_FIND_VERSION_MAX="$3"
    -DPACKAGE_FIND_VERSION_RANGE_MAX="$4")
  out=$(cmake -DPACKAGE_FIND_VERSION="$w" -DPACKAGE_FIND_VERSION_MAJOR="$wmaj" \
          -DPACKAGE_FIND_VERSION_MINOR="${wmin:-0}" \
          -DPACKAGE_FIND_VERSION_PATCH="${wpat:-0}" "${range[@]}" \
          -DCMAKE_SIZEOF_VOID_P=$(( $(getconf LONG_BIT) / 8 )) \
          -DF="$cfgdir/replexConfigVersion.cmake" \
          -P "$tmp/version.cmake" 2>&1)
  case "$out" in
    *"compatible=$2"*) echo "ok: find_package(replex $w${3:+...$3 ($4)}) against $version: $2" ;;
    *) fail_test "find_package(replex $w${3:+...$3}) against $version: want $2, got: $out" ;;
  esac
}
check_version "$major.$minor" TRUE
check_version "$version" TRUE
check_version "$major.$((minor + 1))" FALSE
check_version "$((major + 1)).0" FALSE
[ "$major" = 0 ] && [ "$minor" -gt 0 ] && check_version "0.$((minor - 1))" FALSE
check_version "0.0" TRUE "$((major + 1)).0" EXCLUDE
check_version "0.0" FALSE "$version" EXCLUDE
check_version "0.0" TRUE "$version" INCLUDE

# Ninja: scripts/bootstrap.sh installs ninja-build, and make may be absent
cmake -G Ninja -S tests/package/cmake_consumer -B "$tmp/build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DREPLEX_WANT="$major.$minor" \
  -DEMBED_SOURCE="$RX_SRCDIR/docs/examples/embed.c" \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_BUILD_TYPE=Release \
  > "$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail_test "cmake configure failed"; }
grep "replex $version" "$tmp/configure.log"
cmake --build "$tmp/build" > "$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail_test "cmake --build failed"; }
# the programs find libreplex.so through their RPATH (CMake sets it for an
# imported library outside the system directories); no LD_LIBRARY_PATH
"$tmp/build/version_check" || fail_test "version_check failed"
"$tmp/build/embed" || fail_test "embed (CMake) failed"
