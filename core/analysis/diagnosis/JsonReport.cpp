// JSON writer for AnalysisReport. The schema is docs/REPORT_JSON.md; bump kReportSchemaVersion on
// any change that is not purely additive.

#include <charconv>
#include <cmath>

#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/base/JsonEscape.h"
#include "core/base/KernelName.h"

namespace chokepoint::analysis {

namespace {

// A tiny streaming JSON builder: keeps commas right, nothing else.
class Json {
public:
    Json& beginObject() {
        value();
        m_out += '{';
        m_first = true;
        return *this;
    }
    Json& endObject() {
        m_out += '}';
        m_first = false;
        return *this;
    }
    Json& beginArray() {
        value();
        m_out += '[';
        m_first = true;
        return *this;
    }
    Json& endArray() {
        m_out += ']';
        m_first = false;
        return *this;
    }
    Json& key(std::string_view k) {
        if (!m_first) {
            m_out += ',';
        }
        m_out += core::jsonString(k);
        m_out += ':';
        m_afterKey = true;
        return *this;
    }
    Json& str(std::string_view s) {
        value();
        m_out += core::jsonString(s);
        return *this;
    }
    Json& num(double v) {
        value();
        if (!std::isfinite(v)) {
            m_out += "null";
            return *this;
        }
        char buffer[64];
        const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
        m_out.append(buffer, ec == std::errc{} ? ptr : buffer);
        return *this;
    }
    Json& integer(std::int64_t v) {
        value();
        m_out += std::to_string(v);
        return *this;
    }
    Json& boolean(bool v) {
        value();
        m_out += v ? "true" : "false";
        return *this;
    }
    Json& null() {
        value();
        m_out += "null";
        return *this;
    }
    Json& optional(const std::optional<double>& v) { return v ? num(*v) : null(); }
    std::string take() { return std::move(m_out); }

private:
    void value() {
        if (m_afterKey) {
            m_afterKey = false;
        } else if (!m_first) {
            m_out += ',';
        }
        m_first = false;
    }
    std::string m_out;
    bool m_first = true;
    bool m_afterKey = false;
};

void writeVerdict(Json& j, const Verdict& v, const std::string& shownName = {}) {
    j.beginObject();
    j.key("class").str(toString(v.bottleneck));
    j.key("displayName").str(shownName.empty() ? std::string(displayName(v.bottleneck)) : shownName);
    j.key("axis").str(toString(v.axis));
    j.key("confidence").num(v.confidence);
    j.key("confidenceLabel").str(v.confidenceLabel());
    j.key("rationale").str(v.rationale);
    j.key("desiredEndState").boolean(v.desiredEndState);
    j.key("evidence").beginArray();
    for (const Evidence& e : v.evidence) {
        j.beginObject();
        j.key("signal").str(e.signal);
        j.key("value").num(e.value);
        j.key("comparison").str(e.comparison);
        j.key("threshold").num(e.threshold);
        j.key("passed").boolean(e.passed);
        j.key("estimated").boolean(e.estimated);
        j.key("note").str(e.note);
        j.endObject();
    }
    j.endArray();
    j.key("missingSignals").beginArray();
    for (const std::string& m : v.missingSignals) {
        j.str(m);
    }
    j.endArray();
    j.key("shares").beginArray();
    for (const ConstraintShare& s : v.shares) {
        j.beginObject();
        j.key("class").str(toString(s.bottleneck));
        j.key("share").num(s.shareOfWindow);
        j.key("thresholdHit").boolean(s.thresholdHit);
        j.endObject();
    }
    j.endArray();
    j.key("secondary").beginArray();
    for (Bottleneck b : v.secondary) {
        j.str(toString(b));
    }
    j.endArray();
    j.endObject();
}

void writeSignals(Json& j, const DiagnosisSignals& s) {
    j.beginObject();
    j.key("windowNs").num(s.windowNs);
    j.key("stepTimeNs").num(s.stepTimeNs);
    j.key("hasGpuActivity").boolean(s.hasGpuActivity);
    j.key("busy").num(s.busyFraction);
    j.key("compute").num(s.computeFraction);
    j.key("communication").num(s.communicationFraction);
    j.key("exposedCommunication").num(s.exposedCommunicationFraction);
    j.key("copy").num(s.copyFraction);
    j.key("exposedCopy").num(s.exposedCopyFraction);
    j.key("exposedHostCopy").num(s.exposedHostCopyFraction);
    j.key("pageableHostCopyShare").num(s.pageableHostCopyShare);
    j.key("memset").num(s.memsetFraction);
    j.key("idle").num(s.idleFraction);
    j.key("idleByCause").beginObject();
    j.key("dataWait").num(s.idleDataWaitFraction);
    j.key("launchOverhead").num(s.idleLaunchOverheadFraction);
    j.key("synchronization").num(s.idleSyncFraction);
    j.key("collective").num(s.idleCollectiveFraction);
    j.key("unexplained").num(s.idleUnexplainedFraction);
    j.key("hostWork").num(s.idleHostWorkFraction);
    j.key("compilation").num(s.idleCompilationFraction);
    j.key("housekeeping").num(s.idleHousekeepingFraction);
    j.key("garbageCollection").num(s.idleGcFraction);
    j.endObject();
    j.key("idleAfterSync").num(s.idleAfterSyncFraction);
    j.key("hostSync").num(s.hostSyncFraction);
    for (const auto& [key, frames] :
         {std::pair{"hostWorkFrames", &s.hostWorkFrames}, std::pair{"dataWaitFrames", &s.dataWaitFrames},
          std::pair{"afterSyncCalls", &s.afterSyncCalls}}) {
        j.key(key).beginArray();
        for (const DiagnosisSignals::HostFrameShare& f : *frames) {
            j.beginObject();
            j.key("name").str(f.name);
            j.key("shareOfWindow").num(f.shareOfWindow);
            j.key("shareOfCause").num(f.shareOfCause);
            j.key("cpuUseOnly").boolean(f.cpuUseOnly);
            j.endObject();
        }
        j.endArray();
    }
    // Sampled call stacks (Python sampler): shares of the GPU idle, each at most 1.
    j.key("sampledStacks").beginArray();
    for (const DiagnosisSignals::SampledStackShare& st : s.sampledStacks) {
        j.beginObject();
        j.key("thread").str(st.thread);
        j.key("role").str(st.role);
        j.key("path").str(st.path);
        j.key("shareOfIdle").num(st.shareOfIdle);
        j.endObject();
    }
    j.endArray();
    j.key("sampledFrames").beginArray();
    for (const DiagnosisSignals::SampledFrameShare& f : s.sampledFrames) {
        j.beginObject();
        j.key("thread").str(f.thread);
        j.key("name").str(f.name);
        j.key("inclusiveShareOfIdle").num(f.inclusiveShareOfIdle);
        j.key("exclusiveShareOfIdle").num(f.exclusiveShareOfIdle);
        j.endObject();
    }
    j.endArray();
    j.key("streamWait").num(s.streamWaitFraction);
    j.key("cpuBusyDuringIdle").optional(s.cpuBusyDuringIdleFraction);
    j.key("stepsWithDataWait").optional(s.stepsWithDataWaitFraction);
    j.key("kernelCount").integer(s.kernelCount);
    j.key("shortKernelCount").integer(s.shortKernelCount);
    j.key("meanKernelNs").num(s.meanKernelNs);
    j.key("kernelMix").beginObject();
    j.key("gemm").num(s.gemmShare);
    j.key("fp32Matmul").num(s.fp32MatmulShare);
    j.key("tensorCore").num(s.tensorCoreShare);
    j.key("attention").num(s.attentionShare);
    j.key("softmax").num(s.softmaxShare);
    j.key("elementwise").num(s.elementwiseShare);
    j.endObject();
    j.key("compositionKnown").boolean(s.compositionKnown);
    j.key("computeBoundKernelShare").num(s.computeBoundKernelShare);
    j.key("memoryBoundKernelShare").num(s.memoryBoundKernelShare);
    j.key("unclassifiedKernelShare").num(s.unclassifiedKernelShare);
    j.key("topUnclassifiedKernel").str(s.topUnclassifiedKernel);
    j.key("measured").beginObject();
    j.key("smActive").optional(s.smActiveFraction);
    j.key("tensorActive").optional(s.tensorActiveFraction);
    j.key("dramThroughput").optional(s.dramActiveFraction);
    j.key("pcieThroughput").optional(s.pcieActiveFraction);
    j.endObject();
    j.key("underOccupiedKernelShare").num(s.underOccupiedKernelShare);
    j.key("underOccupiedIdleSmShare").num(s.underOccupiedIdleSmShare);
    j.key("underOccupiedKernel").str(s.underOccupiedKernel);
    j.key("underOccupiedBlocks").integer(s.underOccupiedBlocks);
    j.key("smCount").integer(s.smCount);
    j.key("hbmBandwidthFraction").optional(s.hbmBandwidthFraction);
    j.key("hbmMeasured").boolean(s.hbmMeasured);
    j.key("memoryBoundBusyShare").optional(s.memoryBoundBusyShare);
    j.key("peakMemoryBytes").optional(s.peakMemoryBytes);
    j.key("memoryRiseBytes").optional(s.memoryRiseBytes);
    j.key("capacityBytes").optional(s.capacityBytes);
    j.key("mfu").optional(s.mfu);
    j.endObject();
}

void writeGain(Json& j, const ExpectedGain& g) {
    j.beginObject();
    j.key("computed").boolean(g.computed);
    j.key("upperBound").boolean(g.upperBound);
    j.key("stepTimeBeforeNs").num(g.stepTimeBeforeNs);
    j.key("stepTimeAfterNs").num(g.stepTimeAfterNs);
    j.key("stepTimeLowNs").num(g.stepTimeLowNs);
    j.key("stepTimeHighNs").num(g.stepTimeHighNs);
    j.key("mfuBefore").optional(g.mfuBefore);
    j.key("mfuAfter").optional(g.mfuAfter);
    j.key("speedup").num(g.speedup);
    j.key("summary").str(g.summary);
    j.key("basis").str(g.basis);
    j.key("uncertainty").str(g.uncertainty);
    j.endObject();
}

constexpr std::size_t kJsonTopKernels = 20;  // "topKernels": kept at its first meaning, see the schema

void writeKernel(Json& j, const TopKernel& k, bool withShortName) {
    j.beginObject();
    j.key("name").str(k.name);
    if (withShortName) {
        j.key("shortName").str(core::shortKernelName(k.name));
    }
    j.key("class").str(toString(k.kernelClass));
    j.key("tensorCore").boolean(k.tensorCore);
    j.key("count").integer(k.count);
    j.key("totalNs").num(k.totalNs);
    j.key("meanNs").num(k.meanNs);
    j.key("shareOfKernelTime").num(k.shareOfKernelTime);
    j.endObject();
}

}  // namespace

std::string writeJsonReport(const AnalysisReport& r) {
    Json j;
    j.beginObject();
    j.key("schema").str("chokepoint.analysis");
    j.key("schemaVersion").integer(r.schemaVersion);
    j.key("source").beginObject();
    j.key("path").str(r.sourcePath);
    j.key("format").str(r.sourceFormat);
    j.key("synthetic").boolean(r.synthetic);
    j.endObject();

    j.key("device").beginObject();
    j.key("matched").boolean(r.device.matched);
    j.key("method").str(r.device.method);
    j.key("id").str(r.device.spec.id);
    j.key("name").str(r.device.spec.name);
    j.key("traceName").str(r.device.traceDeviceName);
    j.key("deviceIndex").integer(r.device.deviceIndex);
    j.key("note").str(r.device.note);
    j.key("memoryBandwidthBytesPerSecond").num(r.device.spec.memoryBandwidthBytesPerSecond);
    j.key("memoryCapacityBytes").num(r.device.spec.memoryCapacityBytes);
    j.key("peakFlopsPerSecond").beginObject();
    for (const PeakFlops& p : r.device.spec.peaks) {
        j.key(toString(p.precision)).num(p.flopsPerSecond);
    }
    j.endObject();
    const MeasuredRoofs& measured = r.metrics.roofline.measured;
    j.key("measured").beginObject();
    j.key("present").boolean(measured.present);
    j.key("id").str(measured.deviceId);
    j.key("source").str(measured.source);
    j.key("memoryBandwidthBytesPerSecond").num(measured.memoryBandwidthBytesPerSecond);
    j.key("peakFlopsPerSecond").beginObject();
    for (const RooflineCeiling& c : measured.ceilings) {
        j.key(toString(c.precision)).num(c.peakFlopsPerSecond);
    }
    j.endObject();
    j.endObject();
    j.endObject();

    j.key("distributed").beginObject();
    j.key("present").boolean(r.distributed.present);
    j.key("rank").integer(r.distributed.rank);
    j.key("worldSize").integer(r.distributed.worldSize);
    j.key("backend").str(r.distributed.backend);
    j.endObject();

    j.key("steps").beginObject();
    j.key("source").str(toString(r.metrics.steps.source));
    j.key("note").str(r.metrics.steps.note);
    j.key("count").integer(static_cast<std::int64_t>(r.metrics.steps.steps.size()));
    j.key("meanStepNs").num(r.mfu.stepTimeNs);
    j.key("medianStepNs").num(r.metrics.stepTimes.medianNs);
    j.key("minStepNs").num(r.metrics.stepTimes.minNs);
    j.key("maxStepNs").num(r.metrics.stepTimes.maxNs);
    j.key("stretchedOverGpuWork").boolean(r.metrics.stepTimes.stretched);
    j.key("clippedSteps").integer(r.metrics.stepTimes.clipped);
    j.key("stepTimeDefinition").str(describeStepTimes(r.metrics.stepTimes));
    j.key("steadyCount").integer(r.metrics.stepTimes.count);
    j.key("allMeanStepNs").num(r.metrics.stepTimes.allMeanNs);
    j.key("excludedSteps").beginArray();
    for (const ExcludedStep& e : r.metrics.stepTimes.excluded) {
        j.beginObject();
        j.key("index").integer(e.stepIndex);
        j.key("name").str(e.name);
        j.key("durationNs").num(e.durationNs);
        j.key("warmUp").boolean(e.warmUp);
        j.key("reason").str(e.reason);
        j.endObject();
    }
    j.endArray();
    j.endObject();

    j.key("headline").str(r.headline);
    j.key("startUpOnly").boolean(r.startUpOnly);
    j.key("startUpReason").str(r.startUpReason);
    j.key("verdict");
    writeVerdict(j, r.overall, verdictDisplayName(r));

    j.key("mfu").beginObject();
    j.key("source").str(toString(r.mfu.source));
    j.key("sourceNote").str(r.mfu.sourceNote);
    j.key("backwardPassSeen").boolean(r.mfu.backwardPassSeen);
    j.key("estimate").boolean(r.mfu.estimate);
    j.key("modelFlopsPerStep").num(r.mfu.modelFlopsPerStep);
    j.key("hardwareFlopsPerStep").num(r.mfu.hardwareFlopsPerStep);
    j.key("precision").str(toString(r.mfu.precision));
    j.key("precisionReason").str(r.mfu.precisionReason);
    j.key("precisionSource").str(r.mfu.precisionSource);
    j.key("peakFlopsPerSecond").num(r.mfu.peakFlopsPerSecond);
    j.key("stepTimeNs").num(r.mfu.stepTimeNs);
    j.key("mfu").optional(r.mfu.mfu);
    j.key("hfu").optional(r.mfu.hfu);
    j.key("countedKernelTimeShare").num(r.mfu.countedKernelTimeShare);
    j.key("countedMatmulTimeShare").optional(r.mfu.countedMatmulTimeShare);
    j.key("busy").num(r.mfu.busyFraction);
    j.key("band").str(r.mfu.bandLabel);
    j.key("impossibleMfu").optional(r.mfu.impossibleMfu);
    j.key("withheld").str(toString(r.mfu.withheld));
    j.key("impossibleReason").str(r.mfu.impossibleReason);
    j.key("warnings").beginArray();
    for (const std::string& w : r.mfu.warnings) {
        j.str(w);
    }
    j.endArray();
    j.endObject();

    j.key("signals");
    writeSignals(j, r.overallSignals);

    j.key("ironLaw").beginObject();
    j.key("stepTimeNs").num(r.ironLaw.stepTimeNs);
    j.key("dataShare").num(r.ironLaw.dataShare);
    j.key("computeShare").num(r.ironLaw.computeShare);
    j.key("latencyShare").num(r.ironLaw.latencyShare);
    j.key("simplifiedLawValid").boolean(r.ironLaw.simplifiedLawValid);
    j.key("note").str(r.ironLaw.note);
    j.endObject();

    j.key("hta").beginObject();
    j.key("hasGpuWork").boolean(r.metrics.hta.hasGpuWork);
    j.key("windowNs").integer(r.metrics.hta.windowNs);
    j.key("idlePercent").num(r.metrics.hta.idlePercent());
    j.key("computePercent").num(r.metrics.hta.computePercent());
    j.key("nonComputePercent").num(r.metrics.hta.nonComputePercent());
    j.endObject();

    const TbPluginOverview& tb = r.metrics.tbPlugin;
    j.key("tbPlugin").beginObject();
    j.key("available").boolean(tb.available);
    j.key("note").str(tb.note);
    j.key("stepCount").integer(static_cast<std::int64_t>(tb.steps.size()));
    j.key("averageStepNs").num(tb.averageStepNs);
    j.key("averageNs").beginObject();
    // camelCase keys for the plugin's column names (Kernel, ..., CPU Exec, Other).
    constexpr const char* kRoleKeys[kTbRoleCount] = {"kernel",  "memcpy",     "memset",  "communication",
                                                     "runtime", "dataLoader", "cpuExec", "other"};
    for (std::size_t role = 0; role < kTbRoleCount; ++role) {
        j.key(kRoleKeys[role]).num(tb.averageRoleNs[role]);
    }
    j.endObject();
    j.key("gpus").beginArray();
    for (const TbGpuMetrics& g : tb.gpus) {
        j.beginObject();
        j.key("device").integer(g.deviceIndex);
        j.key("utilization").num(g.utilization);
        j.key("smEfficiency").optional(g.smEfficiency);
        j.key("achievedOccupancyPercent").optional(g.achievedOccupancyPercent);
        j.endObject();
    }
    j.endArray();
    j.endObject();

    j.key("stepVerdicts").beginArray();
    for (const StepDiagnosis& s : r.steps) {
        j.beginObject();
        j.key("index").integer(s.stepIndex);
        j.key("name").str(s.name);
        j.key("startNs").integer(s.range.startNs);
        j.key("endNs").integer(s.range.endNs);
        j.key("excluded").boolean(s.excluded);
        j.key("excludedReason").str(s.excludedReason);
        j.key("signals");
        writeSignals(j, s.signals);
        j.key("verdict");
        writeVerdict(j, s.verdict);
        j.endObject();
    }
    j.endArray();

    j.key("phaseVerdicts").beginArray();
    for (const PhaseDiagnosis& p : r.phases) {
        j.beginObject();
        j.key("kind").str(toString(p.kind));
        j.key("occurrences").integer(p.occurrences);
        j.key("cpuTimeNs").num(p.cpuTimeNs);
        j.key("gpuTimeNs").num(p.gpuTimeNs);
        j.key("shareOfStepTime").num(p.shareOfStepTime);
        j.key("signals");
        writeSignals(j, p.signals);
        j.key("verdict");
        writeVerdict(j, p.verdict);
        j.endObject();
    }
    j.endArray();

    // Every kernel; "topKernels" repeats the first 20 for readers of the first schema-1 reports.
    j.key("kernels").beginArray();
    for (const TopKernel& k : r.kernelsByName) {
        writeKernel(j, k, true);
    }
    j.endArray();
    j.key("topKernels").beginArray();
    for (std::size_t i = 0; i < r.kernelsByName.size() && i < kJsonTopKernels; ++i) {
        writeKernel(j, r.kernelsByName[i], false);
    }
    j.endArray();
    j.key("ops").beginArray();
    for (const TopOp& op : r.opsByGpuTime) {
        j.beginObject();
        j.key("name").str(op.name);
        j.key("class").str(toString(op.kernelClass));
        j.key("count").integer(op.count);
        j.key("kernelCount").integer(op.kernelCount);
        j.key("gpuTimeNs").integer(op.gpuTimeNs);
        j.key("meanGpuTimeNs").integer(op.meanGpuTimeNs);
        j.key("maxGpuTimeNs").integer(op.maxGpuTimeNs);
        j.key("shareOfKernelTime").num(op.shareOfKernelTime);
        j.endObject();
    }
    j.endArray();
    j.key("sampledStacks").beginObject();
    j.key("samples").integer(r.stackSampleCount);
    j.key("threads").integer(r.sampledThreadCount);
    j.key("timeNs").integer(r.sampledTimeNs);
    j.key("functions").beginArray();
    for (const SampledFunction& f : r.sampledFunctions) {
        j.beginObject();
        j.key("function").str(f.function);
        j.key("file").str(f.file);
        j.key("selfNs").integer(f.selfNs);
        j.key("totalNs").integer(f.totalNs);
        j.key("shareOfSampledTime").num(f.shareOfSampledTime);
        j.endObject();
    }
    j.endArray();
    j.endObject();

    j.key("fixes").beginArray();
    for (const Recommendation& f : r.fixes.recommendations) {
        j.beginObject();
        j.key("rule").str(f.ruleId);
        j.key("title").str(f.title);
        j.key("target").str(toString(f.target));
        j.key("ironLawTerm").str(toString(f.term));
        j.key("targetShare").num(f.targetShare);
        j.key("evidence").str(f.evidence);
        j.key("gain");
        writeGain(j, f.gain);
        j.key("sameGainAs").str(f.sameGainAs);
        j.key("costs").str(f.costs);
        j.key("risks").str(f.risks);
        j.key("companions").beginArray();
        for (const std::string& c : f.companions) {
            j.str(c);
        }
        j.endArray();
        j.key("pytorch").str(f.pytorchChange);
        j.key("references").str(f.references);
        j.endObject();
    }
    j.endArray();
    j.key("ruleDecisions").beginArray();
    for (const RuleDecision& d : r.fixes.decisions) {
        j.beginObject();
        j.key("rule").str(d.ruleId);
        j.key("title").str(d.title);
        j.key("shown").boolean(d.shown);
        j.key("reason").str(d.reason);
        j.endObject();
    }
    j.endArray();
    j.key("nextStep").str(r.fixes.nextStep);

    j.key("warnings").beginArray();
    for (const ReportWarning& w : r.warnings) {
        j.beginObject();
        j.key("severity").str(core::toString(w.severity));
        j.key("code").str(w.code);
        j.key("message").str(w.message);
        j.endObject();
    }
    j.endArray();

    j.key("config").beginObject();
    for (const DiagnosisConfigKey& k : diagnosisConfigKeys()) {
        j.key(k.key).num(r.config.*(k.member));
    }
    j.endObject();

    // Scope and per-device verdicts (one process driving several GPUs).
    j.key("scopeDeviceIndex").integer(r.scopeDeviceIndex);
    j.key("devices").beginArray();
    for (const auto& d : r.deviceReports) {
        j.beginObject();
        j.key("deviceIndex").integer(d->scopeDeviceIndex);
        j.key("traceName").str(d->device.traceDeviceName);
        j.key("headline").str(d->headline);
        j.key("verdict");
        writeVerdict(j, d->overall);
        j.key("signals");
        writeSignals(j, d->overallSignals);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    std::string out = j.take();
    out += '\n';
    return out;
}

}  // namespace chokepoint::analysis
