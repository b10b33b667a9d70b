#pragma once
// Colours of timeline events: stable per name (so the same kernel has the same colour in every
// view), with fixed colours for copies and memsets, and a readable text colour for each fill.

#include <QColor>

#include "core/base/Ids.h"
#include "core/model/Enums.h"
#include "core/timeline/EventRef.h"

namespace chokepoint::ui {

// Fill for an event of `kind` named `name` (memcpy kind used for copies).
QColor eventColor(timeline::EventKind kind, core::StringId name,
                  core::MemcpyKind copyKind = core::MemcpyKind::Unknown);
// Black or white, whichever reads better on `fill`.
QColor textColorOn(const QColor& fill);
// The band along the bottom of a GPU stream's track where the host waits on that stream (a
// stream sync), hatched so it reads apart from the kernels above it.
QColor streamSyncColor();

}  // namespace chokepoint::ui
