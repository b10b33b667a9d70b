#pragma once
// The timeline's track menu: what a right-click in the label column, on a track label or a group
// header, offers (hide the
// track, move it or its group up or down, collapse or expand the group, show all hidden tracks).
// The edits go through TimelineWidget, which emits trackLayoutChanged() for the page to save.

#include <QPoint>

class QMenu;

namespace chokepoint::ui {

class TimelineWidget;

// Adds the track actions for widget position `pos` to `menu`; false when `pos` is on no track label
// or group header in the label column (nothing added then but, when tracks are hidden, "Show all
// hidden tracks").
bool fillTrackMenu(QMenu& menu, TimelineWidget* timeline, QPoint pos);

}  // namespace chokepoint::ui
