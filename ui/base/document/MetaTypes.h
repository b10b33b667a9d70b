#pragma once
// Core value types that travel through Qt signals and QVariant, declared once for every target:
// each header whose signals carry them includes this, so the declaration precedes any use (moc).

#include <QMetaType>

#include "core/base/Ids.h"
#include "core/base/Time.h"

Q_DECLARE_METATYPE(chokepoint::core::TimeRange)
Q_DECLARE_METATYPE(chokepoint::core::KernelId)
