#!/usr/bin/env bash
# The whole test suite: install what is missing, then
#   1. warnings-as-errors build, every ctest test, GL tests required (no skips);
#   2. shared and static installs, examples/consumer built against each
#      with find_package(texmem) and with pkg-config;
#   3. ASan+UBSan build, every ctest test;
#   4. fuzz smoke: each libFuzzer target for FUZZ_SECONDS (tools/fuzz_smoke.sh);
#   5. valgrind memcheck over the planner and model tests, $jobs at a time;
#   6. aarch64: cross build, GL-free tests (and two GL ones) under qemu-user.
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

echo "== install shared and static, build a client of each with find_package(texmem) and pkg-config"
consumer() { # build dir, pkg-config flags: installs, builds and runs examples/consumer both ways
  local prefix=$PWD/$1/install
  rm -rf "$prefix" "$1/consumer"
  cmake --install "$1" --prefix "$prefix" >/dev/null
  cmake -S examples/consumer -B "$1/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$1/consumer" >/dev/null
  LD_LIBRARY_PATH="$prefix/lib" "$1/consumer/consumer"
  cc examples/consumer/consumer.c -o "$1/consumer/consumer_pc" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config $2 --cflags --libs texmem)
  LD_LIBRARY_PATH="$prefix/lib" "$1/consumer/consumer_pc"
}
consumer build-test ""
# The static library alone (no tests or tools: about 1.5 min on 2 loaded cores).
build build-static -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=OFF \
  -DTEXMEM_BUILD_TESTS=OFF -DTEXMEM_BUILD_TOOLS=OFF
consumer build-static --static
if [ -e build-static/install/lib/libtexmem.so ] || ldd build-static/consumer/consumer | grep -q libtexmem; then
  echo "the static build installed or linked a shared libtexmem"; exit 1
fi

echo "== ASan+UBSan build and tests"
build build-asan -DCMAKE_BUILD_TYPE=Debug -DTEXMEM_SANITIZE=ON
# Every test runs again; those that sweep all cached models take a varied
# few (committed model, input shape, operators not executable, segmentation,
# landmarks), since each model costs about five times as much here and the
# first stage has run them all.
export TEXMEM_TEST_MODELS=face_detection_short_range.tflite,hand_landmark_lite.tflite,selfie_segmentation.tflite,object_detection_3d_chair.tflite,face_landmark_with_attention.tflite,hand_recrop.tflite
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ -f tests/lsan.supp ]; then export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0; fi
# Leaks found in Criterion's child processes do not fail the test, so the
# verbose log is searched for any sanitizer report.
run_ctest build-asan
if grep -E "ERROR: (Leak|Address)Sanitizer|runtime error:" build-asan/ctest.log; then
  echo "sanitizer reports in build-asan/ctest.log"; exit 1
fi
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TEXMEM_TEST_MODELS

echo "== fuzz smoke (libFuzzer, ASan+UBSan, ${FUZZ_SECONDS:-30} s per target)"
tools/fuzz_smoke.sh build-fuzz

echo "== valgrind (planner, records, CLI)"
# Criterion runs each test in a child whose exit status it ignores, so
# any valgrind report in a program's log fails the stage. The programs run
# $jobs at a time, each with its own log, the longest (model_hostile,
# about 4 min of the stage's 10 under valgrind) first.
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
    --trace-children=yes)
rm -f build-test/valgrind-*.log
declare -A vg_seen=()
for t in build-test/tests/test_model_hostile build-test/tests/test_plan_core build-test/tests/test_plan_arena \
         build-test/tests/test_records build-test/tests/test_objects_* build-test/tests/test_offsets \
         build-test/tests/test_model_*; do
  [ -x "$t" ] && [ -z "${vg_seen[$t]:-}" ] || continue
  vg_seen[$t]=1
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  ("${vg[@]}" "$t" --jobs 1 >/dev/null 2>"build-test/valgrind-$(basename "$t").log" || true) &
done
wait
for l in build-test/valgrind-*.log; do
  if grep -qE '^==[0-9]+== ' "$l"; then
    t=${l#build-test/valgrind-}; cat "$l"; echo "valgrind found errors in ${t%.log}"; exit 1
  fi
done
echo "valgrind: ${#vg_seen[@]} test programs clean"
echo "== aarch64 cross build, tests under qemu-user (tools/aarch64.sh)"
tools/aarch64.sh build-aarch64
echo "== all stages clean: Werror build, GL on llvmpipe ($ngl GL test programs), static and shared installs, ASan+UBSan, fuzz smoke, valgrind, aarch64 under qemu"
echo "texmem tests: ${passed} passed, 0 failed"
