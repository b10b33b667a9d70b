"""Compute-bound twin: a GPT-style decoder trained in bf16 on random tokens (no data loader).
python3 gpt_train.py --steps N [--layers L] [--kineto OUT.json] [--helper]
Prints 'step N ms wall' per step and the analytic 6*N*T FLOPs per step. With --helper, steps are
marked with chokepoint_helper and step 1's FLOPs are counted (FlopCounterMode) and published.
Used by scripts/gpu-check.sh (the H100 captures in docs/COLLECTORS.md)."""
import argparse, math, sys, time
import torch, torch.nn as nn, torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--layers", type=int, default=12)
ap.add_argument("--dim", type=int, default=1024)
ap.add_argument("--seq", type=int, default=1024)
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--vocab", type=int, default=32768)
ap.add_argument("--kineto", default="")
ap.add_argument("--helper", action="store_true")
a = ap.parse_args()
cp = None
if a.helper:
    import chokepoint_helper as cp

class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__(); s.h = h
        s.ln1 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.proj = nn.Linear(d, d)
        s.ln2 = nn.LayerNorm(d); s.fc = nn.Linear(d, 4 * d); s.out = nn.Linear(4 * d, d)
    def forward(s, x):
        B, T, D = x.shape
        q, k, v = s.qkv(s.ln1(x)).view(B, T, 3, s.h, D // s.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, D)
        x = x + s.proj(y)
        return x + s.out(F.gelu(s.fc(s.ln2(x))))

class GPT(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb = nn.Embedding(a.vocab, a.dim); s.pos = nn.Embedding(a.seq, a.dim)
        s.blocks = nn.ModuleList([Block(a.dim, a.dim // 64) for _ in range(a.layers)])
        s.ln = nn.LayerNorm(a.dim); s.head = nn.Linear(a.dim, a.vocab, bias=False)
    def forward(s, idx):
        x = s.emb(idx) + s.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in s.blocks: x = b(x)
        return s.head(s.ln(x))

dev = torch.device("cuda")
model = GPT().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
n_params = sum(p.numel() for p in model.parameters())
tokens = a.batch * a.seq
print("params %d tokens_per_step %d flops_6nt %.4e" % (n_params, tokens, 6.0 * n_params * tokens), flush=True)
if cp: cp.publish_model(model, tokens_per_step=tokens)
data = torch.randint(0, a.vocab, (4, a.batch, a.seq + 1), device=dev)
prof = None
if a.kineto:
    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
        schedule=torch.profiler.schedule(wait=5, warmup=2, active=5, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(a.kineto), record_shapes=True, with_stack=False)
    prof.__enter__()
for step in range(a.steps):
    t0 = time.perf_counter()
    ctx = cp.step(step, count_flops=(step == 1)) if cp else torch.autograd.profiler.record_function("step")
    with ctx:
        batch = data[step % 4]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.float().view(-1, a.vocab), batch[:, 1:].reshape(-1))
        loss.backward()
        opt.step(); opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    print("step %d %.3f ms %.6f" % (step, (time.perf_counter() - t0) * 1e3, time.time()), flush=True)
    if prof: prof.step()
if prof: prof.__exit__(None, None, None)
