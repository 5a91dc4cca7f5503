#include "export_model.hpp"

#include <fmt/format.h>

#include <cctype>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/sim/catalog_topology.hpp"

namespace vp::catalog_cli {

namespace {

std::string leaf_of(const catalog::Fabric& f, std::uint32_t node) {
  switch (f.kind) {
    case catalog::FabricKind::none: return "";
    case catalog::FabricKind::single_switch: return "switch0";
    // Every node reaches every rail (NIC k on rail k): one group of rails.
    case catalog::FabricKind::rail: return "rails";
    case catalog::FabricKind::leaf_spine: return fmt::format("leaf{}", node / f.leaf_size);
  }
  return "";
}

ExportGpu gpu_of(const Topology& t, ComponentId gpu) {
  ExportGpu g;
  g.index = static_cast<std::uint32_t>(t.components[gpu].local_index);
  g.pci_bus_id = t.components[gpu].pci_bus_id;
  g.model = t.components[gpu].model;
  std::string top_switch, bridge;
  for (ComponentId c = t.components[gpu].parent; c != kNone; c = t.components[c].parent) {
    const Component& up = t.components[c];
    if (up.kind == ComponentKind::pcie_switch) top_switch = up.name;
    if (up.kind == ComponentKind::host_bridge && bridge.empty()) bridge = up.name;
    if (up.kind == ComponentKind::cpu) {
      g.socket = static_cast<std::uint32_t>(up.local_index);
      if (bridge.empty()) bridge = up.name;
    }
  }
  g.switch_group = top_switch.empty() ? bridge : top_switch;
  return g;
}

}  // namespace

ExportModel export_model(const catalog::Catalog& catalog, const std::string& origin) {
  const Topology t = sim::catalog_topology(catalog, origin);
  ExportModel m;
  m.origin = origin;
  m.fabric = catalog.fabric.kind;
  m.spine = catalog.fabric.spine;
  for (const catalog::NodeType& nt : catalog.node_types) m.types.push_back({nt.name, {}, {}, {}});
  std::vector<std::vector<ComponentId>> gpus_of_node(t.nodes.size());
  for (ComponentId g : t.gpus) gpus_of_node[static_cast<std::size_t>(t.components[g].node)].push_back(g);
  std::uint32_t node = 0;
  for (const catalog::NodeGroup& group : catalog.node_groups) {
    for (std::uint32_t i = 0; i < group.count; ++i, ++node) {
      ExportNode n{t.nodes[node].name, group.node_type, leaf_of(catalog.fabric, node)};
      if (!n.leaf.empty() && (m.leaves.empty() || m.leaves.back() != n.leaf)) m.leaves.push_back(n.leaf);
      ExportNodeType& type = m.types[group.node_type];
      if (type.hosts.empty()) {  // the type's first node: its GPUs and paths
        const std::vector<ComponentId>& gpus = gpus_of_node[node];
        for (ComponentId g : gpus) type.gpus.push_back(gpu_of(t, g));
        for (ComponentId a : gpus) {
          type.paths.emplace_back();
          for (ComponentId b : gpus) type.paths.back().push_back(path_type(t, a, b));
        }
      }
      type.hosts.push_back(n.name);
      m.nodes.push_back(std::move(n));
    }
  }
  m.spine = m.spine && m.leaves.size() > 1;  // a rail fabric's spine joins rails every node reaches
  return m;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  struct Split {
    std::string prefix, digits;
  };
  auto split = [](const std::string& s) {
    std::size_t at = s.size();
    while (at > 0 && std::isdigit(static_cast<unsigned char>(s[at - 1]))) --at;
    return Split{s.substr(0, at), s.substr(at)};
  };
  std::string out;
  for (std::size_t i = 0; i < names.size();) {
    const Split first = split(names[i]);
    std::size_t j = i + 1;
    if (!first.digits.empty() && first.digits.size() < 19) {
      const std::uint64_t start = std::stoull(first.digits);
      for (; j < names.size(); ++j) {
        const Split s = split(names[j]);
        if (s.prefix != first.prefix || s.digits.size() != first.digits.size() || s.digits.size() >= 19 ||
            std::stoull(s.digits) != start + (j - i))
          break;
      }
    }
    if (!out.empty()) out += ',';
    if (j - i == 1) {
      out += names[i];
    } else {
      out += fmt::format("{}[{}-{}]", first.prefix, first.digits, split(names[j - 1]).digits);
    }
    i = j;
  }
  return out;
}

[[noreturn]] void bad_host_name(const ExportModel& m, const std::string& name, const std::string& format,
                                const std::string& why) {
  throw catalog::CatalogError(catalog::CatalogError::Kind::invalid,
                              fmt::format("{}: node '{}': cannot be written as {}: {}",
                                          printable_line(input_name(m.origin)), printable_line(name), format, why));
}

}  // namespace vp::catalog_cli
