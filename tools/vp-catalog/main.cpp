// vp-catalog: inspect, validate, compare, convert and dump .vpcat catalogs,
// score placements of a job on them, choose one among free GPUs, resize them
// onto other nodes, set their machine model and export them for schedulers (Slurm, Kubernetes, Volcano).
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "vp/cli/run_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{"vp-catalog: inspect, validate, compare, convert and dump VarioPath catalogs (.vpcat), score placements, choose one (place), resize catalogs, set their machine model and export them for schedulers", "vp-catalog"};
  app.require_subcommand(1);
  const vp::catalog_cli::Runner inspect = vp::catalog_cli::setup_inspect(app);
  const vp::catalog_cli::Runner validate = vp::catalog_cli::setup_validate(app);
  const vp::catalog_cli::Runner diff = vp::catalog_cli::setup_diff(app);
  const vp::catalog_cli::Runner convert = vp::catalog_cli::setup_convert(app);
  const vp::catalog_cli::Runner dump = vp::catalog_cli::setup_dump(app);
  const vp::catalog_cli::Runner score = vp::catalog_cli::setup_score(app);
  const vp::catalog_cli::Runner resize = vp::catalog_cli::setup_resize(app);
  const vp::catalog_cli::Runner exporter = vp::catalog_cli::setup_export(app);
  const vp::catalog_cli::Runner place = vp::catalog_cli::setup_place(app);
  const vp::catalog_cli::Runner set_model = vp::catalog_cli::setup_set_model(app);
  return vp::cli::run_main({"vp-catalog", vp::cli::Catalogs::read_write}, app, argc, argv, [&] {
    if (app.got_subcommand("inspect")) return inspect();
    if (app.got_subcommand("validate")) return validate();
    if (app.got_subcommand("diff")) return diff();
    if (app.got_subcommand("convert")) return convert();
    if (app.got_subcommand("score")) return score();
    if (app.got_subcommand("resize")) return resize();
    if (app.got_subcommand("export")) return exporter();
    if (app.got_subcommand("place")) return place();
    if (app.got_subcommand("set-model")) return set_model();
    return dump();
  });
}
