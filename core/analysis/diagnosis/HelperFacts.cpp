#include "core/analysis/diagnosis/HelperFacts.h"

#include <cmath>
#include <cstdlib>
#include <string_view>

namespace chokepoint::analysis {

namespace {

std::optional<double> positiveNumber(const std::string& value) {
    char* end = nullptr;
    const double parsed = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && std::isfinite(parsed) && parsed > 0) {
        return parsed;
    }
    return std::nullopt;
}

}  // namespace

HelperFacts readHelperFacts(const core::CaptureMetadata& metadata) {
    HelperFacts facts;
    for (const auto& [key, value] : metadata.notes) {
        const std::string_view k = key;
        if (k == "model.flops_per_step") {
            facts.flopsPerStep = positiveNumber(value);
        } else if (k == "model.flops_source") {
            facts.flopsSource = value;
        } else if (k == "model.parameter_count") {
            facts.parameterCount = positiveNumber(value);
        } else if (k == "model.tokens_per_step") {
            facts.tokensPerStep = positiveNumber(value);
        } else if (k == "model.precision") {
            facts.precision = names::precisionFromFact(value);
        } else if (k == "model.precision_source") {
            facts.precisionSource = value;
        } else if (k == "model.memory_reserved_peak_bytes") {
            facts.memoryReservedPeakBytes = positiveNumber(value);
        }
    }
    return facts;
}

}  // namespace chokepoint::analysis
