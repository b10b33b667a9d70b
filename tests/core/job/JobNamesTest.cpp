// The job layer's name rules against a corpus of real names (NCCL/RCCL kernels from Kineto traces
// of PyTorch 1.x and 2.x, recorded collective names, dtypes, GC frames) and near misses.

#include <gtest/gtest.h>

#include "core/job/JobNames.h"
#include "core/job/RankIdentity.h"

namespace chokepoint::job {
namespace {

TEST(JobNamesTest, CollectiveKindsFromKernelNames) {
    EXPECT_EQ(collectiveKindFromName(
                  "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"),
              "SendRecv");
    EXPECT_EQ(
        collectiveKindFromName("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
        "AllReduce");
    EXPECT_EQ(collectiveKindFromName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), "AllReduce");
    EXPECT_EQ(collectiveKindFromName("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
              "AllGather");
    EXPECT_EQ(collectiveKindFromName(
                  "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
              "ReduceScatter");
    EXPECT_EQ(collectiveKindFromName("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
              "Broadcast");
    EXPECT_EQ(collectiveKindFromName("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), "SendRecv");
    EXPECT_EQ(collectiveKindFromName("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)"), "");
}

TEST(JobNamesTest, CollectiveKindsFromRecordedNames) {
    EXPECT_EQ(collectiveKindFromName("allreduce"), "AllReduce");
    EXPECT_EQ(collectiveKindFromName("allreduce_coalesced"), "AllReduce");
    EXPECT_EQ(collectiveKindFromName("_allgather_base"), "AllGather");
    EXPECT_EQ(collectiveKindFromName("all_gather_into_tensor"), "AllGather");
    EXPECT_EQ(collectiveKindFromName("_reduce_scatter_base"), "ReduceScatter");
    EXPECT_EQ(collectiveKindFromName("reduce_scatter_tensor_coalesced"), "ReduceScatter");
    EXPECT_EQ(collectiveKindFromName("all_to_allv"), "AllToAll");
    EXPECT_EQ(collectiveKindFromName("nccl:all_reduce"), "AllReduce");
    EXPECT_EQ(collectiveKindFromName("nccl:_all_gather_base"), "AllGather");
    EXPECT_EQ(collectiveKindFromName("nccl:all_to_all"), "AllToAll");
    EXPECT_EQ(collectiveKindFromName("c10d::allreduce_"), "AllReduce");
    EXPECT_EQ(collectiveKindFromName("barrier"), "Barrier");
    EXPECT_EQ(collectiveKindFromName("send"), "SendRecv");
}

TEST(JobNamesTest, OpsThatOnlyContainACollectiveWordAreNot) {
    EXPECT_EQ(collectiveKindFromName("aten::broadcast_tensors"), "");
    EXPECT_EQ(collectiveKindFromName("aten::scatter_add_"), "");
    EXPECT_EQ(collectiveKindFromName("aten::gather"), "");
    EXPECT_EQ(collectiveKindFromName("void at::native::reduce_kernel<512, 1>(...)"), "");
    EXPECT_EQ(collectiveKindFromName("triton_red_fused_sum_0"), "");
}

TEST(JobNamesTest, DtypeSizes) {
    EXPECT_EQ(dtypeBytes("Float"), 4);
    EXPECT_EQ(dtypeBytes("BFloat16"), 2);
    EXPECT_EQ(dtypeBytes("c10::Half"), 2);
    EXPECT_EQ(dtypeBytes("float"), 4);
    EXPECT_EQ(dtypeBytes("unsigned char"), 1);
    EXPECT_EQ(dtypeBytes("long int"), 8);
    EXPECT_EQ(dtypeBytes("Float8_e4m3fn"), 1);
    EXPECT_EQ(dtypeBytes("TensorList"), 0);
    EXPECT_EQ(dtypeBytes(""), 0);
}

TEST(JobNamesTest, GarbageCollectionFrames) {
    EXPECT_TRUE(isGarbageCollectionName("gc.collect"));
    EXPECT_TRUE(isGarbageCollectionName("<built-in function gc_collect>"));
    EXPECT_TRUE(isGarbageCollectionName("GC"));
    EXPECT_TRUE(isGarbageCollectionName("garbage collection"));
    EXPECT_FALSE(isGarbageCollectionName("aten::gcd"));
    EXPECT_FALSE(isGarbageCollectionName("logic.py(12): gcc_flags"));
}

TEST(JobNamesTest, CollectiveHostOps) {
    EXPECT_TRUE(isCollectiveOpName("record_param_comms"));
    EXPECT_TRUE(isCollectiveOpName("nccl:all_reduce"));
    EXPECT_TRUE(isCollectiveOpName("c10d::allreduce_"));
    EXPECT_FALSE(isCollectiveOpName("aten::broadcast_tensors"));
}

TEST(RankIdentityTest, RankFromFileNames) {
    EXPECT_EQ(rankFromFileName("/traces/rank-3.json.gz"), 3);
    EXPECT_EQ(rankFromFileName("rank3.pt.trace.json"), 3);
    EXPECT_EQ(rankFromFileName("sampled_rank-1.json.gz"), 1);
    EXPECT_EQ(rankFromFileName("hta/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"), 34);
    EXPECT_EQ(rankFromFileName("worker12.cptrace"), 12);
    EXPECT_EQ(rankFromFileName("job_rank_12.cpsum"), 12);
    EXPECT_FALSE(rankFromFileName("crank3.json").has_value());
    EXPECT_FALSE(rankFromFileName("trace.json").has_value());
    // The folder's name does not count, only the file's.
    EXPECT_FALSE(rankFromFileName("/runs/rank7/trace.json").has_value());
}

TEST(RankIdentityTest, RankFromProcessNames) {
    EXPECT_EQ(rankFromProcessName("RANK 3 - GPU"), 3);
    EXPECT_EQ(rankFromProcessName("RANK 12 - CPU"), 12);
    EXPECT_EQ(rankFromProcessName("[rank5]"), 5);
    EXPECT_FALSE(rankFromProcessName("python3").has_value());
    EXPECT_FALSE(rankFromProcessName("pyper:trainer:0:1").has_value());
}

TEST(RankIdentityTest, PrefersDistributedInfoThenProcessThenFileThenOrder) {
    core::TraceModel model;
    EXPECT_EQ(identifyRank(model, "x/trace.json", 4).rank, 4);
    EXPECT_EQ(identifyRank(model, "x/trace.json", 4).source, RankSource::Order);
    EXPECT_EQ(identifyRank(model, "x/rank-9.json", 4).rank, 9);
    EXPECT_EQ(identifyRank(model, "x/rank-9.json", 4).source, RankSource::FileName);
    model.processes.push_back({100, "RANK 6 - GPU"});
    EXPECT_EQ(identifyRank(model, "x/rank-9.json", 4).rank, 6);
    model.distributed.present = true;
    model.distributed.rank = 2;
    EXPECT_EQ(identifyRank(model, "x/rank-9.json", 4).rank, 2);
    EXPECT_EQ(identifyRank(model, "x/rank-9.json", 4).source, RankSource::DistributedInfo);
}

}  // namespace
}  // namespace chokepoint::job
