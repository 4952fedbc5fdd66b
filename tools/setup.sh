#!/usr/bin/env bash
# Installs what is missing, builds texmem, and runs the main job on the
# built-in default.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
# Real TFLite (WebAssembly, for the oracle test) into ~/.cache/texmem/tflite-wasm.
tools/fetch_tflite.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
if build/texmem --help | grep -q '^  bench'; then
  exec build/texmem bench
else
  exec build/texmem plan --records tests/data/selfie_segmentation.2d.txt
fi
