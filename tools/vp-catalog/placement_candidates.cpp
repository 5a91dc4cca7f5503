#include "placement_candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

namespace vp::catalog_cli {

namespace {

constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

// How many GPUs each node gives.
using Allocation = std::vector<std::pair<std::uint32_t, std::uint32_t>>;  // (node, count)

std::uint32_t free_on(const FreeGpus& free, std::uint32_t node) {
  return static_cast<std::uint32_t>(free.by_node[node].size());
}

// Take `rem` GPUs from `nodes` (in preference order) into `out`: while no
// node holds the rest, the freest whole; then the node with the fewest free
// GPUs that holds it (best fit). False when they cannot hold rem.
bool fewest_nodes(const FreeGpus& free, std::vector<std::uint32_t> nodes, std::uint32_t rem, Allocation& out) {
  while (rem > 0) {
    std::uint32_t best = kNoNode, freest = kNoNode;
    for (std::uint32_t n : nodes) {
      const std::uint32_t f = free_on(free, n);
      if (f == 0) continue;
      if (f >= rem && (best == kNoNode || f < free_on(free, best))) best = n;
      if (freest == kNoNode || f > free_on(free, freest)) freest = n;
    }
    if (best != kNoNode) {
      out.emplace_back(best, rem);
      return true;
    }
    if (freest == kNoNode) return false;
    out.emplace_back(freest, free_on(free, freest));
    rem -= free_on(free, freest);
    nodes.erase(std::find(nodes.begin(), nodes.end(), freest));
  }
  return true;
}

// N/k GPUs on each of k nodes (the first N mod k get one more), taken from
// the nodes that hold ceil(N/k), in `order`'s preference.
bool balanced(const FreeGpus& free, const std::vector<std::uint32_t>& order, std::uint32_t n, std::uint32_t k,
              Allocation& out) {
  const std::uint32_t base = n / k, extra = n % k, most = base + (extra ? 1 : 0);
  std::vector<std::uint32_t> fit;
  for (std::uint32_t node : order)
    if (free_on(free, node) >= most) fit.push_back(node);
  if (fit.size() < k) return false;
  for (std::uint32_t i = 0; i < k; ++i) out.emplace_back(fit[i], base + (i < extra ? 1 : 0));
  return true;
}

// Per local GPU of a node type, the NIC it reaches fastest (ties: fewer
// links, then the lower NIC); 0 for a node type without NIC.
std::vector<std::uint32_t> nic_groups(const vpcat::NodeTypeView& t) {
  std::vector<std::uint32_t> out(t.gpu_count(), 0);
  for (std::uint32_t g = 0; g < t.gpu_count(); ++g) {
    double best_gbps = -1;
    std::uint32_t best_links = 0;
    for (std::uint32_t k = 0; k < t.nic_count(); ++k) {
      const vpcat::RouteView r = t.route(t.gpu(g), t.nic(k));
      if (r.solo_gbps() > best_gbps || (r.solo_gbps() == best_gbps && r.link_count() < best_links)) {
        best_gbps = r.solo_gbps(), best_links = r.link_count(), out[g] = k;
      }
    }
  }
  return out;
}

// `count` of the node's free GPUs: spread (one per NIC group in turn) or
// packed (the fullest NIC groups first), ascending.
std::vector<std::uint32_t> pick(const std::vector<std::uint32_t>& free_local, const std::vector<std::uint32_t>& group,
                                std::uint32_t count, bool spread) {
  if (count >= free_local.size()) return free_local;
  std::vector<std::vector<std::uint32_t>> buckets;
  std::vector<std::uint32_t> bucket_of;
  for (std::uint32_t g : free_local) {
    const std::uint32_t k = group[g];
    auto it = std::find(bucket_of.begin(), bucket_of.end(), k);
    if (it == bucket_of.end()) {
      bucket_of.push_back(k);
      buckets.emplace_back();
      it = bucket_of.end() - 1;
    }
    buckets[static_cast<std::size_t>(it - bucket_of.begin())].push_back(g);
  }
  std::vector<std::uint32_t> out;
  if (spread) {
    for (std::size_t round = 0; out.size() < count; ++round)
      for (const std::vector<std::uint32_t>& b : buckets)
        if (round < b.size() && out.size() < count) out.push_back(b[round]);
  } else {
    std::stable_sort(buckets.begin(), buckets.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
    for (const std::vector<std::uint32_t>& b : buckets)
      for (std::uint32_t g : b)
        if (out.size() < count) out.push_back(g);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<Candidate> placement_candidates(const vpcat::CatalogView& view, const FreeGpus& free, std::uint32_t n) {
  const std::uint32_t nodes = view.node_count();
  std::vector<std::uint32_t> all(nodes);
  for (std::uint32_t i = 0; i < nodes; ++i) all[i] = i;
  std::vector<std::pair<std::string, Allocation>> allocations;
  auto add = [&](std::string name, const Allocation& a) { allocations.emplace_back(std::move(name), a); };

  Allocation fewest;
  fewest_nodes(free, all, n, fewest);
  add("fewest nodes", fewest);

  {  // the free GPUs of nodes in use first, whole (the freest first), then as fewest nodes
    std::vector<std::uint32_t> partial;
    for (std::uint32_t i : all) {
      const std::uint32_t f = free_on(free, i);
      if (f > 0 && f < view.node_type(view.node(i).node_type).gpu_count()) partial.push_back(i);
    }
    std::stable_sort(partial.begin(), partial.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return free_on(free, a) > free_on(free, b); });
    Allocation a;
    std::vector<bool> taken(nodes, false);
    std::uint32_t rem = n;
    for (std::uint32_t i : partial)
      if (rem >= free_on(free, i)) a.emplace_back(i, free_on(free, i)), rem -= free_on(free, i), taken[i] = true;
    std::vector<std::uint32_t> rest;
    for (std::uint32_t i : all)
      if (!taken[i]) rest.push_back(i);
    if (!a.empty() && (rem == 0 || fewest_nodes(free, rest, rem, a))) add("partial nodes first", a);
  }

  const vpcat::FabricView fabric = view.fabric();
  if (fabric.kind == vpcat::FabricKind::leaf_spine && fabric.switches > 1) {
    std::vector<std::vector<std::uint32_t>> leaf(fabric.switches);
    std::vector<std::uint64_t> leaf_free(fabric.switches, 0);
    for (std::uint32_t i : all) {
      if (view.node_type(view.node(i).node_type).nic_count() == 0) continue;
      const std::uint32_t s = view.switch_of_nic(i, 0);
      leaf[s].push_back(i);
      leaf_free[s] += free_on(free, i);
    }
    std::uint32_t best = kNoNode;
    for (std::uint32_t s = 0; s < fabric.switches; ++s)
      if (leaf_free[s] >= n && (best == kNoNode || leaf_free[s] < leaf_free[best])) best = s;
    Allocation a;
    if (best != kNoNode && fewest_nodes(free, leaf[best], n, a)) add(fmt::format("one leaf (leaf {})", best), a);
  }

  std::vector<std::uint32_t> best_fit = all, freest = all;
  std::stable_sort(best_fit.begin(), best_fit.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return free_on(free, a) < free_on(free, b); });
  std::stable_sort(freest.begin(), freest.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return free_on(free, a) > free_on(free, b); });
  std::uint32_t with_free = 0;
  for (std::uint32_t i : all) with_free += free_on(free, i) > 0;
  const std::uint32_t widest = std::min(n, with_free);
  std::set<std::uint32_t> ks;
  for (std::uint32_t k = static_cast<std::uint32_t>(fewest.size()); k < widest; k *= 2) ks.insert(k);
  ks.insert(widest);
  for (std::uint32_t k : ks) {
    Allocation a, b;
    if (balanced(free, best_fit, n, k, a)) add(fmt::format("balanced over {} node{}, best fit", k, k == 1 ? "" : "s"), a);
    if (balanced(free, freest, n, k, b)) add(fmt::format("balanced over {} node{}, freest", k, k == 1 ? "" : "s"), b);
  }

  std::vector<std::vector<std::uint32_t>> groups(view.node_type_count());
  for (std::uint32_t t = 0; t < view.node_type_count(); ++t) groups[t] = nic_groups(view.node_type(t));
  std::vector<Candidate> out;
  std::set<std::vector<std::uint64_t>> seen;
  for (const auto& [name, allocation] : allocations) {
    for (const bool spread : {true, false}) {
      Candidate c;
      bool partial_pick = false;
      Allocation sorted = allocation;
      std::sort(sorted.begin(), sorted.end());
      for (const auto& [node, count] : sorted) {
        const vpcat::NodeRef ref = view.node(node);
        partial_pick |= count < free_on(free, node);
        for (std::uint32_t g : pick(free.by_node[node], groups[ref.node_type], count, spread))
          c.gpus.push_back(ref.first_gpu + g);
      }
      c.strategy = partial_pick ? name + (spread ? ", spread" : ", packed") : name;
      std::vector<std::uint64_t> key = c.gpus;
      std::sort(key.begin(), key.end());
      if (seen.insert(key).second) out.push_back(std::move(c));
    }
  }
  return out;
}

FreeGpus without(const vpcat::CatalogView& view, const FreeGpus& free, const std::vector<std::uint64_t>& taken) {
  FreeGpus out = free;
  for (std::uint64_t gpu : taken) {
    std::uint32_t node = 0, local = 0;
    view.locate_gpu(gpu, &node, &local);
    std::vector<std::uint32_t>& f = out.by_node[node];
    const auto it = std::find(f.begin(), f.end(), local);
    if (it != f.end()) f.erase(it), --out.total;
  }
  return out;
}

}  // namespace vp::catalog_cli
