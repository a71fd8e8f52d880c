#!/usr/bin/env bash
# Packs what bench/many_cores.sh needs on a lent machine that has no
# build tools or libraries of this project: the release binaries and
# every shared library they load (the C library and its loader too), as
# KIT/replex and KIT/libs.tar.xz. Run here after building:
#   bash bench/device_kit.sh [BUILD] [KIT]        (build, .devcarry)
# There, with KIT, data/mnist and data/uci carried along:
#   tar -C KIT -xJf KIT/libs.tar.xz &&
#   RX_RUN="KIT/libs/ld-linux-x86-64.so.2 --library-path KIT/libs" \
#     bash bench/many_cores.sh "$OUT" KIT
set -eu
B=${1:-build}
K=${2:-.devcarry}
cd "$(dirname "$0")/.."
[ -x "$B/replex" ] || { echo "device_kit.sh: $B/replex missing (build first)" >&2; exit 2; }
# only what this script writes is replaced (KIT may hold other files)
rm -rf "$K/libs" && rm -f "$K/replex" "$K/libs.tar.xz" && mkdir -p "$K/libs"
cp "$B/replex" "$K/replex"
ldd "$B/replex" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' |
  while read -r l; do cp -L "$l" "$K/libs/"; done
[ -e "$K/libs/ld-linux-x86-64.so.2" ] || { echo "device_kit.sh: no ld-linux-x86-64.so.2 in ldd's list" >&2; exit 1; }
tar -C "$K" -cJf "$K/libs.tar.xz" libs
rm -rf "$K/libs"
du -sh "$K"
