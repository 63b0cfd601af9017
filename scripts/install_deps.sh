#!/usr/bin/env bash
# Installs every build, test and plotting dependency of GaussMBD from Debian 12 packages.
# Idempotent: skips apt entirely when everything is already present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libsundials-dev libhdf5-dev hdf5-tools
  libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libyaml-cpp-dev libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-matplotlib python3-h5py
  libmatio-dev octave python3-scipy
  clang libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "[install_deps] all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "[install_deps] installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "[install_deps] done"
