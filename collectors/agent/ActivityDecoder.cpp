#include "collectors/agent/ActivityDecoder.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace chokepoint::collectors {

namespace {

core::MemcpyKind memcpyKind(std::uint8_t k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
            return core::MemcpyKind::HostToDevice;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
            return core::MemcpyKind::DeviceToHost;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
            return core::MemcpyKind::DeviceToDevice;
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
            return core::MemcpyKind::HostToHost;
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
            return core::MemcpyKind::PeerToPeer;
        default:
            return core::MemcpyKind::Unknown;
    }
}

core::MemoryKind memoryKind(unsigned k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
            return core::MemoryKind::Pageable;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
            return core::MemoryKind::Pinned;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
            return core::MemoryKind::Device;
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
            return core::MemoryKind::Managed;
        default:
            return core::MemoryKind::Unknown;
    }
}

core::SyncKind syncKind(CUpti_ActivitySynchronizationType t) {
    switch (t) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
            return core::SyncKind::EventSynchronize;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
            return core::SyncKind::StreamWaitEvent;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
            return core::SyncKind::StreamSynchronize;
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
            return core::SyncKind::DeviceSynchronize;
        default:
            return core::SyncKind::Unknown;
    }
}

std::int32_t clampToInt32(std::uint64_t v) {
    return v > 0x7FFFFFFFu ? 0x7FFFFFFF : static_cast<std::int32_t>(v);
}

}  // namespace

std::string ActivityDecoder::demangle(const char* name) {
    if (name == nullptr) {
        return "<unnamed kernel>";
    }
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && out != nullptr) {
        std::string s(out);
        std::free(out);
        return s;
    }
    std::free(out);
    return name;
}

std::string ActivityDecoder::apiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
    CUpti_CallbackDomain domain =
        kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) {
        return (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "cudaApi#" : "cuApi#") + std::to_string(cbid);
    }
    std::string s(name);
    // Runtime callback names carry the API version: "cudaLaunchKernel_v7000".
    std::size_t v = s.rfind("_v");
    if (v != std::string::npos && v + 2 < s.size() &&
        s.find_first_not_of("0123456789", v + 2) == std::string::npos) {
        s.resize(v);
    }
    return s;
}

const std::string& ActivityDecoder::kernelName(const char* mangled) {
    auto it = m_kernelNames.find(mangled);
    if (it == m_kernelNames.end()) {
        it = m_kernelNames.emplace(mangled, demangle(mangled)).first;
    }
    return it->second;
}

const std::string& ActivityDecoder::cachedApiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
    int domainKey = kind == CUPTI_ACTIVITY_KIND_RUNTIME ? 0 : 1;
    auto key = std::make_pair(domainKey, static_cast<std::uint32_t>(cbid));
    auto it = m_apiNames.find(key);
    if (it == m_apiNames.end()) {
        it = m_apiNames.emplace(key, apiName(kind, cbid)).first;
    }
    return it->second;
}

bool ActivityDecoder::timesValid(std::uint64_t start, std::uint64_t end) {
    if (start == 0 && end == 0) {
        ++m_counts.noTimestamp;
        return false;
    }
    if (end < start || start == 0) {
        ++m_counts.inverted;
        return false;
    }
    return true;
}

const ExternalCorrelation* ActivityDecoder::externalFor(std::uint32_t correlationId) const {
    auto it = m_external.find(correlationId);
    return it == m_external.end() ? nullptr : &it->second;
}

int ActivityDecoder::deviceOfContext(std::uint32_t contextId) const {
    auto it = m_contextDevice.find(contextId);
    return it == m_contextDevice.end() ? -1 : it->second;
}

bool ActivityDecoder::isSyncApi(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        switch (cbid) {
            case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
            case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
                return true;
            default:
                return false;
        }
    }
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
        switch (cbid) {
            case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
            case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
            case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
            case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
            case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
            case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
            case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
                return true;
            default:
                return false;
        }
    }
    return false;
}

bool ActivityDecoder::isGpuWorkApi(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        switch (cbid) {
            case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
            case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
            case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
            case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
            case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
                return true;
            default:
                return false;
        }
    }
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER) {
        switch (cbid) {
            case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
            case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
            case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
            case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
            case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
            case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
            case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
            case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
            case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
            case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
            case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
            case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
            case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
                return true;
            default:
                return false;
        }
    }
    return false;
}

bool ActivityDecoder::gpuInWindow(std::uint32_t correlationId, core::TimestampNs ownStartNs) {
    auto it = m_launches.find(correlationId);
    if (it == m_launches.end()) {
        m_gpuPastWindowEnd = m_gpuPastWindowEnd || ownStartNs >= m_windowEnd;
        ++m_counts.gpuWithoutLaunch;
        return inWindow(ownStartNs);
    }
    // Work launched after the window has run: in stream order, the window's own work is done.
    m_gpuPastWindowEnd = m_gpuPastWindowEnd || it->second.startNs >= m_windowEnd;
    m_outstanding.erase(correlationId);
    return inWindow(it->second.startNs);
}

bool ActivityDecoder::isGraphLaunch(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
    }
    return kind == CUPTI_ACTIVITY_KIND_DRIVER && (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
                                                  cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
}

void ActivityDecoder::noteUnfinished(std::uint32_t correlationId, std::uint64_t cuptiStart) {
    auto it = m_launches.find(correlationId);
    bool inside = false;
    if (it != m_launches.end()) {
        inside = inWindow(it->second.startNs);
    } else {
        // Launch unknown: by its own start when it has one; one that never started is counted as lost.
        inside = cuptiStart == 0 || inWindow(m_clock.toMonotonic(cuptiStart));
    }
    if (inside) {
        ++m_counts.stillRunningAtStop;
        m_outstanding.erase(correlationId);  // counted here, not again as a missing record
    } else {
        ++m_counts.outsideWindow;
    }
}

void ActivityDecoder::noteApi(const CUpti_ActivityAPI& a, core::TimestampNs startNs,
                              core::TraceModel& batch) {
    const auto kind = a.kind;
    const bool sync = isSyncApi(kind, a.cbid);
    m_launches[a.correlationId] = {startNs, a.processId, a.threadId, sync};
    m_launchOrder.push_back(a.correlationId);
    if (m_launchOrder.size() - m_launchOrderHead > kMaxLaunchesKept) {
        const std::uint32_t oldest = m_launchOrder[m_launchOrderHead++];
        m_launches.erase(oldest);
        // Bounded too: a launch this old whose GPU record never came (dropped) is given up.
        m_counts.launchesNeverMatched += m_outstanding.erase(oldest);
        if (m_launchOrderHead > kMaxLaunchesKept) {
            m_launchOrder.erase(m_launchOrder.begin(),
                                m_launchOrder.begin() + static_cast<std::ptrdiff_t>(m_launchOrderHead));
            m_launchOrderHead = 0;
        }
    }
    m_graphLaunchSeen = m_graphLaunchSeen || isGraphLaunch(kind, a.cbid);
    if (!inWindow(startNs)) {
        ++m_counts.outsideWindow;
        return;
    }
    if (isGpuWorkApi(kind, a.cbid)) {
        m_outstanding.emplace(a.correlationId, true);
        m_graphLaunchInWindow = m_graphLaunchInWindow || isGraphLaunch(kind, a.cbid);
    }
    if (!m_emitApiRows) {
        return;
    }
    core::ApiCallRow row;
    row.startNs = startNs;
    row.endNs = startNs + static_cast<core::DurationNs>(a.end - a.start);
    row.thread = batch.threadIndex(a.processId, a.threadId);
    if (kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API) {
        row.name = batch.intern("internal launch");  // CUPTI: "the cbid field is not used here"
    } else {
        row.name = batch.intern(cachedApiName(kind, a.cbid));
    }
    row.domain = kind == CUPTI_ACTIVITY_KIND_RUNTIME ? core::ApiDomain::Runtime : core::ApiDomain::Driver;
    row.correlationId = a.correlationId;
    batch.apiCalls.add(row);
    ++m_counts.apiCalls;
}

bool ActivityDecoder::emitSync(const PendingSync& s, core::TraceModel& batch) {
    auto it = m_launches.find(s.correlationId);
    if (it == m_launches.end() || !it->second.sync) {
        return false;
    }
    core::SyncRow row;
    row.startNs = m_clock.toMonotonic(s.start);
    if (!inWindow(it->second.startNs)) {
        ++m_counts.outsideWindow;
        return true;
    }
    row.endNs = row.startNs + static_cast<core::DurationNs>(s.end - s.start);
    int device = deviceOfContext(s.contextId);
    row.deviceIndex = static_cast<std::int16_t>(device < 0 ? 0 : device);
    row.streamId =
        s.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : static_cast<std::int32_t>(s.streamId);
    row.kind = syncKind(s.type);
    row.thread = batch.threadIndex(it->second.processId, it->second.threadId);
    row.correlationId = s.correlationId;
    batch.syncs.add(row);
    ++m_counts.syncs;
    return true;
}

void ActivityDecoder::decodePass(const std::vector<Buffer>& buffers, core::TraceModel& batch) {
    for (int phase = 0; phase < 2; ++phase) {
        for (const Buffer& b : buffers) {
            if (b.data == nullptr || b.validBytes == 0) {
                continue;
            }
            CUpti_Activity* record = nullptr;
            for (;;) {
                CUptiResult r = cuptiActivityGetNextRecord(b.data, b.validBytes, &record);
                if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) {
                    break;
                }
                if (r != CUPTI_SUCCESS || record == nullptr) {
                    if (phase == 1) {
                        ++m_counts.bufferErrors;
                    }
                    break;
                }
                decodeRecord(record, phase == 0, batch);
            }
        }
    }
    // Synchronization records wait a few passes for their API record, then count as queries.
    std::vector<PendingSync> still;
    for (PendingSync& s : m_pendingSyncs) {
        if (emitSync(s, batch)) {
            continue;
        }
        if (++s.passes > kSyncPassesToWait) {
            ++m_counts.syncQueriesDropped;
        } else {
            still.push_back(s);
        }
    }
    m_pendingSyncs.swap(still);
}

void ActivityDecoder::finish() {
    m_counts.syncQueriesDropped += m_pendingSyncs.size();
    m_pendingSyncs.clear();
}

void ActivityDecoder::decodeRecord(CUpti_Activity* record, bool apiPhase, core::TraceModel& batch) {
    const bool apiKind = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
                         record->kind == CUPTI_ACTIVITY_KIND_DRIVER ||
                         record->kind == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API ||
                         record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION ||
                         record->kind == CUPTI_ACTIVITY_KIND_DEVICE;
    if (apiKind != apiPhase) {
        return;
    }
    ++m_counts.records;
    // A forced flush hands back records of work still running with end = 0 (cupti_activity.h,
    // cuptiActivityFlushAll): lost work when it was launched inside the window, never wanted when
    // it was launched after it (the drain keeps tracing on, so the job's next step is in flight).
    auto gpuTimesValid = [this](std::uint64_t start, std::uint64_t end, std::uint32_t correlationId) {
        if (m_forced && end == 0) {
            noteUnfinished(correlationId, start);
            return false;
        }
        return timesValid(start, end);
    };
    // The fields every GPU record (kernel, copy, memset) fills alike; false when the record is not
    // kept (invalid times, still running at a forced flush, launched outside the window).
    auto placeOnGpu = [&](const auto* rec, auto& row) {
        if (!gpuTimesValid(rec->start, rec->end, rec->correlationId)) {
            return false;
        }
        row.startNs = m_clock.toMonotonic(rec->start);
        if (!gpuInWindow(rec->correlationId, row.startNs)) {
            ++m_counts.outsideWindow;
            return false;
        }
        row.endNs = row.startNs + static_cast<core::DurationNs>(rec->end - rec->start);
        row.deviceIndex = static_cast<std::int16_t>(rec->deviceId);
        row.streamId = static_cast<std::int32_t>(rec->streamId);
        row.correlationId = rec->correlationId;
        return true;
    };
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            m_contextDevice[k->contextId] = static_cast<int>(k->deviceId);
            core::KernelRow row;
            if (!placeOnGpu(k, row)) {
                break;
            }
            row.name = batch.intern(kernelName(k->name));
            row.gridX = k->gridX;
            row.gridY = k->gridY;
            row.gridZ = k->gridZ;
            row.blockX = k->blockX;
            row.blockY = k->blockY;
            row.blockZ = k->blockZ;
            row.registersPerThread = k->registersPerThread;
            row.staticSharedBytes = k->staticSharedMemory;
            row.dynamicSharedBytes = k->dynamicSharedMemory;
            batch.kernels.add(row);
            ++m_counts.kernels;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            m_contextDevice[m->contextId] = static_cast<int>(m->deviceId);
            core::MemcpyRow row;
            if (!placeOnGpu(m, row)) {
                break;
            }
            row.kind = memcpyKind(m->copyKind);
            row.srcKind = memoryKind(m->srcKind);
            row.dstKind = memoryKind(m->dstKind);
            row.sizeBytes = static_cast<std::int64_t>(m->bytes);
            batch.memcpys.add(row);
            ++m_counts.memcpys;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
            core::MemcpyRow row;
            if (!placeOnGpu(m, row)) {
                break;
            }
            row.kind = core::MemcpyKind::PeerToPeer;
            row.srcKind = memoryKind(m->srcKind);
            row.dstKind = memoryKind(m->dstKind);
            row.sizeBytes = static_cast<std::int64_t>(m->bytes);
            batch.memcpys.add(row);
            ++m_counts.memcpys;
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            m_contextDevice[m->contextId] = static_cast<int>(m->deviceId);
            core::MemsetRow row;
            if (!placeOnGpu(m, row)) {
                break;
            }
            row.memoryKind = memoryKind(m->memoryKind);
            row.sizeBytes = static_cast<std::int64_t>(m->bytes);
            batch.memsets.add(row);
            ++m_counts.memsets;
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER:
        case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
            const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
            if (!timesValid(a->start, a->end)) {
                break;
            }
            noteApi(*a, m_clock.toMonotonic(a->start), batch);
            break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
            if (!timesValid(s->start, s->end)) {
                break;
            }
            PendingSync pending{s->start, s->end, s->contextId, s->streamId, s->correlationId, s->type, 0};
            if (!emitSync(pending, batch)) {
                m_pendingSyncs.push_back(pending);  // its API record may come in a later pass
            }
            break;
        }
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
            const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
            if (!gpuTimesValid(g->start, g->end, g->correlationId)) {
                break;
            }
            core::TimestampNs startNs = m_clock.toMonotonic(g->start);
            if (!gpuInWindow(g->correlationId, startNs)) {
                ++m_counts.outsideWindow;
                break;
            }
            // A graph-level record spans the whole graph: a range on its GPU stream (like a
            // projected annotation), so kernel counts and per-kernel tables never see it as a kernel.
            core::RangeRow row;
            row.startNs = startNs;
            row.endNs = startNs + static_cast<core::DurationNs>(g->end - g->start);
            row.source = core::RangeSource::GpuUserAnnotation;
            row.deviceIndex = static_cast<std::int16_t>(g->deviceId);
            row.streamId = static_cast<std::int32_t>(g->streamId);
            row.domain = batch.intern("CUDA graph");
            row.name = batch.intern("CUDA graph " + std::to_string(g->graphId));
            batch.ranges.add(row);
            ++m_counts.graphs;
            break;
        }
        case CUPTI_ACTIVITY_KIND_DEVICE: {
            auto* d = reinterpret_cast<CUpti_ActivityDevice5*>(record);
            std::string name = d->name != nullptr ? d->name : "";
            // "Client is responsible for freeing this memory" (cupti_activity.h, CUpti_ActivityDevice5).
            std::free(const_cast<char*>(d->name));
            d->name = nullptr;
            if (d->isCudaVisible == 0) {
                ++m_counts.invisibleDevices;  // hidden by CUDA_VISIBLE_DEVICES: not this process's GPU
                break;
            }
            core::DeviceInfo& info = batch.deviceOrAdd(static_cast<std::int32_t>(d->id));
            info.name = name;
            info.vendor = "NVIDIA";
            info.smCount = clampToInt32(d->numMultiprocessors);
            info.totalMemoryBytes = static_cast<std::int64_t>(d->globalMemorySize);
            info.computeMajor = clampToInt32(d->computeCapabilityMajor);
            info.computeMinor = clampToInt32(d->computeCapabilityMinor);
            info.maxThreadsPerBlock = clampToInt32(d->maxThreadsPerBlock);
            info.maxThreadsPerSm =
                clampToInt32(std::uint64_t{d->maxWarpsPerMultiprocessor} * d->numThreadsPerWarp);
            info.registersPerBlock = clampToInt32(d->maxRegistersPerBlock);
            info.sharedMemoryPerBlockBytes = d->maxSharedMemoryPerBlock;
            info.l2CacheBytes = d->l2CacheSize;
            info.warpSize = clampToInt32(d->numThreadsPerWarp);
            info.coreClockKhz = d->coreClockRate;
            ++m_counts.devices;
            break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
            m_external[e->correlationId] = {static_cast<std::uint32_t>(e->externalKind), e->externalId};
            ++m_counts.externalCorrelations;
            break;
        }
        case CUPTI_ACTIVITY_KIND_OVERHEAD: {
            auto* o = reinterpret_cast<CUpti_ActivityOverhead3*>(record);
            if (o->end > o->start) {
                m_counts.overheadNs += static_cast<std::int64_t>(o->end - o->start);
            }
            // The record owns overheadData; the client must free it (cupti_activity.h).
            std::free(o->overheadData);
            o->overheadData = nullptr;
            ++m_counts.overhead;
            break;
        }
        default:
            ++m_counts.unknownKind;
            break;
    }
}

void ActivityDecoder::reportStats(core::TraceStats& stats) const {
    if (m_counts.noTimestamp > 0) {
        stats.add("agent.no_timestamp", core::Severity::DataLoss,
                  static_cast<std::int64_t>(m_counts.noTimestamp),
                  "CUPTI delivered records without timestamps");
    }
    if (m_counts.inverted > 0) {
        stats.add("agent.inverted_timestamps", core::Severity::DataLoss,
                  static_cast<std::int64_t>(m_counts.inverted),
                  "CUPTI records with end before start were left out");
    }
    if (m_counts.unknownKind > 0) {
        stats.add("agent.unknown_record_kind", core::Severity::Info,
                  static_cast<std::int64_t>(m_counts.unknownKind),
                  "CUPTI records of kinds the agent does not decode");
    }
    if (m_counts.bufferErrors > 0) {
        stats.add("agent.buffer_errors", core::Severity::DataLoss,
                  static_cast<std::int64_t>(m_counts.bufferErrors),
                  "cuptiActivityGetNextRecord failed before the end of a buffer; the rest was lost");
    }
    if (m_counts.outsideWindow > 0) {
        stats.add("agent.outside_window", core::Severity::Info,
                  static_cast<std::int64_t>(m_counts.outsideWindow),
                  "records before the first step or after the window end were left out");
    }
    if (m_counts.stillRunningAtStop > 0) {
        stats.add("agent.still_running_at_stop", core::Severity::DataLoss,
                  static_cast<std::int64_t>(m_counts.stillRunningAtStop),
                  "GPU work still running when the capture's drain time ran out was left out (CUPTI "
                  "hands it back unfinished and never again)");
    }
    if (m_counts.syncQueriesDropped > 0) {
        stats.add("agent.sync_queries_dropped", core::Severity::Info,
                  static_cast<std::int64_t>(m_counts.syncQueriesDropped),
                  "synchronization records of event/stream queries (not host waits) were left out");
    }
    if (m_counts.invisibleDevices > 0) {
        stats.add("agent.invisible_devices", core::Severity::Info,
                  static_cast<std::int64_t>(m_counts.invisibleDevices),
                  "GPUs hidden from this process by CUDA_VISIBLE_DEVICES were left out");
    }
    if (m_counts.overhead > 0) {
        stats.add("agent.cupti_overhead_records", core::Severity::Info,
                  static_cast<std::int64_t>(m_counts.overhead),
                  "CUPTI overhead intervals; total " + std::to_string(m_counts.overheadNs / 1000) + " us");
    }
}

}  // namespace chokepoint::collectors
