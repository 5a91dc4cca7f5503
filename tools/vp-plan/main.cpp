// vp-plan: plan one AlltoAllv demand on a catalog with the runtime planner
// (runtime_loader/include/vpcat/planner.hpp) and print the plan.
//
//   vp-plan --catalog cluster.vpcat --demand D.json --json
//   vp-plan --catalog cluster.vpcat --demand D.json --svg plan.svg
//   vp-plan --catalog cluster.vpcat --workload moe:zipf=1.2,hidden=2048
//   vp-plan --catalog cluster.vpcat --gpus gpu003:0-3,gpu007:* --demand D12.json --json
//
// Exit codes (vp::ExitCode, vp::cli::run_main): 0 ok, 1 usage, 2 unreadable
// or malformed input (catalog file, demand file, a demand the planner
// refuses), 3 invalid catalog, 4 internal error.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "machine_model_file.hpp"
#include "plan_json.hpp"
#include "plan_routes.hpp"
#include "workload_spec.hpp"
#include "vp/base/errors.hpp"
#include "vp/cli/output.hpp"
#include "vp/render/plan_picture.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/demand_file.hpp"
#include "vp/cli/run_main.hpp"
#include "vp/cli/subset_arg.hpp"
#include "vp/sim/demand.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

namespace {

struct Options {
  std::string catalog, demand, workload, svg, gpus, nodes, machine_model;
  bool json = false;
  unsigned repeat = 1;
  vpcat::PlanOptions plan;
};

// The demand to plan: --demand's file, or --workload's generated demand over
// the planner's GPUs (the subset's with --gpus or --nodes), as vp-sim makes it.
struct DemandSource {
  vp::cli::DemandFile file;  // --demand
  std::string name;          // "D.json" or "workload moe:elem=2,..."

  vpcat::Demand view() const { return file.view(); }
  // A planner's refusal, at the entry it names in a file; for a workload,
  // the workload named.
  vp::InputError refusal(const vpcat::PlanStatus& s, bool workload) const {
    return workload ? vp::InputError(name, 0, s.message()) : file.refusal(s);
  }
};

DemandSource read_demand(const Options& o, std::uint32_t gpus) {
  DemandSource d;
  if (!o.demand.empty()) {
    d.file = vp::cli::read_demand_file(o.demand);
    d.name = o.demand;
    return d;
  }
  const vp::sim_cli::WorkloadSpec w = vp::sim_cli::parse_workload(o.workload);
  const std::vector<vp::sim::Demand> calls = vp::sim_cli::make_demands(w, gpus);
  if (calls.size() != 1)
    throw vp::UsageError(fmt::format("--workload {}: a sequence of {} calls; vp-plan plans one demand "
                                     "(vp-sim --workload {} --calls N judges them)",
                                     w.name, calls.size(), w.name));
  d.name = "workload " + w.text();
  d.file.path = d.name;
  d.file.gpus = gpus;
  d.file.dense = true;
  d.file.bytes.resize(std::size_t{gpus} * gpus);
  for (std::size_t s = 0; s < gpus; ++s)
    for (std::size_t t = 0; t < gpus; ++t)  // whole numbers of bytes (workload_spec.hpp)
      d.file.bytes[s * gpus + t] = static_cast<std::uint64_t>(calls.front().at(s, t));
  return d;
}

// The plan as a Gantt chart (docs/pictures.md): rows and route classes read
// from the catalog (plan_routes.hpp).
void write_plan_svg(const Options& o, const std::string& demand, const vpcat::CatalogFile& file,
                    const vpcat::Planner& planner, const vpcat::Plan& plan) {
  const vp::plan_cli::PlanRoutes routes(file.view(), planner, o.catalog);
  const std::string svg = vp::render::plan_svg(
      plan, o.plan.latency_us, routes.gpu_labels(), [&](const vpcat::PlanTransfer& x) { return routes.route_class(x); },
      fmt::format("vp-plan: {} on {}", demand, o.catalog));
  vp::cli::write_outputs({{o.svg, reinterpret_cast<const std::uint8_t*>(svg.data()), svg.size()}});
}

// The expected rate in operators' words: " (341 GB/s, 10.7 GB/s per GPU)"
// (bytes over the expected time, in all and per sending GPU's share).
std::string rate_text(const vpcat::Plan& plan) {
  if (!(plan.expected_us() > 0) || plan.total_bytes() == 0 || plan.gpus() == 0) return {};
  const double gbps = static_cast<double>(plan.total_bytes()) / (plan.expected_us() * 1e3);
  return fmt::format(" ({:.3g} GB/s, {:.3g} GB/s per GPU)", gbps, gbps / static_cast<double>(plan.gpus()));
}

int run(Options& o) {
  if (o.json && o.svg == "-") throw vp::UsageError("--json and --svg - cannot both write standard output");
  if (o.demand.empty() == o.workload.empty()) throw vp::UsageError("give --demand FILE or --workload SPEC");
  // Default: the catalog's model (Planner::init reads it).
  if (o.machine_model == "default") o.plan.machine = vpcat::MachineModel();
  else if (!o.machine_model.empty() && o.machine_model != "catalog")
    o.plan.machine = vp::sim_cli::read_machine_model(o.machine_model);
  vpcat::CatalogFile file;
  vp::cli::open_catalog_file(o.catalog, file);
  vpcat::Planner planner;
  const bool subset = !o.gpus.empty() || !o.nodes.empty();
  vpcat::Subset job;
  if (subset) vp::cli::parse_subset(file.view(), o.gpus, o.nodes, job);
  if (vpcat::PlanStatus s = subset ? planner.init(file.view(), job) : planner.init(file.view()); !s.ok())
    throw vp::InputError(o.catalog, 0, s.message());
  const DemandSource demand = read_demand(o, planner.gpu_count());
  vpcat::Plan plan;
  double best_us = 0;
  for (unsigned r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const vpcat::PlanStatus s = planner.plan(demand.view(), o.plan, plan);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (!s.ok()) {
      if (s.code() == vpcat::PlanError::bad_options) throw vp::UsageError(s.message());
      throw demand.refusal(s, !o.workload.empty());
    }
    if (r == 0 || us < best_us) best_us = us;
  }
  if (!o.svg.empty()) write_plan_svg(o, demand.name, file, planner, plan);
  if (o.json) {
    vp::plan_cli::PlanReport report;
    report.planning_us = best_us;
    report.options = o.plan;
    report.gpu_map = subset;
    // Where the model came from: "catalog" (its machine_model section),
    // "default" (the class defaults: asked for, or a catalog without one),
    // "ideal" or the table file.
    if (!o.machine_model.empty() && o.machine_model != "catalog") report.machine_model = o.machine_model;
    else report.machine_model = planner.catalog_has_machine() ? "catalog" : "default";
    const std::string text = vp::plan_cli::plan_json(planner, plan, report);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::size_t shared = 0;
    for (std::size_t i = 0; i < plan.step_count(); ++i) shared += plan.step(i).shared != 0;
    vp::cli::write_report(o.svg == "-" ? stderr : stdout, fmt::format(
               "{} GPUs{}, {} steps ({} shared), {} transfers, {} bytes; expected {:.1f} us{}; planned in {:.1f} us\n",
               plan.gpus(), subset ? fmt::format(" (catalog GPUs {})", vp::cli::subset_gpu_list(job)) : "",
               plan.step_count(), shared, plan.transfer_count(), plan.total_bytes(), plan.expected_us(),
               rate_text(plan), best_us));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vp-plan: plan an AlltoAllv demand on a VarioPath catalog (the plan expected fastest under the machine model)", "vp-plan"};
  Options o;
  app.add_option("--catalog", o.catalog, "The cluster's catalog (.vpcat, from vp-analyze)")->required();
  CLI::Option* demand = app.add_option("--demand", o.demand,
                                       "Demand file: {\"gpus\": n, \"bytes\": [[...], ...]} (row = source) or "
                                       "{\"gpus\": n, \"entries\": [[src, dst, bytes], ...]}");
  app.add_option("--workload", o.workload, vp::sim_cli::kWorkloadHelp)->excludes(demand);
  CLI::Option* gpus = app.add_option(
      "--gpus", o.gpus,
      "Plan over these GPUs only (a job's subset, docs/subsets.md): catalog GPU indexes and ranges (0-7,16), or "
      "NODE:A-B, NODE:* and NODE:BUS-ID per node name; ranks in the order given, a node's GPUs together. The demand "
      "then has the subset's size and the JSON plan a gpu_map")
      ->type_name("LIST");
  app.add_option("--nodes", o.nodes, "Plan over these whole nodes only, by hostlist (gpu[003-006]); as --gpus")
      ->type_name("HOSTLIST")
      ->excludes(gpus);
  app.add_flag("--json", o.json, "Print the whole plan as JSON (schemas/plan.schema.json)");
  app.add_option("--svg", o.svg,
                 "Also draw the plan as a Gantt chart, SVG, to FILE (\"-\": standard output, the summary then goes "
                 "to standard error): steps x GPUs, step width = its expected time, bars coloured by route type "
                 "(intra-switch, root complex, socket, network), the shared step hatched (docs/pictures.md)")
      ->type_name("FILE");
  app.add_option("--latency-us", o.plan.latency_us, "Start-up latency per transfer, microseconds (default 5)");
  app.add_option("--min-step-latencies", o.plan.min_step_latencies,
                 "Cut payloads into steps no shorter than this many latencies (default 4)");
  app.add_option("--min-chunk-bytes", o.plan.min_chunk_bytes, "Smallest piece of a payload but its last (default 0)");
  app.add_option("--chunk-align-bytes", o.plan.chunk_align_bytes,
                 "Pieces but a payload's last are multiples of this (default 1)");
  app.add_option("--max-steps", o.plan.max_steps, "Fail when the plan needs more steps (default 4194304)");
  app.add_flag("--channels-only", o.plan.channels_only,
               "Channel steps only, every step contention-free at solo rates (the plans of earlier versions, bit for "
               "bit); by default the plan is the candidate expected fastest under the machine model: channel steps, "
               "the shared step, shifted permutations, or channel steps ending in the shared step "
               "(docs/planner.md \"Plan shapes\")");
  CLI::Option* shared = app.add_flag("--allow-shared", o.plan.allow_shared,
                                     "With --channels-only: let the plan end with one shared step (every payload "
                                     "left at once, contending) when it is expected shorter. Without "
                                     "--channels-only it changes nothing: the default weighs the shared step");
  app.add_flag_callback("--one-port", [&] { o.plan.channels_only = true; },
                        "Channel steps only, one transfer per GPU and direction: --channels-only")
      ->excludes(shared);
  app.add_option("--machine-model", o.machine_model,
                 "The losses the planner expects when transfers share a resource: a contention table "
                 "(schemas/contention.schema.json, as vp-sim --contention reads; its GPU endpoint curve, for reads, "
                 "is not used), \"ideal\" (no loss), \"default\" (the calibrated table's values built into the "
                 "runtime, simulator/contention.json) or \"catalog\"; default: the catalog's model (its "
                 "machine_model section, vp-catalog set-model; \"default\" for a catalog without one)")
      ->type_name("FILE|ideal|default|catalog");
  app.add_flag_callback("--no-replay", [&] { o.plan.replay = false; },
                        "Search every step; by default the balanced part of the demand is replayed from the catalog's "
                        "stored patterns first, where they pay (docs/planner.md \"Replay\")");
  app.add_flag("--nic-loopback", o.plan.nic_loopback,
               "An intra-node payload may loop through two NICs of its node and their switch where that is as "
               "fast and spares the host bridges, or its peer-to-peer route has no room in a step; only for an "
               "executor that can force that route "
               "(docs/planner.md \"NIC loopback\")");
  app.add_option("--repeat", o.repeat, "Plan this many times and report the fastest (default 1)")
      ->check(CLI::Range(1u, 1000000u));
  return vp::cli::run_main({"vp-plan", vp::cli::Catalogs::read}, app, argc, argv, [&] { return run(o); });
}
