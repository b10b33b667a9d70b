#pragma once
// ChunkSpill: the part of a capture's chunk stream that waits on disk while the client reads slowly.
// The agent keeps a bounded amount of encoded chunks in memory; past that, chunks go to an unlinked
// temporary file (created 0600 and removed from the directory at once, so nothing is left behind
// and no other user can open it) and come back in order when the client catches up. Only when the
// disk cap is reached, or the file cannot be written, does the agent fall back to pausing decoding
// (and so to counted drops). Used from one thread at a time (the engine holds its lock).

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "collectors/control/ControlWire.h"

namespace chokepoint::collectors {

class ChunkSpill {
public:
    // `directory`: where the file is created (empty: $TMPDIR, else /var/tmp). `maxBytes`: the most
    // it holds at once.
    ChunkSpill(std::string directory, std::uint64_t maxBytes);
    ~ChunkSpill();
    ChunkSpill(const ChunkSpill&) = delete;
    ChunkSpill& operator=(const ChunkSpill&) = delete;

    // Appends `chunk` at the end. False, holding nothing new, when the cap would be passed or the
    // file cannot be created or written (error() says which).
    bool push(const wire::Chunk& chunk);
    // Moves the oldest chunks into `out`, at least one and about `maxBytes` at most. False with
    // error() set when the file cannot be read back (the held chunks are then lost).
    bool pop(std::vector<wire::Chunk>& out, std::size_t maxBytes);
    bool empty() const { return m_entries.empty(); }

    std::uint64_t bytesHeld() const { return m_bytesHeld; }
    std::uint64_t peakBytes() const { return m_peakBytes; }
    std::uint64_t chunksSpilled() const { return m_chunksSpilled; }  // since the last abandon()
    const std::string& error() const { return m_error; }

    // Closes the file, dropping what it holds, and starts counting afresh (a new capture; in a
    // forked child, where the file is the parent's, closing affects only the child's descriptor).
    void abandon();
    // In a forked child: closes the child's descriptor and constructs an empty index over the old
    // one without destroying it (another thread may have been changing it at the fork).
    void forgetAfterFork();

private:
    struct Entry {
        std::uint64_t offset = 0;
        std::uint32_t sizeBytes = 0;
    };
    bool open();

    std::string m_directory;
    std::uint64_t m_maxBytes;
    int m_fd = -1;
    std::uint64_t m_writeOffset = 0;
    std::deque<Entry> m_entries;
    std::uint64_t m_bytesHeld = 0;
    std::uint64_t m_peakBytes = 0;
    std::uint64_t m_chunksSpilled = 0;
    std::string m_error;
};

}  // namespace chokepoint::collectors
