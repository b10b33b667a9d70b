#pragma once
// CaptureSkipRow: what to skip before a recording starts ("nothing", "the first seconds", "the
// first steps" and a count), the GUI's face of chokepoint-cli's --delay S / --after-steps N. The
// agent stays dormant until then, so start-up (imports, compilation, cudnn autotuning) runs at full
// speed and stays out of the recording. The Record dialog (run) and the Attach dialog (attach) share
// it.

#include <QStringList>
#include <QWidget>

class QComboBox;
class QSpinBox;

namespace chokepoint::ui {

enum class CaptureSkip { Nothing, Seconds, Steps };

class CaptureSkipRow : public QWidget {
    Q_OBJECT
public:
    explicit CaptureSkipRow(QWidget* parent = nullptr);

    void setSkip(CaptureSkip skip, int count = 0);
    CaptureSkip skip() const;
    int count() const;
    // The chokepoint-cli options for the choice: {"--delay", "S"}, {"--after-steps", "N"} or none.
    QStringList cliArguments() const;

private:
    QComboBox* m_skip = nullptr;
    QSpinBox* m_count = nullptr;
};

}  // namespace chokepoint::ui
