// `validate --probe` / `validate --input FILE`: does this node (or the node a
// file describes) still match its node type in the catalog? A health check
// after a hardware change, a BIOS update or a reseated card: one line per
// difference, exit 3 on any.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "node_check.hpp"
#include "vp/analysis/rebuild.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/messages.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::catalog_cli {

namespace {

// No importer format records ACS: say so rather than stay silent on it.
constexpr const char* kAcsNote =
    "ACS is not in the input (hwloc, NCCL XML and nvidia-smi do not record it): with ACS on, two GPUs under one "
    "PCIe switch exchange through the root complex at about half the rate; check ACSCtl in lspci -vvv";

std::string this_host() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

struct Choice {
  std::uint32_t node_type = 0;
  std::string node;  // the catalog node the input was taken for; empty when chosen by type
};

// The node named `name`, if the catalog has it.
std::optional<std::uint32_t> type_of_node(const catalog::Catalog& c, const std::string& file, const std::string& name) {
  for (const catalog::NodeGroup& g : c.node_groups)
    for (const std::string& host : expand_hostlist(g.names, file))
      if (host == name) return g.node_type;
  return std::nullopt;
}

std::string type_list(const catalog::Catalog& c) {
  std::string out;
  for (std::size_t t = 0; t < c.node_types.size(); ++t)
    out += fmt::format("{}{} ({})", t ? ", " : "", t, printable_line(c.node_types[t].name));
  return out;
}

Choice choose_node_type(const std::string& file, const catalog::Catalog& c, const NodeCheckRequest& r,
                        const std::string& host) {
  if (!r.node.empty()) {
    const std::optional<std::uint32_t> t = type_of_node(c, file, r.node);
    if (!t) throw UsageError(fmt::format("--node {}: the catalog {} has no node of that name", printable_line(r.node), file));
    return {*t, r.node};
  }
  if (!host.empty())
    if (const std::optional<std::uint32_t> t = type_of_node(c, file, host)) return {*t, host};
  if (!r.node_type.empty()) {
    for (std::uint32_t t = 0; t < c.node_types.size(); ++t)
      if (c.node_types[t].name == r.node_type || std::to_string(t) == r.node_type) return {t, ""};
    throw UsageError(fmt::format("--node-type {}: the catalog {} has no such node type (its node types: {})",
                                 printable_line(r.node_type), file, type_list(c)));
  }
  if (c.node_types.size() == 1) return {0, ""};
  throw UsageError(fmt::format("the catalog {} has {} node types and no node named {}: give --node NAME or "
                               "--node-type T (its node types: {})",
                               file, c.node_types.size(), host.empty() ? "as this host" : printable_line(host),
                               type_list(c)));
}

}  // namespace

int validate_node(const std::string& file, const catalog::Catalog& c, const NodeCheckRequest& r) {
  const std::string host =
      r.input.empty() ? this_host() : r.input == "-" ? "" : std::filesystem::path(r.input).stem().string();
  const Choice choice = choose_node_type(file, c, r, host);
  Topology node;
  try {
    node = catalog::rebuild_node(r.input, r.format, c.provenance.options);
  } catch (const catalog::RecordedOptionsError& e) {
    throw catalog::CatalogError(catalog::CatalogError::Kind::invalid,
                                fmt::format("{}: cannot replay the import: {}", file, e.what()));
  }
  const catalog::NodeType& type = c.node_types.at(choice.node_type);
  const std::string input = r.input.empty() ? fmt::format("this machine ({})", printable_line(host)) : input_name(r.input);
  const std::string target =
      choice.node.empty() ? fmt::format("node type {}", printable_line(type.name))
                          : fmt::format("node {} (node type {})", printable_line(choice.node), printable_line(type.name));
  const std::vector<std::string> differences = node_differences(type, node);
  if (differences.empty()) {
    std::size_t gpus = 0, nics = 0;
    for (const catalog::Component& x : type.components) {
      gpus += x.kind == catalog::Kind::gpu;
      nics += x.kind == catalog::Kind::nic;
    }
    fmt::print("{}: {} matches {} ({} GPUs, {} NICs, the same PCIe tree and capacities)\n  note: {}\n", file, input,
               target, gpus, nics, kAcsNote);
    return 0;
  }
  std::string message = fmt::format("{}: {} does not match {} ({} difference{}):", file, input, target,
                                    differences.size(), differences.size() == 1 ? "" : "s");
  for (const std::string& d : differences) message += "\n  " + d;
  message += fmt::format("\n  note: {}", kAcsNote);
  vp::error("vp-catalog", message);
  return static_cast<int>(ExitCode::invalid);
}

}  // namespace vp::catalog_cli
