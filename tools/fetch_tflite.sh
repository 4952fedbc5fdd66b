#!/bin/sh
# Fetch TensorFlow Lite compiled to WebAssembly (the npm package
# @tensorflow/tfjs-tflite, Apache-2.0, pinned version) into a cache
# directory; the oracle test (tests/test_rt_oracle.c) runs it under Node.
#   tools/fetch_tflite.sh [CACHE_DIR]     (default ~/.cache/texmem/tflite-wasm)
# Keeps only the non-threaded runtime: wasm/tflite_web_api_cc.{js,wasm}.
# The files are checked against pinned SHA-256 sums, so every machine runs
# the same TFLite. Idempotent: nothing is fetched when the cache is complete.
set -eu

VERSION=0.0.1-alpha.10
PKG=@tensorflow/tfjs-tflite@$VERSION
CACHE_DIR=${1:-${HOME}/.cache/texmem/tflite-wasm}
SUMS="08e963fcde11dc041feeac97ff711b3a157614edc98ff8bfa309557189b7368d  tflite_web_api_cc.js
f1eb42f96ae91e5ef34e2f833f011373ca1c40fdc9d4062ec21eb07b886ea54f  tflite_web_api_cc.wasm"

if [ -s "$CACHE_DIR/VERSION" ] && [ "$(cat "$CACHE_DIR/VERSION")" = "$VERSION" ] &&
   (cd "$CACHE_DIR" && echo "$SUMS" | sha256sum -c --status 2>/dev/null); then
  echo "fetch_tflite.sh: $PKG already in $CACHE_DIR"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch_tflite.sh: npm not found (tools/install-deps.sh installs it)" >&2
  exit 1
fi
mkdir -p "$CACHE_DIR" || { echo "fetch_tflite.sh: cannot create $CACHE_DIR" >&2; exit 1; }
tmp=$(mktemp -d) || { echo "fetch_tflite.sh: mktemp failed" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
# npm pack checks the tarball against the registry's integrity hash.
if ! (cd "$tmp" && npm pack --silent "$PKG" >npm.out 2>npm.err); then
  echo "fetch_tflite.sh: 'npm pack $PKG' failed:" >&2
  cat "$tmp/npm.err" >&2
  exit 1
fi
tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n 1)
[ -n "$tgz" ] || { echo "fetch_tflite.sh: 'npm pack $PKG' produced no tarball" >&2; exit 1; }
tar -xzf "$tgz" -C "$tmp" package/wasm/tflite_web_api_cc.js package/wasm/tflite_web_api_cc.wasm \
  package/package.json package/README.md ||
  { echo "fetch_tflite.sh: $PKG lacks the WebAssembly runtime files" >&2; exit 1; }
if ! (cd "$tmp/package/wasm" && echo "$SUMS" | sha256sum -c --status); then
  echo "fetch_tflite.sh: $PKG files do not match the pinned SHA-256 sums" >&2
  exit 1
fi
# Copy then rename each file, the version stamp last, so an interrupted run
# is fetched again.
rm -f "$CACHE_DIR/VERSION"
for f in wasm/tflite_web_api_cc.js wasm/tflite_web_api_cc.wasm package.json README.md; do
  b=$(basename "$f")
  cp "$tmp/package/$f" "$CACHE_DIR/$b.part" && mv "$CACHE_DIR/$b.part" "$CACHE_DIR/$b"
done
echo "$VERSION" >"$CACHE_DIR/VERSION"
echo "fetch_tflite.sh: $PKG -> $CACHE_DIR"
