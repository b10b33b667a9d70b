#pragma once
// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`): kernels, memcpy, memset,
// CUDA runtime/driver API, synchronization, NVTX ranges, string ids, thread names and GPU info,
// for old (2.x, e.g. Nsight Systems 2022.2) and new (3.x) schema versions. Tables and columns are
// looked up by name, so a table or column that a version lacks is simply skipped.
//
// Mapping (all timestamps are already int64 ns on the report's session clock):
//   CUPTI_ACTIVITY_KIND_KERNEL   -> kernels (name = demangledName, else shortName, else mangledName)
//   CUPTI_ACTIVITY_KIND_MEMCPY   -> memcpys (copyKind/srcKind/dstKind via ENUM_* tables or the
//                                   documented numeric values)
//   CUPTI_ACTIVITY_KIND_MEMSET   -> memsets
//   CUPTI_ACTIVITY_KIND_GRAPH_TRACE -> kernels named "CUDA graph N" (graph-level tracing: one GPU
//                                   row per launched graph; the kernels inside are not recorded)
//   CUPTI_ACTIVITY_KIND_RUNTIME  -> apiCalls (eventClass 0 runtime, 1/13 driver; 67 = backtrace
//                                   duplicates, skipped and counted); the "_vNNNN" version suffix
//                                   nsys appends ("cudaMemcpy_v3020") is removed
//   CUPTI_ACTIVITY_KIND_DRIVER   -> apiCalls with the Driver domain (older exports)
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION -> syncs
//   NVTX_EVENTS                  -> ranges (push/pop 59/70, start/end 60/71, marks 34 as
//                                   zero-length ranges); domains from eventType 75 rows
//   TARGET_INFO_GPU / TARGET_INFO_CUDA_GPU / TARGET_INFO_CUDA_DEVICE -> devices
//   GPU_METRICS + TARGET_INFO_GPU_METRICS -> counters, one track per (GPU, metric): "SMs Active",
//                                   "Tensor Active", "DRAM Read Bandwidth", "PCIe RX Throughput", ...
//                                   with the bracketed unit ("[Throughput %]" -> "%"); the GPU is
//                                   the low byte of typeId
//   ThreadNames, PROCESSES, META_DATA_EXPORT / EXPORT_META_DATA, TARGET_INFO_SESSION_START_TIME,
//   TARGET_INFO_SYSTEM_ENV -> threads, processes, metadata
// globalTid/globalPid are decoded as documented in NVIDIA's export docs ("Serialized process and
// thread identifiers"): PID = (globalTid >> 24) & 0xFFFFFF, TID = globalTid & 0xFFFFFF.
// When a report holds several processes, correlation ids are made unique as (pid << 32) | id.
//
// Bad rows (NULL or non-integer start/end, impossible device ids) are dropped and counted in
// TraceStats ("import.nsys_bad_row"); bad optional values become 0 and are counted
// ("import.nsys_bad_value"); absent tables are counted ("import.nsys_missing_table").

#include <cstddef>
#include <string>

#include "core/base/Result.h"
#include "core/model/LoadOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Opens the database read-only. Returns a finalized model or an Error naming the file and the
// table or row at fault.
Result<TraceModel> importNsysSqlite(const std::string& path, const LoadOptions& options = {});

// The same import from an in-memory image of a database file (fuzzing, tests, network buffers).
// `displayName` is used in error messages and as the model's source path.
Result<TraceModel> importNsysSqliteBytes(const void* bytes, std::size_t size, const std::string& displayName,
                                         const LoadOptions& options = {});

}  // namespace chokepoint::core
