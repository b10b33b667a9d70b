#include "ui/views/job/JobPage.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "core/base/Format.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/job/CollectivesTableModel.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobText.h"
#include "ui/views/job/JobTimelineWidget.h"
#include "ui/views/job/RankStepHeatmap.h"
#include "ui/views/job/StragglerPanel.h"

namespace chokepoint::ui {
namespace {

constexpr int kHeaderProblemsShown = 2;

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

QLabel* richLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

}  // namespace

JobPage::JobPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    m_header = richLabel(this);
    layout->addWidget(m_header);

    auto* vertical = new QSplitter(Qt::Vertical, this);
    auto* top = new QSplitter(Qt::Horizontal, vertical);
    auto* heatBox = new QWidget(top);
    auto* heatLayout = new QVBoxLayout(heatBox);
    heatLayout->setContentsMargins(0, 0, 0, 0);
    auto* selectorRow = new QHBoxLayout;
    auto* title = new QLabel(tr("<b>Ranks × steps</b>"), heatBox);
    m_metric = new QComboBox(heatBox);
    m_metric->setAccessibleName(tr("Heatmap figure"));
    for (int m = 0; m < kHeatmapMetricCount; ++m) {
        m_metric->addItem(heatmapMetricName(static_cast<HeatmapMetric>(m)), m);
    }
    selectorRow->addWidget(title);
    selectorRow->addStretch(1);
    selectorRow->addWidget(m_metric);
    heatLayout->addLayout(selectorRow);
    m_heatmap = new RankStepHeatmap(heatBox);
    heatLayout->addWidget(m_heatmap, 1);
    m_stragglers = new StragglerPanel(top);
    top->addWidget(heatBox);
    top->addWidget(m_stragglers);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);

    m_tabs = new QTabWidget(vertical);
    m_tabs->setDocumentMode(true);
    m_timeline = new JobTimelineWidget(m_tabs);
    m_tabs->addTab(m_timeline, tr("Timeline"));
    m_collectives = new CollectivesTableModel(this);
    m_collectivesProxy = new QSortFilterProxyModel(this);
    m_collectivesProxy->setSourceModel(m_collectives);
    m_collectivesProxy->setSortRole(SortRole);
    m_collectivesView = new QTableView(m_tabs);
    m_collectivesView->setAccessibleName(tr("Collectives across ranks"));
    m_collectivesView->setModel(m_collectivesProxy);
    m_collectivesView->setSortingEnabled(true);
    m_collectivesView->sortByColumn(CollectivesTableModel::WaitColumn, Qt::DescendingOrder);
    m_collectivesView->verticalHeader()->hide();
    m_collectivesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_collectivesView->horizontalHeader()->setStretchLastSection(true);
    m_tabs->addTab(m_collectivesView, tr("Collectives"));
    auto* verdictScroll = new QScrollArea(m_tabs);
    verdictScroll->setWidgetResizable(true);
    verdictScroll->setFrameShape(QFrame::NoFrame);
    m_verdict = richLabel(verdictScroll);
    m_verdict->setContentsMargins(6, 6, 6, 6);
    verdictScroll->setWidget(m_verdict);
    m_tabs->addTab(verdictScroll, tr("Verdict and fixes"));

    vertical->addWidget(top);
    vertical->addWidget(m_tabs);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(vertical, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_heatmap->setMetric(static_cast<HeatmapMetric>(m_metric->itemData(index).toInt()));
        m_stragglers->showCell({});  // the cell shown was of the other figure
    });
    connect(m_heatmap, &RankStepHeatmap::cellClicked, this, [this](int row, int column) {
        if (const auto report = m_document ? m_document->report() : nullptr) {
            m_stragglers->showCell(
                heatmapCellText(*report, m_heatmap->data(), m_heatmap->metric(), row, column));
        }
    });
    refresh();
}

void JobPage::setDocument(JobDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    m_document = document;
    m_heatmap->setDocument(document);
    m_stragglers->setDocument(document);
    m_timeline->setDocument(document);
    if (m_document) {
        connect(m_document, &JobDocument::reportAvailable, this, &JobPage::refresh);
        connect(m_document, &JobDocument::loadStarted, this, &JobPage::refresh);
        connect(m_document, &JobDocument::progress, this, [this](int done, int total) {
            if (!m_document->report()) {
                m_header->setText(
                    total > 0 ? tr("<b>Loading the job…</b> %1 of %2 inputs summarised").arg(done).arg(total)
                              : tr("<b>Loading the job…</b>"));
            }
        });
        connect(m_document, &JobDocument::requestShowRange, this,
                [this] { m_tabs->setCurrentWidget(m_timeline); });
    }
    refresh();
}

void JobPage::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_document != nullptr) {
        refresh();
    }
}

void JobPage::refresh() {
    const auto report = m_document ? m_document->report() : nullptr;
    m_collectives->setReport(report);
    m_collectivesView->resizeColumnsToContents();
    if (!report) {
        m_header->setText(m_document && m_document->busy()
                              ? tr("<b>Loading the job…</b>")
                              : tr("<b>No job open.</b> Use File ▸ Open Job… to open "
                                   "several rank traces or a folder of them."));
        m_verdict->clear();
        return;
    }
    const job::JobReport& r = *report;
    // With a straggler, the ranks' wait tells them apart; without one, their step times.
    // Only for a new report: a refresh of the same one (a palette change) keeps the user's choice.
    if (m_openedReport != report.get()) {
        m_openedReport = report.get();
        const HeatmapMetric opening =
            r.stragglers.empty() ? HeatmapMetric::StepTime : HeatmapMetric::CollectiveWait;
        m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(opening)));
    }
    QString html;
    const ThemeColors colors = themeColors(palette());
    const QString headline =
        r.verdict.headline.empty() ? jobBottleneckText(r.verdict.bottleneck) : esc(r.verdict.headline);
    html += QStringLiteral("<span style='font-size:14pt'><b>%1</b></span>").arg(headline);
    // The bottleneck's name, unless the headline already says it.
    const QString bottleneckName = jobBottleneckText(r.verdict.bottleneck);
    const QString bottleneckWhat = bottleneckName.section(QLatin1Char(':'), -1).trimmed();
    if (r.verdict.bottleneck != job::JobBottleneck::Undetermined &&
        !headline.contains(bottleneckWhat, Qt::CaseInsensitive)) {
        html += QStringLiteral(" &nbsp;<span style='color:%2'>(%1)</span>")
                    .arg(bottleneckName.toHtmlEscaped(), cssColor(colors.mutedText));
    }
    html += QStringLiteral("<br/>");
    if (!r.notOneJob.empty()) {
        html += QStringLiteral("<span style='color:%2'><b>%1</b></span><br/>")
                    .arg(tr("Not one job? ") + esc(r.notOneJob), cssColor(colors.error));
    }
    const int world = std::max<int>(r.worldSize, static_cast<int>(r.ranks.size()));
    html += tr("<b>%1 of %2 ranks</b> loaded").arg(r.ranks.size()).arg(world);
    if (!r.missingRanks.empty()) {
        html += tr(" — <span style='color:%2'>missing %1: the job is incomplete</span>")
                    .arg(rankRangesText(r.missingRanks), cssColor(colors.error));
    }
    if (!r.rankIdentityNote.empty()) {
        html += QStringLiteral(" · ") + esc(r.rankIdentityNote);
    }
    html += QStringLiteral(" · ") +
            (r.clock.estimated
                 ? tr("clock aligned: %1").arg(esc(r.clock.note))
                 : tr("clocks not aligned: %1")
                       .arg(r.clock.note.empty() ? tr("too few matched collectives") : esc(r.clock.note)));
    html += QStringLiteral("<br/>");
    if (r.whatIf.measuredStepNs > 0) {
        html += tr("Job step <b>%1</b>").arg(jobDuration(r.whatIf.measuredStepNs));
        if (r.whatIf.slowdownPerStepNs > 0) {
            html += tr("; <b>%1</b> if every rank arrived with the median (late arrivals cost %2, %3)")
                        .arg(jobDuration(r.whatIf.idealStepNs), jobDuration(r.whatIf.slowdownPerStepNs),
                             QString::fromStdString(
                                 core::formatPercent(static_cast<double>(r.whatIf.slowdownPerStepNs) /
                                                     static_cast<double>(r.whatIf.measuredStepNs))));
        } else {
            html += tr("; no time lost to late arrivals");
        }
        html += tr(" · %1 collective calls matched").arg(r.collectives.size());
    }
    if (!r.problems.empty()) {
        QStringList lines;
        for (std::size_t i = 0; i < r.problems.size() && i < kHeaderProblemsShown; ++i) {
            lines << esc(r.problems[i].message);
        }
        if (r.problems.size() > kHeaderProblemsShown) {
            lines << tr("and %1 more (Verdict and fixes tab)").arg(r.problems.size() - kHeaderProblemsShown);
        }
        html += tr("<br/><span style='color:%2'>%n input(s) could not be used: %1</span>", nullptr,
                   static_cast<int>(r.problems.size()))
                    .arg(lines.join(QStringLiteral("; ")), cssColor(colors.error));
    }
    m_header->setText(html);

    // Verdict tab: evidence, fixes, the what-if's basis, warnings and problems in full.
    QString v;
    v += QStringLiteral("<h3>%1</h3>").arg(headline);
    if (!r.verdict.rankVerdict.empty()) {
        v += tr("<p>Most ranks' own verdict: <b>%1</b></p>").arg(esc(r.verdict.rankVerdict));
    }
    if (!r.verdict.evidence.empty()) {
        v += tr("<p><b>Evidence</b></p><ul>");
        for (const std::string& e : r.verdict.evidence) {
            v += QStringLiteral("<li>%1</li>").arg(esc(e));
        }
        v += QStringLiteral("</ul>");
    }
    if (!r.verdict.fixes.empty()) {
        v += tr("<p><b>Fixes</b></p><ol>");
        for (const job::JobFix& f : r.verdict.fixes) {
            v += QStringLiteral("<li><b>%1</b>").arg(esc(f.title));
            if (f.rank >= 0) {
                v += tr(" (rank %1)").arg(f.rank);
            }
            if (!f.detail.empty()) {
                v += QStringLiteral("<br/>") + esc(f.detail);
            }
            if (f.predictedStepNs > 0) {
                v += tr("<br/>Predicted job step: <b>%1</b>").arg(jobDuration(f.predictedStepNs));
                if (!f.basis.empty()) {
                    v += QStringLiteral(" — <i>%1</i>").arg(esc(f.basis));
                }
            }
            v += QStringLiteral("</li>");
        }
        v += QStringLiteral("</ol>");
    }
    if (!r.whatIf.basis.empty()) {
        v += tr("<p><b>Step time without late arrivals:</b> %1</p>").arg(esc(r.whatIf.basis));
    }
    if (!r.warnings.empty()) {
        v += tr("<p><b>Warnings</b></p><ul>");
        for (const std::string& w : r.warnings) {
            v += QStringLiteral("<li>%1</li>").arg(esc(w));
        }
        v += QStringLiteral("</ul>");
    }
    if (!r.problems.empty()) {
        v += tr("<p><b>Inputs not used</b></p><ul>");
        for (const job::RankProblem& p : r.problems) {
            v += QStringLiteral("<li>%1</li>").arg(esc(p.message));
        }
        v += QStringLiteral("</ul>");
    }
    m_verdict->setText(v);
}

QString JobPage::headerText() const {
    return m_header->text();
}

QString JobPage::verdictText() const {
    return m_verdict->text();
}

}  // namespace chokepoint::ui
