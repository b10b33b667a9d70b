# and keep tensors on the GPU: log loss.detach() every N steps instead of loss.item()
