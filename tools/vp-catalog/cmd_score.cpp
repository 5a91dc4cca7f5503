// `vp-catalog score CATALOG --gpus LIST (--demand D | --workload SPEC)`: how
// fast a placement of a job runs its AlltoAllv, for a scheduler choosing
// among placements (docs/subsets.md "Scoring placements"; placement_score.hpp):
//
// * bound_us: the judge's lower bound (vp::sim::lower_bound, the cut that
//   binds) for the demand on those GPUs, the rest of the cluster idle;
// * planned_us: the subset planner's plan simulated by the judge (ideal
//   model, vp::sim::simulate), and the planner's own expected_us beside it.
//
// --candidates FILE ranks several placements (one LIST per line, '#' starts
// a comment), fastest planned first. The demand has the placement's size
// (every candidate the same size).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/demand_file.hpp"
#include "vp/cli/output.hpp"
#include "vp/cli/subset_arg.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "placement_score.hpp"
#include "vpcat/planner.hpp"
#include "workload_spec.hpp"

namespace vp::catalog_cli {

namespace {

struct ScoreOptions {
  std::string file, gpus, nodes, candidates, demand, workload;
  double latency_us = 5.0;
  bool json = false;
};

struct Placement {
  std::string text;  // as given
  std::string gpus;  // catalog GPUs, as a list
  std::uint32_t gpu_count = 0, node_count = 0;
  double bound_us = 0, planned_us = 0, expected_us = 0;
  std::string cut;
  std::size_t steps = 0;
};

std::vector<std::string> read_candidates(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot read the candidates file");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty()) out.push_back(line);
  }
  if (out.empty()) throw InputError(path, 0, "no placement in the candidates file");
  return out;
}

// The demand over n GPUs: the file's (its size checked), or the workload's.
std::vector<std::uint64_t> demand_for(const ScoreOptions& o, const std::optional<cli::DemandFile>& file,
                                      std::uint32_t n) {
  std::vector<std::uint64_t> d(std::size_t{n} * n, 0);
  if (file) {
    if (file->gpus != n)
      throw file->error_at_gpus(fmt::format("the demand has {} GPUs, the placement {}", file->gpus, n));
    if (file->dense) return file->bytes;
    for (const vpcat::DemandEntry& e : file->entries) d[std::size_t{e.src} * n + e.dst] += e.bytes;
    return d;
  }
  const sim::Demand w = sim_cli::make_demands(sim_cli::parse_workload(o.workload), n).at(0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) d[std::size_t{s} * n + t] = static_cast<std::uint64_t>(w.at(s, t));
  return d;
}

Placement score(const ScoreOptions& o, const vpcat::CatalogView& view, const Topology& topo,
                const std::optional<cli::DemandFile>& file, const std::string& gpus, const std::string& nodes) {
  vpcat::Subset subset;
  cli::parse_subset(view, gpus, nodes, subset);
  const std::vector<std::uint64_t> d = demand_for(o, file, subset.gpu_count());
  const PlacementScore s =
      score_placement(view, topo, subset, d, o.latency_us, o.file, [&](const vpcat::PlanStatus& refusal) {
        if (file) throw file->refusal(refusal);
        throw InputError("--workload", 0, refusal.message());
      });
  Placement p;
  p.text = gpus.empty() ? nodes : gpus;
  p.gpus = cli::subset_gpu_list(subset);
  p.gpu_count = s.gpu_count;
  p.node_count = s.node_count;
  p.bound_us = s.bound_us;
  p.cut = s.cut;
  p.planned_us = s.planned_us;
  p.expected_us = s.expected_us;
  p.steps = s.steps;
  return p;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int run(const ScoreOptions& o) {
  if (o.demand.empty() == o.workload.empty()) throw UsageError("give the demand as --demand FILE or --workload SPEC");
  vpcat::CatalogFile file;
  cli::open_catalog_file(o.file, file);
  const Topology topo = sim::catalog_topology(catalog::to_catalog(file.view()), o.file);
  std::optional<cli::DemandFile> demand;
  if (!o.demand.empty()) demand = cli::read_demand_file(o.demand);
  std::vector<Placement> out;
  if (!o.candidates.empty()) {
    for (const std::string& c : read_candidates(o.candidates)) out.push_back(score(o, file.view(), topo, demand, c, ""));
    std::stable_sort(out.begin(), out.end(),
                     [](const Placement& a, const Placement& b) { return a.planned_us < b.planned_us; });
  } else {
    out.push_back(score(o, file.view(), topo, demand, o.gpus, o.nodes));
  }
  std::string text;
  if (o.json) {
    text = "{\"format\": \"vp-catalog-score\", \"version\": 1, \"latency_us\": " + fmt::format("{}", o.latency_us) +
           ", \"placements\": [";
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Placement& p = out[i];
      text += fmt::format(
          "{}\n  {{\"rank\": {}, \"placement\": {}, \"catalog_gpus\": {}, \"gpus\": {}, \"nodes\": {}, "
          "\"bound_us\": {:.3f}, \"bound_cut\": {}, \"planned_us\": {:.3f}, \"expected_us\": {:.3f}, \"steps\": {}}}",
          i ? "," : "", i + 1, json_string(p.text), json_string(p.gpus), p.gpu_count, p.node_count, p.bound_us,
          json_string(p.cut), p.planned_us, p.expected_us, p.steps);
    }
    text += "\n]}\n";
  } else {
    text = fmt::format("{:>4}  {:>11}  {:>11}  {:>6}  {:>5}  {:>5}  {}\n", "rank", "planned_us", "bound_us", "ratio",
                       "GPUs", "nodes", "placement (binding cut)");
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Placement& p = out[i];
      text += fmt::format("{:>4}  {:>11.1f}  {:>11.1f}  {:>6.3f}  {:>5}  {:>5}  {} ({})\n", i + 1, p.planned_us,
                          p.bound_us, p.bound_us > 0 ? p.planned_us / p.bound_us : 0.0, p.gpu_count, p.node_count,
                          p.text, p.cut);
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

Runner setup_score(CLI::App& app) {
  auto o = std::make_shared<ScoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Lower bound and planned AlltoAllv time of a placement (a job's GPUs), or a ranking of several");
  cmd->add_option("FILE,--catalog", o->file, "The cluster's catalog (.vpcat)")->required();
  CLI::Option* gpus = cmd->add_option("--gpus", o->gpus,
                                      "The placement: catalog GPU indexes and ranges, or NODE:A-B, NODE:*, "
                                      "NODE:BUS-ID (as vp-plan --gpus)")
                          ->type_name("LIST");
  CLI::Option* nodes =
      cmd->add_option("--nodes", o->nodes, "The placement as whole nodes, by hostlist")->type_name("HOSTLIST")->excludes(gpus);
  cmd->add_option("--candidates", o->candidates,
                  "Rank these placements instead: one --gpus LIST per line ('#' comments), fastest planned first")
      ->type_name("FILE")
      ->excludes(gpus)
      ->excludes(nodes);
  cmd->add_option("--demand", o->demand, "Demand file over the placement's GPUs, in rank order (as vp-plan's)");
  cmd->add_option("--workload", o->workload,
                  "Or a generated demand (as vp-sim --workload: uniform, p2pmark, shift, incast, hotspot, moe, seqpar; "
                  "drift's first call)")
      ->type_name("SPEC");
  cmd->add_option("--latency-us", o->latency_us, "Start-up latency per transfer, microseconds (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_flag("--json", o->json, "Print JSON: {format, version, latency_us, placements: [...]}, ranked");
  cmd->callback([o, gpus, nodes] {
    if (o->candidates.empty() && gpus->count() == 0 && nodes->count() == 0)
      throw CLI::ValidationError("score", "give --gpus, --nodes or --candidates");
  });
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
