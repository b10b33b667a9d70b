#pragma once
// A yes/no name rule answered once per distinct (interned) name instead of once per row: the name
// rules (core/names) tokenize their input, which is too slow to repeat for every op of a trace.

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

class NameMemo {
public:
    using Rule = bool (*)(std::string_view);
    NameMemo(const TraceModel& model, Rule rule)
        : m_model(model), m_rule(rule), m_answers(model.strings.size(), kUnknown) {}

    bool operator()(StringId id) {
        if (!id.valid() || id.index >= m_answers.size()) {
            return m_rule(m_model.text(id));
        }
        std::int8_t& answer = m_answers[id.index];
        if (answer == kUnknown) {
            answer = m_rule(m_model.text(id)) ? 1 : 0;
        }
        return answer == 1;
    }

private:
    static constexpr std::int8_t kUnknown = -1;
    const TraceModel& m_model;
    Rule m_rule;
    std::vector<std::int8_t> m_answers;
};

}  // namespace chokepoint::core
