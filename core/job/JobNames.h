#pragma once
// The job layer's name questions: collective kinds from kernel and recorded collective names,
// element sizes of recorded dtypes, and host frames of the Python garbage collector. The name
// rules themselves are core/names/NameRules.h (token rules, regression corpus in
// tests/core/names/data/name_corpus.tsv); these forward to it.

#include <cstdint>
#include <string>
#include <string_view>

namespace chokepoint::job {

// "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "SendRecv",
// "Barrier", or "" when the name is not a collective. Accepts NCCL/RCCL kernel names
// ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(...)")
// and recorded collective names ("allreduce", "_allgather_base", "all_to_allv", "nccl:all_reduce").
std::string collectiveKindFromName(std::string_view name);

// Bytes per element of a recorded dtype ("Float", "BFloat16", "c10::Half", "unsigned char",
// "long int"); 0 when unknown.
int dtypeBytes(std::string_view dtype);

// A host frame or range of the Python garbage collector ("gc.collect", "<built-in method collect of
// module object at 0x...>" under gc, "gc_collect", NVTX "GC").
bool isGarbageCollectionName(std::string_view name);

// A host op that wraps a collective call (record_param_comms, nccl:*, c10d::*, gloo:*): its input
// shapes give the message size when the kernel has no collective args.
bool isCollectiveOpName(std::string_view name);

}  // namespace chokepoint::job
