#include "ui/shell/capture/RecordDialog.h"

#include <signal.h>
#include <unistd.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/shell/capture/CapturePaths.h"
#include "ui/shell/capture/LiveCaptureView.h"

namespace chokepoint::ui {

namespace {

constexpr int kMaxLogLines = 5000;

// A row: an editable path and a Browse… button.
QWidget* pathRow(QLineEdit* edit, QPushButton* browse, QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    return row;
}

}  // namespace

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Record a Training Run"));
    resize(980, 720);
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Starts the command with the Chokepoint agent (<tt>chokepoint-cli run</tt>) and "
                      "records every process that uses CUDA. The trace opens when the job ends or "
                      "its recording window closes."),
                   this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    m_command = new QLineEdit(this);
    m_command->setPlaceholderText(tr("python train.py --epochs 1"));
    form->addRow(tr("&Command:"), m_command);
    m_directory = new QLineEdit(QDir::currentPath(), this);
    auto* browseDirectory = new QPushButton(tr("Browse…"), this);
    form->addRow(tr("&Working directory:"), pathRow(m_directory, browseDirectory, this));
    connect(browseDirectory, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Working directory"), m_directory->text());
        if (!dir.isEmpty()) {
            m_directory->setText(dir);
        }
    });

    auto* window = new QWidget(this);
    auto* windowLayout = new QHBoxLayout(window);
    windowLayout->setContentsMargins(0, 0, 0, 0);
    m_wholeRun = new QRadioButton(tr("the whole run"), window);
    m_steps = new QRadioButton(tr("the first"), window);
    m_stepCount = new QSpinBox(window);
    m_stepCount->setRange(1, 100000);
    m_stepCount->setValue(20);
    m_stepCount->setSuffix(tr(" steps"));
    m_seconds = new QRadioButton(tr("the first"), window);
    m_secondCount = new QSpinBox(window);
    m_secondCount->setRange(1, 86400);
    m_secondCount->setValue(30);
    m_secondCount->setSuffix(tr(" s"));
    m_steps->setChecked(true);
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_wholeRun, m_steps, m_stepCount, m_seconds, m_secondCount}) {
        windowLayout->addWidget(w);
    }
    windowLayout->addStretch(1);
    form->addRow(tr("Record:"), window);
    m_atStep = new QCheckBox(
        tr("start at the first step boundary (skips start-up; needs NVTX or profiler steps)"), this);
    form->addRow(QString(), m_atStep);
    // Start-up (imports, compilation, cudnn autotuning) is rarely what a user wants to diagnose.
    m_skip = new CaptureSkipRow(this);
    form->addRow(tr("S&kip:"), m_skip);
    m_output = new QLineEdit(newCapturePath(QStringLiteral("run")), this);
    auto* browseOutput = new QPushButton(tr("Browse…"), this);
    form->addRow(tr("&Save to:"), pathRow(m_output, browseOutput, this));
    connect(browseOutput, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the recording"), m_output->text(),
                                                          tr("Chokepoint traces (*.cptrace)"));
        if (!path.isEmpty()) {
            m_output->setText(path);
        }
    });
    layout->addLayout(form);

    auto* actions = new QHBoxLayout;
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    actions->addWidget(m_status, 1);
    m_record = new QPushButton(tr("Record"), this);
    m_record->setDefault(true);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Sends Ctrl-C to the job; press again to kill it"));
    actions->addWidget(m_record);
    actions->addWidget(m_stop);
    layout->addLayout(actions);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_live = new LiveCaptureView(split);
    m_log = new QPlainTextEdit(split);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(kMaxLogLines);
    m_log->setPlaceholderText(tr("The job's output appears here."));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_log->setFont(mono);
    split->addWidget(m_live);
    split->addWidget(m_log);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_record, &QPushButton::clicked, this, [this] { startRecording(); });
    connect(m_stop, &QPushButton::clicked, this, &RecordDialog::stopRecording);
    connect(m_command, &QLineEdit::textChanged, this, &RecordDialog::updateUi);
    updateUi();
    if (chokepointCliPath().isEmpty()) {
        m_status->setText(
            tr("chokepoint-cli was not found next to this program or on PATH, so recording is "
               "not possible."));
    }
}

RecordDialog::~RecordDialog() {
    if (recording()) {
        // Closing the dialog ends the job as Ctrl-C would, then for good.
        const pid_t group = static_cast<pid_t>(m_process->processId());
        ::kill(-group, SIGINT);
        if (!m_process->waitForFinished(5000)) {
            ::kill(-group, SIGKILL);
            m_process->waitForFinished(2000);
        }
    }
}

void RecordDialog::setCommand(const QString& commandLine) {
    m_command->setText(commandLine);
}

void RecordDialog::setWorkingDirectory(const QString& directory) {
    m_directory->setText(directory);
}

void RecordDialog::setOutput(const QString& path) {
    m_output->setText(path);
}

void RecordDialog::setWindow(Window window, int count) {
    switch (window) {
        case Window::WholeRun:
            m_wholeRun->setChecked(true);
            break;
        case Window::Steps:
            m_steps->setChecked(true);
            m_stepCount->setValue(count);
            break;
        case Window::Seconds:
            m_seconds->setChecked(true);
            m_secondCount->setValue(count);
            break;
    }
}

void RecordDialog::setStartAtStep(bool atStep) {
    m_atStep->setChecked(atStep);
}

void RecordDialog::setSkip(Skip skip, int count) {
    m_skip->setSkip(skip, count);
}

bool RecordDialog::recording() const {
    return m_process != nullptr && m_process->state() != QProcess::NotRunning;
}

QString RecordDialog::statusText() const {
    return m_status->text();
}

QString RecordDialog::logText() const {
    return m_log->toPlainText();
}

QStringList RecordDialog::cliArguments(QString* error) const {
    auto fail = [error](const QString& why) {
        if (error != nullptr) {
            *error = why;
        }
        return QStringList{};
    };
    // A shell command line, as typed in a terminal: quotes, VAR=value prefixes and pipes work, and
    // the shell reports its own syntax errors in the log.
    const QString command = m_command->text().trimmed();
    if (command.isEmpty()) {
        return fail(tr("Type the command that starts the training, for example: python train.py"));
    }
    const QString output = m_output->text().trimmed();
    if (output.isEmpty()) {
        return fail(tr("Choose where to save the recording."));
    }
    QStringList args{QStringLiteral("run")};
    if (m_steps->isChecked()) {
        args << QStringLiteral("--steps") << QString::number(m_stepCount->value());
    } else if (m_seconds->isChecked()) {
        args << QStringLiteral("--duration") << QString::number(m_secondCount->value());
    }
    if (m_atStep->isChecked()) {
        args << QStringLiteral("--at-step");
    }
    args << m_skip->cliArguments();
    args << QStringLiteral("-o") << QFileInfo(output).absoluteFilePath() << QStringLiteral("--")
         << QStringLiteral("/bin/sh") << QStringLiteral("-c") << command;
    return args;
}

bool RecordDialog::startRecording(QString* error) {
    QString why;
    const QString cli = chokepointCliPath();
    const QStringList args = cliArguments(&why);
    const QFileInfo directory(m_directory->text());
    if (recording()) {
        why = tr("A recording is already running.");
    } else if (cli.isEmpty()) {
        why = tr("chokepoint-cli was not found next to this program or on PATH.");
    } else if (!args.isEmpty() && !directory.isDir()) {
        why = tr("The working directory %1 does not exist.").arg(m_directory->text());
    }
    if (args.isEmpty() || !why.isEmpty()) {
        m_status->setText(why);
        if (error != nullptr) {
            *error = why;
        }
        return false;
    }
    const QString output = args[args.indexOf(QStringLiteral("-o")) + 1];
    QDir().mkpath(QFileInfo(output).absolutePath());
    // The chosen file is replaced (the save dialog asked): an old one would be shown live and
    // opened as if this run had written it.
    QFile::remove(output);
    m_runningOutput = output;
    m_recorded.clear();
    m_stopAsked = false;
    m_log->clear();
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setWorkingDirectory(directory.absoluteFilePath());
    // Its own process group, so Stop reaches the job and its workers the way Ctrl-C would.
    m_process->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(m_process, &QProcess::readyRead, this, &RecordDialog::appendOutput);
    connect(m_process, &QProcess::finished, this, &RecordDialog::onFinished);
    m_process->start(cli, args);
    if (!m_process->waitForStarted(5000)) {
        why = tr("Could not start %1: %2").arg(cli, m_process->errorString());
        m_process->deleteLater();
        m_process = nullptr;
        m_status->setText(why);
        if (error != nullptr) {
            *error = why;
        }
        return false;
    }
    m_log->appendPlainText(
        QStringLiteral("$ cd %1\n$ %2 %3")
            .arg(directory.absoluteFilePath(), QFileInfo(cli).fileName(), args.join(QLatin1Char(' '))));
    m_live->follow([this] { return perProcessFiles(); });
    m_status->setText(tr("Recording… the job runs with the agent."));
    updateUi();
    return true;
}

void RecordDialog::stopRecording() {
    if (!recording()) {
        return;
    }
    const pid_t group = static_cast<pid_t>(m_process->processId());
    if (!m_stopAsked) {
        ::kill(-group, SIGINT);
        m_stopAsked = true;
        m_stop->setText(tr("Kill"));
        m_status->setText(
            tr("Ctrl-C sent; waiting for the job to stop and the agent to write its last records…"));
    } else {
        ::kill(-group, SIGKILL);
        m_status->setText(tr("Killed the job; its last records may be missing."));
    }
}

QStringList RecordDialog::perProcessFiles() const {
    const QFileInfo out(m_runningOutput);
    const QString stem = out.completeBaseName() + QLatin1Char('.');
    const QString suffix = QLatin1Char('.') + out.suffix();
    QStringList files;
    const QDir dir = out.absoluteDir();
    for (const QString& name : dir.entryList({stem + QStringLiteral("*") + suffix}, QDir::Files)) {
        const QString middle = name.mid(stem.size(), name.size() - stem.size() - suffix.size());
        bool digits = !middle.isEmpty();
        for (QChar c : middle) {
            digits = digits && c.isDigit();
        }
        if (digits) {
            files << dir.filePath(name);
        }
    }
    if (out.exists()) {
        files << out.absoluteFilePath();  // one process: renamed to the chosen name at the end
    }
    return files;
}

void RecordDialog::appendOutput() {
    const QString text = QString::fromLocal8Bit(m_process->readAll());
    m_log->moveCursor(QTextCursor::End);
    m_log->insertPlainText(text);
    m_log->moveCursor(QTextCursor::End);
}

void RecordDialog::onFinished(int exitCode, QProcess::ExitStatus status) {
    appendOutput();
    m_live->pollNow();  // the last look at what arrived
    m_live->stop();
    const QStringList files = perProcessFiles();
    m_process->deleteLater();
    m_process = nullptr;
    m_stop->setText(tr("Stop"));
    const bool crashed = status == QProcess::CrashExit;
    if (!crashed && exitCode == 0 && !files.isEmpty()) {
        m_recorded = files;
        m_status->setText(files.size() == 1 ? tr("Recorded %1.").arg(files.first())
                                            : tr("Recorded %1 processes.").arg(files.size()));
        updateUi();
        emit recordingFinished(true);
        accept();
        return;
    }
    // The CLI's own message (last lines of the log) says what went wrong.
    QStringList lines = m_log->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QString last = lines.isEmpty() ? QString() : lines.last();
    m_status->setText(crashed ? tr("chokepoint-cli stopped unexpectedly; see its output below.")
                              : tr("Nothing to open (exit code %1): %2").arg(exitCode).arg(last));
    updateUi();
    emit recordingFinished(false);
}

void RecordDialog::updateUi() {
    const bool busy = recording();
    m_record->setEnabled(!busy && !m_command->text().trimmed().isEmpty() && !chokepointCliPath().isEmpty());
    m_stop->setEnabled(busy);
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_command, m_directory, m_wholeRun, m_steps, m_stepCount, m_seconds,
                                         m_secondCount, m_atStep, m_skip, m_output}) {
        w->setEnabled(!busy);
    }
}

}  // namespace chokepoint::ui
