loader = torch.utils.data.DataLoader(
    dataset, batch_size=batch_size, shuffle=True,
    num_workers=8,            # start at the number of CPU cores, then profile
    pin_memory=True,          # page-locked buffers allow asynchronous H2D copies
    prefetch_factor=2,        # batches buffered per worker
    persistent_workers=True)
for inputs, targets in loader:
    inputs = inputs.cuda(non_blocking=True)
    targets = targets.cuda(non_blocking=True)
