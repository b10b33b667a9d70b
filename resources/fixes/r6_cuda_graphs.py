# already compiled: capture the step in CUDA graphs to remove the launches
model = torch.compile(model, mode='reduce-overhead')
