#include "vp/sim/catalog_topology.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "vp/catalog/errors.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"

namespace vp::sim {

namespace {

Capacity catalog_capacity(double gbps) { return Capacity{gbps, CapacitySource::input, "catalog"}; }

// Host names of every node, in node order.
std::vector<std::string> node_names(const catalog::Catalog& c, const std::string& origin) {
  std::vector<std::string> out;
  for (std::size_t g = 0; g < c.node_groups.size(); ++g) {
    const catalog::NodeGroup& group = c.node_groups[g];
    std::vector<std::string> names = expand_hostlist(group.names, origin);
    if (names.size() != group.count)
      throw InputError(origin, 0,
                       fmt::format("node group {}: names \"{}\" expand to {} hosts, the group has {} nodes", g,
                                   group.names, names.size(), group.count));
    out.insert(out.end(), names.begin(), names.end());
  }
  return out;
}

}  // namespace

namespace {

Topology build_topology(const catalog::Catalog& c, const std::string& origin) {
  Topology t;
  const std::vector<std::string> names = node_names(c, origin);
  std::vector<ComponentId> nics;  // global NIC order: node order, then local index
  std::vector<double> nic_port;   // per global NIC: its fabric link's capacity
  std::size_t node = 0;
  for (const catalog::NodeGroup& group : c.node_groups) {
    const catalog::NodeType& type = c.node_types.at(group.node_type);
    for (std::uint32_t k = 0; k < group.count; ++k, ++node) {
      t.nodes.push_back(NodeInfo{names[node], type.name});
      const auto first_component = static_cast<ComponentId>(t.components.size());
      const auto first_link = static_cast<LinkId>(t.links.size());
      std::vector<ComponentId> node_nics;
      for (const catalog::Component& lc : type.components) {
        const ComponentId id = t.add_component(static_cast<ComponentKind>(lc.kind), static_cast<std::int32_t>(node));
        Component& gc = t.components[id];
        gc.name = lc.name;
        gc.parent = lc.parent == catalog::kNone ? kNone : first_component + lc.parent;
        gc.local_index = static_cast<std::int32_t>(lc.local_index);
        gc.model = lc.model;
        gc.pci_bus_id = lc.pci_bus_id;
        gc.device_name = lc.device_name;
        if (lc.forward_gbps > 0) gc.forward = catalog_capacity(lc.forward_gbps);
        gc.gpudirect = lc.gpudirect;
        if (lc.kind == catalog::Kind::nic) node_nics.push_back(id);
      }
      for (const catalog::Link& ll : type.links) {
        Link l;
        l.id = static_cast<LinkId>(t.links.size());
        l.src = first_component + ll.src;
        l.dst = first_component + ll.dst;
        l.kind = static_cast<LinkKind>(ll.kind);
        l.capacity = catalog_capacity(ll.capacity_gbps);
        l.reverse = ll.reverse == catalog::kNone ? kNone : first_link + ll.reverse;
        t.links.push_back(std::move(l));
      }
      // NICs by local index (components are in canonical order, so NIC
      // local indexes already increase, but do not rely on it).
      std::vector<ComponentId> by_index(node_nics.size(), kNone);
      for (ComponentId n : node_nics) {
        const auto i = static_cast<std::size_t>(t.components[n].local_index);
        if (i >= by_index.size() || by_index[i] != kNone)
          throw InputError(origin, 0, fmt::format("node type {}: NIC local indexes are not 0..{}", type.name,
                                                  node_nics.size() - 1));
        by_index[i] = n;
      }
      for (ComponentId n : by_index) {
        const catalog::Component& lc = type.components[n - first_component];
        double port = lc.nic_gbps;
        if (!(port > 0)) {  // no GPUDirect RDMA: the PCIe link's capacity stands in (header)
          port = 0;
          for (const catalog::Link& ll : type.links)
            if (ll.src == n - first_component && ll.kind == catalog::LinkKind::pcie) port = ll.capacity_gbps;
        }
        nics.push_back(n);
        nic_port.push_back(port);
      }
    }
  }
  t.fabric.kind = static_cast<FabricKind>(c.fabric.kind);
  t.fabric.leaf_size = c.fabric.leaf_size;
  t.fabric.oversubscription = c.fabric.oversubscription;

  // Fabric switches in SPEC order, named as the cluster builder names them.
  const char* role = c.fabric.kind == catalog::FabricKind::rail         ? "rail"
                     : c.fabric.kind == catalog::FabricKind::leaf_spine ? "leaf"
                                                                        : "switch";
  std::vector<ComponentId> switches;
  for (std::uint32_t k = 0; k < c.fabric.switches; ++k) {
    const ComponentId id = t.add_component(ComponentKind::net_switch, -1);
    t.components[id].role = role;
    t.components[id].name = fmt::format("{}{}", role, k);
    t.components[id].local_index = static_cast<std::int32_t>(k);
    switches.push_back(id);
  }
  ComponentId spine = kNone;
  if (c.fabric.spine) {
    spine = t.add_component(ComponentKind::net_switch, -1);
    t.components[spine].role = "spine";
    t.components[spine].name = "spine0";
    t.components[spine].local_index = static_cast<std::int32_t>(c.fabric.switches);
  }
  if (c.fabric.kind != catalog::FabricKind::none) {
    if (switches.empty()) throw InputError(origin, 0, "a fabric without switches");
    // The switch of each NIC (SPEC §6.9): the one switch; rail k; leaf
    // floor(node / leaf_size).
    for (std::size_t i = 0; i < nics.size(); ++i) {
      const Component& nic = t.components[nics[i]];
      std::size_t k = 0;
      if (c.fabric.kind == catalog::FabricKind::rail) k = static_cast<std::size_t>(nic.local_index);
      else if (c.fabric.kind == catalog::FabricKind::leaf_spine)
        k = static_cast<std::size_t>(nic.node) / (c.fabric.leaf_size ? c.fabric.leaf_size : 1);
      if (k >= switches.size())
        throw InputError(origin, 0, fmt::format("{}: no fabric switch {} for it", t.display_name(nics[i]), k));
      t.add_duplex_link(nics[i], switches[k], LinkKind::network, catalog_capacity(nic_port[i]));
    }
    if (spine != kNone) {
      if (c.fabric.spine_uplink_gbps.size() != switches.size())
        throw InputError(origin, 0, "spine uplinks: one per switch expected");
      for (std::size_t k = 0; k < switches.size(); ++k)
        t.add_duplex_link(switches[k], spine, LinkKind::network, catalog_capacity(c.fabric.spine_uplink_gbps[k]));
    }
  }
  finalize(t, origin);
  return t;
}

}  // namespace

// What this refuses (node names that do not expand to the node counts, a
// cluster that is no valid topology) is the catalog's fault: an invalid
// catalog (exit 3), as the verifier's refusals are.
Topology catalog_topology(const catalog::Catalog& c, const std::string& origin) {
  try {
    return build_topology(c, origin);
  } catch (const InputError& e) {
    throw catalog::CatalogError(catalog::CatalogError::Kind::invalid, e.what());
  }
}

Topology load_catalog_topology(const std::string& path) {
  return catalog_topology(catalog::read_catalog_file(path), path);
}

}  // namespace vp::sim
