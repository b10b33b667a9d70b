#include "ui/shell/ExportActions.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/CsvTables.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#pragma pop_macro("signals")

#include "core/format/ChromeTraceExporter.h"
#include "core/format/CptraceWriter.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/widgets/ExportNotice.h"
#include "ui/views/report/DiagnosisReport.h"

namespace chokepoint::ui {

namespace {

struct ExportItem {
    ExportActions::Kind kind;
    const char* label;
    const char* filter;
    const char* suffix;
    bool needsReport;
};

const ExportItem kItems[] = {
    {ExportActions::Kind::ReportHtml, QT_TR_NOOP("Diagnosis Report as &HTML…"),
     QT_TR_NOOP("HTML files (*.html)"), ".html", true},
    {ExportActions::Kind::ReportPdf, QT_TR_NOOP("Diagnosis Report as &PDF…"), QT_TR_NOOP("PDF files (*.pdf)"),
     ".pdf", true},
    {ExportActions::Kind::ReportMarkdown, QT_TR_NOOP("Diagnosis Report as &Markdown…"),
     QT_TR_NOOP("Markdown files (*.md)"), ".md", true},
    {ExportActions::Kind::ReportJson, QT_TR_NOOP("Diagnosis Report as &JSON…"),
     QT_TR_NOOP("JSON files (*.json)"), ".json", true},
    {ExportActions::Kind::TopKernelsCsv, QT_TR_NOOP("All &Kernels as CSV (ns, counts)…"),
     QT_TR_NOOP("CSV files (*.csv)"), ".csv", true},
    {ExportActions::Kind::TopOpsCsv, QT_TR_NOOP("All &Ops as CSV (ns, counts)…"),
     QT_TR_NOOP("CSV files (*.csv)"), ".csv", true},
    {ExportActions::Kind::TraceCptrace, QT_TR_NOOP("Trace as &Chokepoint Trace (.cptrace)…"),
     QT_TR_NOOP("Chokepoint traces (*.cptrace)"), ".cptrace", false},
    {ExportActions::Kind::TraceChromeJson, QT_TR_NOOP("Trace as Chrome Trace &JSON (Perfetto)…"),
     QT_TR_NOOP("JSON files (*.json)"), ".json", false},
};

const ExportItem& itemFor(ExportActions::Kind kind) {
    for (const ExportItem& item : kItems) {
        if (item.kind == kind) {
            return item;
        }
    }
    return kItems[0];
}

bool writeText(const QString& path, const std::string& text, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        if (error != nullptr) {
            *error = QObject::tr("%1: could not write: %2").arg(path, file.errorString());
        }
        return false;
    }
    return true;
}

bool fromStatus(const core::Status& status, const QString& path, QString* error) {
    if (status.ok()) {
        return true;
    }
    if (error != nullptr) {
        const QString message = QString::fromStdString(status.error().message);
        *error = message.contains(path) ? message : path + QStringLiteral(": ") + message;
    }
    return false;
}

}  // namespace

ExportActions::ExportActions(TraceDocument* document, QMenu* menu, QWidget* dialogParent)
    : QObject(menu), m_document(document), m_dialogParent(dialogParent) {
    bool reportSection = true;
    for (const ExportItem& item : kItems) {
        if (reportSection != item.needsReport || item.kind == Kind::TopKernelsCsv) {
            menu->addSeparator();
            reportSection = item.needsReport;
        }
        QAction* action = menu->addAction(tr(item.label));
        const Kind kind = item.kind;
        connect(action, &QAction::triggered, this, [this, kind] { chooseAndExport(kind); });
        m_actions.emplace_back(item.kind, action);
    }
    action(Kind::ReportHtml)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    action(Kind::ReportPdf)->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    action(Kind::TraceCptrace)->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    for (auto signal : {&TraceDocument::loadStarted, &TraceDocument::loadFailed}) {
        connect(document, signal, this, &ExportActions::updateEnabled);
    }
    connect(document, &TraceDocument::modelAvailable, this, &ExportActions::updateEnabled);
    connect(document, &TraceDocument::analysisAvailable, this, &ExportActions::updateEnabled);
    connect(document, &TraceDocument::analysisFailed, this, &ExportActions::updateEnabled);
    connect(document, &TraceDocument::cancelled, this, &ExportActions::updateEnabled);
    updateEnabled();
}

QAction* ExportActions::action(Kind kind) const {
    for (const auto& [k, a] : m_actions) {
        if (k == kind) {
            return a;
        }
    }
    return nullptr;
}

bool ExportActions::available(Kind kind) const {
    if (!m_document->model()) {
        return false;
    }
    return !itemFor(kind).needsReport || m_document->report() != nullptr;
}

void ExportActions::updateEnabled() {
    for (const auto& [kind, a] : m_actions) {
        a->setEnabled(available(kind));
    }
}

QString ExportActions::exportedWhat(Kind kind) {
    switch (kind) {
        case Kind::ReportHtml:
        case Kind::ReportPdf:
        case Kind::ReportMarkdown:
        case Kind::ReportJson:
            return tr("the diagnosis report");
        case Kind::TopKernelsCsv:
            return tr("every kernel");
        case Kind::TopOpsCsv:
            return tr("every op");
        case Kind::TraceCptrace:
        case Kind::TraceChromeJson:
            return tr("the trace");
    }
    return {};
}

bool ExportActions::exportTo(Kind kind, const QString& path, QString* error) const {
    if (!available(kind)) {
        if (error != nullptr) {
            *error = tr("%1: nothing to export yet (open a trace and wait for its analysis)").arg(path);
        }
        return false;
    }
    const auto model = m_document->model();
    const auto report = m_document->report();
    switch (kind) {
        case Kind::ReportHtml:
            return buildDiagnosisReport(*report, model.get()).writeHtml(path, error);
        case Kind::ReportPdf:
            return buildDiagnosisReport(*report, model.get()).writePdf(path, error);
        case Kind::ReportMarkdown:
            return writeText(path, analysis::writeMarkdownReport(*report), error);
        case Kind::ReportJson:
            return writeText(path, analysis::writeJsonReport(*report), error);
        case Kind::TopKernelsCsv:  // every kernel, base units (core/analysis/diagnosis/CsvTables.h)
            return writeText(path, analysis::writeKernelsCsv(*report, *model), error);
        case Kind::TopOpsCsv:
            return writeText(path, analysis::writeOpsCsv(*report, *model), error);
        case Kind::TraceCptrace:
            return fromStatus(core::writeCptrace(*model, path.toStdString()), path, error);
        case Kind::TraceChromeJson:
            return fromStatus(core::exportChromeTrace(*model, path.toStdString()), path, error);
    }
    return false;
}

void ExportActions::chooseAndExport(Kind kind) {
    const ExportItem& item = itemFor(kind);
    // Suggest the trace's name with the new suffix, beside the trace.
    QString suggestion;
    if (!m_document->filePath().isEmpty()) {
        const QFileInfo trace(m_document->filePath());
        QString base = trace.fileName();
        for (const char* known : {".json.gz", ".pt.trace.json", ".json", ".gz", ".sqlite", ".cptrace"}) {
            if (base.endsWith(QLatin1String(known))) {
                base.chop(static_cast<int>(qstrlen(known)));
                break;
            }
        }
        if (kind == Kind::TopKernelsCsv) {
            base += QStringLiteral("-kernels");
        } else if (kind == Kind::TopOpsCsv) {
            base += QStringLiteral("-ops");
        } else if (item.needsReport) {
            base += QStringLiteral("-report");
        }
        suggestion = trace.dir().filePath(base + QLatin1String(item.suffix));
    }
    const QString path =
        QFileDialog::getSaveFileName(m_dialogParent, tr("Export"), suggestion, tr(item.filter));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (!exportAndAnnounce(kind, path, &error)) {
        QMessageBox::warning(m_dialogParent, tr("Export failed"), error);
    }
}

bool ExportActions::exportAndAnnounce(Kind kind, const QString& path, QString* error) const {
    if (!exportTo(kind, path, error)) {
        return false;
    }
    showExportNotice(m_dialogParent, exportedWhat(kind), path);
    return true;
}

}  // namespace chokepoint::ui
