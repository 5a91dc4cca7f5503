// Clusters: host lists, the cluster description (schemas/cluster.schema.json)
// and the expansion of node types plus fabric into one Topology.
#include "vp/topology/cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "vp/topology/errors.hpp"
#include "vpcat/hostlist.hpp"

namespace vp {

AnalysisLimits& analysis_limits() {
  static AnalysisLimits limits;
  return limits;
}

std::string cluster_size_violation(std::uint64_t nodes, std::uint64_t components) {
  const AnalysisLimits& l = analysis_limits();
  if (nodes > l.max_nodes)
    return fmt::format("{} nodes: above the limit of {} nodes of an analysed cluster (--max-nodes)", nodes,
                       l.max_nodes);
  if (components > l.max_components)
    return fmt::format("{} nodes of {} components in all: above the limit of {} components of an analysed cluster "
                       "(--max-components)",
                       nodes, components, l.max_components);
  return {};
}

std::string node_type_violation(const std::string& name, const Topology& node) {
  const AnalysisLimits& l = analysis_limits();
  if (node.gpus.size() > l.max_node_gpus)
    return fmt::format("node type {}: {} GPUs, above the limit of {} GPUs of a node (--max-node-gpus)", name,
                       node.gpus.size(), l.max_node_gpus);
  if (node.nics.size() > l.max_node_nics)
    return fmt::format("node type {}: {} NICs, above the limit of {} NICs of a node (--max-node-nics)", name,
                       node.nics.size(), l.max_node_nics);
  return {};
}

namespace {

// ---------------------------------------------------------------------------
// Checks shared by the description loader and expand_cluster()

const NodeTypeSpec* find_type(const ClusterSpec& spec, const std::string& name) {
  auto it = std::find_if(spec.node_types.begin(), spec.node_types.end(),
                         [&](const NodeTypeSpec& t) { return t.name == name; });
  return it == spec.node_types.end() ? nullptr : &*it;
}

void check_node_type(const NodeTypeSpec& type, const ClusterSpec& spec, const std::string& origin) {
  const Topology& t = type.topology;
  auto fail = [&](const std::string& what) {
    throw InputError(origin, 0, fmt::format("node type \"{}\": {}", type.name, what));
  };
  if (t.nodes.size() != 1) fail(fmt::format("describes {} nodes; a node type is one node", t.nodes.size()));
  if (!t.net_switches.empty()) fail("already contains network switches");
  if (spec.nodes.size() > 1 && t.nics.empty())
    fail(fmt::format("has no NIC, but the cluster has {} nodes", spec.nodes.size()));
  const CapacityDefaults& first = spec.node_types.front().topology.defaults;
  if (t.defaults.entries() != first.entries() || t.defaults.overridden != first.overridden)
    fail(fmt::format("was imported with another default table than \"{}\"", spec.node_types.front().name));
  if (spec.fabric.kind == FabricKind::none || spec.nic_gbitps > 0) return;
  for (ComponentId nic : t.nics) {
    if (!(t.components[nic].line_rate_gbitps > 0))
      fail(fmt::format("{} has no known line rate (give the fabric's nic_gbitps)", t.components[nic].name));
  }
}

}  // namespace

void check_cluster_spec(const ClusterSpec& spec, const std::string& origin) {
  auto fail = [&](const std::string& what) { throw InputError(origin, 0, what); };
  if (spec.node_types.empty()) fail("the cluster has no node type");
  if (spec.nodes.empty()) fail("the cluster has no node");
  // The size first: nothing that large is allocated (expand_cluster) or checked.
  std::map<std::string, std::uint64_t> type_components;
  for (const NodeTypeSpec& type : spec.node_types) type_components.emplace(type.name, type.topology.components.size());
  std::uint64_t components = 0;
  for (const NodeInfo& node : spec.nodes)
    if (auto it = type_components.find(node.type); it != type_components.end()) components += it->second;
  if (std::string why = cluster_size_violation(spec.nodes.size(), components); !why.empty()) fail(why);
  for (const NodeTypeSpec& type : spec.node_types) {
    if (find_type(spec, type.name) != &type) fail(fmt::format("node type \"{}\" is defined twice", type.name));
    if (std::string why = node_type_violation(type.name, type.topology); !why.empty()) fail(why);
    check_node_type(type, spec, origin);
  }
  for (const NodeInfo& node : spec.nodes) {
    if (!find_type(spec, node.type)) fail(fmt::format("node \"{}\": unknown node type \"{}\"", node.name, node.type));
  }
  const FabricInfo& f = spec.fabric;
  if (spec.nodes.size() > 1 && f.kind == FabricKind::none)
    fail(fmt::format("a cluster of {} nodes needs a fabric (single_switch, rail or leaf_spine)", spec.nodes.size()));
  if (f.kind == FabricKind::leaf_spine && f.leaf_size == 0) fail("a leaf_spine fabric needs a leaf size of at least 1");
  if (!(std::isfinite(f.oversubscription) && f.oversubscription > 0))
    fail(fmt::format("oversubscription must be a positive number, got {}", f.oversubscription));
  if (!(std::isfinite(spec.nic_gbitps) && spec.nic_gbitps >= 0))
    fail(fmt::format("nic_gbitps must be a non-negative number, got {}", spec.nic_gbitps));
}

namespace {

// ---------------------------------------------------------------------------
// Expansion

// Copies node type `type` in as node `node`; returns its NICs by local index.
std::vector<ComponentId> copy_node(Topology& c, const Topology& type, std::int32_t node) {
  const auto base = static_cast<ComponentId>(c.components.size());
  const auto link_base = static_cast<LinkId>(c.links.size());
  for (Component comp : type.components) {
    comp.id += base;
    comp.node = node;
    if (comp.parent != kNone) comp.parent += base;
    c.components.push_back(std::move(comp));
  }
  for (Link l : type.links) {
    l.id += link_base, l.src += base, l.dst += base, l.reverse += link_base;
    c.links.push_back(std::move(l));
  }
  std::vector<ComponentId> nics;
  for (ComponentId nic : type.nics) nics.push_back(nic + base);
  return nics;
}

// The sum of the downlinks of a switch, and the provenance it rests on.
struct Downlinks {
  double gbps = 0;
  CapacitySource source = CapacitySource::input;

  void add(const Capacity& c) {
    gbps += c.gbps;
    // A sum derived from the table, or from an override, says so: the
    // enum's order is input < default < override.
    source = std::max(source, c.source);
  }
};

class FabricBuilder {
 public:
  FabricBuilder(Topology& c, const ClusterSpec& spec) : c_(c), spec_(spec) {}

  // `nics[i]`: the NICs of node i by local index.
  void build(const std::vector<std::vector<ComponentId>>& nics) {
    switch (spec_.fabric.kind) {
      case FabricKind::none:
        return;
      case FabricKind::single_switch: {
        ComponentId sw = add_switch("switch");
        Downlinks ignored;
        for (const auto& node : nics)
          for (ComponentId nic : node) connect(nic, sw, ignored);
        return;
      }
      case FabricKind::rail: {
        std::size_t rails = 0;
        for (const auto& node : nics) rails = std::max(rails, node.size());
        std::vector<ComponentId> lower = add_switches("rail", rails);
        std::vector<Downlinks> down(rails);
        for (const auto& node : nics)
          for (std::size_t k = 0; k < node.size(); ++k) connect(node[k], lower[k], down[k]);
        add_spine(lower, down);
        return;
      }
      case FabricKind::leaf_spine: {
        const std::size_t per_leaf = spec_.fabric.leaf_size;
        std::vector<ComponentId> lower = add_switches("leaf", (nics.size() + per_leaf - 1) / per_leaf);
        std::vector<Downlinks> down(lower.size());
        for (std::size_t i = 0; i < nics.size(); ++i)
          for (ComponentId nic : nics[i]) connect(nic, lower[i / per_leaf], down[i / per_leaf]);
        add_spine(lower, down);
        return;
      }
    }
  }

 private:
  ComponentId add_switch(const std::string& role) {
    ComponentId id = c_.add_component(ComponentKind::net_switch, -1);
    Component& s = c_.components[id];
    s.role = role;
    s.name = role + std::to_string(per_role_[role]++);
    s.local_index = switches_++;
    return id;
  }
  std::vector<ComponentId> add_switches(const std::string& role, std::size_t n) {
    std::vector<ComponentId> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(add_switch(role));
    return out;
  }
  // NIC <-> switch at the NIC's rate (or the fabric's nic_gbitps) times its ports.
  void connect(ComponentId nic, ComponentId sw, Downlinks& down) {
    const Component& n = c_.components[nic];
    double rate = spec_.nic_gbitps > 0 ? spec_.nic_gbitps : n.line_rate_gbitps;
    Capacity cap = c_.defaults.nic(rate, static_cast<int>(n.ports));
    down.add(cap);
    c_.add_duplex_link(nic, sw, LinkKind::network, cap);
  }
  // One logical spine above `lower`; each uplink carries its switch's total
  // downlink capacity divided by the oversubscription. A single lower switch
  // needs no spine.
  void add_spine(const std::vector<ComponentId>& lower, const std::vector<Downlinks>& down) {
    if (lower.size() < 2) return;
    ComponentId spine = add_switch("spine");
    const double over = spec_.fabric.oversubscription;
    for (std::size_t k = 0; k < lower.size(); ++k) {
      Capacity cap{down[k].gbps / over, down[k].source,
                   fmt::format("{:g} GB/s of downlinks / oversubscription {:g}", down[k].gbps, over)};
      c_.add_duplex_link(lower[k], spine, LinkKind::network, cap);
    }
  }

  Topology& c_;
  const ClusterSpec& spec_;
  std::map<std::string, int> per_role_;
  std::int32_t switches_ = 0;
};

}  // namespace

// The runtime's parser (vpcat/hostlist.hpp); its error as bad input of `origin`.
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string& origin) {
  std::vector<std::string> names;
  vpcat::HostlistError e;
  if (!vpcat::expand_hostlist(expr, &names, &e, kMaxHosts))
    throw InputError(origin, 0, fmt::format("host list \"{}\": {}", expr, e.what));
  return names;
}

ClusterSpec cluster_from_shortcut(const Topology& node_type, std::uint32_t count, FabricKind kind,
                                  std::uint32_t leaf_size, double oversubscription) {
  ClusterSpec spec;
  std::string type = node_type.nodes.empty() || node_type.nodes[0].type.empty() ? "node" : node_type.nodes[0].type;
  spec.node_types.push_back(NodeTypeSpec{type, node_type, ""});
  for (std::uint32_t i = 0; i < count; ++i) spec.nodes.push_back(NodeInfo{fmt::format("node{}", i), type});
  spec.fabric = FabricInfo{kind, kind == FabricKind::leaf_spine ? leaf_size : 0, oversubscription};
  return spec;
}

Topology expand_cluster(const ClusterSpec& spec) {
  check_cluster_spec(spec, "");
  Topology c;
  c.nodes = spec.nodes;
  c.fabric = spec.fabric;
  c.defaults = spec.node_types.front().topology.defaults;
  for (const NodeTypeSpec& type : spec.node_types)
    for (const std::string& w : type.topology.warnings)
      c.warnings.push_back(fmt::format("node type {}: {}", type.name, w));
  std::vector<std::vector<ComponentId>> nics;
  for (std::size_t i = 0; i < spec.nodes.size(); ++i)
    nics.push_back(copy_node(c, find_type(spec, spec.nodes[i].type)->topology, static_cast<std::int32_t>(i)));
  FabricBuilder(c, spec).build(nics);
  canonicalize(c, "");
  return c;
}

}  // namespace vp
