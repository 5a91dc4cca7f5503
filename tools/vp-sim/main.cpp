// vp-sim: the judge. Rebuild the cluster of a catalog, take a
// demand (a file, or one of the evaluation suite's workloads), and for each
// scheduler -- VarioPath's planner and the baselines -- check its schedule
// and simulate it; print the cut lower bound, the route bound of the
// direct-route schedulers (fanout, nccl, spreadout), with --flow-bound the
// LP bound over every route, and every result.
//
//   vp-sim --catalog cluster.vpcat --demand D.json --schedulers all --json
//   vp-sim --catalog cluster.vpcat --workload moe:zipf=1.2,hidden=4096
//   vp-sim --catalog cluster.vpcat --workload uniform --svg timeline.svg --svg-scheduler fanout
//   vp-sim --catalog cluster.vpcat --gpus 'gpu03:0-3,gpu07:*' --workload moe
//   vp-sim --catalog cluster.vpcat --workload uniform --sizes 1K:64M
//   vp-sim --catalog cluster.vpcat --model contention --simgrid-platform calibrated.xml
//
// Exit codes (vp::ExitCode, vp::cli::run_main): 0 ok, 1 usage, 2 unreadable
// or malformed input (catalog file, demand file, a demand the planner
// refuses), 3 invalid catalog, 4 internal error (a schedule that fails
// check_schedule is one).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "compare.hpp"
#include "contention_file.hpp"
#include "machine_model_file.hpp"
#include "report.hpp"
#include "sizes.hpp"
#include "vp/base/messages.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/cli/demand_file.hpp"
#include "vp/cli/output.hpp"
#include "vp/render/timeline_picture.hpp"
#include "vp/cli/run_main.hpp"
#include "vp/cli/subset_arg.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/sim/flow_bound.hpp"
#include "vp/sim/job_view.hpp"
#include "vp/sim/simgrid_platform.hpp"
#include "vp/sim/variopath.hpp"
#include "vpcat/mapped_file.hpp"
#include "workload_spec.hpp"

namespace {

struct Options {
  std::string catalog, demand, workload, schedulers = "all", model = "ideal", sync = "rank", eager = "off", contention, svg, svg_scheduler,
      machine_model;
  std::string transfers = "write";
  std::string gpus, nodes;  // a subset (docs/subsets.md)
  std::string calls;        // FIRST:END of a sequence
  std::string sizes;        // MIN:MAX[:FACTOR], nccl-tests' message sizes
  std::string planning = "measured";  // --planning-us
  std::string simgrid_platform;       // --simgrid-platform FILE
  bool json = false;
  bool flow_bound = false;  // also solve the flow bound's LP per call
  vp::sim_cli::CompareOptions compare;
};

// The demand file as the simulator's Demand, its GPU count checked. The
// simulator's byte counts are doubles (baselines split payloads
// fractionally), exact up to 2^53: a pair above that is refused at its
// value rather than rounded, so that every scheduler, VarioPath's planner
// included, sees exactly the file's demand. Sparse entries of one pair are
// summed exactly first.
vp::sim::Demand file_demand(const vp::cli::DemandFile& f, std::size_t gpus, bool subset) {
  if (f.gpus != gpus)
    throw f.error_at_gpus(fmt::format("\"gpus\" is {}, the {} has {} GPUs", f.gpus, subset ? "subset" : "catalog", gpus));
  constexpr std::uint64_t kExact = std::uint64_t{1} << 53;
  std::vector<std::uint64_t> summed;  // sparse: the pairs' sums
  if (!f.dense) {
    summed.assign(gpus * gpus, 0);
    for (const vpcat::DemandEntry& e : f.entries) {
      std::uint64_t& p = summed[std::size_t{e.src} * gpus + e.dst];
      p = e.bytes > kExact || p > kExact - e.bytes ? kExact + 1 : p + e.bytes;  // saturated above 2^53
    }
  }
  const std::uint64_t* pairs = f.dense ? f.bytes.data() : summed.data();
  vp::sim::Demand d(gpus);
  for (std::size_t s = 0; s < gpus; ++s)
    for (std::size_t t = 0; t < gpus; ++t) {
      const std::uint64_t b = pairs[s * gpus + t];
      if (s == t || b == 0) continue;
      if (b > kExact)
        throw f.error_at(s, t, fmt::format("{} bytes from GPU {} to GPU {}: vp-sim simulates at most 2^53 bytes per pair "
                                           "(its byte counts are doubles)",
                                           f.dense ? fmt::to_string(b) : std::string("more than 2^53"), s, t));
      d.set(s, t, static_cast<double>(b));
    }
  return d;
}

// --calls FIRST:END (or FIRST: one call): keep calls FIRST .. END-1 of the
// demands, numbered as in the whole sequence.
void select_calls(const std::string& spec, std::vector<vp::sim::Demand>& demands, vp::sim_cli::RunInfo& info) {
  const std::size_t colon = spec.find(':');
  auto number = [&](const std::string& text, std::size_t& out) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoul(text);
    return true;
  };
  std::size_t first = 0, end = 0;
  const bool ok = colon == std::string::npos ? number(spec, first) && (end = first + 1, true)
                                             : number(spec.substr(0, colon), first) && number(spec.substr(colon + 1), end);
  if (!ok) throw vp::UsageError(fmt::format("--calls {}: not FIRST:END or FIRST (call numbers from 0)", spec));
  if (first >= end) throw vp::UsageError(fmt::format("--calls {}: FIRST must be below END", spec));
  if (end > demands.size())
    throw vp::UsageError(fmt::format("--calls {}: {} has {}", spec,
                                     info.demand_file.empty() ? "the workload" : "the demand file",
                                     demands.size() == 1 ? std::string("one call, 0")
                                                         : fmt::format("calls 0 to {}", demands.size() - 1)));
  demands.erase(demands.begin() + static_cast<std::ptrdiff_t>(end), demands.end());
  demands.erase(demands.begin(), demands.begin() + static_cast<std::ptrdiff_t>(first));
  info.first_call = first;
  info.has_first_call = true;
}

// --sizes: the one demand of the run, its shape (docs/simulator.md "Message
// sizes"), checked to have a size on `ranks` ranks.
void check_sweep(const vp::sim_cli::SizeSweep& sweep, const std::vector<vp::sim::Demand>& demands,
                 const vp::sim_cli::RunInfo& info) {
  if (demands.size() != 1)
    throw vp::UsageError(fmt::format("--sizes: the workload {} is a sequence of {} calls; sweep one of them "
                                     "(--calls FIRST)",
                                     info.workload, demands.size()));
  if (demands.front().total() == 0)
    throw vp::UsageError(
        fmt::format("--sizes: the workload {} moves no bytes between ranks: it has no shape to scale", info.workload));
  const std::uint64_t smallest = 16 * info.gpus;  // nccl_alltoall_size: 16 bytes to each rank
  if (vp::sim_cli::nccl_alltoall_size(sweep.min, info.gpus).size == 0)
    throw vp::UsageError(fmt::format("--sizes {}: {} bytes is less than 16 bytes per rank on {} ranks (nccl-tests "
                                     "sends 16-byte-aligned shares of floats); the smallest size is {}",
                                     sweep.text, sweep.min, info.gpus, smallest));
}

// The contention model of --model contention (the table of --contention,
// or the committed one), disabled under --model ideal.
vp::sim::ContentionModel contention_model(Options& o) {
  if (o.model != "contention") return {};
  if (o.contention.empty()) o.contention = vp::sim_cli::default_contention_file();
  vp::sim::ContentionModel m = vp::sim_cli::read_contention_file(o.contention);
  m.reads = o.transfers == "read";
  return m;
}

// --simgrid-platform FILE: the catalog's machine as a SimGrid platform
// (docs/smpi.md), ideal or calibrated by --model; nothing simulated.
int write_simgrid_platform(Options& o) {
  if (!o.demand.empty() || !o.workload.empty() || !o.gpus.empty() || !o.nodes.empty() || !o.sizes.empty() ||
      !o.svg.empty() || o.json)
    throw vp::UsageError("--simgrid-platform writes the whole catalog's platform and simulates nothing: not with "
                         "--demand, --workload, --gpus, --nodes, --sizes, --svg or --json");
  const vp::sim::ContentionModel model = contention_model(o);
  vpcat::CatalogFile file;
  vp::cli::open_catalog_file(o.catalog, file);
  const vp::Topology topology = vp::sim::catalog_topology(vp::catalog::to_catalog(file.view()), o.catalog);
  if (topology.gpus.size() < 2)
    throw vp::InputError(o.catalog, 0, "the catalog has one GPU: a SimGrid platform for MPI needs two or more");
  const std::string xml =
      vp::sim::simgrid_platform_xml(topology, vp::sim::SimgridPlatformOptions{o.compare.sim.latency_us, &model});
  vp::cli::write_outputs({{o.simgrid_platform, reinterpret_cast<const std::uint8_t*>(xml.data()), xml.size()}});
  return 0;
}

int run(Options o) {
  if (!o.contention.empty() && o.model != "contention")
    throw vp::UsageError("--contention FILE goes with --model contention");
  if (!o.simgrid_platform.empty()) return write_simgrid_platform(o);
  if (o.demand.empty() == o.workload.empty()) throw vp::UsageError("give --demand FILE or --workload SPEC");
  std::optional<vp::sim_cli::SizeSweep> sweep;
  if (!o.sizes.empty()) {
    sweep = vp::sim_cli::parse_sizes(o.sizes);
    if (!o.demand.empty())
      throw vp::UsageError("--sizes scales a --workload; a demand file's bytes are its own sizes");
    if (!o.svg.empty()) throw vp::UsageError("--svg draws one run: not with --sizes");
  }
  o.compare.planning = vp::sim_cli::parse_planning_charge(o.planning);
  o.compare.sim.sync = o.sync == "barrier" ? vp::sim::SyncMode::barrier : vp::sim::SyncMode::rank;
  if (o.eager != "off" && o.sync == "barrier") throw vp::UsageError("--eager " + o.eager + " goes with --sync rank");
  o.compare.sim.eager = o.eager == "detached" ? vp::sim::EagerMode::detached
                        : o.eager == "eager"  ? vp::sim::EagerMode::eager
                                              : vp::sim::EagerMode::off;
  if (o.model == "contention") o.compare.sim.contention = contention_model(o);
  // The planner expects the losses of the model simulated, unless told
  // otherwise; "catalog": the catalog's model, as an embedder's planner.
  if (o.machine_model.empty())
    o.compare.plan.machine = vp::sim_cli::machine_model_of(o.compare.sim.contention, o.contention);
  else if (o.machine_model == "default")
    o.compare.plan.machine = vpcat::MachineModel();
  else if (o.machine_model != "catalog")
    o.compare.plan.machine = vp::sim_cli::read_machine_model(o.machine_model);
  vpcat::CatalogFile file;
  vp::cli::open_catalog_file(o.catalog, file);
  const vp::Topology topology = vp::sim::catalog_topology(vp::catalog::to_catalog(file.view()), o.catalog);
  const std::vector<std::string> schedulers = vp::sim_cli::parse_schedulers(o.schedulers);
  // Only VarioPath plans: the planner's init (which builds its replay tables,
  // tens of milliseconds) is skipped when the baselines run alone.
  const bool plans = std::find(schedulers.begin(), schedulers.end(), "variopath") != schedulers.end();
  vpcat::Planner planner;
  const bool subset = !o.gpus.empty() || !o.nodes.empty();
  std::optional<vp::sim::JobView> job;
  std::string gpu_list;
  if (subset) {
    vpcat::Subset s;
    vp::cli::parse_subset(file.view(), o.gpus, o.nodes, s);
    if (plans)
      if (vpcat::PlanStatus st = planner.init(file.view(), s); !st.ok())
        throw vp::InputError(o.catalog, 0, st.message());
    job = vp::sim::job_view(topology, s);
    gpu_list = vp::cli::subset_gpu_list(s);
  } else if (plans) {
    if (vpcat::PlanStatus s = planner.init(file.view()); !s.ok()) throw vp::InputError(o.catalog, 0, s.message());
  }
  o.compare.skip_inapplicable = o.schedulers == "all";
  if (!o.svg.empty()) {
    if (o.json && o.svg == "-") throw vp::UsageError("--json and --svg - cannot both write standard output");
    if (o.svg_scheduler.empty())
      o.svg_scheduler = std::find(schedulers.begin(), schedulers.end(), "variopath") != schedulers.end()
                            ? std::string("variopath")
                            : schedulers.front();
    if (std::find(schedulers.begin(), schedulers.end(), o.svg_scheduler) == schedulers.end())
      throw vp::UsageError(fmt::format("--svg-scheduler {}: not among the schedulers run (--schedulers {})",
                                       o.svg_scheduler, o.schedulers));
  } else if (!o.svg_scheduler.empty()) {
    throw vp::UsageError("--svg-scheduler goes with --svg FILE");
  }

  vp::sim_cli::RunInfo info;
  info.catalog = o.catalog;
  info.gpus = job ? job->topology.gpus.size() : topology.gpus.size();
  info.nodes = job ? job->topology.nodes.size() : topology.nodes.size();
  if (job) info.gpu_map.assign(job->cluster_gpu.begin(), job->cluster_gpu.end());
  info.gpu_list = gpu_list;
  info.latency_us = o.compare.sim.latency_us;
  info.planning = o.compare.planning;
  info.completion_epsilon = o.compare.sim.completion_epsilon;
  info.model = o.model;
  info.sync = o.sync;
  info.eager = o.eager;
  info.eager_bytes = o.compare.sim.eager_bytes;
  info.contention_file = o.contention;
  info.contention = o.compare.sim.contention;
  std::vector<vp::sim::Demand> demands;
  vp::cli::DemandFile demand_file;
  if (!o.demand.empty()) {
    demand_file = vp::cli::read_demand_file(o.demand);
    demands.push_back(file_demand(demand_file, info.gpus, subset));
    info.demand_file = o.demand;
  } else {
    const vp::sim_cli::WorkloadSpec w = vp::sim_cli::parse_workload(o.workload);
    demands = vp::sim_cli::make_demands(w, info.gpus);
    info.workload = w.text();
  }
  if (!o.calls.empty()) select_calls(o.calls, demands, info);
  if (o.flow_bound && info.gpus > vp::sim::kFlowBoundMaxGpus)
    throw vp::UsageError(fmt::format("--flow-bound: the {} has {} GPUs; the linear program is offered up to {}",
                                     subset ? "subset" : "catalog", info.gpus, vp::sim::kFlowBoundMaxGpus));
  // One demand judged: every scheduler, and the flow bound when asked;
  // `keep`: the schedule --svg draws kept.
  auto judge = [&](const vp::sim::Demand& d, bool keep) {
    try {
      o.compare.keep = keep ? o.svg_scheduler : std::string();
      vp::sim_cli::CaseResult c = vp::sim_cli::compare(topology, planner, d, schedulers, o.compare, job ? &*job : nullptr);
      if (o.flow_bound)
        c.flow_bound = vp::sim::flow_bound(job ? job->topology : topology, d, vp::sim::BoundOptions{o.compare.sim.latency_us});
      return c;
    } catch (const vp::sim::PlanRefused& e) {
      if (o.demand.empty()) throw;
      throw demand_file.refusal(e.status());  // at the entry it names
    }
  };
  const char* const where = job ? "subset" : "machine";
  auto note_skipped = [&](const vp::sim_cli::CaseResult& c) {
    for (const auto& [name, why] : c.skipped)
      vp::note("vp-sim", fmt::format("{} skipped on this {}: {}", name, where, why));
  };
  if (sweep) {
    check_sweep(*sweep, demands, info);
    std::vector<vp::sim_cli::SizeResult> rows;
    for (const std::uint64_t size : sweep->sizes()) {
      const vp::sim_cli::NcclAlltoallSize at = vp::sim_cli::nccl_alltoall_size(size, info.gpus);
      rows.push_back({at, judge(vp::sim_cli::demand_at_size(demands.front(), at.size), false)});
    }
    note_skipped(rows.front().result);
    vp::cli::write_report(stdout, o.json ? vp::sim_cli::report_sizes_json(info, *sweep, rows)
                                         : vp::sim_cli::report_sizes_text(info, *sweep, rows));
    return 0;
  }
  std::vector<vp::sim_cli::CaseResult> calls;
  for (const vp::sim::Demand& d : demands) calls.push_back(judge(d, calls.empty()));  // the picture draws the first call
  for (const auto& [name, why] : calls.front().skipped)
    if (name == o.svg_scheduler)
      throw vp::UsageError(fmt::format("--svg-scheduler {}: skipped on this {} ({})", name, where, why));
  note_skipped(calls.front());
  if (!o.svg.empty()) {
    const vp::sim_cli::CaseResult& first = calls.front();
    const std::string svg = vp::render::timeline_svg(
        job ? job->topology : topology, first.kept_schedule, first.kept_sim, first.bound,
        fmt::format("vp-sim: {} on {}, {}{}", o.svg_scheduler, vp::printable(o.catalog),
                    o.demand.empty() ? "workload " + info.workload : vp::printable(o.demand),
                    calls.size() > 1 || info.has_first_call
                        ? fmt::format(" (call {}{})", info.first_call,
                                      info.has_first_call ? std::string() : fmt::format(" of {}", calls.size()))
                        : std::string()));
    vp::cli::write_outputs({{o.svg, reinterpret_cast<const std::uint8_t*>(svg.data()), svg.size()}});
  }
  const std::string text =
      o.json ? vp::sim_cli::report_json(info, calls) : vp::sim_cli::report_text(info, calls);
  vp::cli::write_report(o.svg == "-" ? stderr : stdout, text);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vp-sim: simulate VarioPath's plan and the baselines (fan-out, NCCL, SpreadOut, FAST-like, DeepEP "
               "NVLink-style, DeepEP PCIe mode) "
               "of an AlltoAllv demand on a catalog's cluster, against the cut lower bound (and fan-out, NCCL and SpreadOut "
               "also against the route bound of their default routes)",
               "vp-sim"};
  Options o;
  app.add_option("--catalog", o.catalog, "The cluster's catalog (.vpcat, from vp-analyze)")->required();
  auto* demand = app.add_option("--demand", o.demand,
                                "Demand file, as vp-plan's: {\"gpus\": n, \"bytes\": [[...], ...]} (row = source) or "
                                "{\"gpus\": n, \"entries\": [[src, dst, bytes], ...]}; at most 2^53 bytes per pair");
  auto* workload = app.add_option("--workload", o.workload, vp::sim_cli::kWorkloadHelp);
  demand->excludes(workload);
  auto* gpus = app.add_option("--gpus", o.gpus,
                              "Simulate a job on these GPUs only (the rest of the cluster idle): catalog GPU indexes "
                              "and ranges (0-7,16), NODE:A-B, NODE:* or NODE:BUS-ID, in rank order, a node's GPUs "
                              "together; the demand is over the subset's ranks (docs/subsets.md)");
  auto* nodes = app.add_option("--nodes", o.nodes, "Simulate a job on these whole nodes (a hostlist), in rank order");
  gpus->excludes(nodes);
  app.add_option("--calls", o.calls,
                 "Run only calls FIRST to END-1 of a sequence (drift), FIRST:END, or one call, FIRST; the report "
                 "numbers them as the sequence does");
  app.add_option("--schedulers", o.schedulers,
                 "all (default), or a comma list of variopath, fanout, nccl, spreadout, fast, deepep_nvlink_style, "
                 "deepep_pcie");
  app.add_option("--latency-us", o.compare.sim.latency_us,
                 "Start-up latency of every transfer, microseconds, for the simulator, the bound and the planner "
                 "(default 5)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--epsilon", o.compare.sim.completion_epsilon,
                 "Simulator completion batching, relative, in [0, 0.01] (default 1e-4; 0 = exact)")
      ->check(CLI::Range(0.0, 0.01));
  app.add_option("--planning-us", o.planning,
                 "Planning time charged to the schedulers that plan per call (variopath, fast): measured (default: "
                 "the median thread CPU time of --plan-calls calls on this machine, so not reproducible) or a budget in "
                 "microseconds. Every scheduler's time is its total: counts exchange (simulated: an allgather of "
                 "the counts matrix for variopath and fast, one count per pair for DeepEP, none for fanout, nccl, "
                 "spreadout) + planning + transfer; every ratio and bandwidth is of the total (docs/simulator.md)")
      ->type_name("measured|US");
  app.add_option("--plan-calls", o.compare.plan_timed_calls,
                 "Planning time measured: median of this many calls after a warm-up (default 5)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--deepep-chunks", o.compare.deepep_chunks, "deepep_nvlink_style pipeline depth (default 8)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--nccl-peers", o.compare.nccl_peers,
                 "nccl: rounds of NCCL's p2p schedule in flight at once (default 8: one work batch)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--model", o.model,
                 "Simulator model: ideal (default; max-min fair sharing, no loss) or contention (the ideal model "
                 "plus the contention mechanisms of --contention, charged only where a resource is oversubscribed)")
      ->check(CLI::IsMember({"ideal", "contention"}));
  app.add_option("--sync", o.sync,
                 "How the simulator follows a schedule's steps: rank (default; as the MPI executor, each rank "
                 "posts its next step once its own transfers of the earlier ones are done, steps overlap) or "
                 "barrier (a step starts when the previous one has finished everywhere)")
      ->check(CLI::IsMember({"rank", "barrier"}));
  app.add_option("--eager", o.eager,
                 "Small messages under --sync rank (a pair's bytes in a step below --eager-bytes): off (default; "
                 "every sender waits for its message's delivery), detached (the sender goes on at once; the "
                 "message moves once both ranks are at its step, as SMPI's detached sends) or eager (the sender "
                 "goes on and the message moves at once, before the receiver is at its step)")
      ->check(CLI::IsMember({"off", "detached", "eager"}));
  app.add_option("--eager-bytes", o.compare.sim.eager_bytes,
                 "The eager limit of --eager: messages strictly below it are small (default 65536, SMPI's "
                 "smpi/send-is-detached-thresh)")
      ->check(CLI::Range(0.0, 1e18));
  app.add_option("--contention", o.contention,
                 "The contention model's parameter table (schemas/contention.schema.json), with --model contention; "
                 "default: the committed one, installed as <prefix>/share/vpcat/contention.json beside "
                 "<prefix>/bin/vp-sim (a build tree's vp-sim: the source tree's simulator/contention.json)")
      ->type_name("FILE");
  app.add_option("--transfers", o.transfers,
                 "How each transfer moves, for --model contention: write (default: the sender stores into the "
                 "receiver's memory, as every AlltoAllv executor does) or read (the receiver loads from the "
                 "sender's memory, as p2pmark does); only reads pay the contention table's GPU endpoint curve")
      ->check(CLI::IsMember({"write", "read"}));
  app.add_option("--sizes", o.sizes,
                 "Sweep message sizes as nccl-tests' alltoall_perf -b MIN -e MAX -f FACTOR: MIN:MAX[:FACTOR] "
                 "(bytes per rank, K/M/G = 2^10/2^20/2^30, factor 2 by default), the workload scaled to each "
                 "size, keeping its shape; prints per size and scheduler the time, nccl-tests' algbw and busbw "
                 "and time / bound (docs/simulator.md \"Message sizes\")")
      ->type_name("MIN:MAX[:FACTOR]");
  app.add_flag("--flow-bound", o.flow_bound,
               "Also solve the flow bound: the fluid optimum over every route, a linear program (COIN-OR CLP), to "
               "show how tight the cut bound is; up to 64 GPUs (docs/simulator.md)");
  app.add_flag("--json", o.json, "Print JSON (schemas/sim.schema.json) instead of a table");
  app.add_option("--svg", o.svg,
                 "Also draw the simulated timeline of one schedule (--svg-scheduler) as SVG to FILE (\"-\": standard "
                 "output, the report then goes to standard error): steps x GPUs, step width = its simulated time, "
                 "the lower bound marked with its binding cut; for a multi-call workload, the first call "
                 "(docs/pictures.md)")
      ->type_name("FILE");
  app.add_option("--svg-scheduler", o.svg_scheduler,
                 "The schedule --svg draws: one of the --schedulers run (default variopath when it runs, else the "
                 "first)");
  app.add_option("--simgrid-platform", o.simgrid_platform,
                 "Write the catalog's machine as a SimGrid platform (XML) to FILE (\"-\": standard output) and "
                 "simulate nothing: one host per GPU, its links and forwarders, each GPU pair's route as the baselines "
                 "take it, "
                 "--latency-us per message; with --model contention the lossy resources carry the table's curves "
                 "for smpi/vp_simgrid_platform.so (docs/smpi.md)")
      ->type_name("FILE");
  app.add_flag("--channels-only", o.compare.plan.channels_only,
               "VarioPath plans of channel steps only, each contention-free at solo rates (vp-plan --channels-only)");
  app.add_flag("--allow-shared", o.compare.plan.allow_shared,
               "With --channels-only, VarioPath plans may end with one shared step (vp-plan --allow-shared)");
  app.add_option("--machine-model", o.machine_model,
                 "The machine model VarioPath's planner expects (vp-plan --machine-model): a contention table, "
                 "\"ideal\", \"default\" (the runtime's class defaults) or \"catalog\" (the catalog's model, as "
                 "an embedder's planner takes it: vp-catalog set-model); default: the model simulated (--model ideal: "
                 "no loss; --model contention: the table of --contention)")
      ->type_name("FILE|ideal|default|catalog");
  app.add_flag_callback("--no-replay", [&] { o.compare.plan.replay = false; },
                        "VarioPath plans search every step (vp-plan --no-replay)");
  app.add_flag("--nic-loopback", o.compare.plan.nic_loopback,
               "VarioPath plans may loop intra-node payloads through two NICs (vp-plan --nic-loopback)");
  return vp::cli::run_main({"vp-sim", vp::cli::Catalogs::read}, app, argc, argv, [&] { return run(o); });
}
