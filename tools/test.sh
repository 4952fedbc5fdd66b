#!/usr/bin/env bash
# The whole test suite: install what is missing, then
#   1. warnings-as-errors build, every ctest test, GL tests required (no skips);
#   2. ASan+UBSan build, every ctest test;
#   3. fuzz smoke: each libFuzzer target for FUZZ_SECONDS (tools/fuzz_smoke.sh);
#   4. valgrind memcheck over the planner and CLI tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# The MediaPipe models (npm registry); tests that need them then never skip.
tools/fetch_models.sh
# Real TFLite (WebAssembly, run by Node) for the oracle test, which never skips.
tools/fetch_tflite.sh
export TEXMEM_REQUIRE_GL=1
export CRITERION_NO_EARLY_EXIT=1

build() { # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -DTEXMEM_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
}

echo "== build (Werror) and tests"
build build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_ctest() { # dir: verbose log kept in dir/ctest.log, failures shown
  if ! (cd "$1" && ctest -V -j"$jobs" >ctest.log 2>&1); then
    grep -E "^[0-9]+: \[(FAIL|----)\]|Test +#[0-9]+:.*(Failed|Exception)|\*\*\*" "$1/ctest.log" | head -80
    tail -15 "$1/ctest.log"; echo "tests failed in $1 (log: $1/ctest.log)"; exit 1
  fi
  grep -E "tests passed" "$1/ctest.log"
}
run_ctest build-test
# GL tests must exist and have run (TEXMEM_REQUIRE_GL=1 turns a missing
# context into a failure, never a skip), and nothing may be skipped.
ngl=$(cd build-test && ctest -N -L gl | sed -n 's/^Total Tests: //p')
if [ "${ngl:-0}" -eq 0 ]; then echo "no GL tests were built or run"; exit 1; fi
if grep -E "\[SKIP\]" build-test/ctest.log; then echo "some tests were skipped"; exit 1; fi
passed=$(sed -n 's/.*Synthesis: Tested: [0-9]* | Passing: \([0-9]*\).*/\1/p' build-test/ctest.log | awk '{s+=$1} END {print s+0}')

echo "== install, then build a client with find_package(texmem) and with pkg-config"
prefix=$PWD/build-test/install
rm -rf "$prefix" build-test/consumer
cmake --install build-test --prefix "$prefix" >/dev/null
cmake -S examples/consumer -B build-test/consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build-test/consumer >/dev/null
LD_LIBRARY_PATH="$prefix/lib" build-test/consumer/consumer
cc examples/consumer/consumer.c -o build-test/consumer/consumer_pc \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs texmem)
LD_LIBRARY_PATH="$prefix/lib" build-test/consumer/consumer_pc

echo "== ASan+UBSan build and tests"
build build-asan -DCMAKE_BUILD_TYPE=Debug -DTEXMEM_SANITIZE=ON
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ -f tests/lsan.supp ]; then export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0; fi
# Leaks found in Criterion's child processes do not fail the test, so the
# verbose log is searched for any sanitizer report.
run_ctest build-asan
if grep -E "ERROR: (Leak|Address)Sanitizer|runtime error:" build-asan/ctest.log; then
  echo "sanitizer reports in build-asan/ctest.log"; exit 1
fi
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

echo "== fuzz smoke (libFuzzer, ASan+UBSan, ${FUZZ_SECONDS:-30} s per target)"
tools/fuzz_smoke.sh build-fuzz

echo "== valgrind (planner, records, CLI)"
# Criterion runs each test in a child whose exit status it ignores, so
# any valgrind report in the log fails the stage.
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
    --trace-children=yes)
for t in build-test/tests/test_plan_core build-test/tests/test_plan_arena build-test/tests/test_records build-test/tests/test_objects_* build-test/tests/test_offsets \
         build-test/tests/test_model_*; do
  [ -x "$t" ] || continue
  "${vg[@]}" "$t" --jobs 1 >/dev/null 2>build-test/valgrind.log || true
  if grep -qE '^==[0-9]+== ' build-test/valgrind.log; then
    cat build-test/valgrind.log; echo "valgrind found errors in $t"; exit 1
  fi
done
echo "== all stages clean: Werror build, GL on llvmpipe ($ngl GL test programs), ASan+UBSan, fuzz smoke, valgrind"
echo "texmem tests: ${passed} passed, 0 failed"
