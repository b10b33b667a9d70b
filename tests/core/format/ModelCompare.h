#pragma once
// Test helpers for the format suite: a model with every field set, and a field-by-field comparison
// of two models (strings compared by text, since pool ids may differ).

#include <gtest/gtest.h>

#include <string>

#include "core/model/TraceModel.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::formattest {

using namespace chokepoint::core;

// A finalized model in which every column, dimension record, counter and stat holds a non-default
// value somewhere. `scale` repeats the event pattern to make several chunks.
inline TraceModel fullModel(int scale = 1) {
    testutils::TraceBuilder b;
    TraceModel& m = b.model();
    DeviceInfo& d = m.deviceOrAdd(0);
    d.name = "NVIDIA H100 80GB HBM3";
    d.vendor = "NVIDIA";
    d.smCount = 132;
    d.totalMemoryBytes = 85'520'809'984;
    d.computeMajor = 9;
    d.computeMinor = 0;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerSm = 2048;
    d.registersPerBlock = 65536;
    d.sharedMemoryPerBlockBytes = 49152;
    d.l2CacheBytes = 52'428'800;
    d.warpSize = 32;
    d.coreClockKhz = 1'980'000;
    d.memoryClockKhz = 2'619'000;
    d.memoryBusWidthBits = 5120;
    m.deviceOrAdd(1).name = "second \"GPU\"";
    m.processes.push_back(ProcessInfo{4242, "python train.py"});
    m.distributed = DistributedInfo{true, 3, 8, "nccl"};
    m.metadata.sourceFormat = "kineto-json";
    m.metadata.sourcePath = "/data/rank3.json.gz";
    m.metadata.producer = "PyTorch Profiler 2.4";
    m.metadata.hostName = "node-17";
    m.metadata.captureStartUnixNs = 1'700'000'000'123'456'789;
    m.metadata.synthetic = true;
    m.metadata.notes = {{"schemaVersion", "1"}, {"bad utf8", std::string("\xff\xfe", 2)}};
    ThreadIndex main = m.threadIndex(4242, 4242, "python");
    ThreadIndex worker = m.threadIndex(4242, 4300, "pt_autograd_0");
    m.streamIndex(0, 7);
    m.streams.back().name = "Compute";

    for (int s = 0; s < scale; ++s) {
        const TimestampNs base = 1'000'000'000'000 + s * 10'000'000;
        RangeRow step;
        step.startNs = base;
        step.endNs = base + 9'000'000;
        step.thread = main;
        step.name = m.intern("ProfilerStep#" + std::to_string(s + 1));
        m.ranges.add(step);
        RangeRow nvtx;
        nvtx.startNs = base + 100;
        nvtx.endNs = base + 5'000'000;
        nvtx.source = RangeSource::Nvtx;
        nvtx.thread = main;
        nvtx.name = m.intern("forward");
        nvtx.domain = m.intern("my_domain");
        m.ranges.add(nvtx);
        RangeRow gpuRange;
        gpuRange.startNs = base + 2000;
        gpuRange.endNs = base + 8'000'000;
        gpuRange.source = RangeSource::GpuUserAnnotation;
        gpuRange.deviceIndex = 0;
        gpuRange.streamId = 7;
        gpuRange.name = m.intern("ProfilerStep#" + std::to_string(s + 1));
        m.ranges.add(gpuRange);

        CpuOpRow op;
        op.startNs = base + 200;
        op.endNs = base + 900'000;
        op.thread = main;
        op.name = m.intern("aten::mm");
        op.category = CpuOpCategory::Operator;
        op.inputShapes = m.intern("[[8, 1024], [1024, 4096]]");
        op.inputTypes = m.intern("[\"float\", \"c10::BFloat16\"]");
        op.concreteInputs = m.intern("[\"\", \"\"]");
        op.externalId = 1000 + s * 3;
        m.cpuOps.add(op);
        CpuOpRow py = op;
        py.startNs = base + 300;
        py.endNs = base + 800'000;
        py.name = m.intern("nn.Module: Linear\t\"x\"\\");
        py.category = CpuOpCategory::PythonFunction;
        py.inputShapes = StringPool::emptyId();
        py.inputTypes = StringPool::emptyId();
        py.concreteInputs = StringPool::emptyId();
        py.externalId = 1001 + s * 3;
        m.cpuOps.add(py);
        CpuOpRow other = op;
        other.thread = worker;
        other.category = CpuOpCategory::Other;
        other.name = m.intern(std::string("weird\x01\xc3(name", 12));
        other.externalId = -5;
        m.cpuOps.add(other);

        ApiCallRow launch;
        launch.startNs = base + 400;
        launch.endNs = base + 5400;
        launch.thread = main;
        launch.name = m.intern("cudaLaunchKernel");
        launch.domain = ApiDomain::Runtime;
        launch.correlationId = 500 + s * 4;
        ApiCallId launchId = m.apiCalls.add(launch);
        ApiCallRow copyCall = launch;
        copyCall.startNs = base + 6000;
        copyCall.endNs = base + 9000;
        copyCall.name = m.intern("cuMemcpyHtoDAsync_v2");
        copyCall.domain = ApiDomain::Driver;
        copyCall.correlationId = 501 + s * 4;
        ApiCallId copyId = m.apiCalls.add(copyCall);
        ApiCallRow setCall = launch;
        setCall.startNs = base + 10'000;
        setCall.endNs = base + 11'000;
        setCall.name = m.intern("cudaMemsetAsync");
        setCall.domain = ApiDomain::Other;
        setCall.correlationId = 502 + s * 4;
        ApiCallId setId = m.apiCalls.add(setCall);
        ApiCallRow syncCall = launch;
        syncCall.startNs = base + 12'000;
        syncCall.endNs = base + 700'000;
        syncCall.thread = worker;
        syncCall.name = m.intern("cudaStreamSynchronize");
        syncCall.correlationId = 503 + s * 4;
        ApiCallId syncId = m.apiCalls.add(syncCall);

        KernelRow k;
        k.startNs = base + 20'000;
        k.endNs = base + 600'000;
        k.deviceIndex = 0;
        k.streamId = 7;
        k.name = m.intern("sm90_xmma_gemm_bf16bf16_bf16f32");
        k.gridX = 132;
        k.gridY = 2;
        k.gridZ = 3;
        k.blockX = 384;
        k.blockY = 4;
        k.blockZ = 5;
        k.registersPerThread = 168;
        k.staticSharedBytes = 1024;
        k.dynamicSharedBytes = 232'448;
        k.correlationId = launch.correlationId;
        k.launchCall = launchId;
        m.kernels.add(k);
        KernelRow k2 = k;
        k2.startNs = base + 610'000;
        k2.endNs = base + 605'000;  // negative duration must round-trip as is
        k2.deviceIndex = 1;
        k2.streamId = -3;
        k2.correlationId = 0;
        k2.launchCall = ApiCallId{};
        m.kernels.add(k2);

        MemcpyRow c;
        c.startNs = base + 30'000;
        c.endNs = base + 40'000;
        c.deviceIndex = 0;
        c.streamId = 8;
        c.kind = MemcpyKind::HostToDevice;
        c.srcKind = MemoryKind::Pageable;
        c.dstKind = MemoryKind::Device;
        c.sizeBytes = 64 << 20;
        c.correlationId = copyCall.correlationId;
        c.launchCall = copyId;
        m.memcpys.add(c);
        MemcpyRow p2p = c;
        p2p.startNs = base + 41'000;
        p2p.kind = MemcpyKind::PeerToPeer;
        p2p.srcKind = MemoryKind::Managed;
        p2p.dstKind = MemoryKind::Pinned;
        p2p.launchCall = ApiCallId{};
        p2p.correlationId = 0;
        m.memcpys.add(p2p);

        MemsetRow ms;
        ms.startNs = base + 50'000;
        ms.endNs = base + 51'000;
        ms.deviceIndex = 0;
        ms.streamId = 7;
        ms.memoryKind = MemoryKind::Device;
        ms.sizeBytes = 4096;
        ms.correlationId = setCall.correlationId;
        ms.launchCall = setId;
        m.memsets.add(ms);

        SyncRow sync;
        sync.startNs = base + 12'100;
        sync.endNs = base + 699'000;
        sync.deviceIndex = 0;
        sync.streamId = 7;
        sync.thread = worker;
        sync.kind = SyncKind::StreamSynchronize;
        sync.correlationId = syncCall.correlationId;
        sync.apiCall = syncId;
        m.syncs.add(sync);
        SyncRow wait = sync;
        wait.startNs = base + 800'000;
        wait.endNs = base + 800'500;
        wait.streamId = -1;
        wait.kind = SyncKind::StreamWaitEvent;
        wait.apiCall = ApiCallId{};
        wait.correlationId = 0;
        m.syncs.add(wait);

        // Stack samples: the main thread in the input pipeline, then in the optimizer step; the
        // autograd thread in native code; one sample with no thread and an empty stack.
        FrameIndex mainFrame = m.internFrame("train.py", "main", 88);
        FrameIndex next =
            m.internFrame("/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", "__next__", 631);
        FrameIndex item = m.internFrame("dataset.py", std::string("__getitem__\xff", 12), -1);
        FrameIndex adamStep = m.internFrame("torch/optim/adamw.py", "step", 0);
        FrameIndex native = m.internFrame("", "at::native::mm", 0);
        StackIndex inData = m.internStack({item, next, mainFrame});
        StackIndex inStep = m.internStack({adamStep, mainFrame});
        StackIndex inNative = m.internStack({native});
        StackIndex empty = m.internStack({});
        m.stackSamples.add({base + 1000, main, inData});
        m.stackSamples.add({base + 2000, main, inData});
        m.stackSamples.add({base + 3000, main, inStep});
        m.stackSamples.add({base + 3000, worker, inNative});
        m.stackSamples.add({base + 4000, kNoThread, empty});
    }

    CounterTrack dram;
    dram.name = "DRAM throughput";
    dram.unit = "%";
    dram.deviceIndex = 0;
    dram.pid = 4242;
    dram.tid = 0;
    for (int i = 0; i < 50 * scale; ++i) {
        dram.timesNs.push_back(1'000'000'000'000 + i * 100'000);
        dram.values.push_back(i * 0.5 - 3.25);
    }
    m.counters.push_back(dram);
    CounterTrack cpu;
    cpu.name = "CPU %";
    cpu.unit = "%";
    cpu.deviceIndex = -1;
    cpu.pid = 4242;
    cpu.tid = 4300;
    cpu.timesNs = {5, 10};
    cpu.values = {1e300, -0.0};
    m.counters.push_back(cpu);

    m.stats.add("import.negative_duration_clamped", Severity::Warning, 3, "kernel x at event 12");
    m.stats.add("import.dropped_records", Severity::DataLoss, 7, "");
    m.stats.add("import.unknown_category", Severity::Info, 1, "cat \"foo\"");
    m.stats.add("import.bad", Severity::Error, 2, "detail");
    return b.build();
}

inline void expectModelsEqual(const TraceModel& a, const TraceModel& b, bool compareStats = true) {
    auto s = [](const TraceModel& m, StringId id) { return std::string(m.text(id)); };
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    for (std::uint32_t i = 0; i < a.kernels.size(); ++i) {
        KernelRow x = a.kernels.row(KernelId{i}), y = b.kernels.row(KernelId{i});
        EXPECT_EQ(x.startNs, y.startNs) << "kernel " << i;
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.streamId, y.streamId);
        EXPECT_EQ(s(a, x.name), s(b, y.name));
        EXPECT_EQ(x.gridX, y.gridX);
        EXPECT_EQ(x.gridY, y.gridY);
        EXPECT_EQ(x.gridZ, y.gridZ);
        EXPECT_EQ(x.blockX, y.blockX);
        EXPECT_EQ(x.blockY, y.blockY);
        EXPECT_EQ(x.blockZ, y.blockZ);
        EXPECT_EQ(x.registersPerThread, y.registersPerThread);
        EXPECT_EQ(x.staticSharedBytes, y.staticSharedBytes);
        EXPECT_EQ(x.dynamicSharedBytes, y.dynamicSharedBytes);
        EXPECT_EQ(x.correlationId, y.correlationId);
        EXPECT_EQ(x.launchCall, y.launchCall) << "kernel " << i;
    }
    ASSERT_EQ(a.memcpys.size(), b.memcpys.size());
    for (std::uint32_t i = 0; i < a.memcpys.size(); ++i) {
        MemcpyRow x = a.memcpys.row(MemcpyId{i}), y = b.memcpys.row(MemcpyId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.streamId, y.streamId);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.srcKind, y.srcKind);
        EXPECT_EQ(x.dstKind, y.dstKind);
        EXPECT_EQ(x.sizeBytes, y.sizeBytes);
        EXPECT_EQ(x.correlationId, y.correlationId);
        EXPECT_EQ(x.launchCall, y.launchCall);
    }
    ASSERT_EQ(a.memsets.size(), b.memsets.size());
    for (std::uint32_t i = 0; i < a.memsets.size(); ++i) {
        MemsetRow x = a.memsets.row(MemsetId{i}), y = b.memsets.row(MemsetId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.streamId, y.streamId);
        EXPECT_EQ(x.memoryKind, y.memoryKind);
        EXPECT_EQ(x.sizeBytes, y.sizeBytes);
        EXPECT_EQ(x.correlationId, y.correlationId);
        EXPECT_EQ(x.launchCall, y.launchCall);
    }
    ASSERT_EQ(a.apiCalls.size(), b.apiCalls.size());
    for (std::uint32_t i = 0; i < a.apiCalls.size(); ++i) {
        ApiCallRow x = a.apiCalls.row(ApiCallId{i}), y = b.apiCalls.row(ApiCallId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.thread, y.thread);
        EXPECT_EQ(s(a, x.name), s(b, y.name));
        EXPECT_EQ(x.domain, y.domain);
        EXPECT_EQ(x.correlationId, y.correlationId);
        EXPECT_EQ(x.cpuOp, y.cpuOp);
    }
    ASSERT_EQ(a.syncs.size(), b.syncs.size());
    for (std::uint32_t i = 0; i < a.syncs.size(); ++i) {
        SyncRow x = a.syncs.row(SyncId{i}), y = b.syncs.row(SyncId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.streamId, y.streamId);
        EXPECT_EQ(x.thread, y.thread);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.correlationId, y.correlationId);
        EXPECT_EQ(x.apiCall, y.apiCall);
    }
    ASSERT_EQ(a.ranges.size(), b.ranges.size());
    for (std::uint32_t i = 0; i < a.ranges.size(); ++i) {
        RangeRow x = a.ranges.row(RangeId{i}), y = b.ranges.row(RangeId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.source, y.source);
        EXPECT_EQ(x.thread, y.thread);
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.streamId, y.streamId);
        EXPECT_EQ(s(a, x.name), s(b, y.name));
        EXPECT_EQ(s(a, x.domain), s(b, y.domain));
        EXPECT_EQ(x.depth, y.depth);
        EXPECT_EQ(x.parent, y.parent);
    }
    ASSERT_EQ(a.cpuOps.size(), b.cpuOps.size());
    for (std::uint32_t i = 0; i < a.cpuOps.size(); ++i) {
        CpuOpRow x = a.cpuOps.row(CpuOpId{i}), y = b.cpuOps.row(CpuOpId{i});
        EXPECT_EQ(x.startNs, y.startNs);
        EXPECT_EQ(x.endNs, y.endNs);
        EXPECT_EQ(x.thread, y.thread);
        EXPECT_EQ(s(a, x.name), s(b, y.name));
        EXPECT_EQ(x.category, y.category);
        EXPECT_EQ(s(a, x.inputShapes), s(b, y.inputShapes));
        EXPECT_EQ(s(a, x.inputTypes), s(b, y.inputTypes));
        EXPECT_EQ(s(a, x.concreteInputs), s(b, y.concreteInputs));
        EXPECT_EQ(x.externalId, y.externalId);
        EXPECT_EQ(x.depth, y.depth);
        EXPECT_EQ(x.parent, y.parent);
    }
    // Stacks by content (file:function:line, leaf first): a streamed file numbers them in order
    // of first use, which may differ from the original model's.
    auto stackText = [&s](const TraceModel& m, StackIndex stack) {
        std::string text = stack < m.stackCount() ? "" : "<none>";
        for (FrameIndex f : m.stack(stack)) {
            const StackFrame& frame = m.stackFrames.at(f);
            text += s(m, frame.file) + ":" + s(m, frame.function) + ":" + std::to_string(frame.line) + ";";
        }
        return text;
    };
    ASSERT_EQ(a.stackSamples.size(), b.stackSamples.size());
    for (std::size_t i = 0; i < a.stackSamples.size(); ++i) {
        EXPECT_EQ(a.stackSamples.timeNs[i], b.stackSamples.timeNs[i]) << "stack sample " << i;
        EXPECT_EQ(a.stackSamples.thread[i], b.stackSamples.thread[i]) << "stack sample " << i;
        EXPECT_EQ(stackText(a, a.stackSamples.stack[i]), stackText(b, b.stackSamples.stack[i]))
            << "stack sample " << i;
    }
    ASSERT_EQ(a.counters.size(), b.counters.size());
    for (std::size_t i = 0; i < a.counters.size(); ++i) {
        EXPECT_EQ(a.counters[i].name, b.counters[i].name);
        EXPECT_EQ(a.counters[i].unit, b.counters[i].unit);
        EXPECT_EQ(a.counters[i].deviceIndex, b.counters[i].deviceIndex);
        EXPECT_EQ(a.counters[i].pid, b.counters[i].pid);
        EXPECT_EQ(a.counters[i].tid, b.counters[i].tid);
        EXPECT_EQ(a.counters[i].timesNs, b.counters[i].timesNs);
        EXPECT_EQ(a.counters[i].values, b.counters[i].values);
    }
    ASSERT_EQ(a.devices.size(), b.devices.size());
    for (std::size_t i = 0; i < a.devices.size(); ++i) {
        const DeviceInfo& x = a.devices[i];
        const DeviceInfo& y = b.devices[i];
        EXPECT_EQ(x.deviceIndex, y.deviceIndex);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.vendor, y.vendor);
        EXPECT_EQ(x.smCount, y.smCount);
        EXPECT_EQ(x.totalMemoryBytes, y.totalMemoryBytes);
        EXPECT_EQ(x.computeMajor, y.computeMajor);
        EXPECT_EQ(x.computeMinor, y.computeMinor);
        EXPECT_EQ(x.maxThreadsPerBlock, y.maxThreadsPerBlock);
        EXPECT_EQ(x.maxThreadsPerSm, y.maxThreadsPerSm);
        EXPECT_EQ(x.registersPerBlock, y.registersPerBlock);
        EXPECT_EQ(x.sharedMemoryPerBlockBytes, y.sharedMemoryPerBlockBytes);
        EXPECT_EQ(x.l2CacheBytes, y.l2CacheBytes);
        EXPECT_EQ(x.warpSize, y.warpSize);
        EXPECT_EQ(x.coreClockKhz, y.coreClockKhz);
        EXPECT_EQ(x.memoryClockKhz, y.memoryClockKhz);
        EXPECT_EQ(x.memoryBusWidthBits, y.memoryBusWidthBits);
    }
    ASSERT_EQ(a.processes.size(), b.processes.size());
    for (std::size_t i = 0; i < a.processes.size(); ++i) {
        EXPECT_EQ(a.processes[i].pid, b.processes[i].pid);
        EXPECT_EQ(a.processes[i].name, b.processes[i].name);
    }
    ASSERT_EQ(a.threads.size(), b.threads.size());
    for (std::size_t i = 0; i < a.threads.size(); ++i) {
        EXPECT_EQ(a.threads[i].pid, b.threads[i].pid);
        EXPECT_EQ(a.threads[i].tid, b.threads[i].tid);
        EXPECT_EQ(a.threads[i].name, b.threads[i].name);
    }
    ASSERT_EQ(a.streams.size(), b.streams.size());
    for (std::size_t i = 0; i < a.streams.size(); ++i) {
        EXPECT_EQ(a.streams[i].deviceIndex, b.streams[i].deviceIndex);
        EXPECT_EQ(a.streams[i].streamId, b.streams[i].streamId);
        EXPECT_EQ(a.streams[i].name, b.streams[i].name);
    }
    EXPECT_EQ(a.distributed.present, b.distributed.present);
    EXPECT_EQ(a.distributed.rank, b.distributed.rank);
    EXPECT_EQ(a.distributed.worldSize, b.distributed.worldSize);
    EXPECT_EQ(a.distributed.backend, b.distributed.backend);
    EXPECT_EQ(a.metadata.sourceFormat, b.metadata.sourceFormat);
    EXPECT_EQ(a.metadata.sourcePath, b.metadata.sourcePath);
    EXPECT_EQ(a.metadata.producer, b.metadata.producer);
    EXPECT_EQ(a.metadata.hostName, b.metadata.hostName);
    EXPECT_EQ(a.metadata.captureStartUnixNs, b.metadata.captureStartUnixNs);
    EXPECT_EQ(a.metadata.synthetic, b.metadata.synthetic);
    EXPECT_EQ(a.metadata.notes, b.metadata.notes);
    if (!compareStats) {
        return;
    }
    ASSERT_EQ(a.stats.entries().size(), b.stats.entries().size());
    for (std::size_t i = 0; i < a.stats.entries().size(); ++i) {
        const TraceStat& x = a.stats.entries()[i];
        const TraceStat& y = b.stats.entries()[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.severity, y.severity);
        EXPECT_EQ(x.count, y.count);
        EXPECT_EQ(x.detail, y.detail);
    }
}

}  // namespace chokepoint::formattest
