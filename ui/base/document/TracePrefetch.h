#pragma once
// Starts reading a trace before the window exists. `chokepoint FILE` spends tens of milliseconds
// building widgets; reading the file on the other core meanwhile shortens the time to the first
// diagnosis. TraceDocument::open() takes the prefetched result for the same path when there is one.

#include <QString>
#include <future>
#include <optional>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::ui {

// Starts core::loadTrace(absolutePath) on a thread of its own. Call once per path, early in main().
void prefetchTrace(const QString& absolutePath);

// The prefetched load of `absolutePath`, if one was started and not taken yet.
std::optional<std::future<core::Result<core::TraceModel>>> takePrefetchedTrace(const QString& absolutePath);

}  // namespace chokepoint::ui
