#!/usr/bin/env bash
# Installs what the build needs on Debian (as root) if it is missing, then
# configures and builds replex in ./build. Safe to run again.
# --tests: also what the test suite needs (scripts/test.sh passes it).
set -euo pipefail
cd "$(dirname "$0")/.."

# gnuplot-nox draws the plots of `replex run` (optional for the library);
# libnetcdf-dev writes inference.nc
# libopenmpi-dev and openmpi-bin: runs on MPI ranks (mpirun -np R replex
# run; the build finds Open MPI and enables it, docs/yaml.md "mpi")
pkgs=(gcc meson ninja-build pkg-config libopenblas-dev libyaml-dev zlib1g-dev
      libnetcdf-dev gnuplot-nox libopenmpi-dev openmpi-bin)
# for the tests only: xarray and netCDF4 read inference.nc back; cmake and
# groff-base build the CMake consumer and check the man page (tests/package/);
# PyTorch checks the LSTM layer against torch.nn.LSTM (lstm_torch)
if [ "${1:-}" = --tests ]; then
  pkgs+=(python3-numpy python3-netcdf4 python3-xarray python3-h5netcdf
         python3-torch cmake groff-base)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "bootstrap: missing packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "bootstrap: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >/dev/null
elif [ ${#missing[@]} -gt 0 ]; then
  # build/ was configured before these packages were there (run_default.sh
  # first, then test.sh): let meson look again at what it found then
  meson setup --reconfigure build >/dev/null
fi
ninja -C build >/dev/null
