#!/usr/bin/env bash
# The embedding example against an INSTALLED replex, the way a host code
# builds it: `meson install --destdir`, then
#   cc docs/examples/embed.c $(pkg-config --cflags --libs replex)
# with the installed replex.pc, and run (own energy and gradient, DEO*,
# results through the API, a callback error stopping the run).
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
meson install -C "$RX_BUILDDIR" --no-rebuild --destdir "$tmp/root" \
  > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "0 passed, 1 failed"; exit 1; }
pc=$(dirname "$(find "$tmp/root" -name replex.pc | head -1)")
[ -n "$pc" ] || { echo "no replex.pc installed"; echo "0 passed, 1 failed"; exit 1; }
export PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$tmp/root
flags=$(pkg-config --cflags --libs replex) ||
  { echo "pkg-config failed"; echo "0 passed, 1 failed"; exit 1; }
echo "pkg-config --cflags --libs replex: $flags"
libdir=$(pkg-config --libs-only-L replex | sed 's/^ *-L//; s/ .*//')
# a sanitized build (scripts/sanitize.sh) needs a sanitized host program
san=
ldd "$libdir/libreplex.so" 2>/dev/null | grep -q libasan &&
  san="-fsanitize=address,undefined"
cc -std=c11 $san docs/examples/embed.c $flags -lm -o "$tmp/embed" ||
  { echo "compile failed"; echo "0 passed, 1 failed"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$tmp/embed"
