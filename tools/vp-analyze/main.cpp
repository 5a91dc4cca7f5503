// vp-analyze: the offline analyzer's command line.
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "vp/cli/run_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{"vp-analyze: find the contention-free transfer patterns of a PCIe GPU cluster", "vp-analyze"};
  app.require_subcommand(0, 1);
  vp::cli::Runner analyze = vp::cli::setup_analyze_command(app);
  vp::cli::Runner topology = vp::cli::setup_topology_command(app);
#ifdef VP_HAVE_MPI
  vp::cli::Runner gather = vp::cli::setup_gather_command(app);  // mpirun -N 1 vp-analyze gather
#endif
  // Errors and exit codes: vp::cli::run_main (tools/common). A catalog our
  // writer refuses is an invalid catalog (exit 3), as in every tool.
  return vp::cli::run_main({"vp-analyze", vp::cli::Catalogs::read_write}, app, argc, argv, [&] {
    if (app.got_subcommand("topology")) return topology();
#ifdef VP_HAVE_MPI
    if (app.got_subcommand("gather")) return gather();
#endif
    return analyze();
  });
}
