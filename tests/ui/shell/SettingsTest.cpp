// Settings: the per-trace Analysis Settings dialog (re-runs the analysis, saved in the review
// sidecar and re-applied when the trace is opened again, bad sidecar values warned about) and the
// application's Preferences dialog (stored in QSettings, each preference taking effect).
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "core/review/ReviewSidecar.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/settings/AnalysisSettingsStrip.h"
#include "ui/base/settings/Preferences.h"
#include "ui/base/settings/RecentFiles.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/settings/AnalysisSettingsDialog.h"
#include "ui/shell/settings/PreferencesDialog.h"
#include "ui/shell/settings/SettingsController.h"
#include "ui/views/pages/DiagnosisPage.h"

namespace chokepoint::ui {
namespace {

using testutils::isolateSettings;

// The bundled synthetic compute-bound trace (an H100 with recorded model FLOPs, so MFU is known),
// copied into `dir` so its sidecar is written there.
QString copySample(const QTemporaryDir& dir) {
    const QString source = QStringLiteral(CHOKEPOINT_BINARY_DIR "/samples/synthetic-compute-bound.cptrace");
    const QString copy = dir.filePath(QStringLiteral("compute.cptrace"));
    EXPECT_TRUE(QFile::exists(source)) << "sample not built: " << source.toStdString();
    EXPECT_TRUE(QFile::copy(source, copy));
    return copy;
}

// Runs `start` and waits for the analysis it triggers.
template <typename Start>
bool analysed(MainWindow& window, Start start, int timeoutMs = 60'000) {
    QSignalSpy available(window.document(), &TraceDocument::analysisAvailable);
    start();
    for (int waited = 0; waited < timeoutMs && available.isEmpty(); waited += 20) {
        QTest::qWait(20);
    }
    return !available.isEmpty() && window.document()->report() != nullptr;
}

SettingsController* controller(MainWindow& window) {
    return window.findChild<SettingsController*>();
}

void saveDialogImage(QWidget& dialog, const QString& name) {
    dialog.ensurePolished();
    QApplication::processEvents();
    testutils::saveIfRequested(dialog.grab().toImage(), name);
}

TEST(SettingsTest, SettingsMenuHasAnalysisSettingsAndPreferences) {
    isolateSettings();
    MainWindow window;
    SettingsController* settings = controller(window);
    ASSERT_NE(settings, nullptr);
    EXPECT_EQ(settings->preferencesAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Comma));
    // Nothing to set up without a trace.
    EXPECT_FALSE(settings->analysisSettingsAction()->isEnabled());
    EXPECT_EQ(settings->openAnalysisSettings(), nullptr);
    // The menu sits before Help.
    const QList<QAction*> menus = window.menuBar()->actions();
    const auto settingsAt = menus.indexOf(settings->menu()->menuAction());
    const auto helpAt = menus.indexOf(window.menu(MainWindow::MenuId::Help)->menuAction());
    EXPECT_GE(settingsAt, 0);
    EXPECT_EQ(settingsAt + 1, helpAt);
}

TEST(SettingsTest, ChangingTheDeviceReanalysesAndEveryPageShowsIt) {
    isolateSettings();
    QTemporaryDir dir;
    const QString trace = copySample(dir);
    MainWindow window;
    window.setInteractive(false);
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(analysed(window, [&] { window.openFile(trace); }));
    const auto before = window.document()->report();
    ASSERT_TRUE(before->mfu.mfu) << "the sample should have model FLOPs";
    EXPECT_EQ(before->device.spec.id, "h100-sxm");
    EXPECT_TRUE(before->userSettings.empty());
    auto* diagnosis = qobject_cast<DiagnosisPage*>(window.page(QStringLiteral("diagnosis")));
    ASSERT_NE(diagnosis, nullptr);
    EXPECT_TRUE(diagnosis->settingsStrip()->text().startsWith(QStringLiteral("Analysis settings: defaults")))
        << diagnosis->settingsStrip()->text().toStdString();

    // The diagnosis page's button opens the dialog.
    diagnosis->settingsStrip()->button()->click();
    AnalysisSettingsDialog* dialog = controller(window)->analysisSettingsDialog();
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    dialog->resize(1280, 800);
    saveDialogImage(*dialog, QStringLiteral("analysis-settings-dialog"));
    const int a100 = dialog->deviceBox()->findData(QStringLiteral("a100-sxm4-80gb"));
    ASSERT_GT(a100, 0);
    dialog->deviceBox()->setCurrentIndex(a100);
    ASSERT_TRUE(analysed(window, [&] { dialog->accept(); }));

    const auto after = window.document()->report();
    ASSERT_NE(after, before);
    EXPECT_EQ(after->device.spec.id, "a100-sxm4-80gb");
    EXPECT_EQ(after->device.method, "override");
    // Same trace, smaller peak: MFU goes up by the ratio of the peaks. The H100 job's 51 % is over
    // 100 % of the A100's peak: impossible, so not shown as a result, and kept aside with why.
    const double ratio = before->mfu.peakFlopsPerSecond / after->mfu.peakFlopsPerSecond;
    EXPECT_GT(ratio, 1.5);
    EXPECT_FALSE(after->mfu.mfu);
    ASSERT_TRUE(after->mfu.impossibleMfu);
    EXPECT_NEAR(*after->mfu.impossibleMfu / *before->mfu.mfu, ratio, 1e-9);
    EXPECT_FALSE(after->mfu.impossibleReason.empty());
    EXPECT_TRUE(diagnosis->settingsStrip()->text().contains(
        QStringLiteral("device %1 (set by user)").arg(QString::fromStdString(after->device.spec.name))))
        << diagnosis->settingsStrip()->text().toStdString();
    // Every page got the new report (the diagnosis page's figures among them).
    EXPECT_EQ(window.document()->analysisSettings().deviceId, "a100-sxm4-80gb");
    const QImage page = testutils::renderWidget(window, {1280, 800});
    testutils::saveIfRequested(page, QStringLiteral("diagnosis-with-settings"));

    // Saved with the trace's review sidecar.
    auto sidecar = core::loadReviewForTrace(trace.toStdString());
    ASSERT_TRUE(sidecar) << sidecar.error().message;
    EXPECT_EQ(sidecar->notes.analysisSettings.deviceId, "a100-sxm4-80gb");
}

TEST(SettingsTest, SettingsComeBackWhenTheTraceIsOpenedAgain) {
    isolateSettings();
    QTemporaryDir dir;
    const QString trace = copySample(dir);
    {
        MainWindow window;
        window.setInteractive(false);
        ASSERT_TRUE(analysed(window, [&] { window.openFile(trace); }));
        core::AnalysisSettings s;
        s.deviceId = "h200-sxm";
        s.modelFlopsPerStep = 5e14;
        s.thresholds["lowMfu"] = 0.2;
        ASSERT_TRUE(
            analysed(window, [&] { EXPECT_TRUE(window.document()->setAnalysisSettings(s).isEmpty()); }));
        EXPECT_EQ(window.document()->report()->device.spec.id, "h200-sxm");
    }
    MainWindow again;
    again.setInteractive(false);
    ASSERT_TRUE(analysed(again, [&] { again.openFile(trace); }));
    const auto report = again.document()->report();
    EXPECT_EQ(report->device.spec.id, "h200-sxm");
    EXPECT_EQ(report->device.method, "override");
    EXPECT_EQ(report->mfu.source, analysis::ModelFlopsSource::UserFlopsPerStep);
    EXPECT_DOUBLE_EQ(report->mfu.modelFlopsPerStep, 5e14);
    EXPECT_DOUBLE_EQ(report->config.lowMfu, 0.2);
    EXPECT_TRUE(again.document()->settingsWarnings().isEmpty());

    // The dialog shows them; Reset to Defaults and OK go back to the trace's own device.
    AnalysisSettingsDialog* dialog = controller(again)->openAnalysisSettings();
    ASSERT_NE(dialog, nullptr);
    EXPECT_EQ(dialog->deviceBox()->currentData().toString(), QStringLiteral("h200-sxm"));
    EXPECT_TRUE(dialog->flopsPerStepButton()->isChecked());
    EXPECT_EQ(dialog->flopsEdit()->text(), QStringLiteral("500T"));
    dialog->resetToDefaults();
    EXPECT_EQ(dialog->deviceBox()->currentIndex(), 0);
    EXPECT_TRUE(dialog->flopsFromTraceButton()->isChecked());
    ASSERT_TRUE(analysed(again, [&] { dialog->accept(); }));
    EXPECT_EQ(again.document()->report()->device.spec.id, "h100-sxm");
    EXPECT_NE(again.document()->report()->device.method, "override");
    EXPECT_TRUE(again.document()->report()->userSettings.empty());
    auto sidecar = core::loadReviewForTrace(trace.toStdString());
    ASSERT_TRUE(sidecar);
    EXPECT_TRUE(sidecar->notes.analysisSettings.isDefault());
}

TEST(SettingsTest, BadSidecarSettingsWarnNamingTheFileAndTheTraceStillOpens) {
    isolateSettings();
    QTemporaryDir dir;
    const QString trace = copySample(dir);
    const std::string sidecarPath = core::reviewSidecarPath(trace.toStdString());
    std::ofstream(sidecarPath) << R"({"format": "chokepoint-review", "version": 1,
        "analysisSettings": {"device": "warp-drive-9000", "modelFlopsPerStep": "lots",
                             "thresholds": {"lowMfu": 7}, "precision": "fp32"}})";
    MainWindow window;
    window.setInteractive(false);
    QSignalSpy warned(window.document(), &TraceDocument::settingsWarningsFound);
    ASSERT_TRUE(analysed(window, [&] { window.openFile(trace); }));
    ASSERT_EQ(warned.count(), 1);
    const QStringList warnings = window.document()->settingsWarnings();
    ASSERT_EQ(warnings.size(), 3) << warnings.join(QStringLiteral("\n")).toStdString();
    for (const QString& w : warnings) {
        EXPECT_TRUE(w.startsWith(QString::fromStdString(sidecarPath))) << w.toStdString();
    }
    EXPECT_TRUE(warnings.join(QLatin1Char('\n')).contains(QStringLiteral("warp-drive-9000")));
    // The good part applied, the bad ones left at their defaults.
    const auto report = window.document()->report();
    EXPECT_EQ(report->mfu.precision, analysis::Precision::FP32);
    EXPECT_EQ(report->device.spec.id, "h100-sxm");
    EXPECT_DOUBLE_EQ(report->config.lowMfu, analysis::DiagnosisConfig{}.lowMfu);
    // Shown to the user without blocking.
    QTest::qWait(50);
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("settingsWarnings"));
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->informativeText().contains(QStringLiteral("warp-drive-9000")));
}

TEST(SettingsTest, DialogRefusesInvalidValuesAndSaysWhich) {
    isolateSettings();
    AnalysisSettingsDialog dialog(TraceDocument::deviceDatabase());
    QSignalSpy applied(&dialog, &AnalysisSettingsDialog::applyRequested);
    dialog.show();
    dialog.paramsTokensButton()->setChecked(true);
    dialog.paramsEdit()->setText(QStringLiteral("7B"));
    dialog.tokensEdit()->setText(QStringLiteral("abc"));
    dialog.accept();
    EXPECT_EQ(applied.count(), 0);
    EXPECT_TRUE(dialog.isVisible());
    EXPECT_TRUE(dialog.errorLabel()->text().contains(QStringLiteral("Tokens per step")))
        << dialog.errorLabel()->text().toStdString();
    dialog.tokensEdit()->setText(QStringLiteral("4k"));
    EXPECT_TRUE(dialog.errorLabel()->text().isEmpty());

    QTableWidget* table = dialog.thresholdTable();
    int lowMfu = -1;
    for (int row = 0; row < table->rowCount(); ++row) {
        if (table->item(row, AnalysisSettingsDialog::KeyColumn)->text() == QLatin1String("lowMfu")) {
            lowMfu = row;
        }
    }
    ASSERT_GE(lowMfu, 0);
    EXPECT_EQ(table->item(lowMfu, AnalysisSettingsDialog::UnitColumn)->text(),
              QStringLiteral("fraction 0-1"));
    EXPECT_EQ(table->item(lowMfu, AnalysisSettingsDialog::DefaultColumn)->text(), QStringLiteral("0.3"));
    table->item(lowMfu, AnalysisSettingsDialog::ValueColumn)->setText(QStringLiteral("1.2"));
    EXPECT_TRUE(dialog.errorLabel()->text().contains(QStringLiteral("lowMfu")))
        << dialog.errorLabel()->text().toStdString();
    dialog.accept();
    EXPECT_EQ(applied.count(), 0);
    // How the refused value looks, under a light and a dark palette.
    dialog.resize(1280, 800);
    saveDialogImage(dialog, QStringLiteral("analysis-settings-invalid"));
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    const QPalette light = dialog.palette();
    dialog.setPalette(dark);
    dialog.resize(1920, 1080);
    saveDialogImage(dialog, QStringLiteral("analysis-settings-invalid-dark-1920"));
    dialog.setPalette(light);
    table->item(lowMfu, AnalysisSettingsDialog::ValueColumn)->setText(QStringLiteral("0.25"));
    EXPECT_TRUE(table->item(lowMfu, AnalysisSettingsDialog::ValueColumn)->font().bold());

    // Enter accepts, with the settings the fields describe.
    QTest::keyClick(&dialog, Qt::Key_Return);
    ASSERT_EQ(applied.count(), 1);
    const auto s = applied.first().first().value<core::AnalysisSettings>();
    EXPECT_DOUBLE_EQ(*s.parameterCount, 7e9);
    EXPECT_DOUBLE_EQ(*s.tokensPerStep, 4e3);
    EXPECT_FALSE(s.modelFlopsPerStep);
    ASSERT_EQ(s.thresholds.size(), 1u);
    EXPECT_DOUBLE_EQ(s.thresholds.at("lowMfu"), 0.25);
    EXPECT_FALSE(dialog.isVisible());
}

TEST(SettingsTest, PreferencesAreStoredAndTakeEffect) {
    isolateSettings();
    EXPECT_EQ(Preferences::theme(), Preferences::Theme::System);
    EXPECT_EQ(Preferences::defaultPage(), QStringLiteral("diagnosis"));
    EXPECT_EQ(Preferences::recentFileCount(), Preferences::kDefaultRecentFiles);
    EXPECT_FALSE(Preferences::reopenLastTrace());

    MainWindow window;
    window.setInteractive(false);
    window.resize(1280, 800);
    window.show();
    PreferencesDialog* dialog = controller(window)->openPreferences();
    ASSERT_NE(dialog, nullptr);
    saveDialogImage(*dialog, QStringLiteral("preferences-dialog"));
    EXPECT_GE(dialog->defaultPageBox()->findData(QStringLiteral("timeline")), 0);
    EXPECT_LT(dialog->defaultPageBox()->findData(QStringLiteral("compare")), 0);

    // Esc cancels: nothing stored.
    dialog->themeBox()->setCurrentIndex(dialog->themeBox()->findData(QStringLiteral("dark")));
    QTest::keyClick(dialog, Qt::Key_Escape);
    EXPECT_FALSE(dialog->isVisible());
    EXPECT_EQ(Preferences::theme(), Preferences::Theme::System);

    dialog = controller(window)->openPreferences();
    ASSERT_NE(dialog, nullptr);
    QSignalSpy themeChanged(Preferences::instance(), &Preferences::themeChanged);
    dialog->themeBox()->setCurrentIndex(dialog->themeBox()->findData(QStringLiteral("dark")));
    dialog->defaultPageBox()->setCurrentIndex(dialog->defaultPageBox()->findData(QStringLiteral("timeline")));
    dialog->recentFileCountBox()->setValue(2);
    dialog->reopenLastTraceBox()->setChecked(true);
    QTest::keyClick(dialog, Qt::Key_Return);  // Enter accepts
    EXPECT_EQ(Preferences::theme(), Preferences::Theme::Dark);
    ASSERT_EQ(themeChanged.count(), 1);
    EXPECT_EQ(themeChanged.first().first().value<Preferences::Theme>(), Preferences::Theme::Dark);
    EXPECT_EQ(QSettings().value(QStringLiteral("preferences/theme")).toString(), QStringLiteral("dark"));
    EXPECT_EQ(Preferences::defaultPage(), QStringLiteral("timeline"));
    EXPECT_EQ(Preferences::recentFileCount(), 2);
    EXPECT_TRUE(Preferences::reopenLastTrace());

    // Recent files: only two are kept now.
    for (const char* f : {"/a/one.json", "/a/two.json", "/a/three.json"}) {
        RecentFiles::add(QString::fromLatin1(f));
    }
    EXPECT_EQ(RecentFiles::files(),
              (QStringList{QStringLiteral("/a/three.json"), QStringLiteral("/a/two.json")}));

    // A trace now opens on the timeline.
    QTemporaryDir dir;
    const QString trace = copySample(dir);
    ASSERT_TRUE(analysed(window, [&] { window.openFile(trace); }));
    EXPECT_EQ(window.currentPageId(), QStringLiteral("timeline"));
}

}  // namespace
}  // namespace chokepoint::ui
