# find each synchronization in the loop: warn (or "error") on every one
torch.cuda.set_sync_debug_mode("warn")
# keep values on the GPU and read them every N steps, not every step
running_loss += loss.detach()          # instead of loss.item()
if step % log_every == 0:
    log(running_loss.item() / log_every)
    running_loss.zero_()
# copies to the GPU without blocking (the source in pinned memory)
batch = batch.to(device, non_blocking=True)
