// CSV quoting, the self-contained HTML report and the PDF export.
#include <gtest/gtest.h>

#include <QFile>
#include <QStandardItemModel>
#include <QTemporaryDir>

#include "tests/ui/PageTestSupport.h"
#include "ui/views/report/CsvExport.h"
#include "ui/views/report/ReportDocument.h"

namespace chokepoint::ui {
namespace {

TEST(ReportExportTest, CsvFieldQuotesOnlyWhenNeeded) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField(""), "");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csvField("cr\rhere"), "\"cr\rhere\"");
    EXPECT_EQ(csvField(" padded"), "\" padded\"");
    EXPECT_EQ(csvField("void f<int, 4>()"), "\"void f<int, 4>()\"");
}

TEST(ReportExportTest, TableToCsvHasHeaderAndRows) {
    testutils::guiApp();
    QStandardItemModel model(2, 2);
    model.setHorizontalHeaderLabels({"Kernel", "Total, ms"});
    model.setItem(0, 0, new QStandardItem("gemm"));
    model.setItem(0, 1, new QStandardItem("1.5"));
    model.setItem(1, 0, new QStandardItem("elementwise<\"x\", y>"));
    model.setItem(1, 1, new QStandardItem("0.2"));
    EXPECT_EQ(tableToCsv(model), "Kernel,\"Total, ms\"\r\ngemm,1.5\r\n\"elementwise<\"\"x\"\", y>\",0.2\r\n");

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("table.csv");
    QString error;
    ASSERT_TRUE(writeTableCsv(model, path, &error)) << error.toStdString();
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(file.readAll()), tableToCsv(model));

    EXPECT_FALSE(writeTableCsv(model, dir.filePath("missing/dir/x.csv"), &error));
    EXPECT_TRUE(error.contains("missing/dir/x.csv")) << error.toStdString();
}

ReportDocument sampleReport() {
    ReportDocument doc("Chokepoint report: run <1>");
    doc.addParagraph("Data-bound: the GPU waits 38 % of each step for the input pipeline", "verdict");
    doc.addFacts({{"Step time", "61.2 ms"}, {"GPU busy", "62.0 %"}});
    doc.addTable({"Kernel", "Share"}, {{"gemm<float, 4>", "40 %"}, {"a & b", "10 %"}}, "Top kernels");
    QImage image(320, 200, QImage::Format_RGB32);
    image.fill(QColor(20, 120, 200));
    doc.addImage(image, "Per-step breakdown", "Where each step's time goes");
    doc.addCode("loader = DataLoader(ds, num_workers=8, pin_memory=True)");
    return doc;
}

TEST(ReportExportTest, HtmlIsSelfContainedAndEscaped) {
    testutils::guiApp();
    const ReportDocument doc = sampleReport();
    const QString html = doc.toHtml();
    EXPECT_TRUE(html.startsWith("<!DOCTYPE html>"));
    EXPECT_TRUE(html.contains("Data-bound: the GPU waits 38 % of each step for the input pipeline"));
    EXPECT_TRUE(html.contains("run &lt;1&gt;"));
    EXPECT_TRUE(html.contains("gemm&lt;float, 4&gt;"));
    EXPECT_TRUE(html.contains("a &amp; b"));
    EXPECT_TRUE(html.contains("src=\"data:image/png;base64,iVBOR"));  // PNG signature in base64
    EXPECT_FALSE(html.contains("src=\"http"));
    EXPECT_FALSE(html.contains("chokepoint-image-"));  // resource names are for the PDF only

    QTemporaryDir dir;
    const QString path = dir.filePath("report.html");
    QString error;
    ASSERT_TRUE(doc.writeHtml(path, &error)) << error.toStdString();
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_GT(file.size(), 1000);
}

TEST(ReportExportTest, PdfStartsWithMagicAndIsNonTrivial) {
    testutils::guiApp();
    const ReportDocument doc = sampleReport();
    QTemporaryDir dir;
    const QString path = dir.filePath("report.pdf");
    QString error;
    ASSERT_TRUE(doc.writePdf(path, &error)) << error.toStdString();
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    EXPECT_TRUE(bytes.startsWith("%PDF-"));
    EXPECT_GT(bytes.size(), 5000);  // text, fonts and one image
    EXPECT_TRUE(bytes.contains("/Image")) << "the chart image is embedded";
}

}  // namespace
}  // namespace chokepoint::ui
