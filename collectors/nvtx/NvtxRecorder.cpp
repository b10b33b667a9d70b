#include "collectors/nvtx/NvtxRecorder.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <cwchar>
#include <new>

#include "core/names/NameRules.h"

namespace chokepoint::collectors {

struct NvtxRecorder::Ring {
    std::atomic<std::uint64_t> head{0};  // next slot the producer writes
    std::atomic<std::uint64_t> tail{0};  // next slot the consumer reads
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    NvtxEvent events[kRingEvents];
};

namespace {

// Domain and registered-string handles we hand out. Never freed: NVTX handles are valid for the
// life of the process, and there are few of them (bounded below).
struct DomainRecord {
    char name[64];
};
struct StringRecord {
    char text[NvtxEvent::kTextBytes];
};
constexpr int kMaxDomains = 1024;
constexpr int kMaxStrings = 1 << 16;
std::atomic<int> g_domains{0};
std::atomic<int> g_strings{0};

thread_local NvtxRecorder::Ring* t_ring = nullptr;
thread_local int t_depth = 0;

NvtxRecorder& rec() {
    return NvtxRecorder::instance();
}

void copyText(char* out, std::size_t cap, const char* ascii, const wchar_t* wide) {
    std::size_t n = 0;
    if (ascii != nullptr) {
        while (n + 1 < cap && ascii[n] != '\0') {
            out[n] = ascii[n];
            ++n;
        }
    } else if (wide != nullptr) {
        // Wide strings: keep ASCII, replace anything else with '?'.
        while (n + 1 < cap && wide[n] != L'\0') {
            wchar_t c = wide[n];
            out[n] = (c > 0 && c < 128) ? static_cast<char>(c) : '?';
            ++n;
        }
    }
    out[n] = '\0';
}

// The message of an event attribute structure, as ASCII or wide pointer (one of them set).
void messageOf(const nvtxEventAttributes_t* a, const char** ascii, const wchar_t** wide) {
    *ascii = nullptr;
    *wide = nullptr;
    if (a == nullptr) {
        return;
    }
    switch (a->messageType) {
        case NVTX_MESSAGE_TYPE_ASCII:
            *ascii = a->message.ascii;
            break;
        case NVTX_MESSAGE_TYPE_UNICODE:
            *wide = a->message.unicode;
            break;
        case NVTX_MESSAGE_TYPE_REGISTERED:
            if (a->message.registered != nullptr) {
                *ascii = reinterpret_cast<const StringRecord*>(a->message.registered)->text;
            }
            break;
        default:
            break;
    }
}

// --- Handlers (C ABI through the NVTX tables) -------------------------------------------------

void onEvent(NvtxEventType type, const void* domain, std::uint64_t id, const char* ascii,
             const wchar_t* wide) {
    NvtxRecorder& r = rec();
    if (type == NvtxEventType::Mark && ascii != nullptr && std::strncmp(ascii, "chokepoint:meta ", 16) == 0) {
        r.noteMeta(ascii);  // rare: kept in every mode for a later capture
    }
    int mode = static_cast<int>(r.mode());
    if (mode == static_cast<int>(NvtxMode::Idle)) {
        return;
    }
    if (type != NvtxEventType::Pop && type != NvtxEventType::End && ascii != nullptr &&
        r.isStepMarker(ascii)) {
        r.noteStep(ascii, NvtxRecorder::nowNs());
    }
    if (mode == static_cast<int>(NvtxMode::Recording)) {
        r.record(type, domain, id, ascii, wide);
    }
}

int NVTX_API pushA(const char* message) {
    onEvent(NvtxEventType::Push, nullptr, 0, message, nullptr);
    return t_depth++;
}
int NVTX_API pushW(const wchar_t* message) {
    onEvent(NvtxEventType::Push, nullptr, 0, nullptr, message);
    return t_depth++;
}
int NVTX_API pushEx(const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    onEvent(NvtxEventType::Push, nullptr, 0, ascii, wide);
    return t_depth++;
}
int NVTX_API pop() {
    onEvent(NvtxEventType::Pop, nullptr, 0, nullptr, nullptr);
    return t_depth > 0 ? --t_depth : -1;
}
nvtxRangeId_t NVTX_API startA(const char* message) {
    std::uint64_t id = rec().nextRangeId();
    onEvent(NvtxEventType::Start, nullptr, id, message, nullptr);
    return id;
}
nvtxRangeId_t NVTX_API startW(const wchar_t* message) {
    std::uint64_t id = rec().nextRangeId();
    onEvent(NvtxEventType::Start, nullptr, id, nullptr, message);
    return id;
}
nvtxRangeId_t NVTX_API startEx(const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    std::uint64_t id = rec().nextRangeId();
    onEvent(NvtxEventType::Start, nullptr, id, ascii, wide);
    return id;
}
void NVTX_API endRange(nvtxRangeId_t id) {
    onEvent(NvtxEventType::End, nullptr, id, nullptr, nullptr);
}
void NVTX_API markA(const char* message) {
    onEvent(NvtxEventType::Mark, nullptr, 0, message, nullptr);
}
void NVTX_API markW(const wchar_t* message) {
    onEvent(NvtxEventType::Mark, nullptr, 0, nullptr, message);
}
void NVTX_API markEx(const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    onEvent(NvtxEventType::Mark, nullptr, 0, ascii, wide);
}

nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) {
    if (g_domains.fetch_add(1) >= kMaxDomains) {
        return nullptr;
    }
    auto* d = new (std::nothrow) DomainRecord{};
    if (d != nullptr) {
        copyText(d->name, sizeof d->name, name, nullptr);
    }
    return reinterpret_cast<nvtxDomainHandle_t>(d);
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name) {
    if (g_domains.fetch_add(1) >= kMaxDomains) {
        return nullptr;
    }
    auto* d = new (std::nothrow) DomainRecord{};
    if (d != nullptr) {
        copyText(d->name, sizeof d->name, nullptr, name);
    }
    return reinterpret_cast<nvtxDomainHandle_t>(d);
}
void NVTX_API domainDestroy(nvtxDomainHandle_t) {
    // Kept alive: events already in rings point at the record.
}
nvtxStringHandle_t NVTX_API registerStringA(nvtxDomainHandle_t, const char* text) {
    if (g_strings.fetch_add(1) >= kMaxStrings) {
        return nullptr;
    }
    auto* s = new (std::nothrow) StringRecord{};
    if (s != nullptr) {
        copyText(s->text, sizeof s->text, text, nullptr);
    }
    return reinterpret_cast<nvtxStringHandle_t>(s);
}
nvtxStringHandle_t NVTX_API registerStringW(nvtxDomainHandle_t, const wchar_t* text) {
    if (g_strings.fetch_add(1) >= kMaxStrings) {
        return nullptr;
    }
    auto* s = new (std::nothrow) StringRecord{};
    if (s != nullptr) {
        copyText(s->text, sizeof s->text, nullptr, text);
    }
    return reinterpret_cast<nvtxStringHandle_t>(s);
}
int NVTX_API domainPushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    onEvent(NvtxEventType::Push, domain, 0, ascii, wide);
    return t_depth++;
}
int NVTX_API domainPop(nvtxDomainHandle_t domain) {
    onEvent(NvtxEventType::Pop, domain, 0, nullptr, nullptr);
    return t_depth > 0 ? --t_depth : -1;
}
nvtxRangeId_t NVTX_API domainStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    std::uint64_t id = rec().nextRangeId();
    onEvent(NvtxEventType::Start, domain, id, ascii, wide);
    return id;
}
void NVTX_API domainEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) {
    onEvent(NvtxEventType::End, domain, id, nullptr, nullptr);
}
void NVTX_API domainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* a) {
    const char* ascii;
    const wchar_t* wide;
    messageOf(a, &ascii, &wide);
    onEvent(NvtxEventType::Mark, domain, 0, ascii, wide);
}

template <class Fn>
void setSlot(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn) {
    if (id < size && table[id] != nullptr) {
        *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
    }
}

}  // namespace

NvtxRecorder& NvtxRecorder::instance() {
    // Leaked on purpose: NVTX may call handlers during static destruction of other modules.
    static NvtxRecorder* recorder = new NvtxRecorder();
    return *recorder;
}

core::TimestampNs NvtxRecorder::nowNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<core::TimestampNs>(ts.tv_sec) * core::kNsPerSecond + ts.tv_nsec;
}

int NvtxRecorder::install(NvtxGetExportTableFunc_t getExportTable) {
    if (getExportTable == nullptr) {
        return 0;
    }
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
        callbacks->GetModuleFunctionTable == nullptr) {
        return 0;
    }
    NvtxFunctionTable table = nullptr;
    unsigned size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0 || table == nullptr) {
        return 0;
    }
    setSlot(table, size, NVTX_CBID_CORE_MarkEx, &markEx);
    setSlot(table, size, NVTX_CBID_CORE_MarkA, &markA);
    setSlot(table, size, NVTX_CBID_CORE_MarkW, &markW);
    setSlot(table, size, NVTX_CBID_CORE_RangeStartEx, &startEx);
    setSlot(table, size, NVTX_CBID_CORE_RangeStartA, &startA);
    setSlot(table, size, NVTX_CBID_CORE_RangeStartW, &startW);
    setSlot(table, size, NVTX_CBID_CORE_RangeEnd, &endRange);
    setSlot(table, size, NVTX_CBID_CORE_RangePushEx, &pushEx);
    setSlot(table, size, NVTX_CBID_CORE_RangePushA, &pushA);
    setSlot(table, size, NVTX_CBID_CORE_RangePushW, &pushW);
    setSlot(table, size, NVTX_CBID_CORE_RangePop, &pop);
    table = nullptr;
    size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) != 0 && table != nullptr) {
        setSlot(table, size, NVTX_CBID_CORE2_DomainMarkEx, &domainMarkEx);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRangeStartEx, &domainStartEx);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRangeEnd, &domainEnd);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRangePushEx, &domainPushEx);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRangePop, &domainPop);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRegisterStringA, &registerStringA);
        setSlot(table, size, NVTX_CBID_CORE2_DomainRegisterStringW, &registerStringW);
        setSlot(table, size, NVTX_CBID_CORE2_DomainCreateA, &domainCreateA);
        setSlot(table, size, NVTX_CBID_CORE2_DomainCreateW, &domainCreateW);
        setSlot(table, size, NVTX_CBID_CORE2_DomainDestroy, &domainDestroy);
    }
    m_modules.fetch_add(1);
    return 1;
}

void NvtxRecorder::setMode(NvtxMode mode) {
    m_mode.store(static_cast<int>(mode), std::memory_order_release);
}

void NvtxRecorder::setStepMarkers(const std::vector<std::string>& prefixes) {
    m_markerCount.store(0, std::memory_order_release);
    int n = 0;
    for (const std::string& p : prefixes) {
        if (n >= static_cast<int>(kMaxStepMarkers) || p.empty()) {
            continue;
        }
        std::size_t len = std::min(p.size(), sizeof m_markers[0] - 1);
        std::memcpy(m_markers[n], p.data(), len);
        m_markers[n][len] = '\0';
        ++n;
    }
    m_markerCount.store(n, std::memory_order_release);
}

bool NvtxRecorder::isStepMarker(const char* ascii) const {
    int n = m_markerCount.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        const char* p = m_markers[i];
        const char* s = ascii;
        while (*p != '\0' && *s == *p) {
            ++p;
            ++s;
        }
        if (*p == '\0') {
            return true;
        }
    }
    return false;
}

void NvtxRecorder::noteStep(const char*, core::TimestampNs timeNs) {
    std::uint64_t n = m_steps.fetch_add(1, std::memory_order_acq_rel);
    if (n < kMaxStepTimes) {
        m_stepTimes[n].store(timeNs, std::memory_order_release);
    }
}

core::TimestampNs NvtxRecorder::stepTimeNs(std::uint64_t n) const {
    if (n == 0 || n > kMaxStepTimes || n > m_steps.load(std::memory_order_acquire)) {
        return -1;
    }
    core::TimestampNs t = m_stepTimes[n - 1].load(std::memory_order_acquire);
    return t == 0 ? -1 : t;
}

void NvtxRecorder::resetSteps() {
    for (auto& t : m_stepTimes) {
        t.store(0, std::memory_order_relaxed);
    }
    m_steps.store(0, std::memory_order_release);
}

NvtxRecorder::Ring* NvtxRecorder::threadRing() {
    if (t_ring == nullptr) {
        auto* ring = new (std::nothrow) Ring();
        if (ring == nullptr) {
            return nullptr;
        }
        ring->pid = ::getpid();
        ring->tid = ::gettid();
        NvtxRecorder& r = instance();
        std::lock_guard lock(r.m_ringsMutex);
        r.m_rings.push_back(ring);
        t_ring = ring;
    }
    return t_ring;
}

void NvtxRecorder::record(NvtxEventType type, const void* domain, std::uint64_t id, const char* ascii,
                          const wchar_t* wide) {
    Ring* ring = threadRing();
    if (ring == nullptr) {
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    std::uint64_t head = ring->head.load(std::memory_order_relaxed);
    std::uint64_t tail = ring->tail.load(std::memory_order_acquire);
    if (head - tail >= kRingEvents) {
        m_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    NvtxEvent& e = ring->events[head % kRingEvents];
    e.timeNs = nowNs();
    e.id = id;
    e.domain = domain;
    e.type = type;
    copyText(e.text, sizeof e.text, ascii, wide);
    ring->head.store(head + 1, std::memory_order_release);
}

void NvtxRecorder::consume(Ring& ring, core::TraceModel& batch, core::TimestampNs windowStartNs,
                           core::TimestampNs windowEndNs) {
    std::uint64_t tail = ring.tail.load(std::memory_order_relaxed);
    std::uint64_t head = ring.head.load(std::memory_order_acquire);
    core::ThreadIndex thread = core::kNoThread;
    auto emit = [&](const OpenRange& open, core::TimestampNs endNs) {
        if (open.startNs < windowStartNs || open.startNs >= windowEndNs) {
            return;
        }
        core::RangeRow row;
        row.startNs = open.startNs;
        row.endNs = endNs;
        row.source = core::RangeSource::Nvtx;
        row.thread = batch.threadIndex(ring.pid, open.tid);
        row.name = batch.intern(open.name);
        if (open.domain != nullptr) {
            row.domain = batch.intern(static_cast<const DomainRecord*>(open.domain)->name);
        }
        batch.ranges.add(row);
    };
    for (; tail != head; ++tail) {
        const NvtxEvent& e = ring.events[tail % kRingEvents];
        if (thread == core::kNoThread) {
            thread = batch.threadIndex(ring.pid, ring.tid);
        }
        switch (e.type) {
            case NvtxEventType::Push:
                m_stacks[{&ring, e.domain}].push_back({e.timeNs, e.domain, e.text, thread, ring.tid});
                break;
            case NvtxEventType::Pop: {
                std::vector<OpenRange>& stack = m_stacks[{&ring, e.domain}];
                if (stack.empty()) {
                    ++m_unmatchedPops;  // pushed before the capture started
                } else {
                    emit(stack.back(), e.timeNs);
                    stack.pop_back();
                }
                break;
            }
            case NvtxEventType::Start: {
                OpenRange open{e.timeNs, e.domain, e.text, thread, ring.tid};
                auto early = m_earlyEnds.find(e.id);
                if (early != m_earlyEnds.end()) {
                    emit(open, std::max(early->second, e.timeNs));  // its end was drained first
                    m_earlyEnds.erase(early);
                } else {
                    m_started[e.id] = std::move(open);
                }
                break;
            }
            case NvtxEventType::End: {
                auto it = m_started.find(e.id);
                if (it != m_started.end()) {
                    emit(it->second, e.timeNs);
                    m_started.erase(it);
                } else if (m_earlyEnds.size() < kMaxEarlyEnds) {
                    // Another thread's ring, drained later, may still hold the start; or the range
                    // began before the capture (then this entry is dropped at the next clear()).
                    m_earlyEnds.emplace(e.id, e.timeNs);
                }
                break;
            }
            case NvtxEventType::Mark:
                emit({e.timeNs, e.domain, e.text, thread, ring.tid}, e.timeNs);
                break;
        }
    }
    ring.tail.store(tail, std::memory_order_release);
}

void NvtxRecorder::drainInto(core::TraceModel& batch, core::TimestampNs closeOpenAtNs,
                             core::TimestampNs windowStartNs, core::TimestampNs windowEndNs) {
    std::lock_guard lock(m_ringsMutex);
    for (Ring* ring : m_rings) {
        consume(*ring, batch, windowStartNs, windowEndNs);
    }
    if (closeOpenAtNs >= 0) {
        std::int64_t open = 0;
        for (auto& [key, stack] : m_stacks) {
            Ring* ring = key.first;
            for (const OpenRange& r : stack) {
                if (r.startNs < windowStartNs || r.startNs >= windowEndNs) {
                    continue;
                }
                core::RangeRow row;
                row.startNs = r.startNs;
                row.endNs = std::max(closeOpenAtNs, r.startNs);
                row.source = core::RangeSource::Nvtx;
                row.thread = batch.threadIndex(ring->pid, r.tid);
                row.name = batch.intern(r.name);
                if (r.domain != nullptr) {
                    row.domain = batch.intern(static_cast<const DomainRecord*>(r.domain)->name);
                }
                batch.ranges.add(row);
                ++open;
            }
            stack.clear();
        }
        for (auto& [id, r] : m_started) {
            if (r.startNs < windowStartNs || r.startNs >= windowEndNs) {
                continue;
            }
            core::RangeRow row;
            row.startNs = r.startNs;
            row.endNs = std::max(closeOpenAtNs, r.startNs);
            row.source = core::RangeSource::Nvtx;
            row.thread = batch.threadIndex(::getpid(), r.tid);
            row.name = batch.intern(r.name);
            batch.ranges.add(row);
            ++open;
        }
        m_started.clear();
        m_earlyEnds.clear();
        if (open > 0) {
            batch.stats.add(names::kNvtxOpenAtStopStat, core::Severity::Warning, open,
                            "NVTX ranges still open when the capture stopped were closed at the stop time");
        }
    }
    if (m_unmatchedPops > 0) {
        batch.stats.add("nvtx.unmatched_pop", core::Severity::Info,
                        static_cast<std::int64_t>(m_unmatchedPops),
                        "ranges pushed before the capture started were popped during it and left out");
        m_unmatchedPops = 0;
    }
}

void NvtxRecorder::clear() {
    std::lock_guard lock(m_ringsMutex);
    for (Ring* ring : m_rings) {
        ring->tail.store(ring->head.load(std::memory_order_acquire), std::memory_order_release);
    }
    m_stacks.clear();
    m_started.clear();
    m_earlyEnds.clear();
    m_unmatchedPops = 0;
    m_dropped.store(0);
}

void NvtxRecorder::noteMeta(const char* ascii) {
    std::lock_guard lock(m_metaMutex);
    char* slot = m_meta[m_metaCount % kMaxMetaMarks];
    copyText(slot, kMetaBytes, ascii, nullptr);
    ++m_metaCount;
}

std::vector<std::string> NvtxRecorder::metaMarks() {
    std::lock_guard lock(m_metaMutex);
    std::vector<std::string> out;
    std::size_t first = m_metaCount > kMaxMetaMarks ? m_metaCount - kMaxMetaMarks : 0;
    for (std::size_t i = first; i < m_metaCount; ++i) {
        out.emplace_back(m_meta[i % kMaxMetaMarks]);
    }
    return out;
}

void NvtxRecorder::resetAfterFork() {
    // Only the forking thread exists in the child; the mutex may have been held by another thread
    // at fork time, so re-create the state instead of locking it. The containers may have been in
    // the middle of a change by the worker (drainInto) or a registering thread: never destroy or
    // clear them (that would run destructors over a half-updated state); construct empty ones over
    // them and leak the old ones. The child stays Idle for good.
    setMode(NvtxMode::Idle);
    new (&m_ringsMutex) std::mutex();
    new (&m_metaMutex) std::mutex();
    new (&m_rings) std::vector<Ring*>();
    new (&m_stacks) decltype(m_stacks)();
    new (&m_started) decltype(m_started)();
    new (&m_earlyEnds) decltype(m_earlyEnds)();
    t_ring = nullptr;
    m_markerCount.store(0);
}

}  // namespace chokepoint::collectors
