// `validate --against`: the catalog must equal what the analyzer produces
// today for the same input and the options the catalog records (the tool
// version aside). One message says what differs (the topology, the orbits,
// the channels, the options) and names the files, then the differences.
#include <fmt/format.h>

#include "commands.hpp"
#include "vp/base/messages.hpp"
#include "vp/catalog/diff.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/analysis/rebuild.hpp"
#include "vp/base/errors.hpp"

namespace vp::catalog_cli {

int validate_against(const std::string& file, const catalog::Catalog& c, const std::string& topology,
                     const std::string& cluster) {
  catalog::Catalog fresh;
  try {
    fresh = catalog::rebuild_catalog(topology, cluster, c.provenance.options);
  } catch (const catalog::RecordedOptionsError& e) {
    throw catalog::CatalogError(catalog::CatalogError::Kind::invalid,
                                fmt::format("{}: cannot replay the analysis: {}", file, e.what()));
  }
  const std::string source = cluster.empty()    ? topology
                             : topology.empty() ? cluster
                                                : fmt::format("{} with --cluster {}", topology, cluster);
  catalog::DiffOptions options;
  options.ignore_tool_version = true;
  // A resized catalog keeps its source's digest: what must match is the rest.
  options.ignore_origin = c.provenance.tool == "vp-catalog resize";
  const catalog::DiffReport report = catalog::diff_report(c, fresh, options);
  const std::size_t renamed = report.counts[static_cast<std::size_t>(catalog::DiffArea::names)];
  if (report.total() == renamed) {
    // Only node type names differ: they come from file names, the content is the same.
    fmt::print("{}: valid catalog, matches the analysis of {} (options {})\n", file, source, c.provenance.options);
    for (const std::string& line : report.lines) fmt::print("  note: {}\n", line);
    return 0;
  }
  // "the topology differs", "the orbits differ", "the topology and the channels differ"
  const bool singular =
      report.area_count() == 1 && report.counts[static_cast<std::size_t>(catalog::DiffArea::topology)];
  const char* verb = singular ? "differs" : "differ";
  std::string message = fmt::format(
      "{}: does not match the analysis of {} (options {}): {} {} ({} difference{}; A: {}, B: the analysis)", file,
      source, c.provenance.options, report.areas_text(), verb, report.total(), report.total() == 1 ? "" : "s", file);
  for (const std::string& line : report.lines) message += "\n  " + line;
  std::uint64_t nodes = 0;
  for (const catalog::NodeGroup& g : c.node_groups) nodes += g.count;
  if (cluster.empty() && nodes > 1 && c.provenance.options.find("nodes=") == std::string::npos)
    message += fmt::format("\n  (the catalog has {} nodes and records no --nodes shortcut: give its cluster with --cluster)",
                           nodes);
  vp::error("vp-catalog", message);
  return static_cast<int>(ExitCode::invalid);
}

}  // namespace vp::catalog_cli
