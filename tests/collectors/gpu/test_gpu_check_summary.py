"""The device check's own reading and summary, without a GPU.

A GPU session has 15 minutes; a summary that breaks on its first trace costs all of them. This
runs gpu_check.py's parsing (capture_facts, analyze) against real agent captures from the H100
(tests/data/h100-agent-2026-11-26) through the built chokepoint-cli, writes the summary from
them, and checks that gpu-check.sh lists every check and refuses a node without CUDA at once.

Needs CHOKEPOINT_CLI (set by ctest) and CHOKEPOINT_SOURCE_ROOT.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_check  # noqa: E402

ROOT = os.environ.get("CHOKEPOINT_SOURCE_ROOT", os.path.join(HERE, "..", "..", ".."))
CAPTURES = os.path.join(ROOT, "tests", "data", "h100-agent-2026-11-26")
CLI = os.environ.get("CHOKEPOINT_CLI", "")


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "CHOKEPOINT_CLI is not set to the built chokepoint-cli")
class ReadsRealCaptures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="cp-gpucheck-test-")
        args = argparse.Namespace(cli=CLI, jobs=HERE, helper_dir=os.path.join(ROOT, "collectors", "python"),
                                  out=cls.out, quick=True, only="")
        cls.check = gpu_check.Check(args)

    def facts(self, name):
        return self.check.capture_facts(os.path.join(CAPTURES, name))

    def test_attach_capture_is_fully_joined_and_ends_whole(self):
        f = self.facts("gpt-attach.cptrace")
        self.assertEqual(f["gpu_records"], 27450)
        self.assertEqual(f["joined_pct"], 100.0)
        self.assertEqual(f["still_running_at_stop"], 0)
        self.assertEqual(f["dropped"], 0)
        self.assertEqual(f["steps"], 30)
        self.assertEqual(f["step_rule"], "step marker")

    def test_old_runtime_enables_show_the_first_runs_failure(self):
        # The H100 failure the issue names: only driver-API launches joined, the last step lost.
        f = self.facts("gpt-attach-allowlist.cptrace")
        self.assertEqual(f["joined_pct"], 21.31)
        self.assertEqual(f["still_running_at_stop"], 409)

    def test_delayed_capture_without_markers_counts_steps_from_kernels(self):
        f = self.facts("gpt-nohelper-delay.cptrace")
        self.assertGreater(f["steps"], 40)
        self.assertEqual(f["step_rule"], "repeating kernels")

    def test_missing_trace_is_said(self):
        self.assertEqual(self.facts("no-such.cptrace"), {"error": "no trace written"})

    def test_analyze_reads_verdict_steps_and_mfu(self):
        a = self.check.analyze(os.path.join(CAPTURES, "gpt-attach.cptrace"))
        self.assertTrue(a["verdict"].startswith("VERDICT: Memory-bandwidth-bound"), a)
        self.assertTrue(a["steps"].startswith("30 from step marker"), a)
        self.assertRegex(a["mfu"], r"^MFU [0-9.]+ %$")

    def test_summary_has_a_row_per_capture_with_its_figures(self):
        self.check.results = {
            "env": {"gpu": "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB", "torch": "2.11.0+cu130 13.0"},
            "gpt_attach": {"capture": self.facts("gpt-attach.cptrace"),
                           "analysis": self.check.analyze(os.path.join(CAPTURES, "gpt-attach.cptrace")),
                           "dormant_median_ms": 65.6, "capturing_median_ms": 66.3,
                           "capturing_overhead_pct_vs_dormant": 1.07},
            "gpt_attach_allowlist": {"capture": self.facts("gpt-attach-allowlist.cptrace")},
            "graphs": {"capture1": {"facts": self.facts("compiled-graphs-attach.cptrace")}},
            "overhead": {"failed": "RuntimeError: the job exited (status 1) before step 30"},
        }
        gpu_check.write_summary(self.check, started=time.time(), quiet=True)
        with open(os.path.join(self.out, "summary.md")) as f:
            md = f.read()
        self.assertIn("GPU (name, driver, memory): NVIDIA H100 80GB HBM3", md)
        # The versions line names the CUPTI the captures say the job loaded, and which agent build
        # recorded them (the H100 captures predate the note).
        self.assertIn("CUPTI 130001 libcupti.so.13", md)
        self.assertIn("; agent build not noted", md)
        self.assertRegex(md, r"\| GPT launch\+attach \| 100\.0 \| 0 \| 0 \| 30 \|")
        self.assertRegex(md, r"\| GPT attach, old runtime enables \| 21\.31 \| 0 \| 409 \|")
        self.assertIn("| compiled graphs attach 1 |", md)
        self.assertIn("- overhead: RuntimeError: the job exited", md)
        self.assertIn('"capturing_overhead_pct_vs_dormant": 1.07', md)
        with open(os.path.join(self.out, "summary.json")) as f:
            self.assertEqual(json.load(f)["gpt_attach"]["capture"]["joined_pct"], 100.0)

    def test_versions_line_names_the_agent_build_the_captures_note(self):
        facts = self.facts("gpt-attach.cptrace")
        self.assertEqual(facts["agent_build"], "")
        facts["agent_build"] = "25d921e0a1b2"
        self.check.results = {"env": {"gpu": "H100", "torch": "2.11"}, "gpt_attach": {"capture": facts}}
        gpu_check.write_summary(self.check, started=time.time(), quiet=True)
        with open(os.path.join(self.out, "summary.md")) as f:
            self.assertIn("; agent build 25d921e0a1b2", f.read())


class StepLines(unittest.TestCase):
    def test_job_step_lines_medians_and_percentages(self):
        steps = gpu_check.steps_of(["step 0 900.0 ms 1.0", "noise", " step 1 66.0 ms 2.0 ", "step 2 68.0 ms 3.0"])
        self.assertEqual([s[0] for s in steps], [0, 1, 2])
        self.assertEqual(gpu_check.median_ms(steps, skip=1), 67.0)
        self.assertIsNone(gpu_check.median_ms([]))
        self.assertEqual(gpu_check.pct(66.0, 60.0), 10.0)
        self.assertIsNone(gpu_check.pct(None, 60.0))
        self.assertIsNone(gpu_check.pct(66.0, None))


class TheScript(unittest.TestCase):
    SCRIPT = os.path.join(ROOT, "scripts", "gpu-check.sh")

    def test_help_names_every_check_and_quick(self):
        out = subprocess.run(["bash", self.SCRIPT, "--help"], capture_output=True, text=True, check=True).stdout
        for name in gpu_check.CHECKS:
            self.assertRegex(out, r"\n  %s\s" % name, "gpu-check.sh --help does not list " + name)
        for name in gpu_check.SETTLED:
            self.assertIn(name, out.split("--quick", 1)[1], "--quick does not name " + name)

    @unittest.skipUnless(CLI, "CHOKEPOINT_CLI is not set")
    def test_a_node_without_cuda_is_refused_at_once(self):
        # A python3 that cannot give torch a GPU: this machine's own, or one whose torch import fails.
        env = dict(os.environ, PYTHONPATH=tempfile.mkdtemp(prefix="cp-notorch-"))
        with open(os.path.join(env["PYTHONPATH"], "torch.py"), "w") as f:
            f.write("class cuda:\n    @staticmethod\n    def is_available():\n        return False\n")
        p = subprocess.run(["bash", self.SCRIPT, "--cli", CLI, "--out", tempfile.mkdtemp()], capture_output=True,
                           text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("cannot run the checks: torch sees no CUDA GPU", p.stderr)


if __name__ == "__main__":
    unittest.main()
