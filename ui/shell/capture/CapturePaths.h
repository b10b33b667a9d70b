#pragma once
// Paths for the dialogs that record: where chokepoint-cli is, and where a new recording goes.

#include <QString>

namespace chokepoint::ui {

// $CHOKEPOINT_CLI when it names an executable, else next to this executable (an install or build/bin), in the
// build tree's app/ folder, or on PATH. Empty when there is none.
QString chokepointCliPath();

// A new file for a recording: <app data>/captures/<kind>-<yyyyMMdd-HHmmss>.cptrace (the folder is
// created). `kind` names what made it ("run", "attach-1234").
QString newCapturePath(const QString& kind);

}  // namespace chokepoint::ui
