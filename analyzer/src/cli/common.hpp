// Options shared by the vp-analyze commands: where the topology comes from
// (a file or the live machine), the cluster around it, and the capacity
// overrides. They fill a vp::AnalysisRequest.
#pragma once

#include <CLI/CLI.hpp>

#include "vp/analysis/request.hpp"

namespace vp::cli {

// Register the input options on a (sub)command.
void add_input_options(CLI::App& app, AnalysisRequest& r);

// Register --pattern-budget (into r.search) and --max-analysis-seconds (into
// `seconds`; the command starts the clock with deadline_after()).
void add_analysis_budget_options(CLI::App& app, AnalysisRequest& r, double& seconds);

}  // namespace vp::cli
