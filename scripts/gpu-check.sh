#!/usr/bin/env bash
# The device check of the Chokepoint agent: one command on a GPU node, about 5 minutes.
set -uo pipefail

usage() {
  cat <<'TXT'
Usage: gpu-check.sh [--out DIR] [--quick] [--only CHECKS] [--cli PATH]

Runs the agent against real PyTorch jobs on this node's GPU and writes one summary
(DIR/summary.md, DIR/summary.json; traces and logs under DIR/traces, DIR/logs). Default DIR:
./gpu-check-out. From a source tree it uses build/bin/chokepoint-cli; from a node bundle
(chokepoint-node-*.tar.gz) the bundle's own CLI, agent, helper and jobs, nothing installed.

What it runs, in order of what is least known (CHECKS names for --only, comma-separated):
  env                   nvidia-smi and torch versions
  doctor                chokepoint-cli doctor
  gpt                   GPT job: baseline step time, then run --at-step --steps 10 --gpu-metrics
                        (PM samples, joined launches, still-running records, verdict, MFU)
  overhead              tests/collectors/gpu/measure_overhead.py on the 53-kernel loop
                        (baseline, dormant, capturing, after capture, kernels per step)
  breakdown             capture overhead of the same loop per set of record kinds (Python stack
                        samples alone and left out among them), and torch.profiler's
  pm_graphs             torch.compile(mode="reduce-overhead") job attached twice with --gpu-metrics
                        (CUPTI kept): PM samples in attach; the job and its second capture
  gpt_nomarkers_after_steps  run --after-steps 20 --steps 10 without the helper: the agent
                        finds the steps in the repeating kernel launches (note after_steps_from)
  graphs                the compiled job: attach without --graphs, with --graphs, and again,
                        detaching CUPTI after each (CHOKEPOINT_CUPTI_DETACH=1; refused with graphs)
  gpt_attach            launch + attach --at-step --steps 30: joined %, overhead against dormant
  rn50                  data-bound ResNet-50: run --after-steps 2 --steps 6, and its torch.profiler twin
  gpt_nohelper          run --delay 10 --duration 3 without the helper: steps from repeating kernels
  gpt_profiler_during   torch.profiler started during a capture: what each side records
  gpt_kineto            the GPT job under torch.profiler: its verdict, for comparison
  gpt_attach_allowlist  attach with the old per-call runtime enables (CHOKEPOINT_RUNTIME_API=allowlist)
  calibrate             chokepoint-cli calibrate (GEMM and copy ceilings)
  --quick               skips what the H100 check of 2026-11-26 settled (gpt_nohelper,
                        gpt_profiler_during, gpt_kineto, gpt_attach_allowlist, calibrate) and the
                        ResNet torch.profiler trace
The summary is rewritten after every check, so a run cut short still says what it saw.
Needs: an NVIDIA GPU, python3 with PyTorch (CUDA) and torchvision.
TXT
}

here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/../tests/collectors/gpu/gpu_check.py" ]; then  # source tree
  jobs=$here/../tests/collectors/gpu
  helper=$here/../collectors/python
  cli=${CHOKEPOINT_CLI:-$here/../build/bin/chokepoint-cli}
else  # node bundle: gpu-check.sh, bin/, lib/, python/, gpu-check/
  jobs=$here/gpu-check
  helper=$here/python
  cli=${CHOKEPOINT_CLI:-$here/bin/chokepoint-cli}
fi
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --cli) cli=$2; shift 2 ;;
    --out|--only) args+=("$1" "$2"); shift 2 ;;
    --quick) args+=("$1"); shift ;;
    *) echo "gpu-check.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ ! -x "$cli" ]; then
  echo "gpu-check.sh: no chokepoint-cli at $cli (build first, or pass --cli)" >&2
  exit 2
fi
# Every check runs PyTorch on the GPU: say so at once rather than fail each check in turn.
if ! why=$(python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else "torch sees no CUDA GPU")' 2>&1); then
  echo "gpu-check.sh: this node cannot run the checks: ${why##*$'\n'}" >&2
  exit 2
fi
exec python3 "$jobs/gpu_check.py" --cli "$cli" --jobs "$jobs" --helper-dir "$helper" "${args[@]}"
