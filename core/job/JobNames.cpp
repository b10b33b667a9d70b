#include "core/job/JobNames.h"

#include <array>
#include <cctype>
#include <vector>

namespace chokepoint::job {
namespace {

// Splits a name into lower-case alphanumeric tokens; a case change from lower to upper also splits
// ("AllReduce" -> "all", "reduce"), so "ncclDevKernel_AllGather_RING" and "_allgather_base" both
// reach the same words once joined (see joinedTokens).
std::vector<std::string> tokens(std::string_view name) {
    std::vector<std::string> out;
    std::string current;
    char previous = 0;
    for (char c : name) {
        const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
        const bool upperAfterLower = std::isupper(static_cast<unsigned char>(c)) != 0 &&
                                     std::islower(static_cast<unsigned char>(previous)) != 0;
        if (!alnum || upperAfterLower) {
            if (!current.empty()) {
                out.push_back(current);
                current.clear();
            }
        }
        if (alnum) {
            current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
        previous = c;
    }
    if (!current.empty()) {
        out.push_back(current);
    }
    return out;
}

struct KindRule {
    std::string_view joined;  // tokens joined without separators
    std::string_view kind;
};

// Longest first: "reducescatter" before "reduce", "allgatherv" before "allgather".
constexpr std::array<KindRule, 16> kKindRules{{
    {"reducescatter", "ReduceScatter"},
    {"reducescatterv", "ReduceScatter"},
    {"allreduce", "AllReduce"},
    {"allgatherv", "AllGather"},
    {"allgatherinto", "AllGather"},
    {"allgather", "AllGather"},
    {"alltoallv", "AllToAll"},
    {"alltoall", "AllToAll"},
    {"sendrecv", "SendRecv"},
    {"broadcast", "Broadcast"},
    {"barrier", "Barrier"},
    {"reduce", "Reduce"},
    {"send", "SendRecv"},
    {"recv", "SendRecv"},
    {"gather", "Gather"},
    {"scatter", "Scatter"},
}};

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// The collective's words in a name: for a kernel, the tokens after the "nccl..Kernel" prefix; for
// a recorded name, all tokens. Adjacent tokens are joined so "all", "reduce" reads "allreduce".
std::string kindFromTokens(const std::vector<std::string>& words, std::size_t first) {
    for (std::size_t i = first; i < words.size(); ++i) {
        // Try the longest join of up to three words starting here.
        for (std::size_t span = 3; span >= 1; --span) {
            if (i + span > words.size()) {
                continue;
            }
            std::string joined;
            for (std::size_t k = i; k < i + span; ++k) {
                joined += words[k];
            }
            for (const KindRule& rule : kKindRules) {
                if (joined == rule.joined) {
                    return std::string(rule.kind);
                }
            }
        }
    }
    return {};
}

}  // namespace

std::string collectiveKindFromName(std::string_view name) {
    const std::vector<std::string> words = tokens(name);
    if (words.empty()) {
        return {};
    }
    const bool kernel =
        startsWith(words[0], "nccl") || startsWith(words[0], "rccl") || startsWith(words[0], "hccl");
    if (kernel) {
        // "ncclDevKernel_AllReduce_Sum_f32": words nccl, dev, kernel, all, reduce, sum, f32.
        std::size_t first = 1;
        while (first < words.size() && (words[first] == "dev" || words[first] == "kernel")) {
            ++first;
        }
        return kindFromTokens(words, first);
    }
    // Recorded names: "allreduce", "_allgather_base", "all_to_allv", "nccl:all_reduce",
    // "c10d::allreduce_". Framework ops that merely contain a collective word are not collectives:
    // only names made of collective words (plus "base", "coalesced", "into", "tensor", "") count.
    std::size_t first = 0;
    if (words[0] == "c10d" || words[0] == "gloo" || words[0] == "nccl" || words[0] == "rccl") {
        first = 1;
    }
    std::string joined;
    for (std::size_t i = first; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w == "base" || w == "coalesced" || w == "tensor" || w == "single" || w == "into") {
            continue;
        }
        joined += w;
    }
    for (const KindRule& rule : kKindRules) {
        if (joined == rule.joined) {
            return std::string(rule.kind);
        }
    }
    return {};
}

int dtypeBytes(std::string_view dtype) {
    std::string t;
    for (char c : dtype) {
        t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (startsWith(t, "c10::")) {
        t = t.substr(5);
    }
    if (startsWith(t, "torch.")) {
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
    const std::vector<std::string> words = tokens(name);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "gc") {
            // "gc.collect", "gc_collect", "GC", "gc: collect generation 2"
            return true;
        }
        if (words[i] == "garbage" && i + 1 < words.size() && words[i + 1] == "collect") {
            return true;
        }
        if (words[i] == "garbage" && i + 1 < words.size() && words[i + 1] == "collection") {
            return true;
        }
    }
    return false;
}

bool isCollectiveOpName(std::string_view name) {
    if (name == "record_param_comms") {
        return true;
    }
    if (startsWith(name, "nccl:") || startsWith(name, "c10d::") || startsWith(name, "gloo:")) {
        return true;
    }
    return false;
}

}  // namespace chokepoint::job
