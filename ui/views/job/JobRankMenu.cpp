#include "ui/views/job/JobRankMenu.h"

#include <QAction>
#include <QMenu>

#include "ui/views/job/JobDocument.h"

namespace chokepoint::ui {

void fillRankMenu(QMenu& menu, JobDocument& document, int rank) {
    const bool fullTrace = document.rankHasFullTrace(rank);
    const int median = document.medianRank();
    QAction* open = menu.addAction(QObject::tr("Open Rank %1").arg(rank), &menu,
                                   [&document, rank] { document.openRank(rank); });
    open->setEnabled(fullTrace);
    QAction* compare = menu.addAction(QObject::tr("Compare with the Median Rank (%1)").arg(median), &menu,
                                      [&document, rank] { document.compareWithMedian(rank); });
    compare->setEnabled(fullTrace && median >= 0 && median != rank && document.rankHasFullTrace(median));
    if (!fullTrace) {
        menu.addSeparator();
        menu.addAction(
                QObject::tr("Rank %1 has no full trace to open (a .cpsum summary, or its file is gone)")
                    .arg(rank))
            ->setEnabled(false);
    } else if (median == rank) {
        menu.addSeparator();
        menu.addAction(QObject::tr("Rank %1 is the median rank").arg(rank))->setEnabled(false);
    }
}

void execRankMenu(JobDocument& document, int rank, QPoint globalPos, QWidget* parent) {
    QMenu menu(parent);
    fillRankMenu(menu, document, rank);
    menu.exec(globalPos);
}

}  // namespace chokepoint::ui
