#pragma once
// A small structural scanner for JSON text held in a buffer that is refilled block by block. It
// finds where one value ends (strings and escapes respected, brackets counted) without parsing
// it, so the importer can hand whole trace events to simdjson in batches and keep only a bounded
// window of the file in memory. Bracket kinds are not matched here; simdjson validates each value
// when it parses it.

#include <cstddef>

namespace chokepoint::core {

// Bytes that must be readable past the end of the scanned data (vector loads may look ahead).
inline constexpr std::size_t kJsonScanPadding = 64;

enum class ScanStatus {
    Complete,    // the value ends inside the data
    Incomplete,  // the data ends before the value does
    Invalid,     // not the start of a JSON value, or a closing bracket without an opening one
};

struct ScanResult {
    ScanStatus status = ScanStatus::Incomplete;
    std::size_t length = 0;  // bytes of the value when Complete
};

// Scans the value starting at data[0] (no leading whitespace). `size` bytes are valid, and
// kJsonScanPadding more must be readable.
ScanResult scanJsonValue(const char* data, std::size_t size);

inline bool isJsonSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Offset of the first non-whitespace byte at or after `from`, or `size` when there is none.
inline std::size_t skipJsonSpace(const char* data, std::size_t size, std::size_t from) {
    while (from < size && isJsonSpace(data[from])) {
        ++from;
    }
    return from;
}

}  // namespace chokepoint::core
