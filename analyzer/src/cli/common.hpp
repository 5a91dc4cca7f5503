// Options shared by the vp-analyze commands: where the topology comes from
// (a file or the live machine), the cluster around it, and the capacity
// overrides. They fill a vp::AnalysisRequest.
#pragma once

#include <CLI/CLI.hpp>

#include "vp/analysis/request.hpp"

namespace vp::cli {

// Register the input options on a (sub)command.
void add_input_options(CLI::App& app, AnalysisRequest& r);

}  // namespace vp::cli
