#!/usr/bin/env bash
# Times `texmem plan --strategy best` (every kind and layout it runs) on
# 10^6 generated records of each family (bench/gen_records.h), 1-D and 2-D.
# Not a test: prints a markdown table of wall time, CPU time (user + sys:
# the figure to compare on a shared, loaded machine) and peak RSS (GNU time).
#   bench/plan_large.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build}
n=${2:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| records | n | wall s | CPU s | peak RSS MiB | best per kind/layout |"
echo "|---|---:|---:|---:|---:|---|"
for g in chains residual long_skips; do
  for d in 1 2; do
    f="$dir/$g.$d.txt"
    "$build/bench/bench_plan" --write-records "$g" "$d" "$n" "$f"
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$build/texmem" plan --records "$f" --strategy best \
      > "$dir/out"
    read -r secs usr sys kb < "$dir/time"
    chosen=$(grep -o 'best ([a-z_]*) *[a-z]* *[a-z/0-9]*' "$dir/out" | tr -s ' ' | paste -sd ';' -)
    cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    printf '| %s %s-D | %s | %s | %s | %s | %s |\n' "$g" "$d" "$n" "$secs" "$cpu" "$((kb / 1024))" \
      "$chosen"
    rm -f "$f"
  done
done
