#include "vp/cli/subset_arg.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"

namespace vp::cli {
namespace {

// The catalog's node names (its node groups' hostlists, expanded).
std::map<std::string, std::uint32_t, std::less<>> node_names(const vpcat::CatalogView& cat) {
  std::map<std::string, std::uint32_t, std::less<>> out;
  for (std::uint32_t g = 0; g < cat.node_group_count(); ++g) {
    const vpcat::NodeGroupView ng = cat.node_group(g);
    const std::vector<std::string> names = expand_hostlist(ng.names, "catalog");
    for (std::size_t i = 0; i < names.size() && i < ng.count; ++i)
      out.emplace(names[i], ng.first_node + static_cast<std::uint32_t>(i));
  }
  return out;
}

bool number(std::string_view s, std::uint64_t& v) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// "A" or "A-B" into [first, last]; false when malformed.
bool range(std::string_view s, std::uint64_t& first, std::uint64_t& last) {
  const std::size_t dash = s.find('-');
  if (dash == std::string_view::npos) return number(s, first) && (last = first, true);
  return number(s.substr(0, dash), first) && number(s.substr(dash + 1), last) && first <= last;
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? s.size() : comma;
    out.push_back(s.substr(start, end - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

void parse_subset(const vpcat::CatalogView& cat, const std::string& gpus, const std::string& nodes,
                  vpcat::Subset& out) {
  if (gpus.empty() == nodes.empty()) throw UsageError("give the subset as --gpus LIST or --nodes HOSTLIST");
  std::map<std::string, std::uint32_t, std::less<>> names;
  auto node_named = [&](std::string_view name, const std::string& option, std::string_view item) {
    if (names.empty()) names = node_names(cat);
    const auto it = names.find(name);
    if (it == names.end())
      throw UsageError(fmt::format("{} '{}': the catalog has no node named '{}'", option, item, name));
    return it->second;
  };
  std::vector<std::uint64_t> list;
  if (!nodes.empty()) {
    std::vector<std::string> hosts;
    try {
      hosts = expand_hostlist(nodes, "--nodes");
    } catch (const ToolError& e) {
      throw UsageError(fmt::format("--nodes '{}': {}", nodes, e.what()));
    }
    for (const std::string& h : hosts) {
      const vpcat::NodeRef n = cat.node(node_named(h, "--nodes", h));
      const std::uint32_t count = cat.node_type(n.node_type).gpu_count();
      for (std::uint32_t g = 0; g < count; ++g) list.push_back(n.first_gpu + g);
    }
  } else {
    for (std::string_view item : split(gpus)) {
      if (item.empty()) throw UsageError(fmt::format("--gpus '{}': an empty item", gpus));
      const std::size_t colon = item.find(':');
      std::uint64_t first = 0, last = 0;
      if (colon == std::string_view::npos) {
        if (!range(item, first, last))
          throw UsageError(fmt::format("--gpus '{}': not a GPU index or range (A or A-B)", item));
        if (last >= cat.gpu_count())
          throw UsageError(fmt::format("--gpus '{}': GPU {}, the catalog has {}", item, last, cat.gpu_count()));
        for (std::uint64_t g = first; g <= last; ++g) list.push_back(g);
        continue;
      }
      const vpcat::NodeRef n = cat.node(node_named(item.substr(0, colon), "--gpus", item));
      const vpcat::NodeTypeView t = cat.node_type(n.node_type);
      const std::string_view spec = item.substr(colon + 1);
      if (spec.find(':') != std::string_view::npos || spec.find('.') != std::string_view::npos) {  // a bus id
        std::uint32_t g = 0;
        while (g < t.gpu_count() && t.component(t.gpu(g)).pci_bus_id() != spec) ++g;
        if (g == t.gpu_count())
          throw UsageError(fmt::format("--gpus '{}': node type {} has no GPU at bus id {}", item, t.name(), spec));
        list.push_back(n.first_gpu + g);
        continue;
      }
      if (spec == "*") {
        first = 0, last = t.gpu_count() - 1;
      } else if (!range(spec, first, last)) {
        throw UsageError(fmt::format("--gpus '{}': not NODE:A, NODE:A-B, NODE:* or NODE:BUS-ID", item));
      }
      if (last >= t.gpu_count())
        throw UsageError(fmt::format("--gpus '{}': local GPU {}, the node has {}", item, last, t.gpu_count()));
      for (std::uint64_t g = first; g <= last; ++g) list.push_back(n.first_gpu + g);
    }
  }
  const vpcat::PlanStatus s = out.assign_gpus(cat, list.data(), list.size());
  if (!s.ok()) throw UsageError(fmt::format("{} '{}': {}", nodes.empty() ? "--gpus" : "--nodes",
                                            nodes.empty() ? gpus : nodes, s.message()));
}

std::string subset_gpu_list(const vpcat::Subset& s) {
  std::string out;
  std::uint32_t r = 0;
  while (r < s.gpu_count()) {
    std::uint32_t e = r;
    while (e + 1 < s.gpu_count() && s.catalog_gpu(e + 1) == s.catalog_gpu(e) + 1) ++e;
    out += fmt::format("{}{}", out.empty() ? "" : ",", s.catalog_gpu(r));
    if (e > r) out += fmt::format("-{}", s.catalog_gpu(e));
    r = e + 1;
  }
  return out;
}

}  // namespace vp::cli
