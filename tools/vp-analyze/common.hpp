// Options shared by the vp-analyze commands: where the topology comes from
// (a file or the live machine), the cluster around it, and the capacity
// overrides. They fill a vp::AnalysisRequest.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "vp/analysis/progress.hpp"
#include "vp/analysis/request.hpp"

namespace vp::cli {

// Register the input options on a (sub)command.
void add_input_options(CLI::App& app, AnalysisRequest& r);

// Register --pattern-budget (into r.search) and --max-analysis-seconds (into
// `seconds`; the command starts the clock with deadline_after()).
void add_analysis_budget_options(CLI::App& app, AnalysisRequest& r, double& seconds);

// What --progress and --quiet asked for.
struct ProgressChoice {
  std::string mode;  // auto, bar, lines, none; empty: VP_PROGRESS, else auto
  bool quiet = false;
  double interval_seconds = 10;  // lines: one every this many seconds
};

// Register --progress, --progress-interval and -q/--quiet.
void add_progress_options(CLI::App& app, ProgressChoice& c);

// The reporter they ask for, on standard error (auto: a bar on a terminal,
// lines otherwise). A VP_PROGRESS value that is not a mode is warned about
// and taken as auto.
std::unique_ptr<ProgressReporter> make_progress_reporter(const ProgressChoice& c);

}  // namespace vp::cli
