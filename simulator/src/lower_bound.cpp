#include "vp/sim/lower_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "idle_nics.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

class CutFinder {
 public:
  CutFinder(const Topology& t, const Demand& d, const std::vector<char>& idle_nic)
      : t_(t), d_(d), idle_nic_(idle_nic), member_(t.components.size(), 0), gpu_(t.components.size(), -1) {
    for (std::size_t i = 0; i < t.gpus.size(); ++i) gpu_[t.gpus[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < d.size(); ++i) row_.push_back(d.row_sum(i)), column_.push_back(d.column_sum(i));
  }

  // A link no schedule uses: one of a NIC that carries no GPU traffic.
  bool idle(LinkId l) const { return idle_nic_[t_.links[l].src] || idle_nic_[t_.links[l].dst]; }

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
        if (!member_[t_.links[l].dst] && !idle(l)) out_gbps += t_.links[l].capacity.gbps;
      for (LinkId l : t_.in_links[c])
        if (!member_[t_.links[l].src] && !idle(l)) in_gbps += t_.links[l].capacity.gbps;
    }
    for (ComponentId c : members) member_[c] = 0;
    consider(out_name, out_bytes - internal, out_gbps);
    consider(in_name, in_bytes - internal, in_gbps);
  }

  // Bytes that must transit component x (one with a forwarding capacity):
  // remove x from the whole graph (links taken both ways, idle NICs left
  // out); two GPUs that end up in different connected parts have no path
  // that avoids x, so every byte between them -- on any route, relays
  // through other GPUs or nodes included -- transits x, and each such route
  // lists x as a forwarder. In a single node this is the tree rule
  // (different child subtrees of x, or one inside and one outside); in a
  // cluster it also catches the socket that is the only way from a node's
  // GPUs to its NICs (AWS g6).
  void examine_forwarder(ComponentId x, const std::string& name) {
    std::vector<int> part(t_.components.size(), -1);
    std::vector<std::size_t> sizes;
    std::vector<ComponentId> queue;
    for (ComponentId start : t_.gpus) {
      if (part[start] >= 0) continue;
      const int id = static_cast<int>(sizes.size());
      part[start] = id;
      queue.assign(1, start);
      for (std::size_t i = 0; i < queue.size(); ++i) {
        const ComponentId c = queue[i];
        auto visit = [&](ComponentId n, LinkId l) {
          if (n == x || part[n] >= 0 || idle(l)) return;
          part[n] = id;
          queue.push_back(n);
        };
        for (LinkId l : t_.out_links[c]) visit(t_.links[l].dst, l);
        for (LinkId l : t_.in_links[c]) visit(t_.links[l].src, l);
      }
      std::size_t gpus = 0;
      for (ComponentId c : queue) gpus += gpu_[c] >= 0;
      sizes.push_back(gpus);
    }
    if (sizes.size() < 2) return;  // x separates no two GPUs
    // Bytes between different parts, summed over the GPUs outside the
    // largest part only: from them, to them, minus those among them that
    // stay in one part.
    const int largest = static_cast<int>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    std::vector<std::size_t> rest;
    for (std::size_t g = 0; g < t_.gpus.size(); ++g)
      if (part[t_.gpus[g]] != largest) rest.push_back(g);
    double bytes = 0.0;
    for (std::size_t s : rest) bytes += row_[s] + column_[s];
    for (std::size_t s : rest)
      for (std::size_t d : rest)
        if (s != d) bytes -= d_.at(s, d) * (part[t_.gpus[s]] == part[t_.gpus[d]] ? 2.0 : 1.0);
    consider(name, bytes, t_.components[x].forward->gbps);
  }

  // The node's NIC cut: every byte between this node's GPUs and other
  // nodes crosses one of its NICs that carry GPU traffic, through both the
  // NIC's PCIe link and its network link(s): each NIC counts at the smaller.
  void examine_nics(std::int32_t node, const std::string& out_name, const std::string& in_name) {
    std::vector<std::size_t> inside;
    for (std::size_t g = 0; g < t_.gpus.size(); ++g)
      if (t_.components[t_.gpus[g]].node == node) inside.push_back(g);
    double out_bytes = 0.0, in_bytes = 0.0;
    for (std::size_t s : inside) out_bytes += row_[s], in_bytes += column_[s];
    for (std::size_t s : inside)
      for (std::size_t d : inside)
        if (s != d) out_bytes -= d_.at(s, d), in_bytes -= d_.at(s, d);
    double out_gbps = 0.0, in_gbps = 0.0;
    for (ComponentId nic : t_.nics) {
      if (t_.components[nic].node != node || idle_nic_[nic]) continue;
      double pcie_out = 0, pcie_in = 0, net_out = 0, net_in = 0;  // out: towards the network
      for (LinkId l : t_.in_links[nic])
        (t_.links[l].kind == LinkKind::network ? net_in : pcie_out) += t_.links[l].capacity.gbps;
      for (LinkId l : t_.out_links[nic])
        (t_.links[l].kind == LinkKind::network ? net_out : pcie_in) += t_.links[l].capacity.gbps;
      out_gbps += std::min(pcie_out, net_out);
      in_gbps += std::min(pcie_in, net_in);
    }
    consider(out_name, out_bytes, out_gbps);
    consider(in_name, in_bytes, in_gbps);
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
  const std::vector<char>& idle_nic_;
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
    throw UsageError(fmt::format("lower_bound: latency_us must be finite and >= 0, got {}", opts.latency_us));
  const std::vector<char> idle_nic = detail::idle_nics(t);
  CutFinder finder(t, demand, idle_nic);
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
  if (!t.net_switches.empty())
    for (std::size_t n = 0; n < t.nodes.size(); ++n)
      finder.examine_nics(static_cast<std::int32_t>(n), t.nodes[n].name + " NICs out", t.nodes[n].name + " NICs in");
  for (const auto& [sw, nodes] : leaf_groups(t)) {
    std::vector<ComponentId> members{sw};
    for (std::int32_t n : nodes)
      members.insert(members.end(), node_members[static_cast<std::size_t>(n)].begin(),
                     node_members[static_cast<std::size_t>(n)].end());
    std::string name = t.components[sw].name + " group";
    finder.examine(members, name + " out", name + " in");
  }
  for (const Component& c : t.components)
    if (detail::bounded_forwarder(c) && c.forward->gbps > 0)
      finder.examine_forwarder(c.id, t.display_name(c.id) + " forwarding");
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
