#pragma once
// From a trace's stored analysis settings (core::AnalysisSettings, kept in the review sidecar) to
// the AnalysisOptions analyzeTrace takes, and back to words: the lines a report shows for every
// setting that differs from the default ("device NVIDIA H100 SXM5 80GB (set by user)").
//
// Settings come from a file the user may have edited: an unknown device id, precision or threshold
// key, or a threshold out of its range, is dropped with a warning naming the source and the field,
// never an error, so the trace still opens and is analysed with the rest.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/AnalysisSettings.h"
#include "core/analysis/diagnosis/Analyzer.h"

namespace chokepoint::analysis {

// The precisions --precision accepts, by their lower-case names ("fp32", "tf32", "bf16", "fp16",
// "fp8", "fp64"; case-insensitive). nullopt for anything else.
std::optional<Precision> precisionFromName(std::string_view name);
// Lower-case name of `precision` as precisionFromName reads it ("bf16").
std::string precisionName(Precision precision);
// Every precision precisionFromName accepts, in the CLI's order.
const std::vector<Precision>& selectablePrecisions();

// Removes from `settings` what cannot be applied: an unknown device (with `devices`; without a
// database every device id is dropped), an unknown precision or threshold key, a threshold out of
// range, parameters without tokens per step (or the reverse), and parameters and tokens next to
// FLOPs per step (FLOPs win, as the CLI refuses both). Returns one warning per removal, each
// starting with `sourceName` ("run.json.chokepoint-review.json: analysisSettings.device: ...").
std::vector<std::string> sanitizeAnalysisSettings(core::AnalysisSettings& settings,
                                                  const DeviceDatabase* devices, std::string_view sourceName);

// Sets `options` from sanitized `settings` (device by name, model FLOPs, memory, precision, and
// the thresholds over the defaults). `options.devices` must be the database the device id was
// checked against.
void applyAnalysisSettings(const core::AnalysisSettings& settings, AnalysisOptions& options);

// One line per setting in `options` that differs from the default (the device given by name or
// as an override, model FLOPs / parameters / tokens, peak memory, OOM, precision, each threshold
// with its default), for reports: "device NVIDIA H100 SXM5 80GB (set by user)". Empty when the
// analysis ran with the defaults. `device` is the datasheet used, when known.
std::vector<std::string> describeUserSettings(const AnalysisOptions& options, const DeviceSpec* device);

}  // namespace chokepoint::analysis
