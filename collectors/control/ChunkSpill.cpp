#include "collectors/control/ChunkSpill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

namespace chokepoint::collectors {

ChunkSpill::ChunkSpill(std::string directory, std::uint64_t maxBytes)
    : m_directory(std::move(directory)), m_maxBytes(maxBytes) {
    if (m_directory.empty()) {
        // /var/tmp rather than /tmp: /tmp is often in memory (tmpfs), which would defeat the purpose.
        const char* tmp = std::getenv("TMPDIR");
        m_directory = tmp != nullptr && *tmp != '\0' ? tmp : "/var/tmp";
    }
}

ChunkSpill::~ChunkSpill() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

void ChunkSpill::abandon() {
    if (m_fd >= 0) {
        ::close(m_fd);  // our descriptor only: the parent's file is unaffected
    }
    m_fd = -1;
    m_entries.clear();
    m_bytesHeld = 0;
    m_writeOffset = 0;
    m_peakBytes = 0;
    m_chunksSpilled = 0;
}

void ChunkSpill::forgetAfterFork() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
    m_fd = -1;
    new (&m_entries) std::deque<Entry>();
    new (&m_error) std::string();
    m_bytesHeld = 0;
    m_writeOffset = 0;
}

bool ChunkSpill::open() {
    if (m_fd >= 0) {
        return true;
    }
    std::string path = m_directory + "/chokepoint-spill-XXXXXX";
    m_fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (m_fd < 0) {
        m_error = "cannot create a spill file in " + m_directory + ": " + std::strerror(errno);
        return false;
    }
    ::unlink(path.c_str());  // nameless from now on: gone when closed, even after a crash
    return true;
}

bool ChunkSpill::push(const wire::Chunk& chunk) {
    const std::string bytes = wire::encodeEnvelope(chunk);
    if (m_bytesHeld + bytes.size() > m_maxBytes) {
        m_error = "spill cap of " + std::to_string(m_maxBytes >> 20) + " MiB reached";
        return false;
    }
    if (!open()) {
        return false;
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(m_fd, bytes.data() + done, bytes.size() - done,
                                   static_cast<off_t>(m_writeOffset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_error = std::string("writing the spill file failed: ") + std::strerror(n < 0 ? errno : ENOSPC);
            return false;  // the partial bytes past m_writeOffset are simply overwritten later
        }
        done += static_cast<std::size_t>(n);
    }
    m_entries.push_back({m_writeOffset, static_cast<std::uint32_t>(bytes.size())});
    m_writeOffset += bytes.size();
    m_bytesHeld += bytes.size();
    m_peakBytes = std::max(m_peakBytes, m_bytesHeld);
    ++m_chunksSpilled;
    return true;
}

bool ChunkSpill::pop(std::vector<wire::Chunk>& out, std::size_t maxBytes) {
    std::size_t taken = 0;
    std::string buffer;
    while (!m_entries.empty() && (taken == 0 || taken + m_entries.front().sizeBytes <= maxBytes)) {
        const Entry entry = m_entries.front();
        buffer.resize(entry.sizeBytes);
        std::size_t done = 0;
        while (done < buffer.size()) {
            const ssize_t n = ::pread(m_fd, buffer.data() + done, buffer.size() - done,
                                      static_cast<off_t>(entry.offset + done));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                m_error = std::string("reading the spill file back failed: ") +
                          (n < 0 ? std::strerror(errno) : "it is shorter than written");
                abandon();
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
        core::Result<wire::Envelope> read = wire::decodeEnvelope(buffer);
        wire::Chunk* chunk = read.ok() ? std::get_if<wire::Chunk>(&read.value()) : nullptr;
        if (chunk == nullptr) {
            m_error = "the spill file holds a chunk that does not parse" +
                      (read.ok() ? std::string() : " (" + read.error().message + ")");
            abandon();
            return false;
        }
        out.push_back(std::move(*chunk));
        m_entries.pop_front();
        m_bytesHeld -= entry.sizeBytes;
        taken += entry.sizeBytes;
    }
    if (m_entries.empty() && m_fd >= 0) {
        // All read back: start the file over so it never grows past what waits at once.
        if (::ftruncate(m_fd, 0) == 0) {
            m_writeOffset = 0;
        }
    }
    return true;
}

}  // namespace chokepoint::collectors
