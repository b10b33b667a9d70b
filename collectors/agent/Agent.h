#pragma once
// The per-process agent inside libchokepoint_agent.so: created by the first injection entry point
// (InitializeInjection from the CUDA driver, InitializeInjectionNvtx2 from NVTX), never destroyed.
//
// initializeCuda() (inside cuInit): reads the environment, then
//   - starts the control server on "<runtime dir>/<pid>.sock" (dormant: no CUPTI call at all), and
//   - with CHOKEPOINT_RECORD_FILE set (chokepoint-cli run), starts a capture at once that writes the
//     .cptrace file itself ("%p" in the path becomes the pid, for multi-process jobs).
// initializeNvtx(): points the calling module's NVTX tables at the NvtxRecorder.
// fork: the child goes dormant for good (no threads, inherited sockets closed, the parent's socket
// file untouched, CUPTI never touched, no container of another thread destroyed). exit: a running
// capture is stopped with a short drain and flushed.
//
// Environment: CHOKEPOINT_AGENT_DISABLE=1, CHOKEPOINT_SOCKET_DIR, CHOKEPOINT_AGENT_LOG (path or
// "stderr"), CHOKEPOINT_BUFFER_MB (activity buffer pool, default 128), CHOKEPOINT_RECORD_FILE,
// CHOKEPOINT_RECORD_STEPS, CHOKEPOINT_RECORD_DURATION_MS, CHOKEPOINT_RECORD_AT_STEP=1,
// CHOKEPOINT_RECORD_MARKER, CHOKEPOINT_RECORD_KINDS (CaptureKind bits), CHOKEPOINT_RECORD_ALL=1
// (record in every CUDA process, not only the outermost of each rank: RecordScope.h),
// CHOKEPOINT_CUPTI_PATH (CuptiLoader.h), CHOKEPOINT_ALLOW_NEWER_CUPTI=1, CHOKEPOINT_CUPTI_DETACH=1.

#include <nvtx3/nvToolsExt.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/agent/CaptureEngine.h"
#include "collectors/agent/CuptiApi.h"
#include "collectors/control/ControlServer.h"

namespace chokepoint::collectors {

class Agent {
public:
    static Agent& instance();

    int initializeCuda();
    int initializeNvtx(NvtxGetExportTableFunc_t getExportTable);

    // For tests: the socket the server listens on ("" when not started).
    std::string socketPath() const;

private:
    Agent() = default;
    void log(const std::string& text) const;
    void startRecordingToFile(const std::string& pathPattern);
    static void onForkChild();
    static void onExit();
    std::vector<std::string> gpuNames();
    void markRecording(bool recording);

    std::mutex m_mutex;
    bool m_cudaInitialized = false;
    bool m_isForkChild = false;
    std::string m_logPath;
    std::unique_ptr<CuptiApi> m_cupti;
    std::unique_ptr<CaptureEngine> m_engine;
    std::unique_ptr<ControlServer> m_server;
    std::vector<std::string> m_gpuNames;
    int m_recordFd = -1;
};

}  // namespace chokepoint::collectors
