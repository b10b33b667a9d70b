// Dark theme and accessibility: the palette-derived colours read on their background, the timeline,
// charts, legends and heatmap paint dark under a dark palette and light under a light one (and
// follow a switch at run time), bottleneck classes carry a pattern and a label besides their colour,
// and the main widgets have accessible names.
#include <gtest/gtest.h>

#include "ui/base/theme/TimelineColors.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <map>
#include <set>

#include "core/format/CptraceWriter.h"
#include "core/timeline/TimelineTracks.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/Page.h"
#include "ui/base/charts/FlameGraph.h"
#include "ui/base/charts/MfuBands.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/Theme.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/widgets/SearchBar.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/job/JobTimelineWidget.h"
#include "ui/views/job/RankStepHeatmap.h"
#include "ui/views/pages/FixesPage.h"
#include "ui/views/timeline/ReportOverlays.h"
#include "ui/views/timeline/TimelineLegend.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

using analysis::Bottleneck;

// The most common colour of an image: the background of a chart or a timeline.
QColor dominantColour(const QImage& image) {
    std::map<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            ++counts[image.pixel(x, y)];
        }
    }
    QRgb best = 0;
    int most = 0;
    for (const auto& [rgb, count] : counts) {
        if (count > most) {
            most = count;
            best = rgb;
        }
    }
    return QColor::fromRgb(best);
}

// Pixels within a small distance of `colour`: the glyphs of text drawn in it.
int pixelsNear(const QImage& image, const QColor& colour, int tolerance = 24) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = QColor::fromRgb(image.pixel(x, y));
            if (std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                    std::abs(c.blue() - colour.blue()) <=
                tolerance) {
                ++n;
            }
        }
    }
    return n;
}

double luminance(const QColor& c) {
    return contrastRatio(c, Qt::black);  // 1 for black, 21 for white
}

// Renders `widget` under `palette`; checks that its background is dark (or light) as the palette
// is, and that text in the palette's text colour (or `textRole`) is drawn on it with good contrast.
void expectFollowsPalette(QWidget& widget, const QPalette& palette, QSize size, const QString& name,
                          QPalette::ColorRole textRole = QPalette::Text) {
    widget.setPalette(palette);
    const QImage image = testutils::renderWidget(widget, size);
    testutils::saveIfRequested(image, name);
    const ThemeColors colors = themeColors(palette);
    const QColor background = dominantColour(image);
    SCOPED_TRACE(name.toStdString());
    if (colors.dark) {
        EXPECT_LT(luminance(background), 2.0) << background.name().toStdString();
    } else {
        EXPECT_GT(luminance(background), 12.0) << background.name().toStdString();
    }
    const QColor text = textRole == QPalette::Text ? colors.text : palette.color(textRole);
    EXPECT_GE(contrastRatio(background, text), textRole == QPalette::Text ? 7.0 : 4.5)
        << background.name().toStdString() << " vs " << text.name().toStdString();
    EXPECT_GT(pixelsNear(image, text), 20) << "no text in the palette's text colour";
}

TEST(ThemeTest, PaletteColoursReadOnTheirBackground) {
    testutils::guiApp();
    for (const QPalette& palette : {lightPalette(), darkPalette()}) {
        const ThemeColors c = themeColors(palette);
        EXPECT_EQ(c.dark, isDarkPalette(palette));
        EXPECT_GE(contrastRatio(c.text, c.background), 7.0);
        EXPECT_GE(contrastRatio(c.text, c.header), 7.0);
        EXPECT_GE(contrastRatio(c.mutedText, c.background), 4.5);
        EXPECT_GE(contrastRatio(c.mutedText, c.surface), 4.5);
        for (const QColor& status : {c.error, c.warning, c.good, c.flow}) {
            EXPECT_GE(contrastRatio(status, c.background), 4.5) << status.name().toStdString();
        }
        // Category colours used as text (the verdict headline) read on the background.
        for (int b = 0; b <= static_cast<int>(Bottleneck::Undetermined); ++b) {
            const QColor ink = c.ink(bottleneckColor(static_cast<Bottleneck>(b)));
            EXPECT_GE(contrastRatio(ink, c.background), 4.5) << b << " " << ink.name().toStdString();
        }
        // Fills keep their hue (the category) on dark backgrounds.
        const QColor data = bottleneckColor(Bottleneck::Data);
        EXPECT_NEAR(c.fill(data).hslHue(), data.hslHue(), 2);
    }
    EXPECT_FALSE(isDarkPalette(lightPalette()));
    EXPECT_TRUE(isDarkPalette(darkPalette()));
    EXPECT_NEAR(contrastRatio(Qt::black, Qt::white), 21.0, 0.01);
    EXPECT_EQ(cssColor(QColor(0x12, 0xab, 0xcd)), QStringLiteral("#12abcd"));
}

// Labels drawn on timeline and flame-graph blocks take whichever ink reads better by WCAG contrast:
// a luma threshold put white on salmon and orange blocks at about 3:1 (the dark Ops page).
TEST(ThemeTest, LabelsOnBlocksTakeTheInkWithMoreContrast) {
    const QColor dark(0x1b, 0x1f, 0x23);
    const QColor salmon(0xe0, 0x6a, 0x50);
    EXPECT_EQ(textColorOn(salmon), dark);
    EXPECT_EQ(textColorOn(QColor(0x1f, 0x3a, 0x93)), QColor(Qt::white));  // navy
    for (int hue = 0; hue < 360; hue += 15) {
        for (const double value : {0.45, 0.7, 0.9}) {
            const QColor fill = QColor::fromHsvF(hue / 360.0F, 0.7F, static_cast<float>(value));
            const QColor ink = textColorOn(fill);
            const QColor other = ink == dark ? QColor(Qt::white) : dark;
            EXPECT_GE(contrastRatio(ink, fill), contrastRatio(other, fill)) << fill.name().toStdString();
            EXPECT_GE(contrastRatio(ink, fill), 4.0) << fill.name().toStdString();
        }
    }
}

TEST(ThemeTest, ThemeNames) {
    EXPECT_EQ(themeFromName(QStringLiteral("dark")), Theme::Dark);
    EXPECT_EQ(themeFromName(QStringLiteral(" Light ")), Theme::Light);
    EXPECT_EQ(themeFromName(QStringLiteral("system")), Theme::System);
    EXPECT_FALSE(themeFromName(QStringLiteral("blue")).has_value());
    for (Theme t : {Theme::System, Theme::Light, Theme::Dark}) {
        EXPECT_EQ(themeFromName(themeName(t)), t);
    }
}

TEST(ThemeTest, TimelineIsDarkUnderADarkPaletteAndLightUnderALightOne) {
    testutils::guiApp();
    const std::shared_ptr<const core::TraceModel> model = testutils::timelineTestModel();
    const auto tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
    TimelineWidget widget;
    widget.setData(model, tracks);
    expectFollowsPalette(widget, darkPalette(), {1000, 600}, QStringLiteral("theme-timeline-dark"));
    expectFollowsPalette(widget, lightPalette(), {1000, 600}, QStringLiteral("theme-timeline-light"));
}

TEST(ThemeTest, ChartsLegendsAndHeatmapFollowThePalette) {
    testutils::guiApp();
    const auto report = testutils::buildDataBoundReport();
    ASSERT_TRUE(report);
    for (const QPalette& palette : {darkPalette(), lightPalette()}) {
        const QString suffix = isDarkPalette(palette) ? QStringLiteral("-dark") : QStringLiteral("-light");
        StepBarsChart bars;
        bars.setData(stepBarsFromReport(*report));
        expectFollowsPalette(bars, palette, {700, 320}, QStringLiteral("theme-stepbars") + suffix);

        RooflineChart roofline;
        roofline.setData(rooflineFromReport(*report));
        expectFollowsPalette(roofline, palette, {700, 420}, QStringLiteral("theme-roofline") + suffix);

        TimelineLegend legend;
        legend.setOverlayEntries(overlaysFromReport(*report).legend);
        expectFollowsPalette(legend, palette, {900, legend.heightForWidth(900)},
                             QStringLiteral("theme-legend") + suffix);

        RankStepHeatmap heatmap;  // no job: "No ranks to show" on the base colour
        expectFollowsPalette(heatmap, palette, {500, 300}, QStringLiteral("theme-heatmap") + suffix,
                             QPalette::PlaceholderText);

        JobTimelineWidget jobTimeline;
        expectFollowsPalette(jobTimeline, palette, {600, 300}, QStringLiteral("theme-jobtimeline") + suffix,
                             QPalette::PlaceholderText);

        MfuBands mfu;
        mfu.setMfu(0.42, false);
        mfu.setPalette(palette);
        const QImage bandsImage = testutils::renderWidget(mfu, {500, 60});
        // The marker is drawn in the text colour.
        EXPECT_GT(pixelsNear(bandsImage, themeColors(palette).text), 10);
    }
}

TEST(ThemeTest, ASwitchAtRunTimeRepaintsWidgetsThatFollowTheApplicationPalette) {
    testutils::guiApp();
    const auto report = testutils::buildDataBoundReport();
    ASSERT_TRUE(report);
    StepBarsChart bars;  // no palette of its own: follows the application's
    bars.setData(stepBarsFromReport(*report));
    applyTheme(Theme::Dark);
    EXPECT_EQ(currentTheme(), Theme::Dark);
    QApplication::processEvents();
    const QImage dark = testutils::renderWidget(bars, {600, 300});
    EXPECT_LT(luminance(dominantColour(dark)), 2.0);
    applyTheme(Theme::Light);
    QApplication::processEvents();
    const QImage light = testutils::renderWidget(bars, {600, 300});
    EXPECT_GT(luminance(dominantColour(light)), 12.0);
    applyTheme(Theme::System);
    EXPECT_EQ(currentTheme(), Theme::System);
}

TEST(ThemeTest, PagesRewriteTheirRichTextColoursOnASwitch) {
    testutils::guiApp();
    const auto report = testutils::buildDataBoundReport();
    ASSERT_TRUE(report);
    applyTheme(Theme::Light);
    FixesPage page;
    page.setReport(report);
    ASSERT_GT(page.fixCount(), 0);
    page.selectFix(0);
    auto* details = page.findChild<QTextBrowser*>();
    ASSERT_NE(details, nullptr);
    const QString lightMuted = cssColor(themeColors(lightPalette()).mutedText);
    const QString darkMuted = cssColor(themeColors(darkPalette()).mutedText);
    EXPECT_TRUE(details->toHtml().contains(lightMuted));
    applyTheme(Theme::Dark);
    QApplication::processEvents();
    EXPECT_TRUE(details->toHtml().contains(darkMuted)) << details->toHtml().toStdString();
    EXPECT_FALSE(details->toHtml().contains(lightMuted));
    applyTheme(Theme::System);
}

TEST(ThemeTest, BottleneckClassesCarryAPatternAndALabel) {
    testutils::guiApp();
    // Every class but compute (the goal) has its own pattern; no two classes share one.
    std::set<int> patterns;
    for (int b = 0; b < static_cast<int>(Bottleneck::Undetermined); ++b) {
        const Qt::BrushStyle pattern = bottleneckPattern(static_cast<Bottleneck>(b));
        EXPECT_TRUE(patterns.insert(pattern).second) << "class " << b << " shares a pattern";
        if (static_cast<Bottleneck>(b) != Bottleneck::Compute) {
            EXPECT_NE(pattern, Qt::SolidPattern) << "class " << b;
        }
    }

    const auto report = testutils::buildDataBoundReport();
    ASSERT_TRUE(report);
    // The timeline legend's step entries: a text label and the class's pattern.
    const TimelineOverlays overlays = overlaysFromReport(*report);
    int stepEntries = 0;
    for (const LegendEntry& e : overlays.legend) {
        EXPECT_FALSE(e.label.isEmpty());
        if (e.label.startsWith(QStringLiteral("Step: "))) {
            ++stepEntries;
            EXPECT_TRUE(e.label.contains(QStringLiteral("Data"))) << e.label.toStdString();
            EXPECT_EQ(e.pattern, bottleneckPattern(Bottleneck::Data));
        }
    }
    EXPECT_GE(stepEntries, 1);
    for (const StepBand& band : overlays.steps) {
        EXPECT_EQ(band.pattern, bottleneckPattern(report->steps.front().verdict.bottleneck));
        EXPECT_FALSE(band.verdict.isEmpty());
    }
    // The step strip's cells: class name and pattern.
    const std::vector<StepStripCell> cells = stepStripFromReport(*report);
    ASSERT_FALSE(cells.empty());
    for (const StepStripCell& cell : cells) {
        EXPECT_FALSE(cell.className.isEmpty());
        EXPECT_NE(cell.pattern, Qt::SolidPattern);
    }
    // Idle time is hatched in the step bars; busy time is solid.
    for (const StackedSeries& series : stepBarsFromReport(*report).series) {
        EXPECT_EQ(series.pattern == Qt::SolidPattern, !series.name.startsWith(QStringLiteral("Idle")))
            << series.name.toStdString();
    }
    // Drawn: a hatched cell has two colours (fill and hatch), a compute cell one.
    StepStrip strip;
    strip.setCells({{"step 1",
                     "Data-bound",
                     bottleneckColor(Bottleneck::Data),
                     1.0,
                     {},
                     bottleneckPattern(Bottleneck::Data)},
                    {"step 2",
                     "Compute-bound",
                     bottleneckColor(Bottleneck::Compute),
                     1.0,
                     {},
                     bottleneckPattern(Bottleneck::Compute)}});
    const QImage image = testutils::renderWidget(strip, {408, 46});
    testutils::saveIfRequested(image, "theme-stepstrip-patterns");
    auto coloursIn = [&](QRect r) {
        std::set<QRgb> colours;
        for (int y = r.top(); y <= r.bottom(); ++y) {
            for (int x = r.left(); x <= r.right(); ++x) {
                colours.insert(image.pixel(x, y));
            }
        }
        return colours.size();
    };
    EXPECT_GE(coloursIn(QRect(20, 6, 150, 14)), 2u);
    EXPECT_EQ(coloursIn(QRect(230, 6, 150, 14)), 1u);
}

TEST(ThemeTest, PaletteOptionOfTheExecutableRendersDarkOrLight) {
    testutils::guiApp();
    const QString exe = QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
    ASSERT_TRUE(QFile::exists(exe)) << "chokepoint executable not built: " << exe.toStdString();
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("data-bound.cptrace"));
    ASSERT_TRUE(core::writeCptrace(*testutils::buildDataBoundTrace(), trace.toStdString()).ok());
    for (const QString& theme : {QStringLiteral("dark"), QStringLiteral("light")}) {
        const QString png = dir.filePath(theme + QStringLiteral(".png"));
        QProcess gui;
        gui.setProcessChannelMode(QProcess::MergedChannels);
        gui.start(exe, {QStringLiteral("--screenshot"), png, QStringLiteral("--page"),
                        QStringLiteral("timeline"), QStringLiteral("--size"), QStringLiteral("1000x600"),
                        QStringLiteral("--palette"), theme, trace});
        ASSERT_TRUE(gui.waitForFinished(60'000));
        EXPECT_EQ(gui.exitCode(), 0) << gui.readAll().toStdString();
        const QImage image(png);
        ASSERT_FALSE(image.isNull());
        const double background = luminance(dominantColour(image));
        if (theme == QLatin1String("dark")) {
            EXPECT_LT(background, 2.0);
        } else {
            EXPECT_GT(background, 12.0);
        }
    }
    QProcess bad;
    bad.setProcessChannelMode(QProcess::MergedChannels);
    bad.start(exe, {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("x.png")),
                    QStringLiteral("--palette"), QStringLiteral("blue"), trace});
    ASSERT_TRUE(bad.waitForFinished(60'000));
    EXPECT_EQ(bad.exitCode(), 2);
    EXPECT_TRUE(bad.readAll().contains("--palette wants light, dark or system"));
}

// Where `w` sits: its class and its ancestors' classes and object names.
std::string widgetPath(const QWidget* w) {
    std::string path;
    for (const QWidget* p = w; p != nullptr; p = p->parentWidget()) {
        path += std::string(p->metaObject()->className()) + "(" + p->objectName().toStdString() + ") < ";
    }
    return path;
}

// True when `w` is a part of a composite Qt widget (a combo box's popup, a tab bar's scroll
// buttons, a spin box's editor) rather than one of ours.
bool insideQtComposite(const QWidget* w) {
    for (const QWidget* p = w->parentWidget(); p != nullptr; p = p->parentWidget()) {
        if (qobject_cast<const QComboBox*>(p) || qobject_cast<const QTabBar*>(p) ||
            qobject_cast<const QAbstractSpinBox*>(p) || qobject_cast<const QAbstractItemView*>(p) ||
            qobject_cast<const QLineEdit*>(p) || p->inherits("QMenuBar") || p->inherits("QCustomPlot")) {
            return true;
        }
    }
    return w->inherits("QComboBoxListView") || w->inherits("QComboBoxPrivateContainer");
}

TEST(ThemeTest, MainWidgetsHaveAccessibleNames) {
    testutils::isolateSettings();
    MainWindow window;
    window.resize(1280, 800);
    const QList<Page*> pages = window.findChildren<Page*>();
    ASSERT_GE(pages.size(), 6);
    for (const Page* page : pages) {
        EXPECT_FALSE(page->accessibleName().isEmpty()) << page->pageId().toStdString();
    }
    auto named = [](const QWidget* w) { return !w->accessibleName().isEmpty(); };
    for (const auto* w : window.findChildren<TimelineWidget*>()) {
        EXPECT_TRUE(named(w));
        EXPECT_FALSE(w->accessibleDescription().isEmpty());
    }
    EXPECT_FALSE(window.findChildren<TimelineWidget*>().isEmpty());
    for (const QWidget* w : window.findChildren<DetailsPanel*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<SearchBar*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<StepBarsChart*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<RooflineChart*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<StepStrip*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<FlameGraph*>()) {
        EXPECT_TRUE(named(w));
    }
    for (const QWidget* w : window.findChildren<TimelineLegend*>()) {
        EXPECT_TRUE(named(w));
    }
    // Every table, tree, list, text view, line edit and combo box of ours has a name; every button
    // has a text or a name.
    int views = 0;
    for (const QWidget* w : window.findChildren<QWidget*>()) {
        if (insideQtComposite(w)) {
            continue;
        }
        const bool needsName = qobject_cast<const QTableView*>(w) || qobject_cast<const QTreeView*>(w) ||
                               qobject_cast<const QListWidget*>(w) || qobject_cast<const QTextBrowser*>(w) ||
                               qobject_cast<const QPlainTextEdit*>(w) || qobject_cast<const QLineEdit*>(w) ||
                               qobject_cast<const QComboBox*>(w);
        if (needsName) {
            ++views;
            EXPECT_TRUE(named(w)) << widgetPath(w);
        }
        if (const auto* b = qobject_cast<const QAbstractButton*>(w)) {
            EXPECT_TRUE(!b->text().isEmpty() || named(b)) << widgetPath(b);
        }
    }
    EXPECT_GE(views, 8);
}

// Colour by name: no kernel takes a copy's hue (the H100 ResNet timeline had green kernels beside
// its green host-to-device copies).
TEST(ThemeTest, KernelColoursKeepClearOfTheCopyColours) {
    const std::vector<QColor> copies = {
        eventColor(timeline::EventKind::Memcpy, {}, core::MemcpyKind::HostToDevice),
        eventColor(timeline::EventKind::Memcpy, {}, core::MemcpyKind::DeviceToHost),
        eventColor(timeline::EventKind::Memcpy, {}, core::MemcpyKind::DeviceToDevice)};
    std::set<int> hues;
    for (std::uint32_t id = 0; id < 2000; ++id) {
        const QColor kernel = eventColor(timeline::EventKind::Kernel, core::StringId{id});
        hues.insert(kernel.hsvHue() / 10);
        for (const QColor& copy : copies) {
            const int distance = std::abs(kernel.hsvHue() - copy.hsvHue());
            const int clearance = copy.hsvHue() > 100 && copy.hsvHue() < 170 ? 44 : 24;  // green: wider
            EXPECT_GE(std::min(distance, 360 - distance), clearance)
                << "kernel id " << id << " hue " << kernel.hsvHue() << " vs copy hue " << copy.hsvHue();
        }
    }
    EXPECT_GE(hues.size(), 15u);  // still spread over many hues
}

}  // namespace
}  // namespace chokepoint::ui
