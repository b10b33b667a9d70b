#pragma once
// The application icon, rendered from resources/chokepoint.svg (compiled into chokepoint_ui), so
// it does not depend on Qt's SVG icon-engine plugin being installed.

#include <QIcon>

namespace chokepoint::ui {

// Registers the library's Qt resources; safe to call more than once.
void initUiResources();
QIcon appIcon();

}  // namespace chokepoint::ui
