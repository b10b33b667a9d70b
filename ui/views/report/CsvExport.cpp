#include "ui/views/report/CsvExport.h"

#include <QAbstractItemModel>
#include <QSaveFile>

namespace chokepoint::ui {

QString csvField(const QString& text) {
    const bool needsQuotes = text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
                             text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r')) ||
                             (!text.isEmpty() && (text.front().isSpace() || text.back().isSpace()));
    if (!needsQuotes) {
        return text;
    }
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString tableToCsv(const QAbstractItemModel& model) {
    QString out;
    const int columns = model.columnCount();
    for (int c = 0; c < columns; ++c) {
        if (c > 0) {
            out += QLatin1Char(',');
        }
        out += csvField(model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    }
    out += QStringLiteral("\r\n");
    const int rows = model.rowCount();
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < columns; ++c) {
            if (c > 0) {
                out += QLatin1Char(',');
            }
            out += csvField(model.data(model.index(r, c), Qt::DisplayRole).toString());
        }
        out += QStringLiteral("\r\n");
    }
    return out;
}

bool writeTableCsv(const QAbstractItemModel& model, const QString& path, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        }
        return false;
    }
    const QByteArray bytes = tableToCsv(model).toUtf8();
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: write failed: %2").arg(path, file.errorString());
        }
        return false;
    }
    return true;
}

}  // namespace chokepoint::ui
