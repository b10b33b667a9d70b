#pragma once
// WelcomePage: what the window shows with no trace open: open a file, open the default sample,
// compare the bundled before/after pair in one click, record or attach to a running job, the
// bundled samples (real traces first, synthetic ones labelled so) and the recent files.

#include <QStringList>
#include <QWidget>

class QListWidget;
class QPushButton;
class QLabel;

namespace chokepoint::ui {

class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    void setRecentFiles(const QStringList& files);
    // `files` in display order; a sample is real when it lives in a folder named "real", otherwise
    // synthetic. `defaultSample` is what "Open sample" opens; the compare button is enabled when
    // `pairAvailable`.
    void setSamples(const QStringList& files, const QString& defaultSample, bool pairAvailable);
    // Enables "Attach to a running job" with a tooltip saying why not when `enabled` is false.
    void setAttachAvailable(bool enabled, const QString& reason);
    QListWidget* recentList() const { return m_recent; }
    QPushButton* sampleButton() const { return m_sample; }
    QPushButton* comparePairButton() const { return m_comparePair; }
    QListWidget* sampleList() const { return m_samples; }
    QPushButton* attachButton() const { return m_attach; }
    QPushButton* recordButton() const { return m_record; }

signals:
    void openRequested();
    void openFileRequested(const QString& path);
    void sampleRequested();
    void comparePairRequested();
    void attachRequested();
    void recordRequested();

private:
    QPushButton* m_open = nullptr;
    QPushButton* m_sample = nullptr;
    QLabel* m_sampleNote = nullptr;
    QPushButton* m_comparePair = nullptr;
    QListWidget* m_samples = nullptr;
    QPushButton* m_attach = nullptr;
    QPushButton* m_record = nullptr;
    QListWidget* m_recent = nullptr;
    QLabel* m_recentTitle = nullptr;
};

}  // namespace chokepoint::ui
