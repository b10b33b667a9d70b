#pragma once
// Options shared by every trace reader and importer.

#include "core/base/Progress.h"

namespace chokepoint::core {

struct LoadOptions {
    ProgressFn progress;  // optional; receives the fraction read, returns false to cancel
};

}  // namespace chokepoint::core
