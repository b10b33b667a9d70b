#include "ui/views/job/RankStepHeatmap.h"

#include <QContextMenuEvent>
#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/base/Format.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobRankMenu.h"
#include "ui/views/job/JobText.h"

namespace chokepoint::ui {
namespace {

constexpr int kGutterPx = 100;
constexpr int kHeaderPx = 20;
constexpr int kLegendPx = 26;
constexpr int kRightPx = 8;

// Sequential palette, cells of 0 to 1 of the scale: from the background's end (light on a light
// palette, dark on a dark one) to the salient end, so longer steps always stand out.
QColor rampColor(double t, bool dark) {
    static const QColor light[] = {QColor(0xff, 0xf5, 0xeb), QColor(0xfd, 0x8d, 0x3c),
                                   QColor(0x7f, 0x27, 0x04)};
    static const QColor onDark[] = {QColor(0x3a, 0x22, 0x12), QColor(0xd9, 0x6a, 0x1f),
                                    QColor(0xff, 0xdd, 0xb0)};
    const QColor* stops = dark ? onDark : light;
    t = std::clamp(t, 0.0, 1.0) * 2.0;
    const int i = std::min(1, static_cast<int>(t));
    const double f = t - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

std::optional<job::WorkKind> idleKind(HeatmapMetric metric) {
    switch (metric) {
        case HeatmapMetric::IdleDataWait:
            return job::WorkKind::DataWait;
        case HeatmapMetric::IdleHostWork:
            return job::WorkKind::HostWork;
        case HeatmapMetric::IdleSynchronization:
            return job::WorkKind::Synchronization;
        case HeatmapMetric::IdleGarbageCollection:
            return job::WorkKind::GarbageCollection;
        case HeatmapMetric::IdleUnexplained:
            return job::WorkKind::Unexplained;
        default:
            return std::nullopt;
    }
}

QString ns(double value) {
    return QString::fromStdString(core::formatDuration(static_cast<core::DurationNs>(std::llround(value))));
}

}  // namespace

QString heatmapMetricName(HeatmapMetric metric) {
    if (const std::optional<job::WorkKind> kind = idleKind(metric)) {
        return QObject::tr("Idle: %1").arg(workKindLabel(*kind));
    }
    return metric == HeatmapMetric::StepTime ? QObject::tr("Step time") : QObject::tr("Collective wait");
}

HeatmapData buildHeatmapData(const job::JobReport& report, HeatmapMetric metric) {
    HeatmapData data;
    // Rows: loaded ranks and missing ones, by rank number.
    std::map<std::int32_t, int> rankToIndex;  // -1: missing
    for (std::size_t i = 0; i < report.ranks.size(); ++i) {
        if (report.ranks[i].summary) {
            rankToIndex[report.ranks[i].summary->rank] = static_cast<int>(i);
        }
    }
    for (std::int32_t missing : report.missingRanks) {
        rankToIndex.emplace(missing, -1);
    }
    std::vector<int> rowIndex;
    for (const auto& [rank, index] : rankToIndex) {
        const bool missing = index < 0;
        if (missing && !data.rowRank.empty() && data.rowMissing.back() &&
            data.rowLastRank.back() + 1 == rank) {
            data.rowLastRank.back() = rank;  // one row for a run of missing ranks
            continue;
        }
        data.rowRank.push_back(rank);
        data.rowLastRank.push_back(rank);
        data.rowMissing.push_back(missing);
        rowIndex.push_back(index);
    }
    for (const job::JobStep& step : report.steps) {
        data.colStep.push_back(step.number);
    }
    const int rows = data.rows();
    const int columns = data.columns();
    data.valuesNs.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns),
                         std::numeric_limits<double>::quiet_NaN());
    const std::optional<job::WorkKind> kind = idleKind(metric);
    for (int row = 0; row < rows; ++row) {
        const int index = rowIndex[static_cast<std::size_t>(row)];
        if (index < 0) {
            continue;
        }
        std::unordered_map<std::int64_t, const job::RankStep*> ownSteps;
        if (kind) {
            for (const job::RankStep& s : report.ranks[static_cast<std::size_t>(index)].summary->steps) {
                ownSteps.emplace(s.number, &s);
            }
        }
        for (int column = 0; column < columns; ++column) {
            const job::JobStep& step = report.steps[static_cast<std::size_t>(column)];
            const auto at = static_cast<std::size_t>(index);
            double value = std::numeric_limits<double>::quiet_NaN();
            const bool present = at < step.rankStepNs.size() && step.rankStepNs[at] >= 0;
            if (metric == HeatmapMetric::StepTime && present) {
                value = static_cast<double>(step.rankStepNs[at]);
            } else if (metric == HeatmapMetric::CollectiveWait && present && at < step.rankWaitNs.size()) {
                value = static_cast<double>(std::max<core::DurationNs>(0, step.rankWaitNs[at]));
            } else if (kind) {
                if (auto it = ownSteps.find(step.number); it != ownSteps.end()) {
                    value = static_cast<double>(it->second->workNs[static_cast<std::size_t>(*kind)]);
                }
            }
            data.valuesNs[static_cast<std::size_t>(row * columns + column)] = value;
        }
    }
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (double v : data.valuesNs) {
        if (!std::isnan(v)) {
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    if (std::isinf(low)) {
        low = high = 0;
    }
    // Step time: the scale starts at the fastest cell, where the differences are, and spans at least
    // kStepTimeMinRelativeSpan of it, so a colour step means a real slowdown. Waits start at 0.
    data.lowNs = metric == HeatmapMetric::StepTime ? low : 0.0;
    data.highNs =
        metric == HeatmapMetric::StepTime ? std::max(high, low * (1 + kStepTimeMinRelativeSpan)) : high;
    return data;
}

QString heatmapCellText(const job::JobReport& report, const HeatmapData& data, HeatmapMetric metric, int row,
                        int column) {
    if (row < 0 || row >= data.rows() || column < 0 || column >= data.columns() ||
        data.rowMissing[static_cast<std::size_t>(row)]) {
        return {};
    }
    const std::int32_t rank = data.rowRank[static_cast<std::size_t>(row)];
    const std::int64_t stepNumber = data.colStep[static_cast<std::size_t>(column)];
    QString text = QObject::tr("<b>Rank %1 · step #%2</b>").arg(rank).arg(stepNumber);
    const double value = data.value(row, column);
    if (std::isnan(value)) {
        return text + QObject::tr("<br/>This rank has no such step.");
    }
    // The median over the ranks that have this step, for the figure shown.
    std::vector<double> columnValues;
    for (int r = 0; r < data.rows(); ++r) {
        if (const double v = data.value(r, column); !std::isnan(v)) {
            columnValues.push_back(v);
        }
    }
    std::sort(columnValues.begin(), columnValues.end());
    const double median = columnValues[columnValues.size() / 2];
    text += QObject::tr("<br/>%1: %2")
                .arg(heatmapMetricName(metric), jobDuration(static_cast<core::DurationNs>(value)));
    if (median > 0 && columnValues.size() > 1) {
        text += QObject::tr(" (%1%2 % against the median rank's %3 in this step)")
                    .arg(value >= median ? QStringLiteral("+") : QString())
                    .arg((value - median) / median * 100, 0, 'f', 1)
                    .arg(jobDuration(static_cast<core::DurationNs>(median)));
    }
    const job::JobStep& step = report.steps[static_cast<std::size_t>(column)];
    std::size_t at = report.ranks.size();
    for (std::size_t i = 0; i < report.ranks.size(); ++i) {
        if (report.ranks[i].summary && report.ranks[i].summary->rank == rank) {
            at = i;
        }
    }
    if (metric != HeatmapMetric::StepTime && at < step.rankStepNs.size() && step.rankStepNs[at] >= 0) {
        text += QObject::tr("<br/>Step time: %1").arg(jobDuration(step.rankStepNs[at]));
    }
    if (metric != HeatmapMetric::CollectiveWait && at < step.rankWaitNs.size() && step.rankWaitNs[at] > 0) {
        text += QObject::tr("<br/>Waited on collectives: %1").arg(jobDuration(step.rankWaitNs[at]));
    }
    if (step.lastRank >= 0) {
        text += step.lastRank == rank
                    ? QObject::tr("<br/>This rank was last at the step's collectives (%1 late in all).")
                          .arg(jobDuration(step.lastLateNs))
                    : QObject::tr("<br/>Last at the step's collectives: rank %1 (%2 late in all).")
                          .arg(step.lastRank)
                          .arg(jobDuration(step.lastLateNs));
    }
    return text + QObject::tr("<br/><i>Double-click the row to open the rank.</i>");
}

RankStepHeatmap::RankStepHeatmap(QWidget* parent) : QAbstractScrollArea(parent) {
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFrameShape(QFrame::NoFrame);
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Base);
    verticalScrollBar()->setSingleStep(kMinRowPx * 4);
    setAccessibleName(tr("Step time heatmap"));
    setAccessibleDescription(
        tr("One row per rank, one column per step, shaded by the chosen figure; "
           "stragglers are marked in the gutter"));
}

void RankStepHeatmap::setDocument(JobDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    if (m_document) {
        connect(m_document, &JobDocument::reportAvailable, this, &RankStepHeatmap::rebuild);
        connect(m_document, &JobDocument::loadStarted, this, &RankStepHeatmap::rebuild);
        connect(m_document, &JobDocument::rankSelected, this, [this](int rank) {
            ensureRankVisible(rank);
            viewport()->update();
        });
    }
    rebuild();
}

void RankStepHeatmap::setMetric(HeatmapMetric metric) {
    if (metric != m_metric) {
        m_metric = metric;
        rebuild();
    }
}

void RankStepHeatmap::rebuild() {
    const auto report = m_document ? m_document->report() : nullptr;
    m_data = report ? buildHeatmapData(*report, m_metric) : HeatmapData{};
    m_straggler.assign(static_cast<std::size_t>(m_data.rows()), false);
    if (report) {
        for (const job::Straggler& s : report->stragglers) {
            if (const int row = rowOfRank(s.rank); row >= 0) {
                m_straggler[static_cast<std::size_t>(row)] = true;
            }
        }
    }
    m_image = QImage();
    if (m_data.rows() > 0 && m_data.columns() > 0) {
        m_image = QImage(m_data.columns(), m_data.rows(), QImage::Format_RGB32);
        const double span = m_data.highNs - m_data.lowNs;
        const ThemeColors colors = themeColors(palette());
        const QRgb missing = colors.header.rgb();
        for (int row = 0; row < m_data.rows(); ++row) {
            auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(row));
            for (int column = 0; column < m_data.columns(); ++column) {
                const double v = m_data.value(row, column);
                line[column] = std::isnan(v)
                                   ? missing
                                   : rampColor(span > 0 ? (v - m_data.lowNs) / span : 0.0, colors.dark).rgb();
            }
        }
    }
    updateScrollBar();
    viewport()->update();
}

QRect RankStepHeatmap::cellsRect() const {
    const QRect r = viewport()->rect();
    return QRect(kGutterPx, kHeaderPx, std::max(0, r.width() - kGutterPx - kRightPx),
                 std::max(0, r.height() - kHeaderPx - kLegendPx));
}

int RankStepHeatmap::rowHeight() const {
    if (m_data.rows() == 0) {
        return kMaxRowPx;
    }
    return std::clamp(cellsRect().height() / m_data.rows(), kMinRowPx, kMaxRowPx);
}

void RankStepHeatmap::updateScrollBar() {
    const int content = m_data.rows() * rowHeight();
    const int visible = cellsRect().height();
    verticalScrollBar()->setRange(0, std::max(0, content - visible));
    verticalScrollBar()->setPageStep(std::max(1, visible));
}

void RankStepHeatmap::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBar();
    // The selected rank (the straggler at first) stays in view when the layout settles.
    if (m_document != nullptr && m_document->selectedRank() >= 0) {
        ensureRankVisible(m_document->selectedRank());
    }
}

int RankStepHeatmap::rowOfRank(int rank) const {
    // The last row starting at or before `rank`, when it covers it.
    const auto it = std::upper_bound(m_data.rowRank.begin(), m_data.rowRank.end(), rank);
    if (it == m_data.rowRank.begin()) {
        return -1;
    }
    const auto row = static_cast<std::size_t>(it - m_data.rowRank.begin() - 1);
    return rank <= m_data.rowLastRank[row] ? static_cast<int>(row) : -1;
}

QString RankStepHeatmap::rowLabel(int row) const {
    const auto r = static_cast<std::size_t>(row);
    if (!m_data.rowMissing[r]) {
        return tr("rank %1").arg(m_data.rowRank[r]);
    }
    return m_data.rowLastRank[r] == m_data.rowRank[r]
               ? tr("%1 missing").arg(m_data.rowRank[r])
               : tr("%1–%2 missing").arg(m_data.rowRank[r]).arg(m_data.rowLastRank[r]);
}

int RankStepHeatmap::rowAt(int y) const {
    const QRect cells = cellsRect();
    if (y < cells.top() || y >= cells.bottom() + 1) {
        return -1;
    }
    const int row = (y - cells.top() + verticalScrollBar()->value()) / rowHeight();
    return row < m_data.rows() ? row : -1;
}

int RankStepHeatmap::columnAt(int x) const {
    const QRect cells = cellsRect();
    if (x < cells.left() || x > cells.right() || m_data.columns() == 0) {
        return -1;
    }
    const int column =
        static_cast<int>(static_cast<double>(x - cells.left()) * m_data.columns() / cells.width());
    return std::min(column, m_data.columns() - 1);
}

void RankStepHeatmap::ensureRankVisible(int rank) {
    const int row = rowOfRank(rank);
    if (row < 0) {
        return;
    }
    const int top = row * rowHeight();
    QScrollBar* bar = verticalScrollBar();
    const int visible = cellsRect().height();
    if (top < bar->value() || top + rowHeight() > bar->value() + visible) {
        // Centred, so the rows around it (its neighbours, its host) are in view too.
        bar->setValue(top + rowHeight() / 2 - visible / 2);
    }
}

void RankStepHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const QRect all = viewport()->rect();
    p.fillRect(all, palette().base());
    if (m_data.rows() == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(all, Qt::AlignCenter,
                   m_document && m_document->busy() ? tr("Loading the ranks…") : tr("No ranks to show"));
        return;
    }
    const QRect cells = cellsRect();
    const ThemeColors colors = themeColors(palette());
    const int rowPx = rowHeight();
    const int scroll = verticalScrollBar()->value();
    const int firstRow = std::max(0, scroll / rowPx);
    const int lastRow = std::min(m_data.rows() - 1, (scroll + cells.height()) / rowPx);
    const double colPx = static_cast<double>(cells.width()) / std::max(1, m_data.columns());
    const QFontMetrics fm(font());

    // Cells: the visible rows of the image, scaled (nearest pixel: no blending across ranks).
    p.save();
    p.setClipRect(cells);
    if (m_data.columns() > 0 && !m_image.isNull()) {
        const int y0 = cells.top() + firstRow * rowPx - scroll;
        const QRect target(cells.left(), y0, cells.width(), (lastRow - firstRow + 1) * rowPx);
        p.drawImage(target, m_image, QRect(0, firstRow, m_data.columns(), lastRow - firstRow + 1));
    }
    for (int row = firstRow; row <= lastRow; ++row) {
        if (m_data.rowMissing[static_cast<std::size_t>(row)]) {
            const QRect r(cells.left(), cells.top() + row * rowPx - scroll, cells.width(), rowPx);
            p.fillRect(r, QBrush(colors.mutedText, Qt::BDiagPattern));
        }
    }
    // Cell borders when cells are big enough to tell apart.
    if (rowPx >= 8 && colPx >= 8) {
        p.setPen(QPen(palette().color(QPalette::Base), 1));
        for (int column = 1; column < m_data.columns(); ++column) {
            const int x = cells.left() + static_cast<int>(column * colPx);
            p.drawLine(x, cells.top(), x, cells.bottom());
        }
        for (int row = firstRow; row <= lastRow + 1; ++row) {
            const int y = cells.top() + row * rowPx - scroll;
            p.drawLine(cells.left(), y, cells.right(), y);
        }
    }
    // The selected rank.
    const int selectedRow = m_document ? rowOfRank(m_document->selectedRank()) : -1;
    const bool outlineSelection = rowPx >= 8;  // thinner rows keep their colour: marked beside them
    if (selectedRow >= firstRow && selectedRow <= lastRow && outlineSelection) {
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(
            QRect(cells.left() + 1, cells.top() + selectedRow * rowPx - scroll, cells.width() - 2, rowPx));
    }
    p.restore();
    if (selectedRow >= firstRow && selectedRow <= lastRow && !outlineSelection) {
        const int y = cells.top() + selectedRow * rowPx - scroll + rowPx / 2;
        p.setPen(Qt::NoPen);
        p.setBrush(palette().color(QPalette::Highlight));
        const QPoint tip(cells.right() + 1, y);
        p.drawPolygon(QPolygon({tip, tip + QPoint(kRightPx - 1, -4), tip + QPoint(kRightPx - 1, 4)}));
    }

    // Gutter: rank labels where they fit (every k-th row otherwise); stragglers always marked and
    // labelled, their labels taking the place of the regular ones they would overlap.
    p.save();
    p.setClipRect(QRect(0, cells.top(), kGutterPx, cells.height()));
    const int labelEvery = std::max(1, (fm.height() + rowPx - 1) / rowPx);
    auto labelRect = [&](int row) {
        const int y = cells.top() + row * rowPx - scroll;
        // Centred on a row that is tall enough, else starting at its top.
        const int textY = rowPx >= fm.height() ? y + rowPx / 2 - fm.height() / 2 : y;
        return QRect(2, textY, kGutterPx - 10, fm.height());
    };
    std::vector<QRect> stragglerLabels;
    for (int row = firstRow; row <= lastRow; ++row) {
        if (m_straggler[static_cast<std::size_t>(row)]) {
            stragglerLabels.push_back(labelRect(row));
        }
    }
    for (int row = firstRow; row <= lastRow; ++row) {
        const int y = cells.top() + row * rowPx - scroll;
        const bool straggler = m_straggler[static_cast<std::size_t>(row)];
        const bool missing = m_data.rowMissing[static_cast<std::size_t>(row)];
        if (straggler) {
            p.fillRect(QRect(kGutterPx - 6, y, 4, std::max(2, rowPx)), colors.error);
        }
        const QRect r = labelRect(row);
        const bool covered = !straggler && std::any_of(stragglerLabels.begin(), stragglerLabels.end(),
                                                       [&](const QRect& s) { return s.intersects(r); });
        if ((row % labelEvery == 0 && !covered) || straggler) {
            QFont f = font();
            f.setBold(straggler || row == selectedRow);
            p.setFont(f);
            p.setPen(straggler ? colors.error
                     : missing ? palette().color(QPalette::PlaceholderText)
                               : palette().color(QPalette::Text));
            p.drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                       QFontMetrics(p.font()).elidedText(
                           straggler ? rowLabel(row) + QStringLiteral(" ▲") : rowLabel(row), Qt::ElideMiddle,
                           r.width()));
        }
    }
    p.restore();
    p.setFont(font());

    // Header: step numbers where they fit.
    p.setPen(palette().color(QPalette::Text));
    const int stepLabelPx = fm.horizontalAdvance(QStringLiteral("#0000000")) + 4;
    const int stepEvery = std::max(1, static_cast<int>(std::ceil(stepLabelPx / std::max(colPx, 1e-9))));
    for (int column = 0; column < m_data.columns(); column += stepEvery) {
        const QRect r(cells.left() + static_cast<int>(column * colPx), 0,
                      static_cast<int>(std::max(colPx * stepEvery, 1.0)), kHeaderPx);
        p.drawText(r, stepEvery == 1 ? Qt::AlignCenter : (Qt::AlignLeft | Qt::AlignVCenter),
                   QStringLiteral("#%1").arg(m_data.colStep[static_cast<std::size_t>(column)]));
    }
    p.drawText(QRect(0, 0, kGutterPx - 6, kHeaderPx), Qt::AlignRight | Qt::AlignVCenter, tr("step"));

    // Legend: the colour scale with its ends, and the missing-data swatches.
    const int legendY = all.height() - kLegendPx + 6;
    const int rampW = std::min(220, std::max(60, cells.width() / 3));
    for (int x = 0; x < rampW; ++x) {
        p.fillRect(QRect(cells.left() + x, legendY, 1, 12),
                   rampColor(static_cast<double>(x) / (rampW - 1), colors.dark));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(2, legendY - 2, kGutterPx - 10, 16), Qt::AlignRight | Qt::AlignVCenter,
               ns(m_data.lowNs));
    int x = cells.left() + rampW + 6;
    // A narrow spread (ranks within 1 % of each other) reads better as the difference.
    const double spread = m_data.highNs - m_data.lowNs;
    const QString high =
        spread > 0 && spread < 0.01 * m_data.highNs ? QStringLiteral("+") + ns(spread) : ns(m_data.highNs);
    p.drawText(QPoint(x, legendY + 11), high);
    x += fm.horizontalAdvance(high) + 16;
    p.fillRect(QRect(x, legendY, 12, 12), colors.header);
    p.drawText(QPoint(x + 16, legendY + 11), tr("no such step"));
    x += 16 + fm.horizontalAdvance(tr("no such step")) + 12;
    p.fillRect(QRect(x, legendY, 12, 12), QBrush(colors.mutedText, Qt::BDiagPattern));
    p.drawText(QPoint(x + 16, legendY + 11), tr("rank not loaded"));
    x += 16 + fm.horizontalAdvance(tr("rank not loaded")) + 12;
    p.fillRect(QRect(x, legendY, 4, 12), colors.error);
    p.drawText(QPoint(x + 8, legendY + 11), tr("straggler ▲"));  // marked by more than colour
}

void RankStepHeatmap::changeEvent(QEvent* event) {
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        rebuild();  // the cell image holds the ramp of the old palette
    }
}

bool RankStepHeatmap::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = rowAt(help->pos().y());
        const int column = columnAt(help->pos().x());
        if (row >= 0 && column >= 0) {
            const int rank = m_data.rowRank[static_cast<std::size_t>(row)];
            const int lastRank = m_data.rowLastRank[static_cast<std::size_t>(row)];
            const double v = m_data.value(row, column);
            QString text;
            if (m_data.rowMissing[static_cast<std::size_t>(row)]) {
                text = lastRank == rank ? tr("Rank %1 is part of the job but was not loaded").arg(rank)
                                        : tr("Ranks %1 to %2 are part of the job but were not loaded")
                                              .arg(rank)
                                              .arg(lastRank);
            } else {
                text = tr("Rank %1 · step %2\n%3: %4")
                           .arg(rank)
                           .arg(m_data.colStep[static_cast<std::size_t>(column)])
                           .arg(heatmapMetricName(m_metric), std::isnan(v) ? tr("no such step") : ns(v));
            }
            QToolTip::showText(help->globalPos(), text, viewport());
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void RankStepHeatmap::mousePressEvent(QMouseEvent* event) {
    const int row = rowAt(static_cast<int>(event->position().y()));
    if (row >= 0 && event->button() == Qt::LeftButton) {
        const int rank = m_data.rowRank[static_cast<std::size_t>(row)];
        if (m_document) {
            m_document->selectRank(rank);
        }
        emit rankClicked(rank);
        if (const int column = columnAt(static_cast<int>(event->position().x())); column >= 0) {
            emit cellClicked(row, column);
        }
    }
}

void RankStepHeatmap::mouseDoubleClickEvent(QMouseEvent* event) {
    const int row = rowAt(static_cast<int>(event->position().y()));
    if (row >= 0 && !m_data.rowMissing[static_cast<std::size_t>(row)]) {
        const int rank = m_data.rowRank[static_cast<std::size_t>(row)];
        emit rankActivated(rank);
        if (m_document) {
            m_document->openRank(rank);
        }
    }
}

void RankStepHeatmap::contextMenuEvent(QContextMenuEvent* event) {
    const int row = rowAt(event->pos().y());
    if (row >= 0 && m_document && !m_data.rowMissing[static_cast<std::size_t>(row)]) {
        const int rank = m_data.rowRank[static_cast<std::size_t>(row)];
        m_document->selectRank(rank);
        execRankMenu(*m_document, rank, event->globalPos(), this);
    }
}

}  // namespace chokepoint::ui
