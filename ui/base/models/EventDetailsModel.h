#pragma once
// EventDetailsModel: the fields of one selected event as a two-column table (field, value):
// name, kind, times relative to the trace start, duration, device and stream or thread, launch
// configuration, the runtime call that launched it and the framework op around that call.
// Display strings come from core formatting helpers; the model holds no analysis logic.

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/EventRef.h"

namespace chokepoint::ui {

class EventDetailsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { FieldColumn = 0, ValueColumn, NumColumns };

    using QAbstractTableModel::QAbstractTableModel;

    // Shows `ref` of `model` (invalid ref or null model: empty table).
    void setEvent(std::shared_ptr<const core::TraceModel> model, timeline::EventRef ref);
    // Extra rows appended after the event's own fields (for example its roofline position).
    void setExtraRows(std::vector<std::pair<QString, QString>> rows);
    timeline::EventRef event() const { return m_ref; }
    QString title() const { return m_title; }
    // The value of the row whose field is `field`, or an empty string.
    QString value(const QString& field) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    std::shared_ptr<const core::TraceModel> m_model;
    timeline::EventRef m_ref;
    QString m_title;
    std::vector<std::pair<QString, QString>> m_rows;
    std::vector<std::pair<QString, QString>> m_extraRows;
};

}  // namespace chokepoint::ui
