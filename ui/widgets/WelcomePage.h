#pragma once
// WelcomePage: what the window shows with no trace open: open a file, open a bundled sample,
// attach to a running job (enabled when the collector client can list live agents), and the
// recent files.

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
    void setSamples(const QStringList& files);
    // Enables "Attach to a running job" with a tooltip saying why not when `enabled` is false.
    void setAttachAvailable(bool enabled, const QString& reason);
    QListWidget* recentList() const { return m_recent; }
    QPushButton* sampleButton() const { return m_sample; }
    QPushButton* attachButton() const { return m_attach; }
    QPushButton* recordButton() const { return m_record; }

signals:
    void openRequested();
    void openFileRequested(const QString& path);
    void sampleRequested();
    void attachRequested();
    void recordRequested();

private:
    QPushButton* m_open = nullptr;
    QPushButton* m_sample = nullptr;
    QPushButton* m_attach = nullptr;
    QPushButton* m_record = nullptr;
    QListWidget* m_recent = nullptr;
    QLabel* m_recentTitle = nullptr;
};

}  // namespace chokepoint::ui
