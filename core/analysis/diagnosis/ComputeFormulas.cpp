#include "core/analysis/diagnosis/ComputeFormulas.h"

#include "core/analysis/metrics/Roofline.h"

#include <algorithm>

namespace chokepoint::analysis::formulas {

namespace {
double safeDivide(double numerator, double denominator) {
    return denominator > 0 ? numerator / denominator : 0.0;
}
}  // namespace

double ironLawSeconds(double totalFlops, double peakFlopsPerSecond, double utilization) {
    return safeDivide(totalFlops, peakFlopsPerSecond * utilization);
}

IronLawTerms ironLawGeneral(double dataBytes, double bandwidthBytesPerSecond, double totalFlops,
                            double peakFlopsPerSecond, double utilization, double latencySeconds) {
    IronLawTerms terms;
    terms.dataSeconds = safeDivide(dataBytes, bandwidthBytesPerSecond);
    terms.computeSeconds = ironLawSeconds(totalFlops, peakFlopsPerSecond, utilization);
    terms.latencySeconds = latencySeconds;
    return terms;
}

double impliedUtilization(double totalFlops, double peakFlopsPerSecond, double seconds) {
    return safeDivide(totalFlops, peakFlopsPerSecond * seconds);
}

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

double trainingStepFlopsFromForward(double forwardFlops) {
    return 3.0 * forwardFlops;
}

double denseLayerMacs(double inputs, double outputs, double batch) {
    return inputs * outputs * batch;
}

double flopsFromMacs(double macs) {
    return 2.0 * macs;
}

TransformerLayerFlops transformerLayerForwardFlops(double batch, double sequenceLength, double hiddenDim,
                                                   double heads, double headDim) {
    const double bsd2 = batch * sequenceLength * hiddenDim * hiddenDim;
    TransformerLayerFlops f;
    f.qkvProjection = 2.0 * 3.0 * bsd2;
    f.attentionScores = 2.0 * batch * heads * sequenceLength * sequenceLength * headDim;
    f.attentionValues = f.attentionScores;
    f.outputProjection = 2.0 * bsd2;
    f.ffn = 16.0 * bsd2;
    return f;
}

double arithmeticIntensity(double flops, double bytes) {
    return safeDivide(flops, bytes);
}

double ridgePoint(double peakFlopsPerSecond, double bandwidthBytesPerSecond) {
    return ridgeFlopsPerByte(peakFlopsPerSecond, bandwidthBytesPerSecond);
}

bool fitsInMemory(double requiredBytes, double capacityBytes, double headroomFraction) {
    return requiredBytes <= capacityBytes * (1.0 - headroomFraction);
}

bool networkWall(double communicationSeconds, double computeSeconds) {
    return communicationSeconds > computeSeconds;
}

double attainableFlopsPerSecond(double intensity, double peakFlopsPerSecond, double bandwidthBytesPerSecond) {
    return std::min(peakFlopsPerSecond, intensity * bandwidthBytesPerSecond);
}

RooflineRegime rooflineRegime(double intensity, double ridge) {
    if (!(intensity > 0) || !(ridge > 0)) {
        return RooflineRegime::Unknown;
    }
    return intensity < ridge ? RooflineRegime::MemoryBound : RooflineRegime::ComputeBound;
}

const char* toString(RooflineRegime regime) {
    switch (regime) {
        case RooflineRegime::MemoryBound:
            return "memory-bound";
        case RooflineRegime::ComputeBound:
            return "compute-bound";
        case RooflineRegime::Unknown:
            break;
    }
    return "unknown";
}

double materializedAttentionIntensity(double headDim) {
    return headDim / 2.0;
}

double worstCaseBandwidthDemand(double flopsPerSecond, double bytesPerOperand) {
    return flopsPerSecond * bytesPerOperand;
}

double peakUpgradeSpeedup(double computeBoundShare, double peakRatio) {
    const double p = std::clamp(computeBoundShare, 0.0, 1.0);
    if (!(peakRatio > 0)) {
        return 1.0;
    }
    return 1.0 / ((1.0 - p) + p / peakRatio);
}

WaveQuantization waveQuantization(std::int64_t work, std::int64_t width) {
    WaveQuantization w;
    if (work <= 0 || width <= 0) {
        return w;
    }
    w.units = (work + width - 1) / width;
    w.laneUtilization = static_cast<double>(work) / static_cast<double>(width * w.units);
    w.relativeTime = static_cast<double>(w.units);
    return w;
}

}  // namespace chokepoint::analysis::formulas
