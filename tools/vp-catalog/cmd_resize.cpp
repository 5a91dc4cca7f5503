// `vp-catalog resize FILE --nodes [TYPE=]HOSTLIST... --out OUT [--json-out J]
// [--fabric KIND [--leaf-size N] [--oversubscription X]]`: the catalog of
// other nodes of the same node types (a job that grows onto replacement
// nodes, a cluster that gains racks) without analysing a node type again
// (vp/analysis/resize.hpp; docs/subsets.md "Growth"). A name the catalog
// already has keeps its node type; a new name takes the one named before
// `=`, or the catalog's only node type. Outputs land together, atomically.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>

#include "commands.hpp"
#include "vp/analysis/request.hpp"
#include "vp/analysis/resize.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/summary.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/output.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::catalog_cli {

namespace {

struct ResizeOptions {
  std::string file, out, json_out, fabric;
  std::vector<std::string> nodes;
  std::uint32_t leaf_size = 0;
  double oversubscription = 0.0;
};

std::vector<NodeInfo> requested_nodes(const catalog::Catalog& c, const std::vector<std::string>& specs) {
  std::map<std::string, std::string> known;
  for (const NodeInfo& n : catalog_nodes(c)) known.emplace(n.name, n.type);
  std::vector<NodeInfo> out;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    const std::string type = eq == std::string::npos ? std::string() : spec.substr(0, eq);
    const std::string hosts = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (eq != std::string::npos && type.empty()) throw UsageError(fmt::format("--nodes {}: no node type before '='", spec));
    std::vector<std::string> names;
    try {
      names = expand_hostlist(hosts, "--nodes " + spec);
    } catch (const InputError& e) {  // a command-line value: a usage error
      throw UsageError(fmt::format("--nodes {}: {}", spec, e.reason()));
    }
    for (std::string& name : names) {
      std::string t = type;
      if (t.empty()) {
        if (auto it = known.find(name); it != known.end()) {
          t = it->second;
        } else if (c.node_types.size() == 1) {
          t = c.node_types[0].name;
        } else {
          throw UsageError(fmt::format("--nodes {}: node {} is not in the catalog, which has {} node types: name its "
                                       "type (--nodes TYPE={})",
                                       spec, name, c.node_types.size(), hosts));
        }
      }
      out.push_back(NodeInfo{std::move(name), std::move(t)});
    }
  }
  return out;
}

std::optional<FabricInfo> requested_fabric(const ResizeOptions& o, const catalog::Catalog& c) {
  if (o.fabric.empty()) {
    if (o.leaf_size || o.oversubscription)
      throw UsageError("--leaf-size and --oversubscription change the fabric: give --fabric too");
    return std::nullopt;
  }
  FabricInfo f;
  f.kind = o.fabric == "none"            ? FabricKind::none
           : o.fabric == "single_switch" ? FabricKind::single_switch
           : o.fabric == "rail"          ? FabricKind::rail
                                         : FabricKind::leaf_spine;
  if (o.leaf_size && f.kind != FabricKind::leaf_spine) throw UsageError("--leaf-size applies only to --fabric leaf_spine");
  if (o.oversubscription && (f.kind == FabricKind::single_switch || f.kind == FabricKind::none))
    throw UsageError("--oversubscription applies only to --fabric rail and leaf_spine");
  const bool same_kind = static_cast<FabricKind>(c.fabric.kind) == f.kind;
  f.leaf_size = f.kind != FabricKind::leaf_spine ? 0
                : o.leaf_size                    ? o.leaf_size
                : same_kind                      ? c.fabric.leaf_size
                                                 : AnalysisRequest{}.leaf_size;  // vp-analyze's default
  f.oversubscription = o.oversubscription ? o.oversubscription : same_kind ? c.fabric.oversubscription : 1.0;
  return f;
}

int run(const ResizeOptions& o) {
  if (o.out == "-" && o.json_out == "-") throw UsageError("--out - --json-out -: only one output can go to standard output");
  vp::cli::check_binary_stdout("--out", o.out);
  std::FILE* summary_to = vp::cli::writes_stdout({o.out, o.json_out}) ? stderr : stdout;
  const vp::cli::LoadedCatalog l = vp::cli::load_catalog(o.file);
  const auto start = std::chrono::steady_clock::now();
  ResizeRequest request{requested_nodes(l.catalog, o.nodes), requested_fabric(o, l.catalog)};
  catalog::Catalog cat;
  try {
    cat = resize_catalog(l.catalog, request);
  } catch (const ResizeSourceError& e) {
    throw catalog::CatalogError(catalog::CatalogError::Kind::invalid, o.file + ": " + e.what());
  }
  const std::vector<std::uint8_t> bytes = catalog::write_catalog(cat);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::vector<catalog::OutputFile> outputs{{o.out, bytes.data(), bytes.size()}};
  const std::string mirror = o.json_out.empty() ? std::string() : catalog::dump_json(cat);
  if (!o.json_out.empty())
    outputs.push_back({o.json_out, reinterpret_cast<const std::uint8_t*>(mirror.data()), mirror.size()});
  vp::cli::write_outputs(outputs);
  const std::uint64_t gpus = catalog::summarize(cat, bytes.size()).gpus;
  vp::cli::write_report(summary_to, fmt::format(
             "{}: {} nodes, {} GPUs, fabric {} ({} switch{}{}), {} node type{} reused, none analysed; composed in "
             "{:.2f} ms\n",
             o.out == "-" ? "standard output" : o.out, request.nodes.size(), gpus,
             to_string(static_cast<FabricKind>(cat.fabric.kind)), cat.fabric.switches,
             cat.fabric.switches == 1 ? "" : "es", cat.fabric.spine ? " under a spine" : "", cat.node_types.size(),
             cat.node_types.size() == 1 ? "" : "s", elapsed_ms));
  return 0;
}

}  // namespace

Runner setup_resize(CLI::App& app) {
  auto o = std::make_shared<ResizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "resize", "Write the catalog of other nodes of the same node types, without analysing a node type again");
  cmd->add_option("FILE,--catalog", o->file, "The catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("--nodes", o->nodes,
                  "The new catalog's nodes in order: HOSTLIST (a name the catalog has keeps its type; a new one takes "
                  "the catalog's only type) or TYPE=HOSTLIST; repeatable")
      ->required();
  cmd->add_option("-o,--out", o->out, "Write the catalog here (.vpcat), atomically; - for standard output")->required();
  cmd->add_option("--json-out", o->json_out, "Also write its JSON mirror here (- for standard output)");
  cmd->add_option("--fabric", o->fabric,
                  "A fabric other than the catalog's: single_switch, rail or leaf_spine (none: one node alone)")
      ->check(CLI::IsMember({"none", "single_switch", "rail", "leaf_spine"}));
  cmd->add_option("--leaf-size", o->leaf_size, "leaf_spine: nodes per leaf (default: the catalog's, else 8)")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--oversubscription", o->oversubscription,
                  "rail/leaf_spine: downlink/uplink ratio (default: the catalog's, else 1)")
      ->check(CLI::Range(1.0, 1000.0));
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
