// Sampled call stacks: one role per stack from the host-role rules of its frames (NameRules.h).

#include <string>
#include <vector>

#include "core/names/NameRules.h"

namespace chokepoint::names {

std::string frameName(std::string_view file, std::string_view function, std::int64_t line) {
    if (file.empty()) {
        return std::string(function);
    }
    std::string out(file);
    if (line > 0) {
        out += "(" + std::to_string(line) + ")";
    }
    out += ": ";
    out += function;
    return out;
}

StackRole stackRoleOf(const std::vector<std::string>& frames) {
    std::vector<HostRole> roles;
    roles.reserve(frames.size());
    for (const std::string& frame : frames) {
        roles.push_back(hostRoleOf(frame));
    }
    return stackRoleOfFrameRoles(roles);
}

StackRole stackRoleOfFrameRoles(const std::vector<HostRole>& frames) {
    StackRole input, loading, innermost;
    bool haveInput = false, haveLoading = false, haveInnermost = false;
    // Root first: the outermost enclosing role wins at once.
    for (std::size_t i = frames.size(); i-- > 0;) {
        const HostRole role = frames[i];
        switch (role) {
            case HostRole::Compilation:
            case HostRole::Housekeeping:
            case HostRole::GarbageCollection:
                return {role, i};
            case HostRole::DataPreparation:
                if (!haveInput) {
                    input = {role, i};
                    haveInput = true;
                }
                break;
            case HostRole::DataLoading:
                if (!haveLoading) {
                    loading = {role, i};
                    haveLoading = true;
                }
                break;
            case HostRole::None:
                break;
            default:
                innermost = {role, i};  // the last one seen, root first, is the innermost
                haveInnermost = true;
                break;
        }
    }
    if (haveInput) {
        return input;
    }
    if (haveLoading) {
        return loading;
    }
    if (haveInnermost) {
        return innermost;
    }
    return {};
}

}  // namespace chokepoint::names
