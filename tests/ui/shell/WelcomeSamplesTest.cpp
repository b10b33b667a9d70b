// The bundled samples in the GUI: the welcome page lists the real ones first and the synthetic ones
// labelled so, "Open sample" opens the real data-bound trace, "Compare with the fixed run" puts the
// real pair side by side in one click, and the executable renders the diagnosis and compare pages of
// the real samples and prints its version.

#include <gtest/gtest.h>

#include <QFileInfo>
#include <QImage>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include "chokepoint/Version.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/WelcomePage.h"
#include "ui/views/pages/ComparePage.h"

namespace chokepoint::ui {
namespace {

// The build tree's samples folder: real/ copied from the repository, the synthetic ones generated.
class BuildSamples {
public:
    BuildSamples() { qputenv("CHOKEPOINT_SAMPLES_DIR", QByteArrayLiteral(CHOKEPOINT_BINARY_DIR "/samples")); }
    ~BuildSamples() { qunsetenv("CHOKEPOINT_SAMPLES_DIR"); }
    BuildSamples(const BuildSamples&) = delete;
    BuildSamples& operator=(const BuildSamples&) = delete;
};

TEST(WelcomeSamples, RealSamplesComeFirstAndSyntheticOnesAreLabelled) {
    testutils::isolateSettings();
    BuildSamples samples;
    const QStringList files = MainWindow::sampleFiles();
    ASSERT_GE(files.size(), 3);
    EXPECT_TRUE(files[0].endsWith(QStringLiteral("/real/resnet50-nw0.pt.trace.json.gz")))
        << files[0].toStdString();
    EXPECT_TRUE(files[1].endsWith(QStringLiteral("/real/resnet50-nw4.pt.trace.json.gz")))
        << files[1].toStdString();
    EXPECT_TRUE(files.last().endsWith(QStringLiteral(".cptrace")));
    EXPECT_EQ(MainWindow::defaultSample(), files[0]);
    ASSERT_EQ(MainWindow::samplePair().size(), 2);

    MainWindow window;
    auto* welcome = window.findChild<WelcomePage*>();
    ASSERT_NE(welcome, nullptr);
    EXPECT_TRUE(welcome->sampleButton()->isEnabled());
    EXPECT_TRUE(welcome->comparePairButton()->isEnabled());
    QListWidget* list = welcome->sampleList();
    ASSERT_EQ(list->count(), files.size());
    EXPECT_TRUE(list->item(0)->text().contains(QStringLiteral("real")))
        << list->item(0)->text().toStdString();
    EXPECT_FALSE(list->item(0)->text().contains(QStringLiteral("synthetic")));
    const QString last = list->item(list->count() - 1)->text();
    EXPECT_TRUE(last.contains(QStringLiteral("synthetic"))) << last.toStdString();
    EXPECT_EQ(list->item(0)->data(Qt::UserRole).toString(), files[0]);
}

TEST(WelcomeSamples, WithoutTheRealPairTheCompareButtonIsDisabled) {
    testutils::isolateSettings();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QFile sample(dir.filePath(QStringLiteral("synthetic-data-bound.cptrace")));
    ASSERT_TRUE(sample.open(QIODevice::WriteOnly));
    sample.close();
    qputenv("CHOKEPOINT_SAMPLES_DIR", dir.path().toLocal8Bit());
    EXPECT_TRUE(MainWindow::samplePair().isEmpty());
    EXPECT_TRUE(MainWindow::defaultSample().endsWith(QStringLiteral("synthetic-data-bound.cptrace")));
    MainWindow window;
    auto* welcome = window.findChild<WelcomePage*>();
    ASSERT_NE(welcome, nullptr);
    EXPECT_FALSE(welcome->comparePairButton()->isEnabled());
    qunsetenv("CHOKEPOINT_SAMPLES_DIR");
}

TEST(WelcomeSamples, CompareWithTheFixedRunIsOneClick) {
    testutils::isolateSettings();
    BuildSamples samples;
    MainWindow window;
    window.setInteractive(false);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    auto* welcome = window.findChild<WelcomePage*>();
    ASSERT_NE(welcome, nullptr);
    QTest::mouseClick(welcome->comparePairButton(), Qt::LeftButton);
    EXPECT_EQ(window.currentPageId(), QStringLiteral("compare"));
    auto* compare = qobject_cast<ComparePage*>(window.page(QStringLiteral("compare")));
    ASSERT_NE(compare, nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(compare->comparison() != nullptr, 120'000);
    const analysis::ComparisonReport& c = *compare->comparison();
    EXPECT_EQ(c.overall.before, analysis::Bottleneck::Data);
    EXPECT_NE(c.overall.after, analysis::Bottleneck::Data);
    EXPECT_TRUE(c.prediction.available);
    EXPECT_TRUE(compare->summaryText().contains(QStringLiteral("R1")))
        << compare->summaryText().toStdString();
}

// --- The executable -------------------------------------------------------------------------

QString guiBinary() {
    return QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
}

QString realSample(const char* name) {
    return QStringLiteral(CHOKEPOINT_SOURCE_DIR "/samples/real/") + QLatin1String(name);
}

int runGui(const QStringList& args, QString* out, QString* errors) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(guiBinary(), args);
    if (!process.waitForFinished(120'000)) {
        process.kill();
        return -1;
    }
    *out = QString::fromLocal8Bit(process.readAllStandardOutput());
    *errors = QString::fromLocal8Bit(process.readAllStandardError());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
}

TEST(WelcomeSamples, TheExecutablePrintsTheProjectVersion) {
    ASSERT_TRUE(QFileInfo::exists(guiBinary())) << "chokepoint executable not built";
    QString out, errors;
    ASSERT_EQ(runGui({QStringLiteral("--version")}, &out, &errors), 0) << errors.toStdString();
    EXPECT_TRUE(out.contains(QLatin1String(chokepoint::kVersion))) << out.toStdString();
}

TEST(WelcomeSamples, TheExecutableRendersTheRealSamplesAndTheirComparison) {
    ASSERT_TRUE(QFileInfo::exists(guiBinary())) << "chokepoint executable not built";
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString before = realSample("resnet50-nw0.pt.trace.json.gz");
    const QString after = realSample("resnet50-nw4.pt.trace.json.gz");
    struct Shot {
        QString name;
        QStringList args;
    };
    const QList<Shot> shots{
        {QStringLiteral("nw0.png"), {QStringLiteral("--page"), QStringLiteral("diagnosis"), before}},
        {QStringLiteral("nw4.png"), {QStringLiteral("--page"), QStringLiteral("diagnosis"), after}},
        {QStringLiteral("compare.png"), {QStringLiteral("--compare"), after, before}},
        {QStringLiteral("welcome.png"), {QStringLiteral("--page"), QStringLiteral("welcome")}},
    };
    for (const Shot& shot : shots) {
        const QString png = dir.filePath(shot.name);
        QString out, errors;
        ASSERT_EQ(runGui(QStringList{QStringLiteral("--screenshot"), png} + shot.args, &out, &errors), 0)
            << shot.name.toStdString() << ": " << errors.toStdString();
        EXPECT_TRUE(errors.contains(QStringLiteral("wrote"))) << errors.toStdString();
        QImage image(png);
        ASSERT_FALSE(image.isNull()) << shot.name.toStdString();
        EXPECT_GT(testutils::distinctColours(image), 40) << shot.name.toStdString();
        EXPECT_GT(testutils::inkFraction(image), 0.05) << shot.name.toStdString();
    }
}

}  // namespace
}  // namespace chokepoint::ui
