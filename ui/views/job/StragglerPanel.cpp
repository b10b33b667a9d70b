#include "ui/views/job/StragglerPanel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "core/base/Format.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobText.h"

namespace chokepoint::ui {
namespace {

constexpr int kMaxLateStepsShown = 12;

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

}  // namespace

StragglerPanel::StragglerPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_choice = new QComboBox(this);
    m_choice->setAccessibleName(tr("Straggler shown"));
    setAccessibleName(tr("Stragglers"));
    m_choice->setVisible(false);
    m_cell = new QLabel(this);
    m_cell->setWordWrap(true);
    m_cell->setTextFormat(Qt::RichText);
    m_cell->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cell->setContentsMargins(4, 4, 4, 6);
    m_cell->setAccessibleName(tr("Heatmap cell"));
    m_cell->setVisible(false);
    layout->addWidget(m_cell);
    layout->addWidget(m_choice);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_body = new QLabel(scroll);
    m_body->setWordWrap(true);
    m_body->setTextFormat(Qt::RichText);
    m_body->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_body->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_body->setContentsMargins(4, 4, 4, 4);
    scroll->setWidget(m_body);
    layout->addWidget(scroll, 1);
    auto* buttons = new QHBoxLayout;
    m_showMe = new QPushButton(tr("Show me"), this);
    m_openRank = new QPushButton(tr("Open rank"), this);
    m_compare = new QPushButton(tr("Compare with median rank"), this);
    buttons->addWidget(m_showMe);
    buttons->addWidget(m_openRank);
    buttons->addWidget(m_compare);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    connect(m_choice, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && index != m_current) {
            showStraggler(index);
        }
    });
    connect(m_showMe, &QPushButton::clicked, this, [this] {
        if (m_document && m_document->report() && m_current >= 0) {
            const job::Straggler& s = m_document->report()->stragglers[static_cast<std::size_t>(m_current)];
            m_document->selectRank(s.rank);
            // The segment ends with its late arrival: link that collective's arrivals too.
            m_document->selectInstance(m_document->instanceNear(s.rank, s.showRange.endNs));
            m_document->showRange(s.showRange, s.rank);
        }
    });
    connect(m_openRank, &QPushButton::clicked, this, [this] {
        if (m_document && m_document->selectedRank() >= 0) {
            m_document->openRank(m_document->selectedRank());
        }
    });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        if (m_document && m_document->selectedRank() >= 0) {
            m_document->compareWithMedian(m_document->selectedRank());
        }
    });
    refresh();
}

void StragglerPanel::setDocument(JobDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    if (m_document) {
        connect(m_document, &JobDocument::reportAvailable, this, &StragglerPanel::refresh);
        connect(m_document, &JobDocument::loadStarted, this, &StragglerPanel::refresh);
        connect(m_document, &JobDocument::rankSelected, this, &StragglerPanel::updateButtons);
    }
    refresh();
}

void StragglerPanel::showCell(const QString& html) {
    m_cell->setText(html);
    m_cell->setVisible(!html.isEmpty());
}

QString StragglerPanel::cellText() const {
    return m_cell->isVisibleTo(this) ? m_cell->text() : QString();
}

void StragglerPanel::refresh() {
    const auto report = m_document ? m_document->report() : nullptr;
    m_current = -1;
    showCell({});  // a cell of the job that was shown before
    {
        const QSignalBlocker block(m_choice);
        m_choice->clear();
        if (report) {
            for (const job::Straggler& s : report->stragglers) {
                m_choice->addItem(
                    tr("Rank %1 — %2 late per step").arg(s.rank).arg(jobDuration(s.latePerStepNs)));
            }
        }
        m_choice->setVisible(report && report->stragglers.size() > 1);
    }
    if (!report) {
        m_body->setText(m_document && m_document->busy() ? tr("<i>Loading the ranks…</i>")
                                                         : tr("<i>No job open.</i>"));
        updateButtons();
        return;
    }
    if (report->stragglers.empty()) {
        m_body->setText(tr("<b>No straggler.</b> Every rank reaches the collectives within the noise "
                           "(%1 per step) of the median rank.<br/>Select a rank in the heatmap or on the "
                           "timeline to open it or compare it with the median rank.")
                            .arg(jobDuration(report->noiseNs)));
        updateButtons();
        return;
    }
    showStraggler(0);
}

void StragglerPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_current >= 0) {
        showStraggler(m_current);
    }
}

void StragglerPanel::showStraggler(int index) {
    const auto report = m_document ? m_document->report() : nullptr;
    if (!report || index < 0 || index >= static_cast<int>(report->stragglers.size())) {
        return;
    }
    m_current = index;
    {
        const QSignalBlocker block(m_choice);
        m_choice->setCurrentIndex(index);
    }
    const job::Straggler& s = report->stragglers[static_cast<std::size_t>(index)];
    QString html;
    // Its own lateness; where its whole arrival lateness (the rank table's) is larger, that too.
    const QString inAll = jobDuration(s.arrivalLatePerStepNs) != jobDuration(s.latePerStepNs) &&
                                  s.arrivalLatePerStepNs > s.latePerStepNs
                              ? tr("; %1 in all, with what it inherits from waiting for others")
                                    .arg(jobDuration(s.arrivalLatePerStepNs))
                              : QString();
    html += tr("<p style='margin:0'><span style='font-size:13pt; color:%5'><b>Rank %1 is late</b></span>"
               "<br/>%2 after the median arrival per step from its own work (%3 over the window)%6; "
               "last at %4 of the collectives.</p>")
                .arg(s.rank)
                .arg(jobDuration(s.latePerStepNs), jobDuration(s.lateNs),
                     QString::fromStdString(core::formatPercent(s.shareLast, 0)))
                .arg(cssColor(themeColors(palette()).error), inAll);
    html += tr("<p><b>Cause:</b> %1</p>").arg(stragglerCauseText(s.cause).toHtmlEscaped());

    // Excess work over the median rank before the collectives it was last at.
    QStringList excess;
    for (std::size_t k = 0; k < job::kWorkKindCount; ++k) {
        const core::DurationNs ns = s.excessNs[k];
        if (ns != 0) {
            excess << tr("<tr><td>%1</td><td align='right' style='padding-left:12px'>%2%3</td></tr>")
                          .arg(workKindLabel(static_cast<job::WorkKind>(k)).toHtmlEscaped(),
                               ns > 0 ? QStringLiteral("+") : QStringLiteral("−"),
                               jobDuration(ns > 0 ? ns : -ns));
        }
    }
    if (s.excessKernelCount != 0) {
        excess << tr("<tr><td>kernels</td><td align='right' style='padding-left:12px'>%1%2</td></tr>")
                      .arg(s.excessKernelCount > 0 ? QStringLiteral("+") : QString())
                      .arg(s.excessKernelCount);
    }
    if (!excess.isEmpty()) {
        const int rankIndex = m_document->indexOfRank(s.rank);
        const int timesLast =
            rankIndex >= 0 ? report->ranks[static_cast<std::size_t>(rankIndex)].timesLast : 0;
        html +=
            tr("<p style='margin-bottom:0'>Compared with the median rank, summed over the work before the "
               "%1 it was last at:</p><table cellspacing='0' cellpadding='1'>%2</table>")
                .arg(timesLast == 1 ? tr("collective") : tr("%1 collectives").arg(timesLast),
                     excess.join(QString()));
    }
    if (!s.topHostFrames.empty()) {
        QStringList frames;
        for (const job::FrameTime& f : s.topHostFrames) {
            frames << tr("<tr><td><tt>%1</tt></td><td align='right' style='padding-left:12px'>%2</td></tr>")
                          .arg(esc(f.name), jobDuration(f.selfNs));
        }
        html += tr("<p style='margin-bottom:0'>Its heaviest host frames there:</p><table cellspacing='0' "
                   "cellpadding='1'>%1</table>")
                    .arg(frames.join(QString()));
    }
    if (!s.evidence.empty()) {
        html += QStringLiteral("<ul style='margin-left:-20px'>");
        for (const std::string& e : s.evidence) {
            html += QStringLiteral("<li>%1</li>").arg(esc(e));
        }
        html += QStringLiteral("</ul>");
    }
    if (s.whatIfSavingPerStepNs > 0) {
        html += tr("<p><b>If it arrived with the median rank</b>, the job's step would be %1 shorter.</p>")
                    .arg(jobDuration(s.whatIfSavingPerStepNs));
    }
    if (!s.lateSteps.empty()) {
        QStringList steps;
        for (std::size_t i = 0; i < s.lateSteps.size() && i < kMaxLateStepsShown; ++i) {
            steps << QStringLiteral("#%1").arg(s.lateSteps[i]);
        }
        if (s.lateSteps.size() > kMaxLateStepsShown) {
            steps << tr("and %1 more").arg(s.lateSteps.size() - kMaxLateStepsShown);
        }
        html += tr("<p>Last arriver in steps %1.</p>").arg(steps.join(QStringLiteral(", ")));
    }
    m_body->setText(html);
    if (m_document->selectedRank() < 0) {
        m_document->selectRank(s.rank);
    }
    updateButtons();
}

void StragglerPanel::updateButtons() {
    const auto report = m_document ? m_document->report() : nullptr;
    const int rank = m_document ? m_document->selectedRank() : -1;
    const bool loaded = report && m_document->indexOfRank(rank) >= 0;
    const bool fullTrace = loaded && m_document->rankHasFullTrace(rank);
    const int median = m_document ? m_document->medianRank() : -1;
    m_showMe->setEnabled(report && m_current >= 0);
    m_showMe->setToolTip(tr("Show the straggler's late segment on the job timeline"));
    m_openRank->setText(loaded ? tr("Open rank %1").arg(rank) : tr("Open rank"));
    m_openRank->setEnabled(fullTrace);
    m_compare->setText(median >= 0 ? tr("Compare with rank %1 (the median)").arg(median)
                                   : tr("Compare with median rank"));
    m_compare->setEnabled(fullTrace && median >= 0 && median != rank && m_document->rankHasFullTrace(median));
    const QString why =
        !loaded      ? tr("Select a loaded rank in the heatmap or on the timeline")
        : !fullTrace ? tr("Rank %1 was read from a summary (.cpsum): it has no full trace to open").arg(rank)
                     : QString();
    m_openRank->setToolTip(why.isEmpty() ? tr("Open rank %1's trace in its own window").arg(rank) : why);
    m_compare->setToolTip(
        why.isEmpty()
            ? (median == rank ? tr("Rank %1 is the median rank").arg(rank)
                              : tr("Compare rank %1 with rank %2 on the Compare page").arg(rank).arg(median))
            : why);
}

QString StragglerPanel::text() const {
    return m_body->text();
}

}  // namespace chokepoint::ui
