#!/usr/bin/env bash
# One summarizer per rank, started by the launcher that started the training job: torchrun
# (--no-python), mpirun / mpiexec, or srun. Each process summarises its own rank's trace on the node
# where it was written and writes OUT_DIR/rank-<RANK>.cpsum (OUT_DIR on a shared file system).
#
#   summarize-torchrun.sh TRACE OUT_DIR
#
# TRACE is a path pattern with {rank} and/or {local_rank}
# ("/scratch/job42/traces/rank-{rank}.pt.trace.json.gz"), or a node-local folder: the process with
# local rank L summarises the L-th trace of it (natural order).
# The rank comes from RANK (torchrun), OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI)
# or SLURM_PROCID (srun); the local rank from LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
# MPI_LOCALRANKID or SLURM_LOCALID. CHOKEPOINT_CLI names the chokepoint-cli to run (default: on PATH).
# Examples: docs/JOBS_ON_A_CLUSTER.md.
set -euo pipefail

die() {
  echo "summarize-torchrun: $*" >&2
  exit 1
}

[ $# -eq 2 ] || die "usage: summarize-torchrun.sh TRACE_PATTERN_OR_FOLDER OUT_DIR"
spec=$1
out_dir=$2
rank=${RANK:-${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-}}}}
[ -n "$rank" ] || die "no rank: set by torchrun (RANK), mpirun (OMPI_COMM_WORLD_RANK, PMI_RANK) or srun (SLURM_PROCID)"
local_rank=${LOCAL_RANK:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-$rank}}}}
cli=${CHOKEPOINT_CLI:-chokepoint-cli}
command -v "$cli" >/dev/null || die "$cli not found (set CHOKEPOINT_CLI or put chokepoint-cli on PATH)"

if [ -d "$spec" ]; then
  globs=${CHOKEPOINT_TRACE_GLOBS:-"*.cptrace *.json *.json.gz *.sqlite"}
  trace=$(
    cd "$spec"
    for g in $globs; do
      for f in $g; do
        if [ -f "$f" ]; then printf '%s\n' "$f"; fi
      done
    done | sort -uV | sed -n "$((local_rank + 1))p"
  )
  [ -n "$trace" ] || die "rank $rank: no trace #$local_rank in $spec on $(hostname -s)"
  trace="$spec/$trace"
else
  trace=${spec//\{rank\}/$rank}
  trace=${trace//\{local_rank\}/$local_rank}
  [ -f "$trace" ] || die "rank $rank: $trace not found on $(hostname -s)"
fi

mkdir -p "$out_dir"
out="$out_dir/rank-$rank.cpsum"
"$cli" summarize "$trace" -o "$out" || die "rank $rank: summarizing $trace failed"
echo "summarize-torchrun: rank $rank (local $local_rank) on $(hostname -s): $trace -> $out"
