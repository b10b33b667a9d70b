#!/usr/bin/env python3
"""Writes the synthetic Kineto 2025-2026 fixture traces of this folder (see README.md).

Shapes follow pytorch/kineto libkineto/src/output_json.cpp (ChromeTraceLogger) and
libkineto/include/MetadataFieldCatalog.h at commit 114171dfba6867d2a898634670d9a3197dbb9595
(2026-08-20). Run from this folder; the output is deterministic.
"""
import json

BASE_NS = 1_780_000_000_000_000_000  # baseTimeNanoseconds: ts below are relative to it


def us(ns):
    # Kineto's fmtTs: "<us>.<ns%1000 in 3 digits>"
    return f"{ns // 1000}.{ns % 1000:03d}"


class Trace:
    def __init__(self, unit="ms", extra_meta=None):
        self.events = []
        self.unit = unit
        self.meta = extra_meta or {}

    def raw(self, text):
        self.events.append(text)

    def x(self, cat, name, pid, tid, ts_ns, dur_ns, args=None):
        a = "" if not args else ', "args": ' + json.dumps(args)
        self.raw(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {pid}, "tid": {tid}, '
                 f'"ts": {us(ts_ns)}, "dur": {us(dur_ns)}{a}}}')

    def m(self, name, pid, tid, key, value):
        self.raw(f'{{"ph": "M", "name": "{name}", "ts": 0.000, "pid": {pid}, "tid": {tid}, '
                 f'"args": {{"{key}": {json.dumps(value)}}}}}')

    def counter(self, name, pid, tid, ts_ns, value):
        self.raw(f'{{"ph": "C", "cat": "hardware_counters", "name": "{name}", "pid": {json.dumps(pid)}, '
                 f'"tid": {tid}, "ts": {us(ts_ns)}, "args": {{"": {value}}}}}')

    def write(self, path, dist=None):
        head = ['"schemaVersion": 1',
                '"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, '
                '"computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, '
                '"maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32, '
                '"sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536, '
                '"sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}]']
        for k, v in self.meta.items():
            head.append(f'"{k}": {json.dumps(v)}')
        head.append(f'"displayTimeUnit": "{self.unit}"')
        head.append(f'"baseTimeNanoseconds": {BASE_NS}')
        body = ",\n  ".join(self.events)
        tail = ""
        if dist:
            tail += f'"distributedInfo": {json.dumps(dist)},'
        tail += f'"traceName": "{path}"'
        with open(path, "w") as f:
            f.write("{\n  " + ",\n  ".join(head) + ',\n  "traceEvents": [\n  ' + body + "\n  ],\n  " + tail + "\n}\n")


def labels(t, host_pid, tid):
    t.m("process_name", host_pid, 0, "name", "python3")
    t.m("process_labels", host_pid, 0, "labels", "")
    t.m("thread_name", host_pid, tid, "name", f"thread {tid} (python3)")
    t.m("process_name", 0, 0, "name", "python3")
    t.m("process_labels", 0, 0, "labels", "GPU 0")
    t.m("thread_name", 0, 7, "name", "stream 7 ")
    t.m("thread_name", 0, 20, "name", "stream 20 ")


def kernel_args(corr, stream=7, occupancy=True):
    a = {"External id": corr, "queued": 0, "device": 0, "context": 1, "stream": stream, "correlation": corr,
         "registers per thread": 128, "shared memory": 98304, "blocks per SM": 1.0, "warps per SM": 4.0,
         "grid": [132, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 13}
    if occupancy:
        a["occupancy"] = {"activeBlocksPerMultiprocessor": 2, "limitingFactors": "REGS|SMEM",
                          "blockLimitRegs": 4, "blockLimitSharedMem": 2, "blockLimitWarps": 16,
                          "blockLimitBlocks": 32, "blockLimitBarriers": 32,
                          "allocatedRegistersPerBlock": 16384, "allocatedSharedMemPerBlock": 98304}
    return a


def comms_id(seq):
    # Stand-in for Kineto's hash of (pg name, seq, p2p, rank start/stride, world size): the same on
    # both ranks, different per call, and above 2^63 to exercise the unsigned read.
    return (0x9E3779B97F4A7C15 * (seq + 1)) % (1 << 64) | (1 << 63)


def rank_trace(rank, path, clock_offset_ns, late_data_ns):
    """4 steps, each: DataLoader, 3 GEMMs, one NCCL all-reduce that ends together on both ranks."""
    t = Trace(extra_meta={"PT_PROFILER_JOB_NAME": "llama-pretrain", "PT_PROFILER_JOB_VERSION": "7",
                    "PT_PROFILER_JOB_ATTEMPT_INDEX": "0", "host_name": f"node-{rank}"})
    hp, tid = 4242 + rank, 4242 + rank
    labels(t, hp, tid)
    off = clock_offset_ns
    clock = 1_000_000
    corr = 1
    for step in range(4):
        start = clock
        data = 2_000_000 + (late_data_ns if rank == 1 else 0)
        t.x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", hp, tid,
            start + off, data)
        host = start + data
        gpu = host
        for _ in range(3):
            t.x("cpu_op", "aten::mm", hp, tid, host + off, 20_000, {"External id": corr, "Record function id": 0,
                                                                   "Sequence number": corr, "Fwd thread id": 0})
            t.x("cuda_runtime", "cudaLaunchKernel", hp, tid, host + 5_000 + off, 8_000,
                {"External id": corr, "cbid": 211, "correlation": corr})
            gpu = max(gpu, host + 15_000)
            t.x("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", 0, 7, gpu + off, 3_000_000,
                kernel_args(corr))
            gpu += 3_000_000
            host += 30_000
            corr += 1
        arrival = gpu
        last_arrival = arrival + (0 if rank == 1 else late_data_ns)
        end = last_arrival + 1_500_000
        seq = step
        coll = {"Collective name": "allreduce", "In msg nelems": 67108864, "Out msg nelems": 67108864,
                "Group size": 2, "dtype": "BFloat16", "Process Group Name": "0",
                "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]", "Rank": rank,
                "Seq": seq, "Comms Id": comms_id(seq)}
        t.x("cpu_op", "record_param_comms", hp, tid, host + off, 10_000, dict({"External id": corr}, **coll))
        t.x("cuda_runtime", "cudaLaunchKernel", hp, tid, host + 2_000 + off, 8_000,
            {"External id": corr, "cbid": 211, "correlation": corr})
        kargs = kernel_args(corr, stream=20, occupancy=False)
        kargs.update({k: v for k, v in coll.items() if k != "Rank"})
        t.x("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 20,
            arrival + off, end - arrival, kargs)
        corr += 1
        clock = end + 100_000
        t.x("user_annotation", f"ProfilerStep#{10 + step}", hp, tid, start + off, clock - start,
            {"External id": 0})
    dist = {"backend": "nccl", "rank": rank, "world_size": 2, "pg_count": 1,
            "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 2,
                           "ranks": "[0, 1]"}], "nccl_version": "unknown"}
    t.write(path, dist)


def sync_trace(path):
    """Stream Sync on Kineto's virtual row (tid stream + 1,000,000), cudaEvent markers, cuMem* driver
    calls and kernels with occupancy limiting factors."""
    t = Trace()
    hp = tid = 777
    labels(t, hp, tid)
    t.m("thread_name", 0, 1_000_007, "name", "stream 7 (sync)")
    t.m("thread_sort_index", 0, 1_000_007, "sort_index", 7)
    t.x("cuda_driver", "cuMemCreate", hp, tid, 900_000, 40_000, {"cbid": 584, "correlation": 90})
    t.x("cuda_driver", "cuMemMap", hp, tid, 950_000, 10_000, {"cbid": 588, "correlation": 91})
    t.x("cuda_driver", "cuMemSetAccess", hp, tid, 965_000, 5_000, {"cbid": 590, "correlation": 92})
    for i in range(3):
        base = 1_000_000 + i * 5_000_000
        corr = 100 + i * 10
        t.x("cuda_runtime", "cudaLaunchKernel", hp, tid, base, 8_000, {"cbid": 211, "correlation": corr})
        t.x("kernel", "void gemm_kernel<128>(float*)", 0, 7, base + 20_000, 3_000_000, kernel_args(corr))
        t.x("cuda_runtime", "cudaEventRecord", hp, tid, base + 10_000, 3_000, {"cbid": 135, "correlation": corr + 1})
        t.x("cuda_event", "cudaEvent", 0, 7, base + 3_020_000, 1, {"event_id": 5 + i, "stream": 7,
                                                                    "correlation": corr + 1, "device": 0})
        t.x("cuda_runtime", "cudaStreamSynchronize", hp, tid, base + 50_000, 2_980_000,
            {"cbid": 131, "correlation": corr + 2})
        t.x("cuda_sync", "Stream Sync", 0, 1_000_007, base + 60_000, 2_965_000,
            {"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": corr + 2, "device": 0, "context": 1})
    # A sync row without args.stream (older typed writers): the stream comes from the virtual tid.
    t.x("cuda_sync", "Stream Sync", 0, 1_000_007, 16_500_000, 100_000, {"correlation": 999})
    t.write(path)


def pm_trace(path):
    """Kernels plus CUPTI PM-sampling counters (pid "GPU 0 Counters", one "C" event per metric per sample)."""
    t = Trace()
    hp = tid = 555
    labels(t, hp, tid)
    for s in range(3):
        start = 1_000_000 + s * 10_000_000
        t.x("user_annotation", f"ProfilerStep#{s}", hp, tid, start, 10_000_000)
        for k in range(3):
            corr = 10 * s + k + 1
            t.x("cuda_runtime", "cudaLaunchKernel", hp, tid, start + k * 3_000_000, 8_000,
                {"cbid": 211, "correlation": corr})
            t.x("kernel", "void elementwise_kernel<128, 4>(int, float*)", 0, 7, start + k * 3_000_000 + 20_000,
                2_900_000, kernel_args(corr, occupancy=False))
    metrics = [("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 82.5),
               ("sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", 4.0),
               ("sm__cycles_active.avg.pct_of_peak_sustained_elapsed", 91.0),
               ("dram__bytes_read.sum", 3.2e9),
               ("lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 40.0)]
    for i in range(30):
        ts = 1_000_000 + i * 1_000_000
        for name, value in metrics:
            t.counter(name, "GPU 0 Counters", 0, ts, value)
    t.write(path)


def ns_trace(path):
    """displayTimeUnit "ns": ts still in microseconds (3 decimals), no WARNING/ERROR arrays."""
    t = Trace(unit="ns", extra_meta={"PT_PROFILER_JOB_NAME": "ns-check", "host_name": "node-ns"})
    hp = tid = 321
    labels(t, hp, tid)
    t.x("cuda_runtime", "cudaLaunchKernel", hp, tid, 1_000_123, 4_567, {"cbid": 211, "correlation": 1})
    t.x("kernel", "void tiny_kernel(float*)", 0, 7, 1_010_001, 1_999, kernel_args(1, occupancy=False))
    t.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, 1_020_005, 777,
        {"device": 0, "context": 1, "stream": 7, "correlation": 2, "bytes": 4096, "memory bandwidth (GB/s)": 5.27})
    t.write(path)


if __name__ == "__main__":
    rank_trace(0, "comms-rank0.pt.trace.json", 0, 4_000_000)
    rank_trace(1, "comms-rank1.pt.trace.json", 5_000_000_000, 4_000_000)
    sync_trace("sync-rows.pt.trace.json")
    pm_trace("pm-sampling.pt.trace.json")
    ns_trace("ns-units.pt.trace.json")
