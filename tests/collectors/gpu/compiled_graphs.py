"""A torch.compile(mode="reduce-overhead") training loop: forward and backward replay as CUDA graphs.
python3 compiled_graphs.py --steps N [--helper]
The loss and backward() stay outside the compiled function (AOTAutograd compiles and graphs the
backward itself), and each iteration starts with cudagraph_mark_step_begin(). Prints
'step N ms wall' per step. Used by scripts/gpu-check.sh to check `run` with and without --graphs."""
import argparse
import signal
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=60, help="0: until SIGTERM")
ap.add_argument("--helper", action="store_true")
a = ap.parse_args()
cp = None
if a.helper:
    import chokepoint_helper as cp

dev = torch.device("cuda")
model = nn.Sequential(*[nn.Sequential(nn.Linear(2048, 2048), nn.GELU()) for _ in range(8)], nn.Linear(2048, 16)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
compiled = torch.compile(model, mode="reduce-overhead")
x = torch.randn(256, 2048, device=dev)
y = torch.randint(0, 16, (256,), device=dev)
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
step = 0
while not stop and (a.steps == 0 or step < a.steps):
    t0 = time.perf_counter()
    ctx = cp.step(step) if cp else torch.autograd.profiler.record_function("step")
    with ctx:
        torch.compiler.cudagraph_mark_step_begin()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = compiled(x)
        loss = nn.functional.cross_entropy(out.float(), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    print("step %d %.3f ms %.6f" % (step, (time.perf_counter() - t0) * 1e3, time.time()), flush=True)
    step += 1
