// `vp-catalog diff A B`: what differs in topology, symmetry, orbits,
// patterns, cluster and provenance. Exit 0 when equal, 3 when they differ.
#include <fmt/format.h>

#include "commands.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/catalog/diff.hpp"
#include "vp/base/errors.hpp"

namespace vp::catalog_cli {

namespace {

struct DiffCommandOptions {
  std::string a, b;
  std::size_t max_items = 20;
};

int run(const DiffCommandOptions& o) {
  const vp::cli::LoadedCatalog a = vp::cli::load_catalog(o.a), b = vp::cli::load_catalog(o.b);
  catalog::DiffOptions options;
  options.max_items = o.max_items;
  const std::vector<std::string> lines = catalog::diff_catalogs(a.catalog, b.catalog, options);
  for (const std::string& line : lines) fmt::print("{}\n", line);
  return lines.empty() ? 0 : static_cast<int>(ExitCode::invalid);
}

}  // namespace

Runner setup_diff(CLI::App& app) {
  auto o = std::make_shared<DiffCommandOptions>();
  CLI::App* cmd = app.add_subcommand("diff", "Show what differs between two catalogs; exit 0 equal, 3 different");
  cmd->add_option("A", o->a, "First catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("B", o->b, "Second catalog (.vpcat or JSON mirror)")->required();
  cmd->add_option("--max", o->max_items, "Differences listed per topic")->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
