#pragma once
// AttachDialog: lists the training processes that run with the Chokepoint agent (their control
// sockets in the runtime directory, via collectors/control), records a window from the chosen one
// with `chokepoint-cli attach PID --duration S -o FILE` in a child process, shows the records
// arriving on a timeline while it records (LiveCaptureView), and hands the file back to be opened
// and analysed. The recording logic stays in the CLI; the dialog only drives it.

#include <QDialog>
#include <QString>
#include <QStringList>

#include "ui/shell/capture/CaptureSkipRow.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProcess;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace chokepoint::ui {

class LiveCaptureView;

class AttachDialog : public QDialog {
    Q_OBJECT
public:
    explicit AttachDialog(QWidget* parent = nullptr);
    ~AttachDialog() override;

    // The recorded trace, once the dialog was accepted.
    QString recordedFile() const { return m_output; }
    // Fills the table from the runtime directory; returns the number of live agents found.
    int refresh();
    LiveCaptureView* liveView() const { return m_live; }
    // The window to record: `count` seconds, or `count` training steps; optionally from the next
    // step boundary.
    void setWindow(int count, bool steps, bool atStep);
    // What to skip before the window (attach --delay S / --after-steps N): the agent stays dormant
    // until then.
    void setSkip(CaptureSkip skip, int count);
    // The chokepoint-cli arguments for recording process `pid` into `output` with that window.
    QStringList attachArguments(const QString& pid, const QString& output) const;

private:
    void record();
    void onFinished(int exitCode);

    QTableWidget* m_table = nullptr;
    QSpinBox* m_seconds = nullptr;  // the count: seconds or steps
    QComboBox* m_unit = nullptr;
    QCheckBox* m_atStep = nullptr;
    CaptureSkipRow* m_skip = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_refresh = nullptr;
    QPushButton* m_record = nullptr;
    QProcess* m_process = nullptr;
    LiveCaptureView* m_live = nullptr;
    QString m_output;
};

}  // namespace chokepoint::ui
