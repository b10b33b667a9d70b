// A trace's analysis settings (core::AnalysisSettings) applied to the analysis: what cannot be
// applied is dropped with a warning naming the source and the field; what is applied changes the
// analysis (the device's peak moves MFU) and is listed in the report as set by the user.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"
#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/DeviceMemoryText.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/base/ScaledNumber.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

using namespace chokepoint;
using namespace chokepoint::analysis;

namespace {

const DeviceDatabase& devices() {
    static const DeviceDatabase* kDevices = [] {
        auto db = DeviceDatabase::loadBuiltin();
        return db ? new DeviceDatabase(std::move(db.value())) : nullptr;
    }();
    return *kDevices;
}

std::shared_ptr<const AnalysisReport> analyzeWith(const core::TraceModel& model,
                                                  const core::AnalysisSettings& s) {
    AnalysisOptions options;
    options.devices = &devices();
    applyAnalysisSettings(s, options);
    auto r = analyzeTrace(model, options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

bool contains(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

}  // namespace

TEST(AnalysisSettings, SanitizeDropsWhatCannotBeAppliedAndSaysWhere) {
    core::AnalysisSettings s;
    s.deviceId = "no-such-gpu";
    s.precision = "fp12";
    s.parameterCount = 7e9;  // without tokens per step
    s.thresholds["lowMfu"] = 1.5;
    s.thresholds["noSuchKey"] = 0.1;
    s.thresholds["shortKernelNs"] = 0;
    s.thresholds["hbmHighFraction"] = 0.7;  // valid: kept
    const std::vector<std::string> warnings = sanitizeAnalysisSettings(s, &devices(), "run.review.json");
    EXPECT_EQ(warnings.size(), 6u);
    for (const std::string& w : warnings) {
        EXPECT_EQ(w.rfind("run.review.json: analysisSettings.", 0), 0u) << w;
    }
    EXPECT_TRUE(contains(warnings, "device: unknown device 'no-such-gpu'"));
    EXPECT_TRUE(contains(warnings, "precision: unknown precision 'fp12'"));
    EXPECT_TRUE(contains(warnings, "parameterCount: parameters and tokens per step go together"));
    EXPECT_TRUE(contains(warnings, "thresholds.lowMfu: 1.5 must be between 0 and 1"));
    EXPECT_TRUE(contains(warnings, "thresholds.noSuchKey: 0.1 unknown key"));
    EXPECT_TRUE(contains(warnings, "thresholds.shortKernelNs: 0 must be a positive number of ns"));
    EXPECT_TRUE(s.deviceId.empty());
    EXPECT_TRUE(s.precision.empty());
    EXPECT_FALSE(s.parameterCount);
    ASSERT_EQ(s.thresholds.size(), 1u);
    EXPECT_DOUBLE_EQ(s.thresholds.at("hbmHighFraction"), 0.7);

    core::AnalysisSettings both;
    both.modelFlopsPerStep = 1e15;
    both.parameterCount = 1e9;
    both.tokensPerStep = 1e3;
    EXPECT_EQ(sanitizeAnalysisSettings(both, &devices(), "x").size(), 1u);
    EXPECT_TRUE(both.modelFlopsPerStep);
    EXPECT_FALSE(both.parameterCount);
    EXPECT_FALSE(both.tokensPerStep);

    core::AnalysisSettings fine;
    fine.deviceId = "h100-sxm";
    fine.precision = "BF16";
    EXPECT_TRUE(sanitizeAnalysisSettings(fine, &devices(), "x").empty());
}

TEST(AnalysisSettings, ThresholdUnitsAndRanges) {
    EXPECT_EQ(diagnosisConfigUnit("lowMfu"), ConfigUnit::Fraction);
    EXPECT_EQ(diagnosisConfigUnit("shortKernelNs"), ConfigUnit::Nanoseconds);
    EXPECT_EQ(diagnosisConfigUnit("accumulationSteps"), ConfigUnit::Count);
    EXPECT_EQ(diagnosisConfigUnit("mixedPrecisionSpeedup"), ConfigUnit::Factor);
    EXPECT_TRUE(checkDiagnosisConfigValue("lowMfu", 0).empty());
    EXPECT_TRUE(checkDiagnosisConfigValue("lowMfu", 1).empty());
    EXPECT_FALSE(checkDiagnosisConfigValue("lowMfu", -0.01).empty());
    EXPECT_FALSE(checkDiagnosisConfigValue("hardwareUpgradePeakRatio", 0.5).empty());
    EXPECT_FALSE(checkDiagnosisConfigValue("lowMfu", std::nan("")).empty());
    // Every default passes its own check (the table and the units agree).
    const DiagnosisConfig defaults;
    for (const DiagnosisConfigKey& k : diagnosisConfigKeys()) {
        EXPECT_TRUE(checkDiagnosisConfigValue(k.key, defaults.*(k.member)).empty()) << k.key;
    }
}

TEST(AnalysisSettings, DeviceOverrideChangesTheMfuAndIsReported) {
    const core::TraceModel model = testutils::computeBoundJob();  // a V100 trace
    core::AnalysisSettings flops;
    flops.modelFlopsPerStep = 20e9;
    flops.precision = "fp32";
    auto matched = analyzeWith(model, flops);
    ASSERT_TRUE(matched);
    ASSERT_TRUE(matched->mfu.mfu);
    EXPECT_NE(matched->device.method, "override");
    EXPECT_EQ(matched->userSettings.size(), 2u);  // FLOPs and precision, not the device
    EXPECT_FALSE(contains(matched->userSettings, "device"));

    core::AnalysisSettings h100 = flops;
    h100.deviceId = "h100-sxm";
    auto overridden = analyzeWith(model, h100);
    ASSERT_TRUE(overridden);
    ASSERT_TRUE(overridden->mfu.mfu);
    EXPECT_EQ(overridden->device.method, "override");
    EXPECT_EQ(overridden->device.spec.id, "h100-sxm");
    // Same work and step time against a larger FP32 peak: MFU scales with the peaks' ratio.
    const double ratio = overridden->mfu.peakFlopsPerSecond / matched->mfu.peakFlopsPerSecond;
    ASSERT_GT(ratio, 1.5);
    EXPECT_NEAR(*matched->mfu.mfu / *overridden->mfu.mfu, ratio, 1e-9);
    EXPECT_TRUE(
        contains(overridden->userSettings, "device " + overridden->device.spec.name + " (set by user)"));
    EXPECT_TRUE(contains(overridden->userSettings, "model FLOPs per step 20B (set by user)"));
    EXPECT_TRUE(contains(overridden->userSettings, "precision FP32 (set by user)"));
    const std::string text = writeTextReport(*overridden);
    EXPECT_NE(text.find("Analysis settings: device " + overridden->device.spec.name + " (set by user)"),
              std::string::npos)
        << text.substr(0, 600);
}

TEST(AnalysisSettings, DefaultsReportNothingAndThresholdsShowTheirDefault) {
    const core::TraceModel model = testutils::computeBoundJob();
    auto plain = analyzeWith(model, {});
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->userSettings.empty());
    EXPECT_EQ(writeTextReport(*plain).find("Analysis settings:"), std::string::npos);

    core::AnalysisSettings s;
    s.thresholds["lowMfu"] = 0.25;
    s.outOfMemoryObserved = true;
    s.peakMemoryBytes = 16e9;
    auto changed = analyzeWith(model, s);
    ASSERT_TRUE(changed);
    EXPECT_DOUBLE_EQ(changed->config.lowMfu, 0.25);
    EXPECT_TRUE(contains(changed->userSettings, "threshold lowMfu 0.25 (default 0.3)"));
    EXPECT_TRUE(contains(changed->userSettings, "out-of-memory error observed (set by user)"));
    EXPECT_TRUE(contains(changed->userSettings, "peak memory"));
}

TEST(AnalysisSettings, PrecisionNamesRoundTrip) {
    for (Precision p : selectablePrecisions()) {
        EXPECT_EQ(precisionFromName(precisionName(p)), p);
    }
    EXPECT_EQ(precisionFromName("TF32"), Precision::TF32);
    EXPECT_FALSE(precisionFromName("int8"));
    EXPECT_FALSE(precisionFromName(""));
}

TEST(ScaledNumber, ParsesSuffixesAndFormatsBack) {
    EXPECT_DOUBLE_EQ(*core::parseScaledNumber("7B"), 7e9);
    EXPECT_DOUBLE_EQ(*core::parseScaledNumber("4k"), 4e3);
    EXPECT_DOUBLE_EQ(*core::parseScaledNumber("1.2e15"), 1.2e15);
    EXPECT_FALSE(core::parseScaledNumber("-1"));
    EXPECT_FALSE(core::parseScaledNumber("B"));
    EXPECT_FALSE(core::parseScaledNumber("1e400"));
    EXPECT_FALSE(core::parseScaledNumber("12x"));
    EXPECT_EQ(core::formatScaledNumber(7e9), "7B");
    EXPECT_EQ(core::formatScaledNumber(4096), "4.096k");
    EXPECT_EQ(core::formatScaledNumber(12), "12");
    for (double v : {1.2e15, 7e9, 4096.0, 0.5, 85'899'345'920.0, 1.2345678901234567e15}) {
        const auto back = core::parseScaledNumber(core::formatScaledNumber(v));
        ASSERT_TRUE(back) << v;
        EXPECT_NEAR(*back, v, 1e-9 * v) << core::formatScaledNumber(v);
    }
}

namespace chokepoint::analysis {
namespace {

// The device-memory line of the reports: the peak against the capacity when the job's need is
// known (user-given or a memory-level track), the rise alone when only changes were recorded.
TEST(DeviceMemoryText, PeakAgainstCapacityOrTheRiseOrNothing) {
    DiagnosisSignals s;
    EXPECT_EQ(describeDeviceMemory(s), "");
    s.memoryRiseBytes = 2.0 * 1024 * 1024 * 1024;
    EXPECT_EQ(
        describeDeviceMemory(s),
        "rises by up to 2.00 GiB within the trace; the peak is unknown (the memory events carry no totals)");
    s.peakMemoryBytes = 40.0 * 1024 * 1024 * 1024;
    EXPECT_EQ(describeDeviceMemory(s), "peak 40.0 GiB");
    s.capacityBytes = 80.0 * 1024 * 1024 * 1024;
    EXPECT_EQ(describeDeviceMemory(s), "peak 40.0 GiB of 80.0 GiB (50.0 %)");
}

}  // namespace
}  // namespace chokepoint::analysis
