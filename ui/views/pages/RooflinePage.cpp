#include "ui/views/pages/RooflinePage.h"

#include <algorithm>
#include <optional>

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

#include "core/base/Format.h"
#include "core/base/KernelName.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/pages/DiagnosisPage.h"

namespace chokepoint::ui {

RooflinePage::RooflinePage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    m_caption = new QLabel(this);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_chart = new RooflineChart(split);
    m_points = new QStandardItemModel(0, 7, this);
    m_points->setHorizontalHeaderLabels({tr("Point"), tr("Kind"), tr("Class"), tr("Intensity (FLOP/B)"),
                                         tr("Achieved"), tr("Of its roof"), tr("Costed time share")});
    // A point holds only the kernels whose FLOPs and bytes are known: its share of all kernel time
    // can be far below its class's share on the Diagnosis page (GEMM 0.4 % here, 29 % there).
    m_points->horizontalHeaderItem(6)->setToolTip(
        tr("Share of all kernel time in the kernels this point holds: only kernels whose FLOPs and bytes "
           "are known (recorded shapes or counters) are placed on the roofline"));
    m_table = makeSortableTable(m_points, split);
    m_table->setAccessibleName(tr("Roofline points"));
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({700, 220});
    layout->addWidget(split, 1);
    connect(m_chart, &RooflineChart::pointClicked, this, &RooflinePage::onPointClicked);
    setReport(nullptr);
}

void RooflinePage::setDocument(TraceDocument* document) {
    setDocumentShowingReport(document, [this](auto report) { setReport(std::move(report)); });
}

void RooflinePage::paletteChanged() {
    if (m_report) {
        setReport(m_report);  // the caption's and the table's colours
    }
}

void RooflinePage::setReport(std::shared_ptr<const analysis::AnalysisReport> report) {
    m_report = std::move(report);
    m_pointIndex.clear();
    m_points->removeRows(0, m_points->rowCount());
    if (!m_report) {
        RooflineChartData empty;
        empty.emptyMessage = tr("Open a trace to see its roofline");
        m_chart->setData(empty);
        m_caption->setText(tr("No trace analysed yet."));
        return;
    }
    m_chart->setData(rooflineFromReport(*m_report, &m_pointIndex));
    const analysis::RooflineResult& roofline = m_report->metrics.roofline;
    m_caption->setText(
        tr("Arithmetic intensity against achieved throughput from op-shape FLOP and byte estimates. Rings: "
           "kernel "
           "classes; discs: top kernels and ops, sized by their share of kernel time. Below the ridge a "
           "kernel is "
           "memory-bound; right of it, compute-bound. Click a point to select its kernel on the timeline."));
    // Measured GPU metrics (Nsight Systems GPU_METRICS, PM sampling) decide compute- vs memory-bound
    // where present: show them next to the estimates.
    const analysis::DiagnosisSignals& sig = m_report->overallSignals;
    QStringList measured;
    const auto addMeasured = [&](const QString& label, const std::optional<double>& value) {
        if (value) {
            measured << label.arg(percentText(*value));
        }
    };
    addMeasured(tr("SMs active %1"), sig.smActiveFraction);
    addMeasured(tr("tensor pipes active %1"), sig.tensorActiveFraction);
    addMeasured(tr("DRAM throughput %1 of peak"), sig.dramActiveFraction);
    addMeasured(tr("PCIe throughput %1 of peak"), sig.pcieActiveFraction);
    if (!measured.isEmpty()) {
        m_caption->setText(m_caption->text() +
                           tr(" <b>Measured by the GPU's counters:</b> %1; these, not the "
                              "estimates, decide compute- versus memory-bound.")
                               .arg(measured.join(QStringLiteral(", "))));
    } else if (sig.compositionKnown && sig.unclassifiedKernelShare >= m_report->config.secondaryMinFraction) {
        m_caption->setText(
            m_caption->text() +
            tr(" %1 of kernel time is in kernels with no class, shapes or counters (largest: "
               "%2): they cannot be placed here; record shapes or GPU metrics.")
                .arg(percentText(sig.unclassifiedKernelShare))
                .arg(QString::fromStdString(
                         analysis::evidenceName(core::shortKernelName(sig.topUnclassifiedKernel), 60))
                         .toHtmlEscaped()));  // a whole C++ template filled 8 lines
    }
    const auto above = std::count_if(roofline.points.begin(), roofline.points.end(),
                                     [](const analysis::RooflinePoint& p) { return p.aboveRoof; });
    if (above > 0) {
        const QString count =
            above == 1 ? tr("1 point sits above its roof") : tr("%1 points sit above their roof").arg(above);
        m_caption->setText(m_caption->text() +
                           tr(" <b style='color:%1'>%2 (red ×):</b> the shape-based estimate is off "
                              "(more FLOPs counted than ran, as with Winograd convolutions, or more "
                              "bytes than reached memory), not the hardware beaten; the tooltip gives "
                              "the likely reason.")
                               .arg(cssColor(themeColors(palette()).error), count));
    }
    for (int dot = 0; dot < static_cast<int>(m_pointIndex.size()); ++dot) {
        const analysis::RooflinePoint& p =
            roofline.points[static_cast<std::size_t>(m_pointIndex[static_cast<std::size_t>(dot)])];
        auto item = [](const QString& text, const QVariant& sort) {
            auto* i = new QStandardItem(text);
            i->setData(sort, SortRole);
            i->setToolTip(text);
            return i;
        };
        // Above its roof the estimate is off: say so instead of a bare "> 100 %".
        const QColor errorInk = themeColors(palette()).error;
        auto roofItem = [&item, errorInk](const analysis::RooflinePoint& point) {
            if (point.attainableFlopsPerSecond <= 0) {
                return item(tr("—"), -1.0);
            }
            QStandardItem* i = item(point.aboveRoof ? tr("above its roof: estimate off")
                                                    : smallPercentText(point.fractionOfAttainable),
                                    point.fractionOfAttainable);
            if (point.aboveRoof) {
                i->setForeground(errorInk);
                i->setToolTip(QString::fromStdString(point.aboveRoofReason));
            }
            return i;
        };
        const QString kind = p.kind == analysis::RooflinePoint::Kind::KernelClass ? tr("class")
                             : p.kind == analysis::RooflinePoint::Kind::Kernel    ? tr("kernel")
                                                                                  : tr("op");
        m_points->appendRow(
            {item(QString::fromStdString(p.label), QString::fromStdString(p.label)), item(kind, kind),
             item(kernelClassName(p.kernelClass), kernelClassName(p.kernelClass)),
             item(QString::number(p.arithmeticIntensity, 'g', 3), p.arithmeticIntensity),
             item(QString::fromStdString(core::formatFlopsPerSecond(p.achievedFlopsPerSecond)),
                  p.achievedFlopsPerSecond),
             roofItem(p), item(percentText(p.timeShare), p.timeShare)});
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(0, 360);
}

void RooflinePage::onPointClicked(int dotIndex) {
    if (!m_report || dotIndex < 0 || dotIndex >= static_cast<int>(m_pointIndex.size())) {
        return;
    }
    const analysis::RooflinePoint& p =
        m_report->metrics.roofline
            .points[static_cast<std::size_t>(m_pointIndex[static_cast<std::size_t>(dotIndex)])];
    if (p.kernels.empty()) {
        return;
    }
    const core::KernelId kernel = p.kernels.front();  // the longest instance
    emit kernelSelected(kernel);
    if (m_document) {
        m_document->selectKernel(kernel);
    }
}

}  // namespace chokepoint::ui
