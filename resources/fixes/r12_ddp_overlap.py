model = torch.nn.parallel.DistributedDataParallel(
    model, device_ids=[local_rank],
    bucket_cap_mb=25,              # overlap AllReduce of early buckets with backward
    gradient_as_bucket_view=True,
    static_graph=True)
# keep tensor parallelism inside a node (NVLink), data parallelism across nodes
