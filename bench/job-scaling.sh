#!/usr/bin/env bash
# Cost of analysing a job of N ranks (8, 64, 256, 1024 by default) on this machine:
#   - `chokepoint-cli analyze DIR` (the job, ranks read in parallel) against N separate
#     `chokepoint-cli analyze FILE` runs one after the other (what a user would otherwise do);
#   - peak memory of the job analysis against the largest single-rank analysis;
#   - `summarize` per rank: time and .cpsum size; merging N summaries: time and peak memory.
# Synthetic jobs from chokepoint-make-job (one late rank, clocks skewed per host). Run by hand:
#   bench/job-scaling.sh [BUILD_DIR] [RANKS...]
# Uses /usr/bin/time (Debian package "time") for wall time and peak RSS.
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 256 1024)
cli=$build/bin/chokepoint-cli
make_job=$build/bin/chokepoint-make-job
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # prints "wall_s peak_kb" of one command
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>&1 || true
  cat "$work/time"
}

printf '%-6s %-10s %-12s %-8s %-11s %-12s %-12s %-10s %-12s %-10s\n' ranks job_s separate_s ratio job_MB largest_MB summarize_s cpsum_KB merge_s merge_MB
for n in "${sizes[@]}"; do
  dir=$work/job$n
  "$make_job" --ranks "$n" --late-rank $((n / 3)) --cause data --skew-us 3000 -o "$dir" >/dev/null
  read -r job_s job_kb < <(measure "$cli" analyze "$dir")
  separate_s=0
  largest_kb=0
  start=$(date +%s.%N)
  for f in "$dir"/*; do
    read -r s kb < <(measure "$cli" analyze "$f")
    [ "$kb" -gt "$largest_kb" ] && largest_kb=$kb
  done
  separate_s=$(echo "$(date +%s.%N) - $start" | bc)
  mkdir -p "$dir.sum"
  start=$(date +%s.%N)
  for f in "$dir"/*; do
    "$cli" summarize "$f" -o "$dir.sum/$(basename "$f").cpsum" 2>/dev/null
  done
  summarize_s=$(echo "$(date +%s.%N) - $start" | bc)
  cpsum_kb=$(du -k --apparent-size "$dir.sum" | tail -1 | awk -v n="$n" '{printf "%.1f", $1 / n}')
  read -r merge_s merge_kb < <(measure "$cli" analyze "$dir.sum")
  printf '%-6s %-10s %-12s %-8s %-11s %-12s %-12s %-10s %-12s %-10s\n' "$n" "$job_s" "$separate_s" \
    "$(echo "scale=2; $job_s / $separate_s" | bc)" $((job_kb / 1024)) $((largest_kb / 1024)) "$summarize_s" \
    "$cpsum_kb" "$merge_s" $((merge_kb / 1024))
done
