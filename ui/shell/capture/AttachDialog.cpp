#include "ui/shell/capture/AttachDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "collectors/control/AgentDirectory.h"
#include "collectors/control/RuntimeDir.h"
#include "ui/shell/capture/CapturePaths.h"
#include "ui/shell/capture/CaptureSkipRow.h"
#include "ui/shell/capture/LiveCaptureView.h"

namespace chokepoint::ui {

AttachDialog::AttachDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Attach to a Running Job"));
    resize(900, 640);
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Processes started with <tt>chokepoint-cli launch -- COMMAND</tt> wait with a dormant "
                      "agent. Pick one and record a window of its training."),
                   this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(0, 4, this);
    m_table->setHorizontalHeaderLabels({tr("PID"), tr("Command"), tr("GPUs"), tr("State")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);
    auto* options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Record"), this));
    m_seconds = new QSpinBox(this);
    m_seconds->setRange(1, 100000);
    m_seconds->setValue(10);
    options->addWidget(m_seconds);
    m_unit = new QComboBox(this);
    m_unit->addItems({tr("seconds"), tr("training steps")});
    options->addWidget(m_unit);
    m_atStep = new QCheckBox(tr("from the next step boundary"), this);
    options->addWidget(m_atStep);
    options->addStretch(1);
    m_refresh = new QPushButton(tr("Refresh"), this);
    m_record = new QPushButton(tr("Record"), this);
    m_record->setDefault(true);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Ends the recording now and keeps what was recorded"));
    m_stop->setEnabled(false);
    options->addWidget(m_refresh);
    options->addWidget(m_record);
    options->addWidget(m_stop);
    layout->addLayout(options);
    // Attaching during start-up: the same "skip" as the Record dialog (attach --delay / --after-steps).
    auto* skipRow = new QHBoxLayout;
    skipRow->addWidget(new QLabel(tr("Skip"), this));
    m_skip = new CaptureSkipRow(this);
    skipRow->addWidget(m_skip, 1);
    layout->addLayout(skipRow);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_live = new LiveCaptureView(this);
    m_live->hide();  // shown while recording
    layout->addWidget(m_live, 2);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_refresh, &QPushButton::clicked, this, &AttachDialog::refresh);
    connect(m_record, &QPushButton::clicked, this, &AttachDialog::record);
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (m_process != nullptr) {
            m_process->terminate();  // the CLI stops the capture and writes what it has
            m_status->setText(tr("Stopping: waiting for the last records…"));
        }
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_record->setEnabled(!m_process && !m_table->selectedItems().isEmpty()); });
    refresh();
}

AttachDialog::~AttachDialog() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();  // the CLI stops the capture cleanly on SIGTERM
        if (!m_process->waitForFinished(3000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

int AttachDialog::refresh() {
    m_table->setRowCount(0);
    const std::string dir = collectors::defaultRuntimeDir();
    const collectors::AgentListing listing =
        collectors::listAgents(dir, /*removeStale=*/true, /*timeoutMs=*/1000);
    int live = 0;
    for (const collectors::AgentEntry& agent : listing.agents) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(QString::number(agent.pid)));
        QStringList command;
        QStringList gpus;
        QString state;
        if (agent.responded) {
            for (const std::string& part : agent.status.command_line()) {
                command << QString::fromStdString(part);
            }
            for (const std::string& gpu : agent.status.gpu_names()) {
                gpus << QString::fromStdString(gpu);
            }
            switch (agent.status.state()) {
                case control::AGENT_STATE_DORMANT:
                    state = tr("waiting (dormant)");
                    break;
                case control::AGENT_STATE_ARMED:
                    state = tr("armed for the next step");
                    break;
                case control::AGENT_STATE_CAPTURING:
                    state = tr("recording");
                    break;
                case control::AGENT_STATE_DRAINING:
                    state = tr("finishing a recording");
                    break;
                default:
                    state = tr("unknown");
                    break;
            }
            ++live;
        } else {
            state = tr("not responding: %1").arg(QString::fromStdString(agent.error));
        }
        m_table->setItem(row, 1, new QTableWidgetItem(command.join(QLatin1Char(' '))));
        m_table->setItem(row, 2,
                         new QTableWidgetItem(gpus.isEmpty() ? tr("(no CUDA context yet)")
                                                             : gpus.join(QStringLiteral(", "))));
        m_table->setItem(row, 3, new QTableWidgetItem(state));
    }
    if (!listing.error.empty()) {
        m_status->setText(
            tr("Cannot read %1: %2").arg(QString::fromStdString(dir), QString::fromStdString(listing.error)));
    } else if (listing.agents.empty()) {
        m_status->setText(tr("No running job with the Chokepoint agent was found in %1. Start one with "
                             "<tt>chokepoint-cli launch -- python train.py</tt>.")
                              .arg(QString::fromStdString(dir)));
    } else {
        m_status->setText(tr("%n job(s) found.", nullptr, live));
    }
    if (chokepointCliPath().isEmpty()) {
        m_status->setText(m_status->text() + QLatin1Char(' ') +
                          tr("chokepoint-cli was not found, so recording is not possible."));
    }
    m_record->setEnabled(false);
    if (live > 0) {
        m_table->selectRow(0);
    }
    return live;
}

QStringList AttachDialog::attachArguments(const QString& pid, const QString& output) const {
    QStringList args{QStringLiteral("attach"), pid};
    args << (m_unit->currentIndex() == 0 ? QStringLiteral("--duration") : QStringLiteral("--steps"))
         << QString::number(m_seconds->value());
    if (m_atStep->isChecked()) {
        args << QStringLiteral("--at-step");
    }
    args << m_skip->cliArguments();
    args << QStringLiteral("-o") << output;
    return args;
}

void AttachDialog::setSkip(CaptureSkip skip, int count) {
    m_skip->setSkip(skip, count);
}

void AttachDialog::setWindow(int count, bool steps, bool atStep) {
    m_seconds->setValue(count);
    m_unit->setCurrentIndex(steps ? 1 : 0);
    m_atStep->setChecked(atStep);
}

void AttachDialog::record() {
    const QList<QTableWidgetItem*> selected = m_table->selectedItems();
    const QString cli = chokepointCliPath();
    if (selected.isEmpty() || cli.isEmpty()) {
        return;
    }
    const QString pid = m_table->item(selected.first()->row(), 0)->text();
    m_output = newCapturePath(QStringLiteral("attach-%1").arg(pid));
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::finished, this, [this](int exitCode) { onFinished(exitCode); });
    m_process->start(cli, attachArguments(pid, m_output));
    m_record->setEnabled(false);
    m_refresh->setEnabled(false);
    m_stop->setEnabled(true);
    m_status->setText(m_unit->currentIndex() == 0
                          ? tr("Recording %1 s from process %2…").arg(m_seconds->value()).arg(pid)
                          : tr("Recording %1 steps from process %2…").arg(m_seconds->value()).arg(pid));
    m_live->show();
    m_live->follow(m_output);
}

void AttachDialog::onFinished(int exitCode) {
    const QString output = QString::fromLocal8Bit(m_process->readAll()).trimmed();
    m_process->deleteLater();
    m_process = nullptr;
    m_refresh->setEnabled(true);
    m_stop->setEnabled(false);
    m_live->pollNow();
    m_live->stop();
    if (exitCode == 0 && QFileInfo::exists(m_output)) {
        accept();
        return;
    }
    m_status->setText(tr("Recording failed (exit code %1): %2").arg(exitCode).arg(output.toHtmlEscaped()));
    m_output.clear();
    m_record->setEnabled(!m_table->selectedItems().isEmpty());
}

}  // namespace chokepoint::ui
