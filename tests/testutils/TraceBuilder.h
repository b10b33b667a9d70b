#pragma once
// Builds small TraceModels in tests with one short call per event. Times are in nanoseconds.
//
//   TraceBuilder b;
//   b.device(0, "NVIDIA H100 80GB HBM3", 132);
//   b.range("ProfilerStep#1", 0, 1'000'000);
//   b.kernel("ampere_sgemm_128x64_tn", 10'000, 90'000);           // device 0, stream 7
//   TraceModel model = b.build();                                 // finalized

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::testutils {

class TraceBuilder {
public:
    using TimestampNs = core::TimestampNs;

    TraceBuilder() {
        m_model.metadata.sourceFormat = "synthetic";
        m_model.metadata.synthetic = true;
    }

    TraceBuilder& device(int index, std::string_view name, int smCount = 0, std::int64_t memoryBytes = 0) {
        core::DeviceInfo& d = m_model.deviceOrAdd(index);
        d.name = name;
        d.smCount = smCount;
        d.totalMemoryBytes = memoryBytes;
        return *this;
    }

    core::KernelId kernel(std::string_view name, TimestampNs startNs, TimestampNs endNs, int deviceIndex = 0,
                          int streamId = 7, std::int64_t correlationId = 0) {
        core::KernelRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.deviceIndex = static_cast<std::int16_t>(deviceIndex);
        row.streamId = streamId;
        row.name = m_model.intern(name);
        row.gridX = 0;  // not recorded, unless a test sets it
        row.gridY = row.gridZ = 1;
        row.blockX = 128;
        row.blockY = row.blockZ = 1;
        row.correlationId = correlationId;
        return m_model.kernels.add(row);
    }

    core::MemcpyId memcpy(core::MemcpyKind kind, std::int64_t bytes, TimestampNs startNs, TimestampNs endNs,
                          int deviceIndex = 0, int streamId = 7, std::int64_t correlationId = 0,
                          core::MemoryKind hostKind = core::MemoryKind::Pinned) {
        core::MemcpyRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.deviceIndex = static_cast<std::int16_t>(deviceIndex);
        row.streamId = streamId;
        row.kind = kind;
        row.sizeBytes = bytes;
        row.correlationId = correlationId;
        row.srcKind = kind == core::MemcpyKind::HostToDevice ? hostKind : core::MemoryKind::Device;
        row.dstKind = kind == core::MemcpyKind::DeviceToHost ? hostKind : core::MemoryKind::Device;
        return m_model.memcpys.add(row);
    }

    core::MemsetId memset(std::int64_t bytes, TimestampNs startNs, TimestampNs endNs, int deviceIndex = 0,
                          int streamId = 7) {
        core::MemsetRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.deviceIndex = static_cast<std::int16_t>(deviceIndex);
        row.streamId = streamId;
        row.sizeBytes = bytes;
        return m_model.memsets.add(row);
    }

    core::ApiCallId apiCall(std::string_view name, TimestampNs startNs, TimestampNs endNs,
                            std::int64_t correlationId = 0, std::int64_t tid = 1) {
        core::ApiCallRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.thread = m_model.threadIndex(1, tid);
        row.name = m_model.intern(name);
        row.correlationId = correlationId;
        return m_model.apiCalls.add(row);
    }

    core::RangeId range(std::string_view name, TimestampNs startNs, TimestampNs endNs, std::int64_t tid = 1,
                        core::RangeSource source = core::RangeSource::UserAnnotation) {
        core::RangeRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.source = source;
        row.thread = m_model.threadIndex(1, tid);
        row.name = m_model.intern(name);
        return m_model.ranges.add(row);
    }

    core::CpuOpId cpuOp(std::string_view name, TimestampNs startNs, TimestampNs endNs, std::int64_t tid = 1,
                        std::string_view inputShapes = {}, std::string_view inputTypes = {},
                        std::string_view concreteInputs = {}) {
        core::CpuOpRow row;
        row.startNs = startNs;
        row.endNs = endNs;
        row.thread = m_model.threadIndex(1, tid);
        row.name = m_model.intern(name);
        row.inputShapes = m_model.intern(inputShapes);
        row.inputTypes = m_model.intern(inputTypes);
        row.concreteInputs = m_model.intern(concreteInputs);
        return m_model.cpuOps.add(row);
    }

    // One stack sample at timeNs on thread tid (pid 1). `rootFirst` lists frames outermost first,
    // separated by ';', each "file:function" (the text after the last ':' is the function), e.g.
    // "train.py:main;torch/utils/data/dataloader.py:__next__". Stored leaf first, as the model wants.
    core::StackIndex sample(TimestampNs timeNs, std::string_view rootFirst, std::int64_t tid = 1,
                            std::int64_t pid = 1) {
        std::vector<core::FrameIndex> frames;
        while (!rootFirst.empty()) {
            std::size_t end = rootFirst.find(';');
            std::string_view frame = rootFirst.substr(0, end);
            rootFirst = end == std::string_view::npos ? std::string_view{} : rootFirst.substr(end + 1);
            std::size_t colon = frame.rfind(':');
            std::string_view file =
                colon == std::string_view::npos ? std::string_view{} : frame.substr(0, colon);
            std::string_view function = colon == std::string_view::npos ? frame : frame.substr(colon + 1);
            frames.insert(frames.begin(), m_model.internFrame(file, function, 0));
        }
        core::StackIndex stack = m_model.internStack(frames);
        m_model.stackSamples.add({timeNs, m_model.threadIndex(pid, tid), stack});
        return stack;
    }

    core::TraceModel& model() { return m_model; }

    // Finalizes and hands the model over; the builder is empty afterwards.
    core::TraceModel build() {
        m_model.finalize();
        return std::move(m_model);
    }

private:
    core::TraceModel m_model;
};

}  // namespace chokepoint::testutils
