#pragma once
// RecordDialog: "Record" in the GUI. Starts a training command with the Chokepoint agent through
// `chokepoint-cli run` (the recording logic stays in the CLI), shows the job's output and, live,
// the records arriving on a timeline, and hands the recorded trace(s) back to be opened and
// analysed when the job ends or its window closes. Stop sends Ctrl-C to the job (its process
// group), as a terminal would; a second Stop kills it.

#include <QDialog>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "ui/shell/capture/CaptureSkipRow.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace chokepoint::ui {

class LiveCaptureView;

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);
    ~RecordDialog() override;

    enum class Window { WholeRun, Steps, Seconds };
    // What to leave out at the start, the agent dormant meanwhile (run --delay / --after-steps).
    using Skip = CaptureSkip;

    void setCommand(const QString& commandLine);
    void setWorkingDirectory(const QString& directory);
    void setOutput(const QString& path);
    void setWindow(Window window, int count = 0);
    void setStartAtStep(bool atStep);
    void setSkip(Skip skip, int count = 0);

    // The chokepoint-cli arguments for the current settings; empty with `error` set when they are
    // not usable (no command or no output file). The command runs through /bin/sh -c.
    QStringList cliArguments(QString* error = nullptr) const;

    // Starts the recording; false with the reason shown (and in `error`) when it cannot start.
    bool startRecording(QString* error = nullptr);
    // Ctrl-C to the job; when already asked once, kills it.
    void stopRecording();
    bool recording() const;

    // The traces written by the last successful recording (one per CUDA process).
    QStringList recordedFiles() const { return m_recorded; }
    QString statusText() const;
    QString logText() const;
    LiveCaptureView* liveView() const { return m_live; }

signals:
    void recordingFinished(bool succeeded);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void appendOutput();
    void updateUi();
    // Files `chokepoint-cli run -o OUT` writes while the job runs: OUT's stem, a pid, OUT's suffix.
    QStringList perProcessFiles() const;

    QLineEdit* m_command = nullptr;
    QLineEdit* m_directory = nullptr;
    QRadioButton* m_wholeRun = nullptr;
    QRadioButton* m_steps = nullptr;
    QRadioButton* m_seconds = nullptr;
    QSpinBox* m_stepCount = nullptr;
    QSpinBox* m_secondCount = nullptr;
    QCheckBox* m_atStep = nullptr;
    CaptureSkipRow* m_skip = nullptr;
    QLineEdit* m_output = nullptr;
    QPushButton* m_record = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_status = nullptr;
    LiveCaptureView* m_live = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QProcess* m_process = nullptr;
    QString m_runningOutput;
    QStringList m_recorded;
    bool m_stopAsked = false;
};

}  // namespace chokepoint::ui
