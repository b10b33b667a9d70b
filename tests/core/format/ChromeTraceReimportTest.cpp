// The exported Chrome-trace JSON read back by our Kineto importer gives the same rows.

#include <gtest/gtest.h>

#include "core/format/ChromeTraceExporter.h"
#include "core/import/KinetoJsonImporter.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

TEST(ChromeTraceReimport, KinetoImporterReadsBackTheSameCounts) {
    TraceModel m = fullModel(4);
    const std::string json = chromeTraceJson(m);
    Result<TraceModel> back = importKinetoJsonFromMemory(json, "export.json");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->kernels.size(), m.kernels.size());
    EXPECT_EQ(back->memcpys.size(), m.memcpys.size());
    EXPECT_EQ(back->memsets.size(), m.memsets.size());
    EXPECT_EQ(back->apiCalls.size(), m.apiCalls.size());
    EXPECT_EQ(back->syncs.size(), m.syncs.size());
    EXPECT_EQ(back->ranges.size(), m.ranges.size());
    EXPECT_EQ(back->cpuOps.size(), m.cpuOps.size());
    ASSERT_EQ(back->kernels.size(), m.kernels.size());
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        EXPECT_EQ(back->kernels.startNs[i], m.kernels.startNs[i]);
        EXPECT_EQ(back->kernels.correlationId[i], m.kernels.correlationId[i]);
        EXPECT_EQ(back->text(back->kernels.name[i]), m.text(m.kernels.name[i]));
        EXPECT_EQ(back->kernels.gridX[i], m.kernels.gridX[i]);
        EXPECT_EQ(back->kernels.blockY[i], m.kernels.blockY[i]);
    }
    for (std::size_t i = 0; i < m.memcpys.size(); ++i) {
        EXPECT_EQ(back->memcpys.sizeBytes[i], m.memcpys.sizeBytes[i]);
        EXPECT_EQ(back->memcpys.kind[i], m.memcpys.kind[i]);
    }
    ASSERT_EQ(back->devices.size(), m.devices.size());
    EXPECT_EQ(back->devices[0].name, m.devices[0].name);
    EXPECT_EQ(back->devices[0].smCount, m.devices[0].smCount);
    EXPECT_EQ(back->distributed.rank, m.distributed.rank);
    EXPECT_EQ(back->distributed.worldSize, m.distributed.worldSize);
}

}  // namespace
}  // namespace chokepoint::formattest
