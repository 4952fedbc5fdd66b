#!/usr/bin/env bash
# The aarch64 stage: cross-builds the library (static and shared parts),
# the texmem command and the GL-free tests with Debian's cross compiler
# (cmake/aarch64-linux-gnu.cmake), then runs those tests under qemu-user,
# with two GL tests on arm64 Mesa llvmpipe (context, texture pool).
# Usage: tools/aarch64.sh [build dir, default build-aarch64]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-aarch64}
tools/install-deps.sh
tools/fetch_aarch64_sysroot.sh
jobs=$(nproc 2>/dev/null || echo 2)
# GL-free tests: planner, records, model reader, CLI plan; and the GL
# context and pool tests. The other GL tests (dispatch, runtime) stay out:
# compute shaders on llvmpipe under qemu take minutes (docs/build.md).
tests=(test_plan_core test_plan_arena test_plan_targets test_objects_greedy test_objects_size_flow
       test_offsets test_records test_model_tflite test_model_hostile test_model_builder
       test_model_mobilenet test_model_tflite_writer test_model_anyop test_cli_plan
       test_gl_context test_gl_pool)
cmake --no-warn-unused-cli -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DTEXMEM_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j"$jobs" --target texmem texmem_cli "${tests[@]}" >/dev/null
aarch64-linux-gnu-readelf -h "$dir/texmem" | grep -q "AArch64" || { echo "$dir/texmem is not an aarch64 program"; exit 1; }
regex="^($(IFS='|'; echo "${tests[*]}"))\$"
export CRITERION_NO_EARLY_EXIT=1 TEXMEM_REQUIRE_GL=1
if ! (cd "$dir" && ctest -V -R "$regex" -j"$jobs" >ctest.log 2>&1); then
  grep -E "^[0-9]+: \[(FAIL|----)\]|Test +#[0-9]+:.*(Failed|Exception)" "$dir/ctest.log" | head -60
  tail -15 "$dir/ctest.log"; echo "aarch64 tests failed (log: $dir/ctest.log)"; exit 1
fi
ran=$(grep -cE "Test +#[0-9]+: .* Passed" "$dir/ctest.log" || true)
if [ "$ran" -ne "${#tests[@]}" ]; then
  echo "aarch64: $ran of ${#tests[@]} test programs passed"; exit 1
fi
if grep -E "\[SKIP\]" "$dir/ctest.log"; then echo "aarch64: some tests were skipped"; exit 1; fi
echo "aarch64 (qemu-user): ${#tests[@]} test programs passed: ${tests[*]}"
