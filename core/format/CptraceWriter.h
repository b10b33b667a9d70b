#pragma once
// Writes a whole TraceModel as a .cptrace file (see FORMAT.md beside this header).

#include <string>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

Status writeCptrace(const TraceModel& model, const std::string& path);

}  // namespace chokepoint::core
