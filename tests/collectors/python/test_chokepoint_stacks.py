"""Tests of the Python stack sampler (collectors/python/chokepoint_stacks.py) and its start-up hook
(collectors/python/site/sitecustomize.py), in real subprocesses: no torch needed."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "collectors", "python"))
SITE_DIR = os.path.join(PYTHON_DIR, "site")

JOB = textwrap.dedent("""
    import os, threading, time

    def transform_image(seconds):
        end = time.time() + seconds
        while time.time() < end:
            sum(range(500))

    threading.Thread(target=transform_image, args=(0.4,), name="pin_memory").start()
    pid = os.fork()
    if pid == 0:
        transform_image(0.6)
        os._exit(0)
    transform_image(0.5)
    os.waitpid(pid, 0)
    print("own site:", os.environ.get("OWN_SITE_RAN", "no"))
""")


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class StackSamplerTest(unittest.TestCase):
    def run_job(self, extra_env, own_site=True):
        work = tempfile.mkdtemp(prefix="cp-stacks-test-")
        job = os.path.join(work, "job.py")
        with open(job, "w") as f:
            f.write(JOB)
        own = os.path.join(work, "own")
        os.makedirs(own)
        with open(os.path.join(own, "sitecustomize.py"), "w") as f:
            f.write("import os\nos.environ['OWN_SITE_RAN'] = 'yes'\n")
        out = os.path.join(work, "stacks")
        env = dict(os.environ)
        env["PYTHONPATH"] = SITE_DIR + (os.pathsep + own if own_site else "")
        env["CHOKEPOINT_PYSTACKS_DIR"] = out
        env.update(extra_env)
        done = subprocess.run([sys.executable, job], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return out, done.stdout

    def test_every_process_samples_its_threads_and_the_jobs_own_sitecustomize_still_runs(self):
        out, stdout = self.run_job({"CHOKEPOINT_PYSTACKS_ALWAYS": "1", "CHOKEPOINT_PYSTACKS_HZ": "200"})
        self.assertIn("own site: yes", stdout)
        files = sorted(os.listdir(out))
        self.assertEqual(len(files), 2, files)  # the job and its forked child
        records = {f: read(os.path.join(out, f)) for f in files}
        parent = next(r for r in records.values() if r[0]["ppid"] != int(files[0].split(".")[0]) and
                      r[0]["ppid"] != int(files[1].split(".")[0]))
        child = next(r for r in records.values() if r is not parent)
        self.assertEqual(child[0]["ppid"], parent[0]["pid"])
        for recs in (parent, child):
            self.assertEqual(recs[0]["v"], 1)
            self.assertEqual(recs[0]["clock"], "CLOCK_MONOTONIC")
            frames = {r["f"][0]: r["f"] for r in recs if "f" in r}
            stacks = {r["s"][0]: r["s"][1] for r in recs if "s" in r and "t" not in r}
            samples = [r for r in recs if "t" in r]
            self.assertGreater(len(samples), 20)
            times = [s["t"] for s in samples]
            self.assertEqual(times, sorted(times))
            leaves = {frames[stacks[s["s"]][0]][2] for s in samples}
            self.assertIn("transform_image", leaves | {frames[f][2] for s in samples for f in stacks[s["s"]]})
        # The parent ended normally: its file says so; its named thread is listed.
        self.assertTrue(parent[-1].get("end"))
        self.assertIn("pin_memory", [r["thread"][1] for r in parent if "thread" in r])

    def test_a_dormant_process_takes_no_sample(self):
        sockets = tempfile.mkdtemp(prefix="cp-stacks-sock-")
        out, stdout = self.run_job({"CHOKEPOINT_SOCKET_DIR": sockets})  # no capture marker: dormant
        self.assertFalse(os.path.exists(out) and os.listdir(out))

    def test_without_the_variable_nothing_starts_and_the_job_is_untouched(self):
        work = tempfile.mkdtemp(prefix="cp-stacks-off-")
        env = dict(os.environ, PYTHONPATH=SITE_DIR)
        env.pop("CHOKEPOINT_PYSTACKS_DIR", None)
        done = subprocess.run([sys.executable, "-c", "import sys; print('chokepoint_stacks' in sys.modules)"],
                              env=env, capture_output=True, text=True, cwd=work, timeout=30)
        self.assertEqual(done.stdout.strip(), "False")

    def test_the_file_is_bounded(self):
        sys.path.insert(0, PYTHON_DIR)
        import chokepoint_stacks  # noqa: PLC0415

        import threading  # noqa: PLC0415

        stop = threading.Event()
        other = threading.Thread(target=stop.wait)  # the sampler never samples the thread it runs on
        other.start()
        out = tempfile.mkdtemp(prefix="cp-stacks-cap-")
        sampler = chokepoint_stacks.StackSampler(out, always=True, max_bytes=400)
        sampler._open()
        for _ in range(50):
            sampler.sample_once()
        sampler.close()
        stop.set()
        other.join()
        size = os.path.getsize(os.path.join(out, "%d.pystacks" % os.getpid()))
        self.assertLess(size, 600)
        self.assertGreater(sampler.dropped, 0)


if __name__ == "__main__":
    unittest.main()
