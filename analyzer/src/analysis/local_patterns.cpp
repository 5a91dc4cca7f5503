#include "vp/analysis/local_patterns.hpp"

#include <bliss/graph.hh>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "vp/topology/routes.hpp"
#include "vp/base/errors.hpp"

namespace vp {

using catalog::kIdle;
using catalog::kNicBase;
using catalog::LocalPattern;

Topology with_network_ports(const Topology& node, const std::vector<double>& nic_gbps) {
  if (node.nodes.size() != 1) throw InternalError("with_network_ports: not a single node");
  if (nic_gbps.size() != node.nics.size()) throw InternalError("with_network_ports: one rate per NIC expected");
  Topology t = node;
  ComponentId port = t.add_component(ComponentKind::net_switch, -1);
  t.components[port].role = "port";
  t.components[port].name = "port0";
  t.components[port].local_index = 0;
  for (std::size_t k = 0; k < node.nics.size(); ++k)
    if (nic_gbps[k] > 0)
      t.add_duplex_link(node.nics[k], port, LinkKind::network, Capacity{nic_gbps[k], CapacitySource::input, "NIC port"});
  finalize(t, "ports");
  return t;
}

namespace {

// The routes of the three kinds of flow in a ported node.
struct NodeRoutes {
  const Topology& t;
  ComponentId port;

  Route gpu_to_gpu(ComponentId a, ComponentId b) const { return intra_node_route(t, a, b); }
  Route to_network(ComponentId gpu, ComponentId nic) const {
    Route r = intra_node_route(t, gpu, nic);
    r.links.push_back(t.find_link(nic, port));
    return finish(r);
  }
  Route from_network(ComponentId nic, ComponentId gpu) const {
    Route r = intra_node_route(t, nic, gpu);
    r.links.insert(r.links.begin(), t.find_link(port, nic));
    return finish(r);
  }
  Route finish(Route r) const {
    // Recompute forwarders and the solo rate over the extended link list.
    r.forwarders.clear();
    double rate = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < r.links.size(); ++i) {
      rate = std::min(rate, t.links[r.links[i]].capacity.gbps);
      if (i + 1 < r.links.size()) {
        ComponentId mid = t.links[r.links[i]].dst;
        if (t.components[mid].forward) {
          r.forwarders.push_back(mid);
          rate = std::min(rate, t.components[mid].forward->gbps);
        }
      }
    }
    r.solo_gbps = rate;
    return r;
  }
};

ComponentId port_of(const Topology& t) {
  for (ComponentId s : t.net_switches)
    if (t.components[s].role == "port") return s;
  throw InternalError("the topology has no network port switch (use with_network_ports)");
}

// A flow as the search sees it: the resources it loads and its rate.
// Resources: link ids, then forwarding components (t.links.size() + component id).
struct FlowSpec {
  std::vector<std::uint32_t> resources;
  double rate = 0.0;
  bool valid = false;
};

FlowSpec flow_spec(const Topology& t, const Route& r) {
  FlowSpec f;
  for (LinkId l : r.links) f.resources.push_back(l);
  for (ComponentId c : r.forwarders) f.resources.push_back(static_cast<std::uint32_t>(t.links.size()) + c);
  f.rate = r.solo_gbps;
  f.valid = true;
  return f;
}

// The search's view of a group element: its action on GPU and NIC indexes.
struct Element {
  std::vector<std::int32_t> gpu, gpu_inverse, nic;
};

Element element_of(const Topology& t, const Permutation& p) {
  Element e;
  const auto G = t.gpus.size(), K = t.nics.size();
  e.gpu.resize(G), e.gpu_inverse.resize(G), e.nic.resize(K);
  for (std::size_t g = 0; g < G; ++g) {
    auto image = static_cast<std::int32_t>(t.components[p[t.gpus[g]]].local_index);
    e.gpu[g] = image;
    e.gpu_inverse[static_cast<std::size_t>(image)] = static_cast<std::int32_t>(g);
  }
  for (std::size_t k = 0; k < K; ++k) e.nic[k] = t.components[p[t.nics[k]]].local_index;
  return e;
}

std::int32_t map_role(const Element& e, std::int32_t role) {
  if (role == kIdle) return kIdle;
  if (role >= kNicBase) return kNicBase + e.nic[static_cast<std::size_t>(role - kNicBase)];
  return e.gpu[static_cast<std::size_t>(role)];
}

// Extend a node permutation to the ported node (the port switch is fixed).
Permutation extend(const Permutation& p, std::size_t degree) {
  Permutation q = identity_permutation(degree);
  std::copy(p.begin(), p.end(), q.begin());
  return q;
}

class Search {
 public:
  Search(const Topology& t, const NodeSymmetry& sym, const PatternSearchOptions& opts, bool use_symmetry)
      : t_(t), opts_(opts), G_(t.gpus.size()), K_(t.nics.size()) {
    NodeRoutes routes{t, port_of(t)};
    cap_.resize(t.links.size() + t.components.size(), std::numeric_limits<double>::infinity());
    for (const Link& l : t.links) cap_[l.id] = l.capacity.gbps;
    for (const Component& c : t.components)
      if (c.forward) cap_[t.links.size() + c.id] = c.forward->gbps;
    load_.assign(cap_.size(), 0.0);
    send_.assign(G_, std::vector<FlowSpec>(G_ + K_));
    recv_.assign(G_, std::vector<FlowSpec>(K_));
    for (std::size_t g = 0; g < G_; ++g) {
      for (std::size_t h = 0; h < G_; ++h)
        if (h != g) send_[g][h] = flow_spec(t, routes.gpu_to_gpu(t.gpus[g], t.gpus[h]));
      for (std::size_t k = 0; k < K_; ++k) {
        if (t.find_link(t.nics[k], routes.port) == kNone) continue;  // no network port: carries no GPU traffic
        send_[g][G_ + k] = flow_spec(t, routes.to_network(t.gpus[g], t.nics[k]));
        recv_[g][k] = flow_spec(t, routes.from_network(t.nics[k], t.gpus[g]));
      }
    }
    x_.assign(2 * G_, kIdle);
    decided_.assign(2 * G_, false);
    if (use_symmetry) set_up_group(sym);
  }

  LocalPatternSet run() {
    std::vector<std::uint32_t> all(elements_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint32_t>(i);
    dfs(0, all);
    LocalPatternSet out;
    out.complete = complete_;
    out.search_nodes = nodes_;
    std::sort(found_.begin(), found_.end(), [](const LocalPattern& a, const LocalPattern& b) {
      return std::tie(a.send, a.recv) < std::tie(b.send, b.recv);
    });
    for (const LocalPattern& p : found_) out.represented = add(out.represented, p.orbit_size);
    out.representatives = std::move(found_);
    return out;
  }

 private:
  static BigUint add(const BigUint& a, std::uint64_t b) {
    // Sums stay far below 2^64 in practice; keep exactness checks explicit.
    if (!a.fits_u64() || a.to_u64() > std::numeric_limits<std::uint64_t>::max() - b)
      throw InternalError("pattern count exceeds 2^64");
    return BigUint(a.to_u64() + b);
  }

  void set_up_group(const NodeSymmetry& sym) {
    order_ = sym.order;
    std::vector<Permutation> gens;
    for (const Permutation& g : sym.generators) gens.push_back(extend(g, t_.components.size()));
    PermGroup group(t_.components.size(), gens);
    full_group_ = order_.fits_u64() && order_.to_u64() <= opts_.max_listed_group;
    if (full_group_) {
      group.for_each_element([&](const Permutation& p) {
        if (!is_identity(p)) elements_.push_back(element_of(t_, p));
      });
    } else {
      for (const Permutation& g : gens) elements_.push_back(element_of(t_, g));
    }
  }

  bool fits(const FlowSpec& f) const {
    if (!f.valid) return false;
    for (std::uint32_t r : f.resources)
      if (load_[r] + f.rate > cap_[r] * (1 + 1e-9)) return false;
    return true;
  }
  void add_load(const FlowSpec& f, double sign) {
    for (std::uint32_t r : f.resources) load_[r] += sign * f.rate;
  }

  // Lex-leader test of the decided prefix against the elements in `alive`.
  // Returns true to cut (some element maps x to a smaller assignment).
  // Otherwise `next` receives the elements that may still do so below this
  // search node: those whose image is larger at a decided position never
  // become smaller, since decided positions do not change in the subtree.
  // `stabilizer`, when given, counts the elements fixing a complete x.
  bool cut(const std::vector<std::uint32_t>& alive, std::vector<std::uint32_t>& next,
           std::uint64_t* stabilizer = nullptr) const {
    next.clear();
    for (std::uint32_t index : alive) {
      const Element& e = elements_[index];
      int verdict = 0;  // -1 image smaller, +1 image larger, 0 equal so far or undecided
      bool complete = true;
      for (std::size_t i = 0; i < 2 * G_; ++i) {
        std::size_t half = i < G_ ? 0 : G_;
        std::size_t src = half + static_cast<std::size_t>(e.gpu_inverse[i - half]);
        if (!decided_[src] || !decided_[i]) {
          complete = false;
          break;
        }
        std::int32_t a = map_role(e, x_[src]), b = x_[i];
        if (a != b) {
          verdict = a < b ? -1 : 1;
          break;
        }
      }
      if (verdict < 0) return true;
      if (verdict == 0) {
        next.push_back(index);
        if (complete && stabilizer) ++*stabilizer;
      }
    }
    return false;
  }

  bool budget_left() {
    // The clock every 1,024 nodes: a few ns a node, and a late stop of at most
    // 1,024 nodes' work.
    if ((nodes_ & 1023) == 0)
      check_deadline(opts_.deadline, fmt::format("the local-pattern search ({} search nodes)", nodes_));
    if ((nodes_ & 4095) == 0 && nodes_ > 0 && opts_.on_progress) opts_.on_progress(nodes_, found_.size());
    if (++nodes_ <= opts_.max_search_nodes) return true;
    complete_ = false;
    return false;
  }

  // Each search node owns the list of still-alive elements for its children.
  void dfs(std::size_t pos, const std::vector<std::uint32_t>& alive) {
    if (!complete_ || !budget_left()) return;
    if (pos == 2 * G_) return leaf(alive);
    if (pos < G_) return choose_send(pos, alive);
    if (decided_[pos]) return dfs(pos + 1, alive);  // receives from a peer already
    std::size_t h = pos - G_;
    std::vector<std::uint32_t> next;
    decide(pos, kIdle);
    if (!cut(alive, next)) dfs(pos + 1, next);
    for (std::size_t k = 0; k < K_; ++k) {
      const FlowSpec& f = recv_[h][k];
      if (!fits(f)) continue;
      add_load(f, 1);
      decide(pos, kNicBase + static_cast<std::int32_t>(k));
      if (!cut(alive, next)) dfs(pos + 1, next);
      add_load(f, -1);
    }
    undecide(pos);
  }

  void choose_send(std::size_t g, const std::vector<std::uint32_t>& alive) {
    std::vector<std::uint32_t> next;
    decide(g, kIdle);
    if (!cut(alive, next)) dfs(g + 1, next);
    for (std::size_t target = 0; target < G_ + K_; ++target) {
      bool p2p = target < G_;
      if (p2p && (target == g || decided_[G_ + target])) continue;
      const FlowSpec& f = send_[g][target];
      if (!fits(f)) continue;
      add_load(f, 1);
      if (p2p) {
        decide(g, static_cast<std::int32_t>(target));
        decide(G_ + target, static_cast<std::int32_t>(g));
      } else {
        decide(g, kNicBase + static_cast<std::int32_t>(target - G_));
      }
      if (!cut(alive, next)) dfs(g + 1, next);
      if (p2p) undecide(G_ + target);
      add_load(f, -1);
    }
    undecide(g);
  }

  void decide(std::size_t pos, std::int32_t role) { x_[pos] = role, decided_[pos] = true; }
  void undecide(std::size_t pos) { x_[pos] = kIdle, decided_[pos] = false; }

  bool maximal() const {
    for (std::size_t g = 0; g < G_; ++g) {
      if (x_[g] != kIdle) continue;
      for (std::size_t target = 0; target < G_ + K_; ++target) {
        bool p2p = target < G_;
        if (p2p && (target == g || x_[G_ + target] != kIdle)) continue;
        if (fits(send_[g][target])) return false;
      }
    }
    for (std::size_t h = 0; h < G_; ++h) {
      if (x_[G_ + h] != kIdle) continue;
      for (std::size_t k = 0; k < K_; ++k)
        if (fits(recv_[h][k])) return false;
    }
    return true;
  }

  void leaf(const std::vector<std::uint32_t>& alive) {
    if (!maximal()) return;
    LocalPattern p;
    p.send.assign(x_.begin(), x_.begin() + static_cast<std::ptrdiff_t>(G_));
    p.recv.assign(x_.begin() + static_cast<std::ptrdiff_t>(G_), x_.end());
    if (elements_.empty() && order_.to_string() == "1") {
      p.orbit_size = 1;
    } else if (full_group_) {
      std::uint64_t stabilizer = 1;  // the identity
      std::vector<std::uint32_t> unused;
      if (cut(alive, unused, &stabilizer)) return;
      p.orbit_size = order_.divided_by(stabilizer).to_u64();
    } else {
      if (!record_certificate(p)) return;
    }
    found_.push_back(std::move(p));
  }

  // Large groups: deduplicate by canonical certificate; orbit size from the
  // pattern's stabilizer.
  bool record_certificate(LocalPattern& p);

  const Topology& t_;
  PatternSearchOptions opts_;
  std::size_t G_, K_;
  std::vector<double> cap_, load_;
  std::vector<std::vector<FlowSpec>> send_, recv_;
  std::vector<std::int32_t> x_;
  std::vector<bool> decided_;
  std::vector<Element> elements_;
  bool full_group_ = false;
  BigUint order_{1};
  bool complete_ = true;
  std::uint64_t nodes_ = 0;
  std::vector<LocalPattern> found_;
  std::set<std::string> certificates_;
};

// ---------------------------------------------------------------------------
// Canonical certificates (bliss) for groups too large to list.

bool Search::record_certificate(LocalPattern& p) {
  PatternCanonicalForm c = canonical_pattern(t_, p);
  if (!certificates_.insert(c.certificate).second) return false;
  BigUint stabilizer = PermGroup(t_.components.size(), c.stabilizer).order();
  p.orbit_size = order_.quotient_u64(stabilizer);
  return true;
}

}  // namespace

LocalPatternSet find_local_patterns(const Topology& ported, const NodeSymmetry& sym,
                                    const PatternSearchOptions& opts) {
  return Search(ported, sym, opts, true).run();
}

std::vector<LocalPattern> all_maximal_local_patterns(const Topology& ported) {
  return Search(ported, NodeSymmetry{}, PatternSearchOptions{}, false).run().representatives;
}

LocalPattern apply_to_pattern(const Topology& ported, const Permutation& p, const LocalPattern& x) {
  Element e = element_of(ported, extend(p, ported.components.size()));
  LocalPattern y = x;
  for (std::size_t g = 0; g < x.send.size(); ++g) {
    auto image = static_cast<std::size_t>(e.gpu[g]);
    y.send[image] = map_role(e, x.send[g]);
    y.recv[image] = map_role(e, x.recv[g]);
  }
  return y;
}

PatternCanonicalForm canonical_pattern(const Topology& ported, const LocalPattern& x) {
  ColouredDigraph g = symmetry_graph(ported);
  auto role = [&](const char* kind, ComponentId from, ComponentId to) {
    unsigned v = g.add_vertex(std::string("role|") + kind);
    g.edges.emplace_back(from, v);
    g.edges.emplace_back(v, to);
  };
  for (std::size_t i = 0; i < x.send.size(); ++i) {
    std::int32_t s = x.send[i], r = x.recv[i];
    if (s >= kNicBase) role("send-net", ported.gpus[i], ported.nics[static_cast<std::size_t>(s - kNicBase)]);
    else if (s != kIdle) role("send-p2p", ported.gpus[i], ported.gpus[static_cast<std::size_t>(s)]);
    if (r >= kNicBase) role("recv-net", ported.nics[static_cast<std::size_t>(r - kNicBase)], ported.gpus[i]);
  }
  BlissResult b = run_bliss(g, ported.components.size(), true);
  return {std::move(b.certificate), std::move(b.generators)};
}

std::vector<Transfer> pattern_transfers(const Topology& ported, const LocalPattern& x) {
  NodeRoutes routes{ported, port_of(ported)};
  std::vector<Transfer> out;
  for (std::size_t g = 0; g < x.send.size(); ++g) {
    ComponentId gpu = ported.gpus[g];
    std::int32_t s = x.send[g], r = x.recv[g];
    if (s >= kNicBase)
      out.push_back({gpu, routes.port, routes.to_network(gpu, ported.nics[static_cast<std::size_t>(s - kNicBase)])});
    else if (s != kIdle)
      out.push_back({gpu, ported.gpus[static_cast<std::size_t>(s)],
                     routes.gpu_to_gpu(gpu, ported.gpus[static_cast<std::size_t>(s)])});
    if (r >= kNicBase)
      out.push_back({routes.port, gpu, routes.from_network(ported.nics[static_cast<std::size_t>(r - kNicBase)], gpu)});
  }
  return out;
}

}  // namespace vp
