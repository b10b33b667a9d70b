// Full tables (issue 15, item 3): the diagnosis page lists every kernel and every op of a real
// trace (the bundled ResNet-50 sample), not a top 20 or 50; the filter box matches full kernel
// names; the kernel column shows short names with the full name in the tooltip and the details
// line; the name column takes the room the others leave; the tables grow with the window. The JSON
// report carries every kernel and op too.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include "core/base/KernelName.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/models/TopKernelsModel.h"
#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/ReportWriters.h"
#pragma pop_macro("signals")
#include "ui/views/pages/DiagnosisPage.h"

namespace chokepoint::ui {
namespace {

struct RealReport {
    std::shared_ptr<const core::TraceModel> model;
    std::shared_ptr<const analysis::AnalysisReport> report;
};

// The bundled real sample (samples/real, part of the repository).
const RealReport& resnetReport() {
    static const RealReport loaded = [] {
        RealReport r;
        auto trace = core::loadTrace(CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz");
        if (!trace.ok()) {
            ADD_FAILURE() << trace.error().message;
            return r;
        }
        r.model = std::make_shared<const core::TraceModel>(std::move(trace.value()));
        auto analysed = analysis::analyzeTrace(r.model);
        if (!analysed.ok()) {
            ADD_FAILURE() << analysed.error().message;
            return r;
        }
        r.report = analysed.value();
        return r;
    }();
    return loaded;
}

QSortFilterProxyModel* proxyOf(QTableView* view) {
    return qobject_cast<QSortFilterProxyModel*>(view->model());
}

class FullTablesTest : public ::testing::Test {
protected:
    void SetUp() override {
        testutils::guiApp();
        ASSERT_NE(resnetReport().report, nullptr);
    }
};

TEST_F(FullTablesTest, EveryKernelAndOpIsListed) {
    const RealReport& r = resnetReport();
    // The sample has more kernels than the old limit (20); its 22 ops are below the old op limit
    // (50), see OpsBeyondTheOldLimitAreListed for that.
    ASSERT_GT(r.report->metrics.kernels.kernels.size(), 20u);
    DiagnosisPage page;
    page.setReport(r.report, r.model);
    QAbstractItemModelTester kernels(page.topKernelsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester ops(page.topOpsModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(page.topKernelsModel()->rowCount(), static_cast<int>(r.report->metrics.kernels.kernels.size()));
    EXPECT_EQ(page.topOpsModel()->rowCount(), static_cast<int>(r.report->metrics.kernels.ops.size()));
    EXPECT_EQ(page.kernelView()->model()->rowCount(), page.topKernelsModel()->rowCount());
    // The rows keep the report's order: by total time, longest first.
    const QModelIndex first = page.topKernelsModel()->index(0, TopKernelsModel::TotalColumn);
    const QModelIndex last =
        page.topKernelsModel()->index(page.topKernelsModel()->rowCount() - 1, TopKernelsModel::TotalColumn);
    EXPECT_GE(first.data(SortRole).toDouble(), last.data(SortRole).toDouble());
}

TEST_F(FullTablesTest, OpsBeyondTheOldLimitAreListed) {
    // A recommendation model with many launching ops (FBGEMM, Adam, NCCL).
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-trace-diff-control__control.json.gz");
    auto trace = core::loadTrace(path);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    auto model = std::make_shared<const core::TraceModel>(std::move(trace.value()));
    auto analysed = analysis::analyzeTrace(model);
    ASSERT_TRUE(analysed.ok()) << analysed.error().message;
    const auto report = analysed.value();
    ASSERT_GT(report->metrics.kernels.ops.size(), 50u);
    DiagnosisPage page;
    page.setReport(report, model);
    EXPECT_EQ(page.topOpsModel()->rowCount(), static_cast<int>(report->metrics.kernels.ops.size()));
    EXPECT_EQ(page.topKernelsModel()->rowCount(), static_cast<int>(report->metrics.kernels.kernels.size()));
    page.resize(1280, 800);
    const QImage image = testutils::renderWidget(page, QSize(1280, 800));
    testutils::saveIfRequested(image, QStringLiteral("full-tables-control"));
    EXPECT_GT(testutils::distinctColours(image), 20);
}

TEST_F(FullTablesTest, KernelColumnShowsShortNamesWithTheFullNameBehind) {
    const RealReport& r = resnetReport();
    DiagnosisPage page;
    page.setReport(r.report, r.model);
    TopKernelsModel* model = page.topKernelsModel();
    int shortened = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex name = model->index(row, TopKernelsModel::NameColumn);
        const QString full = name.data(FullTextRole).toString();
        EXPECT_EQ(full, model->fullNameAt(row));
        EXPECT_EQ(name.data().toString(), QString::fromStdString(core::shortKernelName(full.toStdString())));
        EXPECT_LE(name.data().toString().size(), full.size());
        // The tooltip is the full name, broken into lines at commas.
        EXPECT_EQ(name.data(Qt::ToolTipRole).toString().remove(QLatin1Char('\n')), full);
        shortened += name.data().toString() != full ? 1 : 0;
    }
    EXPECT_GT(shortened, 0);  // the sample's at::native kernels carry template arguments

    // Clicking a row puts its full name in the details line under the table.
    page.resize(1280, 800);
    page.show();
    const QModelIndex firstShort = [&] {
        for (int row = 0; row < page.kernelView()->model()->rowCount(); ++row) {
            const QModelIndex i = page.kernelView()->model()->index(row, TopKernelsModel::NameColumn);
            if (i.data().toString() != i.data(FullTextRole).toString()) {
                return i;
            }
        }
        return QModelIndex();
    }();
    ASSERT_TRUE(firstShort.isValid());
    EXPECT_TRUE(page.kernelDetailsText().isEmpty());
    page.kernelView()->setCurrentIndex(firstShort);
    EXPECT_EQ(page.kernelDetailsText(), firstShort.data(FullTextRole).toString());
}

TEST_F(FullTablesTest, FilterBoxesMatchFullNames) {
    const RealReport& r = resnetReport();
    DiagnosisPage page;
    page.setReport(r.report, r.model);
    auto* kernelFilter = page.findChild<QLineEdit*>(QStringLiteral("kernelFilter"));
    auto* opFilter = page.findChild<QLineEdit*>(QStringLiteral("opFilter"));
    ASSERT_NE(kernelFilter, nullptr);
    ASSERT_NE(opFilter, nullptr);
    QSortFilterProxyModel* kernels = proxyOf(page.kernelView());
    const int all = kernels->rowCount();

    // "sum_functor" only appears inside nested template arguments, which the short names fold away.
    int expected = 0;
    for (const analysis::TopKernel& k : r.report->kernelsByName) {
        expected +=
            QString::fromStdString(k.name).contains(QLatin1String("sum_functor"), Qt::CaseInsensitive);
    }
    ASSERT_GT(expected, 0);
    QTest::keyClicks(kernelFilter, QStringLiteral("sum_functor"));
    EXPECT_EQ(kernels->rowCount(), expected);
    for (int row = 0; row < kernels->rowCount(); ++row) {
        EXPECT_FALSE(kernels->index(row, 0).data().toString().contains(QLatin1String("sum_functor")));
    }
    kernelFilter->clear();
    EXPECT_EQ(kernels->rowCount(), all);

    QSortFilterProxyModel* ops = proxyOf(page.opView());
    QTest::keyClicks(opFilter, QStringLiteral("convolution"));
    EXPECT_GT(ops->rowCount(), 0);
    EXPECT_LT(ops->rowCount(), page.topOpsModel()->rowCount());
    for (int row = 0; row < ops->rowCount(); ++row) {
        EXPECT_TRUE(
            ops->index(row, 0).data().toString().contains(QLatin1String("convolution"), Qt::CaseInsensitive))
            << row;
    }
}

TEST_F(FullTablesTest, NameColumnTakesTheRoomAndTablesGrowWithTheWindow) {
    const RealReport& r = resnetReport();
    DiagnosisPage page;
    page.setReport(r.report, r.model);
    int smallHeight = 0;
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        page.resize(size);
        page.show();
        QCoreApplication::processEvents();
        QTableView* view = page.kernelView();
        QHeaderView* header = view->horizontalHeader();
        EXPECT_EQ(header->sectionResizeMode(TopKernelsModel::NameColumn), QHeaderView::Stretch);
        int others = 0;
        for (int c = 0; c < header->count(); ++c) {
            if (c != TopKernelsModel::NameColumn) {
                EXPECT_EQ(header->sectionResizeMode(c), QHeaderView::ResizeToContents) << c;
                others = std::max(others, header->sectionSize(c));
            }
        }
        // The name column is the widest, and the columns fill the table's width exactly.
        EXPECT_GT(header->sectionSize(TopKernelsModel::NameColumn), others) << size.width();
        EXPECT_EQ(header->length(), view->viewport()->width()) << size.width();
        EXPECT_EQ(view->textElideMode(), Qt::ElideRight);
        if (smallHeight == 0) {
            smallHeight = view->height();
        } else {
            EXPECT_GT(view->height(), smallHeight + 150) << "the kernel table grows with the window";
        }
        const QImage image = testutils::renderWidget(page, size);
        testutils::saveIfRequested(image, QStringLiteral("full-tables-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(image), 20);
    }
}

// Under a dark palette the tables and the details line follow it (item 6 owns the rest of the
// page): a dark table, a light full name below it.
TEST_F(FullTablesTest, TablesFollowADarkPalette) {
    const RealReport& r = resnetReport();
    const QPalette saved = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    dark.setColor(QPalette::Base, QColor(0x18, 0x19, 0x1b));
    dark.setColor(QPalette::AlternateBase, QColor(0x25, 0x27, 0x2a));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x30, 0x32, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    QApplication::setPalette(dark);
    {
        DiagnosisPage page;
        page.setReport(r.report, r.model);
        page.resize(1920, 1080);
        page.show();
        page.kernelView()->setCurrentIndex(page.kernelView()->model()->index(0, 0));
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            const QImage image = testutils::renderWidget(page, size);
            testutils::saveIfRequested(image, QStringLiteral("full-tables-dark-%1").arg(size.width()));
        }
        const QImage table = page.kernelView()->viewport()->grab().toImage();
        const QPoint corner(table.width() - 3, table.height() - 3);  // below the last row or a cell
        EXPECT_LT(qGray(table.pixel(corner)), 64) << "the table's background follows the palette";
        auto* details = page.findChild<QLabel*>(QStringLiteral("kernelDetails"));
        ASSERT_NE(details, nullptr);
        EXPECT_GT(qGray(details->palette().color(details->foregroundRole()).rgb()), 160);
    }
    QApplication::setPalette(saved);
}

TEST_F(FullTablesTest, JsonReportCarriesEveryKernelAndOp) {
    const RealReport& r = resnetReport();
    const QJsonObject json =
        QJsonDocument::fromJson(QByteArray::fromStdString(analysis::writeJsonReport(*r.report))).object();
    const QJsonArray kernels = json.value(QStringLiteral("kernels")).toArray();
    const QJsonArray ops = json.value(QStringLiteral("ops")).toArray();
    EXPECT_EQ(kernels.size(), static_cast<qsizetype>(r.report->metrics.kernels.kernels.size()));
    EXPECT_EQ(ops.size(), static_cast<qsizetype>(r.report->metrics.kernels.ops.size()));
    // "topKernels" keeps its schema-1 meaning: the first 20 of "kernels".
    const QJsonArray top = json.value(QStringLiteral("topKernels")).toArray();
    ASSERT_EQ(top.size(), 20);
    for (qsizetype i = 0; i < top.size(); ++i) {
        EXPECT_EQ(top[i].toObject().value(QStringLiteral("name")),
                  kernels[i].toObject().value(QStringLiteral("name")));
    }
    for (const QJsonValue& k : kernels) {
        const QString name = k.toObject().value(QStringLiteral("name")).toString();
        EXPECT_EQ(k.toObject().value(QStringLiteral("shortName")).toString(),
                  QString::fromStdString(core::shortKernelName(name.toStdString())));
    }
    EXPECT_FALSE(ops.first().toObject().value(QStringLiteral("name")).toString().isEmpty());
}

}  // namespace
}  // namespace chokepoint::ui
