#pragma once
// The facts the Python helper publishes about the job (chokepoint_helper.publish_model), as the
// agent stores them: capture metadata notes "model.<key>" (core::CaptureMetadata::notes).
//   model.flops_per_step    FLOPs of one full training step (forward + backward + optimizer) as
//                           torch.utils.flop_counter.FlopCounterMode counted them; already the
//                           step's total (no training factor to apply)
//   model.flops_source      how they were counted ("flop_counter")
//   model.parameter_count   N, and model.tokens_per_step T: 6·N·T when no count is published
//   model.precision         the precision of the matrix work ("bf16", "fp16", "fp32", "tf32", "fp8")
//   model.precision_source  "op_dtypes" (the input dtype of the matrix ops of the counted step, which
//                           autocast decides), "autocast" (the step ran under autocast with that
//                           dtype) or "default" (no autocast: the model's own dtype)
//   model.memory_reserved_peak_bytes
//                           torch.cuda.max_memory_reserved() after a step: the device memory the
//                           caching allocator held at most, what the job needs (the capacity check)
// Values that do not parse (not a positive finite number, an unknown dtype) are left out.
// Pure function over the notes.

#include <optional>
#include <string>

#include "core/model/Dimensions.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

struct HelperFacts {
    std::optional<double> flopsPerStep;  // model.flops_per_step
    std::string flopsSource;             // model.flops_source ("flop_counter"), "" when not given
    std::optional<double> parameterCount;
    std::optional<double> tokensPerStep;
    names::KernelPrecision precision = names::KernelPrecision::Unknown;  // model.precision
    std::string precisionSource;  // model.precision_source ("op_dtypes", "autocast", "default"), or ""
    std::optional<double> memoryReservedPeakBytes;  // model.memory_reserved_peak_bytes (the last given)
};

HelperFacts readHelperFacts(const core::CaptureMetadata& metadata);

}  // namespace chokepoint::analysis
