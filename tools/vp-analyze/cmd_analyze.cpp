// `vp-analyze --out cluster.vpcat`: the whole analysis (the command run when
// no subcommand is named). Imports the topology, analyses it, writes the
// catalog atomically (and its JSON mirror on request) and prints a summary.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "machine_model_file.hpp"
#include "vp/base/messages.hpp"
#include "vp/analysis/build_catalog.hpp"
#include "vp/catalog/bandwidth_summary.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/summary.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/cli/output.hpp"
#include "vp/topology/errors.hpp"

namespace vp::cli {

namespace {

struct AnalyzeOptions {
  AnalysisRequest request;
  std::string out;
  std::string json_out;
  std::string summary = "text";
  std::string machine_model;  // FILE|ideal; empty: the class defaults
  ProgressChoice progress;
  double max_analysis_seconds = 600;
};

// The summary in operators' words: each node type's GB/s and patterns found;
// the group orders and orbits with --verbose (--summary json always has them).
std::string text_summary(const catalog::Summary& s, const catalog::Catalog& c, const std::string& out,
                         double elapsed_ms, bool verbose) {
  std::string text;
  text += fmt::format("wrote {} ({} bytes) in {:.1f} ms\n", out == "-" ? "standard output" : out, s.catalog_bytes,
                      elapsed_ms);
  text += fmt::format("  GPUs {}, nodes {}, node types {}\n", s.gpus, s.nodes, s.node_types.size());
  for (std::size_t i = 0; i < s.node_types.size(); ++i) {
    const catalog::NodeTypeSummary& t = s.node_types[i];
    text += fmt::format("  node type {}: {} GPUs, {}; {} contention-free patterns{}\n", t.name, t.gpus,
                        catalog::bandwidth_text(catalog::bandwidth_of(c.node_types[i])),
                        catalog::readable_decimal(t.local_patterns),
                        c.node_types[i].patterns_complete ? "" : " (INCOMPLETE: search budget reached)");
  }
  if (!verbose) return text;
  for (const catalog::NodeTypeSummary& t : s.node_types)
    text += fmt::format("  node type {}: |Aut| = {}, {} GPU orbits, {} local pattern orbits representing {} patterns\n",
                        t.name, catalog::readable_decimal(t.automorphism_group_order), t.gpu_orbits,
                        t.local_pattern_orbits, catalog::readable_decimal(t.local_patterns));
  text += fmt::format("  fabric group: {} (order {})\n", c.fabric.group_description,
                      catalog::readable_decimal(c.fabric.group_order));
  text += fmt::format("  cluster automorphism group order {}\n",
                      catalog::readable_decimal(s.cluster_automorphism_group_order));
  text += fmt::format("  channel orbits stored {}, channels represented {}\n", s.channel_orbits,
                      catalog::readable_decimal(s.channels_represented));
  return text;
}

}  // namespace

Runner setup_analyze_command(CLI::App& app) {
  auto opts = std::make_shared<AnalyzeOptions>();
  add_input_options(app, opts->request);
  app.add_option("-o,--out", opts->out, "Write the catalog here (.vpcat), atomically; - for standard output");
  app.add_option("--json-out", opts->json_out,
                 "Also write the catalog's JSON mirror here (with the catalog or not at all); - for standard output");
  app.add_option("--summary", opts->summary, "Summary format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--machine-model", opts->machine_model,
                 "The machine model the catalog carries (what sharing a resource costs; the planner plans under it): "
                 "a contention table (schemas/contention.schema.json) or \"ideal\" (every loss off); default: the "
                 "planner's class defaults, the committed calibrated table, sources cited (vp-catalog set-model "
                 "changes it later)")
      ->type_name("FILE|ideal");
  add_analysis_budget_options(app, opts->request, opts->max_analysis_seconds);
  add_progress_options(app, opts->progress);
  return [opts]() {
    if (opts->out.empty()) throw UsageError("--out FILE is required (or name a command: see --help)");
    if (opts->out == "-" && opts->json_out == "-")
      throw UsageError("--out - --json-out -: only one output can go to standard output");
    check_binary_stdout("--out", opts->out);
    // With an output on standard output, the summary goes to standard error.
    std::FILE* summary_to = writes_stdout({opts->out, opts->json_out}) ? stderr : stdout;
    // A bad table fails before the analysis.
    std::optional<catalog::MachineModelSpec> model;
    if (!opts->machine_model.empty()) model = vp::sim_cli::read_machine_model_spec(opts->machine_model);
    auto start = std::chrono::steady_clock::now();
    opts->request.search.deadline = deadline_after(opts->max_analysis_seconds);
    std::unique_ptr<ProgressReporter> progress = make_progress_reporter(opts->progress);
    LoadedInput in = load_input(opts->request);
    for (const std::string& line : in.notes) vp::note("vp-analyze", line);
    // What the import assumed, as `vp-analyze topology` shows it; the
    // catalog's provenance keeps the same lines (vp-catalog inspect).
    for (const std::string& w : in.topology.warnings) vp::warn("vp-analyze", w);
    warn_nvlink(in);
    check_nodes_reach_network(in);
    catalog::Catalog cat = build_catalog(in, opts->request.search, canonical_options(opts->request), progress->fn());
    progress->finish();
    if (model) cat.machine_model = std::move(*model);
    std::vector<std::uint8_t> bytes = catalog::write_catalog(cat);
    // The catalog and its mirror land together or not at all.
    std::vector<catalog::OutputFile> outputs{{opts->out, bytes.data(), bytes.size()}};
    const std::string mirror = opts->json_out.empty() ? std::string() : catalog::dump_json(cat);
    if (!opts->json_out.empty())
      outputs.push_back({opts->json_out, reinterpret_cast<const std::uint8_t*>(mirror.data()), mirror.size()});
    write_outputs(outputs);
    double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    catalog::Summary s = catalog::summarize(cat, bytes.size());
    if (opts->summary == "json") {
      catalog::Json j = catalog::to_json(s);
      j["elapsed_ms"] = elapsed_ms;
      write_report(summary_to, j.dump(2) + "\n");
    } else {
      write_report(summary_to, text_summary(s, cat, opts->out, elapsed_ms, opts->progress.verbose));
    }
    return 0;
  };
}

}  // namespace vp::cli
