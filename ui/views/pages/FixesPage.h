#pragma once
// FixesPage: the report's recommended fixes (FixPlan), ranked. For the selected fix: what it
// targets and its share of the step, the evidence, the expected gain and how it was computed,
// costs, risks, required companions and the code change, which "Copy" puts on the clipboard.
// "Show me" asks the timeline (TraceDocument::showRange) to show the evidence. Rules that were
// considered but not shown are listed with the reason.

#include <memory>

#include "ui/base/Page.h"
#include "ui/base/document/AnalysisReportQt.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace chokepoint::ui {

class FixesPage : public Page {
    Q_OBJECT
public:
    explicit FixesPage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("fixes"); }
    QString title() const override { return tr("Fixes"); }
    void setDocument(TraceDocument* document) override;

    void setReport(std::shared_ptr<const analysis::AnalysisReport> report);
    int fixCount() const;
    void selectFix(int index);
    int selectedFix() const;
    // Copies the selected fix's code to the clipboard; returns the text copied.
    QString copySnippet();
    // Emits the evidence range of the selected fix to the document; returns it.
    core::TimeRange showEvidence();
    QString detailsText() const;

protected:
    void paletteChanged() override;

private:
    void showFix(int index);

    std::shared_ptr<const analysis::AnalysisReport> m_report;
    QLabel* m_summary = nullptr;
    QListWidget* m_list = nullptr;
    QTextBrowser* m_details = nullptr;
    QPlainTextEdit* m_code = nullptr;
    QPushButton* m_copy = nullptr;
    QPushButton* m_showMe = nullptr;
};

}  // namespace chokepoint::ui
