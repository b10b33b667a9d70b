# the GPU's architecture is unknown: bfloat16 on Ampere or newer, float16 + GradScaler before
scaler = torch.cuda.amp.GradScaler(enabled=USE_FP16)
for inputs, targets in loader:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type='cuda', dtype=torch.float16 if USE_FP16 else torch.bfloat16):
        loss = loss_fn(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
