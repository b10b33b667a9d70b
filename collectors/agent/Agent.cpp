#include "collectors/agent/Agent.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string_view>

#include "collectors/agent/RecordScope.h"
#include "collectors/control/Framing.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::collectors {

namespace {

std::vector<std::string> readCommandLine() {
    std::vector<std::string> args;
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(in, arg, '\0') && args.size() < 64) {
        args.push_back(arg.size() > 512 ? arg.substr(0, 512) : arg);
    }
    return args;
}

std::string hostName() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) {
        return {};
    }
    return name;
}

long envLong(const char* name, long fallback) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') {
        return fallback;
    }
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    return (end != nullptr && *end == '\0' && n >= 0) ? n : fallback;
}

bool envFlag(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && (std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0);
}

// The resolved path of this library, as it appears in /proc/<pid>/maps.
std::string agentLibraryPath() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&agentLibraryPath), &info) == 0 || info.dli_fname == nullptr) {
        return {};
    }
    char resolved[PATH_MAX] = {};
    return ::realpath(info.dli_fname, resolved) != nullptr ? std::string(resolved)
                                                           : std::string(info.dli_fname);
}

}  // namespace

Agent& Agent::instance() {
    static Agent* agent = new Agent();  // leaked: it must outlive every other static in the process
    return *agent;
}

void Agent::log(const std::string& text) const {
    if (m_logPath.empty()) {
        return;
    }
    std::string line = "[chokepoint-agent " + std::to_string(::getpid()) + "] " + text + "\n";
    if (m_logPath == "stderr") {
        [[maybe_unused]] ssize_t w = ::write(2, line.data(), line.size());
        return;
    }
    int fd = ::open(m_logPath.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        [[maybe_unused]] ssize_t w = ::write(fd, line.data(), line.size());
        ::close(fd);
    }
}

void Agent::markRecording(bool recording) {
    // Beside the control socket: the Python stack sampler of this process and of its forked
    // children (DataLoader workers) samples while this file exists (collectors/python).
    std::string socket = socketPath();
    if (socket.size() < 5) {
        return;
    }
    std::string marker = socket.substr(0, socket.size() - 5) + ".capturing";  // "<pid>.sock"
    if (recording) {
        int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::close(fd);
        }
    } else {
        ::unlink(marker.c_str());
    }
}

std::vector<std::string> Agent::gpuNames() {
    std::lock_guard lock(m_mutex);
    if (!m_gpuNames.empty() || m_isForkChild) {
        return m_gpuNames;
    }
    // libcuda is already loaded (it loaded us); look it up without loading anything new.
    void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (cuda == nullptr) {
        return {};
    }
    using GetCount = int (*)(int*);
    using Get = int (*)(int*, int);
    using GetName = int (*)(char*, int, int);
    auto getCount = reinterpret_cast<GetCount>(::dlsym(cuda, "cuDeviceGetCount"));
    auto get = reinterpret_cast<Get>(::dlsym(cuda, "cuDeviceGet"));
    auto getName = reinterpret_cast<GetName>(::dlsym(cuda, "cuDeviceGetName"));
    int count = 0;
    if (getCount != nullptr && get != nullptr && getName != nullptr && getCount(&count) == 0) {
        for (int i = 0; i < count && i < 64; ++i) {
            int device = 0;
            char name[256] = {};
            if (get(&device, i) == 0 && getName(name, sizeof name - 1, device) == 0) {
                m_gpuNames.emplace_back(name);
            }
        }
    }
    ::dlclose(cuda);
    return m_gpuNames;
}

std::string Agent::socketPath() const {
    return m_server ? m_server->socketPath() : std::string();
}

int Agent::initializeNvtx(NvtxGetExportTableFunc_t getExportTable) {
    if (envFlag("CHOKEPOINT_AGENT_DISABLE")) {
        return 0;  // NVTX unloads us and its calls become no-ops
    }
    return NvtxRecorder::instance().install(getExportTable);
}

int Agent::initializeCuda() {
    std::lock_guard lock(m_mutex);
    if (m_cudaInitialized || m_isForkChild) {
        return 1;
    }
    m_cudaInitialized = true;
    if (const char* logPath = std::getenv("CHOKEPOINT_AGENT_LOG")) {
        m_logPath = logPath;
    }
    if (envFlag("CHOKEPOINT_AGENT_DISABLE")) {
        log("disabled by CHOKEPOINT_AGENT_DISABLE");
        return 1;
    }
    CaptureEngineConfig config;
    config.pid = ::getpid();
    config.commandLine = readCommandLine();
    config.hostName = hostName();
    config.maxBuffers = static_cast<std::size_t>(std::max(1L, envLong("CHOKEPOINT_BUFFER_MB", 128) / 4));
    config.maxSpillBytes = static_cast<std::uint64_t>(std::max(0L, envLong("CHOKEPOINT_SPILL_MB", 4096)))
                           << 20;
    if (const char* spillDir = std::getenv("CHOKEPOINT_SPILL_DIR"); spillDir != nullptr) {
        config.spillDirectory = spillDir;
    }
    config.allowNewerCupti = envFlag("CHOKEPOINT_ALLOW_NEWER_CUPTI");
    config.detachAfterCapture = envFlag("CHOKEPOINT_CUPTI_DETACH");
    if (const char* runtimeApi = std::getenv("CHOKEPOINT_RUNTIME_API");
        runtimeApi != nullptr && std::string_view(runtimeApi) == "allowlist") {
        config.runtimeApiTracing = RuntimeApiTracing::AllowListOnly;
    }
    config.gpuNames = [this] { return gpuNames(); };
    config.onRecording = [this](bool recording) { markRecording(recording); };
    config.log = [this](const std::string& text) { log(text); };
    m_cupti = makeRealCuptiApi();
    m_engine = std::make_unique<CaptureEngine>(*m_cupti, NvtxRecorder::instance(), config);

    ::pthread_atfork(nullptr, nullptr, &Agent::onForkChild);
    std::atexit(&Agent::onExit);

    std::string dir = defaultRuntimeDir();
    if (core::Status ok = ensureRuntimeDir(dir, true); !ok.ok()) {
        log("control socket disabled: " + ok.error().message);
    } else {
        ControlServer::Options options;
        options.socketPath = socketPathFor(dir, ::getpid());
        options.allowedUid = ::geteuid();
        options.log = [this](const std::string& text) { log(text); };
        m_server = std::make_unique<ControlServer>(*m_engine, options);
        if (core::Status started = m_server->start(); !started.ok()) {
            log("control socket disabled: " + started.error().message);
            m_server.reset();
        } else {
            log("dormant; control socket " + options.socketPath);
        }
    }
    if (const char* record = std::getenv("CHOKEPOINT_RECORD_FILE"); record != nullptr && *record != '\0') {
        RecordDecision decision =
            decideRecording(ownRank(), readAncestors(agentLibraryPath()), envFlag("CHOKEPOINT_RECORD_ALL"));
        if (decision.record) {
            startRecordingToFile(record);
        } else {
            log("not recording: " + decision.reason);
        }
    }
    return 1;
}

void Agent::startRecordingToFile(const std::string& pattern) {
    std::string path;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
            path += std::to_string(::getpid());
            ++i;
        } else {
            path += pattern[i];
        }
    }
    m_recordFd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_recordFd < 0) {
        log("cannot record to " + path + ": " + std::strerror(errno));
        return;
    }
    int fd = m_recordFd;
    auto ended = [this, fd] {
        // The file-mode capture is over: close the file, so nothing can ever be appended to it.
        std::lock_guard lock(m_mutex);
        if (m_recordFd == fd) {
            ::close(m_recordFd);
            m_recordFd = -1;
        }
    };
    m_engine->setChunkSink(
        [fd](std::string_view bytes) {
            std::string err;
            while (!bytes.empty()) {
                ssize_t w = ::write(fd, bytes.data(), bytes.size());
                if (w < 0 && errno == EINTR) {
                    continue;
                }
                if (w <= 0) {
                    return false;
                }
                bytes.remove_prefix(static_cast<std::size_t>(w));
            }
            return true;
        },
        ended);
    wire::StartCapture request;
    request.steps = static_cast<std::uint32_t>(envLong("CHOKEPOINT_RECORD_STEPS", 0));
    request.durationMs = static_cast<std::uint64_t>(envLong("CHOKEPOINT_RECORD_DURATION_MS", 0));
    request.startAtNextStep = envFlag("CHOKEPOINT_RECORD_AT_STEP");
    request.kinds = static_cast<std::uint32_t>(envLong("CHOKEPOINT_RECORD_KINDS", 0));
    request.delayMs = static_cast<std::uint64_t>(std::max(0L, envLong("CHOKEPOINT_RECORD_DELAY_MS", 0)));
    request.afterSteps =
        static_cast<std::uint32_t>(std::max(0L, envLong("CHOKEPOINT_RECORD_AFTER_STEPS", 0)));
    if (const char* marker = std::getenv("CHOKEPOINT_RECORD_MARKER"); marker != nullptr && *marker != '\0') {
        request.stepMarker = marker;
    }
    if (auto refused = m_engine->startCapture(request, 1)) {
        log("recording refused: " + refused->text);
        std::string note = "chokepoint-agent: recording refused: " + refused->text + "\n";
        [[maybe_unused]] ssize_t w = ::write(2, note.data(), note.size());
        ::close(m_recordFd);
        m_recordFd = -1;
        ::unlink(path.c_str());
        return;
    }
    log("recording to " + path);
}

void Agent::onForkChild() {
    Agent& a = instance();
    // Only this thread exists now; the mutex may have been held by another thread at fork time.
    new (&a.m_mutex) std::mutex();
    a.m_isForkChild = true;
    NvtxRecorder::instance().resetAfterFork();
    if (a.m_server) {
        a.m_server->abandonAfterFork();
    }
    if (a.m_engine) {
        a.m_engine->abandonAfterFork();
    }
    if (a.m_recordFd >= 0) {
        ::close(a.m_recordFd);
        a.m_recordFd = -1;
    }
}

void Agent::onExit() {
    Agent& a = instance();
    if (a.m_isForkChild) {
        return;
    }
    if (a.m_engine && a.m_engine->state() != wire::AGENT_STATE_DORMANT) {
        // A short drain (exitDrainTimeoutMs), so the footer is written before exit() runs static
        // destructors; torchrun's SIGTERM after Ctrl-C leaves little time.
        a.log("process exiting: stopping the capture");
        a.m_engine->requestStopForExit();
        if (!a.m_engine->waitIdle(3000)) {
            a.log("process exiting: the capture did not finish in 3 s; the trace may lack its footer");
        }
    }
    if (a.m_server) {
        a.m_server->stop();
    }
    std::lock_guard lock(a.m_mutex);
    if (a.m_recordFd >= 0) {
        ::close(a.m_recordFd);
        a.m_recordFd = -1;
    }
}

}  // namespace chokepoint::collectors
