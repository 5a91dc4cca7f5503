#include "vp/analysis/resize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/cluster_groups.hpp"
#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"

namespace vp {

namespace {

// Doubles tried on each side of a recovered rate's estimate.
constexpr int kUlpWindow = 64;

// A node type's NICs (component ids) by local index: NIC k of a node is on
// rail k, and expand_cluster() connects a node's NICs in this order.
std::vector<std::uint32_t> nics_by_index(const catalog::NodeType& t) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 0; id < t.components.size(); ++id)
    if (t.components[id].kind == catalog::Kind::nic) ids.push_back(id);
  std::sort(ids.begin(), ids.end(),
            [&](std::uint32_t a, std::uint32_t b) { return t.components[a].local_index < t.components[b].local_index; });
  return ids;
}

// A NIC port's capacity on the fabric: known for a NIC with GPUDirect RDMA
// (the catalog's nic_gbps is the fabric link's capacity: expand_cluster()
// and the analysis compute both from the same line rate and ports), unknown
// for one without (its port counts toward a switch's uplink, but its
// nic_gbps is 0: it carries no GPU traffic). Unknown ports are taken to
// share one rate per node type and NIC model.
struct Port {
  double gbps = 0.0;
  int unknown = -1;  // index into Unknowns, or -1 when gbps is known
};

struct Unknown {
  std::uint32_t type = 0;
  std::string model;
  bool resolved = false;
  double gbps = 0.0;
  // Every double near the estimate that sums to the uplink it was recovered
  // from: several may, and the new uplinks must not depend on which.
  std::vector<double> candidates;
};

class Ports {
 public:
  explicit Ports(const catalog::Catalog& c) {
    for (std::uint32_t t = 0; t < c.node_types.size(); ++t) {
      std::vector<Port> ports;
      for (std::uint32_t id : nics_by_index(c.node_types[t])) {
        const catalog::Component* n = &c.node_types[t].components[id];
        Port p;
        if (n->gpudirect) {
          p.gbps = n->nic_gbps;
        } else {
          auto it = std::find_if(unknowns_.begin(), unknowns_.end(),
                                 [&](const Unknown& u) { return u.type == t && u.model == n->model; });
          p.unknown = static_cast<int>(it - unknowns_.begin());
          if (it == unknowns_.end()) {
            Unknown u;
            u.type = t, u.model = n->model;
            unknowns_.push_back(std::move(u));
          }
        }
        ports.push_back(p);
      }
      by_type_.push_back(std::move(ports));
    }
  }

  const std::vector<Port>& of(std::uint32_t type) const { return by_type_[type]; }
  std::vector<Unknown>& unknowns() { return unknowns_; }
  const std::vector<Unknown>& unknowns() const { return unknowns_; }

 private:
  std::vector<std::vector<Port>> by_type_;
  std::vector<Unknown> unknowns_;
};

// The ports under each non-spine switch, in the order expand_cluster()
// connects them (node by node, NIC by NIC): that order fixes the rounding of
// the uplink's sum.
std::vector<std::vector<Port>> switch_ports(const std::vector<std::uint32_t>& node_types, const FabricInfo& fabric,
                                            const Ports& ports) {
  std::vector<std::vector<Port>> out;
  switch (fabric.kind) {
    case FabricKind::none:
      break;
    case FabricKind::single_switch:
      out.resize(1);
      for (std::uint32_t t : node_types)
        for (const Port& p : ports.of(t)) out[0].push_back(p);
      break;
    case FabricKind::rail: {
      std::size_t rails = 0;
      for (std::uint32_t t : node_types) rails = std::max(rails, ports.of(t).size());
      out.resize(rails);
      for (std::uint32_t t : node_types)
        for (std::size_t k = 0; k < ports.of(t).size(); ++k) out[k].push_back(ports.of(t)[k]);
      break;
    }
    case FabricKind::leaf_spine:
      out.resize((node_types.size() + fabric.leaf_size - 1) / fabric.leaf_size);
      for (std::size_t i = 0; i < node_types.size(); ++i)
        for (const Port& p : ports.of(node_types[i])) out[i / fabric.leaf_size].push_back(p);
      break;
  }
  return out;
}

// A switch's uplink as expand_cluster() computes it: its downlinks' sum over
// the oversubscription. Every unknown port must be resolved.
double uplink_gbps(const std::vector<Port>& down, const std::vector<Unknown>& unknowns, double oversubscription) {
  double sum = 0.0;
  for (const Port& p : down) sum += p.unknown < 0 ? p.gbps : unknowns[static_cast<std::size_t>(p.unknown)].gbps;
  return sum / oversubscription;
}

// Recovers the rates of unknown ports from the source's uplinks: a switch
// whose ports have one unresolved rate gives it, exactly when some double
// near the estimate reproduces the stored uplink bit for bit; repeated while
// that resolves more. Then every switch whose rates are all known must
// reproduce its uplink: a catalog whose fabric is not what its nodes' NICs
// give is refused.
void recover_unknowns(const catalog::Catalog& source, const std::vector<std::uint32_t>& node_types,
                      const FabricInfo& fabric, Ports& ports) {
  if (!source.fabric.spine) return;
  const std::vector<std::vector<Port>> switches = switch_ports(node_types, fabric, ports);
  if (switches.size() != source.fabric.spine_uplink_gbps.size())
    throw ResizeSourceError(fmt::format("the catalog's fabric has {} switches below its spine where its nodes and "
                                        "fabric kind give {}: it was not composed as vp-analyze composes a fabric",
                                        source.fabric.spine_uplink_gbps.size(), switches.size()));
  std::vector<Unknown>& u = ports.unknowns();
  const double over = fabric.oversubscription;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t k = 0; k < switches.size(); ++k) {
      std::set<int> open;
      double known = 0.0;
      std::size_t count = 0;
      for (const Port& p : switches[k]) {
        if (p.unknown >= 0 && !u[static_cast<std::size_t>(p.unknown)].resolved) {
          open.insert(p.unknown);
          ++count;
        } else {
          known += p.unknown < 0 ? p.gbps : u[static_cast<std::size_t>(p.unknown)].gbps;
        }
      }
      if (open.size() != 1) continue;
      Unknown& x = u[static_cast<std::size_t>(*open.begin())];
      const double stored = source.fabric.spine_uplink_gbps[k];
      const double estimate = (stored * over - known) / static_cast<double>(count);
      if (!(std::isfinite(estimate) && estimate > 0)) continue;
      // The estimate is within a few units in the last place of the rate
      // expand_cluster() summed; keep every double near it that sums to the
      // uplink, nearest first.
      double below = estimate, above = std::nextafter(estimate, HUGE_VAL);
      for (int step = 0; step < kUlpWindow; ++step) {
        for (double candidate : {below, above}) {
          x.gbps = candidate;
          if (uplink_gbps(switches[k], u, over) == stored) x.candidates.push_back(candidate);
        }
        below = std::nextafter(below, 0.0), above = std::nextafter(above, HUGE_VAL);
      }
      if (!x.candidates.empty()) {
        x.resolved = true;
        x.gbps = x.candidates.front();
        progress = true;
      }
    }
  }
  auto complete = [&](const std::vector<Port>& down) {
    return std::none_of(down.begin(), down.end(), [&](const Port& p) {
      return p.unknown >= 0 && !u[static_cast<std::size_t>(p.unknown)].resolved;
    });
  };
  // Candidates that some other uplink of the source rules out go.
  for (Unknown& x : u) {
    const double chosen = x.gbps;
    std::vector<double> kept;
    for (double candidate : x.candidates) {
      x.gbps = candidate;
      bool fits = true;
      for (std::size_t k = 0; k < switches.size() && fits; ++k)
        fits = !complete(switches[k]) || uplink_gbps(switches[k], u, over) == source.fabric.spine_uplink_gbps[k];
      if (fits) kept.push_back(candidate);
    }
    x.gbps = chosen;
    if (!kept.empty()) x.candidates = std::move(kept), x.gbps = x.candidates.front();
  }
  for (std::size_t k = 0; k < switches.size(); ++k) {
    if (!complete(switches[k])) continue;
    const double got = uplink_gbps(switches[k], u, over);
    if (got != source.fabric.spine_uplink_gbps[k])
      throw ResizeSourceError(fmt::format(
          "the catalog's spine uplink of switch {} is {:.17g} GB/s, but its nodes' NIC ports over the "
          "oversubscription {:g} give {:.17g} GB/s: the fabric was not composed as vp-analyze composes one{}",
          k, source.fabric.spine_uplink_gbps[k], over, got,
          u.empty() ? "" : ", or NICs of one model without GPUDirect RDMA differ in rate within a node type"));
  }
}

// A rate recovered with several candidates: every candidate must give the
// new uplinks the same bits (a different one would be a guess).
void check_unambiguous(const catalog::Catalog& source, const std::vector<std::vector<Port>>& switches, Ports& ports,
                       double oversubscription, const std::vector<double>& uplinks) {
  std::vector<Unknown>& u = ports.unknowns();
  for (Unknown& x : u) {
    if (x.candidates.size() <= 1) continue;
    const double chosen = x.gbps;
    for (double candidate : x.candidates) {
      x.gbps = candidate;
      for (std::size_t k = 0; k < switches.size(); ++k) {
        if (uplink_gbps(switches[k], u, oversubscription) == uplinks[k]) continue;
        x.gbps = chosen;
        throw UsageError(fmt::format(
            "node type {}: its {} NICs have no GPUDirect RDMA, so the catalog does not record their port rate, which "
            "counts toward the new fabric's spine uplinks; the catalog's uplinks leave it uncertain in its last "
            "bits ({:.17g} or {:.17g} GB/s), and the new uplink of switch {} depends on which (analyse the new "
            "cluster with vp-analyze)",
            source.node_types[x.type].name, x.model.empty() ? "unnamed" : x.model, chosen, candidate, k));
      }
    }
    x.gbps = chosen;
  }
}

FabricInfo source_fabric(const catalog::Catalog& c) {
  return FabricInfo{static_cast<FabricKind>(c.fabric.kind), c.fabric.leaf_size, c.fabric.oversubscription};
}

// The source's options text less the keys of vp-analyze's --nodes shortcut,
// which described the source's nodes and fabric.
std::string resized_options(const std::string& options) {
  static const std::set<std::string> cluster_keys = {"fabric", "hosts", "leaf_size", "nodes", "oversubscription"};
  std::string out;
  std::size_t start = 0;
  while (start <= options.size() && !options.empty()) {
    std::size_t end = options.find(';', start);
    if (end == std::string::npos) end = options.size();
    const std::string entry = options.substr(start, end - start);
    const std::string key = entry.substr(0, entry.find('='));
    if (!cluster_keys.count(key)) out += (out.empty() ? "" : ";") + entry;
    start = end + 1;
  }
  return out;
}

void check_request(const catalog::Catalog& source, const std::vector<NodeInfo>& nodes, const FabricInfo& fabric,
                   std::vector<std::uint32_t>& node_types) {
  if (nodes.empty()) throw UsageError("no nodes: a catalog needs at least one");
  std::map<std::string, std::uint32_t> type_index;
  for (std::uint32_t t = 0; t < source.node_types.size(); ++t)
    if (!type_index.emplace(source.node_types[t].name, t).second)
      throw ResizeSourceError(fmt::format("two node types are named \"{}\": resize names node types by name",
                                          source.node_types[t].name));
  std::set<std::string> names;
  std::uint64_t components = 0;
  for (const NodeInfo& n : nodes) {
    auto t = type_index.find(n.type);
    if (t == type_index.end())
      throw UsageError(fmt::format("node {}: the catalog has no node type \"{}\"", n.name, n.type));
    if (!names.insert(n.name).second) throw UsageError(fmt::format("node {} is named twice", n.name));
    node_types.push_back(t->second);
    components += source.node_types[t->second].components.size();
  }
  const AnalysisLimits& limits = analysis_limits();
  if (nodes.size() > limits.max_nodes || components > limits.max_components)
    throw UsageError(fmt::format("{} nodes of {} components in all: above what vp-analyze accepts by default ({} "
                                 "nodes, {} components; vp-analyze --max-nodes, --max-components)",
                                 nodes.size(), components, limits.max_nodes, limits.max_components));
  if (nodes.size() > 1 && fabric.kind == FabricKind::none)
    throw UsageError(fmt::format("a cluster of {} nodes needs a fabric and the catalog has none (it describes one "
                                 "node): give --fabric single_switch, rail or leaf_spine",
                                 nodes.size()));
  if (fabric.kind == FabricKind::leaf_spine && fabric.leaf_size == 0)
    throw UsageError("a leaf_spine fabric needs a leaf size of at least 1 (--leaf-size)");
  if (!(std::isfinite(fabric.oversubscription) && fabric.oversubscription > 0))
    throw UsageError(fmt::format("oversubscription must be a positive number, got {}", fabric.oversubscription));
  if (nodes.size() <= 1) return;
  for (std::uint32_t t : std::set<std::uint32_t>(node_types.begin(), node_types.end())) {
    const catalog::NodeType& nt = source.node_types[t];
    bool carries = false;
    for (const catalog::Component& c : nt.components) {
      if (c.kind != catalog::Kind::nic || !c.gpudirect) continue;
      // A one-node catalog may hold a NIC whose line rate was never known
      // (nothing needed it without a fabric); vp-analyze refuses it in a
      // cluster, and so does resize.
      if (!(c.nic_gbps > 0))
        throw UsageError(fmt::format("node type {}: NIC {} has GPUDirect RDMA but no known port rate (the catalog was "
                                     "analysed without a fabric, which needs none): analyse the cluster with "
                                     "vp-analyze, stating the NIC's line rate",
                                     nt.name, c.name));
      carries = true;
    }
    if (!carries)
      throw UsageError(fmt::format("node type {} has no NIC that carries GPU traffic (none with GPUDirect RDMA): a "
                                   "catalog of {} nodes could not move a byte between nodes",
                                   nt.name, nodes.size()));
  }
}

}  // namespace

std::vector<NodeInfo> catalog_nodes(const catalog::Catalog& c) {
  std::vector<NodeInfo> out;
  for (const catalog::NodeGroup& g : c.node_groups)
    for (std::string& name : expand_hostlist(g.names, "the catalog's node group"))
      out.push_back(NodeInfo{std::move(name), c.node_types.at(g.node_type).name});
  return out;
}

catalog::Catalog resize_catalog(const catalog::Catalog& source, const ResizeRequest& request) {
  const FabricInfo fabric = request.fabric ? *request.fabric : source_fabric(source);
  std::vector<std::uint32_t> node_types;
  check_request(source, request.nodes, fabric, node_types);

  // Ports of NICs without GPUDirect RDMA, where the new fabric has a spine
  // whose uplinks count them.
  Ports ports(source);
  std::vector<std::uint32_t> old_types;  // the source's nodes' types, in order
  for (const catalog::NodeGroup& g : source.node_groups) old_types.insert(old_types.end(), g.count, g.node_type);
  recover_unknowns(source, old_types, source_fabric(source), ports);
  const std::vector<std::vector<Port>> switches = switch_ports(node_types, fabric, ports);
  const bool spine = switches.size() >= 2;

  catalog::Catalog out = source;
  catalog::Fabric& f = out.fabric;
  f.kind = static_cast<catalog::FabricKind>(fabric.kind);
  f.leaf_size = fabric.kind == FabricKind::leaf_spine ? fabric.leaf_size : 0;
  f.oversubscription = fabric.oversubscription;
  f.switches = static_cast<std::uint32_t>(switches.size());
  f.spine = spine;
  f.spine_uplink_gbps.clear();
  for (const std::vector<Port>& down : switches) {
    if (!spine) {
      f.spine_uplink_gbps.push_back(0.0);
      continue;
    }
    for (const Port& p : down) {
      if (p.unknown < 0 || ports.unknowns()[static_cast<std::size_t>(p.unknown)].resolved) continue;
      const Unknown& x = ports.unknowns()[static_cast<std::size_t>(p.unknown)];
      throw UsageError(fmt::format(
          "node type {}: its {} NICs have no GPUDirect RDMA, so the catalog does not record their port rate, which "
          "counts toward the new fabric's spine uplinks; {} (analyse the new cluster with vp-analyze)",
          source.node_types[x.type].name, x.model.empty() ? "unnamed" : x.model,
          source.fabric.spine ? "the catalog's own uplinks do not determine it"
                              : "the catalog has no spine whose uplinks would give it"));
    }
    f.spine_uplink_gbps.push_back(uplink_gbps(down, ports.unknowns(), fabric.oversubscription));
  }
  if (spine) check_unambiguous(source, switches, ports, fabric.oversubscription, f.spine_uplink_gbps);

  std::vector<std::string> type_names;
  std::vector<NodeTypeGroup> groups;
  for (const catalog::NodeType& nt : source.node_types) {
    type_names.push_back(nt.name);
    NodeTypeGroup g{nt.name, nt.components.size(), &nt.generators, BigUint(1), nics_by_index(nt)};
    g.order = PermGroup(nt.components.size(), nt.generators).order();
    if (g.order.to_string() != nt.group_order)
      throw ResizeSourceError(fmt::format("node type {}: its generators make a group of order {}, the catalog says {}",
                                   nt.name, g.order.to_string(), nt.group_order));
    groups.push_back(std::move(g));
  }
  out.node_groups = node_groups(request.nodes, type_names);
  auto [description, order] = fabric_group(request.nodes, fabric);
  f.group_description = description;
  f.group_order = order.to_string();
  out.cluster_group_order = cluster_order(request.nodes, fabric.kind, groups, order).to_string();

  out.provenance.tool = "vp-catalog resize";
  out.provenance.tool_version = kAnalyzerVersion;
  out.provenance.options = resized_options(source.provenance.options);
  return out;
}

}  // namespace vp
