#pragma once
// A small, real AnalysisReport for E2's page tests: a synthetic trace through core's analyzeTrace. The trace
// is a data-bound loop: each of 4 ProfilerStep#N steps waits ~40 % of its time in the DataLoader with the GPU
// idle, then runs a GEMM (aten::mm with recorded shapes, so the roofline has a point) and two elementwise
// kernels launched through cudaLaunchKernel. The device is an A100 40GB with the seed spec's figures (§1.4:
// 312 TFLOP/s BF16 tensor, 19.5 TFLOP/s FP32, 2.0 TB/s).

#include <memory>
#include <string>

#include "tests/testutils/TraceBuilder.h"
#include "ui/base/document/AnalysisReportQt.h"
#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/Analyzer.h"
#pragma pop_macro("signals")

namespace chokepoint::testutils {

// `loaderNs`: how long each step waits in the DataLoader before launching its GPU work.
inline std::shared_ptr<const core::TraceModel> buildDataBoundTrace(core::DurationNs loaderNs = 3'990'000) {
    TraceBuilder b;
    b.device(0, "NVIDIA A100-SXM4-40GB", 108, 40LL << 30);
    const core::TimestampNs kStep = loaderNs + 6'010'000;  // 10 ms with the default wait
    std::int64_t corr = 1;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t0 = 1'000'000 + s * kStep;
        b.range("ProfilerStep#" + std::to_string(s + 1), t0, t0 + kStep);
        b.cpuOp("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10'000,
                t0 + 10'000 + loaderNs);
        const core::TimestampNs k0 = t0 + 10'000 + loaderNs + 100'000;
        b.cpuOp("aten::mm", k0, k0 + 200'000, 1, "[[4096, 4096], [4096, 4096]]",
                "[\"c10::BFloat16\", \"c10::BFloat16\"]");
        b.apiCall("cudaLaunchKernel", k0 + 50'000, k0 + 60'000, corr);
        b.kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", k0 + 100'000, k0 + 4'100'000, 0, 7,
                 corr++);
        b.cpuOp("aten::relu", k0 + 210'000, k0 + 260'000, 1, "[[4096, 4096]]", "[\"c10::BFloat16\"]");
        b.apiCall("cudaLaunchKernel", k0 + 220'000, k0 + 230'000, corr);
        b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::relu_kernel>", k0 + 4'100'000,
                 k0 + 5'000'000, 0, 7, corr++);
        b.apiCall("cudaLaunchKernel", k0 + 240'000, k0 + 250'000, corr);
        b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::add_kernel>", k0 + 5'000'000,
                 k0 + 5'800'000, 0, 7, corr++);
    }
    b.model().stats.add("import.example_warning", core::Severity::Warning, 2, "two events repaired");
    return std::make_shared<const core::TraceModel>(b.build());
}

inline analysis::DeviceSpec a100Spec() {
    analysis::DeviceSpec spec;
    spec.id = "a100-test";
    spec.name = "NVIDIA A100 40GB (seed figures)";
    spec.peaks = {{analysis::Precision::FP32, 19.5e12, false}, {analysis::Precision::BF16, 312e12, true}};
    spec.memoryBandwidthBytesPerSecond = 2.0e12;
    spec.memoryCapacityBytes = 40e9;
    return spec;
}

inline std::shared_ptr<const analysis::AnalysisReport> buildDataBoundReport(
    std::shared_ptr<const core::TraceModel> model = buildDataBoundTrace()) {
    analysis::AnalysisOptions options;
    options.device = a100Spec();
    options.deviceMethod = "override";
    auto report = analysis::analyzeTrace(std::move(model), options);
    return report ? report.value() : nullptr;
}

}  // namespace chokepoint::testutils
