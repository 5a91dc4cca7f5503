// `vp-catalog place CATALOG --free FILE --gpus N [--workload W]`: where an
// N-GPU job should go among a cluster's free GPUs (docs/subsets.md "Choosing
// a placement"). The choice is the runtime's (vpcat::place(),
// vpcat/placement.hpp): its candidates planned by the subset planner, ranked
// by the plan's expected time and, among those within --slack of the
// fastest, the one that leaves the fewest partial nodes, then the one on the
// fewest nodes, then the fastest. Beside it, each candidate's plan as the
// judge simulates it and the judge's bound (placement_score.hpp, as
// `vp-catalog score` scores a placement): they are shown, not chosen on.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "commands.hpp"
#include "free_gpus.hpp"
#include "placement_score.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/topology/cluster.hpp"
#include "vpcat/placement.hpp"
#include "workload_spec.hpp"

namespace vp::catalog_cli {

namespace {

struct PlaceOptions {
  std::string file, free, workload = "uniform";
  std::uint32_t gpus = 0;
  double latency_us = 5.0, slack = 0.05;
  bool json = false;
};

struct Scored {
  vpcat::PlacementCandidate candidate;  // the runtime's figures
  PlacementScore judge;                 // the judge's
  std::string strategy;
  std::string placement;  // as --gpus takes it
};

std::string strategy_text(const vpcat::PlacementCandidate& c) {
  char buf[128];
  vpcat::describe(c, buf, sizeof buf);
  return buf;
}

// The runtime's refusal of a candidate or of the demand: the catalog's
// limits are the catalog's, the rest the workload's.
[[noreturn]] void refused(const vpcat::PlanStatus& s, const PlaceOptions& o) {
  if (s.code() == vpcat::PlanError::bad_subset || s.code() == vpcat::PlanError::unsupported_catalog)
    throw InputError(o.file, 0, s.message());
  if (s.code() == vpcat::PlanError::out_of_memory) throw InternalError(std::string("place: ") + s.message());
  throw InputError("--workload", 0, s.message());
}

// "gpu01:*,gpu02:0-3,gpu02:6": one item per run of local GPUs, `*` for a whole node.
std::string placement_text(const vpcat::CatalogView& view, const std::vector<std::string>& names,
                           const std::vector<std::uint64_t>& gpus) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_node;
  for (std::uint64_t g : gpus) {
    std::uint32_t node = 0, local = 0;
    view.locate_gpu(g, &node, &local);
    by_node[node].push_back(local);
  }
  std::string out;
  for (const auto& [node, locals] : by_node) {
    const std::string& name = names[node];
    if (locals.size() == view.node_type(view.node(node).node_type).gpu_count()) {
      out += (out.empty() ? "" : ",") + name + ":*";
      continue;
    }
    for (std::size_t i = 0; i < locals.size();) {
      std::size_t e = i;
      while (e + 1 < locals.size() && locals[e + 1] == locals[e] + 1) ++e;
      out += fmt::format("{}{}:{}", out.empty() ? "" : ",", name, locals[i]);
      if (e > i) out += fmt::format("-{}", locals[e]);
      i = e + 1;
    }
  }
  return out;
}

std::vector<std::string> node_names(const vpcat::CatalogView& view, const std::string& file) {
  std::vector<std::string> out;
  for (std::uint32_t g = 0; g < view.node_group_count(); ++g) {
    const vpcat::NodeGroupView ng = view.node_group(g);
    std::vector<std::string> names = expand_hostlist(ng.names, file);
    names.resize(ng.count);
    for (std::string& n : names) out.push_back(std::move(n));
  }
  return out;
}

double rounded(double x) { return std::round(x * 1000.0) / 1000.0; }

int run(const PlaceOptions& o) {
  vpcat::CatalogFile file;
  cli::open_catalog_file(o.file, file);
  const vpcat::CatalogView& view = file.view();
  const FreeGpus free = read_free_gpus(o.free, view);
  if (o.gpus > free.total)
    throw UsageError(fmt::format("--gpus {}: {} lists {} free GPU{}", o.gpus, o.free, free.total,
                                 free.total == 1 ? "" : "s"));
  const sim_cli::WorkloadSpec workload = sim_cli::parse_workload(o.workload);
  const sim::Demand w = sim_cli::make_demands(workload, o.gpus).at(0);
  std::vector<std::uint64_t> demand(std::size_t{o.gpus} * o.gpus, 0);
  for (std::uint32_t s = 0; s < o.gpus; ++s)
    for (std::uint32_t t = 0; t < o.gpus; ++t) demand[std::size_t{s} * o.gpus + t] = static_cast<std::uint64_t>(w.at(s, t));
  const Topology topo = sim::catalog_topology(catalog::to_catalog(view), o.file);
  const std::vector<std::string> names = node_names(view, o.file);

  const std::vector<std::uint64_t> free_list = free_gpu_list(view, free);
  vpcat::PlaceOptions po;
  po.plan.latency_us = o.latency_us;
  po.slack = o.slack;
  vpcat::Placement where;
  if (const vpcat::PlanStatus s = vpcat::place(view, free_list.data(), free_list.size(), o.gpus,
                                               vpcat::Demand::dense(demand.data(), o.gpus), po, where);
      !s.ok())
    refused(s, o);

  std::vector<Scored> scored;
  for (std::size_t i = 0; i < where.candidate_count(); ++i) {
    const std::uint64_t* gpus = where.gpus(i);
    vpcat::Subset subset;
    if (const vpcat::PlanStatus s = subset.assign_gpus(view, gpus, o.gpus); !s.ok())
      throw InternalError("place: a candidate the subset refuses: " + std::string(s.message()));
    Scored x;
    x.candidate = where.candidate(i);
    x.judge = score_placement(view, topo, subset, demand, o.latency_us, o.file,
                              [&](const vpcat::PlanStatus& s) { refused(s, o); });
    x.strategy = strategy_text(x.candidate);
    x.placement = placement_text(view, names, std::vector<std::uint64_t>(gpus, gpus + o.gpus));
    scored.push_back(std::move(x));
  }
  const std::size_t choice = where.choice();
  const Scored& best = scored[choice];
  const std::uint32_t before = where.partial_nodes_before();

  std::string text;
  if (o.json) {
    catalog::Json j;
    j["format"] = "vp-catalog-place";
    j["version"] = 1;
    j["gpus"] = o.gpus;
    j["workload"] = workload.text();
    j["latency_us"] = o.latency_us;
    j["slack"] = o.slack;
    j["free_gpus_before"] = free.total;
    j["free_gpus_after"] = free.total - o.gpus;
    j["nodes"] = view.node_count();
    j["partial_nodes_before"] = before;
    j["partial_nodes_after"] = best.candidate.partial_nodes_after;
    j["choice"] = choice + 1;
    catalog::Json list = catalog::Json::array();
    for (std::size_t i = 0; i < scored.size(); ++i) {
      const Scored& x = scored[i];
      catalog::Json c;
      c["rank"] = i + 1;
      c["strategy"] = x.strategy;
      c["placement"] = x.placement;
      c["nodes"] = x.candidate.node_count;
      c["expected_us"] = rounded(x.candidate.expected_us);
      c["planner_bound_us"] = rounded(x.candidate.bound_us);
      c["planned_us"] = rounded(x.judge.planned_us);
      c["bound_us"] = rounded(x.judge.bound_us);
      c["bound_cut"] = x.judge.cut;
      c["partial_nodes_after"] = x.candidate.partial_nodes_after;
      list.push_back(std::move(c));
    }
    j["candidates"] = std::move(list);
    text = j.dump(2) + "\n";
  } else {
    const vpcat::PlacementCandidate& c = best.candidate;
    text = fmt::format("place {} GPUs on {} (strategy: {})\n", o.gpus, best.placement, best.strategy);
    text += fmt::format("  expected: {:.1f} us (the planner's expected time, what the choice ranks), bound {:.1f} us "
                        "(the planner's), ratio {:.3f}\n",
                        c.expected_us, c.bound_us, c.bound_us > 0 ? c.expected_us / c.bound_us : 0.0);
    text += fmt::format("  judge: {:.1f} us planned (the judge's simulation of the plan), bound {:.1f} us ({}), "
                        "ratio {:.3f}\n",
                        best.judge.planned_us, best.judge.bound_us, best.judge.cut,
                        best.judge.bound_us > 0 ? best.judge.planned_us / best.judge.bound_us : 0.0);
    text += fmt::format("  fragmentation: partial nodes {} -> {} of {}; free GPUs {} -> {}\n", before,
                        c.partial_nodes_after, view.node_count(), free.total, free.total - o.gpus);
    text += fmt::format("{} candidates, fastest expected first (choice: the fewest partial nodes within {:g}% of the "
                        "fastest):\n",
                        scored.size(), o.slack * 100);
    text += fmt::format("{:>4}  {:>11}  {:>9}  {:>10}  {:>5}  {:>7}  {}\n", "rank", "expected_us", "bound_us",
                        "planned_us", "nodes", "partial", "strategy: placement");
    for (std::size_t i = 0; i < scored.size(); ++i) {
      const Scored& x = scored[i];
      text += fmt::format("{:>3}{} {:>11.1f}  {:>9.1f}  {:>10.1f}  {:>5}  {:>7}  {}: {}\n", i + 1,
                          i == choice ? "*" : " ", x.candidate.expected_us, x.candidate.bound_us, x.judge.planned_us,
                          x.candidate.node_count, x.candidate.partial_nodes_after, x.strategy, x.placement);
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

Runner setup_place(CLI::App& app) {
  auto o = std::make_shared<PlaceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "place", "Choose where an N-GPU job goes among a cluster's free GPUs: fast under the model, fewest partial nodes");
  cmd->add_option("FILE,--catalog", o->file, "The cluster's catalog (.vpcat)")->required();
  cmd->add_option("--free", o->free,
                  "The free GPUs: one HOSTS:GPUS entry per line (gpu03:0-3,6 or gpu[05-08]:*; '#' comments); a node "
                  "not listed has none")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--gpus", o->gpus, "GPUs the job needs")->type_name("N")->required()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--workload", o->workload,
                  "The job's AlltoAllv (as vp-sim --workload: uniform, moe, hotspot, ...; default uniform)")
      ->type_name("SPEC");
  cmd->add_option("--latency-us", o->latency_us, "Start-up latency per transfer, microseconds (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--slack", o->slack,
                  "Placements within this fraction of the fastest expected time count as fast; among them the "
                  "fewest partial nodes left wins (default 0.05)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--json", o->json,
                "Print JSON: {format, version, gpus, workload, ..., partial_nodes_before/after, choice, candidates: "
                "[{..., expected_us, planner_bound_us, planned_us, bound_us, ...}]}");
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
