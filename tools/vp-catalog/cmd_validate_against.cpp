// `validate --against`: the catalog must equal what the analyzer produces
// today for the same input and options (the tool version aside). Built only
// with -DVP_CATALOG_REBUILD=ON (the analyzer implements rebuild_catalog).
#include <fmt/format.h>

#include "commands.hpp"
#include "vp/catalog/diff.hpp"
#include "vp/catalog/rebuild.hpp"
#include "vp/topology/errors.hpp"

namespace vp::catalog_cli {

int validate_against(const std::string& file, const catalog::Catalog& c, const std::string& topology,
                     const std::string& cluster) {
  const catalog::Catalog fresh = catalog::rebuild_catalog(topology, cluster, c.provenance.options);
  catalog::DiffOptions options;
  options.ignore_tool_version = true;
  const std::vector<std::string> lines = catalog::diff_catalogs(c, fresh, options);
  if (lines.empty()) {
    fmt::print("{}: valid catalog, matches {}\n", file, topology);
    return 0;
  }
  fmt::print(stderr, "vp-catalog: error: {}: does not match a fresh analysis of {} (A: the file, B: the analysis):\n",
             file, topology);
  for (const std::string& line : lines) fmt::print(stderr, "  {}\n", line);
  return static_cast<int>(ExitCode::invalid);
}

}  // namespace vp::catalog_cli
