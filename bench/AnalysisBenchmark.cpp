// chokepoint-bench-analysis [FILE...]: times computeTraceMetrics (the whole measurement engine)
//   * on each trace FILE, against the time loadTrace takes to import it (the analysis must stay
//     under a quarter of the import time), and
//   * on SYNTHETIC models generated here at 1x, 4x and 16x size (same step shape, more steps), to
//     show the cost per event stays flat (linear in events).
// CPU seconds of this process are reported next to wall time, since the machine may be shared.
// Not a test: run by hand.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <tuple>

#include "core/analysis/metrics/TraceMetrics.h"
#include "core/import/TraceLoader.h"
#include "core/names/NameRules.h"

using namespace chokepoint;

namespace {

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
    double wall = 0;
    double cpu = 0;
};

// Best of `runs` analyses of the model.
Timing timeAnalysis(const core::TraceModel& model, int runs, std::size_t& idleIntervals) {
    Timing best{1e30, 1e30};
    for (int i = 0; i < runs; ++i) {
        double w0 = wallSeconds();
        double c0 = cpuSeconds();
        core::Result<analysis::TraceMetrics> m = analysis::computeTraceMetrics(model, {}, nullptr);
        double c1 = cpuSeconds();
        double w1 = wallSeconds();
        if (!m.ok()) {
            std::fprintf(stderr, "analysis failed: %s\n", m.error().message.c_str());
            return {};
        }
        idleIntervals = m->accounting.idleIntervals.size();
        best.wall = std::min(best.wall, w1 - w0);
        best.cpu = std::min(best.cpu, c1 - c0);
    }
    return best;
}

std::size_t eventCount(const core::TraceModel& m) {
    return m.kernels.size() + m.memcpys.size() + m.memsets.size() + m.apiCalls.size() + m.syncs.size() +
           m.ranges.size() + m.cpuOps.size();
}

// SYNTHETIC training steps: DataLoader range, forward and backward ops with recorded shapes, a
// launch per op, GEMM + elementwise kernels on the compute stream, NCCL all-reduce on a second
// stream, the batch H2D copy, an optimizer step and a sync. Gaps between kernels are varied so the
// idle attribution has work to do.
core::TraceModel makeSynthetic(int steps) {
    core::TraceModel m;
    m.metadata.sourceFormat = "synthetic";
    m.metadata.synthetic = true;
    m.deviceOrAdd(0).name = "synthetic GPU";
    core::ThreadIndex main = m.threadIndex(1, 1, "python");
    core::ThreadIndex autograd = m.threadIndex(1, 2, "pt_autograd_0");
    core::StringId data = m.intern("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    core::StringId addmm = m.intern("aten::addmm");
    core::StringId gelu = m.intern("aten::gelu");
    core::StringId back = m.intern("autograd::engine::evaluate_function: AddmmBackward0");
    core::StringId mm = m.intern("aten::mm");
    core::StringId opt = m.intern("Optimizer.step#AdamW.step");
    core::StringId launch = m.intern("cudaLaunchKernel");
    core::StringId memcpyAsync = m.intern("cudaMemcpyAsync");
    core::StringId sync = m.intern("cudaStreamSynchronize");
    core::StringId gemmKernel = m.intern("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
    core::StringId geluKernel = m.intern("void at::native::vectorized_elementwise_kernel<4, gelu>");
    core::StringId adamKernel = m.intern("multi_tensor_apply_kernel");
    core::StringId nccl = m.intern("ncclKernel_AllReduce_RING_LL_Sum_bfloat16");
    core::StringId shapesMm = m.intern("[[4096], [64, 1024], [1024, 4096], [], []]");
    core::StringId typesMm =
        m.intern("[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]");
    core::StringId shapesGelu = m.intern("[[64, 4096]]");
    core::StringId typesGelu = m.intern("[\"c10::BFloat16\"]");
    std::int64_t correlation = 1;
    const int layers = 24;
    core::TimestampNs t = 0;
    auto addLaunch = [&](core::ThreadIndex thread, core::TimestampNs at, core::StringId name) {
        core::ApiCallRow row{at, at + 4'000, thread, name, core::ApiDomain::Runtime, correlation, {}};
        m.apiCalls.add(row);
        return correlation++;
    };
    auto addKernel = [&](core::StringId name, core::TimestampNs start, core::DurationNs dur,
                         std::int32_t stream, std::int64_t corr) {
        core::KernelRow k;
        k.startNs = start;
        k.endNs = start + dur;
        k.streamId = stream;
        k.name = name;
        k.correlationId = corr;
        m.kernels.add(k);
    };
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs stepStart = t;
        core::RangeRow step;
        step.startNs = stepStart;
        step.thread = main;
        step.name = m.intern(std::string(names::kProfilerStepPrefix) + std::to_string(s));
        core::RangeRow loader{stepStart,
                              stepStart + 200'000 + (s % 7) * 10'000,
                              core::RangeSource::UserAnnotation,
                              main,
                              -1,
                              -1,
                              data,
                              {},
                              0,
                              {}};
        m.ranges.add(loader);
        t = loader.endNs;
        std::int64_t c = addLaunch(main, t, memcpyAsync);
        core::MemcpyRow copy;
        copy.startNs = t + 6'000;
        copy.endNs = t + 40'000;
        copy.streamId = 7;
        copy.kind = core::MemcpyKind::HostToDevice;
        copy.sizeBytes = 1 << 22;
        copy.correlationId = c;
        m.memcpys.add(copy);
        t += 10'000;
        core::TimestampNs gpu = t + 40'000;
        for (int l = 0; l < layers; ++l) {  // forward
            for (auto [op, kernel, shapes, types, dur] :
                 {std::tuple{addmm, gemmKernel, shapesMm, typesMm, 30'000},
                  {gelu, geluKernel, shapesGelu, typesGelu, 5'000}}) {
                m.cpuOps.add(
                    {t, t + 12'000, main, op, core::CpuOpCategory::Operator, shapes, types, 0, 0, {}, {}});
                std::int64_t corr = addLaunch(main, t + 5'000, launch);
                gpu = std::max(gpu, t + 10'000) + (l % 5) * 1'000;
                addKernel(kernel, gpu, dur, 7, corr);
                gpu += dur;
                t += 14'000;
            }
        }
        for (int l = 0; l < layers; ++l) {  // backward on the autograd thread
            m.cpuOps.add(
                {t, t + 30'000, autograd, back, core::CpuOpCategory::Operator, {}, {}, 0, 0, {}, {}});
            m.cpuOps.add({t + 2'000,
                          t + 28'000,
                          autograd,
                          mm,
                          core::CpuOpCategory::Operator,
                          shapesMm,
                          typesMm,
                          0,
                          0,
                          {},
                          {}});
            for (int k = 0; k < 2; ++k) {
                std::int64_t corr = addLaunch(autograd, t + 5'000 + k * 10'000, launch);
                gpu = std::max(gpu, t + 10'000 + k * 10'000);
                addKernel(gemmKernel, gpu, 25'000, 7, corr);
                gpu += 25'000;
            }
            if (l % 6 == 5) {
                addKernel(nccl, gpu - 40'000, 60'000, 20, 0);
            }
            t += 32'000;
        }
        m.cpuOps.add({t, t + 50'000, main, opt, core::CpuOpCategory::Operator, {}, {}, 0, 0, {}, {}});
        for (int k = 0; k < 4; ++k) {
            std::int64_t corr = addLaunch(main, t + 5'000 + k * 10'000, launch);
            gpu = std::max(gpu, t + 10'000 + k * 10'000);
            addKernel(adamKernel, gpu, 8'000, 7, corr);
            gpu += 8'000;
        }
        t += 50'000;
        core::ApiCallRow wait{t, std::max(t + 2'000, gpu + 3'000), main, sync, core::ApiDomain::Runtime, 0,
                              {}};
        m.apiCalls.add(wait);
        t = wait.endNs + 5'000;
        step.endNs = t;
        m.ranges.add(step);
    }
    m.finalize();
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    std::printf("%-60s %10s %10s %10s %10s %8s\n", "input", "events", "import s", "analysis s", "ns/event",
                "ratio");
    for (int i = 1; i < argc; ++i) {
        const std::string path = argv[i];
        double w0 = wallSeconds();
        double c0 = cpuSeconds();
        core::Result<core::TraceModel> model = core::loadTrace(path);
        double importCpu = cpuSeconds() - c0;
        double importWall = wallSeconds() - w0;
        if (!model.ok()) {
            std::fprintf(stderr, "%s\n", model.error().message.c_str());
            continue;
        }
        std::size_t idle = 0;
        Timing t = timeAnalysis(*model, 3, idle);
        std::size_t events = eventCount(*model);
        std::printf("%-60s %10zu %10.3f %10.4f %10.1f %8.3f   (wall: import %.3f s, analysis %.4f s)\n",
                    path.substr(path.rfind('/') + 1).substr(0, 60).c_str(), events, importCpu, t.cpu,
                    1e9 * t.cpu / double(std::max<std::size_t>(1, events)), t.cpu / importCpu, importWall,
                    t.wall);
    }
    const int baseSteps = argc > 1 ? 0 : 100;
    for (int scale : {1, 4, 16}) {
        if (baseSteps == 0) {
            break;
        }
        core::TraceModel model = makeSynthetic(baseSteps * scale);
        std::size_t idle = 0;
        Timing t = timeAnalysis(model, 3, idle);
        std::size_t events = eventCount(model);
        std::printf(
            "%-60s %10zu %10s %10.4f %10.1f %8s   (wall %.4f s, %zu idle intervals)\n",
            ("SYNTHETIC " + std::to_string(scale) + "x (" + std::to_string(baseSteps * scale) + " steps)")
                .c_str(),
            events, "-", t.cpu, 1e9 * t.cpu / double(events), "-", t.wall, idle);
    }
    return 0;
}
