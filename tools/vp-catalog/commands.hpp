// vp-catalog subcommands: each file registers one subcommand's options and
// returns the function that runs it (CLI11's "subcommands in files").
//
// Exit codes (vp::ExitCode): 0 ok, 1 usage (place: more GPUs than are
// free), 2 unreadable input or output (a machine without GPU for validate
// --probe, a bad free-GPUs file for place), 3 invalid catalog or mismatch
// (validate, validate --probe/--input, diff) or a host name an export format
// cannot hold, 4 internal error.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog_cli {

using Runner = std::function<int()>;

Runner setup_inspect(CLI::App& app);
Runner setup_validate(CLI::App& app);
Runner setup_diff(CLI::App& app);
Runner setup_convert(CLI::App& app);
Runner setup_dump(CLI::App& app);
Runner setup_score(CLI::App& app);
Runner setup_resize(CLI::App& app);
Runner setup_export(CLI::App& app);
Runner setup_place(CLI::App& app);
Runner setup_set_model(CLI::App& app);

// `validate --against`: re-run the analysis of `topology` (and `cluster`)
// with the catalog's recorded options and compare. Returns 0 when they
// match; prints one message and returns 3 when they differ; throws
// CatalogError (invalid) for options the analyzer cannot replay and
// vp::InputError for an unreadable topology or cluster file (exit 2).
// Defined in cmd_validate_against.cpp.
int validate_against(const std::string& file, const catalog::Catalog& c, const std::string& topology,
                     const std::string& cluster);

// `validate --probe` / `validate --input FILE`: one node's topology (this
// machine probed with hwloc, or FILE in any importer format) against its
// node type in the catalog (node_check.hpp). The node type: the one of the
// node named `node`, else of the node named as the host (this machine's host
// name; FILE's name without its extension, as vp-analyze --input-dir names
// hosts), else `node_type` (index or name), else the catalog's only one.
// Returns 0 when they match; prints the differences and returns 3 when they
// differ; throws vp::UsageError when no node type can be chosen and
// vp::InputError when the input cannot be read (a machine without GPU
// included). Defined in cmd_validate_probe.cpp.
struct NodeCheckRequest {
  std::string input;  // empty: probe this machine
  std::string format = "auto";
  std::string node, node_type;
};
int validate_node(const std::string& file, const catalog::Catalog& c, const NodeCheckRequest& request);

}  // namespace vp::catalog_cli
