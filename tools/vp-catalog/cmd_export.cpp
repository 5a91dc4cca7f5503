// `vp-catalog export CATALOG --format F [--out FILE]`: what schedulers read,
// from a catalog: Slurm's topology.yaml and gres.conf, Kubernetes topology
// labels and Volcano HyperNodes (export_formats.hpp; docs/format.md
// "export"). Exit 0, 2 unreadable catalog or output, 3 invalid catalog or
// a host name the format cannot hold.
#include <fmt/format.h>

#include <map>

#include "commands.hpp"
#include "export_formats.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/output.hpp"

namespace vp::catalog_cli {

namespace {

struct ExportOptions {
  std::string file, format, out = "-";
};

using Writer = std::string (*)(const ExportModel&);

const std::map<std::string, Writer>& writers() {
  static const std::map<std::string, Writer> w = {{"slurm-topology", &slurm_topology},
                                                  {"slurm-gres", &slurm_gres},
                                                  {"k8s-labels", &k8s_labels},
                                                  {"volcano", &volcano_hypernodes}};
  return w;
}

int run(const ExportOptions& o) {
  const vp::cli::LoadedCatalog l = vp::cli::load_catalog(o.file);
  const std::string text = writers().at(o.format)(export_model(l.catalog, o.file));
  vp::cli::write_outputs({{o.out, reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}});
  return 0;
}

}  // namespace

Runner setup_export(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write what a scheduler reads: Slurm topology.yaml or gres.conf, Kubernetes labels, Volcano HyperNodes");
  cmd->add_option("FILE,--catalog", o->file, "The catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("--format", o->format,
                  "slurm-topology (topology.yaml, the fabric as a tree), slurm-gres (gres.conf lines per node type, "
                  "Links= from the PCIe path types), k8s-labels (a Kueue Topology and ordered node labels), volcano "
                  "(HyperNode objects by tier)")
      ->required()
      ->check(CLI::IsMember({"slurm-topology", "slurm-gres", "k8s-labels", "volcano"}));
  cmd->add_option("--out", o->out, "Output file, - for standard output (the default)");
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
