batch_size = 2 * batch_size              # keep it a multiple of 32/64
for g in optimizer.param_groups:
    g['lr'] = base_lr * batch_size / base_batch_size   # linear scaling rule
