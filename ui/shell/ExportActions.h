#pragma once
// ExportActions: the File > Export menu. Writes the open document's diagnosis (HTML with the plots,
// PDF, Markdown, JSON), its tables (CSV) and the trace itself (.cptrace for fast reopening, Chrome
// trace JSON for Perfetto). Report items need the analysis; trace items only the model. Each item
// asks for a file name, writes it, and reports a failure in a dialog that names the file.

#include <QObject>
#include <QString>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace chokepoint::ui {

class TraceDocument;

class ExportActions : public QObject {
    Q_OBJECT
public:
    enum class Kind {
        ReportHtml,
        ReportPdf,
        ReportMarkdown,
        ReportJson,
        TopKernelsCsv,
        TopOpsCsv,
        TraceCptrace,
        TraceChromeJson,
    };

    // Adds the items to `menu`; dialogs are parented to `dialogParent`.
    ExportActions(TraceDocument* document, QMenu* menu, QWidget* dialogParent);

    // Writes `kind` to `path` without asking; false with `error` set (naming the file) on failure.
    bool exportTo(Kind kind, const QString& path, QString* error = nullptr) const;
    // exportTo(), then says in the main window's status bar where it wrote (ExportNotice).
    bool exportAndAnnounce(Kind kind, const QString& path, QString* error = nullptr) const;
    // What `kind` exports, for the notice: "the diagnosis report", "every kernel".
    static QString exportedWhat(Kind kind);
    // Whether `kind` can be written now (a model, and an analysis for report items).
    bool available(Kind kind) const;
    QAction* action(Kind kind) const;

private:
    void updateEnabled();
    void chooseAndExport(Kind kind);

    TraceDocument* m_document;
    QWidget* m_dialogParent;
    std::vector<std::pair<Kind, QAction*>> m_actions;
};

}  // namespace chokepoint::ui
