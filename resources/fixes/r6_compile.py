model = torch.compile(model)                  # fuses elementwise/norm chains
