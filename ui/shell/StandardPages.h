#pragma once
// The built-in pages in tab order. Each page's owner adds one line to StandardPages.cpp.

#include <vector>

#include "ui/base/Page.h"

namespace chokepoint::ui {

// New page objects (unparented; MainWindow::addPage takes ownership), in tab order:
// diagnosis, timeline, roofline, ops, fixes, review, compare.
std::vector<Page*> createStandardPages();

}  // namespace chokepoint::ui
