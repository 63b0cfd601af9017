#!/usr/bin/env bash
# The README's first command: installs what the demo needs (Debian packages), builds GaussMBD in
# Release and runs the built-in demo, then says where the results are.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh demo  # only what gmbd and the demo need; scripts/test.sh installs the rest
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGMBD_BUILD_TESTS=OFF -DGMBD_BUILD_BENCH=OFF >/dev/null
cmake --build build/release --target gmbd
OUT="${1:-results/demo}"
./build/release/apps/gmbd/gmbd demo --out "$OUT"
echo
echo "Demo results are in $(cd "$OUT" && pwd): demo.h5 (HDF5), demo.csv, demo.png, demo_run.yaml"
echo "The gmbd executable is build/release/apps/gmbd/gmbd (try: gmbd --help)."
