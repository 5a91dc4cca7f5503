#include "vp/analysis/build_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "vp/analysis/cluster_groups.hpp"
#include "vp/analysis/contention.hpp"
#include "vp/analysis/sha256.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/catalog/machine_model.hpp"
#include "vp/import/json_topology.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"

namespace vp {

namespace {

catalog::Component catalog_component(const Component& c, double nic_gbps) {
  catalog::Component out;
  out.kind = static_cast<catalog::Kind>(c.kind);
  out.parent = c.parent;
  out.local_index = static_cast<std::uint32_t>(c.local_index);
  out.name = c.name;
  out.model = c.model;
  out.pci_bus_id = c.pci_bus_id;
  out.device_name = c.device_name;
  out.forward_gbps = c.forward ? c.forward->gbps : 0.0;
  out.nic_gbps = c.kind == ComponentKind::nic ? nic_gbps : 0.0;
  out.gpudirect = c.gpudirect;
  return out;
}

// Routes between every ordered pair of distinct endpoints; a NIC end adds
// the NIC port to the solo rate.
std::vector<catalog::Route> endpoint_routes(const Topology& node, const std::vector<double>& nic_gbps) {
  std::vector<ComponentId> ends(node.gpus);
  ends.insert(ends.end(), node.nics.begin(), node.nics.end());
  std::sort(ends.begin(), ends.end());
  // A NIC end adds its port; a NIC without one (no GPUDirect) keeps the PCIe
  // figure. No port is no limit (infinity: a finite stand-in such as 1e300
  // undercut links of more, which the defaults table allows).
  const double none = std::numeric_limits<double>::infinity();
  auto port = [&](ComponentId c) {
    if (node.components[c].kind != ComponentKind::nic) return none;
    double gbps = nic_gbps[static_cast<std::size_t>(node.components[c].local_index)];
    return gbps > 0 ? gbps : none;
  };
  std::vector<catalog::Route> out;
  for (ComponentId a : ends) {
    for (ComponentId b : ends) {
      if (a == b) continue;
      Route r = intra_node_route(node, a, b);
      catalog::Route cr;
      cr.from = a, cr.to = b;
      cr.solo_gbps = std::min({r.solo_gbps, port(a), port(b)});
      cr.links.assign(r.links.begin(), r.links.end());
      cr.forwarders.assign(r.forwarders.begin(), r.forwarders.end());
      out.push_back(std::move(cr));
    }
  }
  return out;
}

std::size_t count_orbits(const std::vector<std::uint32_t>& orbit_of, const std::vector<ComponentId>& members) {
  std::vector<std::uint32_t> reps;
  for (ComponentId m : members) reps.push_back(orbit_of[m]);
  std::sort(reps.begin(), reps.end());
  return static_cast<std::size_t>(std::unique(reps.begin(), reps.end()) - reps.begin());
}

struct NodeTypeResult {
  catalog::NodeType type;
  NodeSymmetry symmetry;
};

// Runs one stage of a node type's analysis; a timeout names the node type.
template <class Stage>
auto in_node_type(const std::string& name, Stage&& stage) -> decltype(stage()) {
  try {
    return stage();
  } catch (const AnalysisTimeout& e) {
    throw AnalysisTimeout(fmt::format("node type {}: {}", name, e.what()));
  }
}

NodeTypeResult analyse_node_type(const NodeTypeSpec& spec, const ClusterSpec& cluster, PatternSearchOptions search,
                                 AnalysisProgress& state, const ProgressFn& progress) {
  const Topology& node = spec.topology;
  auto tell = [&](AnalysisProgress::Stage stage) {
    state.stage = stage;
    if (progress) progress(state);
  };
  state.node_type = spec.name;
  state.gpus = node.gpus.size();
  state.search_nodes = state.orbits_found = state.checked = state.to_check = 0;
  state.search_budget = search.max_search_nodes;
  tell(AnalysisProgress::Stage::symmetry);
  NodeTypeResult r;
  catalog::NodeType& nt = r.type;
  nt.name = spec.name;
  std::vector<double> ports = nic_port_gbps(node, cluster);
  for (const Component& c : node.components)
    nt.components.push_back(catalog_component(c, c.kind == ComponentKind::nic
                                                     ? ports[static_cast<std::size_t>(c.local_index)]
                                                     : 0.0));
  for (const Link& l : node.links)
    nt.links.push_back(catalog::Link{l.src, l.dst, static_cast<catalog::LinkKind>(l.kind), l.capacity.gbps, l.reverse});
  nt.routes = endpoint_routes(node, ports);

  r.symmetry = in_node_type(spec.name, [&] { return compute_node_symmetry(node, search.deadline); });
  const NodeSymmetry& sym = r.symmetry;
  nt.generators = sym.generators;
  nt.group_order = sym.order.to_string();
  nt.component_orbit = sym.component_orbit;
  nt.link_orbit = sym.link_orbit;
  state.group_order = nt.group_order;
  state.gpu_orbits = count_orbits(sym.component_orbit, node.gpus);
  tell(AnalysisProgress::Stage::patterns);

  Topology ported = with_network_ports(node, ports);
  if (progress)
    search.on_progress = [&](std::uint64_t nodes, std::uint64_t found) {
      state.search_nodes = nodes, state.orbits_found = found;
      progress(state);
    };
  LocalPatternSet patterns = in_node_type(spec.name, [&] { return find_local_patterns(ported, sym, search); });
  state.search_nodes = patterns.search_nodes;
  state.orbits_found = state.to_check = patterns.representatives.size();
  tell(AnalysisProgress::Stage::contention);
  in_node_type(spec.name, [&] {
    const std::size_t n = patterns.representatives.size();
    for (std::size_t i = 0; i < n; ++i) {
      if ((i & 63) == 0) {
        check_deadline(search.deadline, fmt::format("the contention check (pattern {} of {})", i + 1, n));
        state.checked = i;
        if (i > 0 && progress) progress(state);
      }
      ContentionReport report = check_contention(ported, pattern_transfers(ported, patterns.representatives[i]));
      if (!report.ok())
        throw InternalError(fmt::format("node type {}: a local pattern is not contention-free: {}", spec.name,
                                           report.message));
    }
  });
  nt.patterns = std::move(patterns.representatives);
  nt.patterns_represented = patterns.represented.to_string();
  nt.patterns_complete = patterns.complete;
  state.checked = state.to_check;
  state.patterns_represented = nt.patterns_represented;
  state.complete = nt.patterns_complete;
  tell(AnalysisProgress::Stage::done);
  return r;
}

catalog::Fabric fabric_of(const Topology& t) {
  catalog::Fabric f;
  f.kind = static_cast<catalog::FabricKind>(t.fabric.kind);
  f.leaf_size = t.fabric.leaf_size;
  f.oversubscription = t.fabric.oversubscription;
  ComponentId spine = kNone;
  for (ComponentId s : t.net_switches)
    if (t.components[s].role == "spine") spine = s;
  f.spine = spine != kNone;
  for (ComponentId s : t.net_switches) {
    if (s == spine) continue;
    ++f.switches;
    f.spine_uplink_gbps.push_back(spine == kNone ? 0.0 : t.links[t.find_link(s, spine)].capacity.gbps);
  }
  return f;
}

// The input in normalized form, compact even for large clusters: every node
// type's topology JSON, then the nodes and the fabric. Node types appear by
// their index, not their name (which --nodes takes from the input's file
// name): a renamed copy of a topology has the same digest.
std::string normalized_input(const ClusterSpec& cluster) {
  std::map<std::string, std::size_t> type_index;
  std::string text;
  for (const NodeTypeSpec& t : cluster.node_types) {
    type_index.emplace(t.name, type_index.size());
    Topology unnamed = t.topology;
    for (NodeInfo& n : unnamed.nodes) n.type.clear();
    // Without "nic_path_types": derived from the model, it adds nothing, and
    // the digest (and so every catalog) stays what it was before that key.
    nlohmann::ordered_json doc = topology_to_json(unnamed);
    doc.erase("nic_path_types");
    text += fmt::format("type {}\n{}\n", type_index.at(t.name), doc.dump());
  }
  for (const NodeInfo& n : cluster.nodes) text += fmt::format("{} {}\n", n.name, type_index.at(n.type));
  text += fmt::format("fabric {} {} {:.17g} {:.17g}\n", to_string(cluster.fabric.kind), cluster.fabric.leaf_size,
                      cluster.fabric.oversubscription, cluster.nic_gbitps);
  return text;
}

}  // namespace

std::vector<double> nic_port_gbps(const Topology& node, const ClusterSpec& cluster) {
  std::vector<double> out;
  for (ComponentId n : node.nics) {
    const Component& c = node.components[n];
    double rate = cluster.nic_gbitps > 0 ? cluster.nic_gbitps : c.line_rate_gbitps;
    // Without GPUDirect RDMA a NIC reaches GPU memory only through host
    // memory, a path the model does not have: it carries no GPU traffic.
    out.push_back(c.gpudirect ? node.defaults.nic(rate, static_cast<int>(c.ports)).gbps : 0.0);
  }
  return out;
}

void check_nodes_reach_network(const LoadedInput& in) {
  if (in.cluster.nodes.size() <= 1) return;
  for (const NodeTypeSpec& type : in.cluster.node_types) {
    auto first = std::find_if(in.cluster.nodes.begin(), in.cluster.nodes.end(),
                              [&](const NodeInfo& n) { return n.type == type.name; });
    if (first == in.cluster.nodes.end()) continue;
    std::vector<double> ports = nic_port_gbps(type.topology, in.cluster);
    if (std::any_of(ports.begin(), ports.end(), [](double g) { return g > 0; })) continue;
    std::string why = ports.empty()       ? "it has no NIC"
                      : ports.size() == 1 ? "its one NIC has no GPUDirect RDMA"
                                          : fmt::format("none of its {} NICs has GPUDirect RDMA", ports.size());
    throw InputError(in.origin, 0,
                     fmt::format("node {} (node type {}) has no NIC that carries GPU traffic ({}): a catalog of {} "
                                 "nodes could not move a byte between nodes (state GPUDirect RDMA in the input or "
                                 "with --set nic.assume_gpudirect=1, or analyse one node)",
                                 first->name, type.name, why, in.cluster.nodes.size()));
  }
}

catalog::Catalog build_catalog(const LoadedInput& in, const PatternSearchOptions& search,
                               const std::string& options_text, const ProgressFn& progress) {
  catalog::Catalog cat;
  std::vector<NodeTypeResult> types;
  AnalysisProgress state;
  state.node_types = in.cluster.node_types.size();
  for (const NodeTypeSpec& spec : in.cluster.node_types) {
    types.push_back(analyse_node_type(spec, in.cluster, search, state, progress));
    ++state.node_type_index;
    cat.node_types.push_back(types.back().type);
  }
  std::vector<std::string> type_names;
  std::vector<NodeTypeGroup> groups;
  for (std::size_t t = 0; t < types.size(); ++t) {
    const NodeTypeSpec& spec = in.cluster.node_types[t];
    type_names.push_back(spec.name);
    groups.push_back(NodeTypeGroup{spec.name, spec.topology.components.size(), &types[t].symmetry.generators,
                                   types[t].symmetry.order,
                                   std::vector<std::uint32_t>(spec.topology.nics.begin(), spec.topology.nics.end())});
  }
  cat.node_groups = node_groups(in.cluster.nodes, type_names);
  cat.fabric = fabric_of(in.topology);
  auto [description, order] = fabric_group(in.cluster.nodes, in.cluster.fabric);
  cat.fabric.group_description = description;
  cat.fabric.group_order = order.to_string();
  cat.cluster_group_order = cluster_order(in.cluster.nodes, in.cluster.fabric.kind, groups, order).to_string();
  for (const auto& [key, value] : in.topology.defaults.entries()) cat.defaults.emplace_back(key, value);
  cat.provenance.tool_version = kAnalyzerVersion;
  cat.provenance.input_digest = "sha256:" + sha256_hex(normalized_input(in.cluster));
  cat.provenance.options = options_text;
  for (const std::string& w : in.topology.warnings)
    cat.provenance.warnings += (cat.provenance.warnings.empty() ? "" : "\n") + w;
  // The planner's class defaults, sources cited (vp-analyze --machine-model
  // and vp-catalog set-model replace it).
  cat.machine_model = catalog::class_default_model();
  return cat;
}

}  // namespace vp
