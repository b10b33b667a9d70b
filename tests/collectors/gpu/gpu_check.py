"""The device check of the Chokepoint agent on one GPU (scripts/gpu-check.sh runs this).

    python3 gpu_check.py --cli CHOKEPOINT_CLI --jobs DIR --helper-dir DIR --out DIR [--quick] [--only NAMES]

Each check runs real PyTorch jobs (DIR holds gpt_train.py, rn50_data.py, compiled_graphs.py,
train_loop.py) under chokepoint-cli and reads what was recorded back with `chokepoint-cli info --json`
and `analyze`. It ends with one summary (OUT/summary.md and OUT/summary.json): joined-launch %,
dropped and still-running records, PM samples, overhead per mode, and the verdict of each capture
against the torch.profiler trace of the same job. A check that fails says so in the summary and the
others go on. Needs a GPU, PyTorch with CUDA, and the agent next to the CLI.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

STEP = re.compile(r"^step (\d+) ([0-9.]+) ms ([0-9.]+)$")
# In order of what is least known: a run cut short (one device call is at most 10 minutes) still
# answers the open questions first. `gpt` comes before `gpt_attach`, which compares with its baseline.
CHECKS = ("env", "doctor", "gpt", "overhead", "breakdown", "pm_graphs", "gpt_nomarkers_after_steps", "graphs",
          "gpt_attach", "rn50", "gpt_nohelper", "gpt_profiler_during", "gpt_kineto", "gpt_attach_allowlist",
          "calibrate")
# What the H100 check of 2026-11-26 established and no change since touched: --quick skips these
# (and the ResNet torch.profiler trace).
SETTLED = ("gpt_nohelper", "gpt_profiler_during", "gpt_kineto", "gpt_attach_allowlist", "calibrate")


class Check:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.traces = os.path.join(self.out, "traces")
        self.logs = os.path.join(self.out, "logs")
        os.makedirs(self.traces, exist_ok=True)
        os.makedirs(self.logs, exist_ok=True)
        self.results = {}
        self.sock_dir = tempfile.mkdtemp(prefix="cp-gpucheck-")
        os.chmod(self.sock_dir, 0o700)

    # --- running things ---------------------------------------------------------------------------
    def env(self, extra=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.abspath(self.args.helper_dir) + os.pathsep + env.get("PYTHONPATH", "")
        env["CHOKEPOINT_SOCKET_DIR"] = self.sock_dir
        env["PYTHONUNBUFFERED"] = "1"
        env["CHOKEPOINT_AGENT_LOG"] = os.path.join(self.logs, "agent.log")  # every agent, lines tagged by pid
        env.update(extra or {})
        return env

    def job(self, name):
        return os.path.join(self.args.jobs, name)

    def run(self, log_name, cmd, timeout, extra_env=None):
        """Runs cmd to its end (or kills it at timeout); returns (exit status, output lines)."""
        started = time.time()
        try:
            p = subprocess.run(cmd, env=self.env(extra_env), capture_output=True, text=True, timeout=timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = 124, e.stdout or "", e.stderr or ""
            out = out.decode() if isinstance(out, bytes) else out
            err = err.decode() if isinstance(err, bytes) else err
        with open(os.path.join(self.logs, log_name + ".log"), "w") as f:
            f.write("$ %s\n# rc %d, %.1f s\n%s\n--- stderr ---\n%s" % (" ".join(cmd), rc, time.time() - started, out, err))
        return rc, (out + "\n" + err).splitlines()

    def cli(self, *args):
        return [self.args.cli] + list(args)

    def launch_and_attach(self, name, job_cmd, attach_at_step, attach_args, extra_env=None, timeout=150,
                          stop_job=False):
        """launch JOB, wait until it prints step `attach_at_step`, then attach (once per entry of
        attach_args when it is a list of lists); with stop_job, SIGTERM the job after the last attach.
        Returns (step lines, [(t0, t1, attach output, trace, exit status)])."""
        sock_dir = tempfile.mkdtemp(dir=self.sock_dir)
        os.chmod(sock_dir, 0o700)
        extra_env = dict(extra_env or {}, CHOKEPOINT_SOCKET_DIR=sock_dir)
        proc = subprocess.Popen(self.cli("launch", "--") + job_cmd, env=self.env(extra_env), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        lines = []
        reached = threading.Event()

        def reader():
            for line in proc.stdout:
                lines.append(line.rstrip("\n"))
                m = STEP.match(line.strip())
                if m and int(m.group(1)) >= attach_at_step:
                    reached.set()

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        windows = []
        deadline = time.time() + timeout
        try:
            # A job that dies early (no torch, a compile error) must not cost the whole timeout.
            while not reached.wait(0.5):
                if proc.poll() is not None:
                    t.join(5)
                    raise RuntimeError("the job exited (status %s) before step %d: %s" % (
                        proc.returncode, attach_at_step, " | ".join(lines[-3:])))
                if time.time() > deadline:
                    raise RuntimeError("the job never reached step %d" % attach_at_step)
            pid = str(proc.pid)
            sock = None
            for _ in range(100):  # the CUDA process is the python child of launch
                socks = [f for f in os.listdir(sock_dir) if f.endswith(".sock")]
                if socks:
                    sock = socks[0][:-5]
                    break
                time.sleep(0.1)
            pid = sock or pid
            sets = attach_args if attach_args and isinstance(attach_args[0], list) else [attach_args]
            for i, a in enumerate(sets):
                trace = os.path.join(self.traces, "%s%s.cptrace" % (name, "" if len(sets) == 1 else "-%d" % (i + 1)))
                t0 = time.time()
                rc, out = self.run("%s-attach%d" % (name, i + 1), self.cli("attach", pid) + a + ["-o", trace],
                                   timeout=max(5, deadline - time.time()), extra_env=extra_env)
                windows.append((t0, time.time(), out, trace, rc))
                time.sleep(1.0)
            if stop_job and sock:
                os.kill(int(sock), 15)
        finally:
            try:
                proc.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            t.join(timeout=2)
        with open(os.path.join(self.logs, name + "-job.log"), "w") as f:
            f.write("\n".join(lines))
        return lines, windows

    # --- reading traces ---------------------------------------------------------------------------
    def info(self, trace):
        rc, out = self.run("info-" + os.path.basename(trace), self.cli("info", trace, "--json"), 120)
        for line in out:
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    pass
        return None

    def analyze(self, trace):
        rc, out = self.run("analyze-" + os.path.basename(trace), self.cli("analyze", trace), 180)
        verdict = next((l for l in out if l.startswith("VERDICT")), "no verdict")
        steps = next((l[len("Steps:"):].strip() for l in out if l.startswith("Steps:")), "")
        mfu = next((m.group(0) for l in out for m in [re.search(r"MFU [0-9.]+ %", l)] if m), "no MFU")
        return {"verdict": verdict[:120], "steps": steps[:80], "mfu": mfu}

    def capture_facts(self, trace):
        """Joined %, drops, still running, PM samples and GPU-metric problems of one capture."""
        if not os.path.exists(trace):
            return {"error": "no trace written"}
        info = self.info(trace)
        if info is None:
            return {"error": "info failed"}
        stats = {s["name"]: s for s in info.get("stats", [])}
        notes = {}
        for n in info.get("notes", []):
            notes.setdefault(n["key"], n["value"])
        ev = info["events"]
        gpu = ev["kernels"] + ev["memcpys"] + ev["memsets"]
        unjoined = stats.get("correlation.gpu_event_without_launch_call", {}).get("count", 0)

        def count(name):
            return stats.get(name, {}).get("count", 0)

        facts = {
            "kernels": ev["kernels"], "gpu_records": gpu, "api_calls": ev["apiCalls"],
            "joined_pct": round(100.0 * (gpu - unjoined) / gpu, 2) if gpu else None,
            "dropped": count("agent.dropped_records"), "still_running_at_stop": count("agent.still_running_at_stop"),
            "gpu_records_missing": count("agent.gpu_records_missing"),
            "steps": info["steps"]["count"], "step_rule": info["steps"]["rule"],
            "pm_samples": int(notes.get("capture.gpu_metrics_samples", "0") or 0),
            "pm_metrics": notes.get("capture.gpu_metrics_count", ""),
            # what the decoder saw: kept, outside the window, untimed, errors, first sample time
            "pm_notes": [n["value"][:400] for n in info.get("notes", []) if n["key"] == "capture.gpu_metrics_note"],
            "runtime_api_tracing": notes.get("capture.runtime_api_tracing", ""),
            "end_reason": notes.get("capture.end_reason", ""),
            # which CUPTI the job loaded: the versions line of the summary
            "cupti": " ".join(v for v in (notes.get("capture.cupti_version", ""),
                                          notes.get("capture.cupti_library", "")) if v),
            "after_steps_from": notes.get("capture.after_steps_from", ""),
            # which build of the agent recorded it (captures made before the note was added lack it)
            "agent_build": notes.get("capture.agent_build", ""),
            # the helper's CUDA allocator peak (the last one published): the capacity check's figure
            "memory_reserved_peak_bytes": next((n["value"] for n in reversed(info.get("notes", []))
                                                if n["key"] == "model.memory_reserved_peak_bytes"), ""),
        }
        for name in ("agent.gpu_metrics_unavailable", "agent.gpu_metrics_dropped", "agent.gpu_metrics_empty",
                     "agent.cupti_clock_changed",
                     "agent.cupti_callbacks_lost"):
            if name in stats:
                facts[name] = stats[name]["detail"][:600]
        return facts

    # --- the checks ---------------------------------------------------------------------------------
    def check_env(self):
        rc, out = self.run("nvidia-smi", ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                                          "--format=csv,noheader"], 30)
        rc2, out2 = self.run("torch", [sys.executable, "-c", "import torch;print(torch.__version__, torch.version.cuda)"], 120)
        rc3, out3 = self.run("version", self.cli("--version"), 30)
        return {"gpu": out[0] if out else "?", "torch": out2[0] if out2 else "?",
                "chokepoint": out3[0] if out3 else "?"}

    def check_doctor(self):
        rc, out = self.run("doctor", self.cli("doctor"), 120)
        problems = [l for l in out if "PROBLEM" in l]
        return {"exit": rc, "problems": problems[:5], "lines": [l for l in out if l.strip()][:20]}

    def check_calibrate(self):
        path = os.path.join(self.traces, "calibration.json")
        rc, out = self.run("calibrate", self.cli("calibrate", "-o", path), 240)
        return {"exit": rc, "result": open(path).read()[:800] if os.path.exists(path) else "\n".join(out[-5:])}

    def check_gpt(self):
        """Baseline step time, then run --at-step --steps 10 --gpu-metrics with the helper."""
        rc, out = self.run("gpt-baseline", [sys.executable, self.job("gpt_train.py"), "--steps", "40"], 200)
        base = median_ms(steps_of(out), skip=5)
        self.results["gpt_baseline_ms"] = base
        trace = os.path.join(self.traces, "gpt-run-pm.cptrace")
        rc, out = self.run("gpt-run-pm", self.cli("run", "--at-step", "--steps", "10", "--gpu-metrics", "-o", trace, "--",
                                                  sys.executable, self.job("gpt_train.py"), "--steps", "30", "--helper"), 240)
        return {"baseline_median_ms": base, "run_exit": rc, "capture": self.capture_facts(trace),
                "analysis": self.analyze(trace)}

    def check_gpt_attach(self, name="gpt-attach", extra_env=None):
        lines, windows = self.launch_and_attach(
            name, [sys.executable, self.job("gpt_train.py"), "--steps", "80", "--helper"], 20,
            ["--at-step", "--steps", "30"], extra_env=extra_env)
        steps = steps_of(lines)
        t0, t1, out, trace, rc = windows[0]
        dormant = [s for s in steps if 5 <= s[0] and s[2] < t0]
        inside = [s for s in steps if t0 + 0.3 < s[2] < t1 - 0.2]
        after = [s for s in steps if s[2] > t1 + 1.0]
        base = self.results.get("gpt_baseline_ms")
        res = {"attach_exit": rc, "attach_output": [l for l in out if l.strip()][-3:],
               "dormant_median_ms": median_ms(dormant), "capturing_median_ms": median_ms(inside),
               "after_median_ms": median_ms(after), "capture": self.capture_facts(trace)}
        ref = res["dormant_median_ms"]
        for key in ("capturing", "after"):
            v = res[key + "_median_ms"]
            res[key + "_overhead_pct_vs_dormant"] = pct(v, ref)
            res[key + "_overhead_pct_vs_baseline"] = pct(v, base)
        if name == "gpt-attach":
            res["analysis"] = self.analyze(trace)
        return res

    def check_gpt_attach_allowlist(self):
        """The same attach with the old per-call runtime enables (CHOKEPOINT_RUNTIME_API=allowlist)."""
        return self.check_gpt_attach("gpt-attach-allowlist", {"CHOKEPOINT_RUNTIME_API": "allowlist"})

    def check_gpt_kineto(self):
        trace = os.path.join(self.traces, "gpt-kineto.pt.trace.json")
        rc, out = self.run("gpt-kineto", [sys.executable, self.job("gpt_train.py"), "--steps", "14", "--kineto", trace], 240)
        if os.path.exists(trace):
            subprocess.run(["gzip", "-f", trace])
            trace += ".gz"
        return {"exit": rc, "analysis": self.analyze(trace) if os.path.exists(trace) else "no trace"}

    def check_gpt_nohelper(self):
        """What a new user does first, with --delay to skip start-up: no helper, no markers."""
        trace = os.path.join(self.traces, "gpt-nohelper-delay.cptrace")
        t0 = time.time()
        rc, out = self.run("gpt-nohelper", self.cli("run", "--delay", "10", "--duration", "3", "-o", trace, "--",
                                                    sys.executable, self.job("gpt_train.py"), "--steps", "230"), 240)
        steps = steps_of(out)
        first = next((s for s in steps), None)
        return {"run_exit": rc, "capture": self.capture_facts(trace), "analysis": self.analyze(trace),
                "first_step_wall_offset_s": round(first[2] - t0, 2) if first else None}

    def check_gpt_nomarkers_after_steps(self):
        """--after-steps in a job without step markers: steps counted from repeating kernel launches."""
        trace = os.path.join(self.traces, "gpt-nomarkers-after-steps.cptrace")
        t0 = time.time()
        rc, out = self.run("gpt-nomarkers-after-steps",
                           self.cli("run", "--after-steps", "20", "--steps", "10", "-o", trace, "--",
                                    sys.executable, self.job("gpt_train.py"), "--steps", "150"), 240)
        steps = steps_of(out)
        return {"run_exit": rc, "capture": self.capture_facts(trace), "analysis": self.analyze(trace),
                "job_steps_printed": len(steps), "first_step_wall_offset_s": round(steps[0][2] - t0, 2) if steps else None}

    def check_gpt_profiler_during(self):
        """torch.profiler started inside a Chokepoint capture: what each of them records."""
        trace = os.path.join(self.traces, "gpt-profiler-during.cptrace")
        kineto = os.path.join(self.traces, "gpt-profiler-during-kineto.json")
        rc, out = self.run("gpt-profiler-during", self.cli("run", "--duration", "20", "-o", trace, "--", sys.executable,
                                                           self.job("gpt_train.py"), "--steps", "16", "--helper",
                                                           "--kineto", kineto), 240)
        res = {"run_exit": rc, "capture": self.capture_facts(trace), "kineto_written": os.path.exists(kineto)}
        if os.path.exists(kineto):
            subprocess.run(["gzip", "-f", kineto])
            res["kineto_analysis"] = self.analyze(kineto + ".gz")
        return res

    def check_rn50(self):
        trace = os.path.join(self.traces, "rn50-nw0-after-steps.cptrace")
        rc, out = self.run("rn50-run", self.cli("run", "--after-steps", "2", "--steps", "6", "-o", trace, "--",
                                                sys.executable, self.job("rn50_data.py"), "--workers", "0", "--steps", "10"), 240)
        res = {"run_exit": rc, "capture": self.capture_facts(trace), "analysis": self.analyze(trace)}
        if not self.args.quick:
            kineto = os.path.join(self.traces, "rn50-nw0-kineto.pt.trace.json")
            rc, out = self.run("rn50-kineto", [sys.executable, self.job("rn50_data.py"), "--workers", "0", "--steps", "11",
                                               "--no-helper", "--kineto", kineto], 240)
            if os.path.exists(kineto):
                subprocess.run(["gzip", "-f", kineto])
                res["kineto_analysis"] = self.analyze(kineto + ".gz")
        return res

    def check_graphs(self):
        """torch.compile reduce-overhead: attach without and with --graphs, detaching after each
        capture (CHOKEPOINT_CUPTI_DETACH=1), then once more: CUDA graphs survive detach and a later
        capture still joins."""
        lines, windows = self.launch_and_attach(
            "graphs", [sys.executable, self.job("compiled_graphs.py"), "--steps", "0", "--helper"], 40,
            [["--at-step", "--steps", "20"], ["--at-step", "--steps", "20", "--graphs"], ["--at-step", "--steps", "20"]],
            extra_env={"CHOKEPOINT_CUPTI_DETACH": "1"}, timeout=240, stop_job=True)
        steps = steps_of(lines)
        res = {"job_steps_printed": len(steps), "job_exit_lines": [l for l in lines if not STEP.match(l.strip())][-5:]}
        for i, (t0, t1, out, trace, rc) in enumerate(windows):
            facts = self.capture_facts(trace)
            info = self.info(trace) or {}
            graph_ranges = info.get("events", {}).get("ranges", None)
            res["capture%d" % (i + 1)] = {"attach_exit": rc, "facts": facts, "ranges": graph_ranges}
        before = [s for s in steps if 20 <= s[0] and windows and s[2] < windows[0][0]]
        after = [s for s in steps if windows and s[2] > windows[-1][1] + 1.0]
        res["dormant_median_ms"] = median_ms(before)
        res["after_detach_median_ms"] = median_ms(after)
        res["after_detach_pct"] = pct(res["after_detach_median_ms"], res["dormant_median_ms"])
        return res

    def check_pm_graphs(self):
        """Two --gpu-metrics attaches of 300 steps (about 0.5 s on an H100) to the compiled (CUDA graph)
        job, CUPTI left attached: PM samples
        in attach, and whether the job and a second capture survive cuptiPmSamplingDisable (XLA's
        PM sampler skips that call because, in its authors' words, it "finalizes all of CUPTI",
        which crashed graph replays after our detach)."""
        lines, windows = self.launch_and_attach(
            "pm-graphs", [sys.executable, self.job("compiled_graphs.py"), "--steps", "0", "--helper"], 40,
            [["--at-step", "--steps", "300", "--gpu-metrics"], ["--at-step", "--steps", "300", "--gpu-metrics"]],
            timeout=200, stop_job=True)
        steps = steps_of(lines)
        res = {"job_steps_printed": len(steps),
               "steps_after_last_capture": len([s for s in steps if windows and s[2] > windows[-1][1] + 1.0]),
               "job_exit_lines": [l for l in lines if not STEP.match(l.strip())][-5:]}
        for i, (t0, t1, out, trace, rc) in enumerate(windows):
            res["capture%d" % (i + 1)] = {"attach_exit": rc, "facts": self.capture_facts(trace)}
        return res

    def check_overhead(self):
        summary = os.path.join(self.traces, "measure_overhead.json")
        # train_loop.py's DataLoader makes each iteration ~80 ms of wall time around a ~3.3 ms step
        # (H100): 60-step windows keep this check near a minute.
        rc, out = self.run("measure-overhead", [sys.executable, self.job("measure_overhead.py"), "--cli", self.args.cli,
                                                "--steps", "150", "--window", "60", "--out", summary], 300)
        return json.load(open(summary)) if os.path.exists(summary) else {"exit": rc, "tail": out[-5:]}

    def check_breakdown(self):
        """Where capture overhead comes from on the 53-kernel loop: one process, CUPTI detached after
        each window, one attach per set of kinds; plus torch.profiler on the same loop."""
        # python alone, and the defaults without it, split the Python stack samplers' cost (100 Hz,
        # holding the GIL) from the agent's.
        variants = [["--kinds", "nvtx,host"], ["--kinds", "python"], ["--kinds", "kernels"], ["--kinds", "kernels,api"],
                    ["--kinds", "kernels,memory,api,sync"], ["--kinds", "kernels,memory,api,sync,nvtx,host,overhead"], []]
        lines, windows = self.launch_and_attach(
            "breakdown", [sys.executable, self.job("train_loop.py"), "0"], 30,
            [["--steps", "40"] + v for v in variants], extra_env={"CHOKEPOINT_CUPTI_DETACH": "1"}, timeout=200,
            stop_job=True)
        steps = steps_of(lines)
        res = {}
        first = windows[0][0] if windows else float("inf")
        dormant = median_ms([s for s in steps if 10 <= s[0] and s[2] < first - 0.2])
        res["dormant_median_ms"] = dormant
        for (t0, t1, out, trace, rc), v in zip(windows, variants):
            inside = [s for s in steps if t0 + 0.4 < s[2] < t1 - 0.1]
            label = " ".join(v) or "default kinds"
            res[label] = {"median_ms": median_ms(inside), "pct_vs_dormant": pct(median_ms(inside), dormant),
                          "steps_measured": len(inside)}
        rc, out = self.run("breakdown-torch-profiler", [sys.executable, self.job("train_loop.py"), "110",
                                                        "--torch-profiler", "50"], 200)
        st = steps_of(out)
        inside = [s for s in st if 12 <= s[0] < 58]
        outside = [s for s in st if s[0] >= 65]
        res["torch.profiler (CUDA activities)"] = {"median_ms": median_ms(inside), "outside_median_ms": median_ms(outside),
                                                   "pct_vs_outside": pct(median_ms(inside), median_ms(outside))}
        return res


def steps_of(lines):
    out = []
    for line in lines:
        m = STEP.match(line.strip())
        if m:
            out.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    return out


def median_ms(steps, skip=0):
    values = [ms for n, ms, _ in steps if n >= skip]
    return round(statistics.median(values), 3) if values else None


def pct(value, ref):
    if value is None or not ref:
        return None
    return round(100.0 * (value - ref) / ref, 2)


def _all_facts(results):
    """Every capture's facts in the results, whatever check they sit under."""
    for value in results.values():
        if not isinstance(value, dict):
            continue
        for key in ("capture", "facts"):
            if isinstance(value.get(key), dict):
                yield value[key]
        for sub in value.values():
            if isinstance(sub, dict) and isinstance(sub.get("facts"), dict):
                yield sub["facts"]


def write_summary(check, started, quiet=False):
    r = check.results
    lines = ["# Chokepoint GPU check", "", "Date (UTC): %s, took %.0f s" % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                                                                             time.time() - started), ""]
    env = r.get("env", {})
    # The first capture that says which CUPTI it used (every capture of one node uses the same).
    cupti = next((f.get("cupti") for f in _all_facts(r) if f.get("cupti")), "?")
    builds = sorted({f.get("agent_build") for f in _all_facts(r) if f.get("agent_build")})
    lines += ["GPU (name, driver, memory): %s; torch, CUDA: %s; %s; CUPTI %s; agent build %s" % (
        env.get("gpu", "?"), env.get("torch", "?"), env.get("chokepoint", "chokepoint-cli ?"), cupti,
        ", ".join(builds) or "not noted"), ""]
    lines += ["| capture | joined % | dropped | still running | steps | PM samples | verdict | MFU | window end |",
              "|---|---|---|---|---|---|---|---|---|"]

    def row(name, facts, analysis):
        if not isinstance(facts, dict):
            return
        a = analysis if isinstance(analysis, dict) else {}
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, facts.get("joined_pct"), facts.get("dropped"), facts.get("still_running_at_stop"), facts.get("steps"),
            facts.get("pm_samples"), a.get("verdict", ""), a.get("mfu", ""), (facts.get("end_reason") or "")[:90]))

    for key, label in (("gpt", "GPT run --gpu-metrics"), ("gpt_attach", "GPT launch+attach"),
                       ("gpt_attach_allowlist", "GPT attach, old runtime enables"), ("gpt_nohelper", "GPT no helper --delay"),
                       ("gpt_nomarkers_after_steps", "GPT no markers --after-steps 20 --steps 10"),
                       ("gpt_profiler_during", "GPT, torch.profiler during capture"), ("rn50", "ResNet nw0 --after-steps")):
        v = r.get(key, {})
        if isinstance(v, dict):
            row(label, v.get("capture"), v.get("analysis"))
    for i in (1, 2, 3):
        v = r.get("graphs", {}).get("capture%d" % i) if isinstance(r.get("graphs"), dict) else None
        if v:
            row("compiled graphs attach %d%s" % (i, " --graphs" if i == 2 else ""), v.get("facts"), None)
    for i in (1, 2):
        v = r.get("pm_graphs", {}).get("capture%d" % i) if isinstance(r.get("pm_graphs"), dict) else None
        if v:
            row("compiled graphs attach --gpu-metrics %d" % i, v.get("facts"), None)
    lines += ["", "torch.profiler traces: GPT %s; ResNet %s" % (
        (r.get("gpt_kineto") or {}).get("analysis") if isinstance(r.get("gpt_kineto"), dict) else r.get("gpt_kineto"),
        (r.get("rn50") or {}).get("kineto_analysis") if isinstance(r.get("rn50"), dict) else None), ""]
    lines += ["Overhead (median step time):", "", "```", json.dumps({k: r.get(k) for k in ("overhead", "breakdown")}, indent=1),
              "```", "", "GPT attach overhead: %s" % json.dumps({k: v for k, v in (r.get("gpt_attach") or {}).items()
                                                                   if "median" in k or "pct" in k}), ""]
    failed = {k: v for k, v in r.items() if isinstance(v, dict) and "failed" in v}
    if failed:
        lines += ["Checks that failed:", ""] + ["- %s: %s" % (k, v["failed"]) for k, v in failed.items()]
    with open(os.path.join(check.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(check.out, "summary.json"), "w") as f:
        json.dump(r, f, indent=1, default=str)
    if not quiet:
        print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--helper-dir", required=True)
    ap.add_argument("--out", default="gpu-check-out")
    ap.add_argument("--quick", action="store_true",
                    help="skip what the first H100 check settled (" + ",".join(SETTLED) +
                    ") and the ResNet torch.profiler trace")
    ap.add_argument("--only", default="", help="comma-separated checks: " + ",".join(CHECKS))
    args = ap.parse_args()
    check = Check(args)
    only = [c for c in args.only.split(",") if c]
    started = time.time()
    for name in CHECKS:
        if (only and name not in only) or (not only and args.quick and name in SETTLED):
            continue
        t = time.time()
        try:
            check.results[name] = getattr(check, "check_" + name)()
        except Exception as e:  # one failed check must not hide the others
            check.results[name] = {"failed": "%s: %s" % (type(e).__name__, e)}
        print("[gpu-check] %s: %.0f s" % (name, time.time() - t), flush=True)
        write_summary(check, started, quiet=True)  # a run cut short still leaves its summary
    write_summary(check, started)
    shutil.rmtree(check.sock_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
