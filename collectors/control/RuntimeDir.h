#pragma once
// The per-user directory where agents create their control sockets, and the permission checks
// that keep other users out of it.
//
// Location, first match wins: $CHOKEPOINT_SOCKET_DIR, $XDG_RUNTIME_DIR/chokepoint,
// /tmp/chokepoint-<uid>. The directory must be a real directory (not a symlink) owned by the
// current effective uid with no group or world permission bits (0700); anything else is refused,
// because another user could otherwise plant or read sockets. Each agent's socket is "<pid>.sock".

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "core/base/Result.h"

namespace chokepoint::collectors {

// The directory to use for this user (not created).
std::string defaultRuntimeDir();

// Checks an lstat() result of the directory `path` against the rules above for `expectedUid`.
// Separate from the file system so tests can inject foreign owners and modes.
core::Status checkRuntimeDirStat(const struct stat& st, uid_t expectedUid, const std::string& path);

// Creates `path` (the last component only, mode 0700) when `create` is set and it is missing, then
// checks it. The error names the path and the rule that failed.
core::Status ensureRuntimeDir(const std::string& path, bool create);

// Accepts a peer only when it runs as `ownUid` (root clients are not special: the agent runs inside
// someone's training job and serves only that user).
core::Status checkPeerUid(uid_t peerUid, uid_t ownUid);

// "<dir>/<pid>.sock"; empty when the result would not fit in sockaddr_un (108 bytes).
std::string socketPathFor(const std::string& dir, long pid);

// The pid encoded in a socket file name "<pid>.sock", or -1.
long pidFromSocketName(const std::string& fileName);

}  // namespace chokepoint::collectors
