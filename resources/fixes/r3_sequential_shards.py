# read large sequential shards instead of many small random files, e.g. WebDataset:
dataset = wds.WebDataset('data-{000000..000999}.tar').shuffle(1000).decode('torchrgb')
loader = DataLoader(dataset, batch_size=batch_size, num_workers=8, pin_memory=True)
