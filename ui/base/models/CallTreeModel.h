#pragma once
// CallTreeModel: a top-down or bottom-up calltree::CallTree as a Qt tree. The root node is
// not shown; its children are the top-level rows. Columns: name, calls, total CPU, self CPU, GPU
// launched, share of all CPU op time (the root's total). SortRole gives raw numbers.

#include <QAbstractItemModel>
#include <memory>

#include "core/calltree/CallTree.h"
#include "core/model/TraceModel.h"

namespace chokepoint::ui {

class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn = 0, CallsColumn, TotalColumn, SelfColumn, GpuColumn, ShareColumn, NumColumns };

    explicit CallTreeModel(QObject* parent = nullptr);

    // Shares the tree (the flame graph draws the same one); `model` keeps names alive.
    void setTree(std::shared_ptr<const calltree::CallTree> tree,
                 std::shared_ptr<const core::TraceModel> model);
    const std::shared_ptr<const calltree::CallTree>& tree() const { return m_tree; }
    // The tree node an index shows, kNoNode for an invalid index.
    std::uint32_t nodeAt(const QModelIndex& index) const;
    // The index of `node` in column 0 (invalid for the root or an unknown node).
    QModelIndex indexOf(std::uint32_t node) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const calltree::CallTree> m_tree;
    std::shared_ptr<const core::TraceModel> m_model;
    std::vector<int> m_rowInParent;  // per node
};

// "name" or "name [shapes]" for a node; "(all)" for the root.
QString callNodeLabel(const core::TraceModel& model, const calltree::CallNode& node);

}  // namespace chokepoint::ui
