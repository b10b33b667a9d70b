#pragma once
// Text and JSON renderings of a JobReport. The text opens with the JOB section (ranks, clock,
// step time per rank, stragglers with their cause, collectives); the JSON is the `job` object of
// `analyze --format json` (docs/REPORT_JSON.md).

#include <string>

#include "core/job/JobReport.h"

namespace chokepoint::job {

std::string writeJobText(const JobReport& report);
std::string writeJobJson(const JobReport& report);  // one JSON object
// What changed between two jobs (`diff` with two jobs).
std::string writeJobDiffText(const JobReport& before, const JobReport& after);

}  // namespace chokepoint::job
