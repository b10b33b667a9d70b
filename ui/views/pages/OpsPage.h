#pragma once
// OpsPage: the CPU side aggregated (core/calltree). A flame graph (icicle) of the top-down call
// tree above three views: the full Ops table (grouped by name, optionally by input shapes), the
// top-down tree and the bottom-up tree (callers of each function). One filter box filters all
// three by name; "Include Python frames" and "Group by input shapes" rebuild them. Double-click a
// row or a block, or press "Find on timeline", to show the longest call on the timeline
// (TraceDocument::showRange with the op's start and end).

#include <memory>

#include "core/calltree/CallTree.h"
#include "core/calltree/CallTreeOptions.h"
#include "ui/base/Page.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeView;

namespace chokepoint::ui {

class CallTreeModel;
class FlameGraph;
class OpStatsModel;

class OpsPage : public Page {
    Q_OBJECT
public:
    explicit OpsPage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("ops"); }
    QString title() const override { return tr("Ops"); }
    void setDocument(TraceDocument* document) override;

    // Rebuilds every view from `model` (null clears them).
    void setModel(std::shared_ptr<const core::TraceModel> model);
    void setOptions(const calltree::CallTreeOptions& options);
    void setFilterText(const QString& text);

    OpStatsModel* opsModel() const { return m_opsModel; }
    CallTreeModel* topDownModel() const { return m_topDownModel; }
    CallTreeModel* bottomUpModel() const { return m_bottomUpModel; }
    QSortFilterProxyModel* opsProxy() const { return m_opsProxy; }
    QSortFilterProxyModel* topDownProxy() const { return m_topDownProxy; }
    FlameGraph* flameGraph() const { return m_flame; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableView* opsTable() const { return m_opsTable; }

signals:
    // The op range a "find on timeline" asked for (also sent to the document).
    void findRequested(chokepoint::core::TimeRange range);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void updateCaption();
    void expandHeaviestPath();
    void updateBreadcrumb(std::uint32_t node);
    void findFromIndex(const QModelIndex& proxyIndex);
    void findCurrent();
    void findOp(core::CpuOpId op);

    std::shared_ptr<const core::TraceModel> m_model;
    std::shared_ptr<const calltree::CallTree> m_topDown;
    calltree::CallTreeOptions m_options;

    QLabel* m_caption = nullptr;
    QCheckBox* m_includePython = nullptr;
    QCheckBox* m_byShapes = nullptr;
    QLineEdit* m_filter = nullptr;
    QPushButton* m_find = nullptr;
    QLabel* m_breadcrumb = nullptr;
    QPushButton* m_resetZoom = nullptr;
    FlameGraph* m_flame = nullptr;
    QTabWidget* m_tabs = nullptr;
    OpStatsModel* m_opsModel = nullptr;
    CallTreeModel* m_topDownModel = nullptr;
    CallTreeModel* m_bottomUpModel = nullptr;
    QSortFilterProxyModel* m_opsProxy = nullptr;
    QSortFilterProxyModel* m_topDownProxy = nullptr;
    QSortFilterProxyModel* m_bottomUpProxy = nullptr;
    QTableView* m_opsTable = nullptr;
    QTreeView* m_topDownView = nullptr;
    QTreeView* m_bottomUpView = nullptr;
    QSplitter* m_split = nullptr;
    bool m_splitMoved = false;
};

}  // namespace chokepoint::ui
