import bitsandbytes as bnb
optimizer = bnb.optim.Adam8bit(model.parameters(), lr=lr)
# or shard parameters, gradients and optimizer state:
model = torch.distributed.fsdp.FullyShardedDataParallel(model)
