# move per-sample work into the Dataset (runs in DataLoader workers) or onto the GPU,
# and batch Python-level loops into tensor operations
loader = torch.utils.data.DataLoader(dataset, num_workers=8, pin_memory=True)
