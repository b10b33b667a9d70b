#include "core/model/Stacks.h"

#include "core/model/Tables.h"

namespace chokepoint::core {

void StackSampleTable::add(const StackSampleRow& row) {
    timeNs.push_back(row.timeNs);
    thread.push_back(row.thread);
    stack.push_back(row.stack);
}

void StackSampleTable::permute(const std::vector<std::uint32_t>& order) {
    permuteColumn(timeNs, order);
    permuteColumn(thread, order);
    permuteColumn(stack, order);
}

void StackSampleTable::reserve(std::size_t n) {
    timeNs.reserve(n);
    thread.reserve(n);
    stack.reserve(n);
}

}  // namespace chokepoint::core
