// Importer behaviour on small traces written in the test: both category generations, flows,
// fractional nanoseconds, device properties, distributed info, AMD.

#include "core/import/KinetoJsonImporter.h"

#include <gtest/gtest.h>

#include <string>

using namespace chokepoint::core;

namespace {

TraceModel importOk(const std::string& json) {
    auto result = importKinetoJsonFromMemory(json, "test.json");
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    if (!result.ok()) {
        return TraceModel{};
    }
    return std::move(result).value();
}

const char* kCurrentTrace = R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9,
     "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
     "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 11,
   "ts": 1712195495519000.000, "dur": 1000.5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11,
   "ts": 1712195495519100.047, "dur": 50.001,
   "args": {"External id": 42, "Input Dims": [[8, 1024], [1024, 4096]], "Input type": ["float", "float"],
            "Concrete Inputs": ["", ""]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11,
   "ts": 1712195495519110.5, "dur": 5, "args": {"External id": 42, "cbid": 211, "correlation": 777}},
  {"ph": "s", "id": 777, "pid": 10, "tid": 11, "ts": 1712195495519110.5, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 7,
   "ts": 1712195495519200.25, "dur": 30.125,
   "args": {"External id": 42, "device": 0, "stream": 7, "correlation": 777, "registers per thread": 168,
            "shared memory": 232448, "grid": [132, 1, 1], "block": [384, 1, 1]}},
  {"ph": "f", "id": 777, "pid": 0, "tid": 7, "ts": 1712195495519200.25, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
   "ts": 1712195495519300, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 778, "bytes": 4096}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
   "ts": 1712195495519310, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 779, "bytes": 512}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7,
   "ts": 1712195495519200, "dur": 200},
  {"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1501): _call_impl", "pid": 10,
   "tid": 11, "ts": 1712195495519050, "dur": 100},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 10, "tid": 11, "ts": 1712195495519400,
   "dur": 3, "args": {"correlation": 780}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 10, "tid": 11,
   "ts": 1712195495519500, "dur": 20, "args": {"correlation": 781}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 11, "ts": 1712195495519001, "s": "t"},
  {"ph": "C", "name": "GPU Memory", "pid": 0, "ts": 1712195495519002, "args": {"Allocated": 1024}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 10, "tid": 0, "args": {"name": "python"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 10, "tid": 11, "args": {"name": "thread 11 (python)"}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "python"}},
  {"name": "process_labels", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "X", "cat": "Trace", "ts": 1712195495519000, "dur": 13896, "pid": "Traces", "tid": "PyTorch Profiler",
   "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1712195495520000}
  ],
  "traceName": "x.json",
  "displayTimeUnit": "ns",
  "baseTimeNanoseconds": 1735632360000000000,
  "trace_id": "ABC"
})JSON";

}  // namespace

TEST(KinetoJsonImporter, CurrentCategories) {
    TraceModel m = importOk(kCurrentTrace);
    ASSERT_TRUE(m.finalized());
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.text(m.kernels.name[0]), "sm90_gemm");
    EXPECT_EQ(m.kernels.startNs[0], 1712195495519200250);
    EXPECT_EQ(m.kernels.endNs[0], 1712195495519230375);
    EXPECT_EQ(m.kernels.streamId[0], 7);
    EXPECT_EQ(m.kernels.gridX[0], 132);
    EXPECT_EQ(m.kernels.blockX[0], 384);
    EXPECT_EQ(m.kernels.registersPerThread[0], 168);
    EXPECT_EQ(m.kernels.staticSharedBytes[0], 232448);
    EXPECT_EQ(m.kernels.correlationId[0], 777);
    ASSERT_TRUE(m.kernels.launchCall[0].valid());
    EXPECT_EQ(m.text(m.apiCalls.name[m.kernels.launchCall[0].index]), "cudaLaunchKernel");

    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.kind[0], MemcpyKind::HostToDevice);
    EXPECT_EQ(m.memcpys.srcKind[0], MemoryKind::Pageable);
    EXPECT_EQ(m.memcpys.dstKind[0], MemoryKind::Device);
    EXPECT_EQ(m.memcpys.sizeBytes[0], 4096);
    ASSERT_EQ(m.memsets.size(), 1u);
    EXPECT_EQ(m.memsets.memoryKind[0], MemoryKind::Device);
    EXPECT_EQ(m.memsets.sizeBytes[0], 512);

    ASSERT_EQ(m.apiCalls.size(), 3u);
    std::size_t drivers = 0;
    for (std::size_t i = 0; i < m.apiCalls.size(); ++i) {
        drivers += m.apiCalls.domain[i] == ApiDomain::Driver;
    }
    EXPECT_EQ(drivers, 1u);
    ASSERT_EQ(m.syncs.size(), 1u);
    EXPECT_EQ(m.syncs.kind[0], SyncKind::StreamSynchronize);
    EXPECT_TRUE(m.syncs.apiCall[0].valid());

    ASSERT_EQ(m.cpuOps.size(), 2u);  // aten::mm + python function
    std::size_t python = 0;
    for (std::size_t i = 0; i < m.cpuOps.size(); ++i) {
        if (m.cpuOps.category[i] == CpuOpCategory::PythonFunction) {
            ++python;
        } else {
            EXPECT_EQ(m.text(m.cpuOps.name[i]), "aten::mm");
            EXPECT_EQ(m.text(m.cpuOps.inputShapes[i]), "[[8, 1024], [1024, 4096]]");
            EXPECT_EQ(m.text(m.cpuOps.inputTypes[i]), "[\"float\", \"float\"]");
            EXPECT_EQ(m.text(m.cpuOps.concreteInputs[i]), "[\"\", \"\"]");
            EXPECT_EQ(m.cpuOps.externalId[i], 42);
            EXPECT_EQ(m.cpuOps.startNs[i], 1712195495519100047);
        }
    }
    EXPECT_EQ(python, 1u);

    ASSERT_EQ(m.ranges.size(), 2u);
    std::size_t gpuRanges = 0;
    for (std::size_t i = 0; i < m.ranges.size(); ++i) {
        EXPECT_EQ(m.text(m.ranges.name[i]), "ProfilerStep#7");
        if (m.ranges.source[i] == RangeSource::GpuUserAnnotation) {
            ++gpuRanges;
            EXPECT_EQ(m.ranges.deviceIndex[i], 0);
            EXPECT_EQ(m.ranges.streamId[i], 7);
        } else {
            EXPECT_EQ(m.ranges.endNs[i] - m.ranges.startNs[i], 1000500);
        }
    }
    EXPECT_EQ(gpuRanges, 1u);

    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(m.devices[0].vendor, "NVIDIA");
    EXPECT_EQ(m.devices[0].smCount, 132);
    EXPECT_EQ(m.devices[0].computeMajor, 9);
    EXPECT_EQ(m.devices[0].totalMemoryBytes, 85018279936);
    EXPECT_EQ(m.devices[0].maxThreadsPerSm, 2048);
    EXPECT_TRUE(m.distributed.present);
    EXPECT_EQ(m.distributed.rank, 3);
    EXPECT_EQ(m.distributed.worldSize, 8);
    EXPECT_EQ(m.distributed.backend, "nccl");
    EXPECT_EQ(m.metadata.captureStartUnixNs, 1735632360000000000);
    EXPECT_EQ(m.metadata.sourceFormat, "kineto-json");

    ASSERT_EQ(m.counters.size(), 1u);
    EXPECT_EQ(m.counters[0].name, "GPU Memory");
    EXPECT_EQ(m.counters[0].values[0], 1024.0);

    // "Record Window End"; the "[memory]" event is a memory event, here without its args.
    EXPECT_EQ(m.stats.count("import.instant_events"), 1);
    EXPECT_EQ(m.stats.count("import.cpu_instant_events"), 0);
    EXPECT_EQ(m.stats.count("import.unusable_memory_event"), 1);
    EXPECT_EQ(m.stats.count("import.unknown_category"), 0);
    bool sawProcess = false;
    for (const ProcessInfo& p : m.processes) {
        sawProcess = sawProcess || (p.pid == 10 && p.name == "python");
    }
    EXPECT_TRUE(sawProcess);
    bool sawThread = false;
    for (const ThreadInfo& t : m.threads) {
        sawThread = sawThread || (t.pid == 10 && t.tid == 11 && t.name == "thread 11 (python)");
    }
    EXPECT_TRUE(sawThread);
    // The GPU pseudo-process is not a host process; its thread_name names the stream.
    for (const ProcessInfo& p : m.processes) {
        EXPECT_NE(p.pid, 0);
    }
    for (const ThreadInfo& t : m.threads) {
        EXPECT_NE(t.pid, 0);
    }
    bool sawStream = false;
    for (const StreamInfo& s : m.streams) {
        sawStream = sawStream || (s.deviceIndex == 0 && s.streamId == 7 && s.name == "stream 7");
    }
    EXPECT_TRUE(sawStream);
}

TEST(KinetoJsonImporter, LegacyCategoriesWithAsyncFlowsAndComputeProperties) {
    const char* json = R"JSON({
  "schemaVersion": 1,
  "computeProperties": [
    {"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416, "major": 7, "minor": 0,
     "maxThreadsPerBlock": 1024, "maxThreadsPerMultiProcessor": 2048, "multiProcessorCount": 80}
  ],
  "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 24572, "tid": "24572", "ts": 1000, "dur": 500},
  {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 24572, "tid": "24572", "ts": 1010, "dur": 20,
   "args": {"Device": 24572, "external id": 9}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 24572, "tid": "24572", "ts": 1015, "dur": 4,
   "args": {"cbid": 211, "correlation": 333, "external id": 9}},
  {"ph": "s", "id": 333, "pid": 24572, "tid": 24572, "ts": 1015, "cat": "async", "name": "launch"},
  {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": "stream 7", "ts": 1030, "dur": 3,
   "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 333, "external id": 9,
            "registers per thread": 72, "shared memory": 13824, "grid": [1, 2, 1], "block": [128, 1, 1]}},
  {"ph": "f", "id": 333, "pid": 0, "tid": "stream 7", "ts": 1030, "cat": "async", "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": "stream 7",
   "ts": 1040, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 334, "bytes": 640}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7",
   "ts": 1045, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 335, "bytes": 64}}
  ]
})JSON";
    TraceModel m = importOk(json);
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.kernels.startNs[0], 1030000);
    EXPECT_EQ(m.kernels.streamId[0], 7);
    EXPECT_EQ(m.kernels.gridY[0], 2);
    EXPECT_TRUE(m.kernels.launchCall[0].valid());
    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.kind[0], MemcpyKind::DeviceToHost);
    EXPECT_EQ(m.memcpys.srcKind[0], MemoryKind::Device);
    EXPECT_EQ(m.memcpys.dstKind[0], MemoryKind::Pinned);
    EXPECT_EQ(m.memsets.size(), 1u);
    ASSERT_EQ(m.cpuOps.size(), 1u);
    EXPECT_EQ(m.cpuOps.externalId[0], 9);
    ASSERT_EQ(m.apiCalls.size(), 1u);
    ASSERT_TRUE(m.apiCalls.cpuOp[0].valid());  // cudaLaunchKernel inside aten::add
    EXPECT_EQ(m.text(m.cpuOps.name[m.apiCalls.cpuOp[0].index]), "aten::add");
    ASSERT_EQ(m.ranges.size(), 1u);  // ProfilerStep#3 becomes a range, not an op
    EXPECT_EQ(m.text(m.ranges.name[0]), "ProfilerStep#3");
    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].computeMajor, 7);
    EXPECT_EQ(m.devices[0].smCount, 80);
    EXPECT_EQ(m.devices[0].maxThreadsPerSm, 2048);
    EXPECT_EQ(m.devices[0].vendor, "NVIDIA");
    EXPECT_FALSE(m.distributed.present);
}

TEST(KinetoJsonImporter, FlowsLinkEventsThatLackCorrelation) {
    // Neither the launch call nor the kernel has a "correlation" arg; the ac2g flow links them.
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10.5, "dur": 2},
  {"ph": "s", "id": 91, "pid": 1, "tid": 1, "ts": 10.5, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 91, "pid": 0, "tid": 7, "ts": 20.25, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20.25, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 30, "dur": 1}
]})JSON";
    TraceModel m = importOk(json);
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.kernels.correlationId[0], 91);
    EXPECT_TRUE(m.kernels.launchCall[0].valid());
    EXPECT_FALSE(m.kernels.launchCall[1].valid());
    EXPECT_EQ(m.kernels.deviceIndex[0], 0);  // pid of a GPU event is its device
    EXPECT_EQ(m.kernels.streamId[0], 7);     // tid is its stream
    EXPECT_EQ(m.stats.count("import.correlation_from_flow"), 2);
    EXPECT_EQ(m.stats.count("correlation.gpu_event_without_launch_call"), 1);
}

TEST(KinetoJsonImporter, AmdHipTrace) {
    const char* json = R"JSON({
  "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992,
    "computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304}],
  "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5, "ts": 1, "dur": 2,
   "args": {"correlation": 7, "stream": "0x0"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipDeviceSynchronize", "pid": 5, "tid": 5, "ts": 4, "dur": 9,
   "args": {"correlation": 8}},
  {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk", "pid": 0, "tid": 0, "ts": 3, "dur": 5,
   "args": {"device": 0, "stream": 0, "correlation": 7, "kind": "Dispatch Kernel"}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 0, "tid": 0, "ts": 14, "dur": 1,
   "args": {"device": 0, "stream": 0, "correlation": 9, "kind": "HtoD"}}
]})JSON";
    TraceModel m = importOk(json);
    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].vendor, "AMD");
    EXPECT_EQ(m.devices[0].warpSize, 64);
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_TRUE(m.kernels.launchCall[0].valid());
    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.kind[0], MemcpyKind::HostToDevice);
    EXPECT_EQ(m.memcpys.srcKind[0], MemoryKind::Unknown);  // "Host" does not say pinned or pageable
    ASSERT_EQ(m.syncs.size(), 1u);
    EXPECT_EQ(m.syncs.kind[0], SyncKind::DeviceSynchronize);
}

TEST(KinetoJsonImporter, FractionalNanosecondsAndLargeTimestamps) {
    const char* json = R"JSON({"displayTimeUnit": "ns", "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 9007199254740993.001, "dur": 0.0005,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 1.5e1, "dur": 2.0004,
   "args": {"device": 0, "stream": 7, "correlation": 2}}
]})JSON";
    TraceModel m = importOk(json);
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.kernels.startNs[0], 15000);
    EXPECT_EQ(m.kernels.endNs[0], 17000);
    // 2^53 + 1 microseconds: a double would round this to 2^53.
    EXPECT_EQ(m.kernels.startNs[1], 9007199254740993001);
    EXPECT_EQ(m.kernels.endNs[1], 9007199254740993002);
}

TEST(KinetoJsonImporter, CudaSyncEventsAndCountersAndArrayFormat) {
    // The bare-array Chrome format, with Kineto cuda_sync events (which replace API-derived syncs).
    const char* json = R"JSON([
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 1, "dur": 10,
   "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 2, "dur": 8,
   "args": {"device": 0, "stream": 7, "correlation": 5}},
  {"ph": "C", "name": "util", "pid": 0, "ts": 1, "args": {"sm": 50.5, "dram": 20}},
  {"ph": "C", "name": "util", "pid": 0, "ts": 2, "args": {"sm": 60, "dram": 30}}
])JSON";
    TraceModel m = importOk(json);
    ASSERT_EQ(m.syncs.size(), 1u);
    EXPECT_EQ(m.syncs.kind[0], SyncKind::StreamSynchronize);
    EXPECT_EQ(m.syncs.streamId[0], 7);
    EXPECT_TRUE(m.syncs.apiCall[0].valid());
    ASSERT_EQ(m.counters.size(), 2u);
    EXPECT_EQ(m.counters[0].name, "util.sm");
    ASSERT_EQ(m.counters[0].values.size(), 2u);
    EXPECT_EQ(m.counters[0].values[0], 50.5);
    EXPECT_EQ(m.counters[1].name, "util.dram");
}

TEST(KinetoJsonImporter, EventsSpanningManyBufferRefills) {
    // More than the reader's 8 MiB window, with one event larger than the window, so batches are
    // cut mid-event and the buffer has to grow once.
    std::string json = "{\"traceEvents\": [\n";
    const int kEvents = 60000;
    for (int i = 0; i < kEvents; ++i) {
        json += "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_with_a_long_templated_name<" +
                std::to_string(i % 97) + ">\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(1000 + i) +
                ".125, \"dur\": 0.5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": " +
                std::to_string(i + 1) + ", \"grid\": [1, 1, 1], \"block\": [256, 1, 1]}},\n";
        if (i == kEvents / 2) {
            json += "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + std::string(9 << 20, 'x') +
                    "\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1},\n";
        }
    }
    json += "  {\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 1}\n]}\n";
    ASSERT_GT(json.size(), std::size_t{16} << 20);
    TraceModel m = importOk(json);
    ASSERT_EQ(m.kernels.size(), std::size_t(kEvents));
    ASSERT_EQ(m.cpuOps.size(), 1u);
    EXPECT_EQ(m.text(m.cpuOps.name[0]).size(), std::size_t{9} << 20);
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        ASSERT_EQ(m.kernels.startNs[i], TimestampNs(1000 + i) * 1000 + 125);
        ASSERT_EQ(m.kernels.correlationId[i], std::int64_t(i + 1));
    }
    EXPECT_EQ(m.stats.count("import.instant_events"), 1);
}

TEST(KinetoJsonImporter, ProgressIsReportedAndCancelStops) {
    std::string json = "{\"traceEvents\": [";
    for (int i = 0; i < 1000; ++i) {
        json += std::string(i ? "," : "") +
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, " +
                "\"tid\": 1, \"ts\": " + std::to_string(i) + ", \"dur\": 1}";
    }
    json += "]}";
    int calls = 0;
    LoadOptions options;
    options.progress = [&calls](double fraction) {
        EXPECT_GE(fraction, 0.0);
        EXPECT_LE(fraction, 1.0);
        ++calls;
        return true;
    };
    auto ok = importKinetoJsonFromMemory(json, "p.json", options);
    ASSERT_TRUE(ok.ok());
    EXPECT_GT(calls, 0);
    options.progress = [](double) { return false; };
    auto cancelled = importKinetoJsonFromMemory(json, "p.json", options);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().message, kCancelledMessage);
}

TEST(KinetoJsonImporter, OtherKinetoCategories) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "overhead", "name": "CUPTI Overhead", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
  {"ph": "X", "cat": "xpu_runtime", "name": "urEnqueueKernelLaunch", "pid": 1, "tid": 1, "ts": 3, "dur": 2,
   "args": {"correlation": 4}},
  {"ph": "X", "cat": "CUDA_RUNTIME", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 6, "dur": 2,
   "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_profiler_range", "name": "range", "pid": 1, "tid": 1, "ts": 1, "dur": 20},
  {"ph": "B", "name": "begin", "pid": 1, "tid": 1, "ts": 1}
]})JSON";
    TraceModel m = importOk(json);
    EXPECT_EQ(m.stats.count("import.profiler_overhead_events"), 1);
    ASSERT_EQ(m.apiCalls.size(), 2u);
    EXPECT_EQ(m.apiCalls.domain[0], ApiDomain::Other);
    EXPECT_EQ(m.apiCalls.domain[1], ApiDomain::Runtime);  // categories match case-insensitively
    EXPECT_EQ(m.stats.count("import.unknown_category"), 0);
    EXPECT_EQ(m.stats.count("import.unsupported_phase"), 1);
    // Counter mode (CUPTI range profiler): the records are named, and the trace is not called a
    // CPU-only capture.
    EXPECT_EQ(m.stats.count("import.range_profiler_records"), 1);
    const TraceStat* noGpu = m.stats.find("import.no_gpu_events");
    ASSERT_NE(noGpu, nullptr);
    EXPECT_NE(noGpu->detail.find("counter mode"), std::string::npos) << noGpu->detail;
    EXPECT_EQ(noGpu->detail.find("CPU-only"), std::string::npos) << noGpu->detail;
}
