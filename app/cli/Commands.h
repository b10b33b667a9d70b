#pragma once
// The subcommands of chokepoint-cli. Each takes the arguments after its name and returns the
// process exit code (see ExitCodes.h). Each lives in its own <Name>Command.cpp.

#include <string>
#include <vector>

namespace chokepoint::cli {

using Args = std::vector<std::string>;

struct Command {
    const char* name;
    const char* summary;  // one line for `chokepoint-cli --help`
    int (*run)(const Args& args);
};

// Registered commands, in the order `--help` lists them (defined in CliMain.cpp).
const std::vector<Command>& commands();

}  // namespace chokepoint::cli
