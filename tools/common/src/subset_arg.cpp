#include "vp/cli/subset_arg.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"
#include "vpcat/gpu_list.hpp"
#include "vpcat/pci_bus_id.hpp"

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

// "a:0-3;b:*" is one item: say how items are separated.
std::string_view separator_hint(std::string_view item) {
  return item.find_first_of("; ") != std::string_view::npos ? " (items are separated by ',')" : "";
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
    std::size_t at = 0;
    std::string_view text;
    while (vpcat::next_gpu_list_item(gpus, &at, &text)) {
      vpcat::GpuListItem item;
      switch (vpcat::parse_gpu_list_item(text, &item)) {
        case vpcat::GpuListError::none: break;
        case vpcat::GpuListError::empty_item: throw UsageError(fmt::format("--gpus '{}': an empty item", gpus));
        case vpcat::GpuListError::bad_range:
          throw UsageError(fmt::format("--gpus '{}': not a GPU index or range (A or A-B){}", text, separator_hint(text)));
        case vpcat::GpuListError::bad_node:
        case vpcat::GpuListError::bad_spec:
          throw UsageError(fmt::format("--gpus '{}': not NODE:A, NODE:A-B, NODE:* or NODE:BUS-ID{}", text,
                                       separator_hint(text)));
      }
      if (item.kind == vpcat::GpuListItemKind::gpus) {
        if (item.last >= cat.gpu_count())
          throw UsageError(fmt::format("--gpus '{}': GPU {}, the catalog has {}", text, item.last, cat.gpu_count()));
        for (std::uint64_t g = item.first; g <= item.last; ++g) list.push_back(g);
        continue;
      }
      const vpcat::NodeRef n = cat.node(node_named(item.node, "--gpus", text));
      const vpcat::NodeTypeView t = cat.node_type(n.node_type);
      if (item.kind == vpcat::GpuListItemKind::node_bus_id) {
        std::uint32_t g = 0;
        while (g < t.gpu_count() && !vpcat::same_pci_bus_id(t.component(t.gpu(g)).pci_bus_id(), item.spec)) ++g;
        if (g == t.gpu_count())
          throw UsageError(fmt::format("--gpus '{}': node type {} has no GPU at bus id {}", text, t.name(), item.spec));
        list.push_back(n.first_gpu + g);
        continue;
      }
      std::uint64_t first = item.first, last = item.last;
      if (item.kind == vpcat::GpuListItemKind::node_all) first = 0, last = t.gpu_count() - 1;
      if (last >= t.gpu_count())
        throw UsageError(fmt::format("--gpus '{}': local GPU {}, the node has {}", text, last, t.gpu_count()));
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
