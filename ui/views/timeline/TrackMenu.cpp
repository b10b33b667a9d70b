#include "ui/views/timeline/TrackMenu.h"

#include <QMenu>

#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {

bool fillTrackMenu(QMenu& menu, TimelineWidget* timeline, QPoint pos) {
    const timeline::TrackSet* tracks = timeline->tracks();
    if (!tracks) {
        return false;
    }
    // Only the label column: over the plot, right-click acts on the time range (RangeActions).
    const bool labels = pos.x() < timeline->plotLeft();
    int group = labels ? timeline->groupHeaderAt(pos) : -1;
    const int track = labels && group < 0 ? timeline->trackAt(pos) : -1;
    if (track >= 0) {
        const timeline::Track& t = tracks->tracks[static_cast<std::size_t>(track)];
        const QString label = QString::fromStdString(t.label);
        const auto index = static_cast<std::size_t>(track);
        menu.addAction(QObject::tr("Hide track \"%1\"").arg(label),
                       [timeline, index] { timeline->setTrackHidden(index, true); });
        menu.addAction(QObject::tr("Move track up"), [timeline, index] { timeline->moveTrack(index, -1); });
        menu.addAction(QObject::tr("Move track down"), [timeline, index] { timeline->moveTrack(index, +1); });
        for (std::size_t g = 0; g < timeline->trackGroups().size(); ++g) {
            if (timeline->trackGroups()[g].key == t.group) {
                group = static_cast<int>(g);
            }
        }
        menu.addSeparator();
    }
    if (group >= 0) {
        const timeline::TrackGroupView& view = timeline->trackGroups()[static_cast<std::size_t>(group)];
        const QString name = QString::fromStdString(view.key);
        menu.addAction(view.collapsed ? QObject::tr("Expand group \"%1\"").arg(name)
                                      : QObject::tr("Collapse group \"%1\"").arg(name),
                       [timeline, group, collapsed = view.collapsed] {
                           timeline->setGroupCollapsed(group, !collapsed);
                       });
        menu.addAction(QObject::tr("Move group up"), [timeline, group] { timeline->moveGroup(group, -1); });
        menu.addAction(QObject::tr("Move group down"), [timeline, group] { timeline->moveGroup(group, +1); });
    }
    const std::size_t hidden = timeline->trackLayout().hiddenTracks.size();
    if (hidden > 0) {
        QAction* showAll =
            menu.addAction(QObject::tr("Show all hidden tracks"), [timeline] { timeline->showAllTracks(); });
        showAll->setObjectName(QStringLiteral("showAllTracks"));
    }
    return track >= 0 || group >= 0;
}

}  // namespace chokepoint::ui
