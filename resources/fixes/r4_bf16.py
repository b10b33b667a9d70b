for inputs, targets in loader:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type='cuda', dtype=torch.bfloat16):  # {arch} supports bfloat16: no GradScaler
        loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
# FP32 matmuls left over: torch.backends.cuda.matmul.allow_tf32 = True
