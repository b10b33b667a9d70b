#pragma once
// RooflinePage: the report's roofline (metrics.roofline) on log-log axes: the matched device's
// memory roof and compute roofs per precision with ridge points, one point per kernel class
// (rings), top kernel and top op (discs) sized by time share, and the seed's reference
// intensities. Hover shows a point's figures; a click selects its longest kernel through
// TraceDocument::selectKernel. A table lists the same points.

#include <memory>
#include <vector>

#include "ui/base/Page.h"
#include "ui/base/document/AnalysisReportQt.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace chokepoint::ui {

class RooflineChart;

class RooflinePage : public Page {
    Q_OBJECT
public:
    explicit RooflinePage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("roofline"); }
    QString title() const override { return tr("Roofline"); }
    void setDocument(TraceDocument* document) override;

    void setReport(std::shared_ptr<const analysis::AnalysisReport> report);
    RooflineChart* chart() const { return m_chart; }
    QStandardItemModel* pointsModel() const { return m_points; }

signals:
    // The kernel a click selected (also sent to the document).
    void kernelSelected(chokepoint::core::KernelId kernel);

protected:
    void paletteChanged() override;

private:
    void onPointClicked(int dotIndex);

    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::vector<int> m_pointIndex;  // dot → metrics.roofline.points index
    RooflineChart* m_chart = nullptr;
    QLabel* m_caption = nullptr;
    QStandardItemModel* m_points = nullptr;
    QTableView* m_table = nullptr;
};

}  // namespace chokepoint::ui
