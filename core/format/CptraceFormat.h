#pragma once
// Constants of the native .cptrace format (layout in FORMAT.md beside this header).
//
//   file   = header frame* footerFrame
//   header = 8 magic bytes "CPTRACE\0" | uint32 LE major version | uint32 LE minor version  (16 bytes)
//   frame  = varint N | body[N]
//   body   = uint32 LE CRC-32 (zlib) of body[4..N] | uint8 encoding | [varint rawBytes if zlib] | payload
//   payload = one serialized chokepoint.cptrace.Chunk message (proto/cptrace.proto), zlib-compressed
//             when encoding == 1.
//
// A reader accepts any minor version of its major version (new fields are ignored by protobuf) and
// refuses a newer major version. Limits below bound the memory a hostile file can make us allocate.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace chokepoint::core {

inline constexpr char kCptraceMagic[8] = {'C', 'P', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr std::size_t kCptraceMagicSize = sizeof(kCptraceMagic);
inline constexpr std::size_t kCptraceHeaderSize = 16;  // magic + major + minor
inline constexpr std::uint32_t kCptraceVersionMajor = 1;
inline constexpr std::uint32_t kCptraceVersionMinor = 1;  // 1: stack frames, stacks and samples

// Largest frame body we accept (bytes on disk) and largest decompressed chunk payload.
inline constexpr std::uint64_t kCptraceMaxFrameBytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t kCptraceMaxRawChunkBytes = std::uint64_t{512} << 20;
// zlib cannot expand data by more than about 1032:1; a larger claimed ratio is corrupt.
inline constexpr std::uint64_t kCptraceMaxInflateRatio = 1040;

enum class CptraceChunkEncoding : std::uint8_t {
    Protobuf = 0,      // payload is the serialized Chunk
    ZlibProtobuf = 1,  // payload is the serialized Chunk compressed with zlib (deflate, zlib wrapper)
};

// True when `firstBytes` (at least 8 bytes) starts with the .cptrace magic.
inline bool hasCptraceMagic(std::string_view firstBytes) {
    return firstBytes.size() >= kCptraceMagicSize &&
           firstBytes.substr(0, kCptraceMagicSize) == std::string_view(kCptraceMagic, kCptraceMagicSize);
}

}  // namespace chokepoint::core
