#!/usr/bin/env bash
# Fuzz smoke for CI (called by tools/test.sh): builds the libFuzzer targets
# of tests/fuzz with clang (TEXMEM_FUZZ=ON: ASan+UBSan, GL off) and runs each
# for FUZZ_SECONDS (default 30) from its committed seeds (tests/fuzz/corpus)
# and the reproducers of past defects (tests/fuzz/regressions), which are
# replayed first. A crash, leak,
# timeout (25 s an input) or out-of-memory (2 GB) fails the script and
# prints the reproducer. New inputs go to a scratch corpus: the committed
# one is never modified. Long campaigns: docs/fuzzing.md.
#   FUZZ_SECONDS=60 tools/fuzz_smoke.sh [BUILD_DIR]   (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
build=${1:-build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)
CC=${FUZZ_CC:-clang} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEXMEM_FUZZ=ON \
  -DTEXMEM_WERROR=ON -DTEXMEM_BUILD_GL=OFF -DTEXMEM_BUILD_TESTS=OFF -DTEXMEM_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in tflite records planner; do
  scratch=$(mktemp -d)
  art="$build/fuzz-artifacts/$t"
  rm -rf "$art"
  mkdir -p "$art"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  # Inputs stay under 4 KB, so the reader's load budget (8 x file + 16 MiB)
  # keeps every allocation far below 32 MB.
  [ "$t" = tflite ] && dict+=(-malloc_limit_mb=32)
  log="$build/fuzz_$t.log"
  dirs=("tests/fuzz/corpus/$t")
  [ -d "tests/fuzz/regressions/$t" ] && dirs+=("tests/fuzz/regressions/$t")
  if ! "$build/tests/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=25 \
      -print_final_stats=1 -artifact_prefix="$art/" "$scratch" "${dirs[@]}" >"$log" 2>&1; then
    rm -rf "$scratch"
    grep -E -A40 "ERROR: |runtime error:|deadly signal|out-of-memory|timeout" "$log" | head -60 || tail -40 "$log"
    for f in "$art"/*; do
      [ -f "$f" ] || continue
      echo "== reproducer $f ($(wc -c <"$f") bytes):"
      xxd "$f" | head -32
      echo "re-run: $build/tests/fuzz/fuzz_$t $f   (turning it into a test: docs/fuzzing.md)"
    done
    echo "fuzz smoke: fuzz_$t failed (log: $log)"
    exit 1
  fi
  rm -rf "$scratch"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz_$t: ${runs:-?} inputs in ${secs} s, no crash"
done
