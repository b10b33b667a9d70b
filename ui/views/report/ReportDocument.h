#pragma once
// ReportDocument: a small, ordered list of report blocks (headings, paragraphs, key/value facts,
// tables, images, code) rendered two ways:
//   - toHtml(): one self-contained HTML file; images are embedded as base64 PNG data URIs and the
//     stylesheet is inline, so the file can be mailed or attached to a ticket as is;
//   - writePdf(): the same content through QTextDocument into a PDF (QPdfWriter, A4), with the
//     images passed as document resources.
// All text is HTML-escaped here; callers pass plain text. The document holds no analysis logic.

#include <QImage>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

class QAbstractItemModel;

namespace chokepoint::ui {

class ReportDocument {
public:
    explicit ReportDocument(QString title = {});

    const QString& title() const { return m_title; }

    // level 1..3
    void addHeading(const QString& text, int level = 2);
    // `tone` adds a CSS class: "" (plain), "verdict", "muted", "warning".
    void addParagraph(const QString& text, const QString& tone = {});
    void addFacts(const std::vector<std::pair<QString, QString>>& facts);
    void addTable(const QStringList& headers, const std::vector<QStringList>& rows,
                  const QString& caption = {});
    // Copies the model's display text (top-level rows, up to maxRows; -1 = all).
    void addTable(const QAbstractItemModel& model, int maxRows = -1, const QString& caption = {});
    void addImage(const QImage& image, const QString& altText, const QString& caption = {});
    void addCode(const QString& code);
    void addBulletList(const QStringList& items);

    std::size_t imageCount() const { return m_images.size(); }
    bool empty() const { return m_blocks.empty(); }

    QString toHtml() const;
    bool writeHtml(const QString& path, QString* error = nullptr) const;
    bool writePdf(const QString& path, QString* error = nullptr) const;

private:
    enum class ImageMode { DataUri, Resource };
    QString render(ImageMode mode) const;
    void addHtml(QString html);

    struct Block {
        enum class Kind { Html, Image } kind = Kind::Html;
        QString html;    // escaped markup for Html blocks
        int image = -1;  // index into m_images for Image blocks
        QString alt, caption;
    };
    QString m_title;
    std::vector<Block> m_blocks;
    std::vector<QImage> m_images;
};

// Escapes &, <, >, " and ' for HTML text and attributes.
QString htmlEscape(const QString& text);

}  // namespace chokepoint::ui
