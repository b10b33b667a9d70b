#include "ui/views/pages/FixesPage.h"

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

}  // namespace

FixesPage::FixesPage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_list = new QListWidget(split);
    m_list->setAccessibleName(tr("Fixes, best first"));
    m_list->setWordWrap(true);
    m_list->setSpacing(4);
    m_list->setMinimumWidth(260);
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_details = new QTextBrowser(right);
    m_details->setAccessibleName(tr("Fix details"));
    m_details->setOpenLinks(false);
    rightLayout->addWidget(m_details, 3);
    auto* codeBar = new QHBoxLayout;
    codeBar->addWidget(new QLabel(tr("Code change:"), right));
    codeBar->addStretch(1);
    m_showMe = new QPushButton(tr("Show me on the timeline"), right);
    m_copy = new QPushButton(tr("Copy"), right);
    codeBar->addWidget(m_showMe);
    codeBar->addWidget(m_copy);
    rightLayout->addLayout(codeBar);
    m_code = new QPlainTextEdit(right);
    m_code->setAccessibleName(tr("Code change"));
    m_code->setReadOnly(true);
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    rightLayout->addWidget(m_code, 2);
    split->addWidget(m_list);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    connect(m_list, &QListWidget::currentRowChanged, this, &FixesPage::showFix);
    connect(m_copy, &QPushButton::clicked, this, [this] { copySnippet(); });
    connect(m_showMe, &QPushButton::clicked, this, [this] { showEvidence(); });
    setReport(nullptr);
}

void FixesPage::setDocument(TraceDocument* document) {
    setDocumentShowingReport(document, [this](auto report) { setReport(std::move(report)); });
}

void FixesPage::setReport(std::shared_ptr<const analysis::AnalysisReport> report) {
    m_report = std::move(report);
    m_list->clear();
    if (!m_report) {
        m_summary->setText(tr("Open a trace to see what to change."));
        showFix(-1);
        return;
    }
    const auto& fixes = m_report->fixes.recommendations;
    const QString count = fixes.empty()       ? tr("No recommendation.")
                          : fixes.size() == 1 ? tr("1 recommendation.")
                                              : tr("%1 recommendations, best first.").arg(fixes.size());
    m_summary->setText(tr("<b>%1</b><br/>%2%3")
                           .arg(qs(m_report->headline), count)
                           .arg(m_report->fixes.nextStep.empty()
                                    ? QString()
                                    : QStringLiteral(" ") + qs(m_report->fixes.nextStep)));
    int rank = 1;
    for (const analysis::Recommendation& fix : fixes) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1. %2\n%3")
                .arg(rank++)
                .arg(QString::fromStdString(fix.title),
                     fix.sameGainAs.empty()
                         ? QString::fromStdString(fix.gain.summary.empty() ? fix.ruleId : fix.gain.summary)
                         : tr("the same time %1 removes: the gains do not add up")
                               .arg(QString::fromStdString(fix.sameGainAs))));
        item->setToolTip(QString::fromStdString(fix.evidence));
        m_list->addItem(item);
    }
    if (fixes.empty()) {
        showFix(-1);
    } else {
        m_list->setCurrentRow(0);
    }
}

int FixesPage::fixCount() const {
    return m_report ? static_cast<int>(m_report->fixes.recommendations.size()) : 0;
}

void FixesPage::selectFix(int index) {
    m_list->setCurrentRow(index);
}

int FixesPage::selectedFix() const {
    return m_list->currentRow();
}

void FixesPage::paletteChanged() {
    showFix(selectedFix());
}

void FixesPage::showFix(int index) {
    const bool valid = m_report && index >= 0 && index < fixCount();
    m_copy->setEnabled(valid);
    m_showMe->setEnabled(valid);
    if (!valid) {
        QString html;
        if (m_report) {
            const auto& decisions = m_report->fixes.decisions;
            const bool oneReason =
                !decisions.empty() &&
                std::all_of(decisions.begin(), decisions.end(), [&](const analysis::RuleDecision& d) {
                    return d.reason == decisions.front().reason;
                });
            if (oneReason) {
                // Every rule stepped aside for the same reason (no GPU work): say it once.
                html = tr("<p>No fix applies to this verdict: %1 (all %2 rules).</p>")
                           .arg(qs(decisions.front().reason))
                           .arg(decisions.size());
            } else {
                html = tr("<p>No fix applies to this verdict.</p>");
                html += QStringLiteral("<h3>%1</h3><ul>").arg(tr("Rules considered"));
                for (const analysis::RuleDecision& d : decisions) {
                    html += QStringLiteral("<li><b>%1 %2</b>: %3</li>")
                                .arg(qs(d.ruleId), qs(d.title), qs(d.reason));
                }
                html += QStringLiteral("</ul>");
            }
        }
        m_details->setHtml(html);
        m_code->clear();
        return;
    }
    const analysis::Recommendation& fix = m_report->fixes.recommendations[static_cast<std::size_t>(index)];
    const QString muted = cssColor(themeColors(palette()).mutedText);
    QString html = QStringLiteral("<h2>%1 <span style='color:%3'>(%2)</span></h2>")
                       .arg(qs(fix.title), qs(fix.ruleId), muted);
    html += tr("<p><b>Targets:</b> %1 — %2 of the step, iron-law term: %3</p>")
                .arg(bottleneckName(fix.target).toHtmlEscaped(), percentText(fix.targetShare),
                     QString::fromUtf8(analysis::toString(fix.term)).toHtmlEscaped());
    html += tr("<p><b>Expected gain:</b> %1%2</p>")
                // The summary opens with "at most:" for an upper bound already.
                .arg(qs(fix.gain.summary), fix.gain.upperBound && fix.gain.summary.rfind("at most", 0) != 0
                                               ? tr(" (upper bound)")
                                               : QString());
    if (!fix.sameGainAs.empty()) {
        html += tr("<p><b>The same time %1 removes:</b> both fixes end the same wait or work, so their gains "
                   "do not add up; apply the one that fits the cause you see, then re-profile.</p>")
                    .arg(qs(fix.sameGainAs));
    }
    if (!fix.gain.basis.empty()) {
        html += QStringLiteral("<p style='color:%2'>%1</p>").arg(qs(fix.gain.basis), muted);
    }
    if (!fix.gain.uncertainty.empty()) {
        html += tr("<p style='color:%2'><b>Uncertainty:</b> %1</p>").arg(qs(fix.gain.uncertainty), muted);
    }
    html += tr("<p><b>Evidence:</b> %1</p>").arg(qs(fix.evidence));
    html += tr("<p><b>Costs:</b> %1</p>").arg(qs(fix.costs));
    html += tr("<p><b>Risks:</b> %1</p>").arg(qs(fix.risks));
    if (!fix.companions.empty()) {
        html += tr("<p><b>Needs alongside:</b></p><ul>");
        for (const std::string& c : fix.companions) {
            html += QStringLiteral("<li>%1</li>").arg(qs(c));
        }
        html += QStringLiteral("</ul>");
    }
    if (!fix.references.empty()) {
        html += tr("<p style='color:%2'>References: %1</p>").arg(qs(fix.references), muted);
    }
    m_details->setHtml(html);
    m_code->setPlainText(QString::fromStdString(fix.pytorchChange));
}

QString FixesPage::copySnippet() {
    const QString text = m_code->toPlainText();
    if (!text.isEmpty()) {
        QApplication::clipboard()->setText(text);
    }
    return text;
}

core::TimeRange FixesPage::showEvidence() {
    const int index = selectedFix();
    if (!m_report || index < 0 || index >= fixCount()) {
        return {};
    }
    const analysis::Recommendation& fix = m_report->fixes.recommendations[static_cast<std::size_t>(index)];
    const core::TimeRange range = evidenceRange(*m_report, fix.target);
    if (m_document && !range.empty()) {
        m_document->showRange(range, tr("Evidence for %1").arg(QString::fromStdString(fix.title)));
        m_document->showPage(QStringLiteral("timeline"));
    }
    return range;
}

QString FixesPage::detailsText() const {
    return m_details->toPlainText();
}

}  // namespace chokepoint::ui
