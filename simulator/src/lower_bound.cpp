#include "vp/sim/lower_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vp::sim {

namespace {

class CutFinder {
 public:
  CutFinder(const Topology& t, const Demand& d) : t_(t), d_(d), member_(t.components.size(), 0), gpu_(t.components.size(), -1) {
    for (std::size_t i = 0; i < t.gpus.size(); ++i) gpu_[t.gpus[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < d.size(); ++i) row_.push_back(d.row_sum(i)), column_.push_back(d.column_sum(i));
  }

  // Examine the set `members` (component ids) under `name` + " out"/" in"
  // (or the explicit out/in names).
  void examine(const std::vector<ComponentId>& members, const std::string& out_name, const std::string& in_name) {
    for (ComponentId c : members) member_[c] = 1;
    std::vector<std::size_t> inside;
    for (ComponentId c : members)
      if (gpu_[c] >= 0) inside.push_back(static_cast<std::size_t>(gpu_[c]));
    double out_bytes = 0.0, in_bytes = 0.0, internal = 0.0;
    for (std::size_t s : inside) out_bytes += row_[s], in_bytes += column_[s];
    for (std::size_t s : inside)
      for (std::size_t d : inside)
        if (s != d) internal += d_.at(s, d);
    double out_gbps = 0.0, in_gbps = 0.0;
    for (ComponentId c : members) {
      for (LinkId l : t_.out_links[c])
        if (!member_[t_.links[l].dst]) out_gbps += t_.links[l].capacity.gbps;
      for (LinkId l : t_.in_links[c])
        if (!member_[t_.links[l].src]) in_gbps += t_.links[l].capacity.gbps;
    }
    for (ComponentId c : members) member_[c] = 0;
    consider(out_name, out_bytes - internal, out_gbps);
    consider(in_name, in_bytes - internal, in_gbps);
  }

  // Bytes that must transit component x (a tree articulation point with a
  // forwarding capacity): between GPUs in different branches around x (the
  // subtree of each child, and everything outside x's subtree), unless both
  // are outside.
  void examine_forwarder(ComponentId x, const std::string& name) {
    std::vector<int> branch(t_.gpus.size(), -1);
    const std::vector<ComponentId>& kids = t_.children[x];
    for (std::size_t k = 0; k < kids.size(); ++k) {
      std::vector<ComponentId> below{kids[k]};
      for (std::size_t i = 0; i < below.size(); ++i)
        for (ComponentId c : t_.children[below[i]]) below.push_back(c);
      for (ComponentId c : below)
        if (gpu_[c] >= 0) branch[static_cast<std::size_t>(gpu_[c])] = static_cast<int>(k);
    }
    double bytes = 0.0;
    for (std::size_t s = 0; s < d_.size(); ++s)
      for (std::size_t d = 0; d < d_.size(); ++d)
        if (s != d && branch[s] != branch[d]) bytes += d_.at(s, d);
    consider(name, bytes, t_.components[x].forward->gbps);
  }

  const Cut& best() const { return best_; }

 private:
  void consider(const std::string& name, double bytes, double gbps) {
    if (bytes <= 0.0) return;
    double time = gbps > 0.0 ? bytes / (gbps * 1e3) : std::numeric_limits<double>::infinity();
    if (best_.name.empty() || time > best_.time_us) best_ = Cut{name, bytes, gbps, time};
  }

  const Topology& t_;
  const Demand& d_;
  std::vector<char> member_;
  std::vector<int> gpu_;
  std::vector<double> row_, column_;
  Cut best_;
};

// x and every component below it in the PCIe tree.
std::vector<ComponentId> subtree(const Topology& t, ComponentId x) {
  std::vector<ComponentId> out{x};
  for (std::size_t i = 0; i < out.size(); ++i)
    for (ComponentId c : t.children[out[i]]) out.push_back(c);
  return out;
}

// Fabric switches whose attached nodes attach to them alone, with those nodes.
std::vector<std::pair<ComponentId, std::vector<std::int32_t>>> leaf_groups(const Topology& t) {
  std::vector<std::vector<ComponentId>> switches_of(t.nodes.size());  // per node: switches its NICs reach
  for (ComponentId nic : t.nics) {
    for (LinkId l : t.out_links[nic]) {
      ComponentId sw = t.links[l].dst;
      auto& list = switches_of[static_cast<std::size_t>(t.components[nic].node)];
      if (t.components[sw].kind == ComponentKind::net_switch && std::find(list.begin(), list.end(), sw) == list.end())
        list.push_back(sw);
    }
  }
  std::vector<std::pair<ComponentId, std::vector<std::int32_t>>> groups;
  for (ComponentId sw : t.net_switches) {
    std::vector<std::int32_t> nodes;
    bool closed = true;
    for (std::size_t n = 0; n < t.nodes.size(); ++n) {
      const auto& list = switches_of[n];
      if (std::find(list.begin(), list.end(), sw) == list.end()) continue;
      if (list.size() != 1) closed = false;
      nodes.push_back(static_cast<std::int32_t>(n));
    }
    if (closed && !nodes.empty() && nodes.size() < t.nodes.size()) groups.emplace_back(sw, nodes);
  }
  return groups;
}

// Switches below the spine that some node reaches through other switches
// too (rails): for each, the sets {switch} + in every node, the subtree of
// the level-L ancestor of each of its NICs on that switch (L = 1: the NIC's
// parent, usually its PCIe switch; up to the socket). Such a set's way out
// is its subtrees' uplinks, the other NICs in them, and the switch's spine
// uplink: the cut that makes a rail's spine link count. Sets repeated at a
// higher level (the ancestor is already the root) are left out.
struct RailGroup {
  ComponentId sw;
  std::string level;  // kind of the ancestors: "pcie_switch", "host_bridge", "cpu"
  std::vector<ComponentId> members;
};
std::vector<RailGroup> rail_groups(const Topology& t) {
  std::vector<RailGroup> out;
  std::vector<std::vector<ComponentId>> switches_of(t.nodes.size());  // per node: switches its NICs reach
  std::vector<std::vector<ComponentId>> nics_on(t.components.size());  // per switch: NICs on it
  for (ComponentId nic : t.nics) {
    for (LinkId l : t.out_links[nic]) {
      ComponentId sw = t.links[l].dst;
      if (t.components[sw].kind != ComponentKind::net_switch) continue;
      auto& list = switches_of[static_cast<std::size_t>(t.components[nic].node)];
      if (std::find(list.begin(), list.end(), sw) == list.end()) list.push_back(sw);
      nics_on[sw].push_back(nic);
    }
  }
  for (ComponentId sw : t.net_switches) {
    if (nics_on[sw].empty()) continue;
    bool shared = false;  // some node of it also reaches other switches
    for (ComponentId nic : nics_on[sw])
      shared |= switches_of[static_cast<std::size_t>(t.components[nic].node)].size() > 1;
    if (!shared) continue;  // a leaf: leaf_groups() covers it
    std::vector<ComponentId> tops(nics_on[sw]);
    for (int level = 1;; ++level) {
      bool moved = false;
      for (ComponentId& x : tops)
        if (t.components[x].parent != kNone) x = t.components[x].parent, moved = true;
      if (!moved) break;
      std::vector<ComponentId> roots(tops);
      std::sort(roots.begin(), roots.end());
      roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
      RailGroup g{sw, std::string(to_string(t.components[roots.front()].kind)), {sw}};
      for (ComponentId r : roots) {
        std::vector<ComponentId> below = subtree(t, r);
        g.members.insert(g.members.end(), below.begin(), below.end());
      }
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace

LowerBound lower_bound(const Topology& t, const Demand& demand, const BoundOptions& opts) {
  demand.check_fits(t, "demand");
  if (!std::isfinite(opts.latency_us) || opts.latency_us < 0)
    throw std::invalid_argument(fmt::format("lower_bound: latency_us must be finite and >= 0, got {}", opts.latency_us));
  CutFinder finder(t, demand);
  for (ComponentId g : t.gpus) {
    std::string name = t.display_name(g);
    finder.examine({g}, name + " up-link", name + " down-link");
  }
  auto subtrees = [&](const std::vector<ComponentId>& roots, const std::string& label) {
    for (ComponentId x : roots) {
      std::string name = t.display_name(x) + " " + label;
      finder.examine(subtree(t, x), name + " out", name + " in");
    }
  };
  subtrees(t.switches, "subtree");
  subtrees(t.host_bridges, "subtree");
  subtrees(t.sockets, "socket");
  std::vector<std::vector<ComponentId>> node_members(t.nodes.size());
  for (const Component& c : t.components)
    if (c.node >= 0) node_members[static_cast<std::size_t>(c.node)].push_back(c.id);
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    finder.examine(node_members[n], t.nodes[n].name + " NICs out", t.nodes[n].name + " NICs in");
  for (const auto& [sw, nodes] : leaf_groups(t)) {
    std::vector<ComponentId> members{sw};
    for (std::int32_t n : nodes)
      members.insert(members.end(), node_members[static_cast<std::size_t>(n)].begin(),
                     node_members[static_cast<std::size_t>(n)].end());
    std::string name = t.components[sw].name + " group";
    finder.examine(members, name + " out", name + " in");
  }
  // Without a fabric the PCIe tree (and the sockets' links) is the only
  // way between two GPUs, so a forwarding component that splits them is
  // unavoidable; with one, a relay through another node could go around it.
  if (t.net_switches.empty())
    for (const Component& c : t.components)
      if (c.forward && c.forward->gbps > 0) finder.examine_forwarder(c.id, t.display_name(c.id) + " forwarding");
  for (const RailGroup& g : rail_groups(t)) {
    std::string name = t.components[g.sw].name + " + " + g.level + " subtrees";
    finder.examine(g.members, name + " out", name + " in");
  }
  LowerBound b;
  b.cut = finder.best();
  if (!b.cut.name.empty()) b.time_us = b.cut.time_us + opts.latency_us;
  return b;
}

}  // namespace vp::sim
