#include "ui/shell/capture/CaptureSkipRow.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QSpinBox>

namespace chokepoint::ui {

CaptureSkipRow::CaptureSkipRow(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_skip = new QComboBox(this);
    m_skip->setAccessibleName(tr("Skip before recording"));
    m_skip->addItem(tr("nothing"), static_cast<int>(CaptureSkip::Nothing));
    m_skip->addItem(tr("the first seconds"), static_cast<int>(CaptureSkip::Seconds));
    m_skip->addItem(tr("the first steps"), static_cast<int>(CaptureSkip::Steps));
    m_skip->setToolTip(
        tr("The agent stays dormant (no tracing) until then, so start-up runs at full speed and stays out of "
           "the recording. Steps are counted from NVTX step markers (torch.profiler, chokepoint_helper or "
           "--marker), or, in a job without them, from its repeating sequence of kernel launches."));
    m_count = new QSpinBox(this);
    m_count->setAccessibleName(tr("How many to skip"));
    m_count->setRange(1, 4095);
    m_count->setValue(30);
    m_count->setEnabled(false);
    layout->addWidget(m_skip);
    layout->addWidget(m_count);
    setFocusProxy(m_skip);  // a form label's mnemonic (S&kip) lands on the choice
    layout->addStretch(1);
    connect(m_skip, &QComboBox::currentIndexChanged, this, [this] {
        const CaptureSkip chosen = skip();
        m_count->setEnabled(chosen != CaptureSkip::Nothing);
        m_count->setSuffix(chosen == CaptureSkip::Steps ? tr(" steps") : tr(" s"));
    });
}

void CaptureSkipRow::setSkip(CaptureSkip skip, int count) {
    m_skip->setCurrentIndex(m_skip->findData(static_cast<int>(skip)));
    if (skip != CaptureSkip::Nothing) {
        m_count->setValue(count);
    }
}

CaptureSkip CaptureSkipRow::skip() const {
    return static_cast<CaptureSkip>(m_skip->currentData().toInt());
}

int CaptureSkipRow::count() const {
    return m_count->value();
}

QStringList CaptureSkipRow::cliArguments() const {
    switch (skip()) {
        case CaptureSkip::Seconds:
            return {QStringLiteral("--delay"), QString::number(count())};
        case CaptureSkip::Steps:
            return {QStringLiteral("--after-steps"), QString::number(count())};
        case CaptureSkip::Nothing:
            break;
    }
    return {};
}

}  // namespace chokepoint::ui
