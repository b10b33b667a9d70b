#include "ui/views/pages/OpsPage.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "core/base/Format.h"
#include "core/calltree/OpStats.h"
#include "core/calltree/SampledCallTree.h"
#include "ui/base/charts/FlameGraph.h"
#include "ui/base/models/CallTreeModel.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/models/OpStatsModel.h"

namespace chokepoint::ui {

using calltree::CallTree;
using calltree::kNoNode;

namespace {

constexpr int kHeaderSizingRows = 200;  // rows sampled to size columns to their contents
constexpr int kExpandedLevels = 64;     // the top-down tree opens its heaviest path this deep at most

QSortFilterProxyModel* makeProxy(QAbstractItemModel* source, QObject* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(0);
    proxy->setRecursiveFilteringEnabled(true);  // trees keep the ancestors of a match
    return proxy;
}

QTreeView* makeTree(QSortFilterProxyModel* proxy, QWidget* parent) {
    auto* view = new QTreeView(parent);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder);  // keep the tree's order (longest first) until clicked
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setTextElideMode(Qt::ElideRight);
    view->header()->setStretchLastSection(false);
    view->header()->setResizeContentsPrecision(kHeaderSizingRows);
    view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < CallTreeModel::NumColumns; ++c) {
        view->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    return view;
}

}  // namespace

OpsPage::OpsPage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);

    auto* controls = new QHBoxLayout;
    m_includePython = new QCheckBox(tr("Include Python frames"), this);
    m_includePython->setChecked(m_options.includePython);
    m_byShapes = new QCheckBox(tr("Group by input shapes"), this);
    m_byShapes->setChecked(m_options.byInputShapes);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by name…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setAccessibleName(tr("Filter ops by name"));
    m_find = new QPushButton(tr("Find on timeline"), this);
    m_find->setToolTip(tr("Show the selected row's longest call on the timeline"));
    controls->addWidget(m_includePython);
    controls->addWidget(m_byShapes);
    controls->addWidget(m_filter, 1);
    controls->addWidget(m_find);
    layout->addLayout(controls);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* flameBox = new QWidget(split);
    auto* flameLayout = new QVBoxLayout(flameBox);
    flameLayout->setContentsMargins(0, 0, 0, 0);
    auto* crumbs = new QHBoxLayout;
    m_breadcrumb = new QLabel(flameBox);
    m_breadcrumb->setTextFormat(Qt::RichText);
    m_breadcrumb->setMinimumWidth(0);
    m_breadcrumb->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_resetZoom = new QPushButton(tr("Reset zoom"), flameBox);
    crumbs->addWidget(m_breadcrumb, 1);
    crumbs->addWidget(m_resetZoom);
    flameLayout->addLayout(crumbs);
    auto* scroll = new QScrollArea(flameBox);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_flame = new FlameGraph(scroll);
    m_resetZoom->setAccessibleName(tr("Reset flame graph zoom"));
    scroll->setWidget(m_flame);
    flameLayout->addWidget(scroll, 1);

    m_tabs = new QTabWidget(split);
    m_opsModel = new OpStatsModel(this);
    m_opsProxy = makeProxy(m_opsModel, this);
    m_opsTable = new QTableView(m_tabs);
    m_opsTable->setModel(m_opsProxy);
    m_opsTable->setSortingEnabled(true);
    m_opsTable->sortByColumn(-1, Qt::AscendingOrder);  // the core's order: largest self time first
    m_opsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_opsTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_opsTable->setAlternatingRowColors(true);
    m_opsTable->setWordWrap(false);
    m_opsTable->setTextElideMode(Qt::ElideRight);
    m_opsTable->verticalHeader()->setVisible(false);
    m_opsTable->verticalHeader()->setDefaultSectionSize(m_opsTable->fontMetrics().height() + 6);
    QHeaderView* header = m_opsTable->horizontalHeader();
    header->setResizeContentsPrecision(kHeaderSizingRows);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(OpStatsModel::NameColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(OpStatsModel::ShapesColumn, QHeaderView::Interactive);
    m_opsTable->setAccessibleName(tr("Ops table"));
    m_tabs->addTab(m_opsTable, tr("Ops table"));

    m_topDownModel = new CallTreeModel(this);
    m_topDownProxy = makeProxy(m_topDownModel, this);
    m_topDownView = makeTree(m_topDownProxy, m_tabs);
    m_topDownView->setAccessibleName(tr("Top-down call tree"));
    m_tabs->addTab(m_topDownView, tr("Top-down"));
    m_bottomUpModel = new CallTreeModel(this);
    m_bottomUpProxy = makeProxy(m_bottomUpModel, this);
    m_bottomUpView = makeTree(m_bottomUpProxy, m_tabs);
    m_bottomUpView->setAccessibleName(tr("Bottom-up call tree"));
    m_tabs->addTab(m_bottomUpView, tr("Bottom-up (callers)"));

    split->addWidget(flameBox);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    m_split = split;
    // The flame graph and the tables share the height evenly until the user moves the handle.
    connect(split, &QSplitter::splitterMoved, this, [this] { m_splitMoved = true; });
    layout->addWidget(split, 1);

    connect(m_includePython, &QCheckBox::toggled, this, [this](bool on) {
        m_options.includePython = on;
        rebuild();
    });
    connect(m_byShapes, &QCheckBox::toggled, this, [this](bool on) {
        m_options.byInputShapes = on;
        rebuild();
    });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        for (QSortFilterProxyModel* proxy : {m_opsProxy, m_topDownProxy, m_bottomUpProxy}) {
            proxy->setFilterFixedString(text);
        }
        if (!text.isEmpty()) {
            m_topDownView->expandToDepth(2);
        }
    });
    connect(m_find, &QPushButton::clicked, this, &OpsPage::findCurrent);
    connect(m_opsTable, &QAbstractItemView::doubleClicked, this, &OpsPage::findFromIndex);
    connect(m_topDownView, &QAbstractItemView::doubleClicked, this, &OpsPage::findFromIndex);
    connect(m_bottomUpView, &QAbstractItemView::doubleClicked, this, &OpsPage::findFromIndex);
    connect(m_resetZoom, &QPushButton::clicked, this, [this] { m_flame->setFocusNode(CallTree::kRoot); });
    connect(m_flame, &FlameGraph::focusChanged, this, &OpsPage::updateBreadcrumb);
    connect(m_breadcrumb, &QLabel::linkActivated, this,
            [this](const QString& link) { m_flame->setFocusNode(link.toUInt()); });
    connect(m_flame, &FlameGraph::findRequested, this, [this](std::uint32_t node) {
        if (m_topDown && node < m_topDown->nodes.size()) {
            findOp(m_topDown->nodes[node].longestOp);
        }
    });
    rebuild();
}

void OpsPage::resizeEvent(QResizeEvent* event) {
    Page::resizeEvent(event);
    if (!m_splitMoved) {
        const int half = std::max(1, m_split->height() / 2);
        m_split->setSizes({half, half});
    }
}

void OpsPage::setDocument(TraceDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    Page::setDocument(document);
    if (document != nullptr) {
        connect(document, &TraceDocument::modelAvailable, this, [this] {
            refreshNowOrWhenShown(0, [this] { setModel(m_document ? m_document->model() : nullptr); });
        });
        connect(document, &TraceDocument::loadStarted, this, [this] { setModel(nullptr); });
        setModel(document->model());
    } else {
        setModel(nullptr);
    }
}

void OpsPage::setModel(std::shared_ptr<const core::TraceModel> model) {
    m_model = std::move(model);
    rebuild();
}

void OpsPage::setOptions(const calltree::CallTreeOptions& options) {
    const QSignalBlocker blockPython(m_includePython);
    const QSignalBlocker blockShapes(m_byShapes);
    m_includePython->setChecked(options.includePython);
    m_byShapes->setChecked(options.byInputShapes);
    m_options = options;
    rebuild();
}

void OpsPage::setFilterText(const QString& text) {
    m_filter->setText(text);
}

void OpsPage::rebuild() {
    // A trace without CPU ops but with sampled stacks (the agent's Python sampler) shows the
    // samples' call tree instead: there are no op calls to tabulate.
    const bool sampled = m_model && m_model->cpuOps.size() == 0 && m_model->stackSamples.size() > 0;
    m_tabs->setTabVisible(m_tabs->indexOf(m_opsTable), !sampled);
    m_includePython->setEnabled(!sampled);
    m_byShapes->setEnabled(!sampled);
    m_find->setEnabled(!sampled);  // a sample is an instant: there is no call to find
    for (QTreeView* view : {m_topDownView, m_bottomUpView}) {
        view->setColumnHidden(CallTreeModel::GpuColumn, sampled);
    }
    if (m_model) {
        auto topDown = std::make_shared<const CallTree>(
            sampled ? calltree::buildSampledTopDown(*m_model) : calltree::buildTopDown(*m_model, m_options));
        auto bottomUp = std::make_shared<const CallTree>(calltree::buildBottomUp(*topDown));
        m_topDown = topDown;
        m_opsModel->setTable(sampled ? calltree::OpStatsTable{} : calltree::buildOpStats(*m_model, m_options),
                             m_model);
        m_topDownModel->setTree(topDown, m_model);
        m_bottomUpModel->setTree(bottomUp, m_model);
        std::uint32_t maxDepth = 0;
        for (const calltree::CallNode& n : topDown->nodes) {
            maxDepth = std::max(maxDepth, n.depth);
        }
        m_flame->setMinimumHeight(static_cast<int>(maxDepth + 1) * FlameGraph::kRowHeight);
        m_flame->setTree(topDown, m_model);
    } else {
        m_topDown.reset();
        m_opsModel->setTable({}, nullptr);
        m_topDownModel->setTree(nullptr, nullptr);
        m_bottomUpModel->setTree(nullptr, nullptr);
        m_flame->setMinimumHeight(4 * FlameGraph::kRowHeight);
        m_flame->setTree(nullptr, nullptr);
    }
    m_opsTable->setColumnHidden(OpStatsModel::ShapesColumn, !m_options.byInputShapes);
    expandHeaviestPath();
    updateCaption();
}

void OpsPage::expandHeaviestPath() {
    m_topDownView->collapseAll();
    m_topDownView->expandToDepth(0);
    if (!m_topDown) {
        return;
    }
    // Python stacks are long chains: under each outermost op, open the path that takes the most
    // time down to a node whose time is split between several children (or a leaf).
    for (std::uint32_t top : m_topDown->root().children) {
        std::uint32_t node = top;
        for (int level = 0; level < kExpandedLevels; ++level) {
            const calltree::CallNode& n = m_topDown->nodes[node];
            if (n.children.empty()) {
                break;
            }
            m_topDownView->expand(m_topDownProxy->mapFromSource(m_topDownModel->indexOf(node)));
            if (m_topDown->nodes[n.children.front()].totalNs * 2 < n.totalNs) {
                break;
            }
            node = n.children.front();
        }
    }
}

void OpsPage::updateCaption() {
    if (!m_model) {
        m_caption->setText(tr("No trace open. This page aggregates the trace's CPU ops and Python stacks."));
        return;
    }
    if (!m_topDown || m_topDown->size() <= 1) {
        m_caption->setText(
            tr("This trace records no CPU ops (framework operators or Python frames), so there is "
               "nothing to aggregate here."));
        return;
    }
    const calltree::CallNode& root = m_topDown->root();
    if (m_topDown->sampled) {
        m_caption->setText(
            tr("No CPU ops in this trace: the call tree of its %1 sampled stacks on %2 threads, %3 of "
               "thread time (each thread's wall-clock time, added up). A sample stands for the time to its "
               "thread's next one, so a thread that sleeps is shown sleeping, under its own thread. Self: "
               "samples whose innermost frame it is; total: samples through it.")
                .arg(QString::fromStdString(core::formatCount(root.calls)))
                .arg(root.children.size())
                .arg(QString::fromStdString(core::formatDuration(root.totalNs))));
        return;
    }
    QString text =
        tr("%1 op calls in %2 distinct ops, %3 of CPU time in the outermost ops; they launched %4 of "
           "GPU kernel time. Self: time in the op itself; total: start to end, including the ops it "
           "called; GPU launched: kernels started by its calls and their callees.")
            .arg(QString::fromStdString(core::formatCount(static_cast<std::int64_t>(m_model->cpuOps.size()))),
                 QString::number(m_opsModel->rowCount()),
                 QString::fromStdString(core::formatDuration(root.totalNs)),
                 QString::fromStdString(core::formatDuration(root.gpuNs)));
    if (m_topDown->unattributedKernels > 0) {
        text += tr(" %1 kernels (%2) were launched outside any op.")
                    .arg(QString::fromStdString(core::formatCount(m_topDown->unattributedKernels)),
                         QString::fromStdString(core::formatDuration(m_topDown->unattributedGpuNs)));
    }
    m_caption->setText(text);
}

void OpsPage::updateBreadcrumb(std::uint32_t node) {
    m_resetZoom->setEnabled(node != CallTree::kRoot && m_topDown);
    if (!m_topDown || !m_model) {
        m_breadcrumb->setText(
            tr("Flame graph: click a block to zoom, double-click to find it on the timeline"));
        return;
    }
    // Each ancestor is a link that zooms back out to it.
    const QString all = m_topDown->sampled ? tr("All samples") : tr("All ops");
    QStringList links{node == CallTree::kRoot
                          ? all
                          : QStringLiteral("<a href=\"%1\">%2</a>").arg(CallTree::kRoot).arg(all)};
    QStringList plain{all};
    // Deep paths show the root, an ellipsis and the last few levels; the tooltip has them all.
    constexpr std::size_t kShownLevels = 4;
    const std::vector<std::uint32_t> path = calltree::pathTo(*m_topDown, node);
    for (std::size_t i = 0; i < path.size(); ++i) {
        const std::uint32_t at = path[i];
        const QString label = callNodeLabel(*m_model, m_topDown->nodes[at]);
        plain << label;
        if (path.size() > kShownLevels && i + kShownLevels < path.size()) {
            if (i == 0) {
                links << QStringLiteral("…");
            }
            continue;
        }
        // Long Python frame names keep their end ("…profile.py(34): run_torch_profiler").
        const QString shown =
            m_breadcrumb->fontMetrics().elidedText(label, Qt::ElideLeft, 230).toHtmlEscaped();
        links << (at == node ? shown : QStringLiteral("<a href=\"%1\">%2</a>").arg(at).arg(shown));
    }
    QString text = links.join(QStringLiteral(" › "));
    if (node == CallTree::kRoot) {
        text += tr("&nbsp;&nbsp;&nbsp;(click a block to zoom, double-click to find it on the timeline)");
    }
    m_breadcrumb->setText(text);
    m_breadcrumb->setToolTip(plain.join(QStringLiteral("\n› ")));
}

void OpsPage::findCurrent() {
    QAbstractItemView* view = qobject_cast<QAbstractItemView*>(m_tabs->currentWidget());
    if (view != nullptr) {
        findFromIndex(view->currentIndex());
    }
}

void OpsPage::findFromIndex(const QModelIndex& proxyIndex) {
    if (!proxyIndex.isValid()) {
        return;
    }
    const QVariant start = proxyIndex.siblingAtColumn(0).data(TimeRangeStartRole);
    const QVariant end = proxyIndex.siblingAtColumn(0).data(TimeRangeEndRole);
    if (!start.isValid() || !end.isValid()) {
        return;
    }
    const core::TimeRange range{start.toLongLong(), end.toLongLong()};
    emit findRequested(range);
    if (m_document) {
        m_document->showRange(range,
                              tr("Longest call of %1").arg(proxyIndex.siblingAtColumn(0).data().toString()));
    }
}

void OpsPage::findOp(core::CpuOpId op) {
    if (!m_model || !op.valid() || op.index >= m_model->cpuOps.size()) {
        return;
    }
    const core::TimeRange range{m_model->cpuOps.startNs[op.index], m_model->cpuOps.endNs[op.index]};
    emit findRequested(range);
    if (m_document) {
        m_document->showRange(
            range,
            tr("Longest call of %1").arg(QString::fromUtf8(m_model->text(m_model->cpuOps.name[op.index]))));
    }
}

}  // namespace chokepoint::ui
