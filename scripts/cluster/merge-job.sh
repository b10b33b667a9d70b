#!/usr/bin/env bash
#SBATCH --job-name=chokepoint-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
# Merges a job's per-rank summaries (.cpsum, from summarize-array.sbatch or summarize-torchrun.sh)
# into the job report: `chokepoint-cli analyze` on the folder, as text and as JSON.
#
#   merge-job.sh SUMMARY_DIR [REPORT_PREFIX]      writes REPORT_PREFIX.txt and REPORT_PREFIX.json
#   sbatch --dependency=afterok:ARRAY_JOB_ID merge-job.sh SUMMARY_DIR [REPORT_PREFIX]
#
# REPORT_PREFIX defaults to SUMMARY_DIR-report (beside the folder, not in it: a report inside it
# would be read as an input by the next merge). CHOKEPOINT_CLI names the chokepoint-cli to run.
set -euo pipefail

die() {
  echo "merge-job: $*" >&2
  exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: merge-job.sh SUMMARY_DIR [REPORT_PREFIX]"
dir=${1%/}
prefix=${2:-$dir-report}
[ -d "$dir" ] || die "$dir: not a folder"
cli=${CHOKEPOINT_CLI:-chokepoint-cli}
command -v "$cli" >/dev/null || die "$cli not found (set CHOKEPOINT_CLI or put chokepoint-cli on PATH)"
count=$(find "$dir" -maxdepth 1 -name '*.cpsum' | wc -l)
[ "$count" -gt 0 ] || die "$dir holds no .cpsum summaries"

"$cli" analyze --format json "$dir" >"$prefix.json.tmp" || die "analyze --format json $dir failed"
mv -f "$prefix.json.tmp" "$prefix.json"
"$cli" analyze "$dir" >"$prefix.txt.tmp" || die "analyze $dir failed"
mv -f "$prefix.txt.tmp" "$prefix.txt"
echo "merge-job: $count summaries -> $prefix.txt, $prefix.json"
