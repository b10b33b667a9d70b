#pragma once
// Decodes one Chrome-trace event object (simdjson On-Demand) into a KinetoEvent. Fields may come in
// any order. Values of the wrong type or out of range are counted through the builder and left
// unset; only JSON syntax errors are returned, because the document cannot be read past them.

#include <simdjson.h>

#include <cstdint>

#include "core/import/KinetoModelBuilder.h"

namespace chokepoint::core {

simdjson::error_code decodeKinetoEvent(simdjson::ondemand::object& object, KinetoEvent& event,
                                       KinetoModelBuilder& issues);

}  // namespace chokepoint::core
