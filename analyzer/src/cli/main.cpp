// vp-analyze: the offline analyzer's command line.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/topology/errors.hpp"

int main(int argc, char** argv) {
  using vp::ExitCode;
  CLI::App app{"vp-analyze: find the contention-free transfer patterns of a PCIe GPU cluster", "vp-analyze"};
  app.require_subcommand(0, 1);
  vp::cli::Runner analyze = vp::cli::setup_analyze_command(app);
  vp::cli::Runner topology = vp::cli::setup_topology_command(app);
#ifdef VP_HAVE_MPI
  vp::cli::Runner gather = vp::cli::setup_gather_command(app);  // mpirun -N 1 vp-analyze gather
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  try {
    if (app.got_subcommand("topology")) return topology();
#ifdef VP_HAVE_MPI
    if (app.got_subcommand("gather")) return gather();
#endif
    return analyze();
  } catch (const vp::InputError& e) {
    fmt::print(stderr, "vp-analyze: error: {}\n", e.what());
    return static_cast<int>(ExitCode::bad_input);
  } catch (const vp::UsageError& e) {
    fmt::print(stderr, "vp-analyze: error: {}\n", e.what());
    return static_cast<int>(ExitCode::usage);
  } catch (const vp::catalog::CatalogError& e) {
    // Writing failed (unreadable: an I/O error), or our writer refused what
    // we computed (invalid: a bug of ours).
    bool io = e.kind() == vp::catalog::CatalogError::Kind::unreadable;
    fmt::print(stderr, "vp-analyze: {}: {}\n", io ? "error" : "internal error", e.what());
    return static_cast<int>(io ? ExitCode::bad_input : ExitCode::internal);
  } catch (const std::exception& e) {
    fmt::print(stderr, "vp-analyze: internal error: {}\n", e.what());
    return static_cast<int>(ExitCode::internal);
  }
}
