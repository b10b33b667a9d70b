#include "core/model/Tables.h"

namespace chokepoint::core {

namespace {
template <class Id, class Column>
Id nextId(const Column& column) {
    return Id{static_cast<std::uint32_t>(column.size())};
}
}  // namespace

KernelId KernelTable::add(const KernelRow& r) {
    KernelId id = nextId<KernelId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    deviceIndex.push_back(r.deviceIndex);
    streamId.push_back(r.streamId);
    name.push_back(r.name);
    gridX.push_back(r.gridX);
    gridY.push_back(r.gridY);
    gridZ.push_back(r.gridZ);
    blockX.push_back(r.blockX);
    blockY.push_back(r.blockY);
    blockZ.push_back(r.blockZ);
    registersPerThread.push_back(r.registersPerThread);
    staticSharedBytes.push_back(r.staticSharedBytes);
    dynamicSharedBytes.push_back(r.dynamicSharedBytes);
    correlationId.push_back(r.correlationId);
    launchCall.push_back(r.launchCall);
    return id;
}

KernelRow KernelTable::row(KernelId id) const {
    std::size_t i = id.index;
    return KernelRow{startNs[i],
                     endNs[i],
                     deviceIndex[i],
                     streamId[i],
                     name[i],
                     gridX[i],
                     gridY[i],
                     gridZ[i],
                     blockX[i],
                     blockY[i],
                     blockZ[i],
                     registersPerThread[i],
                     staticSharedBytes[i],
                     dynamicSharedBytes[i],
                     correlationId[i],
                     launchCall[i]};
}

void KernelTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(deviceIndex, order);
    permuteColumn(streamId, order);
    permuteColumn(name, order);
    permuteColumn(gridX, order);
    permuteColumn(gridY, order);
    permuteColumn(gridZ, order);
    permuteColumn(blockX, order);
    permuteColumn(blockY, order);
    permuteColumn(blockZ, order);
    permuteColumn(registersPerThread, order);
    permuteColumn(staticSharedBytes, order);
    permuteColumn(dynamicSharedBytes, order);
    permuteColumn(correlationId, order);
    permuteColumn(launchCall, order);
}

void KernelTable::reserve(std::size_t n) {
    startNs.reserve(n);
    endNs.reserve(n);
    deviceIndex.reserve(n);
    streamId.reserve(n);
    name.reserve(n);
    gridX.reserve(n);
    gridY.reserve(n);
    gridZ.reserve(n);
    blockX.reserve(n);
    blockY.reserve(n);
    blockZ.reserve(n);
    registersPerThread.reserve(n);
    staticSharedBytes.reserve(n);
    dynamicSharedBytes.reserve(n);
    correlationId.reserve(n);
    launchCall.reserve(n);
}

MemcpyId MemcpyTable::add(const MemcpyRow& r) {
    MemcpyId id = nextId<MemcpyId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    deviceIndex.push_back(r.deviceIndex);
    streamId.push_back(r.streamId);
    kind.push_back(r.kind);
    srcKind.push_back(r.srcKind);
    dstKind.push_back(r.dstKind);
    sizeBytes.push_back(r.sizeBytes);
    correlationId.push_back(r.correlationId);
    launchCall.push_back(r.launchCall);
    return id;
}

MemcpyRow MemcpyTable::row(MemcpyId id) const {
    std::size_t i = id.index;
    return MemcpyRow{startNs[i], endNs[i],   deviceIndex[i], streamId[i],      kind[i],
                     srcKind[i], dstKind[i], sizeBytes[i],   correlationId[i], launchCall[i]};
}

void MemcpyTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(deviceIndex, order);
    permuteColumn(streamId, order);
    permuteColumn(kind, order);
    permuteColumn(srcKind, order);
    permuteColumn(dstKind, order);
    permuteColumn(sizeBytes, order);
    permuteColumn(correlationId, order);
    permuteColumn(launchCall, order);
}

MemsetId MemsetTable::add(const MemsetRow& r) {
    MemsetId id = nextId<MemsetId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    deviceIndex.push_back(r.deviceIndex);
    streamId.push_back(r.streamId);
    memoryKind.push_back(r.memoryKind);
    sizeBytes.push_back(r.sizeBytes);
    correlationId.push_back(r.correlationId);
    launchCall.push_back(r.launchCall);
    return id;
}

MemsetRow MemsetTable::row(MemsetId id) const {
    std::size_t i = id.index;
    return MemsetRow{startNs[i],    endNs[i],     deviceIndex[i],   streamId[i],
                     memoryKind[i], sizeBytes[i], correlationId[i], launchCall[i]};
}

void MemsetTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(deviceIndex, order);
    permuteColumn(streamId, order);
    permuteColumn(memoryKind, order);
    permuteColumn(sizeBytes, order);
    permuteColumn(correlationId, order);
    permuteColumn(launchCall, order);
}

ApiCallId ApiCallTable::add(const ApiCallRow& r) {
    ApiCallId id = nextId<ApiCallId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    thread.push_back(r.thread);
    name.push_back(r.name);
    domain.push_back(r.domain);
    correlationId.push_back(r.correlationId);
    cpuOp.push_back(r.cpuOp);
    return id;
}

ApiCallRow ApiCallTable::row(ApiCallId id) const {
    std::size_t i = id.index;
    return ApiCallRow{startNs[i], endNs[i], thread[i], name[i], domain[i], correlationId[i], cpuOp[i]};
}

void ApiCallTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(thread, order);
    permuteColumn(name, order);
    permuteColumn(domain, order);
    permuteColumn(correlationId, order);
    permuteColumn(cpuOp, order);
}

SyncId SyncTable::add(const SyncRow& r) {
    SyncId id = nextId<SyncId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    deviceIndex.push_back(r.deviceIndex);
    streamId.push_back(r.streamId);
    thread.push_back(r.thread);
    kind.push_back(r.kind);
    correlationId.push_back(r.correlationId);
    apiCall.push_back(r.apiCall);
    return id;
}

SyncRow SyncTable::row(SyncId id) const {
    std::size_t i = id.index;
    return SyncRow{startNs[i], endNs[i], deviceIndex[i],   streamId[i],
                   thread[i],  kind[i],  correlationId[i], apiCall[i]};
}

void SyncTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(deviceIndex, order);
    permuteColumn(streamId, order);
    permuteColumn(thread, order);
    permuteColumn(kind, order);
    permuteColumn(correlationId, order);
    permuteColumn(apiCall, order);
}

RangeId RangeTable::add(const RangeRow& r) {
    RangeId id = nextId<RangeId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    source.push_back(r.source);
    thread.push_back(r.thread);
    deviceIndex.push_back(r.deviceIndex);
    streamId.push_back(r.streamId);
    name.push_back(r.name);
    domain.push_back(r.domain);
    depth.push_back(r.depth);
    parent.push_back(r.parent);
    return id;
}

RangeRow RangeTable::row(RangeId id) const {
    std::size_t i = id.index;
    return RangeRow{startNs[i],  endNs[i], source[i], thread[i], deviceIndex[i],
                    streamId[i], name[i],  domain[i], depth[i],  parent[i]};
}

void RangeTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(source, order);
    permuteColumn(thread, order);
    permuteColumn(deviceIndex, order);
    permuteColumn(streamId, order);
    permuteColumn(name, order);
    permuteColumn(domain, order);
    permuteColumn(depth, order);
    permuteColumn(parent, order);
}

CpuOpId CpuOpTable::add(const CpuOpRow& r) {
    CpuOpId id = nextId<CpuOpId>(startNs);
    startNs.push_back(r.startNs);
    endNs.push_back(r.endNs);
    thread.push_back(r.thread);
    name.push_back(r.name);
    category.push_back(r.category);
    inputShapes.push_back(r.inputShapes);
    inputTypes.push_back(r.inputTypes);
    concreteInputs.push_back(r.concreteInputs);
    externalId.push_back(r.externalId);
    depth.push_back(r.depth);
    parent.push_back(r.parent);
    return id;
}

CpuOpRow CpuOpTable::row(CpuOpId id) const {
    std::size_t i = id.index;
    return CpuOpRow{startNs[i],    endNs[i],      thread[i], name[i],   category[i],      inputShapes[i],
                    inputTypes[i], externalId[i], depth[i],  parent[i], concreteInputs[i]};
}

void CpuOpTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(startNs, order);
    permuteColumn(endNs, order);
    permuteColumn(thread, order);
    permuteColumn(name, order);
    permuteColumn(category, order);
    permuteColumn(inputShapes, order);
    permuteColumn(inputTypes, order);
    permuteColumn(concreteInputs, order);
    permuteColumn(externalId, order);
    permuteColumn(depth, order);
    permuteColumn(parent, order);
}

}  // namespace chokepoint::core
