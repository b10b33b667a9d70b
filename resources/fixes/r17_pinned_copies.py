# page-locked host buffers allow asynchronous H2D copies that overlap compute:
loader = DataLoader(dataset, batch_size=batch_size, pin_memory=True, num_workers=4)
x = x.to('cuda', non_blocking=True)
# fewer, larger transfers: copy one contiguous batch instead of many small tensors
batch = torch.stack(samples).pin_memory().to('cuda', non_blocking=True)
# keep tensors on the GPU between steps instead of .cpu()/.item() round trips
