#include "core/job/RankIdentity.h"
#include "core/base/Strings.h"

#include <cctype>
#include <string>

namespace chokepoint::job {
namespace {

// The number right after `word` (optionally separated by '-', '_', ' ' or ':'), where `word` is not
// preceded by a letter: "rank-3", "rank3", "rank 3", "sampled_rank-1", but not "crank3".
std::optional<std::int32_t> numberAfterWord(const std::string& text, std::string_view word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        if (at > 0 && std::isalpha(static_cast<unsigned char>(text[at - 1])) != 0) {
            continue;
        }
        std::size_t i = at + word.size();
        while (i < text.size() && (text[i] == '-' || text[i] == '_' || text[i] == ' ' || text[i] == ':')) {
            ++i;
        }
        std::size_t digits = i;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) {
            ++digits;
        }
        if (digits > i && digits - i <= 7) {
            return static_cast<std::int32_t>(std::stol(text.substr(i, digits - i)));
        }
    }
    return std::nullopt;
}

std::string baseName(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::optional<std::int32_t> rankFromFileName(std::string_view path) {
    const std::string name = core::toLower(baseName(path));
    for (std::string_view word : {"rank", "worker"}) {
        if (auto n = numberAfterWord(name, word)) {
            return n;
        }
    }
    return std::nullopt;
}

std::optional<std::int32_t> rankFromProcessName(std::string_view name) {
    return numberAfterWord(core::toLower(name), "rank");
}

RankIdentity identifyRank(const core::TraceModel& model, std::string_view path, std::int32_t orderIndex) {
    if (model.distributed.present && model.distributed.rank >= 0) {
        return {model.distributed.rank, RankSource::DistributedInfo};
    }
    for (const core::ProcessInfo& process : model.processes) {
        if (auto n = rankFromProcessName(process.name)) {
            return {*n, RankSource::ProcessName};
        }
    }
    if (auto n = rankFromFileName(path)) {
        return {*n, RankSource::FileName};
    }
    return {orderIndex, RankSource::Order};
}

}  // namespace chokepoint::job
