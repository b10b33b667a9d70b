#pragma once
// What the capture-engine tests share: a fast engine configuration, CUPTI's clock as the fake uses
// it, running a capture to its end through the CaptureBackend interface, and reading a note.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/agent/CaptureEngine.h"
#include "core/model/TraceModel.h"

namespace chokepoint::testutils {

// Short loop, flush and chunk intervals, small buffers: a capture of tens of ms exercises it all.
inline collectors::CaptureEngineConfig fastEngineConfig(int drainTimeoutMs, std::size_t maxBuffers) {
    collectors::CaptureEngineConfig c;
    c.pid = ::getpid();
    c.commandLine = {"python", "train.py"};
    c.hostName = "testhost";
    c.loopIntervalMs = 5;
    c.flushIntervalMs = 10;
    c.chunkIntervalMs = 20;
    c.drainTimeoutMs = drainTimeoutMs;
    c.bufferBytes = 64 * 1024;
    c.maxBuffers = maxBuffers;
    return c;
}

// The fake CUPTI's clock: CLOCK_REALTIME (its offset aside), like CUPTI's default.
inline std::uint64_t cuptiNow() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct Captured {
    std::string bytes;
    collectors::wire::CaptureDone done;
    std::vector<std::uint64_t> seqs;
};

// Runs the capture to completion and returns the stream; fails the test after maxMs.
inline Captured drive(collectors::CaptureEngine& engine, int maxMs = 5000,
                      const std::function<void(int)>& tick = {}) {
    Captured c;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0;; ++i) {
        if (tick) {
            tick(i);
        }
        std::vector<collectors::wire::Chunk> chunks;
        bool finished = engine.pollCapture(chunks, &c.done);
        for (auto& chunk : chunks) {
            c.bytes += chunk.data;
            c.seqs.push_back(chunk.seq);
        }
        if (finished) {
            break;
        }
        if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(maxMs)) {
            ADD_FAILURE() << "capture did not finish";
            engine.requestStop();
            maxMs = 1 << 30;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return c;
}

inline std::string noteOf(const core::TraceModel& m, const std::string& key) {
    for (const auto& [k, v] : m.metadata.notes) {
        if (k == key) {
            return v;
        }
    }
    return {};
}

}  // namespace chokepoint::testutils
