#include "tests/reference/ComputeFormulas.h"

#include <algorithm>

#include "core/analysis/metrics/Roofline.h"

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
