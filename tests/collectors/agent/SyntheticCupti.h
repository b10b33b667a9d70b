#pragma once
// Builds CUPTI activity buffers from the CUDA 13.0 record structs, packed back to back at 8-byte
// alignment, the way CUPTI lays them out, so the real cuptiActivityGetNextRecord can walk them.

#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace chokepoint::testutils {

class SyntheticCupti {
public:
    template <class Record>
    Record& add(CUpti_ActivityKind kind) {
        std::size_t offset = m_bytes.size();
        std::size_t size = (sizeof(Record) + 7) & ~std::size_t{7};
        m_bytes.resize(offset + size, 0);
        auto* r = reinterpret_cast<Record*>(m_bytes.data() + offset);
        r->kind = kind;
        m_offsets.push_back(offset);
        return *r;
    }

    CUpti_ActivityKernel10& kernel(const char* name, std::uint64_t start, std::uint64_t end,
                                   std::uint32_t correlation, std::uint32_t stream = 7,
                                   std::uint32_t device = 0) {
        auto& k = add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        k.name = name;
        k.start = start;
        k.end = end;
        k.correlationId = correlation;
        k.streamId = stream;
        k.deviceId = device;
        k.contextId = 1;
        k.gridX = 64;
        k.gridY = k.gridZ = 1;
        k.blockX = 256;
        k.blockY = k.blockZ = 1;
        k.registersPerThread = 32;
        k.staticSharedMemory = 1024;
        k.dynamicSharedMemory = 2048;
        return k;
    }

    CUpti_ActivityAPI& api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, std::uint64_t start,
                           std::uint64_t end, std::uint32_t correlation, std::uint32_t pid = 100,
                           std::uint32_t tid = 101) {
        auto& a = add<CUpti_ActivityAPI>(kind);
        a.cbid = cbid;
        a.start = start;
        a.end = end;
        a.correlationId = correlation;
        a.processId = pid;
        a.threadId = tid;
        return a;
    }

    // Returns a heap copy the size of a CUPTI buffer (8-byte aligned) and the valid byte count.
    std::uint8_t* data() { return m_bytes.data(); }
    std::size_t size() const { return m_bytes.size(); }
    std::size_t records() const { return m_offsets.size(); }
    // Appends the packed records into `buffer` (of `capacity` bytes); returns the bytes written.
    std::size_t copyTo(std::uint8_t* buffer, std::size_t capacity) const {
        std::size_t n = std::min(capacity, m_bytes.size());
        std::memcpy(buffer, m_bytes.data(), n);
        return n;
    }
    void clear() {
        m_bytes.clear();
        m_offsets.clear();
    }

private:
    std::vector<std::uint8_t> m_bytes;
    std::vector<std::size_t> m_offsets;
};

}  // namespace chokepoint::testutils
