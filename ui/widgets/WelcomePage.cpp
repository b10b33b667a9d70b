#include "ui/widgets/WelcomePage.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/AppIcon.h"

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

    auto makeButton = [this, &column](const QString& text, const QString& detail) {
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
        note->setStyleSheet(QStringLiteral("color: #5c6670; margin-left: 6px; margin-bottom: 8px;"));
        column->addWidget(note);
        return b;
    };
    m_open = makeButton(tr("Open a trace…"),
                        tr("PyTorch profiler / Kineto JSON (.json, .json.gz), Nsight Systems "
                           "SQLite export (.sqlite) or Chokepoint .cptrace. You can also drop "
                           "a file on this window."));
    m_sample = makeButton(tr("Open sample"), tr("A bundled synthetic trace of a small training job."));
    m_record = makeButton(tr("Record a training run…"),
                          tr("Start your training command with the Chokepoint agent and watch the records "
                             "arrive; the trace opens when the run or its recording window ends."));
    m_attach = makeButton(tr("Attach to a running job…"),
                          tr("Capture from a training process that runs with the Chokepoint agent."));
    column->addSpacing(12);
    m_recentTitle = new QLabel(tr("Recent files"), this);
    QFont bold = m_recentTitle->font();
    bold.setBold(true);
    m_recentTitle->setFont(bold);
    column->addWidget(m_recentTitle);
    m_recent = new QListWidget(this);
    m_recent->setMinimumHeight(140);
    m_recent->setMaximumHeight(220);
    column->addWidget(m_recent);
    column->addStretch(2);
    outer->addLayout(column, 3);
    outer->addStretch(1);

    connect(m_open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(m_sample, &QPushButton::clicked, this, &WelcomePage::sampleRequested);
    connect(m_attach, &QPushButton::clicked, this, &WelcomePage::attachRequested);
    connect(m_record, &QPushButton::clicked, this, &WelcomePage::recordRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit openFileRequested(item->data(Qt::UserRole).toString()); });
    setRecentFiles({});
    setSamples({});
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

void WelcomePage::setSamples(const QStringList& files) {
    m_sample->setEnabled(!files.isEmpty());
    m_sample->setToolTip(files.isEmpty() ? tr("No bundled samples were found (set CHOKEPOINT_SAMPLES_DIR).")
                                         : tr("Opens %1").arg(files.first()));
}

void WelcomePage::setAttachAvailable(bool enabled, const QString& reason) {
    m_attach->setEnabled(enabled);
    m_attach->setToolTip(reason);
}

}  // namespace chokepoint::ui
