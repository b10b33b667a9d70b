#pragma once
// Sequential byte sources for importers: a plain file, a gzip file inflated on the fly (zlib,
// multi-member streams included), or a memory buffer. Readers pull bytes in blocks, so a trace of
// any size is read with a bounded buffer and never held whole in memory.
//
// Gzip is recognised by its magic bytes (1f 8b), never by the file name.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/Result.h"

namespace chokepoint::core {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Copies up to `capacity` bytes into `dest`; 0 means end of data. On a read or decompression
    // error returns an Error naming the source and the compressed/raw byte offset.
    virtual Result<std::size_t> read(char* dest, std::size_t capacity) = 0;
    // Fraction of the underlying input consumed so far, in [0, 1], for progress reports.
    virtual double fractionConsumed() const = 0;
    // True when the bytes are inflated from gzip.
    virtual bool compressed() const { return false; }
    // Total bytes read() will return when known in advance (plain file, memory), else 0.
    virtual std::uint64_t sizeHint() const { return 0; }
    // Non-empty once read() reached the end of a compressed stream cut short (a gzip member without
    // its end): read() then ends the data where the input ended, and this says where, so a reader
    // that tolerates a truncated document can warn.
    virtual std::string truncation() const { return {}; }
};

inline constexpr unsigned char kGzipMagic0 = 0x1f;
inline constexpr unsigned char kGzipMagic1 = 0x8b;

inline bool hasGzipMagic(std::string_view firstBytes) {
    return firstBytes.size() >= 2 && static_cast<unsigned char>(firstBytes[0]) == kGzipMagic0 &&
           static_cast<unsigned char>(firstBytes[1]) == kGzipMagic1;
}

// Opens `path` for reading: a directory, a missing or unreadable file or a zero-byte file is an
// Error naming the path. Gzip content is inflated transparently.
Result<std::unique_ptr<ByteSource>> openFileByteSource(const std::string& path);

// Reads from memory that must outlive the source (no gzip handling).
std::unique_ptr<ByteSource> makeMemoryByteSource(std::string_view bytes);

// Wraps `inner` (gzip bytes) so reads return the inflated data; `name` names the source in errors.
std::unique_ptr<ByteSource> makeGzipByteSource(std::unique_ptr<ByteSource> inner, std::string name);

// Reads the first `count` bytes of the file at `path` (fewer when the file is shorter). Errors as
// for openFileByteSource except that a zero-byte file returns an empty string.
Result<std::string> readFilePrefix(const std::string& path, std::size_t count);

}  // namespace chokepoint::core
