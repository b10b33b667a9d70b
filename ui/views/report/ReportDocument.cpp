#include "ui/views/report/ReportDocument.h"

#include <QAbstractItemModel>
#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <QUrl>

#include "chokepoint/BuildId.h"
#include "chokepoint/Version.h"

namespace chokepoint::ui {
namespace {

// Kept to what both browsers and QTextDocument's HTML subset understand. Light in every theme on
// purpose: reports are shared, printed and opened in browsers of any theme (their charts are
// rendered with lightPalette(), DiagnosisReport.cpp).
constexpr const char* kStyle = R"(
body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #1d1d1f; margin: 24px; }
h1 { font-size: 18pt; margin-bottom: 4px; }
h2 { font-size: 14pt; margin-top: 18px; border-bottom: 1px solid #ccc; }
h3 { font-size: 11pt; margin-top: 12px; }
p.verdict { font-size: 14pt; font-weight: bold; color: #8a1c1c; }
p.muted { color: #666666; }
p.warning { color: #8a5a00; }
table { border-collapse: collapse; margin: 6px 0; }
th { background-color: #eeeeee; text-align: left; padding: 3px 8px; border: 1px solid #cccccc; }
td { padding: 3px 8px; border: 1px solid #dddddd; }
td.key { font-weight: bold; }
pre { background-color: #f6f6f6; border: 1px solid #dddddd; padding: 6px; font-family: 'DejaVu Sans Mono', monospace; font-size: 9pt; }
.caption { color: #555555; font-size: 9pt; }
)";

QString imagePng(const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return QString::fromLatin1(bytes.toBase64());
}

}  // namespace

QString htmlEscape(const QString& text) {
    QString escaped = text.toHtmlEscaped();  // & < > "
    escaped.replace(QLatin1Char('\''), QStringLiteral("&#39;"));
    return escaped;
}

ReportDocument::ReportDocument(QString title) : m_title(std::move(title)) {}

void ReportDocument::addHtml(QString html) {
    Block block;
    block.html = std::move(html);
    m_blocks.push_back(std::move(block));
}

void ReportDocument::addHeading(const QString& text, int level) {
    level = std::clamp(level, 1, 3);
    addHtml(QStringLiteral("<h%1>%2</h%1>\n").arg(level).arg(htmlEscape(text)));
}

void ReportDocument::addParagraph(const QString& text, const QString& tone) {
    const QString cls = tone.isEmpty() ? QString() : QStringLiteral(" class=\"%1\"").arg(htmlEscape(tone));
    QString body = htmlEscape(text);
    body.replace(QLatin1Char('\n'), QStringLiteral("<br/>"));
    addHtml(QStringLiteral("<p%1>%2</p>\n").arg(cls, body));
}

void ReportDocument::addFacts(const std::vector<std::pair<QString, QString>>& facts) {
    QString html = QStringLiteral("<table>\n");
    for (const auto& [key, value] : facts) {
        html += QStringLiteral("<tr><td class=\"key\">%1</td><td>%2</td></tr>\n")
                    .arg(htmlEscape(key), htmlEscape(value));
    }
    html += QStringLiteral("</table>\n");
    addHtml(html);
}

void ReportDocument::addTable(const QStringList& headers, const std::vector<QStringList>& rows,
                              const QString& caption) {
    QString html;
    if (!caption.isEmpty()) {
        html += QStringLiteral("<p class=\"caption\">%1</p>\n").arg(htmlEscape(caption));
    }
    html += QStringLiteral("<table>\n<tr>");
    for (const QString& h : headers) {
        html += QStringLiteral("<th>%1</th>").arg(htmlEscape(h));
    }
    html += QStringLiteral("</tr>\n");
    for (const QStringList& row : rows) {
        html += QStringLiteral("<tr>");
        for (const QString& cell : row) {
            html += QStringLiteral("<td>%1</td>").arg(htmlEscape(cell));
        }
        html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</table>\n");
    addHtml(html);
}

void ReportDocument::addTable(const QAbstractItemModel& model, int maxRows, const QString& caption) {
    QStringList headers;
    for (int c = 0; c < model.columnCount(); ++c) {
        headers << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    }
    std::vector<QStringList> rows;
    const int n = maxRows < 0 ? model.rowCount() : std::min(maxRows, model.rowCount());
    for (int r = 0; r < n; ++r) {
        QStringList row;
        for (int c = 0; c < model.columnCount(); ++c) {
            row << model.data(model.index(r, c), Qt::DisplayRole).toString();
        }
        rows.push_back(row);
    }
    addTable(headers, rows, caption);
}

void ReportDocument::addImage(const QImage& image, const QString& altText, const QString& caption) {
    if (image.isNull()) {
        return;
    }
    m_images.push_back(image);
    Block block;
    block.kind = Block::Kind::Image;
    block.image = static_cast<int>(m_images.size()) - 1;
    block.alt = altText;
    block.caption = caption;
    m_blocks.push_back(block);
}

void ReportDocument::addCode(const QString& code) {
    addHtml(QStringLiteral("<pre>%1</pre>\n").arg(htmlEscape(code)));
}

void ReportDocument::addBulletList(const QStringList& items) {
    QString html = QStringLiteral("<ul>\n");
    for (const QString& item : items) {
        html += QStringLiteral("<li>%1</li>\n").arg(htmlEscape(item));
    }
    html += QStringLiteral("</ul>\n");
    addHtml(html);
}

QString ReportDocument::render(ImageMode mode) const {
    QString html =
        QStringLiteral(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/>\n<title>%1</title>\n<style>%2</style>\n"
            "</head><body>\n<h1>%1</h1>\n")
            .arg(htmlEscape(m_title), QString::fromLatin1(kStyle));
    for (const Block& block : m_blocks) {
        if (block.kind == Block::Kind::Html) {
            html += block.html;
            continue;
        }
        const QImage& image = m_images[static_cast<std::size_t>(block.image)];
        const QString src = mode == ImageMode::DataUri
                                ? QStringLiteral("data:image/png;base64,") + imagePng(image)
                                : QStringLiteral("chokepoint-image-%1.png").arg(block.image);
        // Shown at most 640 px wide in the PDF; full size (scaled by the browser) in HTML.
        const int width = std::min(image.width(), 640);
        html += QStringLiteral("<p><img src=\"%1\" alt=\"%2\" width=\"%3\"/></p>\n")
                    .arg(src, htmlEscape(block.alt))
                    .arg(width);
        if (!block.caption.isEmpty()) {
            html += QStringLiteral("<p class=\"caption\">%1</p>\n").arg(htmlEscape(block.caption));
        }
    }
    // Which build wrote it: a report passed around a team outlives the build that made it.
    html += QStringLiteral(
                "<p class=\"muted\">Generated by Chokepoint %1 (build %2) on %3.</p>\n</body></html>\n")
                .arg(QString::fromLatin1(chokepoint::kVersion), QString::fromLatin1(chokepoint::buildId()),
                     QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    return html;
}

QString ReportDocument::toHtml() const {
    return render(ImageMode::DataUri);
}

bool ReportDocument::writeHtml(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        }
        return false;
    }
    const QByteArray bytes = toHtml().toUtf8();
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: write failed: %2").arg(path, file.errorString());
        }
        return false;
    }
    return true;
}

bool ReportDocument::writePdf(const QString& path, QString* error) const {
    QTextDocument document;
    for (std::size_t i = 0; i < m_images.size(); ++i) {
        document.addResource(QTextDocument::ImageResource,
                             QUrl(QStringLiteral("chokepoint-image-%1.png").arg(i)), QVariant(m_images[i]));
    }
    document.setDefaultStyleSheet(QString::fromLatin1(kStyle));
    document.setHtml(render(ImageMode::Resource));

    QPdfWriter writer(path);
    if (!writer.setPageSize(QPageSize(QPageSize::A4))) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: cannot set the page size").arg(path);
        }
        return false;
    }
    writer.setResolution(96);
    writer.setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
    writer.setTitle(m_title);
    writer.setCreator(QStringLiteral("Chokepoint"));
    document.setPageSize(QSizeF(writer.width(), writer.height()));
    document.print(&writer);
    // QPdfWriter reports no errors itself; check the file is there and not empty.
    QFile check(path);
    if (!check.exists() || check.size() == 0) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: the PDF could not be written").arg(path);
        }
        return false;
    }
    return true;
}

}  // namespace chokepoint::ui
