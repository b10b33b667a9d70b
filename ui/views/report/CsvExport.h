#pragma once
// CSV export of any table model (RFC 4180): a header row from the model's horizontal header, then
// one line per row with the display text of each column. Fields containing a comma, a double
// quote, a line break or leading/trailing spaces are quoted, with inner quotes doubled. Lines end
// with CRLF, as RFC 4180 specifies; the file is UTF-8 without a byte-order mark.

#include <QString>

class QAbstractItemModel;

namespace chokepoint::ui {

// One CSV field, quoted when needed.
QString csvField(const QString& text);
// The whole table (top-level rows of `model`) as CSV text.
QString tableToCsv(const QAbstractItemModel& model);
// Writes tableToCsv(model) to `path`; false with `error` set (naming the file) on failure.
bool writeTableCsv(const QAbstractItemModel& model, const QString& path, QString* error = nullptr);

}  // namespace chokepoint::ui
