#include "core/job/JobNames.h"

#include "core/base/Strings.h"
#include "core/names/NameRules.h"

#include <array>
#include <cctype>
#include <vector>

namespace chokepoint::job {

// The name rules live in core/names/NameRules (one table, token rules, regression corpus).
std::string collectiveKindFromName(std::string_view name) {
    return names::collectiveKindFromName(name);
}

int dtypeBytes(std::string_view dtype) {
    std::string t = core::toLower(dtype);
    if (t.starts_with("c10::")) {
        t = t.substr(5);
    }
    if (t.starts_with("torch.")) {
        t = t.substr(6);
    }
    struct Size {
        std::string_view name;
        int bytes;
    };
    static constexpr std::array<Size, 26> kSizes{{
        {"float", 4},        {"float32", 4},  {"double", 8},        {"float64", 8},       {"half", 2},
        {"float16", 2},      {"bfloat16", 2}, {"int", 4},           {"int32", 4},         {"long", 8},
        {"long int", 8},     {"int64", 8},    {"long long int", 8}, {"short", 2},         {"short int", 2},
        {"int16", 2},        {"char", 1},     {"signed char", 1},   {"unsigned char", 1}, {"byte", 1},
        {"uint8", 1},        {"int8", 1},     {"bool", 1},          {"float8_e4m3fn", 1}, {"float8_e5m2", 1},
        {"complexfloat", 8},
    }};
    for (const Size& s : kSizes) {
        if (t == s.name) {
            return s.bytes;
        }
    }
    return 0;
}

bool isGarbageCollectionName(std::string_view name) {
    return names::isGarbageCollectionName(name);
}

bool isCollectiveOpName(std::string_view name) {
    return names::isCollectiveOpName(name);
}

}  // namespace chokepoint::job
