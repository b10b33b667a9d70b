#pragma once
// File > Quit, the same in every window (the main window and the job window).

class QAction;
class QMenu;

namespace chokepoint::ui {

// Appends Quit (Ctrl+Q, closes every window) to `menu`.
QAction* addQuitAction(QMenu* menu);

}  // namespace chokepoint::ui
