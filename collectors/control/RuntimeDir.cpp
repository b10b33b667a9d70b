#include "collectors/control/RuntimeDir.h"

#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace chokepoint::collectors {

std::string defaultRuntimeDir() {
    if (const char* dir = std::getenv("CHOKEPOINT_SOCKET_DIR"); dir != nullptr && dir[0] != '\0') {
        return dir;
    }
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && xdg[0] == '/') {
        return std::string(xdg) + "/chokepoint";
    }
    return "/tmp/chokepoint-" + std::to_string(static_cast<unsigned long>(::geteuid()));
}

core::Status checkRuntimeDirStat(const struct stat& st, uid_t expectedUid, const std::string& path) {
    if (S_ISLNK(st.st_mode)) {
        return core::makeError(path +
                               ": is a symbolic link; refusing to use it as the agent socket directory");
    }
    if (!S_ISDIR(st.st_mode)) {
        return core::makeError(path + ": is not a directory");
    }
    if (st.st_uid != expectedUid) {
        return core::makeError(path + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                               std::to_string(expectedUid) +
                               "; refusing to use another user's socket directory");
    }
    if ((st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return core::makeError(path + ": mode " + mode +
                               " gives group or world access; it must be 0700 (chmod 700 " + path + ")");
    }
    return core::Ok{};
}

core::Status ensureRuntimeDir(const std::string& path, bool create) {
    if (path.empty()) {
        return core::makeError("empty agent socket directory");
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT || !create) {
            return core::makeError(path + ": " + std::strerror(errno));
        }
        if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
            return core::makeError(path + ": cannot create: " + std::strerror(errno));
        }
        if (::lstat(path.c_str(), &st) != 0) {
            return core::makeError(path + ": " + std::strerror(errno));
        }
    }
    return checkRuntimeDirStat(st, ::geteuid(), path);
}

core::Status checkPeerUid(uid_t peerUid, uid_t ownUid) {
    if (peerUid != ownUid) {
        return core::makeError("peer runs as uid " + std::to_string(peerUid) +
                               "; this agent serves only uid " + std::to_string(ownUid));
    }
    return core::Ok{};
}

std::string socketPathFor(const std::string& dir, long pid) {
    std::string path = dir + "/" + std::to_string(pid) + ".sock";
    if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
        return {};
    }
    return path;
}

long pidFromSocketName(const std::string& fileName) {
    constexpr std::string_view kSuffix = ".sock";
    if (fileName.size() <= kSuffix.size() || fileName.size() > 20 + kSuffix.size() ||
        fileName.compare(fileName.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
        return -1;
    }
    long pid = 0;
    for (std::size_t i = 0; i + kSuffix.size() < fileName.size(); ++i) {
        char c = fileName[i];
        if (c < '0' || c > '9') {
            return -1;
        }
        pid = pid * 10 + (c - '0');
        if (pid > 1L << 31) {
            return -1;
        }
    }
    return pid > 0 ? pid : -1;
}

}  // namespace chokepoint::collectors
