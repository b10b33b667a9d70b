#pragma once
// The device-memory figure the reports share (text, HTML/PDF, the Diagnosis page): the peak the
// job holds against the device's capacity, or, from memory events without totals, how far it rose.

#include <string>

#include "core/analysis/diagnosis/DiagnosisSignals.h"

namespace chokepoint::analysis {

// "peak 116 MiB of 79.2 GiB (0.1 %)", "rises by up to 2.60 GiB within the trace; the peak is
// unknown (the memory events carry no totals)", or "" when the trace says nothing of it.
std::string describeDeviceMemory(const DiagnosisSignals& diagnosis);

}  // namespace chokepoint::analysis
