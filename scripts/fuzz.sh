#!/usr/bin/env bash
# Fuzzes the parsers: builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) in
# build/fuzz, seeds each corpus from the repository's own files, replays the committed
# regression inputs and fuzzes each target for SECONDS. Any crash fails the script; its input is
# saved in build/fuzz/findings/<target>/ (add it to fuzz/regressions/<target>/ with its fix).
#   bash scripts/fuzz.sh [SECONDS=60] [TARGET…]      targets: run_config model_file expression motion sweep_file
#   GMBD_FUZZ_WORKERS=N   parallel fuzzing processes per target (default 1)
#   GMBD_FUZZ_PARALLEL=N  targets fuzzed at the same time (default: the number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(run_config model_file expression motion sweep_file)
WORKERS="${GMBD_FUZZ_WORKERS:-1}"
BUILD=build/fuzz

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (Debian packages clang libclang-rt-14-dev; scripts/install_deps.sh installs them)" >&2
  exit 1
fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
  -DGMBD_FUZZ=ON -DGMBD_BUILD_TESTS=OFF -DGMBD_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "${GMBD_JOBS:-$(nproc)}" --target $(printf 'fuzz_%s ' "${TARGETS[@]}")

# Seed corpora: run files and model files for the YAML targets, the bundled records for the
# motion readers, expressions taken from the example model files for the expression target.
seed() {
  local target="$1" dir="$BUILD/seeds/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  case "$target" in
    run_config|model_file) find examples tests -name '*.yaml' -o -name '*.yml' | while read -r f; do
                             cp "$f" "$dir/$(echo "$f" | tr '/' '_')"; done ;;
    sweep_file) cp examples/sweeps/*.yaml "$dir/" ;;
    motion) cp data/motions/*.[AaVvSs]* "$dir/" 2>/dev/null || true
            find tests -path '*motion*' -type f \( -name '*.csv' -o -name '*.txt' \) -exec cp {} "$dir/" \; ;;
    expression) grep -rhoE ':\s*"[^"]+"' examples --include='*.yaml' | sed -E 's/^:\s*"//; s/"$//' |
                  sort -u | head -500 | nl -nln | while read -r n e; do printf '%s' "$e" > "$dir/e$n"; done
                for e in '2^-1' '-2^2' 'sqrt(2)*sin(t)' 'max(1, 2, m1)' 'atan2(L, g)/(1e-3 + t)'; do
                  printf '%s' "$e" > "$dir/$(printf '%s' "$e" | md5sum | cut -c1-12)"; done ;;
  esac
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# One target: replay its regression inputs, then fuzz. Prints its report; non-zero on a finding.
fuzz_target() {
  local target="$1"
  seed "$target"
  local corpus="$BUILD/corpus/$target" findings="$BUILD/findings/$target"
  mkdir -p "$corpus" "$findings" "fuzz/regressions/$target"
  local max_len=4096
  [ "$target" = motion ] && max_len=131072
  echo "=== fuzz_$target: replay fuzz/regressions/$target, then ${SECONDS_PER_TARGET} s x $WORKERS worker(s) ==="
  if ! "$BUILD/fuzz/fuzz_$target" -runs=0 "fuzz/regressions/$target" >/dev/null 2>"$BUILD/fuzz_$target.replay.log"; then
    echo "fuzz.sh: fuzz_$target crashes on a committed regression input:"
    tail -40 "$BUILD/fuzz_$target.replay.log"
    return 1
  fi
  if ! "$BUILD/fuzz/fuzz_$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb=4096 \
      -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$findings/" \
      $( [ "$WORKERS" -gt 1 ] && echo "-jobs=$WORKERS -workers=$WORKERS" ) \
      "$corpus" "$BUILD/seeds/$target" >"$BUILD/fuzz_$target.log" 2>&1; then
    echo "fuzz.sh: fuzz_$target found a crash (input in $findings/):"
    grep -E "ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x" "$BUILD/fuzz_$target.log" | head -40 || tail -40 "$BUILD/fuzz_$target.log"
    return 1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/fuzz_$target.log" | sed "s/^/  /" || true
  echo "  corpus: $(ls "$corpus" | wc -l) inputs; no crash"
}

# Targets run GMBD_FUZZ_PARALLEL at a time (default: one per core), each on one core; their
# reports are printed in order once they finish.
PARALLEL="${GMBD_FUZZ_PARALLEL:-$(nproc)}"
status=0
for ((first = 0; first < ${#TARGETS[@]}; first += PARALLEL)); do
  pids=()
  wave=("${TARGETS[@]:first:PARALLEL}")
  for target in "${wave[@]}"; do
    fuzz_target "$target" >"$BUILD/fuzz_$target.report" 2>&1 &
    pids+=($!)
  done
  for i in "${!wave[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$BUILD/fuzz_${wave[$i]}.report"
  done
done
exit "$status"
