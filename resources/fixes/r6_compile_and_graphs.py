model = torch.compile(model)                  # fuses elementwise/norm chains
# launch-bound loops: capture the step in CUDA graphs
model = torch.compile(model, mode='reduce-overhead')
