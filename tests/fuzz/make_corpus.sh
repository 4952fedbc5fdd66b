#!/usr/bin/env bash
# Regenerates the committed seed corpora of the fuzz targets:
#   tests/fuzz/corpus/tflite   small models from tests/tflite_writer.c (fuzz_make_seeds)
#   tests/fuzz/corpus/records  the records files of tests/data plus syntax corner cases
#   tests/fuzz/corpus/planner  byte strings fuzz_planner decodes into small record sets
# Usage: tests/fuzz/make_corpus.sh [BUILD_DIR]   (BUILD_DIR holds fuzz_make_seeds:
# a TEXMEM_FUZZ=ON build, default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
out=tests/fuzz/corpus
# Seeds are (re)written by name; inputs merged in from campaigns (named by
# their SHA-1, docs/fuzzing.md) stay.
mkdir -p "$out/tflite" "$out/records" "$out/planner"
"$build/tests/fuzz/fuzz_make_seeds" "$out/tflite"

cp tests/data/*.txt "$out/records/"
printf '# comment only\n' >"$out/records/comment_only.txt"
printf '0 0 1 4096   # conv output\r\n1 1 2 0\r\n2 0 2 18446744073709551615' >"$out/records/crlf_max.txt"
printf '7\t3\t9\t16\t16\t4\n8 0 0 1 1 1\n' >"$out/records/tabs_3d.txt"
printf '0 0 1 18446744073709551616\n' >"$out/records/above_2_64.txt"
printf '0 0 1 4\n0 1 2 4\n' >"$out/records/duplicate_id.txt"
printf '0 2 1 4\n' >"$out/records/last_before_first.txt"
printf '0 0 1 -4\n1 0 1 0x10\n' >"$out/records/bad_tokens.txt"

# fuzz_planner: [flags] [n] then per record [first] [len] [size per dim]
# (size bytes below 0x80 are the size; 0x80|e then a byte: 2^e - (b & 3)).
# Flag bits 6 (offsets) and 7 (linear layout) pick what is planned: each
# seed is written for objects and, with suffix _off, _lin, _off_lin, the
# other three.
p() {
  local k
  for k in 0 1 2 3; do
    local f b suffix=("" _off _lin _off_lin)
    f=$(printf "$2" | head -c1 | od -An -tu1 | tr -d ' ')
    b=$(printf '%02x' $(((f & 63) | (k << 6))))
    { printf "\\x$b"; printf "$2" | tail -c +2; } >"$out/planner/$1${suffix[$k]}"
  done
}
p chain_1d '\x00\x05\x00\x01\x10\x01\x01\x20\x02\x01\x30\x03\x01\x40\x04\x01\x50'
p overlap_1d_align4 '\x08\x04\x00\x03\x03\x00\x03\x05\x01\x02\x07\x02\x02\x01'
p textures_2d '\x01\x04\x00\x02\x10\x08\x01\x02\x08\x10\x02\x02\x20\x04\x03\x01\x04\x20'
p textures_3d_limits '\x12\x03\x00\x02\x08\x08\x02\x01\x02\x10\x04\x01\x02\x02\x40\x01\x01'
p linear_width_2d '\x21\x05\x00\x01\x11\x07\x01\x01\x03\x21\x02\x01\x05\x05\x03\x02\x30\x01\x04\x00\x09\x09'
p saturating_2_63 '\x00\x02\x00\x01\xbf\x01\x01\x01\xbf\x00'
p six_tensors '\x04\x06\x00\x02\x05\x01\x02\x09\x02\x03\x03\x00\x05\x07\x03\x01\x02\x04\x00\x08\x05\x01\x06'
du -sh "$out"
