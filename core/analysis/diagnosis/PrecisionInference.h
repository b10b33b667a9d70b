#pragma once
// Which precision's peak an MFU is measured against, and from what. In order:
//   requested        --precision (AnalysisOptions::precision)
//   recorded-dtypes  the dominant precision of the costed ops' FLOPs (torch.profiler record_shapes);
//                    FP32 whose matmul kernels' names show TF32 for at least half their time is
//                    TF32 (recorded-dtypes+kernel-names): PyTorch records float32 either way
//   helper-op-dtypes the helper's model.precision measured from the input dtype of the matrix ops of
//                    a counted step (model.precision_source = op_dtypes, HelperFacts.h)
//   helper-autocast  the helper's model.precision under autocast: the dtype the step's matmuls ran in
//   kernel-names     the precision the GEMM / convolution / attention kernels' names show
//                    (core/names/NameRules.h kernelPrecisionFromName: cuBLAS nvjet codes, xmma /
//                    CUTLASS type tokens, FlashAttention templates), when one precision holds at
//                    least half of their time in the steady steps
//   helper-default   the helper's model.precision without autocast (the model's own dtype)
//   tensor-core-share tensor-core kernels hold most of the kernel time: BF16/FP16 assumed
//   default          FP32
// Pure functions; kernelNamePrecision is linear in kernels (one name lookup per distinct name).

#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/diagnosis/HelperFacts.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

// The precision the names of the matmul-class kernels (GEMM, convolution, attention) show, over
// the steady steps on `device` (every kernel on it when there are no steps).
struct KernelNamePrecision {
    std::optional<Precision> dominant;  // the precision with the most matmul-class time
    double shareOfMatmulTime = 0;       // its share of the matmul-class kernel time, 0..1
    double namedShareOfMatmulTime = 0;  // share of that time whose name shows any precision
    std::string example;                // the kernel with the most time in the dominant precision
};
KernelNamePrecision kernelNamePrecision(const core::TraceModel& model, const TraceMetrics& metrics,
                                        std::int16_t device);

struct PrecisionInputs {
    std::optional<Precision> requested;
    std::optional<Precision> recordedDtypes;
    HelperFacts facts;
    KernelNamePrecision kernelNames;
    double tensorCoreShare = 0;  // of kernel time
};

struct PrecisionChoice {
    Precision precision = Precision::FP32;
    std::string source;  // "requested", "recorded-dtypes", "helper-autocast", "kernel-names", ...
    std::string reason;  // one sentence, as the report prints it
};
PrecisionChoice choosePeakPrecision(const PrecisionInputs& inputs);

// names::KernelPrecision as the device database's Precision (Unknown: none).
std::optional<Precision> toPrecision(names::KernelPrecision precision);

}  // namespace chokepoint::analysis
