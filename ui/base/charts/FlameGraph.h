#pragma once
// FlameGraph: an icicle chart of a top-down calltree::CallTree. The focused node spans the
// width at the top; each child sits below its parent with a width proportional to its total CPU
// time. Python frames and operators have different hues; a block's colour within its hue follows
// its name, so one function keeps its colour. Click a block to zoom to it (the breadcrumb and the
// menu zoom out); right-click for a menu (zoom, find on the timeline, reset); double-click finds
// the block's longest call on the timeline.
// The tooltip gives calls, total, self and GPU launched time.

#include <QWidget>
#include <memory>
#include <vector>

#include "core/calltree/CallTree.h"
#include "core/model/TraceModel.h"

namespace chokepoint::ui {

class FlameGraph : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraph(QWidget* parent = nullptr);

    void setTree(std::shared_ptr<const calltree::CallTree> tree,
                 std::shared_ptr<const core::TraceModel> model);
    // Zooms to `node` (the root resets). Emits focusChanged.
    void setFocusNode(std::uint32_t node);
    std::uint32_t focusNode() const { return m_focus; }
    // The node drawn at `pos`, kNoNode when none.
    std::uint32_t nodeAt(QPointF pos) const;
    // The block of `node` as last drawn (empty when not drawn).
    QRectF blockOf(std::uint32_t node) const;

    static constexpr int kRowHeight = 18;

signals:
    void focusChanged(std::uint32_t node);
    // Asks to show the node's longest call on the timeline.
    void findRequested(std::uint32_t node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Block {
        QRectF rect;
        std::uint32_t node = 0;
    };
    void layoutBlocks();
    void layoutNode(std::uint32_t node, double x, double width, int depth);
    QColor blockColour(std::uint32_t node) const;
    QString tooltipFor(std::uint32_t node) const;

    std::shared_ptr<const calltree::CallTree> m_tree;
    std::shared_ptr<const core::TraceModel> m_model;
    std::uint32_t m_focus = calltree::CallTree::kRoot;
    std::uint32_t m_hover = calltree::kNoNode;
    std::uint32_t m_pressedNode = calltree::kNoNode;
    std::vector<Block> m_blocks;  // in drawing order, parents before children
    bool m_layoutDirty = true;
};

}  // namespace chokepoint::ui
