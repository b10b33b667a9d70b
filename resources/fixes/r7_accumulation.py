k = 4
for i, (inputs, targets) in enumerate(loader):
    sync = (i + 1) % k == 0
    ctx = contextlib.nullcontext() if sync else model.no_sync()  # DDP: skip AllReduce
    with ctx:
        loss = loss_fn(model(inputs), targets) / k
        loss.backward()
    if sync:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
