#pragma once
// The context menu of a rank in the job window (heatmap row, timeline lane): open the rank's own
// window, compare it with the median rank. Entries are disabled, with the reason, when the rank
// has no full trace (.cpsum summary) or is the median rank itself.

#include <QPoint>

class QMenu;
class QWidget;

namespace chokepoint::ui {

class JobDocument;

// Fills `menu` with the rank's actions (for tests); they act through the document's requests.
void fillRankMenu(QMenu& menu, JobDocument& document, int rank);
void execRankMenu(JobDocument& document, int rank, QPoint globalPos, QWidget* parent);

}  // namespace chokepoint::ui
