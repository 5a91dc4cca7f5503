#include "node_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "vp/base/errors.hpp"

namespace vp::catalog_cli {

namespace {

constexpr std::uint32_t kUnpaired = catalog::kNone;

const char* kind_words(ComponentKind k) {
  switch (k) {
    case ComponentKind::cpu: return "CPU socket";
    case ComponentKind::host_bridge: return "root complex";
    case ComponentKind::pcie_switch: return "PCIe switch";
    case ComponentKind::gpu: return "GPU";
    case ComponentKind::nic: return "NIC";
    case ComponentKind::net_switch: return "network switch";
  }
  return "component";
}

std::string kind_plural(ComponentKind k) {
  if (k == ComponentKind::host_bridge) return "root complexes";
  if (k == ComponentKind::pcie_switch) return "PCIe switches";
  if (k == ComponentKind::net_switch) return "network switches";
  return std::string(kind_words(k)) + "s";
}

bool same_gbps(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fmax(std::fabs(a), std::fabs(b)); }

// "gpu3 (NVIDIA L40S at 0000:17:00.0)", "cpu1", "pcie_switch0 (at 0000:01:00.0)".
std::string describe(const std::string& name, const std::string& model, const std::string& bus) {
  std::string what;
  if (!model.empty()) what = model;
  if (!bus.empty()) what += (what.empty() ? "at " : " at ") + bus;
  return printable_line(what.empty() ? name : fmt::format("{} ({})", name, what));
}
std::string describe(const catalog::Component& c) { return describe(c.name, c.model, c.pci_bus_id); }
std::string describe(const Component& c) { return describe(c.name, c.model, c.pci_bus_id); }
std::string name_of(const catalog::Component& c) {
  return printable_line(c.pci_bus_id.empty() ? c.name : fmt::format("{} ({})", c.name, c.pci_bus_id));
}
std::string name_of(const Component& c) {
  return printable_line(c.pci_bus_id.empty() ? c.name : fmt::format("{} ({})", c.name, c.pci_bus_id));
}

// Pairs catalog components with the node's: by kind and bus id, then, among
// those left of a kind where a side has no bus id, in order.
struct Pairing {
  std::vector<std::uint32_t> node_of;     // per catalog component
  std::vector<std::uint32_t> catalog_of;  // per node component
};

Pairing pair_components(const catalog::NodeType& type, const Topology& node) {
  Pairing p{std::vector<std::uint32_t>(type.components.size(), kUnpaired),
            std::vector<std::uint32_t>(node.components.size(), kUnpaired)};
  for (std::uint32_t a = 0; a < type.components.size(); ++a) {
    const catalog::Component& c = type.components[a];
    if (c.pci_bus_id.empty()) continue;
    for (std::uint32_t b = 0; b < node.components.size(); ++b)
      if (p.catalog_of[b] == kUnpaired && static_cast<int>(node.components[b].kind) == static_cast<int>(c.kind) &&
          node.components[b].pci_bus_id == c.pci_bus_id) {
        p.node_of[a] = b, p.catalog_of[b] = a;
        break;
      }
  }
  for (std::uint32_t a = 0; a < type.components.size(); ++a) {
    const catalog::Component& c = type.components[a];
    if (p.node_of[a] != kUnpaired) continue;
    for (std::uint32_t b = 0; b < node.components.size(); ++b) {
      const Component& n = node.components[b];
      if (p.catalog_of[b] != kUnpaired || static_cast<int>(n.kind) != static_cast<int>(c.kind)) continue;
      if (!c.pci_bus_id.empty() && !n.pci_bus_id.empty()) continue;  // both known and different
      p.node_of[a] = b, p.catalog_of[b] = a;
      break;
    }
  }
  return p;
}

// The PCIe generation and width that give `gbps` under the table, the
// node's generation (then its width) preferred: how the catalog's link was
// most likely trained.
std::optional<std::pair<int, int>> pcie_shape(double gbps, int gen, int width, const CapacityDefaults& d) {
  static constexpr int kWidths[] = {16, 8, 4, 2, 1};
  for (int w : kWidths)
    if (gen > 0 && same_gbps(d.pcie(gen, w).gbps, gbps)) return std::make_pair(gen, w);
  for (const auto& [g, x16] : d.pcie_x16_gbps)
    if (width > 0 && same_gbps(d.pcie(g, width).gbps, gbps)) return std::make_pair(g, width);
  return std::nullopt;
}

// "at x8 instead of x16 (12 GB/s, the catalog 24 GB/s)" and the like.
std::string link_words(double catalog_gbps, const Link& l, const CapacityDefaults& d) {
  const std::string rates = fmt::format("{:g} GB/s, the catalog {:g} GB/s", l.capacity.gbps, catalog_gbps);
  if (l.kind == LinkKind::pcie && l.pcie_gen > 0 && l.pcie_width > 0) {
    if (const auto shape = pcie_shape(catalog_gbps, l.pcie_gen, l.pcie_width, d)) {
      if (shape->first == l.pcie_gen && shape->second != l.pcie_width)
        return fmt::format("at x{} instead of x{} ({})", l.pcie_width, shape->second, rates);
      if (shape->second == l.pcie_width && shape->first != l.pcie_gen)
        return fmt::format("at PCIe Gen{} instead of Gen{} ({})", l.pcie_gen, shape->first, rates);
    }
    return fmt::format("at PCIe Gen{} x{}: {}", l.pcie_gen, l.pcie_width, rates);
  }
  return fmt::format("at {}", rates);
}

}  // namespace

std::vector<std::string> node_differences(const catalog::NodeType& type, const Topology& node) {
  std::vector<std::string> out;
  const Pairing p = pair_components(type, node);
  // Counts first: what an operator looks at before the details.
  for (int k = 0; k < kComponentKinds - 1; ++k) {
    const auto kind = static_cast<ComponentKind>(k);
    std::size_t in_catalog = 0, in_node = 0;
    for (const catalog::Component& c : type.components) in_catalog += static_cast<int>(c.kind) == k;
    for (const Component& c : node.components) in_node += c.kind == kind;
    if (in_catalog != in_node)
      out.push_back(fmt::format("{} {} in the catalog, {} in the input", in_catalog, kind_plural(kind), in_node));
  }
  for (std::uint32_t a = 0; a < type.components.size(); ++a) {
    const catalog::Component& c = type.components[a];
    if (p.node_of[a] != kUnpaired) continue;
    const std::string under =
        c.parent == catalog::kNone ? "" : fmt::format(" under {}", name_of(type.components[c.parent]));
    out.push_back(fmt::format("{} missing: the catalog's {}{}",
                              kind_words(static_cast<ComponentKind>(c.kind)), describe(c), under));
  }
  for (std::uint32_t b = 0; b < node.components.size(); ++b)
    if (p.catalog_of[b] == kUnpaired)
      out.push_back(fmt::format("{} not in the catalog: the input's {}", kind_words(node.components[b].kind),
                                describe(node.components[b])));
  for (std::uint32_t a = 0; a < type.components.size(); ++a) {
    if (p.node_of[a] == kUnpaired) continue;
    const catalog::Component& c = type.components[a];
    const Component& n = node.components[p.node_of[a]];
    const std::string who = fmt::format("{} {}", kind_words(n.kind), name_of(c));
    if (c.model != n.model)
      out.push_back(fmt::format("{}: model {} in the catalog, {} in the input", who,
                                printable_line(c.model.empty() ? "unknown" : c.model),
                                printable_line(n.model.empty() ? "unknown" : n.model)));
    const double forward = n.forward ? n.forward->gbps : 0.0;
    if (!same_gbps(c.forward_gbps, forward))
      out.push_back(fmt::format("{}: forwards peer-to-peer {} in the catalog, {} in the input", who,
                                c.forward_gbps > 0 ? fmt::format("at {:g} GB/s", c.forward_gbps) : "without limit",
                                forward > 0 ? fmt::format("at {:g} GB/s", forward) : "without limit"));
    if (c.kind == catalog::Kind::nic && c.gpudirect != n.gpudirect)
      out.push_back(fmt::format("{}: GPUDirect RDMA {} in the catalog, {} in the input", who,
                                c.gpudirect ? "on" : "off", n.gpudirect ? "on" : "off"));
    if (c.parent == catalog::kNone) continue;
    const std::uint32_t expected_parent = p.node_of[c.parent];
    if (expected_parent == kUnpaired) continue;  // its parent is reported missing
    if (n.parent != expected_parent) {
      out.push_back(fmt::format("{}: under {} in the catalog, under {} in the input", who,
                                name_of(type.components[c.parent]),
                                n.parent == kNone ? "nothing" : name_of(node.components[n.parent])));
      continue;
    }
    double catalog_gbps = 0;
    for (const catalog::Link& l : type.links)
      if (l.src == a && l.dst == c.parent) catalog_gbps = l.capacity_gbps;
    const LinkId up = node.find_link(p.node_of[a], n.parent);
    if (up != kNone && catalog_gbps > 0 && !same_gbps(catalog_gbps, node.links[up].capacity.gbps))
      out.push_back(fmt::format("{}: link to {} {}", who, name_of(type.components[c.parent]),
                                link_words(catalog_gbps, node.links[up], node.defaults)));
  }
  // The links between sockets (every other link is a component's to its parent).
  for (const catalog::Link& l : type.links) {
    if (l.kind != catalog::LinkKind::inter_socket || l.src > l.dst) continue;
    const std::uint32_t s = p.node_of[l.src], d = p.node_of[l.dst];
    if (s == kUnpaired || d == kUnpaired) continue;
    const LinkId link = node.find_link(s, d);
    const std::string pair = fmt::format("{} - {}", name_of(type.components[l.src]), name_of(type.components[l.dst]));
    if (link == kNone)
      out.push_back(fmt::format("inter-socket link {} missing in the input ({:g} GB/s in the catalog)", pair,
                                l.capacity_gbps));
    else if (!same_gbps(l.capacity_gbps, node.links[link].capacity.gbps))
      out.push_back(fmt::format("inter-socket link {} at {:g} GB/s in the input, {:g} GB/s in the catalog", pair,
                                node.links[link].capacity.gbps, l.capacity_gbps));
  }
  return out;
}

}  // namespace vp::catalog_cli
