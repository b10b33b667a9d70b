# custom CUDA kernels: size the grid from the data and the SM count, e.g.
#   blocks = max(num_sms * 4, (n + threads - 1) // threads)
# and use a grid-stride loop inside the kernel; in PyTorch prefer the built-in ops
# (torch.add / torch.addcmul) which size their grids to the device
