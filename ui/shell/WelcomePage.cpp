#include "ui/shell/WelcomePage.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/base/theme/Theme.h"
#include "ui/shell/AppIcon.h"

namespace chokepoint::ui {

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
    auto* outer = new QHBoxLayout(this);
    outer->addStretch(1);
    auto* column = new QVBoxLayout;
    column->addStretch(1);

    auto* header = new QHBoxLayout;
    auto* icon = new QLabel(this);
    icon->setPixmap(appIcon().pixmap(72, 72));
    header->addWidget(icon);
    auto* titles = new QVBoxLayout;
    auto* title = new QLabel(tr("Chokepoint"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 2.2);
    big.setBold(true);
    title->setFont(big);
    titles->addWidget(title);
    auto* subtitle = new QLabel(tr("Find out why your GPU training job is slow, and what to change."), this);
    QFont medium = subtitle->font();
    medium.setPointSizeF(medium.pointSizeF() * 1.15);
    subtitle->setFont(medium);
    titles->addWidget(subtitle);
    header->addLayout(titles);
    header->addStretch(1);
    column->addLayout(header);
    column->addSpacing(18);

    auto makeButton = [this, &column](const QString& text, const QString& detail,
                                      QLabel** noteOut = nullptr) {
        auto* b = new QPushButton(text, this);
        b->setMinimumHeight(40);
        b->setMinimumWidth(420);
        b->setToolTip(detail);
        QFont f = b->font();
        f.setPointSizeF(f.pointSizeF() * 1.1);
        b->setFont(f);
        column->addWidget(b);
        auto* note = new QLabel(detail, this);
        note->setWordWrap(true);
        note->setStyleSheet(QStringLiteral("margin-left: 6px; margin-bottom: 8px;"));
        useMutedText(note);
        column->addWidget(note);
        if (noteOut != nullptr) {
            *noteOut = note;
        }
        return b;
    };
    m_open = makeButton(tr("Open a trace…"),
                        tr("PyTorch profiler / Kineto JSON (.json, .json.gz), Nsight Systems "
                           "SQLite export (.sqlite) or Chokepoint .cptrace. You can also drop "
                           "a file on this window."));
    m_sample = makeButton(tr("Open sample"), tr("A bundled trace of a training job."), &m_sampleNote);
    m_comparePair =
        makeButton(tr("Compare with the fixed run"),
                   tr("The same ResNet-50 job before (num_workers=0) and after (num_workers=4) the "
                      "fix, side by side: what changed, and whether the predicted gain came true."));
    m_record = makeButton(tr("Record a training run…"),
                          tr("Start your training command with the Chokepoint agent and watch the records "
                             "arrive; the trace opens when the run or its recording window ends."));
    m_attach = makeButton(tr("Attach to a running job…"),
                          tr("Capture from a training process that runs with the Chokepoint agent."));
    column->addSpacing(12);
    auto* samplesTitle = new QLabel(tr("Bundled samples"), this);
    QFont bold = samplesTitle->font();
    bold.setBold(true);
    samplesTitle->setFont(bold);
    column->addWidget(samplesTitle);
    m_samples = new QListWidget(this);
    m_samples->setAccessibleName(tr("Bundled samples"));
    m_samples->setMinimumHeight(60);
    m_samples->setMaximumHeight(170);
    column->addWidget(m_samples);
    column->addSpacing(8);
    m_recentTitle = new QLabel(tr("Recent files"), this);
    m_recentTitle->setFont(bold);
    column->addWidget(m_recentTitle);
    m_recent = new QListWidget(this);
    m_recent->setAccessibleName(tr("Recent files"));
    m_recent->setMinimumHeight(80);
    m_recent->setMaximumHeight(220);
    column->addWidget(m_recent);
    column->addStretch(2);
    outer->addLayout(column, 3);
    outer->addStretch(1);

    connect(m_open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(m_sample, &QPushButton::clicked, this, &WelcomePage::sampleRequested);
    connect(m_comparePair, &QPushButton::clicked, this, &WelcomePage::comparePairRequested);
    connect(m_samples, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit openFileRequested(item->data(Qt::UserRole).toString()); });
    connect(m_attach, &QPushButton::clicked, this, &WelcomePage::attachRequested);
    connect(m_record, &QPushButton::clicked, this, &WelcomePage::recordRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit openFileRequested(item->data(Qt::UserRole).toString()); });
    setRecentFiles({});
    setSamples({}, {}, false);
}

void WelcomePage::setRecentFiles(const QStringList& files) {
    m_recent->clear();
    for (const QString& file : files) {
        auto* item =
            new QListWidgetItem(QFileInfo(file).fileName() + QStringLiteral("   —   ") + file, m_recent);
        item->setData(Qt::UserRole, file);
        item->setToolTip(file);
    }
    if (files.isEmpty()) {
        auto* item = new QListWidgetItem(tr("No recent files yet."), m_recent);
        item->setFlags(Qt::NoItemFlags);
    }
}

namespace {

bool isRealSample(const QString& path) {
    return QFileInfo(path).dir().dirName() == QLatin1String("real");
}

QString sampleLabel(const QString& path) {
    return isRealSample(path)
               ? WelcomePage::tr("%1   —   real PyTorch profiler trace").arg(QFileInfo(path).fileName())
               : WelcomePage::tr("%1   —   synthetic (generated from a cost model, not a GPU)")
                     .arg(QFileInfo(path).fileName());
}

}  // namespace

void WelcomePage::setSamples(const QStringList& files, const QString& defaultSample, bool pairAvailable) {
    m_sample->setEnabled(!defaultSample.isEmpty());
    m_sample->setToolTip(defaultSample.isEmpty()
                             ? tr("No bundled samples were found (set CHOKEPOINT_SAMPLES_DIR).")
                             : tr("Opens %1").arg(defaultSample));
    m_sampleNote->setText(defaultSample.isEmpty()
                              ? tr("No bundled samples were found (set CHOKEPOINT_SAMPLES_DIR).")
                              : sampleLabel(defaultSample));
    m_comparePair->setEnabled(pairAvailable);
    m_samples->clear();
    for (const QString& file : files) {
        auto* item = new QListWidgetItem(sampleLabel(file), m_samples);
        item->setData(Qt::UserRole, file);
        item->setToolTip(file);
    }
    if (files.isEmpty()) {
        auto* item = new QListWidgetItem(tr("No bundled samples were found."), m_samples);
        item->setFlags(Qt::NoItemFlags);
    }
}

void WelcomePage::setAttachAvailable(bool enabled, const QString& reason) {
    m_attach->setEnabled(enabled);
    m_attach->setToolTip(reason);
}

}  // namespace chokepoint::ui
