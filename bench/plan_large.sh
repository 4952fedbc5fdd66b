#!/usr/bin/env bash
# Times `texmem plan --records FILE` (the default: every kind, layout and
# strategy, within best's time budget; extra arguments are passed on, e.g.
# --strategy best) on N generated records of each family
# (bench/gen_records.h, and all_live: every tensor live at once), 1-D and
# 2-D. Not a test: prints a markdown table of wall time, CPU time (user +
# sys: the figure to compare on a shared, loaded machine), peak RSS (GNU
# time) and the 1-minute load average after each run.
#   bench/plan_large.sh [BUILD_DIR] [N] [TEXMEM_PLAN_ARGS...]
set -euo pipefail
build=${1:-build}
n=${2:-1000000}
shift $(($# < 2 ? $# : 2))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| records | n | wall s | CPU s | peak RSS MiB | load | rows skipped |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for g in chains residual long_skips all_live; do
  for d in 1 2; do
    f="$dir/$g.$d.txt"
    "$build/bench/bench_plan" --write-records "$g" "$d" "$n" "$f"
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$build/texmem" plan --records "$f" "$@" \
      > "$dir/out"
    read -r secs usr sys kb < "$dir/time"
    skipped=$(grep -c ' skipped: ' "$dir/out" || true)
    cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    load=$(cut -d' ' -f1 /proc/loadavg)
    printf '| %s %s-D | %s | %s | %s | %s | %s | %s |\n' "$g" "$d" "$n" "$secs" "$cpu" \
      "$((kb / 1024))" "$load" "$skipped"
    rm -f "$f"
  done
done
