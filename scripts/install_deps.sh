#!/usr/bin/env bash
# Installs GaussMBD's dependencies from Debian 12 packages.
#   bash scripts/install_deps.sh demo   what building gmbd and running the demo need (README's first command)
#   bash scripts/install_deps.sh        everything: + tests, benchmarks, Octave/SciPy checks, clang fuzzing
# Idempotent: skips apt entirely when everything is already present.
set -euo pipefail

# Building gmbd (the library and the CLI, with MPI for sweeps across mpirun ranks) and drawing
# the demo's plot.
DEMO_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libsundials-dev libhdf5-dev
  libspdlog-dev libfmt-dev libcli11-dev libyaml-cpp-dev libmatio-dev
  libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-matplotlib python3-h5py
)
# The test suite and the rest: GoogleTest, Google Benchmark, h5dump, the Octave (with its
# control package: dss, pole) and SciPy cross-checks of the linear exports, clang for the fuzz
# targets.
TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev hdf5-tools
  octave octave-control python3-scipy
  clang libclang-rt-14-dev
)

case "${1:-all}" in
  demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  all) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "usage: bash scripts/install_deps.sh [demo|all]" >&2; exit 2 ;;
esac

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
