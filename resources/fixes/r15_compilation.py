# a warm-up cost: keep it out of the measurement
prof = torch.profiler.profile(schedule=torch.profiler.schedule(wait=2, warmup=3, active=5))
# avoid recompiles on varying shapes, and reuse compiled artifacts across runs
model = torch.compile(model, dynamic=True)
# TORCHINDUCTOR_FX_GRAPH_CACHE=1 (on by default in recent PyTorch) caches compiled graphs
