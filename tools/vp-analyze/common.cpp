#include "common.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "vp/base/messages.hpp"
#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::cli {

void add_input_options(CLI::App& app, AnalysisRequest& r) {
  auto* input = app.add_option("-i,--input", r.input,
                               "Topology file: hwloc XML, NCCL topology XML, nvidia-smi topo -m text or vp JSON");
  // --probe only documents the default: no --input means probing.
  auto* probe = app.add_flag("--probe", r.probe, "Probe this machine with hwloc (the default without --input)");
  input->excludes(probe);
  auto* input_dir = app.add_option("--input-dir", r.input_dir, "One topology file per host (HOST.xml / HOST.json): nodes named by "
                 "host, grouped into node types by content, on one switch (docs/mpi.md)")->excludes(input, probe);
  app.add_option("--format", r.format, "Input format: auto, hwloc, nccl, nvidia-smi, json (default: detected)")
      ->check(CLI::IsMember({"auto", "hwloc", "nccl", "nvidia-smi", "json"}));
  auto* cluster = app.add_option("--cluster", r.cluster, "Cluster description (JSON, schemas/cluster.schema.json)");
  app.add_option("--cluster-root", r.cluster_root,
                 "Folder the description's node-type files must lie in (default: the description's own folder)")
      ->needs(cluster);
  auto* nodes = app.add_option("--nodes", r.nodes, "Shortcut: this many nodes of the input's node type")
                    ->check(CLI::Range(1u, 1000000u));
  nodes->excludes(cluster);
  auto* hostname =
      app.add_option("--hostname", r.hosts,
                     "Name the node NAME, the host name the runtime finds it by (default: this machine's name when "
                     "probing, hwloc's HostName for an hwloc XML input, else node0)")
          ->check([](const std::string& v) {
            return is_host_name(v) ? std::string()
                                   : "not a host name (letters, digits, '-', '.' and '_'): " + printable_line(v);
          });
  auto* hosts = app.add_option("--hosts", r.hosts,
                               "Name the nodes by a host list (\"gpu[01-04]\"), in order: one node per name, or as "
                               "many names as --nodes (default: node0, node1, ...)")
                    ->excludes(hostname);
  hostname->excludes(cluster);
  hosts->excludes(cluster);
  app.add_option("--fabric", r.fabric, "Shortcut fabric: single_switch, rail or leaf_spine")
      ->check(CLI::IsMember({"single_switch", "rail", "leaf_spine"}))
      ->needs(nodes);
  app.add_option("--leaf-size", r.leaf_size, "Shortcut leaf_spine: nodes per leaf (default 8)")
      ->needs(nodes)
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--oversubscription", r.oversubscription, "Shortcut rail/leaf_spine: downlink/uplink ratio")
      ->needs(nodes)
      ->check(CLI::Range(1.0, 1000.0));
  hostname->excludes(input_dir);
  hosts->excludes(input_dir);
  app.add_option("--set", r.sets,
                 "Override a default capacity: KEY=VALUE (e.g. pcie.gen4=22, inter_socket.amd=30, "
                 "root_complex_p2p_factor=0.5); repeatable");
  app.add_option("--defaults", r.defaults_file, "JSON file of default-table overrides {KEY: number}");
  app.add_option("--measured", r.measured,
                 "Measured GPU-to-GPU rates (nvbandwidth -j JSON or p2pBandwidthLatencyTest output) as capacities "
                 "with source `measured` (docs/importers.md \"Measured capacities\"); repeatable");
  // The sizes accepted (vp::analysis_limits(), docs/importers.md "Limits").
  AnalysisLimits& limits = analysis_limits();
  app.add_option("--max-nodes", limits.max_nodes, "Refuse a cluster of more nodes (default 32768)")
      ->check(CLI::PositiveNumber)
      ->group("Input limits");
  app.add_option("--max-components", limits.max_components,
                 "Refuse a cluster of more components in all, about 1 KB of memory each (default 2097152)")
      ->check(CLI::PositiveNumber)
      ->group("Input limits");
  app.add_option("--max-node-gpus", limits.max_node_gpus, "Refuse a node type with more GPUs (default 32)")
      ->check(CLI::PositiveNumber)
      ->group("Input limits");
  app.add_option("--max-node-nics", limits.max_node_nics, "Refuse a node type with more NICs (default 128)")
      ->check(CLI::PositiveNumber)
      ->group("Input limits");
}

void add_analysis_budget_options(CLI::App& app, AnalysisRequest& r, double& seconds) {
  app.add_option("--pattern-budget", r.search.max_search_nodes,
                 "Stop the local-pattern search after this many search nodes per node type (the catalog then "
                 "says its pattern list is incomplete)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 50));
  app.add_option("--max-analysis-seconds", seconds,
                 "Give up (exit 2) when the analysis (symmetry, pattern search, contention check) takes longer "
                 "than this (default 600; an AWS p5 node type takes about a minute)")
      ->check(CLI::Range(0.001, 1e9))
      ->group("Input limits");
}

void add_progress_options(CLI::App& app, ProgressChoice& c) {
  app.add_option("--progress", c.mode,
                 "Progress on standard error: auto (a bar on a terminal, a line every --progress-interval "
                 "otherwise), bar, lines or none (default: $VP_PROGRESS, else auto); nothing is shown for an "
                 "analysis that ends within a second")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  app.add_option("--progress-interval", c.interval_seconds,
                 "Seconds between two progress lines (lines mode; default 10); a value under 1 also shows "
                 "progress sooner (0: every report at once)")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_flag("-q,--quiet", c.quiet, "No progress (the same as --progress none)");
}

std::unique_ptr<ProgressReporter> make_progress_reporter(const ProgressChoice& c) {
  const char* env = std::getenv("VP_PROGRESS");
  if (env && !*env) env = nullptr;
  const bool tty = isatty(STDERR_FILENO) == 1;
  auto mode = ProgressReporter::choose_mode(c.mode, c.quiet, env, tty);
  if (!mode) {  // only VP_PROGRESS can be none of them (CLI11 checks --progress)
    vp::warn("vp-analyze", fmt::format("VP_PROGRESS={}: not a progress mode (auto, bar, lines or none); using auto",
                                       printable(env)));
    mode = ProgressReporter::choose_mode(c.mode, c.quiet, nullptr, tty);
  }
  ProgressReporter::Options o;
  o.mode = *mode;
  o.interval = std::chrono::milliseconds(static_cast<long long>(c.interval_seconds * 1000));
  // A shorter interval also shows sooner (0: every report at once).
  o.quiet_start = std::min(o.quiet_start, o.interval);
  return std::make_unique<ProgressReporter>(stderr, "vp-analyze: ", o);
}

}  // namespace vp::cli
