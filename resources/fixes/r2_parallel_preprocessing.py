# move decode/augment out of the main process (the GIL serializes it):
loader = DataLoader(dataset, num_workers=os.cpu_count(), pin_memory=True,
                    worker_init_fn=seed_worker)
# or decode and augment on the GPU, e.g. torchvision.io.decode_jpeg(data, device='cuda')
# or NVIDIA DALI's pipeline
