// Nsight Systems CUDA runtime and driver API calls, and synchronizations (NsysImporter.h).
#include "core/import/NsysImporter.h"

#include <limits>
#include <string_view>

namespace chokepoint::core::nsys {

namespace {

// --- Documented enum values (Nsight Systems "SQLite Schema Event Values") ------------------------
constexpr std::int64_t kEventClassRuntime = 0;
constexpr std::int64_t kEventClassDriver = 1;
constexpr std::int64_t kEventClassEglDriver = 13;
constexpr std::int64_t kEventClassBacktrace = 67;  // duplicate of a runtime row carrying a callchain

// CUpti_ActivitySynchronizationType by value (ENUM_CUPTI_SYNC_TYPE).
SyncKind syncKindFromValue(std::int64_t v) {
    switch (v) {
        case 1:
            return SyncKind::EventSynchronize;
        case 2:
            return SyncKind::StreamWaitEvent;
        case 3:
            return SyncKind::StreamSynchronize;
        case 4:
            return SyncKind::DeviceSynchronize;  // context synchronize
        default:
            return SyncKind::Unknown;
    }
}

SyncKind syncKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_EVENT_SYNCHRONIZE"))
        return SyncKind::EventSynchronize;
    if (has("_STREAM_WAIT_EVENT"))
        return SyncKind::StreamWaitEvent;
    if (has("_STREAM_SYNCHRONIZE"))
        return SyncKind::StreamSynchronize;
    if (has("_CONTEXT_SYNCHRONIZE") || has("_DEVICE_SYNCHRONIZE"))
        return SyncKind::DeviceSynchronize;
    return SyncKind::Unknown;
}

// "cudaMemcpy_v3020" -> "cudaMemcpy": nsys appends the API version to runtime function names.
std::string_view stripVersionSuffix(std::string_view name) {
    std::size_t pos = name.rfind("_v");
    if (pos == std::string_view::npos || pos + 2 >= name.size()) {
        return name;
    }
    for (std::size_t i = pos + 2; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') {
            return name;
        }
    }
    return name.substr(0, pos);
}

}  // namespace

Status Importer::readApiCalls(const std::string& table, ApiDomain defaultDomain) {
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"eventClass"}},
                                             {{"globalTid"}},
                                             {{"correlationId"}},
                                             {{"nameId"}}},
                                            {}, defaultDomain == ApiDomain::Runtime);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::unordered_map<std::int64_t, StringId> strippedNames;  // StringIds.id -> name without "_vNNNN"
    std::int64_t otherClasses = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        ApiCallRow call;
        call.domain = defaultDomain;
        IntCell eventClass = readInt(st, 2);
        if (eventClass.ok()) {
            if (eventClass.value == kEventClassBacktrace) {
                ++m_backtraceRows;
                return;
            }
            if (eventClass.value == kEventClassRuntime) {
                call.domain = ApiDomain::Runtime;
            } else if (eventClass.value == kEventClassDriver || eventClass.value == kEventClassEglDriver) {
                call.domain = ApiDomain::Driver;
            } else {
                call.domain = ApiDomain::Other;
                ++otherClasses;
            }
        }
        if (!readSpan(st, 0, 1, table, row, call.startNs, call.endNs)) {
            return;
        }
        IntCell tid = readInt(st, 3);
        std::int64_t pid = 0;
        if (tid.ok()) {
            call.thread = threadFor(tid.value);
            pid = pidOf(tid.value);
        }
        call.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        IntCell nameId = readInt(st, 5);
        if (nameId.ok()) {
            auto it = strippedNames.find(nameId.value);
            if (it == strippedNames.end()) {
                std::string name(m_model.text(stringFor(nameId.value)));
                it = strippedNames.emplace(nameId.value, m_model.intern(stripVersionSuffix(name))).first;
            }
            call.name = it->second;
        } else {
            call.name = m_model.intern("<unnamed API call>");
            badValue(table, row, "nameId", "is missing");
        }
        m_model.apiCalls.add(call);
        m_apiPid.push_back(pid);
    });
    if (otherClasses > 0) {
        m_model.stats.add(
            "import.nsys_unknown_event_class", Severity::Info, otherClasses,
            table + " rows with an eventClass other than CUDA runtime/driver, kept as domain Other");
    }
    return s;
}

Status Importer::readSyncs() {
    const std::string table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"deviceId"}},
                                             {{"streamId"}},
                                             {{"correlationId"}},
                                             {{"syncType"}},
                                             {{"globalPid"}}},
                                            {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        SyncRow s;
        if (!readSpan(st, 0, 1, table, row, s.startNs, s.endNs) ||
            !readDevice(st, 2, table, row, s.deviceIndex)) {
            return;
        }
        // CUPTI writes 0xFFFFFFFF (and some exports -1) for "no stream" on context syncs.
        IntCell stream = readInt(st, 3);
        s.streamId =
            (stream.ok() && stream.value >= 0 && stream.value <= std::numeric_limits<std::int32_t>::max())
                ? static_cast<std::int32_t>(stream.value)
                : -1;
        s.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        IntCell type = readInt(st, 5);
        if (type.ok()) {
            auto it = m_syncEnum.find(type.value);
            s.kind = it != m_syncEnum.end() ? syncKindFromSymbol(it->second) : syncKindFromValue(type.value);
        }
        IntCell pid = readInt(st, 6);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        m_model.syncs.add(s);
        m_syncPid.push_back(p);
    });
}

}  // namespace chokepoint::core::nsys
