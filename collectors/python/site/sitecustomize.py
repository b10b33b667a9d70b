"""Chokepoint's start-up hook: chokepoint-cli run/launch put this folder first on PYTHONPATH, so
every Python process of the job samples its own stacks while it is recorded (chokepoint_stacks.py,
one folder up), with no change to the job. Then the job's own sitecustomize, if it has one further
down sys.path, runs as it would have. Nothing here may stop the job from starting."""

import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _start_sampler():
    if os.environ.get("CHOKEPOINT_PYSTACKS_DIR", "") == "":
        return
    helper_dir = os.path.dirname(_here)
    if helper_dir not in sys.path:
        sys.path.append(helper_dir)
    import chokepoint_stacks  # noqa: PLC0415

    chokepoint_stacks.start_from_environment()


def _run_the_jobs_own_sitecustomize():
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.origin is None or os.path.abspath(spec.origin) == os.path.abspath(__file__):
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module  # as if Python had imported it directly
    spec.loader.exec_module(module)


try:
    _start_sampler()
except Exception as error:  # a broken sampler must not break the job
    sys.stderr.write("chokepoint: Python stack sampling is off: %s\n" % error)
_run_the_jobs_own_sitecustomize()
