// `vp-catalog validate FILE [--against TOPOLOGY [--cluster SPEC] | --probe |
// --input NODE-TOPOLOGY]`: verify a catalog (binary, or a JSON mirror through
// the writer's rules); with --against, check that it still matches a fresh
// analysis of the topology; with --probe or --input, that this node (or the
// node the file describes) still matches its node type (cmd_validate_probe.cpp).
#include <fmt/format.h>

#include "commands.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/writer.hpp"

namespace vp::catalog_cli {

namespace {

struct ValidateOptions {
  std::string file;
  std::string against;
  std::string cluster;
  bool probe = false;
  NodeCheckRequest node;
};

int run(const ValidateOptions& o) {
  const vp::cli::LoadedCatalog l = vp::cli::load_catalog(o.file);
  if (!l.binary) {  // a JSON mirror: the format's rules, through the writer
    try {
      catalog::write_catalog(l.catalog);
    } catch (const catalog::CatalogError& e) {
      throw catalog::CatalogError(e.kind(), printable_line(input_name(o.file)) + ": " + e.what(), e.code());
    }
  }
  if (!o.against.empty() || !o.cluster.empty()) return validate_against(o.file, l.catalog, o.against, o.cluster);
  if (o.probe || !o.node.input.empty()) return validate_node(o.file, l.catalog, o.node);
  std::uint64_t gpus = 0, nodes = 0;
  for (const catalog::NodeGroup& g : l.catalog.node_groups) {
    nodes += g.count;
    for (const catalog::Component& c : l.catalog.node_types.at(g.node_type).components)
      gpus += std::uint64_t{g.count} * (c.kind == catalog::Kind::gpu);
  }
  fmt::print("{}: valid catalog ({} node types, {} nodes, {} GPUs)\n", printable_line(input_name(o.file)), l.catalog.node_types.size(), nodes, gpus);
  return 0;
}

}  // namespace

Runner setup_validate(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Verify a catalog, or check a node against it (--probe, --input); exit 0 valid, 3 invalid or "
                  "mismatched, 2 unreadable");
  cmd->add_option("FILE,--catalog", o->file,
                  "The .vpcat file (or its JSON mirror); a write of the pair interrupted between its two files "
                  "is completed first (exit 2 when this user cannot)")
      ->required();
  CLI::Option* against = cmd->add_option("--against", o->against,
                  "Re-run the analysis of this topology with the catalog's options and compare (without it, "
                  "validate checks the file's own rules, not that it describes this machine)");
  CLI::Option* cluster =
      cmd->add_option("--cluster", o->cluster,
                      "Re-run the analysis of this cluster description and compare; with --against, the topology its "
                      "node types without a file of their own take (a file it would not read is refused)");
  CLI::Option* probe = cmd->add_flag("--probe", o->probe,
                                     "Probe this machine with hwloc and compare it with its node type in the catalog "
                                     "(a GPU or NIC missing, a link at x8 instead of x16, ...); exit 3 on a difference")
                           ->excludes(against, cluster);
  CLI::Option* input = cmd->add_option("--input", o->node.input,
                                       "As --probe, for the node this topology file describes (hwloc XML, NCCL XML, "
                                       "nvidia-smi topo -m or vp JSON; its name without extension is its host name)")
                           ->excludes(against, cluster, probe);
  cmd->add_option("--format", o->node.format, "Format of --input: auto, hwloc, nccl, nvidia-smi, json (default: detected)")
      ->check(CLI::IsMember({"auto", "hwloc", "nccl", "nvidia-smi", "json"}))
      ->needs(input);
  cmd->add_option("--node", o->node.node,
                  "With --probe/--input: compare with the node type of this catalog node (default: the node named "
                  "as the host, else --node-type, else the only node type)");
  cmd->add_option("--node-type", o->node.node_type,
                  "With --probe/--input: compare with this node type (index or name) when the host is not a node of "
                  "the catalog");
  cmd->callback([o] {
    if ((!o->node.node.empty() || !o->node.node_type.empty()) && !o->probe && o->node.input.empty())
      throw CLI::ValidationError("validate", "--node and --node-type go with --probe or --input");
  });
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
