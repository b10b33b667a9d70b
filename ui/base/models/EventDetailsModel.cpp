#include "ui/base/models/EventDetailsModel.h"

#include "core/base/Format.h"
#include "core/base/KernelName.h"

namespace chokepoint::ui {

using timeline::EventKind;

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// "12345.678 µs": microseconds with the nanoseconds as decimals.
QString microseconds(core::DurationNs ns) {
    return qs(core::formatFixed(static_cast<double>(ns) / 1e3, 3)) + QStringLiteral(" µs");
}

}  // namespace

void EventDetailsModel::setEvent(std::shared_ptr<const core::TraceModel> model, timeline::EventRef ref) {
    beginResetModel();
    m_model = std::move(model);
    m_ref = ref;
    m_extraRows.clear();
    rebuild();
    endResetModel();
}

void EventDetailsModel::setExtraRows(std::vector<std::pair<QString, QString>> rows) {
    beginResetModel();
    m_extraRows = std::move(rows);
    rebuild();
    endResetModel();
}

QString EventDetailsModel::value(const QString& field) const {
    for (const auto& [f, v] : m_rows) {
        if (f == field) {
            return v;
        }
    }
    return {};
}

void EventDetailsModel::rebuild() {
    m_rows.clear();
    m_title.clear();
    if (!m_model || !m_ref.valid() || !timeline::isValid(*m_model, m_ref)) {
        return;
    }
    const core::TraceModel& model = *m_model;
    const core::TimestampNs origin = model.timeSpan().startNs;
    const core::TimeRange times = timeline::eventTimes(model, m_ref);
    auto add = [this](const QString& field, const QString& value) { m_rows.emplace_back(field, value); };
    auto threadText = [&model](core::ThreadIndex t) -> QString {
        if (t >= model.threads.size()) {
            return tr("unknown");
        }
        const core::ThreadInfo& info = model.threads[t];
        QString text = tr("%1 (pid %2)").arg(qs(core::formatThreadId(info.tid))).arg(info.pid);
        if (!info.name.empty()) {
            text += QStringLiteral(" · ") + qs(info.name);
        }
        return text;
    };
    auto launchedBy = [&](core::ApiCallId call) {
        if (!call.valid() || call.index >= model.apiCalls.size()) {
            add(tr("Launched by"), tr("not recorded"));
            return;
        }
        const core::ApiCallRow row = model.apiCalls.row(call);
        add(tr("Launched by"),
            tr("%1 (%2, at %3)")
                .arg(qs(model.text(row.name)), qs(core::formatDuration(row.endNs - row.startNs)),
                     qs(core::formatDuration(row.startNs - origin))));
        // HTA's launch delay: from the launch call's return to the GPU starting the work (queued
        // behind earlier work on the stream, or the GPU busy). Negative when the work started
        // before the call returned.
        const core::DurationNs queueNs = times.startNs - row.endNs;
        add(tr("Queue delay"),
            queueNs >= 0 ? tr("%1 (launch call end to start)").arg(microseconds(queueNs))
                         : tr("%1 (started before the launch call returned)").arg(microseconds(queueNs)));
        add(tr("Launch thread"), threadText(row.thread));
        if (row.cpuOp.valid() && row.cpuOp.index < model.cpuOps.size()) {
            const core::CpuOpRow op = model.cpuOps.row(row.cpuOp);
            add(tr("Launching op"), qs(model.text(op.name)));
            if (op.inputShapes.valid() && !model.text(op.inputShapes).empty()) {
                add(tr("Op input shapes"), qs(model.text(op.inputShapes)));
            }
            if (op.inputTypes.valid() && !model.text(op.inputTypes).empty()) {
                add(tr("Op input types"), qs(model.text(op.inputTypes)));
            }
            // Stride, padding, is_causal: what the op's FLOPs were costed from (OpSchemas.h).
            if (op.concreteInputs.valid() && !model.text(op.concreteInputs).empty()) {
                add(tr("Op scalar arguments"), qs(model.text(op.concreteInputs)));
            }
        }
    };

    m_title = qs(timeline::eventName(model, m_ref));
    add(tr("Name"), m_title);
    add(tr("Kind"), qs(timeline::toString(m_ref.kind)));
    if (m_ref.kind == EventKind::Kernel) {
        // Tables show the short name; the details keep both.
        const QString shortName = qs(core::shortKernelName(model.text(model.kernels.name[m_ref.row])));
        if (shortName != m_title) {
            add(tr("Short name"), shortName);
        }
    }
    // Exact to the nanosecond, from the trace's start, in the unit of the offset's size (a point
    // 15 s in reads "14.971209026 s", not "14971209.026 µs").
    add(tr("Start"), tr("%1 after trace start").arg(qs(core::formatTimeOffset(times.startNs - origin))));
    add(tr("End"), tr("%1 after trace start").arg(qs(core::formatTimeOffset(times.endNs - origin))));
    add(tr("Duration"), qs(core::formatDuration(times.durationNs())));

    switch (m_ref.kind) {
        case EventKind::Kernel: {
            const core::KernelRow k = model.kernels.row(core::KernelId{m_ref.row});
            add(tr("Device"), QString::number(k.deviceIndex));
            add(tr("Stream"), QString::number(k.streamId));
            add(tr("Grid"), QStringLiteral("%1 × %2 × %3").arg(k.gridX).arg(k.gridY).arg(k.gridZ));
            add(tr("Block"), QStringLiteral("%1 × %2 × %3").arg(k.blockX).arg(k.blockY).arg(k.blockZ));
            if (k.registersPerThread > 0) {
                add(tr("Registers / thread"), QString::number(k.registersPerThread));
            }
            if (k.staticSharedBytes > 0 || k.dynamicSharedBytes > 0) {
                add(tr("Shared memory"), tr("%1 static, %2 dynamic")
                                             .arg(qs(core::formatBytes(k.staticSharedBytes)),
                                                  qs(core::formatBytes(k.dynamicSharedBytes))));
            }
            add(tr("Correlation id"), k.correlationId ? QString::number(k.correlationId) : tr("none"));
            launchedBy(k.launchCall);
            break;
        }
        case EventKind::Memcpy: {
            const core::MemcpyRow c = model.memcpys.row(core::MemcpyId{m_ref.row});
            add(tr("Direction"), qs(core::toString(c.kind)));
            add(tr("Size"), qs(core::formatBytes(static_cast<double>(c.sizeBytes))));
            if (c.endNs > c.startNs) {
                add(tr("Bandwidth"), qs(core::formatBandwidth(static_cast<double>(c.sizeBytes) * 1e9 /
                                                              static_cast<double>(c.endNs - c.startNs))));
            }
            add(tr("Source memory"), qs(core::toString(c.srcKind)));
            add(tr("Destination memory"), qs(core::toString(c.dstKind)));
            add(tr("Device"), QString::number(c.deviceIndex));
            add(tr("Stream"), QString::number(c.streamId));
            launchedBy(c.launchCall);
            break;
        }
        case EventKind::Memset: {
            const core::MemsetRow m = model.memsets.row(core::MemsetId{m_ref.row});
            add(tr("Size"), qs(core::formatBytes(static_cast<double>(m.sizeBytes))));
            add(tr("Memory"), qs(core::toString(m.memoryKind)));
            add(tr("Device"), QString::number(m.deviceIndex));
            add(tr("Stream"), QString::number(m.streamId));
            launchedBy(m.launchCall);
            break;
        }
        case EventKind::Range: {
            const core::RangeRow r = model.ranges.row(core::RangeId{m_ref.row});
            add(tr("Source"), qs(core::toString(r.source)));
            if (r.domain.valid() && !model.text(r.domain).empty()) {
                add(tr("Domain"), qs(model.text(r.domain)));
            }
            add(tr("Depth"), QString::number(r.depth));
            if (r.thread != core::kNoThread) {
                add(tr("Thread"), threadText(r.thread));
            } else {
                add(tr("Device / stream"), QStringLiteral("%1 / %2").arg(r.deviceIndex).arg(r.streamId));
            }
            if (r.parent.valid() && r.parent.index < model.ranges.size()) {
                add(tr("Inside"), qs(model.text(model.ranges.name[r.parent.index])));
            }
            break;
        }
        case EventKind::CpuOp: {
            const core::CpuOpRow o = model.cpuOps.row(core::CpuOpId{m_ref.row});
            add(tr("Category"), qs(core::toString(o.category)));
            add(tr("Thread"), threadText(o.thread));
            if (o.inputShapes.valid() && !model.text(o.inputShapes).empty()) {
                add(tr("Input shapes"), qs(model.text(o.inputShapes)));
            }
            if (o.inputTypes.valid() && !model.text(o.inputTypes).empty()) {
                add(tr("Input types"), qs(model.text(o.inputTypes)));
            }
            if (o.concreteInputs.valid() && !model.text(o.concreteInputs).empty()) {
                add(tr("Scalar arguments"), qs(model.text(o.concreteInputs)));
            }
            if (o.externalId) {
                add(tr("External id"), QString::number(o.externalId));
            }
            add(tr("Depth"), QString::number(o.depth));
            if (o.parent.valid() && o.parent.index < model.cpuOps.size()) {
                add(tr("Called from"), qs(model.text(model.cpuOps.name[o.parent.index])));
            }
            break;
        }
        case EventKind::ApiCall: {
            const core::ApiCallRow a = model.apiCalls.row(core::ApiCallId{m_ref.row});
            add(tr("API"), qs(core::toString(a.domain)));
            add(tr("Thread"), threadText(a.thread));
            add(tr("Correlation id"), a.correlationId ? QString::number(a.correlationId) : tr("none"));
            if (a.cpuOp.valid() && a.cpuOp.index < model.cpuOps.size()) {
                add(tr("Inside op"), qs(model.text(model.cpuOps.name[a.cpuOp.index])));
            }
            break;
        }
        case EventKind::StackSample: {
            add(tr("Thread"), threadText(model.stackSamples.thread[m_ref.row]));
            const std::vector<std::string> frames = timeline::stackSampleFrames(model, m_ref);
            add(tr("Depth"), QString::number(frames.size()));
            for (std::size_t i = 0; i < frames.size(); ++i) {
                add(i == 0 ? tr("Leaf frame") : tr("Frame %1").arg(i), qs(frames[i]));
            }
            break;
        }
    }
    for (const auto& row : m_extraRows) {
        m_rows.push_back(row);
    }
}

int EventDetailsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int EventDetailsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant EventDetailsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= static_cast<int>(m_rows.size())) {
        return {};
    }
    const auto& [field, value] = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        return index.column() == FieldColumn ? field : value;
    }
    return {};
}

QVariant EventDetailsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole) {
        return section == FieldColumn ? tr("Field") : tr("Value");
    }
    return {};
}

}  // namespace chokepoint::ui
