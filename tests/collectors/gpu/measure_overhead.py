"""Overhead and correctness figures of the Chokepoint agent on a GPU machine (issue 5 targets).

    python3 measure_overhead.py --cli BUILD/bin/chokepoint-cli [--steps 300] [--out summary.json]

Runs tests/collectors/gpu/train_loop.py four ways and compares median step times:
  baseline (no agent), dormant (chokepoint-cli launch, never attached), capturing (the steps inside
  an attach --steps window) and after capture (the steps after it, same process); plus the kernels
  per step of a torch.profiler run of the same loop against the agent's capture, and the agent's
  dropped-record count. Prints and writes a JSON summary. Targets: dormant within noise (< 0.5 %),
  capturing <= 3 %, equal kernel counts, 0 drops. Capturing and after-capture are also given against
  the same process's steps before the attach (*_vs_same_process_pct), which separate-process noise
  does not move. Needs a GPU, PyTorch with CUDA and the agent.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOOP = os.path.join(HERE, "train_loop.py")
HELPER_DIR = os.path.join(HERE, "..", "..", "..", "collectors", "python")
STEP = re.compile(r"^step (\d+) ([0-9.]+) ms ([0-9.]+)$")


def env_with(extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(HELPER_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def parse_steps(lines, skip=20):
    steps = []
    for line in lines:
        m = STEP.match(line.strip())
        if m and int(m.group(1)) >= skip:  # warm-up: allocator, cuBLAS heuristics, lazy loading
            steps.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    return steps


def run_plain(steps, extra_args=()):
    out = subprocess.run([sys.executable, LOOP, str(steps)] + list(extra_args), env=env_with({}),
                         capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def median_ms(steps):
    return statistics.median(ms for _, ms, _ in steps) if steps else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--window", type=int, default=50)
    ap.add_argument("--out", default="overhead-summary.json")
    args = ap.parse_args()
    summary = {}

    baseline = parse_steps(run_plain(args.steps))
    summary["baseline_median_ms"] = median_ms(baseline)

    sock_dir = tempfile.mkdtemp(prefix="cp-overhead-")
    os.chmod(sock_dir, 0o700)
    dormant = subprocess.run([args.cli, "launch", "--", sys.executable, LOOP, str(args.steps)],
                             env=env_with({"CHOKEPOINT_SOCKET_DIR": sock_dir}), capture_output=True, text=True,
                             check=True)
    summary["dormant_median_ms"] = median_ms(parse_steps(dormant.stdout.splitlines()))

    # Capturing and after: launch, wait for step 100, attach for `window` steps.
    proc = subprocess.Popen([args.cli, "launch", "--", sys.executable, LOOP, str(args.steps + args.window + 100)],
                            env=env_with({"CHOKEPOINT_SOCKET_DIR": sock_dir}), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    lines = []
    reached = threading.Event()

    def reader():
        for line in proc.stdout:
            lines.append(line)
            m = STEP.match(line.strip())
            if m and int(m.group(1)) >= 100:
                reached.set()

    threading.Thread(target=reader, daemon=True).start()
    reached.wait(600)
    pid = next(f[:-5] for f in os.listdir(sock_dir) if f.endswith(".sock"))
    trace = os.path.join(sock_dir, "window.cptrace")
    t_start = time.time()
    attach = subprocess.run([args.cli, "attach", pid, "--at-step", "--steps", str(args.window), "-o", trace],
                            env=env_with({"CHOKEPOINT_SOCKET_DIR": sock_dir}), capture_output=True, text=True)
    t_end = time.time()
    proc.wait()
    steps = parse_steps(lines)
    before = [s for s in steps if s[2] < t_start - 0.2]
    inside = [s for s in steps if t_start + 0.5 < s[2] < t_end - 0.5]
    after = [s for s in steps if s[2] > t_end + 1.0]
    summary["capturing_median_ms"] = median_ms(inside)
    summary["after_capture_median_ms"] = median_ms(after)
    # Separate processes of this loop differed by 10 % on the H100 (3.59 and 3.25 ms baselines):
    # the steps of the same process before the attach are the reference that noise does not move.
    summary["dormant_same_process_median_ms"] = median_ms(before)
    summary["steps_measured"] = {"before": len(before), "capturing": len(inside), "after": len(after)}
    summary["attach_output"] = attach.stderr.strip().splitlines()[-3:]
    m = re.search(r"(\d+) kernels, (\d+) API calls, (\d+) ranges, (\d+) dropped records", attach.stderr)
    if m:
        summary["agent_kernels_per_step"] = int(m.group(1)) / args.window
        summary["agent_dropped_records"] = int(m.group(4))

    prof = run_plain(40, ["--torch-profiler", "10"])
    for line in prof:
        if line.startswith("torch_profiler_kernels_per_step"):
            summary["torch_profiler_kernels_per_step"] = float(line.split()[1])

    base = summary["baseline_median_ms"]
    for key in ("dormant", "capturing", "after_capture"):
        summary[key + "_overhead_pct"] = 100.0 * (summary[key + "_median_ms"] - base) / base
    same = summary["dormant_same_process_median_ms"]
    for key in ("capturing", "after_capture"):
        summary[key + "_vs_same_process_pct"] = 100.0 * (summary[key + "_median_ms"] - same) / same
    print(json.dumps(summary, indent=2))
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
