// libFuzzer target for the .cptrace reader and the streaming chunk decoder.
//
// The input is read twice: as a whole file (readCptraceFromMemory) and through
// CptraceChunkDecoder fed in pieces whose sizes come from the input's first byte, so the
// incremental path (frames split across feed() calls) is fuzzed too. Every input must either load
// or return an Error; a crash, hang, leak or sanitizer report is a bug.
//
// Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which makes the decoder ignore CRC
// mismatches, so mutated chunks reach the protobuf and column decoding instead of stopping at the
// checksum. Seeds: with CHOKEPOINT_CPTRACE_SEED_DIR=DIR set, the target first writes a few valid
// .cptrace files (one to many chunks, raw and compressed) into DIR; pass DIR as its corpus.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "core/format/CptraceChunkDecoder.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "core/model/TraceModel.h"

namespace {

using namespace chokepoint::core;

// A small model with every table, a counter and stats, for seed files.
TraceModel seedModel(int rows) {
    TraceModel m;
    m.deviceOrAdd(0).name = "GPU";
    m.distributed = DistributedInfo{true, 0, 2, "nccl"};
    m.metadata.sourceFormat = "synthetic";
    m.metadata.notes = {{"k", "v"}};
    ThreadIndex t = m.threadIndex(1, 1, "main");
    for (int i = 0; i < rows; ++i) {
        const TimestampNs base = i * 1000;
        ApiCallRow call{base, base + 10, t, m.intern("cudaLaunchKernel"), ApiDomain::Runtime, i + 1, {}};
        ApiCallId callId = m.apiCalls.add(call);
        KernelRow k;
        k.startNs = base + 20;
        k.endNs = base + 500;
        k.name = m.intern("kernel_" + std::to_string(i % 3));
        k.gridX = 4;
        k.blockX = 128;
        k.correlationId = i + 1;
        k.launchCall = callId;
        m.kernels.add(k);
        m.memcpys.add(MemcpyRow{base + 600,
                                base + 700,
                                0,
                                7,
                                MemcpyKind::HostToDevice,
                                MemoryKind::Pinned,
                                MemoryKind::Device,
                                4096,
                                0,
                                {}});
        m.memsets.add(MemsetRow{base + 710, base + 720, 0, 7, MemoryKind::Device, 64, 0, {}});
        m.syncs.add(SyncRow{base + 730, base + 740, 0, 7, t, SyncKind::StreamSynchronize, 0, {}});
        RangeRow r;
        r.startNs = base;
        r.endNs = base + 900;
        r.thread = t;
        r.name = m.intern("ProfilerStep#" + std::to_string(i));
        m.ranges.add(r);
        CpuOpRow op;
        op.startNs = base + 1;
        op.endNs = base + 15;
        op.thread = t;
        op.name = m.intern("aten::mm");
        op.inputShapes = m.intern("[[2, 2]]");
        m.cpuOps.add(op);
    }
    CounterTrack c;
    c.name = "SM active";
    c.timesNs = {0, 100};
    c.values = {0.5, 0.75};
    m.counters.push_back(c);
    m.stats.add("import.example", Severity::Warning, 2, "x");
    m.finalize();
    return m;
}

void writeSeeds(const char* dir) {
    int n = 0;
    for (int rows : {0, 1, 5, 40}) {
        for (bool compress : {false, true}) {
            CptraceWriteOptions options;
            options.rowsPerChunk = 16;
            options.compress = compress;
            std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++) + ".cptrace", std::ios::binary)
                << encodeCptrace(seedModel(rows), options);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("CHOKEPOINT_CPTRACE_SEED_DIR")) {
        writeSeeds(dir);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    Result<TraceModel> whole = readCptraceFromMemory(bytes, "fuzz.cptrace");
    if (whole.ok()) {
        (void)whole->timeSpan();
    }

    TraceModel model;
    CptraceChunkDecoder decoder(model, "fuzz-stream");
    const std::size_t piece = size > 0 ? 1 + static_cast<std::uint8_t>(data[0]) % 64 : 1;
    for (std::size_t at = 0; at < size; at += piece) {
        if (!decoder.feed(bytes.substr(at, piece)).ok()) {
            return 0;
        }
    }
    if (decoder.finish().ok()) {
        model.finalize();
    }
    return 0;
}
