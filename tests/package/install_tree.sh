# shellcheck shell=bash disable=SC2034
# Sourced by the tests that use an INSTALLED replex (test_embed_pkgconfig.sh,
# package/test_cmake_consumer.sh): `meson install --destdir` of the build
# into a temporary directory, as a packager does. Sets
#   tmp      the temporary directory (removed on exit)
#   root     the DESTDIR, $tmp/root
#   pcdir    the directory of the installed replex.pc
#   libdir   the installed libdir (libreplex.so)
#   prefix   the installed prefix inside $root
#   san      compiler flags a host program needs when the build is
#            sanitized (scripts/sanitize.sh), else empty
# and defines fail_test MESSAGE: print it, "0 passed, 1 failed", exit 1.
cd "$RX_SRCDIR" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
fail_test() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }
meson install -C "$RX_BUILDDIR" --no-rebuild --destdir "$root" \
  > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail_test "meson install failed"; }
pcdir=$(dirname "$(find "$root" -name replex.pc | head -1)")
[ -f "$pcdir/replex.pc" ] || fail_test "no replex.pc installed"
libdir=$(dirname "$pcdir")
[ -e "$libdir/libreplex.so" ] || fail_test "no libreplex.so beside $pcdir"
prefix=$root$(sed -n 's/^prefix=//p' "$pcdir/replex.pc")
[ -d "$prefix" ] || fail_test "prefix $prefix not installed"
san=
ldd "$libdir/libreplex.so" 2>/dev/null | grep -q libasan &&
  san="-fsanitize=address,undefined"
