#include "core/model/Enums.h"

namespace chokepoint::core {

std::string_view toString(MemcpyKind kind) {
    switch (kind) {
        case MemcpyKind::HostToDevice:
            return "HtoD";
        case MemcpyKind::DeviceToHost:
            return "DtoH";
        case MemcpyKind::DeviceToDevice:
            return "DtoD";
        case MemcpyKind::PeerToPeer:
            return "PtoP";
        case MemcpyKind::HostToHost:
            return "HtoH";
        case MemcpyKind::Unknown:
            break;
    }
    return "unknown";
}

std::string_view toString(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::Pageable:
            return "pageable";
        case MemoryKind::Pinned:
            return "pinned";
        case MemoryKind::Device:
            return "device";
        case MemoryKind::Managed:
            return "managed";
        case MemoryKind::Unknown:
            break;
    }
    return "unknown";
}

std::string_view toString(ApiDomain domain) {
    switch (domain) {
        case ApiDomain::Runtime:
            return "runtime";
        case ApiDomain::Driver:
            return "driver";
        case ApiDomain::Other:
            break;
    }
    return "other";
}

std::string_view toString(SyncKind kind) {
    switch (kind) {
        case SyncKind::StreamSynchronize:
            return "stream synchronize";
        case SyncKind::DeviceSynchronize:
            return "device synchronize";
        case SyncKind::EventSynchronize:
            return "event synchronize";
        case SyncKind::StreamWaitEvent:
            return "stream wait event";
        case SyncKind::Unknown:
            break;
    }
    return "unknown";
}

std::string_view toString(RangeSource source) {
    switch (source) {
        case RangeSource::Nvtx:
            return "nvtx";
        case RangeSource::UserAnnotation:
            return "user_annotation";
        case RangeSource::GpuUserAnnotation:
            return "gpu_user_annotation";
    }
    return "unknown";
}

std::string_view toString(CpuOpCategory category) {
    switch (category) {
        case CpuOpCategory::Operator:
            return "cpu_op";
        case CpuOpCategory::PythonFunction:
            return "python_function";
        case CpuOpCategory::Other:
            break;
    }
    return "other";
}

std::string_view toString(Severity severity) {
    switch (severity) {
        case Severity::Info:
            return "info";
        case Severity::Warning:
            return "warning";
        case Severity::DataLoss:
            return "data-loss";
        case Severity::Error:
            return "error";
    }
    return "unknown";
}

}  // namespace chokepoint::core
