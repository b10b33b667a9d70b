"""A small real PyTorch training loop for the GPU tests of the collector (ctest label `gpu`).

    python3 train_loop.py STEPS [--torch-profiler K]     (STEPS 0: run until SIGTERM)

MLP with AdamW, bf16 autocast, a DataLoader with two workers that sleep a little per batch (a
data-bound phase), steps marked with chokepoint_helper. Prints one line per step: "step N ms".
"""

import signal
import sys
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import chokepoint_helper as cp

stop = False


def on_term(*_):
    global stop
    stop = True


class Synthetic(Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, index):
        time.sleep(0.0005)
        g = torch.Generator().manual_seed(index)
        return torch.randn(1024, generator=g), torch.randint(0, 10, (1,), generator=g).squeeze(0)


def main():
    signal.signal(signal.SIGTERM, on_term)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    profile_steps = int(sys.argv[sys.argv.index("--torch-profiler") + 1]) if "--torch-profiler" in sys.argv else 0
    profiler = None
    device = torch.device("cuda")
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(),
                          nn.Linear(4096, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = DataLoader(Synthetic(), batch_size=256, num_workers=2, persistent_workers=True)
    cp.publish_model(model, tokens_per_step=256)
    step = 0
    for x, y in cp.data_loading(loader):
        if stop or (steps and step >= steps):
            break
        if profile_steps and step == 10:
            profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            profiler.__enter__()
        t0 = time.perf_counter()
        with cp.step(step):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with cp.forward(), torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x), y)
            with cp.backward():
                loss.backward()
            with cp.optimizer():
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
        print("step %d %.3f ms %.6f" % (step, (time.perf_counter() - t0) * 1e3, time.time()), flush=True)
        step += 1
        if profiler is not None and step == 10 + profile_steps:
            profiler.__exit__(None, None, None)
            kernels = sum(1 for e in profiler.events()
                          if e.device_type == torch.autograd.DeviceType.CUDA
                          and not e.name.startswith(("Memcpy", "Memset")))  # kernels only, like the agent's count
            print("torch_profiler_kernels_per_step %.1f" % (kernels / profile_steps), flush=True)
            profiler = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
