// chokepoint-bench-agent-paths: the agent's own work per event while a capture runs, for the
// capture-overhead question (docs/COLLECTORS.md, "The H100 check"): the work an NVTX push/pop
// handler does on the job's thread in Recording mode (the step-marker check and the ring write,
// collectors/nvtx/NvtxRecorder), what the worker thread spends decoding CUPTI activity records
// (a kernel and its launch record, collectors/agent/ActivityDecoder), and one /proc scan of the
// host sampler's own thread over a process of 48 threads, as a PyTorch job has (collectors/host).
// CUPTI's own cost per kernel and per call is not in it: that needs a GPU. Not a test: run by hand.
//
//   chokepoint-bench-agent-paths [PAIRS]   (default 2,000,000 push/pop pairs and kernel launches)

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>
#include <vector>

#include "collectors/agent/ActivityDecoder.h"
#include "collectors/agent/ClockSync.h"
#include "collectors/host/HostSampler.h"
#include "collectors/nvtx/NvtxRecorder.h"
#include "core/names/NameRules.h"
#include "tests/collectors/agent/SyntheticCupti.h"

using chokepoint::collectors::ActivityDecoder;
using chokepoint::collectors::ClockMap;
using chokepoint::collectors::NvtxEventType;
using chokepoint::collectors::NvtxMode;
using chokepoint::collectors::NvtxRecorder;

namespace {

using Clock = std::chrono::steady_clock;

double nsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// What NvtxRecorder's push and pop handlers do in Recording mode, timed on this thread; the ring
// is drained between batches (untimed), as the worker drains it every 50 ms.
double nvtxNsPerPushPop(std::size_t pairs) {
    NvtxRecorder& recorder = NvtxRecorder::instance();
    recorder.setStepMarkers({std::string(chokepoint::names::kProfilerStepPrefix),
                             std::string(chokepoint::names::kHelperStepPrefix),
                             std::string(chokepoint::names::kPlainStepPrefix)});
    recorder.setMode(NvtxMode::Recording);
    const char* names[] = {"chokepoint:forward", "chokepoint:backward", "chokepoint:optimizer",
                           "aten::linear", "nccl:all_reduce"};
    constexpr std::size_t kBatch = NvtxRecorder::kRingEvents / 2 - 16;  // pairs that fit the ring
    double timedNs = 0;
    for (std::size_t done = 0; done < pairs; done += kBatch) {
        const auto start = Clock::now();
        for (std::size_t i = 0; i < kBatch; ++i) {
            const char* name = names[i % 5];
            if (recorder.isStepMarker(name)) {
                recorder.noteStep(name, NvtxRecorder::nowNs());
            }
            recorder.record(NvtxEventType::Push, nullptr, 0, name, nullptr);
            recorder.record(NvtxEventType::Pop, nullptr, 0, nullptr, nullptr);
        }
        timedNs += nsSince(start);
        chokepoint::core::TraceModel drained;
        recorder.drainInto(drained, -1, 0, std::numeric_limits<chokepoint::core::TimestampNs>::max());
    }
    const std::size_t timedPairs = (pairs + kBatch - 1) / kBatch * kBatch;
    std::printf("  NVTX events dropped: %llu (0 expected: the ring is drained between batches)\n",
                static_cast<unsigned long long>(recorder.droppedEvents()));
    recorder.setMode(NvtxMode::Idle);
    return timedNs / static_cast<double>(timedPairs);
}

// The worker's decode of one launch record and its kernel record, in passes of one 4 MiB buffer's
// worth of pairs, as CUPTI hands them over.
double decodeNsPerLaunch(std::size_t launches) {
    chokepoint::testutils::SyntheticCupti records;
    constexpr std::uint32_t kPairsPerBuffer = 8192;
    const char* kernelName =
        "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
        "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >";
    std::uint64_t t = 1'000'000'000;
    for (std::uint32_t i = 0; i < kPairsPerBuffer; ++i, t += 10'000) {
        records.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t,
                    t + 4'000, i + 1);
        records.kernel(kernelName, t + 6'000, t + 9'000, i + 1);
    }
    ClockMap clock;  // no anchors: CUPTI time is the trace time
    ActivityDecoder decoder(clock);
    decoder.setWindow(0, std::numeric_limits<chokepoint::core::TimestampNs>::max());
    double timedNs = 0;
    std::size_t decoded = 0;
    while (decoded < launches) {
        chokepoint::core::TraceModel batch;
        const auto start = Clock::now();
        decoder.decode(records.data(), records.size(), batch);
        timedNs += nsSince(start);
        decoded += kPairsPerBuffer;
    }
    return timedNs / static_cast<double>(decoded);
}

// One host sampler scan (every thread's schedstat; a rescan of /proc every 250 ms of sample time)
// while `threads` idle threads exist besides this one, averaged over `scans` at 50 Hz sample time.
double hostScanUs(int threads, int scans) {
    std::atomic<bool> done{false};
    std::vector<std::thread> idle;
    for (int i = 0; i < threads - 1; ++i) {
        idle.emplace_back([&done] {
            while (!done.load()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
    }
    chokepoint::collectors::HostSampler sampler(chokepoint::collectors::HostSampler::Options{});
    chokepoint::core::TimestampNs nowNs = chokepoint::collectors::monotonicNowNs();
    sampler.sampleOnce(nowNs);  // opens the descriptors
    const auto start = Clock::now();
    for (int i = 0; i < scans; ++i) {
        nowNs += 20'000'000;
        sampler.sampleOnce(nowNs);
    }
    const double us = nsSince(start) / 1000.0 / scans;
    done = true;
    for (std::thread& t : idle) {
        t.join();
    }
    return us;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t pairs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
    std::printf("NVTX push+pop pairs and kernel launches: %zu each\n", pairs);
    const double nvtxNs = nvtxNsPerPushPop(pairs);
    std::printf("NVTX push+pop handler work (job thread):    %7.1f ns per pair\n", nvtxNs);
    const double decodeNs = decodeNsPerLaunch(pairs);
    std::printf("decode launch + kernel record (worker):     %7.1f ns per launch\n", decodeNs);
    const double scanUs = hostScanUs(48, 500);
    std::printf("host sampler scan, 48 threads (own thread): %7.1f us per scan, %.2f %% of a core at 50 Hz\n",
                scanUs, scanUs * 50 / 1e4);
    return 0;
}
