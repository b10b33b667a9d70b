#include "core/analysis/diagnosis/ComputeFormulas.h"

#include <algorithm>

namespace chokepoint::analysis::formulas {

namespace {
double safeDivide(double numerator, double denominator) {
    return denominator > 0 ? numerator / denominator : 0.0;
}
}  // namespace

double modelFlopsUtilization(double modelFlopsPerStep, double peakFlopsPerSecond, double stepSeconds) {
    return safeDivide(modelFlopsPerStep, peakFlopsPerSecond * stepSeconds);
}

double hardwareFlopsUtilization(double hardwareFlopsPerStep, double peakFlopsPerSecond, double stepSeconds) {
    return safeDivide(hardwareFlopsPerStep, peakFlopsPerSecond * stepSeconds);
}

MfuBand mfuBand(double mfu) {
    if (!(mfu > 0)) {
        return MfuBand::Unknown;
    }
    if (mfu >= 1.0) {
        return MfuBand::Impossible;
    }
    if (mfu > 0.65) {
        return MfuBand::Suspicious;
    }
    if (mfu >= 0.55) {
        return MfuBand::PracticalCeiling;
    }
    if (mfu > 0.50) {
        return MfuBand::BetweenTypicalAndCeiling;
    }
    if (mfu >= 0.30) {
        return MfuBand::TypicalProduction;
    }
    return MfuBand::Addressable;
}

const char* toString(MfuBand band) {
    switch (band) {
        case MfuBand::Unknown:
            return "unknown";
        case MfuBand::Addressable:
            return "below 30 %: a specific addressable bottleneck";
        case MfuBand::TypicalProduction:
            return "30-50 %: typical production";
        case MfuBand::BetweenTypicalAndCeiling:
            return "50-55 %: above typical production, below the practical ceiling";
        case MfuBand::PracticalCeiling:
            return "55-65 %: practical ceiling (FlashAttention + tuned batch)";
        case MfuBand::Suspicious:
            return "above 65 %: suspicious, check the FLOP count and the peak";
        case MfuBand::Impossible:
            return "100 % or more: impossible, a measurement or input error";
    }
    return "unknown";
}

double trainingFlops(double parameterCount, double tokens) {
    return 6.0 * parameterCount * tokens;
}

double forwardFlopsPerToken(double parameterCount) {
    return 2.0 * parameterCount;
}

bool fitsInMemory(double requiredBytes, double capacityBytes, double headroomFraction) {
    return requiredBytes <= capacityBytes * (1.0 - headroomFraction);
}

bool networkWall(double communicationSeconds, double computeSeconds) {
    return communicationSeconds > computeSeconds;
}

double peakUpgradeSpeedup(double computeBoundShare, double peakRatio) {
    const double p = std::clamp(computeBoundShare, 0.0, 1.0);
    if (!(peakRatio > 0)) {
        return 1.0;
    }
    return 1.0 / ((1.0 - p) + p / peakRatio);
}

}  // namespace chokepoint::analysis::formulas
