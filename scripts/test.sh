#!/usr/bin/env bash
# The README's second command (and CI's): installs dependencies, then builds and runs the
# whole test suite twice — Release, and -O1 with AddressSanitizer + UndefinedBehaviorSanitizer
# (the library and the CLI instrumented; the test files, which only drive them, are not:
# tests/CMakeLists.txt) — both replay the fuzz targets' regression inputs; GMBD_FUZZ_SECONDS=N
# adds live fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
JOBS="${GMBD_JOBS:-$(nproc)}"
status=0

echo "=== Release build and tests ==="
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGMBD_BUILD_TESTS=ON -DGMBD_BUILD_BENCH=ON -DGMBD_WERROR=ON
cmake --build build/release -j "$JOBS"
(cd build/release && ctest --output-on-failure -j "$JOBS") || status=1

echo "=== AddressSanitizer + UndefinedBehaviorSanitizer build and tests ==="
# -O1 -g1: sanitizer builds compile ~2x faster than -O2 -g and keep file:line in reports.
# Shared HDF5 here (GMBD_STATIC_HDF5=OFF): scripts/lsan.supp names HDF5's own error-path leaks by
# its library, and start-up time does not matter under the sanitizers.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DGMBD_SANITIZE=ON \
  -DGMBD_STATIC_HDF5=OFF \
  -DGMBD_BUILD_BENCH=OFF -DGMBD_BUILD_TESTS=ON -DGMBD_WERROR=ON
cmake --build build/asan -j "$JOBS"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/scripts/lsan.supp}"  # HDF5's own error-path leaks
# The package tests (install layout, self-contained headers, an out-of-tree user build) check
# packaging, which the sanitizers add nothing to; the Release pass runs them.
(cd build/asan && ctest --output-on-failure -j "$JOBS" -E '^package_') || status=1

# The fuzz targets' regression inputs and seed files were replayed by both passes above (the
# fuzz_replay_* tests). Live fuzzing needs its own clang build (~6 min here): opt in with
# GMBD_FUZZ_SECONDS=N (seconds per target; docs/fuzzing.md).
if [ "${GMBD_FUZZ_SECONDS:-0}" -gt 0 ]; then
  echo "=== Fuzzing: the parser targets, ${GMBD_FUZZ_SECONDS} s each (docs/fuzzing.md) ==="
  bash scripts/fuzz.sh "${GMBD_FUZZ_SECONDS}" || status=1
fi

if [ "$status" -ne 0 ]; then
  echo "test.sh: FAILED (see the ctest output above)"
else
  echo "test.sh: all Release and sanitizer tests passed"
fi
exit "$status"
