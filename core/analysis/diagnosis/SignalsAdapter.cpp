#include "core/analysis/diagnosis/SignalsAdapter.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/base/Strings.h"
#include "core/model/CounterSemantics.h"
#include "core/model/ThreadLabels.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

namespace {

using core::DurationNs;

double ratio(double part, double whole) {
    return whole > 0 ? part / whole : 0.0;
}

// Kernel-time mix of one window.
struct KernelMix {
    double totalNs = 0;
    double gemmNs = 0;  // GEMM + convolution
    double fp32MatmulNs = 0;
    double tensorCoreNs = 0;
    double attentionNs = 0;
    double softmaxNs = 0;
    double fusableNs = 0;  // elementwise + normalization + reduction
    double convolutionNs = 0;
    double computeBoundNs = 0;   // above the ridge (GEMM/conv/attention, or costed AI)
    double memoryBoundNs = 0;    // below the ridge (elementwise/norm/reduction/copy kernels, or costed AI)
    double unclassifiedNs = 0;   // no class, no shapes: cannot be placed
    double underOccupiedNs = 0;  // grid smaller than the SM count
    double idleSmNs = 0;         // their time × (1 − blocks / SMs)
    std::int64_t count = 0;
    std::int64_t shortCount = 0;

    void add(const KernelMix& o) {
        totalNs += o.totalNs;
        gemmNs += o.gemmNs;
        fp32MatmulNs += o.fp32MatmulNs;
        tensorCoreNs += o.tensorCoreNs;
        attentionNs += o.attentionNs;
        softmaxNs += o.softmaxNs;
        fusableNs += o.fusableNs;
        convolutionNs += o.convolutionNs;
        computeBoundNs += o.computeBoundNs;
        memoryBoundNs += o.memoryBoundNs;
        unclassifiedNs += o.unclassifiedNs;
        underOccupiedNs += o.underOccupiedNs;
        idleSmNs += o.idleSmNs;
        count += o.count;
        shortCount += o.shortCount;
    }
};

class Builder {
public:
    explicit Builder(const SignalsContext& c) : m_c(c), m_model(*c.model), m_metrics(*c.metrics) {}

    TraceSignals run() {
        TraceSignals out;
        const std::size_t stepCount = m_metrics.steps.steps.size();
        m_stepMix.assign(stepCount, {});
        indexSteps(stepCount);
        m_counterPeakBytes = counterPeakBytes();
        m_smCount = smCount();
        m_ridgeFlopsPerByte = lowestRidge();
        m_hostActivity = computeHostActivity();
        scanHostUse();
        collectKernels();
        collectIdle(stepCount);
        out.steps.reserve(stepCount);
        for (std::size_t s = 0; s < stepCount; ++s) {
            out.steps.push_back(stepSignals(static_cast<std::int32_t>(s)));
        }
        out.overall = overall(out.steps);
        out.phases = phases();
        return out;
    }

private:
    void collectKernels() {
        const core::KernelTable& k = m_model.kernels;
        const KernelStatsResult& stats = m_metrics.kernels;
        struct NameFacts {
            bool softmax = false;
            bool triton = false;
        };
        std::unordered_map<std::uint32_t, NameFacts> factsByName;
        for (std::size_t i = 0; i < k.size(); ++i) {
            if (k.deviceIndex[i] != m_c.deviceIndex) {
                continue;
            }
            const double ns = static_cast<double>(std::max<DurationNs>(0, k.durationNs(i)));
            const KernelClass cls = i < stats.kernelClass.size() ? stats.kernelClass[i] : KernelClass::Other;
            const bool tc = i < stats.kernelTensorCore.size() && stats.kernelTensorCore[i] != 0;
            const std::int8_t precision =
                i < m_metrics.opCosts.kernelPrecision.size() ? m_metrics.opCosts.kernelPrecision[i] : -1;
            auto [it, inserted] = factsByName.try_emplace(k.name[i].index);
            if (inserted) {
                const names::KernelNameInfo info = names::classifyKernelName(m_model.text(k.name[i]));
                it->second.softmax = names::isSoftmaxKernelName(m_model.text(k.name[i]));
                it->second.triton = info.family == names::KernelFamily::Triton;
                m_cudaGraphsSeen = m_cudaGraphsSeen || info.family == names::KernelFamily::CudaGraph;
                m_compiledCodeSeen = m_compiledCodeSeen || info.family == names::KernelFamily::Triton;
            }
            KernelMix one;
            one.totalNs = ns;
            one.count = 1;
            one.shortCount = ns < m_c.config.shortKernelNs ? 1 : 0;
            if (cls == KernelClass::Gemm || cls == KernelClass::Convolution) {
                one.gemmNs = ns;
                const bool reducedPrecision = precision == static_cast<std::int8_t>(Precision::BF16) ||
                                              precision == static_cast<std::int8_t>(Precision::FP16) ||
                                              precision == static_cast<std::int8_t>(Precision::FP8);
                // A Triton GEMM's name carries no precision (tl.dot runs on tensor cores for
                // bf16/fp16/tf32 inputs): without a recorded dtype it is not counted as FP32.
                const bool unknownTriton = it->second.triton && precision < 0;
                if (!tc && !reducedPrecision && !unknownTriton) {
                    one.fp32MatmulNs = ns;
                }
            }
            if (cls == KernelClass::Convolution) {
                one.convolutionNs = ns;
            }
            if (tc) {
                one.tensorCoreNs = ns;
            }
            if (cls == KernelClass::Attention) {
                one.attentionNs = ns;
            }
            if (it->second.softmax) {
                one.softmaxNs = ns;
            }
            if (cls == KernelClass::Elementwise || cls == KernelClass::Normalization ||
                cls == KernelClass::Reduction) {
                one.fusableNs = ns;
                m_fusableNames.insert(k.name[i].index);
            }
            placeOnRidge(one, cls, i, ns);
            if (cls != KernelClass::Communication && m_smCount > 0) {
                const std::int64_t blocks = gridBlocks(k, i);
                if (blocks > 0 && blocks < m_smCount) {
                    one.underOccupiedNs = ns;
                    one.idleSmNs = ns * (1.0 - static_cast<double>(blocks) / static_cast<double>(m_smCount));
                    auto& [idleSm, blk] = m_underOccupiedByName[k.name[i].index];
                    idleSm += one.idleSmNs;
                    blk = blocks;
                }
            }
            const std::int32_t step =
                i < m_metrics.steps.kernelStep.size() ? m_metrics.steps.kernelStep[i] : -1;
            if (step >= 0 && static_cast<std::size_t>(step) < m_stepMix.size()) {
                m_stepMix[static_cast<std::size_t>(step)].add(one);
                if (m_metrics.stepTimes.isSteady(static_cast<std::size_t>(step))) {
                    m_overallMix.add(one);
                }
            }
            const std::int8_t phase =
                i < m_metrics.phases.kernelPhase.size() ? m_metrics.phases.kernelPhase[i] : std::int8_t{-1};
            if (phase >= 0 && static_cast<std::size_t>(phase) < kPhaseKindCount && inPhaseFigures(step)) {
                m_phaseMix[static_cast<std::size_t>(phase)].add(one);
            }
        }
    }

    static std::int64_t gridBlocks(const core::KernelTable& k, std::size_t i) {
        if (i >= k.gridX.size() || k.gridX[i] <= 0) {
            return 0;
        }
        return static_cast<std::int64_t>(k.gridX[i]) * std::max(1, k.gridY[i]) * std::max(1, k.gridZ[i]);
    }

    // Above or below the ridge: by kernel class where the class says (GEMM, convolution, attention
    // above; elementwise, normalization, reduction, copy and memset kernels below, Table 5), else by
    // the kernel's arithmetic intensity from recorded shapes against the device's lowest ridge (a
    // kernel below it is memory-bound at every precision). Anything else cannot be placed.
    void placeOnRidge(KernelMix& one, KernelClass cls, std::size_t i, double ns) {
        switch (cls) {
            case KernelClass::Gemm:
            case KernelClass::Convolution:
            case KernelClass::Attention:
                one.computeBoundNs = ns;
                return;
            case KernelClass::Elementwise:
            case KernelClass::Normalization:
            case KernelClass::Reduction:
            case KernelClass::Copy:
            case KernelClass::Memset:
                one.memoryBoundNs = ns;
                return;
            case KernelClass::Communication:
                return;
            case KernelClass::Other:
                break;
        }
        const OpCostResult& costs = m_metrics.opCosts;
        const double flops = i < costs.kernelFlops.size() ? costs.kernelFlops[i] : 0.0;
        const double bytes = i < costs.kernelBytes.size() ? costs.kernelBytes[i] : 0.0;
        if (bytes > 0 && m_ridgeFlopsPerByte > 0) {
            (flops / bytes < m_ridgeFlopsPerByte ? one.memoryBoundNs : one.computeBoundNs) = ns;
            return;
        }
        one.unclassifiedNs = ns;
        m_unclassifiedByName[m_model.kernels.name[i].index] += ns;
    }

    std::int64_t smCount() const {
        if (const core::DeviceInfo* info = m_model.device(m_c.deviceIndex);
            info != nullptr && info->smCount > 0) {
            return info->smCount;
        }
        return m_c.device != nullptr ? m_c.device->smCount : 0;
    }

    // The lowest ridge point (FLOP/byte) among the device's peaks: 0 without a datasheet.
    double lowestRidge() const {
        if (m_c.device == nullptr || m_c.device->memoryBandwidthBytesPerSecond <= 0) {
            return 0;
        }
        double lowest = 0;
        for (const PeakFlops& p : m_c.device->peaks) {
            const double ridge = p.flopsPerSecond / m_c.device->memoryBandwidthBytesPerSecond;
            if (ridge > 0 && (lowest == 0 || ridge < lowest)) {
                lowest = ridge;
            }
        }
        return lowest;
    }

    void collectIdle(std::size_t stepCount) {
        m_deviceIdle.clear();
        m_stepCovered.assign(stepCount, 0);
        m_stepIdleTotal.assign(stepCount, 0);
        m_stepStreamWait.assign(stepCount, 0);
        m_stepLaunches.assign(stepCount, 0);
        m_stepQueued.assign(stepCount, 0);
        m_stepQueuedCollective.assign(stepCount, 0);
        for (std::size_t i = 0; i < m_metrics.accounting.idleIntervals.size(); ++i) {
            const IdleInterval& v = m_metrics.accounting.idleIntervals[i];
            if (v.deviceIndex != m_c.deviceIndex || v.stepIndex < 0 ||
                static_cast<std::size_t>(v.stepIndex) >= stepCount) {
                continue;
            }
            const auto s = static_cast<std::size_t>(v.stepIndex);
            const double ns = static_cast<double>(v.range.durationNs());
            if (v.streamId >= 0) {
                m_stepStreamWait[s] += ns;
                continue;
            }
            m_deviceIdle.push_back(i);
            m_stepIdleTotal[s] += ns;
            m_stepLaunches[s] += v.launchCount;
            if (v.queued) {
                m_stepQueued[s] += ns;
                m_stepQueuedCollective[s] += v.cause == IdleCause::Collective ? ns : 0.0;
            } else if (v.cause != IdleCause::Unexplained) {
                m_stepCovered[s] += ns * std::clamp(v.coverage, 0.0, 1.0);
            }
        }
        // The device's gaps never overlap one another: sorted by start, they are sorted by end too.
        std::sort(m_deviceIdle.begin(), m_deviceIdle.end(), [this](std::size_t a, std::size_t b) {
            return m_metrics.accounting.idleIntervals[a].range.startNs <
                   m_metrics.accounting.idleIntervals[b].range.startNs;
        });
    }

    // Per-step lookups built once, so the per-step pass stays linear.
    void indexSteps(std::size_t stepCount) {
        m_stepRows.assign(stepCount, nullptr);
        for (const GpuTimeBreakdown& b : m_metrics.accounting.perStep) {
            if (b.deviceIndex == m_c.deviceIndex && b.stepIndex >= 0 &&
                static_cast<std::size_t>(b.stepIndex) < stepCount) {
                m_stepRows[static_cast<std::size_t>(b.stepIndex)] = &b;
            }
        }
        m_stepBandwidth.assign(stepCount, nullptr);
        for (const StepBandwidth& b : m_metrics.roofline.steps) {
            if (b.stepIndex >= 0 && static_cast<std::size_t>(b.stepIndex) < stepCount) {
                m_stepBandwidth[static_cast<std::size_t>(b.stepIndex)] = &b;
            }
        }
        m_stepDataLoadingNs.assign(stepCount, 0);
        for (const Phase& p : m_metrics.phases.phases) {
            if (p.kind != PhaseKind::DataLoading) {
                continue;
            }
            m_dataLoadingNs += static_cast<double>(p.cpuTimeNs);
            if (p.stepIndex >= 0 && static_cast<std::size_t>(p.stepIndex) < stepCount) {
                m_stepDataLoadingNs[static_cast<std::size_t>(p.stepIndex)] +=
                    static_cast<double>(p.cpuTimeNs);
            }
        }
    }

    const GpuTimeBreakdown* stepRow(std::int32_t stepIndex) const {
        return m_stepRows[static_cast<std::size_t>(stepIndex)];
    }

    const GpuTimeBreakdown* deviceRow() const {
        for (const GpuTimeBreakdown& b : m_metrics.accounting.perDevice) {
            if (b.deviceIndex == m_c.deviceIndex) {
                return &b;
            }
        }
        return nullptr;
    }

    // The overall row over the steady steps only (StepTimes.h leaves warm-up and outlier steps out of
    // the verdict): the sum of their per-step rows. The steps' windows never overlap, so the sums are
    // the steady steps' union. Without excluded steps, the device row over the whole span.
    const GpuTimeBreakdown* steadyRow() const {
        const StepTimeSummary& times = m_metrics.stepTimes;
        if (times.excluded.empty()) {
            return deviceRow();
        }
        GpuTimeBreakdown& sum = m_steadySum;
        sum = GpuTimeBreakdown{};
        sum.deviceIndex = m_c.deviceIndex;
        bool any = false;
        for (std::size_t i = 0; i < m_stepRows.size(); ++i) {
            const GpuTimeBreakdown* b = m_stepRows[i];
            if (b == nullptr || !times.isSteady(i)) {
                continue;
            }
            if (!any) {
                sum.window = b->window;
            }
            any = true;
            sum.window.startNs = std::min(sum.window.startNs, b->window.startNs);
            sum.window.endNs = std::max(sum.window.endNs, b->window.endNs);
            sum.windowNs += b->windowNs;
            sum.busyNs += b->busyNs;
            sum.computeNs += b->computeNs;
            sum.communicationNs += b->communicationNs;
            sum.copyNs += b->copyNs;
            for (std::size_t k = 0; k < sum.copyByKindNs.size(); ++k) {
                sum.copyByKindNs[k] += b->copyByKindNs[k];
            }
            sum.memsetNs += b->memsetNs;
            sum.exposedCommunicationNs += b->exposedCommunicationNs;
            sum.exposedCopyNs += b->exposedCopyNs;
            sum.idleNs += b->idleNs;
            for (std::size_t k = 0; k < sum.idleByCauseNs.size(); ++k) {
                sum.idleByCauseNs[k] += b->idleByCauseNs[k];
            }
            sum.idleAfterSyncNs += b->idleAfterSyncNs;
            sum.hostSyncNs += b->hostSyncNs;
            sum.hostWorkNs += b->hostWorkNs;
            sum.kernelCount += b->kernelCount;
            sum.memcpyCount += b->memcpyCount;
            sum.memsetCount += b->memsetCount;
            sum.shortKernelCount += b->shortKernelCount;
            sum.idleIntervalCount += b->idleIntervalCount;
        }
        return any ? &sum : deviceRow();
    }

    // Any host-side record (runtime calls, framework ops, host ranges); GPU-projected annotation
    // ranges do not count.
    bool hostActivityRecorded() const { return m_hostActivity; }

    bool computeHostActivity() const {
        if (m_model.apiCalls.size() + m_model.cpuOps.size() + m_model.stackSamples.size() > 0) {
            return true;
        }
        return std::any_of(m_model.ranges.source.begin(), m_model.ranges.source.end(),
                           [](core::RangeSource r) { return r != core::RangeSource::GpuUserAnnotation; });
    }

    void fillCommon(DiagnosisSignals& s) const {
        s.worldSize = m_model.distributed.present ? std::max(1, m_model.distributed.worldSize) : 1;
        if (const core::DeviceInfo* info = m_model.device(m_c.deviceIndex)) {
            s.architecture = architectureOf(*info);
            if (info->totalMemoryBytes > 0) {
                s.capacityBytes = static_cast<double>(info->totalMemoryBytes);
            }
        }
        if (!s.capacityBytes && m_c.device != nullptr && m_c.device->memoryCapacityBytes > 0) {
            s.capacityBytes = m_c.device->memoryCapacityBytes;
        }
        s.parameterCount = m_c.parameterCount;
        s.outOfMemoryObserved = m_c.outOfMemoryObserved;
        if (m_c.peakMemoryBytes) {
            s.peakMemoryBytes = m_c.peakMemoryBytes;
        } else if (m_counterPeakBytes > 0) {
            s.peakMemoryBytes = m_counterPeakBytes;
        }
        for (const core::CounterTrack& t : m_model.counters) {
            if (t.deviceIndex == m_c.deviceIndex && t.name == core::kMemoryAllocatedChangeTrack &&
                !t.values.empty()) {
                s.memoryRiseBytes = std::max(0.0, *std::max_element(t.values.begin(), t.values.end()));
            }
        }
    }

    // Peak of the device's memory-use counter (bytes), 0 when the trace has none.
    double counterPeakBytes() const {
        double peak = 0;
        for (const core::CounterTrack& t : m_model.counters) {
            if (t.deviceIndex != m_c.deviceIndex || !core::isDeviceMemoryLevelTrack(t)) {
                continue;
            }
            for (double v : t.values) {
                peak = std::max(peak, v);
            }
        }
        return peak;
    }

    void fillBreakdown(DiagnosisSignals& s, const GpuTimeBreakdown& b) const {
        s.windowNs = static_cast<double>(b.windowNs);
        s.hasGpuActivity = b.busyNs > 0;
        s.busyFraction = b.share(b.busyNs);
        s.computeFraction = b.share(b.computeNs);
        s.communicationFraction = b.share(b.communicationNs);
        s.exposedCommunicationFraction = b.share(b.exposedCommunicationNs);
        s.copyFraction = b.share(b.copyNs);
        s.exposedCopyFraction = b.share(b.exposedCopyNs);
        s.memsetFraction = b.share(b.memsetNs);
        s.idleFraction = b.share(b.idleNs);
        const auto cause = [&](IdleCause c) { return b.share(b.idleByCauseNs[static_cast<std::size_t>(c)]); };
        s.idleCausesKnown = hostActivityRecorded();
        s.idleDataWaitFraction = cause(IdleCause::DataWait);
        s.idleLaunchOverheadFraction = cause(IdleCause::LaunchOverhead);
        s.idleSyncFraction = cause(IdleCause::Synchronization);
        s.idleAfterSyncFraction = b.share(b.idleAfterSyncNs);
        s.hostSyncFraction = b.share(b.hostSyncNs);
        s.idleCollectiveFraction = cause(IdleCause::Collective);
        s.idleUnexplainedFraction = cause(IdleCause::Unexplained) + cause(IdleCause::OtherStream);
        s.idleHostWorkFraction = cause(IdleCause::HostWork);
        s.idleCompilationFraction = cause(IdleCause::Compilation);
        s.idleHousekeepingFraction = cause(IdleCause::Housekeeping);
        s.idleGcFraction = cause(IdleCause::GarbageCollection);
        s.idleIntervalCount = b.idleIntervalCount;
        if (s.idleCausesKnown) {
            s.hostWorkFraction = b.share(b.hostWorkNs);
        }
        s.collectivesSeen = b.communicationNs > 0;
        s.exposedHostCopyFraction = b.share(b.exposedHostCopyNs);
        const double hostCopyNs =
            static_cast<double>(b.copyByKindNs[static_cast<std::size_t>(core::MemcpyKind::HostToDevice)] +
                                b.copyByKindNs[static_cast<std::size_t>(core::MemcpyKind::DeviceToHost)]);
        s.pageableHostCopyShare = ratio(static_cast<double>(b.pageableHostCopyNs), hostCopyNs);
        // DtoD copies move HBM bytes; H2D/D2H are PCIe traffic.
        m_dtodNs =
            static_cast<double>(b.copyByKindNs[static_cast<std::size_t>(core::MemcpyKind::DeviceToDevice)]);
    }

    // HTA's split of this device's busiest stream (evidence only; the queued waits themselves are
    // decided per gap by GPU time accounting): host_wait / (host_wait + other).
    void fillHostWaitShare(DiagnosisSignals& s) const {
        const HtaStreamIdle* busiest = nullptr;
        for (const HtaStreamIdle& st : m_metrics.hta.streams) {
            if (st.deviceIndex == m_c.deviceIndex && (busiest == nullptr || st.busyNs > busiest->busyNs)) {
                busiest = &st;
            }
        }
        if (busiest == nullptr) {
            return;
        }
        const double waited = static_cast<double>(busiest->hostWaitNs + busiest->otherNs);
        if (waited > 0) {
            s.hostWaitShareOfStreamIdle = static_cast<double>(busiest->hostWaitNs) / waited;
        }
    }

    void fillMix(DiagnosisSignals& s, const KernelMix& mix, double busyNs) const {
        s.kernelCount = mix.count;
        s.shortKernelCount = mix.shortCount;
        s.meanKernelNs = ratio(mix.totalNs, static_cast<double>(mix.count));
        s.gemmShare = ratio(mix.gemmNs, mix.totalNs);
        s.fp32MatmulShare = ratio(mix.fp32MatmulNs, mix.totalNs);
        s.tensorCoreShare = ratio(mix.tensorCoreNs, mix.totalNs);
        s.attentionShare = ratio(mix.attentionNs, mix.totalNs);
        s.fusedAttentionSeen = mix.attentionNs > 0;
        s.softmaxShare = ratio(mix.softmaxNs, mix.totalNs);
        s.elementwiseShare = ratio(mix.fusableNs, mix.totalNs);
        s.fusableKernelNameCount = static_cast<std::int32_t>(m_fusableNames.size());
        s.convolutionSeen = mix.convolutionNs > 0;
        s.cudaGraphsSeen = m_cudaGraphsSeen;
        s.compiledCodeSeen = m_compiledCodeSeen;
        if (busyNs > 0 && mix.totalNs > 0) {
            // Kernel time is a sum over streams; scale the memory-bound part to the busy union.
            const double memoryBoundKernel = ratio(mix.memoryBoundNs, mix.totalNs);
            const double dtodShare = ratio(m_dtodNs, busyNs);
            s.memoryBoundBusyShare = std::clamp(memoryBoundKernel + dtodShare, 0.0, 1.0);
        }
        if (mix.totalNs > 0) {
            s.compositionKnown = true;
            s.computeBoundKernelShare = ratio(mix.computeBoundNs, mix.totalNs);
            s.memoryBoundKernelShare = ratio(mix.memoryBoundNs, mix.totalNs);
            s.unclassifiedKernelShare = ratio(mix.unclassifiedNs, mix.totalNs);
            s.underOccupiedKernelShare = ratio(mix.underOccupiedNs, mix.totalNs);
            s.underOccupiedIdleSmShare = ratio(mix.idleSmNs, mix.totalNs);
        }
        s.smCount = m_smCount;
        // The kernels named in evidence: the trace's largest of each kind.
        s.topUnclassifiedKernel = largestName(m_unclassifiedByName);
        double best = -1;
        for (const auto& [name, entry] : m_underOccupiedByName) {
            if (entry.first > best) {
                best = entry.first;
                s.underOccupiedKernel = std::string(m_model.text(core::StringId{name}));
                s.underOccupiedBlocks = entry.second;
            }
        }
    }

    std::string largestName(const std::unordered_map<std::uint32_t, double>& byName) const {
        const auto it = std::max_element(byName.begin(), byName.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
        return it == byName.end() ? std::string() : std::string(m_model.text(core::StringId{it->first}));
    }

    // Measured GPU metrics of the window (stepIndex -1: the whole trace).
    void fillMeasured(DiagnosisSignals& s, std::int32_t stepIndex) const {
        const MeasuredActivity m = measuredActivity(m_metrics.counters, m_c.deviceIndex, stepIndex);
        s.smActiveFraction = m.smActive;
        s.tensorActiveFraction = m.tensorActive;
        s.dramActiveFraction = m.dramThroughput;
        s.pcieActiveFraction = m.pcieThroughput;
    }

    // The frames that took the host-work and the data-wait idle on this device, by exclusive time
    // (top 5 of each).
    // A thread known only from its CPU use is named after what it is (core/model/ThreadLabels.h).
    void fillHostWorkFrames(DiagnosisSignals& s) const {
        const core::ThreadLabels labels(m_model);
        auto fill = [&](const std::vector<HostFrameTime>& frames, double causeFraction,
                        std::vector<DiagnosisSignals::HostFrameShare>& out) {
            // A cause under 1 % of the window names no frames: "data wait 0.0 %" followed by
            // "cudaMemcpyAsync 100.0 % of the data wait" reads as a finding where there is none.
            constexpr double kMinCauseFraction = 0.01;
            if (causeFraction < kMinCauseFraction) {
                return;
            }
            constexpr std::size_t kShown = 5;
            for (const HostFrameTime& f : frames) {
                if (f.deviceIndex != m_c.deviceIndex || out.size() >= kShown) {
                    continue;
                }
                const double ofCause =
                    ratio(static_cast<double>(f.exclusiveNs), static_cast<double>(f.wholeNs));
                out.push_back({f.thread != core::kNoThread ? labels.of(f.thread).label
                                                           : std::string(m_model.text(f.name)),
                               ofCause, ofCause * causeFraction, f.thread != core::kNoThread});
            }
        };
        fill(m_metrics.accounting.hostWorkFrames, s.idleHostWorkFraction, s.hostWorkFrames);
        fill(m_metrics.accounting.dataWaitFrames, s.idleDataWaitFraction, s.dataWaitFrames);
        fill(m_metrics.accounting.afterSyncCalls, s.idleAfterSyncFraction, s.afterSyncCalls);
        for (DiagnosisSignals::HostFrameShare& call : s.afterSyncCalls) {
            if (call.name.empty()) {
                call.name = "a CUDA synchronization";
            }
        }
    }

    // The sampled stacks that filled this device's idle (StackIdleProfile): the largest stacks and
    // frames over all sampled threads, and the main thread's split by activity.
    // hostSamplesInSteps and stepsSpanNs (DiagnosisSignals.h).
    void fillHostSampleDensity(DiagnosisSignals& s) const {
        core::TimeRange span;
        const std::vector<Step>& steps = m_metrics.steps.steps;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (m_metrics.stepTimes.isSteady(i)) {
                span = span.empty() ? steps[i].range
                                    : core::TimeRange{std::min(span.startNs, steps[i].range.startNs),
                                                      std::max(span.endNs, steps[i].range.endNs)};
            }
        }
        if (span.empty()) {
            return;
        }
        s.stepsSpanNs = static_cast<double>(span.durationNs());
        bool sampled = m_model.stackSamples.size() > 0;
        std::unordered_map<std::int64_t, std::int64_t> perThread;  // (pid << 32 | tid) or stack thread
        for (const core::CounterTrack& track : m_model.counters) {
            if (!core::isThreadCpuTrack(track)) {
                continue;
            }
            sampled = true;
            const auto n = std::count_if(track.timesNs.begin(), track.timesNs.end(),
                                         [&](core::TimestampNs t) { return span.contains(t); });
            std::int64_t& count = perThread[(track.pid << 32) ^ track.tid];
            count = std::max<std::int64_t>(count, n);
        }
        for (std::size_t i = 0; i < m_model.stackSamples.size(); ++i) {
            if (span.contains(m_model.stackSamples.timeNs[i])) {
                ++perThread[-1 - static_cast<std::int64_t>(m_model.stackSamples.thread[i])];
            }
        }
        if (!sampled) {
            return;
        }
        s.hostSamplesInSteps = 0;
        for (const auto& [thread, count] : perThread) {
            s.hostSamplesInSteps = std::max(s.hostSamplesInSteps, count);
        }
    }

    void fillSampledStacks(DiagnosisSignals& s) const {
        const DeviceStackIdle* d = m_metrics.stackIdle.device(m_c.deviceIndex);
        if (d == nullptr || d->idleNs <= 0) {
            return;
        }
        const core::ThreadLabels labels(m_model);
        for (const SampledThreadIdle& t : d->threads) {
            const std::string thread = labels.of(t.thread).label;
            for (const SampledStackTime& st : t.stacks) {
                s.sampledStacks.push_back(
                    {thread, std::string(names::toString(st.role)), st.path, d->share(st.ns)});
            }
            for (const SampledFrameTime& f : t.frames) {
                // A frame on every sample of the thread that never runs itself (main, the training
                // loop) says nothing about where the time went.
                if (f.inclusiveNs == t.sampledNs && f.exclusiveNs == 0) {
                    continue;
                }
                s.sampledFrames.push_back({thread, f.name, d->share(f.inclusiveNs), d->share(f.exclusiveNs)});
            }
        }
        std::stable_sort(s.sampledStacks.begin(), s.sampledStacks.end(),
                         [](const auto& a, const auto& b) { return a.shareOfIdle > b.shareOfIdle; });
        std::stable_sort(s.sampledFrames.begin(), s.sampledFrames.end(), [](const auto& a, const auto& b) {
            return a.inclusiveShareOfIdle > b.inclusiveShareOfIdle;
        });
        s.sampledStacks.resize(std::min<std::size_t>(s.sampledStacks.size(), 5));
        s.sampledFrames.resize(std::min<std::size_t>(s.sampledFrames.size(), 8));
        // The main thread: labelled so, else the thread sampled longest in the idle.
        const SampledThreadIdle* main = &d->threads.front();
        for (const SampledThreadIdle& t : d->threads) {
            if (labels.of(t.thread).role == names::ThreadRole::Main) {
                main = &t;
                break;
            }
        }
        auto role = [&](names::HostRole r) { return d->share(main->byRoleNs[static_cast<std::size_t>(r)]); };
        DiagnosisSignals::SampledMainThread m;
        m.thread = labels.of(main->thread).label;
        m.sampledShare = d->share(main->sampledNs);
        m.inputWorkShare = role(names::HostRole::DataPreparation);
        m.loaderWaitShare = role(names::HostRole::DataLoading);
        m.optimizerShare = role(names::HostRole::Optimizer);
        m.compilationShare = role(names::HostRole::Compilation);
        m.housekeepingShare = role(names::HostRole::Housekeeping);
        m.syncShare = role(names::HostRole::Synchronization);
        for (const SampledStackTime& st : main->stacks) {  // largest first
            if (st.role == names::HostRole::DataPreparation && m.topInputPath.empty()) {
                m.topInputPath = st.path;
            }
            if (st.role == names::HostRole::Optimizer && m.topOptimizerPath.empty()) {
                m.topOptimizerPath = st.path;
            }
        }
        s.sampledMain = std::move(m);
    }

    // Host signs that CUDA graphs or torch.compile are in use: graph launch calls, compiled-region
    // ranges and ops, compilation frames.
    void scanHostUse() {
        std::vector<std::int8_t> seen(m_model.strings.size(), -1);
        const auto roleOf = [&](core::StringId id) {
            if (!id.valid() || id.index >= seen.size()) {
                return names::HostRole::None;
            }
            std::int8_t& r = seen[id.index];
            if (r < 0) {
                r = static_cast<std::int8_t>(names::hostRoleOf(m_model.text(id)));
            }
            return static_cast<names::HostRole>(r);
        };
        const auto compiled = [&](core::StringId id) {
            const names::HostRole r = roleOf(id);
            return r == names::HostRole::CompiledRegion || r == names::HostRole::Compilation;
        };
        for (std::size_t i = 0; i < m_model.ranges.size() && !m_compiledCodeSeen; ++i) {
            m_compiledCodeSeen = compiled(m_model.ranges.name[i]);
        }
        for (std::size_t i = 0; i < m_model.cpuOps.size() && !m_compiledCodeSeen; ++i) {
            m_compiledCodeSeen = compiled(m_model.cpuOps.name[i]);
        }
        for (std::size_t i = 0; i < m_model.stackFrames.size() && !m_compiledCodeSeen; ++i) {
            const core::StackFrame& f = m_model.stackFrames[i];
            const names::HostRole r =
                names::hostRoleOf(names::frameName(m_model.text(f.file), m_model.text(f.function), f.line));
            m_compiledCodeSeen = r == names::HostRole::CompiledRegion || r == names::HostRole::Compilation;
        }
        std::vector<std::int8_t> graph(m_model.strings.size(), -1);
        for (std::size_t i = 0; i < m_model.apiCalls.size() && !m_cudaGraphsSeen; ++i) {
            const core::StringId id = m_model.apiCalls.name[i];
            if (!id.valid() || id.index >= graph.size()) {
                continue;
            }
            if (graph[id.index] < 0) {
                graph[id.index] = names::apiRoleOf(m_model.text(id)) == names::ApiRole::GraphLaunch ? 1 : 0;
            }
            m_cudaGraphsSeen = graph[id.index] == 1;
        }
    }

    bool shapeEstimateUsable() const {
        const double kernels = static_cast<double>(m_model.kernels.size());
        return kernels > 0 && static_cast<double>(m_metrics.opCosts.kernelsCosted) >= 0.5 * kernels;
    }

    void fillBandwidth(DiagnosisSignals& s, std::int32_t stepIndex) const {
        const StepBandwidth* b = m_stepBandwidth[static_cast<std::size_t>(stepIndex)];
        if (b == nullptr || b->fractionOfPeak < 0) {
            return;
        }
        if (b->source == BandwidthSource::Counters) {
            s.hbmBandwidthFraction = b->fractionOfPeak;
            s.hbmMeasured = true;
        } else if (b->source == BandwidthSource::ShapeEstimate && shapeEstimateUsable()) {
            s.hbmBandwidthFraction = b->fractionOfPeak;
            s.hbmMeasured = false;
        }
    }

    void fillMfu(DiagnosisSignals& s) const {
        if (m_c.modelFlopsPerStep && m_c.peakFlopsPerSecond > 0 && s.stepTimeNs > 0) {
            s.mfu = *m_c.modelFlopsPerStep / (m_c.peakFlopsPerSecond * s.stepTimeNs * 1e-9);
        }
        if (m_c.device != nullptr && m_c.peakFlopsPerSecond > 0) {
            double half = m_c.device->peakFlopsPerSecond(Precision::BF16);
            if (!(half > 0)) {
                half = m_c.device->peakFlopsPerSecond(Precision::FP16);  // V100, T4: no BF16
            }
            if (half > 0) {
                s.halfPrecisionPeakRatio = half / m_c.peakFlopsPerSecond;
            }
        }
    }

    double dataLoadingNs(std::int32_t stepIndex) const {
        return stepIndex < 0 ? m_dataLoadingNs : m_stepDataLoadingNs[static_cast<std::size_t>(stepIndex)];
    }

    DiagnosisSignals stepSignals(std::int32_t stepIndex) const {
        DiagnosisSignals s;
        const Step& step = m_metrics.steps.steps[static_cast<std::size_t>(stepIndex)];
        s.scope = "step " + step.name;
        s.stepCount = 1;
        m_dtodNs = 0;
        fillCommon(s);
        const auto idx = static_cast<std::size_t>(stepIndex);
        if (const GpuTimeBreakdown* b = stepRow(stepIndex)) {
            fillBreakdown(s, *b);
            fillHostWaitShare(s);
            fillMix(s, m_stepMix[idx], static_cast<double>(b->busyNs));
        } else {
            s.windowNs = static_cast<double>(step.durationNs());
        }
        s.stepTimeNs = static_cast<double>(step.durationNs());
        s.streamWaitFraction = ratio(m_stepStreamWait[idx], s.windowNs);
        s.launchesDuringIdle = m_stepLaunches[idx];
        s.queuedWaitFraction = ratio(m_stepQueued[idx], s.windowNs);
        s.queuedCollectiveWaitFraction = ratio(m_stepQueuedCollective[idx], s.windowNs);
        if (m_stepIdleTotal[idx] > 0 && s.idleCausesKnown) {
            s.cpuBusyDuringIdleFraction = m_stepCovered[idx] / m_stepIdleTotal[idx];
        }
        s.dataLoadingHostFraction = ratio(dataLoadingNs(stepIndex), s.windowNs);
        fillBandwidth(s, stepIndex);
        fillMeasured(s, stepIndex);
        fillMfu(s);
        return s;
    }

    DiagnosisSignals overall(const std::vector<DiagnosisSignals>& steps) const {
        DiagnosisSignals s;
        s.scope = "overall";
        s.stepCount = static_cast<std::int64_t>(steps.size());
        m_dtodNs = 0;
        fillCommon(s);
        const GpuTimeBreakdown* b = steadyRow();
        if (b != nullptr) {
            fillBreakdown(s, *b);
            fillHostWaitShare(s);
            fillMix(s, m_overallMix, static_cast<double>(b->busyNs));
        }
        double idle = 0, covered = 0, wait = 0, dataLoading = 0, queued = 0, queuedCollective = 0;
        std::int64_t launches = 0, withData = 0, steady = 0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (!m_metrics.stepTimes.isSteady(i)) {
                ++s.excludedStepCount;
                continue;
            }
            ++steady;
            dataLoading += m_stepDataLoadingNs[i];
            idle += m_stepIdleTotal[i];
            covered += m_stepCovered[i];
            wait += m_stepStreamWait[i];
            launches += m_stepLaunches[i];
            queued += m_stepQueued[i];
            queuedCollective += m_stepQueuedCollective[i];
            if (steps[i].idleDataWaitFraction >= m_c.config.dataWaitMinFraction) {
                ++withData;
            }
        }
        // The step time every output shows (StepTimes.h): the mean of the step windows, which never
        // overlap.
        s.stepTimeNs =
            steps.empty() || m_metrics.stepTimes.count == 0 ? s.windowNs : m_metrics.stepTimes.meanNs;
        s.streamWaitFraction = ratio(wait, s.windowNs);
        s.launchesDuringIdle = launches;
        s.queuedWaitFraction = ratio(queued, s.windowNs);
        s.queuedCollectiveWaitFraction = ratio(queuedCollective, s.windowNs);
        if (idle > 0 && s.idleCausesKnown) {
            s.cpuBusyDuringIdleFraction = covered / idle;
        }
        if (steady >= 2) {
            s.stepsWithDataWaitFraction = static_cast<double>(withData) / static_cast<double>(steady);
            s.stepsWithDataWaitCount = withData;
        }
        s.dataLoadingHostFraction =
            ratio(s.excludedStepCount > 0 ? dataLoading : dataLoadingNs(-1), s.windowNs);
        fillHostWorkFrames(s);
        fillSampledStacks(s);
        fillHostSampleDensity(s);
        // Bandwidth: time-weighted mean of the steady steps' fractions of one source.
        double weighted = 0, weight = 0;
        bool measured = true;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const DiagnosisSignals& st = steps[i];
            if (st.hbmBandwidthFraction && m_metrics.stepTimes.isSteady(i)) {
                weighted += *st.hbmBandwidthFraction * st.windowNs;
                weight += st.windowNs;
                measured = measured && st.hbmMeasured;
            }
        }
        if (weight > 0) {
            s.hbmBandwidthFraction = weighted / weight;
            s.hbmMeasured = measured;
        }
        fillMeasured(s, -1);
        fillMfu(s);
        return s;
    }

    // Phases are figures of the steady steps, as the overall ones are (StepTimes.h): a warm-up
    // step's forward (compilation, autotuning) must not make the forward phase host-bound. Work
    // outside every step, or a trace whose steps are all left out, counts as before.
    bool inPhaseFigures(std::int32_t stepIndex) const {
        return stepIndex < 0 || m_metrics.stepTimes.count == 0 ||
               m_metrics.stepTimes.isSteady(static_cast<std::size_t>(stepIndex));
    }

    // Per phase kind, its GPU work in the steady steps on this device: kernels, every copy, and the
    // host-device (H2D/D2H) copies.
    struct PhaseGpuSets {
        IntervalSet kernels, copies, hostCopies;
    };
    std::array<PhaseGpuSets, kPhaseKindCount> phaseGpuSets() const {
        std::array<std::vector<core::TimeRange>, kPhaseKindCount> kernels, copies, hostCopies;
        const PhasesResult& ph = m_metrics.phases;
        const core::KernelTable& k = m_model.kernels;
        for (std::size_t i = 0; i < k.size() && i < ph.kernelPhase.size(); ++i) {
            const std::int32_t step =
                i < m_metrics.steps.kernelStep.size() ? m_metrics.steps.kernelStep[i] : -1;
            if (ph.kernelPhase[i] >= 0 && k.deviceIndex[i] == m_c.deviceIndex && inPhaseFigures(step)) {
                kernels[static_cast<std::size_t>(ph.kernelPhase[i])].push_back({k.startNs[i], k.endNs[i]});
            }
        }
        const core::MemcpyTable& c = m_model.memcpys;
        for (std::size_t i = 0; i < c.size() && i < ph.memcpyPhase.size(); ++i) {
            const std::int32_t step =
                i < m_metrics.steps.memcpyStep.size() ? m_metrics.steps.memcpyStep[i] : -1;
            if (ph.memcpyPhase[i] < 0 || c.deviceIndex[i] != m_c.deviceIndex || !inPhaseFigures(step)) {
                continue;
            }
            const auto kind = static_cast<std::size_t>(ph.memcpyPhase[i]);
            copies[kind].push_back({c.startNs[i], c.endNs[i]});
            if (c.kind[i] == core::MemcpyKind::HostToDevice || c.kind[i] == core::MemcpyKind::DeviceToHost) {
                hostCopies[kind].push_back({c.startNs[i], c.endNs[i]});
            }
        }
        std::array<PhaseGpuSets, kPhaseKindCount> sets;
        for (std::size_t kind = 0; kind < kPhaseKindCount; ++kind) {
            sets[kind] = {IntervalSet::fromUnsorted(std::move(kernels[kind])),
                          IntervalSet::fromUnsorted(std::move(copies[kind])),
                          IntervalSet::fromUnsorted(std::move(hostCopies[kind]))};
        }
        return sets;
    }

    std::vector<PhaseSignals> phases() const {
        std::vector<PhaseSignals> out;
        const std::array<PhaseGpuSets, kPhaseKindCount> gpuSets = phaseGpuSets();
        for (std::size_t k = 0; k < kPhaseKindCount; ++k) {
            if (!m_metrics.phases.seen[k]) {
                continue;
            }
            PhaseSignals p;
            p.kind = static_cast<PhaseKind>(k);
            DiagnosisSignals& s = p.signals;
            s.scope = "phase " + std::string(toString(p.kind));
            fillCommon(s);
            double window = 0, idle = 0, covered = 0;
            std::array<double, kIdleCauseCount> byCause{};
            for (const Phase& ph : m_metrics.phases.phases) {
                if (ph.kind != p.kind || !inPhaseFigures(ph.stepIndex)) {
                    continue;
                }
                ++p.occurrences;
                p.cpuTimeNs += static_cast<double>(ph.cpuTimeNs);
                p.gpuTimeNs += static_cast<double>(ph.gpuTimeNs);
                window += static_cast<double>(ph.span.durationNs());
                if (ph.stepIndex < 0 || static_cast<std::size_t>(ph.stepIndex) >= m_stepIdleTotal.size()) {
                    continue;
                }
                // Every device gap inside the phase's span, whichever step it starts in: the wait
                // for a step's batch starts before that step's marker, in the step before.
                const auto& intervals = m_metrics.accounting.idleIntervals;
                auto it = std::partition_point(m_deviceIdle.begin(), m_deviceIdle.end(), [&](std::size_t i) {
                    return intervals[i].range.endNs <= ph.span.startNs;
                });
                for (; it != m_deviceIdle.end() && intervals[*it].range.startNs < ph.span.endNs; ++it) {
                    const IdleInterval& v = intervals[*it];
                    const double overlap = static_cast<double>(v.range.intersect(ph.span).durationNs());
                    if (overlap <= 0) {
                        continue;
                    }
                    idle += overlap;
                    byCause[static_cast<std::size_t>(v.cause)] += overlap;
                    if (v.cause != IdleCause::Unexplained) {
                        covered += overlap * std::clamp(v.coverage, 0.0, 1.0);
                    }
                }
            }
            s.stepCount = p.occurrences;
            s.windowNs = window;
            s.stepTimeNs = p.occurrences > 0 ? window / static_cast<double>(p.occurrences) : 0;
            const KernelMix& mix = m_phaseMix[k];
            const double busy = std::max(0.0, window - idle);
            // A host-only phase (no GPU work of its own) is still judged by what the device did meanwhile.
            s.hasGpuActivity = mix.count > 0 || p.gpuTimeNs > 0 || busy > 0;
            s.busyFraction = ratio(busy, window);
            s.idleFraction = ratio(idle, window);
            // The communication phase's GPU time is its collective kernels; per-phase overlap with
            // compute is not measured, so all of it counts as exposed within the phase's span.
            const double comm = p.kind == PhaseKind::Communication
                                    ? std::min(s.busyFraction, ratio(p.gpuTimeNs, window))
                                    : 0.0;
            s.communicationFraction = comm;
            s.exposedCommunicationFraction = comm;
            // Copies no kernel of the phase overlaps are copy time, not compute: the batch upload
            // of the data-loading phase read "compute-bound" (hta-trace-diff's 50.6 ms of H2D).
            const PhaseGpuSets& gpu = gpuSets[k];
            const double exposedCopy =
                std::min(s.busyFraction - comm,
                         ratio(static_cast<double>(gpu.copies.subtract(gpu.kernels).totalNs()), window));
            s.copyFraction =
                std::min(s.busyFraction, ratio(static_cast<double>(gpu.copies.totalNs()), window));
            s.exposedCopyFraction = exposedCopy;
            s.exposedHostCopyFraction =
                std::min(exposedCopy,
                         ratio(static_cast<double>(gpu.hostCopies.subtract(gpu.kernels).totalNs()), window));
            s.computeFraction = s.busyFraction - comm - exposedCopy;
            s.collectivesSeen = comm > 0;
            s.idleCausesKnown = hostActivityRecorded();
            s.idleDataWaitFraction = ratio(byCause[static_cast<std::size_t>(IdleCause::DataWait)], window);
            s.idleLaunchOverheadFraction =
                ratio(byCause[static_cast<std::size_t>(IdleCause::LaunchOverhead)], window);
            s.idleSyncFraction = ratio(byCause[static_cast<std::size_t>(IdleCause::Synchronization)], window);
            s.idleCollectiveFraction =
                ratio(byCause[static_cast<std::size_t>(IdleCause::Collective)], window);
            s.idleUnexplainedFraction = ratio(byCause[static_cast<std::size_t>(IdleCause::Unexplained)] +
                                                  byCause[static_cast<std::size_t>(IdleCause::OtherStream)],
                                              window);
            s.idleHostWorkFraction = ratio(byCause[static_cast<std::size_t>(IdleCause::HostWork)], window);
            s.idleCompilationFraction =
                ratio(byCause[static_cast<std::size_t>(IdleCause::Compilation)], window);
            s.idleHousekeepingFraction =
                ratio(byCause[static_cast<std::size_t>(IdleCause::Housekeeping)], window);
            s.idleGcFraction = ratio(byCause[static_cast<std::size_t>(IdleCause::GarbageCollection)], window);
            if (idle > 0 && s.idleCausesKnown) {
                s.cpuBusyDuringIdleFraction = covered / idle;
            }
            m_dtodNs = 0;
            fillMix(s, mix, busy);
            if (p.kind == PhaseKind::DataLoading) {
                s.dataLoadingHostFraction = ratio(p.cpuTimeNs, window);
            }
            if (p.occurrences == 0) {
                continue;  // seen only in steps left out (a warm-up step's compilation, say)
            }
            out.push_back(std::move(p));
        }
        return out;
    }

    const SignalsContext& m_c;
    const core::TraceModel& m_model;
    const TraceMetrics& m_metrics;
    std::vector<KernelMix> m_stepMix;
    KernelMix m_overallMix;
    std::array<KernelMix, kPhaseKindCount> m_phaseMix{};
    std::vector<std::size_t> m_deviceIdle;  // the device-level idle intervals in the steps, by start
    std::vector<double> m_stepCovered, m_stepIdleTotal, m_stepStreamWait;
    std::vector<std::int64_t> m_stepLaunches;
    std::vector<double> m_stepQueued, m_stepQueuedCollective;
    mutable double m_dtodNs = 0;  // DtoD copy time of the window being filled
    std::int64_t m_smCount = 0;
    double m_ridgeFlopsPerByte = 0;
    std::unordered_map<std::uint32_t, double> m_unclassifiedByName;  // kernel name -> ns
    // kernel name -> idle-SM ns, blocks of its last launch
    std::unordered_map<std::uint32_t, std::pair<double, std::int64_t>> m_underOccupiedByName;
    std::unordered_set<std::uint32_t> m_fusableNames;  // kernel names of fusion candidates
    double m_counterPeakBytes = 0;
    bool m_hostActivity = false;
    bool m_cudaGraphsSeen = false;
    bool m_compiledCodeSeen = false;
    std::vector<const GpuTimeBreakdown*> m_stepRows;
    mutable GpuTimeBreakdown m_steadySum;
    std::vector<const StepBandwidth*> m_stepBandwidth;
    std::vector<double> m_stepDataLoadingNs;
    double m_dataLoadingNs = 0;
};

}  // namespace

std::int16_t busiestDevice(const TraceMetrics& metrics) {
    std::int16_t best = -1;
    DurationNs bestBusy = -1;
    for (const GpuTimeBreakdown& b : metrics.accounting.perDevice) {
        if (b.busyNs > bestBusy) {
            bestBusy = b.busyNs;
            best = b.deviceIndex;
        }
    }
    return best;
}

std::string architectureOf(const core::DeviceInfo& info) {
    // The name table reads the marketing name by tokens; AMD devices first (their reported
    // compute capability is not NVIDIA's).
    const std::string fromName = names::architectureFromDeviceName(info.name);
    if (info.vendor == "AMD" || fromName == "cdna") {
        return "cdna";
    }
    if (info.computeMajor > 0) {
        switch (info.computeMajor) {
            case 6:
                return "pascal";
            case 7:
                return info.computeMinor >= 5 ? "turing" : "volta";
            case 8:
                return info.computeMinor >= 9 ? "ada" : "ampere";
            case 9:
                return "hopper";
            case 10:
            case 12:
                return "blackwell";
            default:
                break;
        }
    }
    return fromName;
}

TraceSignals computeSignals(const SignalsContext& context) {
    if (context.model == nullptr || context.metrics == nullptr) {
        return {};
    }
    return Builder(context).run();
}

}  // namespace chokepoint::analysis
