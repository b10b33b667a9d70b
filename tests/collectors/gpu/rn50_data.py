"""Data-bound twin: ResNet-50 training whose DataLoader decodes and augments on the CPU.
python3 rn50_data.py --workers W --steps N [--kineto OUT.json] [--no-helper]
With the helper (default), steps and data waits are marked and step 1's FLOPs are counted; images are
not tokens, so no tokens_per_step is published. Used by scripts/gpu-check.sh."""
import argparse, sys, time
import numpy as np, torch, torch.nn as nn, torchvision
from torchvision.transforms import v2 as T
from torch.utils.data import Dataset, DataLoader

ap = argparse.ArgumentParser()
ap.add_argument("--workers", type=int, default=0)
ap.add_argument("--steps", type=int, default=16)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--kineto", default="")
ap.add_argument("--no-helper", action="store_true")
a = ap.parse_args()
cp = None
if not a.no_helper:
    import chokepoint_helper as cp

class Synth(Dataset):
    def __init__(s):
        s.tf = T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip(),
                          T.ToDtype(torch.float32, scale=True),
                          T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    def __len__(s): return 1 << 20
    def __getitem__(s, i):
        img = torch.from_numpy(np.random.default_rng(i).integers(0, 256, (3, 288, 288), dtype=np.uint8))
        return s.tf(img), i % 1000

dev = torch.device("cuda")
torch.backends.cudnn.benchmark = True
model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = DataLoader(Synth(), batch_size=a.batch, num_workers=a.workers, pin_memory=True,
                    persistent_workers=a.workers > 0, prefetch_factor=4 if a.workers else None)
if cp: cp.publish_model(model)
prof = None
if a.kineto:
    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
        schedule=torch.profiler.schedule(wait=3, warmup=2, active=5, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(a.kineto))
    prof.__enter__()
it = cp.data_loading(loader) if cp else iter(loader)
t_last = time.perf_counter()
for step, (x, y) in enumerate(it):
    if step >= a.steps: break
    ctx = cp.step(step, count_flops=(step == 1)) if cp else torch.autograd.profiler.record_function("train_step")
    with ctx:
        x = x.to(dev, non_blocking=True).to(memory_format=torch.channels_last); y = y.to(dev, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    now = time.perf_counter()
    print("step %d %.3f ms %.6f" % (step, (now - t_last) * 1e3, time.time()), flush=True)
    t_last = now
    if prof: prof.step()
if prof: prof.__exit__(None, None, None)
