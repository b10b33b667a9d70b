#pragma once
// Where chokepoint-cli is, for the dialogs that record through it.

#include <QString>

namespace chokepoint::ui {

// $CHOKEPOINT_CLI when it names an executable, else next to this executable (an install or build/bin), in the
// build tree's app/ folder, or on PATH. Empty when there is none.
QString chokepointCliPath();

}  // namespace chokepoint::ui
