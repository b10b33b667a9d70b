#pragma once
// Helpers for the importer suites: temporary files (plain or gzip, written with zlib's gz* API,
// independent of the importer's own reader) and reading a whole trace file decompressed.

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace chokepoint::testutils {

// A file in the temp directory, removed when the object goes away.
class TempFile {
public:
    explicit TempFile(const std::string& suffix) {
        static std::atomic<int> counter{0};
        m_path =
            (std::filesystem::temp_directory_path() /
             ("chokepoint-import-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + suffix))
                .string();
    }
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    const std::string& path() const { return m_path; }

    void write(const std::string& bytes) const {
        std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

private:
    std::string m_path;
};

// gzip-compresses `bytes` in memory (gzip wrapper, default level).
inline std::string gzipBytes(const std::string& bytes) {
    z_stream zs{};
    deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// Reads a file whole, inflating it with zlib's gzread when it is gzip (gzread passes plain files
// through unchanged).
inline std::string readMaybeGzip(const std::string& path) {
    std::string out;
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) {
        return out;
    }
    char block[1 << 16];
    int n = 0;
    while ((n = gzread(f, block, sizeof block)) > 0) {
        out.append(block, static_cast<std::size_t>(n));
    }
    gzclose(f);
    return out;
}

}  // namespace chokepoint::testutils
