#include "ui/base/models/CallTreeModel.h"

#include "core/base/Format.h"
#include "ui/base/models/ModelRoles.h"

namespace chokepoint::ui {

using calltree::CallNode;
using calltree::CallTree;
using calltree::kNoNode;

namespace {

QString durationText(core::DurationNs ns) {
    return QString::fromStdString(core::formatDuration(ns));
}

}  // namespace

namespace {

// The last two parts of a source path: "torch/nn/modules/module.py" reads "modules/module.py".
QString shortSourcePath(std::string_view path) {
    const std::size_t last = path.rfind('/');
    if (last == std::string_view::npos || last == 0) {
        return QString::fromUtf8(path);
    }
    const std::size_t before = path.rfind('/', last - 1);
    return QString::fromUtf8(before == std::string_view::npos ? path : path.substr(before + 1));
}

}  // namespace

QString callNodeLabel(const core::TraceModel& model, const CallNode& node) {
    if (node.thread != core::kNoThread) {
        if (node.thread >= model.threads.size()) {
            return QObject::tr("Thread ?");
        }
        const core::ThreadInfo& t = model.threads[node.thread];
        return t.name.empty() ? QObject::tr("Thread %1").arg(t.tid)
                              : QObject::tr("Thread %1 · %2").arg(t.tid).arg(QString::fromStdString(t.name));
    }
    if (!node.name.valid()) {
        return QObject::tr("(all)");
    }
    QString label = QString::fromUtf8(model.text(node.name));
    if (node.file.valid() && !model.text(node.file).empty()) {
        label += QStringLiteral("  (") + shortSourcePath(model.text(node.file)) + QStringLiteral(")");
    }
    if (node.inputShapes.valid() && !model.text(node.inputShapes).empty()) {
        label += QStringLiteral(" ") + QString::fromUtf8(model.text(node.inputShapes));
    }
    return label;
}

CallTreeModel::CallTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void CallTreeModel::setTree(std::shared_ptr<const CallTree> tree,
                            std::shared_ptr<const core::TraceModel> model) {
    beginResetModel();
    m_model = std::move(model);
    m_tree = m_model && tree && !tree->nodes.empty() ? std::move(tree) : nullptr;
    m_rowInParent.clear();
    if (m_tree) {
        m_rowInParent.assign(m_tree->nodes.size(), 0);
        for (const CallNode& node : m_tree->nodes) {
            for (std::size_t i = 0; i < node.children.size(); ++i) {
                m_rowInParent[node.children[i]] = static_cast<int>(i);
            }
        }
    }
    endResetModel();
}

std::uint32_t CallTreeModel::nodeAt(const QModelIndex& index) const {
    if (!index.isValid() || !m_tree) {
        return kNoNode;
    }
    return static_cast<std::uint32_t>(index.internalId());
}

QModelIndex CallTreeModel::indexOf(std::uint32_t node) const {
    if (!m_tree || node == CallTree::kRoot || node >= m_tree->nodes.size()) {
        return {};
    }
    return createIndex(m_rowInParent[node], 0, static_cast<quintptr>(node));
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!m_tree || row < 0 || column < 0 || column >= NumColumns) {
        return {};
    }
    const std::uint32_t parentNode = parent.isValid() ? nodeAt(parent) : CallTree::kRoot;
    const std::vector<std::uint32_t>& children = m_tree->nodes[parentNode].children;
    if (row >= static_cast<int>(children.size())) {
        return {};
    }
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<std::size_t>(row)]));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const {
    const std::uint32_t node = nodeAt(child);
    if (node == kNoNode || node == CallTree::kRoot) {
        return {};
    }
    return indexOf(m_tree->nodes[node].parent);
}

int CallTreeModel::rowCount(const QModelIndex& parent) const {
    if (!m_tree) {
        return 0;
    }
    if (parent.isValid() && parent.column() != 0) {
        return 0;
    }
    const std::uint32_t node = parent.isValid() ? nodeAt(parent) : CallTree::kRoot;
    return static_cast<int>(m_tree->nodes[node].children.size());
}

int CallTreeModel::columnCount(const QModelIndex&) const {
    return NumColumns;
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const {
    const std::uint32_t id = nodeAt(index);
    if (id == kNoNode) {
        return {};
    }
    const CallNode& node = m_tree->nodes[id];
    const core::DurationNs rootTotal = m_tree->root().totalNs;
    const double share =
        rootTotal > 0 ? static_cast<double>(node.totalNs) / static_cast<double>(rootTotal) : 0.0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn:
                return callNodeLabel(*m_model, node);
            case CallsColumn:
                return QString::fromStdString(core::formatCount(node.calls));
            case TotalColumn:
                return durationText(node.totalNs);
            case SelfColumn:
                return durationText(node.selfNs);
            case GpuColumn:
                return node.gpuNs > 0 ? durationText(node.gpuNs) : QString();
            case ShareColumn:
                return QString::fromStdString(core::formatPercent(share));
            default:
                return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case NameColumn:
                return callNodeLabel(*m_model, node);
            case CallsColumn:
                return static_cast<qint64>(node.calls);
            case TotalColumn:
                return static_cast<qint64>(node.totalNs);
            case SelfColumn:
                return static_cast<qint64>(node.selfNs);
            case GpuColumn:
                return static_cast<qint64>(node.gpuNs);
            case ShareColumn:
                return share;
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole && m_tree->sampled) {
        QString where;
        if (node.file.valid()) {
            where = QStringLiteral("\n") + QString::fromUtf8(m_model->text(node.file));
        }
        return tr("%1%2\n%3 samples · total %4 · self %5 (wall clock)")
            .arg(callNodeLabel(*m_model, node), where, QString::fromStdString(core::formatCount(node.calls)),
                 durationText(node.totalNs), durationText(node.selfNs));
    }
    if (role == Qt::ToolTipRole) {
        return tr("%1\n%2 calls · total %3 · self %4 · GPU launched %5")
            .arg(callNodeLabel(*m_model, node), QString::fromStdString(core::formatCount(node.calls)),
                 durationText(node.totalNs), durationText(node.selfNs), durationText(node.gpuNs));
    }
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == TimeRangeStartRole && node.longestOp.valid()) {
        return static_cast<qint64>(m_model->cpuOps.startNs[node.longestOp.index]);
    }
    if (role == TimeRangeEndRole && node.longestOp.valid()) {
        return static_cast<qint64>(m_model->cpuOps.endNs[node.longestOp.index]);
    }
    return {};
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    const bool sampled = m_tree && m_tree->sampled;
    switch (section) {
        case NameColumn:
            return tr("Function");
        case CallsColumn:
            return sampled ? tr("Samples") : tr("Calls");
        case TotalColumn:
            return sampled ? tr("Total") : tr("Total CPU");
        case SelfColumn:
            return sampled ? tr("Self") : tr("Self CPU");
        case GpuColumn:
            return tr("GPU launched");
        case ShareColumn:
            return tr("Share");
        default:
            return {};
    }
}

}  // namespace chokepoint::ui
