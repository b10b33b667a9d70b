// Nsight Systems NVTX ranges and marks (NsysImporter.h).
#include "core/import/NsysImporter.h"

#include <string_view>
#include <vector>

namespace chokepoint::core::nsys {

namespace {

constexpr std::int64_t kNvtxMark = 34;
constexpr std::int64_t kNvtxThread = 39;
constexpr std::int64_t kNvtxPushPop = 59;
constexpr std::int64_t kNvtxStartEnd = 60;
constexpr std::int64_t kNvtxtPushPop = 70;  // NVTX ranges recorded through the nvtx "T" extension
constexpr std::int64_t kNvtxtStartEnd = 71;
constexpr std::int64_t kNvtxDomainCreate = 75;

}  // namespace

Status Importer::readNvtx() {
    const std::string table = "NVTX_EVENTS";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}},
                                                    {{"eventType"}, true},
                                                    {{"text"}},
                                                    {{"textId"}},
                                                    {{"globalTid"}},
                                                    {{"domainId"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    struct Pending {
        RangeRow row;
        std::int64_t pid = 0;
        std::int64_t domainId = 0;
    };
    std::vector<Pending> pending;
    std::unordered_map<std::uint64_t, StringId> domains;  // (pid, domainId) -> name
    auto domainKey = [](std::int64_t pid, std::int64_t domainId) {
        return (static_cast<std::uint64_t>(pid) << 40) ^ static_cast<std::uint64_t>(domainId);
    };
    std::int64_t openRanges = 0;
    std::int64_t otherEvents = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell type = readInt(st, 2);
        if (!type.ok()) {
            badRow(table, row, "eventType", type.state);
            return;
        }
        CellState textState = CellState::Null;
        std::string_view text = readText(st, 3, textState);
        StringId name;
        if (textState == CellState::Ok) {
            name = m_model.intern(text);
        } else if (IntCell textId = readInt(st, 4); textId.ok()) {
            name = stringFor(textId.value);
        } else {
            name = m_model.strings.emptyId();
        }
        IntCell tid = readInt(st, 5);
        std::int64_t pid = tid.ok() ? pidOf(tid.value) : 0;
        IntCell domain = readInt(st, 6);
        std::int64_t domainId = domain.ok() ? domain.value : 0;
        switch (type.value) {
            case kNvtxDomainCreate:
                domains.emplace(domainKey(pid, domainId), name);
                return;
            case kNvtxThread:
                if (tid.ok()) {
                    ThreadIndex index = threadFor(tid.value);
                    m_model.threads[index].name = std::string(m_model.text(name));
                }
                return;
            case kNvtxPushPop:
            case kNvtxStartEnd:
            case kNvtxtPushPop:
            case kNvtxtStartEnd:
            case kNvtxMark:
                break;
            default:
                ++otherEvents;
                return;
        }
        Pending p;
        IntCell start = readInt(st, 0);
        if (!start.ok()) {
            badRow(table, row, "start", start.state);
            return;
        }
        p.row.startNs = start.value;
        IntCell end = readInt(st, 1);
        if (type.value == kNvtxMark) {
            p.row.endNs = p.row.startNs;
        } else if (end.ok()) {
            p.row.endNs = end.value;
            if (p.row.endNs < p.row.startNs) {
                m_model.stats.add("import.negative_duration_clamped", Severity::Warning, 1,
                                  m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                                      ": end before start; duration set to 0");
                p.row.endNs = p.row.startNs;
            }
        } else {
            // A range still open when the capture stopped (end NULL): kept with zero length.
            ++openRanges;
            p.row.endNs = p.row.startNs;
        }
        p.row.source = RangeSource::Nvtx;
        p.row.thread = tid.ok() ? threadFor(tid.value) : kNoThread;
        p.row.name = name;
        p.pid = pid;
        p.domainId = domainId;
        pending.push_back(p);
    });
    if (!s.ok()) {
        return s;
    }
    // Domains are created before use, but rows are not guaranteed to come in time order, so names
    // are resolved once all rows are read.
    for (Pending& p : pending) {
        if (p.domainId != 0) {
            auto it = domains.find(domainKey(p.pid, p.domainId));
            p.row.domain =
                it != domains.end() ? it->second : m_model.intern("domain " + std::to_string(p.domainId));
        }
        m_model.ranges.add(p.row);
    }
    if (openRanges > 0) {
        m_model.stats.add(
            "import.nsys_nvtx_open_range", Severity::Warning, openRanges,
            "NVTX ranges without an end (still open when the capture stopped); kept with zero length");
    }
    if (otherEvents > 0) {
        m_model.stats.add(
            "import.nsys_nvtx_other_events", Severity::Info, otherEvents,
            "NVTX rows that are not ranges or marks (categories, domain destroy, payload-only)");
    }
    return Ok{};
}

}  // namespace chokepoint::core::nsys
