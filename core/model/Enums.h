#pragma once
// Small enumerations stored as one byte per row in the event tables, with their display names.

#include <cstdint>
#include <string_view>

namespace chokepoint::core {

enum class MemcpyKind : std::uint8_t {
    Unknown = 0,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    PeerToPeer,
    HostToHost,
};

// Where the memory of a copy or memset lives; pageable host memory makes H2D copies synchronous.
enum class MemoryKind : std::uint8_t {
    Unknown = 0,
    Pageable,
    Pinned,
    Device,
    Managed,
};

enum class ApiDomain : std::uint8_t {
    Runtime = 0,  // cudaXxx / hipXxx
    Driver,       // cuXxx
    Other,
};

enum class SyncKind : std::uint8_t {
    Unknown = 0,
    StreamSynchronize,
    DeviceSynchronize,  // also context synchronize
    EventSynchronize,
    StreamWaitEvent,
};

// Where a named range came from.
enum class RangeSource : std::uint8_t {
    Nvtx = 0,           // NVTX push/pop or start/end ranges
    UserAnnotation,     // torch.profiler record_function / ProfilerStep#N on the host
    GpuUserAnnotation,  // the same annotation projected onto a GPU stream by Kineto
};

enum class CpuOpCategory : std::uint8_t {
    Operator = 0,    // aten:: and other framework operators (Kineto "cpu_op" / "Operator")
    PythonFunction,  // Python stack frames (Kineto "python_function")
    Other,
};

enum class Severity : std::uint8_t {
    Info = 0,  // worth knowing, nothing lost
    Warning,   // data was repaired or guessed (clamped duration, unmatched correlation)
    DataLoss,  // records were dropped or could not be read
    Error,     // the trace is unusable for some analysis
};

std::string_view toString(MemcpyKind kind);
std::string_view toString(MemoryKind kind);
std::string_view toString(ApiDomain domain);
std::string_view toString(SyncKind kind);
std::string_view toString(RangeSource source);
std::string_view toString(CpuOpCategory category);
std::string_view toString(Severity severity);

}  // namespace chokepoint::core
