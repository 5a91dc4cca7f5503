#include "vp/topology/routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <stdexcept>
#include <tuple>
#include "vp/base/errors.hpp"

namespace vp {

namespace {
constexpr std::array<std::string_view, 7> kPathNames{"LOC", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"};

// src, parent(src), ..., the socket.
std::vector<ComponentId> ancestors(const Topology& t, ComponentId c) {
  std::vector<ComponentId> chain;
  for (; c != kNone; c = t.components[c].parent) chain.push_back(c);
  return chain;
}

LinkId link_or_throw(const Topology& t, ComponentId a, ComponentId b) {
  LinkId l = t.find_link(a, b);
  if (l == kNone)
    throw InternalError(fmt::format("no link {} -> {}", t.display_name(a), t.display_name(b)));
  return l;
}

// Shortest path between two components through components of kind `via`
// only (sockets, or net switches), breadth first, lowest link ids first.
std::vector<LinkId> shortest_path(const Topology& t, ComponentId from, ComponentId to, ComponentKind via) {
  if (from == to) return {};
  std::vector<LinkId> came_by(t.components.size(), kNone);
  std::deque<ComponentId> queue{from};
  std::vector<bool> seen(t.components.size(), false);
  seen[from] = true;
  while (!queue.empty()) {
    ComponentId c = queue.front();
    queue.pop_front();
    for (LinkId l : t.out_links[c]) {
      ComponentId d = t.links[l].dst;
      if (seen[d] || (t.components[d].kind != via && d != to)) continue;
      seen[d] = true;
      came_by[d] = l;
      if (d == to) {
        std::vector<LinkId> path;
        for (ComponentId x = to; x != from; x = t.links[came_by[x]].src) path.push_back(came_by[x]);
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue.push_back(d);
    }
  }
  throw InternalError(
      fmt::format("no path from {} to {}", t.display_name(from), t.display_name(to)));
}

void finish(const Topology& t, Route& r) {
  // Forwarders: every transited component that carries a forwarding capacity
  // (the destination of a link that is followed by another link).
  r.forwarders.clear();
  for (std::size_t i = 0; i + 1 < r.links.size(); ++i) {
    ComponentId mid = t.links[r.links[i]].dst;
    if (t.components[mid].forward) r.forwarders.push_back(mid);
  }
  double rate = std::numeric_limits<double>::infinity();
  for (LinkId l : r.links) rate = std::min(rate, t.links[l].capacity.gbps);
  for (ComponentId f : r.forwarders) rate = std::min(rate, t.components[f].forward->gbps);
  r.solo_gbps = rate;
}

struct Meeting {
  std::size_t up = 0, down = 0;  // index of the common ancestor in each chain
  bool found = false;
};

Meeting lowest_common_ancestor(const std::vector<ComponentId>& a, const std::vector<ComponentId>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto it = std::find(b.begin(), b.end(), a[i]);
    if (it != b.end()) return Meeting{i, static_cast<std::size_t>(it - b.begin()), true};
  }
  return {};
}

PathType classify(const Topology& t, const std::vector<ComponentId>& a, const std::vector<ComponentId>& b) {
  return classify_chains(a, b, [&](ComponentId c) { return t.components[c].kind; });
}

}  // namespace

std::string_view to_string(PathType p) { return kPathNames[static_cast<std::size_t>(p)]; }

std::optional<PathType> parse_path_type(std::string_view s) {
  for (std::size_t i = 0; i < kPathNames.size(); ++i) {
    if (kPathNames[i] == s) return static_cast<PathType>(i);
  }
  return std::nullopt;
}

Route intra_node_route(const Topology& t, ComponentId src, ComponentId dst) {
  if (t.components.at(src).node != t.components.at(dst).node || t.components[src].node < 0)
    throw InternalError(fmt::format("intra_node_route: {} and {} are not in one node", t.display_name(src),
                                       t.display_name(dst)));
  Route r;
  auto a = ancestors(t, src), b = ancestors(t, dst);
  r.type = classify(t, a, b);
  Meeting m = lowest_common_ancestor(a, b);
  std::size_t up_end = m.found ? m.up : a.size() - 1;
  std::size_t down_end = m.found ? m.down : b.size() - 1;
  for (std::size_t i = 0; i < up_end; ++i) r.links.push_back(link_or_throw(t, a[i], a[i + 1]));
  if (!m.found) {
    auto across = shortest_path(t, a.back(), b.back(), ComponentKind::cpu);
    r.links.insert(r.links.end(), across.begin(), across.end());
  }
  for (std::size_t i = down_end; i > 0; --i) r.links.push_back(link_or_throw(t, b[i], b[i - 1]));
  finish(t, r);
  return r;
}

namespace {
// The NIC's link into the fabric and the switch at its other end.
LinkId network_uplink(const Topology& t, ComponentId nic) {
  for (LinkId l : t.out_links[nic]) {
    if (t.links[l].kind == LinkKind::network) return l;
  }
  throw InternalError(fmt::format("{} has no network link", t.display_name(nic)));
}
}  // namespace

Route network_route(const Topology& t, ComponentId src, ComponentId src_nic, ComponentId dst_nic,
                    ComponentId dst) {
  const Component &s = t.components.at(src), &d = t.components.at(dst);
  if (t.components.at(src_nic).kind != ComponentKind::nic || t.components.at(dst_nic).kind != ComponentKind::nic ||
      t.components[src_nic].node != s.node || t.components[dst_nic].node != d.node ||
      (s.node == d.node && src_nic == dst_nic))
    throw InternalError(fmt::format("network_route: bad endpoints {} {} {} {}", t.display_name(src),
                                       t.display_name(src_nic), t.display_name(dst_nic), t.display_name(dst)));
  Route r;
  r.type = PathType::NET;
  if (src != src_nic) r.links = intra_node_route(t, src, src_nic).links;
  LinkId up = network_uplink(t, src_nic);
  LinkId down = t.links[network_uplink(t, dst_nic)].reverse;
  r.links.push_back(up);
  auto across = shortest_path(t, t.links[up].dst, t.links[down].src, ComponentKind::net_switch);
  r.links.insert(r.links.end(), across.begin(), across.end());
  r.links.push_back(down);
  if (dst != dst_nic) {
    auto tail = intra_node_route(t, dst_nic, dst).links;
    r.links.insert(r.links.end(), tail.begin(), tail.end());
  }
  finish(t, r);
  return r;
}

ComponentId nearest_nic(const Topology& t, ComponentId gpu) {
  const Component& g = t.components.at(gpu);
  ComponentId best = kNone;
  std::tuple<PathType, std::size_t, std::int32_t> best_key{};
  for (ComponentId nic : t.nics) {
    if (t.components[nic].node != g.node) continue;
    Route r = intra_node_route(t, gpu, nic);
    std::tuple<PathType, std::size_t, std::int32_t> key{r.type, r.links.size(), t.components[nic].local_index};
    if (best == kNone || key < best_key) best = nic, best_key = key;
  }
  return best;
}

Route default_route(const Topology& t, ComponentId src_gpu, ComponentId dst_gpu) {
  if (t.components.at(src_gpu).node == t.components.at(dst_gpu).node) return intra_node_route(t, src_gpu, dst_gpu);
  ComponentId a = nearest_nic(t, src_gpu), b = nearest_nic(t, dst_gpu);
  if (a == kNone || b == kNone)
    throw InternalError(fmt::format("no NIC to route {} -> {}", t.display_name(src_gpu), t.display_name(dst_gpu)));
  return network_route(t, src_gpu, a, b, dst_gpu);
}

PathType path_type(const Topology& t, ComponentId a, ComponentId b) {
  if (a == b) return PathType::LOC;
  if (t.components.at(a).node != t.components.at(b).node) return PathType::NET;
  return classify(t, ancestors(t, a), ancestors(t, b));
}

std::vector<std::vector<PathType>> path_type_matrix(const Topology& t) {
  const auto n = t.gpus.size();
  std::vector<std::vector<ComponentId>> chains(n);
  for (std::size_t i = 0; i < n; ++i) chains[i] = ancestors(t, t.gpus[i]);
  std::vector<std::vector<PathType>> m(n, std::vector<PathType>(n, PathType::LOC));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      bool same_node = t.components[t.gpus[i]].node == t.components[t.gpus[j]].node;
      m[i][j] = same_node ? classify(t, chains[i], chains[j]) : PathType::NET;
    }
  }
  return m;
}

std::vector<std::vector<PathType>> nic_path_type_matrix(const Topology& t) {
  // classify() on the two ancestor chains is what intra_node_route() types a
  // route with; the chains are computed once per device, not once per cell.
  std::vector<std::vector<ComponentId>> nic_chains(t.nics.size());
  for (std::size_t k = 0; k < t.nics.size(); ++k) nic_chains[k] = ancestors(t, t.nics[k]);
  std::vector<std::vector<PathType>> m(t.gpus.size(), std::vector<PathType>(t.nics.size(), PathType::NET));
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    const auto gpu_chain = ancestors(t, t.gpus[g]);
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
      if (t.components[t.nics[k]].node == t.components[t.gpus[g]].node)
        m[g][k] = classify(t, gpu_chain, nic_chains[k]);
    }
  }
  return m;
}

}  // namespace vp
