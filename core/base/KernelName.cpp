#include "core/base/KernelName.h"

#include <cstdlib>
#include <vector>

#include "core/base/Strings.h"

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define CHOKEPOINT_HAS_CXXABI 1
#else
#define CHOKEPOINT_HAS_CXXABI 0
#endif

namespace chokepoint::core {
namespace {

bool isIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "float", "cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1", "ns::Name": one plain name.
bool isPlainIdentifier(std::string_view text) {
    if (text.empty() || (text.front() >= '0' && text.front() <= '9')) {
        return false;
    }
    for (const char c : text) {
        if (!isIdentifierChar(c) && c != ':') {
            return false;
        }
    }
    return true;
}

char closerOf(char open) {
    switch (open) {
        case '<':
            return '>';
        case '(':
            return ')';
        case '[':
            return ']';
        default:
            return '}';
    }
}

// Whether '<' at `at` opens template arguments: not in "operator<", "operator<<", "operator<=".
bool opensTemplate(std::string_view s, std::size_t at) {
    const std::string_view before = s.substr(0, at);
    return !before.ends_with("operator") && !before.ends_with("operator<");
}

// Whether '>' at `at` closes a bracket: not the arrow of "->" (as in "Pageable -> Device").
bool closesTemplate(std::string_view s, std::size_t at) {
    return at == 0 || s[at - 1] != '-';
}

// Start of the part after the last space outside any bracket ("void ns::k<…>" -> "ns::k<…>").
std::size_t afterLastTopLevelSpace(std::string_view s) {
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '(' || c == '[' || c == '{' || c == '<') {
            ++depth;
        } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
            --depth;
        } else if (c == ' ' && depth == 0) {
            start = i + 1;
        }
    }
    return start;
}

// `s` without its bracketed groups: "at::native::f<float>(int)::{lambda()#1}" -> "at::native::f::".
std::string withoutGroups(std::string_view s) {
    std::string out;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '(' || c == '[' || c == '{' || (c == '<' && opensTemplate(s, i))) {
            ++depth;
        } else if ((c == ')' || c == ']' || c == '}' || (c == '>' && closesTemplate(s, i))) && depth > 0) {
            --depth;
        } else if (depth == 0) {
            out.push_back(c);
        }
    }
    return out;
}

// `s` split at the commas outside brackets.
std::vector<std::string_view> topLevelArguments(std::string_view s) {
    std::vector<std::string_view> args;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '(' || c == '[' || c == '{' || (c == '<' && opensTemplate(s, i))) {
            ++depth;
        } else if ((c == ')' || c == ']' || c == '}' || (c == '>' && closesTemplate(s, i))) && depth > 0) {
            --depth;
        } else if (c == ',' && depth == 0) {
            args.push_back(trimSpaces(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    args.push_back(trimSpaces(s.substr(start)));
    return args;
}

bool isWord(std::string_view s) {
    if (s.empty()) {
        return false;
    }
    for (const char c : s) {
        if (!isIdentifierChar(c)) {
            return false;
        }
    }
    return true;
}

constexpr std::size_t kMaxRawArgumentChars = 16;  // "unsigned int", "float const*"
constexpr std::size_t kMaxArgumentsChars = 64;    // longer argument lists fold to "<…>"

// One template argument by its name: "at::native::CUDAFunctor_add<float>" -> "CUDAFunctor_add",
// "(int)4" -> "4", a lambda inside a function ("at::native::threshold_kernel_impl<float>(…)::
// {lambda(float, float)#1}") -> the function's name: the last plain word between "::".
std::string argumentName(std::string_view arg) {
    const std::string bare = withoutGroups(arg);
    const std::string_view text(bare);
    std::string_view best;
    std::size_t pos = 0;
    while (true) {
        const std::size_t next = text.find("::", pos);
        const std::string_view part = trimSpaces(
            text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (isWord(part) && part.substr(0, 8) != "operator" && part != "const") {
            best = part;
        }
        if (next == std::string_view::npos) {
            break;
        }
        pos = next + 2;
    }
    if (!best.empty()) {
        return std::string(best);
    }
    const std::string_view raw = trimSpaces(text);
    return !raw.empty() && raw.size() <= kMaxRawArgumentChars ? std::string(raw) : std::string("…");
}

// A template's arguments for display: a single plain name whole (it is the kernel's identity, as
// in "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>"); else each argument by
// its name, which tells apart the many instances of one generic kernel
// ("vectorized_elementwise_kernel<4, CUDAFunctor_add, Array>"); "<…>" when that is still long.
std::string foldedArguments(std::string_view inner) {
    const std::vector<std::string_view> args = topLevelArguments(inner);
    if (args.size() == 1 && isPlainIdentifier(args.front())) {
        return "<" + std::string(args.front()) + ">";
    }
    std::string joined;
    for (const std::string_view arg : args) {
        if (!joined.empty()) {
            joined += ", ";
        }
        joined += argumentName(arg);
        if (joined.size() > kMaxArgumentsChars) {
            return "<…>";
        }
    }
    return "<" + joined + ">";
}

}  // namespace

bool kernelDemanglerAvailable() {
    return CHOKEPOINT_HAS_CXXABI != 0;
}

std::string demangleKernelName(std::string_view name) {
#if CHOKEPOINT_HAS_CXXABI
    if (name.size() > 2 && name[0] == '_' && name[1] == 'Z') {
        const std::string mangled(name);
        int status = 0;
        char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
        if (status == 0 && demangled != nullptr) {
            std::string result(demangled);
            std::free(demangled);  // NOLINT(cppcoreguidelines-no-malloc): the runtime malloc'd it
            return result;
        }
        std::free(demangled);  // NOLINT(cppcoreguidelines-no-malloc)
    }
#endif
    return std::string(name);
}

std::string shortKernelName(std::string_view name) {
    const std::string full = demangleKernelName(name);
    const std::string_view s = trimSpaces(full);

    // One pass: text outside brackets is copied; a bracketed group at the top level is folded
    // ("<…>") or copied whole ("(anonymous namespace)", "(Pageable -> Device)").
    std::string out;
    out.reserve(s.size());
    std::vector<char> open;                       // expected closers, innermost last
    std::size_t groupStart = 0;                   // where the open top-level group starts in `s`
    std::size_t lastParenAt = std::string::npos;  // where the last top-level "(…)" starts in `out`
    std::size_t lastParenEnd = 0;                 // and where it ends
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool opener = c == '(' || c == '[' || c == '{' || (c == '<' && opensTemplate(s, i));
        if (opener) {
            if (open.empty()) {
                groupStart = i;
            }
            open.push_back(closerOf(c));
            continue;
        }
        if (open.empty()) {
            out.push_back(c);
            continue;
        }
        if (c != open.back() || (c == '>' && !closesTemplate(s, i))) {
            continue;  // inside a group: copied or folded when the group closes
        }
        open.pop_back();
        if (!open.empty()) {
            continue;
        }
        const std::string_view group = s.substr(groupStart, i - groupStart + 1);
        if (group.front() == '<') {
            out += foldedArguments(trimSpaces(group.substr(1, group.size() - 2)));
        } else {
            const bool paren = group.front() == '(';
            if (paren) {
                lastParenAt = out.size();
            }
            out += group;
            if (paren) {
                lastParenEnd = out.size();
            }
        }
    }
    bool truncatedParameters = false;
    if (!open.empty()) {  // the name was cut inside a group
        const char first = s[groupStart];
        if (first == '<') {
            out += "<…>";
        } else if (first == '(') {
            lastParenAt = out.size();
            lastParenEnd = out.size();
            truncatedParameters = true;
        } else {
            out += s.substr(groupStart);
        }
    }

    // A trailing "(…)" (then perhaps " const") right after a name is the parameter list.
    bool isSignature = false;
    if (lastParenAt != std::string::npos && lastParenAt > 0) {
        const std::string_view rest = trimSpaces(std::string_view(out).substr(lastParenEnd));
        const char before = out[lastParenAt - 1];
        isSignature = (truncatedParameters || rest.empty() || rest == "const") &&
                      (isIdentifierChar(before) || before == '>' || before == ')');
        if (isSignature) {
            out.erase(lastParenAt);
        }
    }
    std::string_view result = trimSpaces(out);
    if (isSignature || result.substr(0, 5) == "void ") {
        result = result.substr(afterLastTopLevelSpace(result));  // drop the return type
    }
    result = trimSpaces(result);
    return result.empty() ? std::string(s) : std::string(result);
}

}  // namespace chokepoint::core
