optimizer = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)
# or foreach=True (the default when every parameter is on the GPU, unless turned off)
