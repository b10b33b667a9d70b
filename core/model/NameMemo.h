#pragma once
// A name rule answered once per distinct (interned) name instead of once per row: the name rules
// (core/names) tokenize their input, which is too slow to repeat for every kernel or op of a trace.
// `NameMemo memo(model, rule)` deduces the answer type from the rule (bool, an enum, a struct).

#include <optional>
#include <string_view>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

template <typename Answer>
class NameMemo {
public:
    using Rule = Answer (*)(std::string_view);
    NameMemo(const TraceModel& model, Rule rule)
        : m_model(model), m_rule(rule), m_answers(model.strings.size()) {}

    Answer operator()(StringId id) {
        if (!id.valid() || id.index >= m_answers.size()) {
            return m_rule(m_model.text(id));
        }
        std::optional<Answer>& answer = m_answers[id.index];
        if (!answer) {
            answer = m_rule(m_model.text(id));
        }
        return *answer;
    }

private:
    const TraceModel& m_model;
    Rule m_rule;
    std::vector<std::optional<Answer>> m_answers;
};

template <typename Answer>
NameMemo(const TraceModel&, Answer (*)(std::string_view)) -> NameMemo<Answer>;

}  // namespace chokepoint::core
