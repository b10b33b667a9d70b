#include "core/calltree/OpStats.h"

#include <algorithm>
#include <unordered_map>

#include "core/calltree/NodeKey.h"
#include "core/calltree/OpAttribution.h"

namespace chokepoint::calltree {

OpStatsTable buildOpStats(const core::TraceModel& model, const CallTreeOptions& options) {
    const OpAttribution a = attributeOps(model, options);
    const core::CpuOpTable& ops = model.cpuOps;
    OpStatsTable table;
    std::unordered_map<detail::NodeKey, std::uint32_t, detail::NodeKeyHash> index;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!a.included[i]) {
            continue;
        }
        const core::StringId shapes = options.byInputShapes ? ops.inputShapes[i] : core::StringId{};
        auto [it, added] = index.try_emplace(detail::NodeKey{0, ops.name[i].index, shapes.index},
                                             static_cast<std::uint32_t>(table.rows.size()));
        if (added) {
            OpStatsRow row;
            row.name = ops.name[i];
            row.inputShapes = shapes;
            row.category = ops.category[i];
            table.rows.push_back(row);
        }
        OpStatsRow& row = table.rows[it->second];
        ++row.calls;
        row.selfNs += a.selfNs[i];
        row.totalNs += a.totalNs[i];
        row.gpuNs += a.gpuNs[i];
        row.gpuSelfNs += a.gpuSelfNs[i];
        if (!row.longestOp.valid() || a.totalNs[i] > row.longestNs) {
            row.longestOp = core::CpuOpId{static_cast<std::uint32_t>(i)};
            row.longestNs = a.totalNs[i];
        }
        if (a.effectiveParent[i] == kNoOp) {
            table.topLevelTotalNs += a.totalNs[i];
        }
    }
    std::sort(table.rows.begin(), table.rows.end(), [](const OpStatsRow& x, const OpStatsRow& y) {
        if (x.selfNs != y.selfNs) {
            return x.selfNs > y.selfNs;
        }
        return x.totalNs != y.totalNs ? x.totalNs > y.totalNs : x.name < y.name;
    });
    return table;
}

}  // namespace chokepoint::calltree
