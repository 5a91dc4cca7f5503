// vp-analyze subcommands: each registers its options on the app and returns
// the function that runs it (CLI11's "subcommands in files" pattern).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace vp::cli {

using Runner = std::function<int()>;

// `vp-analyze [input options] --out FILE`: the analysis (no subcommand).
Runner setup_analyze_command(CLI::App& app);

// `vp-analyze topology`: print the imported topology (text or --json).
Runner setup_topology_command(CLI::App& app);

// `vp-analyze gather` under mpirun (cmd_gather.cpp; built when MPI is found).
Runner setup_gather_command(CLI::App& app);

}  // namespace vp::cli
