#pragma once
// chokepoint-cli exit codes, documented in README.md and in `chokepoint-cli --help`.

namespace chokepoint::cli {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;     // a file could not be read or parsed; the message names it
constexpr int kExitUsage = 2;        // wrong arguments
constexpr int kExitFailure = 3;      // the operation failed for another reason (I/O, agent, device)
constexpr int kExitNotFound = 4;     // no such agent / process
constexpr int kExitCancelled = 130;  // interrupted

}  // namespace chokepoint::cli
