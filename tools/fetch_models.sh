#!/bin/sh
# Fetch every .tflite model of the MediaPipe npm solution packages
# (Apache-2.0) into a cache directory:
#   tools/fetch_models.sh [CACHE_DIR]     (default ~/.cache/texmem/models)
# Some models ship as plain files of the package; others are packed into
# the solution's *_packed_assets.data, whose file names and byte ranges are
# listed in the *_packed_assets_loader.js next to it: those are extracted
# with node (tools/extract_packed_assets.js). Models are deduplicated by
# content: a model already in the cache under another name is not kept
# twice. Idempotent: a package whose models are all in the cache (listed
# in CACHE_DIR/.PACKAGE.models) is not fetched again.
set -eu

CACHE_DIR=${1:-${HOME}/.cache/texmem/models}
HERE=$(cd "$(dirname "$0")" && pwd)

for tool in npm node tar cmp; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "fetch_models.sh: $tool not found (install nodejs/npm)" >&2
    exit 1
  fi
done
mkdir -p "$CACHE_DIR" || { echo "fetch_models.sh: cannot create $CACHE_DIR" >&2; exit 1; }

# Moves $1 (a model file) into the cache as $2, unless the cache already
# holds the same bytes (under that name or another). Prints the kept name.
keep() {
  src=$1
  name=$2
  for have in "$CACHE_DIR"/*.tflite; do
    [ -f "$have" ] || continue
    if cmp -s "$src" "$have"; then
      basename "$have"
      return 0
    fi
  done
  if [ -e "$CACHE_DIR/$name" ]; then
    # Same name, other bytes: keep both (package name as a prefix).
    name=$3_$name
  fi
  cat "$src" >"$CACHE_DIR/$name.part" && mv "$CACHE_DIR/$name.part" "$CACHE_DIR/$name"
  echo "$name"
}

# fetch PACKAGE: every .tflite of @mediapipe/PACKAGE.
fetch() {
  pkg=$1
  list="$CACHE_DIR/.$pkg.models"
  if [ -s "$list" ]; then
    complete=1
    while read -r f; do
      [ -s "$CACHE_DIR/$f" ] || complete=0
    done <"$list"
    if [ $complete = 1 ]; then
      echo "fetch_models.sh: @mediapipe/$pkg: already in $CACHE_DIR"
      return 0
    fi
  fi
  tmp=$(mktemp -d) || { echo "fetch_models.sh: mktemp failed" >&2; exit 1; }
  if ! (cd "$tmp" && npm pack --silent "@mediapipe/$pkg" >npm.out 2>npm.err); then
    echo "fetch_models.sh: 'npm pack @mediapipe/$pkg' failed:" >&2
    cat "$tmp/npm.err" >&2
    rm -rf "$tmp"
    exit 1
  fi
  tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n 1)
  if [ -z "$tgz" ] || ! mkdir "$tmp/x" || ! tar -xzf "$tgz" -C "$tmp/x"; then
    echo "fetch_models.sh: 'npm pack @mediapipe/$pkg' gave no readable tarball" >&2
    rm -rf "$tmp"
    exit 1
  fi
  mkdir "$tmp/models"
  for f in "$tmp"/x/package/*.tflite; do
    [ -f "$f" ] && cat "$f" >"$tmp/models/$(basename "$f")"
  done
  for loader in "$tmp"/x/package/*_packed_assets_loader.js; do
    [ -f "$loader" ] || continue
    data=${loader%_loader.js}.data
    if ! node "$HERE/extract_packed_assets.js" "$loader" "$data" "$tmp/models" >/dev/null; then
      echo "fetch_models.sh: @mediapipe/$pkg: extracting $(basename "$data") failed" >&2
      rm -rf "$tmp"
      exit 1
    fi
  done
  : >"$tmp/list"
  for f in "$tmp"/models/*.tflite; do
    [ -f "$f" ] || continue
    kept=$(keep "$f" "$(basename "$f")" "$pkg")
    echo "$kept" >>"$tmp/list"
    echo "fetch_models.sh: @mediapipe/$pkg: $(basename "$f") -> $CACHE_DIR/$kept"
  done
  if [ ! -s "$tmp/list" ]; then
    echo "fetch_models.sh: @mediapipe/$pkg has no .tflite model" >&2
    rm -rf "$tmp"
    exit 1
  fi
  sort -u "$tmp/list" >"$list.part" && mv "$list.part" "$list"
  rm -rf "$tmp"
}

for pkg in selfie_segmentation face_detection face_mesh hands pose holistic objectron; do
  fetch "$pkg"
done
