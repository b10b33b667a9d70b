#include "core/import/ByteSource.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace chokepoint::core {

namespace {

class FileByteSource final : public ByteSource {
public:
    FileByteSource(int fd, std::string path, std::uint64_t sizeBytes)
        : m_fd(fd), m_path(std::move(path)), m_sizeBytes(sizeBytes) {}
    ~FileByteSource() override { ::close(m_fd); }
    FileByteSource(const FileByteSource&) = delete;
    FileByteSource& operator=(const FileByteSource&) = delete;

    Result<std::size_t> read(char* dest, std::size_t capacity) override {
        std::size_t total = 0;
        while (total < capacity) {
            ssize_t n = ::read(m_fd, dest + total, capacity - total);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return makeError(m_path + ": read error at byte " + std::to_string(m_offset) + ": " +
                                 std::strerror(errno));
            }
            if (n == 0) {
                break;
            }
            total += static_cast<std::size_t>(n);
            m_offset += static_cast<std::uint64_t>(n);
        }
        return total;
    }
    double fractionConsumed() const override {
        return m_sizeBytes == 0 ? 1.0 : std::min(1.0, double(m_offset) / double(m_sizeBytes));
    }
    std::uint64_t sizeHint() const override { return m_sizeBytes; }

private:
    int m_fd;
    std::string m_path;
    std::uint64_t m_sizeBytes;
    std::uint64_t m_offset = 0;
};

class MemoryByteSource final : public ByteSource {
public:
    explicit MemoryByteSource(std::string_view bytes) : m_bytes(bytes) {}
    Result<std::size_t> read(char* dest, std::size_t capacity) override {
        std::size_t n = std::min(capacity, m_bytes.size() - m_offset);
        std::memcpy(dest, m_bytes.data() + m_offset, n);
        m_offset += n;
        return n;
    }
    double fractionConsumed() const override {
        return m_bytes.empty() ? 1.0 : double(m_offset) / double(m_bytes.size());
    }
    std::uint64_t sizeHint() const override { return m_bytes.size(); }

private:
    std::string_view m_bytes;
    std::size_t m_offset = 0;
};

// Streams inflate() over the inner source. Handles concatenated gzip members (as `cat a.gz b.gz`
// produces, which gunzip also accepts). A stream that ends before its member is complete is an
// error: silently returning the prefix would lose data without saying so.
class GzipByteSource final : public ByteSource {
public:
    GzipByteSource(std::unique_ptr<ByteSource> inner, std::string name)
        : m_inner(std::move(inner)), m_name(std::move(name)), m_in(kInBytes) {
        std::memset(&m_zs, 0, sizeof(m_zs));
        m_initOk = inflateInit2(&m_zs, 15 + 16) == Z_OK;  // 15-bit window, gzip wrapper only
    }
    ~GzipByteSource() override {
        if (m_initOk) {
            inflateEnd(&m_zs);
        }
    }
    GzipByteSource(const GzipByteSource&) = delete;
    GzipByteSource& operator=(const GzipByteSource&) = delete;

    bool compressed() const override { return true; }
    double fractionConsumed() const override { return m_inner->fractionConsumed(); }
    std::string truncation() const override { return m_truncation; }

    Result<std::size_t> read(char* dest, std::size_t capacity) override {
        if (!m_initOk) {
            return makeError(m_name + ": cannot initialise zlib");
        }
        std::size_t produced = 0;
        while (produced < capacity && !m_finished) {
            if (m_zs.avail_in == 0 && !m_innerEof) {
                auto got = m_inner->read(reinterpret_cast<char*>(m_in.data()), m_in.size());
                if (!got.ok()) {
                    return got.error();
                }
                m_zs.next_in = m_in.data();
                m_zs.avail_in = static_cast<uInt>(got.value());
                m_innerEof = got.value() == 0;
            }
            if (m_zs.avail_in == 0 && m_innerEof) {
                if (m_memberOpen && m_inflatedOffset == 0) {
                    return makeError(m_name + ": truncated gzip stream: the compressed data ends at byte " +
                                     std::to_string(m_compressedOffset) + " inside a gzip member (after " +
                                     std::to_string(m_inflatedOffset) + " inflated bytes)");
                }
                if (m_memberOpen) {
                    // The data inflated so far is returned; the reader decides whether it can use it.
                    m_truncation = "truncated gzip stream: the compressed data ends at byte " +
                                   std::to_string(m_compressedOffset) + " inside a gzip member (after " +
                                   std::to_string(m_inflatedOffset) + " inflated bytes)";
                }
                m_finished = true;
                break;
            }
            std::size_t room = std::min<std::size_t>(capacity - produced, 1u << 30);
            m_zs.next_out = reinterpret_cast<Bytef*>(dest + produced);
            m_zs.avail_out = static_cast<uInt>(room);
            uInt inBefore = m_zs.avail_in;
            m_memberOpen = true;
            int rc = inflate(&m_zs, Z_NO_FLUSH);
            std::size_t out = room - m_zs.avail_out;
            produced += out;
            m_inflatedOffset += out;
            m_compressedOffset += inBefore - m_zs.avail_in;
            if (rc == Z_STREAM_END) {
                m_memberOpen = false;
                ++m_members;
                // Another member may follow; anything else after a member is trailing garbage.
                if (m_zs.avail_in == 0) {
                    auto got = m_inner->read(reinterpret_cast<char*>(m_in.data()), m_in.size());
                    if (!got.ok()) {
                        return got.error();
                    }
                    m_zs.next_in = m_in.data();
                    m_zs.avail_in = static_cast<uInt>(got.value());
                    m_innerEof = got.value() == 0;
                }
                if (m_zs.avail_in == 0) {
                    m_finished = true;
                    break;
                }
                if (m_zs.avail_in < 2 || m_zs.next_in[0] != kGzipMagic0 || m_zs.next_in[1] != kGzipMagic1) {
                    return makeError(m_name + ": unexpected data after the gzip stream at compressed byte " +
                                     std::to_string(m_compressedOffset));
                }
                inflateReset(&m_zs);
            } else if (rc == Z_BUF_ERROR) {
                // No progress possible: needs more input (handled above) or more output room.
                if (m_zs.avail_in != 0 && out == 0) {
                    return makeError(m_name + ": gzip stream cannot make progress at compressed byte " +
                                     std::to_string(m_compressedOffset));
                }
            } else if (rc != Z_OK) {
                return makeError(m_name + ": corrupt gzip data at compressed byte " +
                                 std::to_string(m_compressedOffset) + ": " +
                                 (m_zs.msg != nullptr ? m_zs.msg : "inflate failed"));
            }
        }
        return produced;
    }

private:
    static constexpr std::size_t kInBytes = 256 * 1024;
    std::unique_ptr<ByteSource> m_inner;
    std::string m_name;
    std::string m_truncation;
    std::vector<unsigned char> m_in;
    z_stream m_zs;
    bool m_initOk = false;
    bool m_innerEof = false;
    bool m_finished = false;
    bool m_memberOpen = false;
    int m_members = 0;
    std::uint64_t m_compressedOffset = 0;
    std::uint64_t m_inflatedOffset = 0;
};

// Opens a regular file; rejects directories and special files with a message naming the path.
Result<int> openRegularFile(const std::string& path, std::uint64_t& sizeBytes) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return makeError(path + ": cannot open: " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        return makeError(path + ": cannot stat: " + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return makeError(path + ": is a directory, not a trace file");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return makeError(path + ": is not a regular file");
    }
    sizeBytes = static_cast<std::uint64_t>(st.st_size);
    return fd;
}

}  // namespace

Result<std::unique_ptr<ByteSource>> openFileByteSource(const std::string& path) {
    std::uint64_t sizeBytes = 0;
    auto fd = openRegularFile(path, sizeBytes);
    if (!fd.ok()) {
        return fd.error();
    }
    if (sizeBytes == 0) {
        ::close(fd.value());
        return makeError(path + ": the file is empty (0 bytes)");
    }
    unsigned char magic[2] = {0, 0};
    ssize_t n = ::pread(fd.value(), magic, 2, 0);
    std::unique_ptr<ByteSource> file = std::make_unique<FileByteSource>(fd.value(), path, sizeBytes);
    if (n == 2 && magic[0] == kGzipMagic0 && magic[1] == kGzipMagic1) {
        return makeGzipByteSource(std::move(file), path);
    }
    return file;
}

std::unique_ptr<ByteSource> makeMemoryByteSource(std::string_view bytes) {
    return std::make_unique<MemoryByteSource>(bytes);
}

std::unique_ptr<ByteSource> makeGzipByteSource(std::unique_ptr<ByteSource> inner, std::string name) {
    return std::make_unique<GzipByteSource>(std::move(inner), std::move(name));
}

Result<std::string> readFilePrefix(const std::string& path, std::size_t count) {
    std::uint64_t sizeBytes = 0;
    auto fd = openRegularFile(path, sizeBytes);
    if (!fd.ok()) {
        return fd.error();
    }
    std::string prefix(count, '\0');
    std::size_t total = 0;
    while (total < count) {
        ssize_t n = ::read(fd.value(), prefix.data() + total, count - total);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            int err = errno;
            ::close(fd.value());
            return makeError(path + ": read error: " + std::strerror(err));
        }
        if (n == 0) {
            break;
        }
        total += static_cast<std::size_t>(n);
    }
    ::close(fd.value());
    prefix.resize(total);
    return prefix;
}

}  // namespace chokepoint::core
