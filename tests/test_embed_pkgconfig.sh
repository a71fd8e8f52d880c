#!/usr/bin/env bash
# The embedding example against an INSTALLED replex, the way a host code
# builds it: `meson install --destdir`, then
#   cc docs/examples/embed.c $(pkg-config --cflags --libs replex)
# with the installed replex.pc, and run (own energy and gradient, DEO*,
# results through the API, a callback error stopping the run); then the
# same linked statically (libreplex.a, pkg-config --static for its
# dependencies). tests/package/test_cmake_consumer.sh builds it with CMake.
set -u
. "$RX_SRCDIR/tests/package/install_tree.sh"
# The installed replex.pc, its prefix pointed into the DESTDIR tree (a
# sysroot would also move the system paths of its dependencies, such as
# netcdf's hdf5 directory, into the tree).
mkdir -p "$tmp/pc"
sed "s|^prefix=.*|prefix=$prefix|" "$pcdir/replex.pc" > "$tmp/pc/replex.pc"
export PKG_CONFIG_PATH=$tmp/pc
flags=$(pkg-config --cflags --libs replex) || fail_test "pkg-config failed"
echo "pkg-config --cflags --libs replex: $flags"
version=$(pkg-config --modversion replex)
want=$(sed -n 's/^#define RX_VERSION_STRING "\(.*\)"$/\1/p' include/replex/replex.h)
[ "$version" = "$want" ] ||
  fail_test "pkg-config --modversion: '$version', replex.h: '$want'"
cc -std=c11 $san docs/examples/embed.c $flags -lm -o "$tmp/embed" ||
  fail_test "compile failed"
LD_LIBRARY_PATH="$libdir" "$tmp/embed" || fail_test "embed (shared) failed"

static=$(pkg-config --cflags --libs --static replex) ||
  fail_test "pkg-config --static failed"
echo "pkg-config --cflags --libs --static replex: $static"
cc -std=c11 $san docs/examples/embed.c ${static/-lreplex/-l:libreplex.a} \
  -lm -o "$tmp/embed_static" || fail_test "static link failed"
ldd "$tmp/embed_static" | grep -q libreplex &&
  fail_test "embed_static loads libreplex.so"
"$tmp/embed_static" || fail_test "embed (static) failed"
