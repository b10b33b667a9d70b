#include "ui/views/job/JobTimelineWidget.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/Format.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobRankMenu.h"
#include "ui/views/job/JobText.h"

namespace chokepoint::ui {
namespace {

constexpr int kGutterPx = 84;
constexpr int kAxisPx = 22;
constexpr int kLegendPx = 20;
constexpr int kClickSlopPx = 4;
constexpr double kShowRangeMargin = 0.15;
// Minimum visible span, so zooming in stops at something readable.
constexpr double kMinSpanNs = 1'000;

// Collectives not matched across ranks (their peers were not loaded) are drawn hollow: a faint
// fill inside an outline of the kind's colour, which stays visible on a dark step band (a faint
// fill alone all but vanished there).
constexpr int kUnmatchedAlpha = 60;

// One colour per collective kind (core's normalised names, SummarizeRank.h's collectiveKind).
QColor kindColor(const std::string& kind) {
    static const std::pair<const char*, QColor> kColors[] = {
        {"AllReduce", QColor(0x1f, 0x77, 0xb4)},     {"AllGather", QColor(0x2c, 0xa0, 0x2c)},
        {"ReduceScatter", QColor(0xff, 0x7f, 0x0e)}, {"AllToAll", QColor(0x17, 0xbe, 0xcf)},
        {"SendRecv", QColor(0x94, 0x67, 0xbd)},      {"Broadcast", QColor(0x8c, 0x56, 0x4b)},
        {"Reduce", QColor(0xbc, 0xbd, 0x22)},        {"Barrier", QColor(0x7f, 0x7f, 0x7f)},
    };
    for (const auto& [name, color] : kColors) {
        if (kind == name) {
            return color;
        }
    }
    return QColor(0xe3, 0x77, 0xc2);
}

// The waiting part of a collective: its colour, washed towards the background.
QColor waitFill(const ThemeColors& colors, const QColor& color) {
    return colors.dark ? color.darker(200) : color.lighter(160);
}

// Alternating step bands: two faint tints of the accent over the background.
std::pair<QColor, QColor> stepBandColors(const ThemeColors& colors) {
    return {blend(colors.background, colors.accent, colors.dark ? 0.10 : 0.09),
            blend(colors.background, colors.accent, colors.dark ? 0.20 : 0.17)};
}

// "1-2-5" tick spacing giving about `targetTicks` ticks over `spanNs`.
double tickStepNs(double spanNs, int targetTicks) {
    const double raw = spanNs / std::max(1, targetTicks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * magnitude >= raw) {
            return m * magnitude;
        }
    }
    return 10 * magnitude;
}

const job::CollectiveArrival* arrivalOf(const job::CollectiveInstance& instance, std::int32_t rank) {
    for (const job::CollectiveArrival& a : instance.arrivals) {
        if (a.rank == rank) {
            return &a;
        }
    }
    return nullptr;
}

}  // namespace

JobTimelineWidget::JobTimelineWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setAccessibleName(tr("Job timeline"));
    setAccessibleDescription(tr("One lane per rank on the job clock: steps and collectives, waits hatched"));
    m_lanes = new QScrollBar(Qt::Vertical, this);
    connect(m_lanes, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
}

void JobTimelineWidget::setDocument(JobDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    if (m_document) {
        connect(m_document, &JobDocument::reportAvailable, this, &JobTimelineWidget::rebuild);
        connect(m_document, &JobDocument::loadStarted, this, &JobTimelineWidget::rebuild);
        connect(m_document, &JobDocument::rankSelected, this, [this](int rank) {
            ensureRankVisible(rank);
            update();
        });
        connect(m_document, &JobDocument::instanceSelected, this, qOverload<>(&QWidget::update));
        connect(m_document, &JobDocument::requestShowRange, this, &JobTimelineWidget::showRange);
    }
    rebuild();
}

void JobTimelineWidget::rebuild() {
    const auto report = m_document ? m_document->report() : nullptr;
    m_full = {};
    m_kinds.clear();
    if (report) {
        for (const job::JobRank& jr : report->ranks) {
            if (!jr.summary) {
                continue;
            }
            for (const job::RankCollective& c : jr.summary->collectives) {
                if (std::find(m_kinds.begin(), m_kinds.end(), c.kind) == m_kinds.end()) {
                    m_kinds.push_back(c.kind);
                }
            }
        }
        std::sort(m_kinds.begin(), m_kinds.end());
        core::TimestampNs lo = std::numeric_limits<core::TimestampNs>::max();
        core::TimestampNs hi = std::numeric_limits<core::TimestampNs>::min();
        for (const job::JobRank& jr : report->ranks) {
            if (jr.summary && !jr.summary->window.empty()) {
                lo = std::min(lo, jr.summary->window.startNs - jr.clockOffsetNs);
                hi = std::max(hi, jr.summary->window.endNs - jr.clockOffsetNs);
            }
        }
        if (lo < hi) {
            m_full = {lo, hi};
        }
    }
    showAll();
    updateScrollBar();
}

int JobTimelineWidget::lanesHeight() const {
    return std::max(1, height() - kAxisPx - kLegendPx);
}

QRect JobTimelineWidget::plotRect() const {
    const int bar = m_lanes->isVisible() ? m_lanes->sizeHint().width() : 0;
    return QRect(kGutterPx, kAxisPx, std::max(1, width() - kGutterPx - bar - 4), std::max(1, lanesHeight()));
}

int JobTimelineWidget::laneHeight() const {
    const auto report = m_document ? m_document->report() : nullptr;
    const int lanes = report ? static_cast<int>(report->ranks.size()) : 0;
    if (lanes == 0) {
        return kMaxLanePx;
    }
    return std::clamp((lanesHeight()) / lanes, kMinLanePx, kMaxLanePx);
}

void JobTimelineWidget::updateScrollBar() {
    const auto report = m_document ? m_document->report() : nullptr;
    const int lanes = report ? static_cast<int>(report->ranks.size()) : 0;
    const int content = lanes * laneHeight();
    const int visible = lanesHeight();
    m_lanes->setRange(0, std::max(0, content - visible));
    m_lanes->setPageStep(std::max(1, visible));
    m_lanes->setSingleStep(laneHeight());
    m_lanes->setVisible(content > visible);
    const int w = m_lanes->sizeHint().width();
    m_lanes->setGeometry(width() - w, kAxisPx, w, std::max(0, lanesHeight()));
}

void JobTimelineWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateScrollBar();
    // The selected rank (the straggler at first) stays in view when the layout settles.
    if (m_document != nullptr && m_document->selectedRank() >= 0) {
        ensureRankVisible(m_document->selectedRank());
    }
}

core::TimeRange JobTimelineWidget::visibleRange() const {
    return {static_cast<core::TimestampNs>(std::floor(m_startNs)),
            static_cast<core::TimestampNs>(std::ceil(m_endNs))};
}

void JobTimelineWidget::setVisibleRange(core::TimeRange range) {
    if (range.empty()) {
        return;
    }
    m_startNs = static_cast<double>(range.startNs);
    m_endNs = std::max(static_cast<double>(range.endNs), m_startNs + kMinSpanNs);
    update();
}

void JobTimelineWidget::showAll() {
    if (m_full.empty()) {
        m_startNs = 0;
        m_endNs = 1;
        update();
        return;
    }
    setVisibleRange(m_full);
}

void JobTimelineWidget::showRange(core::TimeRange range, int rank) {
    if (!range.empty()) {
        const double margin = static_cast<double>(range.durationNs()) * kShowRangeMargin;
        m_startNs = static_cast<double>(range.startNs) - margin;
        m_endNs = std::max(static_cast<double>(range.endNs) + margin, m_startNs + kMinSpanNs);
    }
    ensureRankVisible(rank);
    update();
}

void JobTimelineWidget::ensureRankVisible(int rank) {
    const int index = m_document ? m_document->indexOfRank(rank) : -1;
    if (index >= 0) {
        const int top = index * laneHeight();
        const int visible = lanesHeight();
        if (top < m_lanes->value() || top + laneHeight() > m_lanes->value() + visible) {
            m_lanes->setValue(top - visible / 2);
        }
    }
}

double JobTimelineWidget::xOf(core::TimestampNs jobNs) const {
    const QRect plot = plotRect();
    return plot.left() + (static_cast<double>(jobNs) - m_startNs) / (m_endNs - m_startNs) * plot.width();
}

double JobTimelineWidget::nsAt(double x) const {
    const QRect plot = plotRect();
    return m_startNs + (x - plot.left()) / plot.width() * (m_endNs - m_startNs);
}

int JobTimelineWidget::laneTop(int rankIndex) const {
    return kAxisPx + rankIndex * laneHeight() - m_lanes->value();
}

int JobTimelineWidget::laneAt(int y) const {
    const auto report = m_document ? m_document->report() : nullptr;
    if (!report || y < kAxisPx || y >= kAxisPx + lanesHeight()) {
        return -1;
    }
    const int lane = (y - kAxisPx + m_lanes->value()) / laneHeight();
    return lane < static_cast<int>(report->ranks.size()) ? lane : -1;
}

std::pair<int, int> JobTimelineWidget::collectiveAt(QPoint pos) const {
    const auto report = m_document ? m_document->report() : nullptr;
    const int lane = laneAt(pos.y());
    if (!report || lane < 0 || pos.x() < plotRect().left()) {
        return {-1, -1};
    }
    const job::JobRank& jr = report->ranks[static_cast<std::size_t>(lane)];
    if (!jr.summary) {
        return {-1, -1};
    }
    const double slopNs = kClickSlopPx * (m_endNs - m_startNs) / plotRect().width();
    const double t = nsAt(pos.x()) + static_cast<double>(jr.clockOffsetNs);  // rank clock
    const auto& own = jr.summary->collectives;
    auto it = std::upper_bound(
        own.begin(), own.end(), t + slopNs,
        [](double v, const job::RankCollective& c) { return v < static_cast<double>(c.startNs); });
    // The nearest collective covering t (within the slop), looking back from the first one after it.
    int best = -1;
    double bestDistance = slopNs;
    for (int back = 0; back < 16 && it != own.begin(); ++back) {
        --it;
        const double s = static_cast<double>(it->startNs);
        const double e = static_cast<double>(it->endNs);
        const double distance = t < s ? s - t : (t > e ? t - e : 0.0);
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = static_cast<int>(it - own.begin());
            if (distance == 0) {
                break;
            }
        }
    }
    return best >= 0 ? std::pair{lane, best} : std::pair{-1, -1};
}

void JobTimelineWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const auto report = m_document ? m_document->report() : nullptr;
    if (!report || report->ranks.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   m_document && m_document->busy() ? tr("Loading the ranks…") : tr("No ranks to show"));
        return;
    }
    const QRect plot = plotRect();
    const int laneH = laneHeight();
    const int lanes = static_cast<int>(report->ranks.size());
    const int first = std::max(0, m_lanes->value() / laneH);
    const int last = std::min(lanes - 1, (m_lanes->value() + plot.height()) / laneH);
    p.save();
    p.setClipRect(QRect(0, kAxisPx, width(), plot.height()));
    for (int lane = first; lane <= last; ++lane) {
        paintLane(p, plot, lane, laneTop(lane), laneH);
    }
    paintInstance(p, plot);
    p.restore();
    paintAxis(p, plot);
    paintLegend(p, *report);
}

void JobTimelineWidget::paintLegend(QPainter& p, const job::JobReport& report) {
    // The collective kinds on the lanes, then what the hatching and the lighter boxes mean.
    (void)report;
    const int top = height() - kLegendPx;
    p.fillRect(QRect(0, top, width(), kLegendPx), palette().window());
    const QFontMetrics fm(font());
    int x = 6;
    const int y = top + (kLegendPx - 10) / 2;
    const ThemeColors colors = themeColors(palette());
    auto item = [&](const QColor& color, Qt::BrushStyle style, const QString& text) {
        p.fillRect(QRect(x, y, 16, 10),
                   style == Qt::SolidPattern || style == Qt::NoBrush ? color : waitFill(colors, color));
        if (style == Qt::NoBrush) {  // hollow: as unmatched collectives are drawn
            p.setPen(QPen(QColor(color.red(), color.green(), color.blue()), 1.0));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(x + 0.5, y + 0.5, 15, 9));
        } else if (style != Qt::SolidPattern) {
            p.fillRect(QRect(x, y, 16, 10), QBrush(color, style));
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPoint(x + 20, y + 9), text);
        x += 20 + fm.horizontalAdvance(text) + 14;
    };
    for (const std::string& kind : m_kinds) {
        item(colors.fill(kindColor(kind)), Qt::SolidPattern, QString::fromStdString(kind));
    }
    item(colors.mutedText, Qt::BDiagPattern, tr("waiting for the last arriver"));
    QColor unmatched = colors.mutedText;
    unmatched.setAlpha(kUnmatchedAlpha);
    item(unmatched, Qt::NoBrush, tr("faint, in its kind's colour: not matched across ranks"));
    item(stepBandColors(colors).second, Qt::SolidPattern, tr("step"));
    // The hint only where it fits: cut at the window's edge it read as a broken sentence.
    const QString hint = tr("click a collective to link its arrivals across ranks");
    if (x + fm.horizontalAdvance(hint) <= width() - 4) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QPoint(x, y + 9), hint);
    }
}

void JobTimelineWidget::paintAxis(QPainter& p, const QRect& plot) {
    p.fillRect(QRect(0, 0, width(), kAxisPx), palette().window());
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(4, 0, kGutterPx - 8, kAxisPx), Qt::AlignLeft | Qt::AlignVCenter, tr("job clock"));
    const double span = m_endNs - m_startNs;
    const double step = tickStepNs(span, std::max(2, plot.width() / 110));
    const double origin = static_cast<double>(m_full.startNs);
    const double firstTick = origin + std::ceil((m_startNs - origin) / step) * step;
    for (double t = firstTick; t <= m_endNs; t += step) {
        const int x = static_cast<int>(std::lround(plot.left() + (t - m_startNs) / span * plot.width()));
        p.drawLine(x, kAxisPx - 5, x, kAxisPx);
        p.drawText(QRect(x + 3, 0, 100, kAxisPx - 2), Qt::AlignLeft | Qt::AlignVCenter,
                   jobDuration(static_cast<core::DurationNs>(std::llround(t - origin))));
    }
    p.drawLine(0, kAxisPx - 1, width(), kAxisPx - 1);
}

void JobTimelineWidget::paintLane(QPainter& p, const QRect& plot, int rankIndex, int top, int height) {
    const job::JobReport& report = *m_document->report();
    const job::JobRank& jr = report.ranks[static_cast<std::size_t>(rankIndex)];
    if (!jr.summary) {
        return;
    }
    const job::RankSummary& summary = *jr.summary;
    const bool selected = summary.rank == m_document->selectedRank();
    bool straggler = false;
    for (const job::Straggler& s : report.stragglers) {
        straggler = straggler || s.rank == summary.rank;
    }
    const QRect lane(0, top, width(), height);
    const ThemeColors colors = themeColors(palette());
    if (selected) {
        p.fillRect(lane, blend(colors.background, colors.accent, 0.3));
    } else if (rankIndex % 2 == 1) {
        p.fillRect(lane, palette().color(QPalette::AlternateBase));
    }
    // Gutter label.
    QFont f = font();
    f.setBold(straggler || selected);
    if (height < 14) {
        f.setPointSizeF(std::max(6.0, f.pointSizeF() * height / 14.0));
    }
    p.setFont(f);
    p.setPen(straggler ? colors.error : colors.text);
    p.drawText(QRect(4, top, kGutterPx - 8, height), Qt::AlignLeft | Qt::AlignVCenter,
               straggler ? tr("rank %1 ▲").arg(summary.rank) : tr("rank %1").arg(summary.rank));
    p.setFont(font());

    p.save();
    p.setClipRect(QRect(plot.left(), top, plot.width(), height), Qt::IntersectClip);
    const double offset = static_cast<double>(jr.clockOffsetNs);
    const double scale = plot.width() / (m_endNs - m_startNs);
    auto x = [&](core::TimestampNs rankNs) {
        return plot.left() + (static_cast<double>(rankNs) - offset - m_startNs) * scale;
    };
    // Steps: alternating bands with their number where it fits.
    const auto [stepA, stepB] = stepBandColors(colors);
    const QFontMetrics fm(font());
    std::vector<std::pair<QRectF, QString>> stepLabels;  // drawn over the collectives
    for (std::size_t i = 0; i < summary.steps.size(); ++i) {
        const job::RankStep& s = summary.steps[i];
        const double x0 = x(s.range.startNs);
        const double x1 = x(s.range.endNs);
        if (x1 < plot.left() || x0 > plot.right()) {
            continue;
        }
        const QRectF band(x0, top + 1, std::max(1.0, x1 - x0), height - 2);
        p.fillRect(band, i % 2 == 0 ? stepA : stepB);
        const QString label = QStringLiteral("#%1").arg(s.number);
        if (band.width() > fm.horizontalAdvance(label) + 8 && height >= fm.height()) {
            const double left = std::max(band.left(), static_cast<double>(plot.left()));
            stepLabels.emplace_back(QRectF(left + 2, band.center().y() - fm.height() / 2.0,
                                           fm.horizontalAdvance(label) + 4, fm.height()),
                                    label);
        }
    }
    // Collectives: solid transfer, hatched wait; sub-pixel kernels share a pixel column.
    const double t0 = m_startNs + offset;
    const auto& own = summary.collectives;
    auto it = std::lower_bound(own.begin(), own.end(), t0, [](const job::RankCollective& c, double t) {
        return static_cast<double>(c.startNs) < t;
    });
    for (int back = 0; back < 8 && it != own.begin(); ++back) {
        --it;
    }
    const int boxTop = top + std::max(2, height / 4);
    const int boxHeight = std::max(2, height - 2 * std::max(2, height / 4));
    int lastPixel = std::numeric_limits<int>::min();
    const int selectedInstance = m_document->selectedInstance();
    for (; it != own.end(); ++it) {
        const double x0 = x(it->startNs);
        if (x0 > plot.right()) {
            break;
        }
        const double x1 = x(it->endNs);
        if (x1 < plot.left()) {
            continue;
        }
        const int px = static_cast<int>(std::floor(x0));
        if (x1 - x0 < 1.0 && px == lastPixel) {
            continue;
        }
        lastPixel = px;
        const QRectF box(x0, boxTop, std::max(1.0, x1 - x0), boxHeight);
        const int instance = m_document->instanceOf(rankIndex, static_cast<int>(it - own.begin()));
        QColor color = colors.fill(kindColor(it->kind));
        if (instance < 0) {
            color.setAlpha(kUnmatchedAlpha);
        }
        const job::CollectiveArrival* arrival =
            instance >= 0 ? arrivalOf(report.collectives[static_cast<std::size_t>(instance)], summary.rank)
                          : nullptr;
        if (arrival && arrival->waitNs > 0 && box.width() >= 3) {
            const double waitPx = std::min(box.width(), static_cast<double>(arrival->waitNs) * scale);
            p.fillRect(QRectF(box.left(), box.top(), waitPx, box.height()), waitFill(colors, color));
            p.fillRect(QRectF(box.left(), box.top(), waitPx, box.height()), QBrush(color, Qt::BDiagPattern));
            p.fillRect(QRectF(box.left() + waitPx, box.top(), box.width() - waitPx, box.height()), color);
        } else {
            p.fillRect(box, color);
        }
        if (instance < 0 && box.width() >= 3) {
            p.setPen(QPen(colors.fill(kindColor(it->kind)), 1.0));
            p.setBrush(Qt::NoBrush);
            p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
        }
        if (instance >= 0 && instance == selectedInstance) {
            p.setPen(QPen(palette().color(QPalette::Text), 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(box.adjusted(-1, -1, 1, 1));
        }
    }
    for (const auto& [rect, label] : stepLabels) {
        QColor under = colors.background;
        under.setAlpha(190);
        p.fillRect(rect, under);
        p.setPen(colors.text);
        p.drawText(rect, Qt::AlignCenter, label);
    }
    p.restore();
}

void JobTimelineWidget::paintInstance(QPainter& p, const QRect& plot) {
    const int selected = m_document->selectedInstance();
    if (selected < 0) {
        return;
    }
    const job::JobReport& report = *m_document->report();
    const job::CollectiveInstance& instance = report.collectives[static_cast<std::size_t>(selected)];
    // Arrivals lane by lane (lanes are by rank number, as arrivals are).
    QPolygonF line;
    QPointF lastPoint;
    bool haveLast = false;
    const int laneH = laneHeight();
    for (const job::CollectiveArrival& a : instance.arrivals) {
        const int lane = m_document->indexOfRank(a.rank);
        if (lane < 0) {
            continue;
        }
        const QPointF point(xOf(a.startNs), laneTop(lane) + laneH / 2.0);
        line << point;
        if (a.rank == instance.lastRank) {
            lastPoint = point;
            haveLast = true;
        }
    }
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setClipRect(QRect(plot.left(), kAxisPx, plot.width(), plot.height()));
    const ThemeColors colors = themeColors(palette());
    const QColor lastArriver = colors.error;
    if (haveLast) {
        const int lane = m_document->indexOfRank(instance.lastRank);
        QColor tint = lastArriver;
        tint.setAlpha(40);
        p.fillRect(QRect(plot.left(), laneTop(lane), plot.width(), laneH), tint);
    }
    p.setPen(QPen(palette().color(QPalette::Text), 1.5));
    p.drawPolyline(line);
    p.setBrush(palette().color(QPalette::Text));
    for (const QPointF& point : line) {
        p.drawEllipse(point, 2.5, 2.5);
    }
    if (haveLast) {
        p.setPen(QPen(lastArriver, 2));
        p.setBrush(lastArriver);
        p.drawEllipse(lastPoint, 4.5, 4.5);
        const QString label = tr("last: rank %1, %2 after the median arrival · skew %3")
                                  .arg(instance.lastRank)
                                  .arg(jobDuration(instance.lastLateNs), jobDuration(instance.skewNs));
        const QFontMetrics fm(font());
        const double labelW = fm.horizontalAdvance(label) + 8;
        // Right of the marker, or left of it when it would leave the plot.
        const double left =
            lastPoint.x() + 8 + labelW > plot.right() ? lastPoint.x() - 8 - labelW : lastPoint.x() + 8;
        const QRectF box(left, lastPoint.y() - fm.height() / 2.0 - 2, labelW, fm.height() + 4);
        p.setPen(Qt::NoPen);
        QColor under = colors.background;
        under.setAlpha(230);
        p.setBrush(under);
        p.drawRoundedRect(box, 3, 3);
        p.setPen(lastArriver);
        p.drawText(box, Qt::AlignCenter, label);
    }
    p.restore();
}

void JobTimelineWidget::zoomAround(double factor, double x) {
    const double anchor = nsAt(x);
    double span = std::max(kMinSpanNs, (m_endNs - m_startNs) / factor);
    const double fullSpan = static_cast<double>(std::max<core::DurationNs>(m_full.durationNs(), 1));
    span = std::min(span, fullSpan * 4);
    const double f = (anchor - m_startNs) / (m_endNs - m_startNs);
    m_startNs = anchor - f * span;
    m_endNs = m_startNs + span;
    update();
}

void JobTimelineWidget::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier || event->position().x() < kGutterPx) {
        m_lanes->setValue(m_lanes->value() - static_cast<int>(steps * 3 * laneHeight()));
    } else {
        zoomAround(std::pow(1.25, steps), event->position().x());
    }
    event->accept();
}

void JobTimelineWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    m_pressPos = event->position().toPoint();
    m_pressStartNs = m_startNs;
    m_pressScroll = m_lanes->value();
    m_dragging = false;
}

void JobTimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    if (!(event->buttons() & Qt::LeftButton)) {
        return;
    }
    const QPoint delta = event->position().toPoint() - m_pressPos;
    if (!m_dragging && delta.manhattanLength() < kClickSlopPx) {
        return;
    }
    m_dragging = true;
    const double span = m_endNs - m_startNs;
    m_startNs = m_pressStartNs - delta.x() * span / plotRect().width();
    m_endNs = m_startNs + span;
    m_lanes->setValue(m_pressScroll - delta.y());
    update();
}

void JobTimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || m_dragging || !m_document || !m_document->report()) {
        m_dragging = false;
        return;
    }
    const QPoint pos = event->position().toPoint();
    const int lane = laneAt(pos.y());
    if (lane < 0) {
        return;
    }
    m_document->selectRank(m_document->report()->ranks[static_cast<std::size_t>(lane)].summary->rank);
    const auto [rankIndex, collective] = collectiveAt(pos);
    m_document->selectInstance(rankIndex >= 0 ? m_document->instanceOf(rankIndex, collective) : -1);
}

void JobTimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    const int lane = laneAt(static_cast<int>(event->position().y()));
    if (lane >= 0 && event->position().x() < kGutterPx && m_document) {
        m_document->openRank(m_document->report()->ranks[static_cast<std::size_t>(lane)].summary->rank);
    }
}

bool JobTimelineWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_document && m_document->report()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [lane, index] = collectiveAt(help->pos());
        if (lane >= 0) {
            const job::JobReport& report = *m_document->report();
            const job::JobRank& jr = report.ranks[static_cast<std::size_t>(lane)];
            const job::RankCollective& c = jr.summary->collectives[static_cast<std::size_t>(index)];
            QString text = tr("Rank %1 · %2").arg(jr.summary->rank).arg(QString::fromStdString(c.kind));
            if (c.sizeBytes >= 0) {
                text += QStringLiteral(" · ") +
                        QString::fromStdString(core::formatBytes(static_cast<double>(c.sizeBytes)));
            }
            text += tr("\nduration %1").arg(jobDuration(c.endNs - c.startNs));
            const int instance = m_document->instanceOf(lane, index);
            if (instance >= 0) {
                const job::CollectiveInstance& ci = report.collectives[static_cast<std::size_t>(instance)];
                if (const job::CollectiveArrival* a = arrivalOf(ci, jr.summary->rank)) {
                    text += tr(" · waited %1 for the last arriver").arg(jobDuration(a->waitNs));
                }
                text += tr("\nskew %1 · last rank %2").arg(jobDuration(ci.skewNs)).arg(ci.lastRank);
            } else {
                text += tr("\nnot matched across ranks");
            }
            QToolTip::showText(help->globalPos(), text, this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

void JobTimelineWidget::contextMenuEvent(QContextMenuEvent* event) {
    const int lane = laneAt(event->pos().y());
    if (lane >= 0 && m_document) {
        const int rank = m_document->report()->ranks[static_cast<std::size_t>(lane)].summary->rank;
        m_document->selectRank(rank);
        execRankMenu(*m_document, rank, event->globalPos(), this);
    }
}

void JobTimelineWidget::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && m_document) {
        m_document->selectInstance(-1);
    } else if (event->key() == Qt::Key_0) {
        showAll();
    } else {
        QWidget::keyPressEvent(event);
    }
}

}  // namespace chokepoint::ui
