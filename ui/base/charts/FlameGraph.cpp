#include "ui/base/charts/FlameGraph.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <functional>

#include "core/base/Format.h"
#include "ui/base/models/CallTreeModel.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/theme/TimelineColors.h"

namespace chokepoint::ui {

using calltree::CallNode;
using calltree::CallTree;
using calltree::kNoNode;

namespace {

constexpr double kMinBlockWidth = 1.0;  // narrower blocks (and their children) are not drawn
constexpr double kMinLabelWidth = 28.0;

QString durationText(core::DurationNs ns) {
    return QString::fromStdString(core::formatDuration(ns));
}

}  // namespace

FlameGraph::FlameGraph(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(4 * kRowHeight);
    setAccessibleName(tr("Flame graph of CPU ops"));
    setAccessibleDescription(
        tr("Icicle of the CPU op call tree: width is total CPU time. Click to zoom, "
           "double-click to find on the timeline; the tree views hold the same data."));
}

void FlameGraph::setTree(std::shared_ptr<const CallTree> tree,
                         std::shared_ptr<const core::TraceModel> model) {
    m_model = std::move(model);
    m_tree = m_model && tree && !tree->nodes.empty() ? std::move(tree) : nullptr;
    m_hover = kNoNode;
    m_pressedNode = kNoNode;
    m_focus = CallTree::kRoot;
    m_layoutDirty = true;
    update();
    emit focusChanged(m_focus);
}

void FlameGraph::setFocusNode(std::uint32_t node) {
    if (!m_tree || node >= m_tree->nodes.size()) {
        node = CallTree::kRoot;
    }
    m_focus = node;
    m_layoutDirty = true;
    update();
    emit focusChanged(m_focus);
}

void FlameGraph::layoutBlocks() {
    m_blocks.clear();
    m_layoutDirty = false;
    if (!m_tree) {
        return;
    }
    layoutNode(m_focus, 0.0, static_cast<double>(width()), 0);
}

void FlameGraph::layoutNode(std::uint32_t node, double x, double width, int depth) {
    if (width < kMinBlockWidth || (depth + 1) * kRowHeight > height()) {
        return;
    }
    m_blocks.push_back({QRectF(x, depth * kRowHeight, width, kRowHeight), node});
    const CallNode& n = m_tree->nodes[node];
    // Children of partially overlapping ops can add up to more than their parent: scale to fit.
    core::DurationNs childSum = 0;
    for (std::uint32_t c : n.children) {
        childSum += m_tree->nodes[c].totalNs;
    }
    const core::DurationNs scaleNs = std::max(n.totalNs, childSum);
    if (scaleNs <= 0) {
        return;
    }
    double at = x;
    for (std::uint32_t c : n.children) {
        const double w = width * static_cast<double>(m_tree->nodes[c].totalNs) / static_cast<double>(scaleNs);
        if (w < kMinBlockWidth) {
            break;  // children are sorted longest first: the rest are narrower still
        }
        layoutNode(c, at, w, depth + 1);
        at += w;
    }
}

QColor FlameGraph::blockColour(std::uint32_t node) const {
    const CallNode& n = m_tree->nodes[node];
    if (node == CallTree::kRoot) {
        return palette().color(QPalette::Mid);
    }
    if (n.thread != core::kNoThread) {
        return palette().color(QPalette::Midlight);  // a sampled thread: the level above its frames
    }
    const bool python = n.file.valid() ||
                        (n.longestOp.valid() &&
                         m_model->cpuOps.category[n.longestOp.index] == core::CpuOpCategory::PythonFunction);
    const std::size_t h = std::hash<std::string_view>{}(m_model->text(n.name));
    // Operators: warm hues (red to yellow); Python frames: cool hues (teal to blue).
    const int hue = python ? 180 + static_cast<int>(h % 50) : static_cast<int>(h % 50);
    const int saturation = 110 + static_cast<int>((h >> 8) % 80);
    return QColor::fromHsv(hue, saturation, 235);
}

QString FlameGraph::tooltipFor(std::uint32_t node) const {
    const CallNode& n = m_tree->nodes[node];
    const core::DurationNs rootTotal = m_tree->root().totalNs;
    const double share =
        rootTotal > 0 ? static_cast<double>(n.totalNs) / static_cast<double>(rootTotal) : 0.0;
    if (m_tree->sampled) {
        return tr("%1\n%2 samples\ntotal %3 (%4 of all samples, wall clock)\nself %5")
            .arg(callNodeLabel(*m_model, n), QString::fromStdString(core::formatCount(n.calls)),
                 durationText(n.totalNs), QString::fromStdString(core::formatPercent(share)),
                 durationText(n.selfNs));
    }
    return tr("%1\n%2 calls\ntotal CPU %3 (%4 of all ops)\nself CPU %5\nGPU launched %6")
        .arg(callNodeLabel(*m_model, n), QString::fromStdString(core::formatCount(n.calls)),
             durationText(n.totalNs), QString::fromStdString(core::formatPercent(share)),
             durationText(n.selfNs), durationText(n.gpuNs));
}

std::uint32_t FlameGraph::nodeAt(QPointF pos) const {
    for (auto it = m_blocks.rbegin(); it != m_blocks.rend(); ++it) {
        if (it->rect.contains(pos)) {
            return it->node;
        }
    }
    return kNoNode;
}

QRectF FlameGraph::blockOf(std::uint32_t node) const {
    for (const Block& b : m_blocks) {
        if (b.node == node) {
            return b.rect;
        }
    }
    return {};
}

void FlameGraph::resizeEvent(QResizeEvent* event) {
    m_layoutDirty = true;
    QWidget::resizeEvent(event);
}

void FlameGraph::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors colors = themeColors(palette());
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_tree || m_tree->root().totalNs <= 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   m_tree ? tr("This trace records no CPU ops") : tr("Open a trace to see its CPU ops"));
        return;
    }
    if (m_layoutDirty) {
        layoutBlocks();
    }
    const QColor border = palette().color(QPalette::Base);
    const QFontMetrics metrics(font());
    for (const Block& b : m_blocks) {
        const QRectF r = b.rect.adjusted(0, 0, -1, -1);
        QColor fill = colors.fill(blockColour(b.node));
        if (b.node == m_hover) {
            fill = colors.dark ? fill.lighter(125) : fill.darker(120);
        }
        p.fillRect(r, fill);
        p.setPen(border);
        p.drawRect(r);
        if (r.width() >= kMinLabelWidth) {
            const QString label = metrics.elidedText(callNodeLabel(*m_model, m_tree->nodes[b.node]),
                                                     Qt::ElideRight, static_cast<int>(r.width()) - 6);
            p.setPen(textColorOn(fill));
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
    }
}

void FlameGraph::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        // The block under the press, before zooming moves it: a double-click finds this one.
        m_pressedNode = nodeAt(event->position());
        if (m_pressedNode != kNoNode && m_pressedNode != m_focus) {
            setFocusNode(m_pressedNode);
        }
    }
    QWidget::mousePressEvent(event);
}

void FlameGraph::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    const std::uint32_t node = m_pressedNode != kNoNode ? m_pressedNode : nodeAt(event->position());
    if (node != kNoNode && node != CallTree::kRoot) {
        emit findRequested(node);
    }
}

void FlameGraph::mouseMoveEvent(QMouseEvent* event) {
    const std::uint32_t node = nodeAt(event->position());
    if (node != m_hover) {
        m_hover = node;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void FlameGraph::leaveEvent(QEvent* event) {
    m_hover = kNoNode;
    update();
    QWidget::leaveEvent(event);
}

void FlameGraph::contextMenuEvent(QContextMenuEvent* event) {
    if (!m_tree) {
        return;
    }
    const std::uint32_t node = nodeAt(event->pos());
    QMenu menu(this);
    if (node != kNoNode && node != CallTree::kRoot) {
        const QString name = callNodeLabel(*m_model, m_tree->nodes[node]);
        const QString shortName = fontMetrics().elidedText(name, Qt::ElideRight, 300);
        menu.addAction(tr("Zoom to %1").arg(shortName), this, [this, node] { setFocusNode(node); });
        menu.addAction(tr("Find longest call on the timeline"), this,
                       [this, node] { emit findRequested(node); });
    }
    if (m_focus != CallTree::kRoot) {
        menu.addAction(tr("Zoom out"), this, [this] { setFocusNode(m_tree->nodes[m_focus].parent); });
    }
    menu.addAction(tr("Reset zoom"), this, [this] { setFocusNode(CallTree::kRoot); })
        ->setEnabled(m_focus != CallTree::kRoot);
    menu.exec(event->globalPos());
}

bool FlameGraph::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_tree) {
        auto* help = static_cast<QHelpEvent*>(event);
        const std::uint32_t node = nodeAt(help->pos());
        if (node != kNoNode) {
            QToolTip::showText(help->globalPos(), tooltipFor(node), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace chokepoint::ui
