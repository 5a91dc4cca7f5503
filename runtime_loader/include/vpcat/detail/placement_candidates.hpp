// The candidates vpcat::place() weighs (vpcat/placement.hpp): the free GPUs
// node by node, the partial nodes they leave, and a handful of sensible
// placements of an N-GPU job, never an enumeration. Nodes first, then GPUs
// inside each node:
//
// * fewest nodes: the freest nodes whole, the last one by best fit (the
//   node with the fewest free GPUs that still holds the rest);
// * partial nodes first: the free GPUs of nodes already in use, whole (the
//   freest first), then as fewest nodes (closes partial nodes instead of
//   opening new ones);
// * one leaf (leaf/spine fabrics): fewest nodes inside the leaf with the
//   fewest free GPUs that holds the job, so no byte crosses the spine;
// * balanced over k nodes, k = the fewest nodes' count doubling up to N (and
//   to the nodes with free GPUs): N/k GPUs per node on the k nodes that fit
//   them best (fewest free GPUs) and, apart, on the k freest.
//
// On a node that gives part of its free GPUs, two choices: spread (one GPU
// per NIC's group before a second: the GPUs nearest each NIC, by route rate)
// and packed (whole NIC groups first). The candidates are deduplicated by
// their GPU sets. Internal: no code outside runtime_loader/ includes it.
// Nothing here throws; memory comes from PodBuffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/status.hpp"
#include "vpcat/subset.hpp"

namespace vpcat {
inline namespace v0_1 {

namespace detail {

// How a candidate was built and which GPUs a node giving part of its free
// GPUs gives: the values of vpcat::PlacementStrategy and vpcat::PlacementPick
// (vpcat/placement.hpp), which document them.
enum class Strategy : std::uint32_t { fewest_nodes = 0, partial_nodes_first = 1, one_leaf = 2, balanced_best_fit = 3, balanced_freest = 4 };
enum class Pick : std::uint32_t { whole = 0, spread = 1, packed = 2 };

constexpr std::uint32_t kNoPlacementNode = 0xFFFFFFFFu;

// How many GPUs a node gives.
struct NodeTake {
  std::uint32_t node;
  std::uint32_t count;
};

// The free GPUs of a cluster, node by node, local indexes ascending.
class FreeSet {
 public:
  // From `count` catalog-wide GPU indexes in any order: each below the
  // catalog's GPU count, none twice (bad_subset naming the entry).
  PlanStatus assign(const CatalogView& cat, const std::uint64_t* gpus, std::size_t count) noexcept {
    const std::uint32_t nodes = cat.node_count();
    total_ = 0;
    if (!offset_.assign(std::size_t{nodes} + 1, 0) || !local_.resize(count))
      return PlanStatus::at(PlanError::out_of_memory, "placement", "the free GPUs");
    for (std::uint32_t n = 0; n < nodes; ++n)
      if (cat.node_type(cat.node(n).node_type).gpu_count() > Subset::kMaxNodeGpus)
        return PlanStatus::at(PlanError::bad_subset, "placement", "node %u has %u GPUs, a placement holds at most %u per node",
                              n, cat.node_type(cat.node(n).node_type).gpu_count(), Subset::kMaxNodeGpus);
    for (std::size_t i = 0; i < count; ++i) {
      if (gpus[i] >= cat.gpu_count()) {
        const unsigned long long g = gpus[i], all = cat.gpu_count();
        return PlanStatus::at(PlanError::bad_subset, "placement", "free GPU %zu is %llu, the catalog has %llu GPUs", i, g,
                              all);
      }
      std::uint32_t node = 0, local = 0;
      cat.locate_gpu(gpus[i], &node, &local);
      ++offset_[node + 1];
    }
    for (std::uint32_t n = 0; n < nodes; ++n) offset_[n + 1] += offset_[n];
    PodBuffer<std::uint32_t> fill;
    if (!fill.resize(nodes)) return PlanStatus::at(PlanError::out_of_memory, "placement", "the free GPUs");
    for (std::uint32_t n = 0; n < nodes; ++n) fill[n] = offset_[n];
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t node = 0, local = 0;
      cat.locate_gpu(gpus[i], &node, &local);
      local_[fill[node]++] = local;
    }
    for (std::uint32_t n = 0; n < nodes; ++n) {
      std::uint32_t* first = local_.data() + offset_[n];
      std::uint32_t* last = local_.data() + offset_[n + 1];
      std::sort(first, last);
      for (std::uint32_t* p = first; p + 1 < last; ++p)
        if (p[0] == p[1]) {
          const unsigned long long g = cat.node(n).first_gpu + p[0];
          return PlanStatus::at(PlanError::bad_subset, "placement", "free GPU %llu is listed twice", g);
        }
    }
    total_ = count;
    return {};
  }

  std::uint32_t node_count() const noexcept { return static_cast<std::uint32_t>(offset_.size() - 1); }
  std::uint32_t free_on(std::uint32_t node) const noexcept { return offset_[node + 1] - offset_[node]; }
  const std::uint32_t* locals(std::uint32_t node) const noexcept { return local_.data() + offset_[node]; }
  std::uint64_t total() const noexcept { return total_; }

  // Nodes with some GPUs free and some not once `taken` (free GPUs, `count`
  // of them) are taken; `scratch` holds a count per node and must already
  // hold node_count() entries (the caller allocates it, so that a failed
  // allocation is reported, never counted as 0 partial nodes).
  std::uint32_t partial_nodes(const CatalogView& cat, const std::uint64_t* taken, std::size_t count,
                              PodBuffer<std::uint32_t>& scratch) const noexcept {
    const std::uint32_t nodes = node_count();
    for (std::uint32_t n = 0; n < nodes; ++n) scratch[n] = 0;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t node = 0, local = 0;
      cat.locate_gpu(taken[i], &node, &local);
      ++scratch[node];
    }
    std::uint32_t partial = 0;
    for (std::uint32_t n = 0; n < nodes; ++n) {
      const std::uint32_t left = free_on(n) - scratch[n];
      partial += left > 0 && left < cat.node_type(cat.node(n).node_type).gpu_count();
    }
    return partial;
  }

 private:
  PodBuffer<std::uint32_t> offset_;  // node n's free GPUs are local_[offset_[n] .. offset_[n + 1])
  PodBuffer<std::uint32_t> local_;
  std::uint64_t total_ = 0;
};

// One candidate as generated: how, and its GPUs in gpus[first .. first + n).
struct RawCandidate {
  Strategy strategy;
  std::uint32_t detail;
  Pick pick;
  std::uint32_t reserved;
  std::size_t first;
};

class CandidateBuilder {
 public:
  // The candidates of an n-GPU job on `free` (0 < n <= free.total()) into
  // `out` and `gpus` (each candidate's n GPUs node by node, local order).
  PlanStatus build(const CatalogView& cat, const FreeSet& free, std::uint32_t n, PodBuffer<RawCandidate>& out,
                   PodBuffer<std::uint64_t>& gpus) noexcept {
    cat_ = &cat, free_ = &free, n_ = n;
    out.clear(), gpus.clear();
    allocs_.clear(), takes_.clear();
    const std::uint32_t nodes = free.node_count();
    if (!all_.resize(nodes)) return oom();
    for (std::uint32_t i = 0; i < nodes; ++i) all_[i] = i;

    if (!fewest_nodes(all_.data(), nodes, n) || !close_alloc(Strategy::fewest_nodes, 0)) return oom();
    const std::uint32_t fewest_count = static_cast<std::uint32_t>(takes_.size());
    if (PlanStatus s = partial_first(); !s.ok()) return s;
    if (PlanStatus s = one_leaf(); !s.ok()) return s;
    if (PlanStatus s = balanced_all(fewest_count); !s.ok()) return s;
    if (PlanStatus s = nic_groups(); !s.ok()) return s;
    return expand(out, gpus);
  }

 private:
  struct Alloc {
    Strategy strategy;
    std::uint32_t detail;
    std::size_t first, count;  // in takes_
  };

  static PlanStatus oom() noexcept { return PlanStatus::at(PlanError::out_of_memory, "placement", "the candidates"); }
  std::uint32_t free_on(std::uint32_t node) const noexcept { return free_->free_on(node); }
  std::uint32_t gpus_of(std::uint32_t node) const noexcept {
    return cat_->node_type(cat_->node(node).node_type).gpu_count();
  }

  // The takes since the last closed allocation become one allocation.
  bool close_alloc(Strategy s, std::uint32_t detail) noexcept {
    const std::size_t first = allocs_.empty() ? 0 : allocs_[allocs_.size() - 1].first + allocs_[allocs_.size() - 1].count;
    return allocs_.push_back(Alloc{s, detail, first, takes_.size() - first});
  }
  // Drops the takes since the last closed allocation.
  void drop_open() noexcept {
    const std::size_t first = allocs_.empty() ? 0 : allocs_[allocs_.size() - 1].first + allocs_[allocs_.size() - 1].count;
    (void)takes_.resize(first);
  }

  // Take `rem` GPUs from `nodes` (in preference order): while no node holds
  // the rest, the freest whole; then the node with the fewest free GPUs that
  // holds it (best fit). False when they cannot hold rem or memory is short
  // (the open takes are then dropped).
  bool fewest_nodes(const std::uint32_t* nodes, std::size_t count, std::uint32_t rem) noexcept {
    if (!used_.assign(free_->node_count(), 0)) return false;
    while (rem > 0) {
      std::uint32_t best = kNoPlacementNode, freest = kNoPlacementNode;
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t node = nodes[i];
        const std::uint32_t f = free_on(node);
        if (f == 0 || used_[node]) continue;
        if (f >= rem && (best == kNoPlacementNode || f < free_on(best))) best = node;
        if (freest == kNoPlacementNode || f > free_on(freest)) freest = node;
      }
      if (best != kNoPlacementNode) return takes_.push_back(NodeTake{best, rem}) || (drop_open(), false);
      if (freest == kNoPlacementNode || !takes_.push_back(NodeTake{freest, free_on(freest)})) {
        drop_open();
        return false;
      }
      rem -= free_on(freest);
      used_[freest] = 1;
    }
    return true;
  }

  // The free GPUs of nodes in use first, whole (the freest first), then as fewest nodes.
  PlanStatus partial_first() noexcept {
    const std::uint32_t nodes = free_->node_count();
    PodBuffer<std::uint32_t>& partial = order_;
    partial.clear();
    for (std::uint32_t i = 0; i < nodes; ++i)
      if (free_on(i) > 0 && free_on(i) < gpus_of(i) && !partial.push_back(i)) return oom();
    std::stable_sort(partial.begin(), partial.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return free_on(a) > free_on(b); });
    if (!taken_.assign(nodes, 0)) return oom();
    std::uint32_t rem = n_;
    bool any = false;
    for (std::uint32_t i : partial)
      if (rem >= free_on(i)) {
        if (!takes_.push_back(NodeTake{i, free_on(i)})) return oom();
        rem -= free_on(i), taken_[i] = 1, any = true;
      }
    rest_.clear();
    for (std::uint32_t i = 0; i < nodes; ++i)
      if (!taken_[i] && !rest_.push_back(i)) return oom();
    if (any && (rem == 0 || fewest_nodes(rest_.data(), rest_.size(), rem)))
      return close_alloc(Strategy::partial_nodes_first, 0) ? PlanStatus{} : oom();
    drop_open();
    return {};
  }

  // Fewest nodes inside the leaf with the fewest free GPUs that holds the job.
  PlanStatus one_leaf() noexcept {
    const FabricView fabric = cat_->fabric();
    if (fabric.kind != FabricKind::leaf_spine || fabric.switches <= 1) return {};
    const std::uint32_t nodes = free_->node_count();
    PodBuffer<std::uint64_t> leaf_free;
    if (!leaf_free.assign(fabric.switches, 0)) return oom();
    for (std::uint32_t i = 0; i < nodes; ++i)
      if (cat_->node_type(cat_->node(i).node_type).nic_count() > 0) leaf_free[cat_->switch_of_nic(i, 0)] += free_on(i);
    std::uint32_t best = kNoPlacementNode;
    for (std::uint32_t s = 0; s < fabric.switches; ++s)
      if (leaf_free[s] >= n_ && (best == kNoPlacementNode || leaf_free[s] < leaf_free[best])) best = s;
    if (best == kNoPlacementNode) return {};
    rest_.clear();
    for (std::uint32_t i = 0; i < nodes; ++i)
      if (cat_->node_type(cat_->node(i).node_type).nic_count() > 0 && cat_->switch_of_nic(i, 0) == best &&
          !rest_.push_back(i))
        return oom();
    if (fewest_nodes(rest_.data(), rest_.size(), n_) && !close_alloc(Strategy::one_leaf, best)) return oom();
    return {};
  }

  // N/k GPUs on each of k nodes (the first N mod k get one more), taken from
  // the nodes that hold ceil(N/k), in `order`'s preference.
  bool balanced(const PodBuffer<std::uint32_t>& order, std::uint32_t k) noexcept {
    const std::uint32_t base = n_ / k, extra = n_ % k, most = base + (extra ? 1 : 0);
    std::uint32_t fit = 0;
    for (std::uint32_t node : order) fit += free_on(node) >= most;
    if (fit < k) return false;
    std::uint32_t i = 0;
    for (std::uint32_t node : order) {
      if (i == k) break;
      if (free_on(node) < most) continue;
      if (!takes_.push_back(NodeTake{node, base + (i < extra ? 1 : 0)})) {
        drop_open();
        return false;
      }
      ++i;
    }
    return true;
  }

  PlanStatus balanced_all(std::uint32_t fewest_count) noexcept {
    const std::uint32_t nodes = free_->node_count();
    if (!order_.resize(nodes) || !rest_.resize(nodes)) return oom();
    for (std::uint32_t i = 0; i < nodes; ++i) order_[i] = rest_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return free_on(a) < free_on(b); });
    std::stable_sort(rest_.begin(), rest_.end(), [&](std::uint32_t a, std::uint32_t b) { return free_on(a) > free_on(b); });
    std::uint32_t with_free = 0;
    for (std::uint32_t i = 0; i < nodes; ++i) with_free += free_on(i) > 0;
    const std::uint32_t widest = std::min(n_, with_free);
    auto one = [&](std::uint32_t k) -> bool {
      if (balanced(order_, k) && !close_alloc(Strategy::balanced_best_fit, k)) return false;
      if (balanced(rest_, k) && !close_alloc(Strategy::balanced_freest, k)) return false;
      return true;
    };
    // k from the fewest nodes' count doubling, then `widest`, each once, ascending.
    for (std::uint32_t k = fewest_count; k < widest; k *= 2)
      if (!one(k)) return oom();
    if (!one(widest)) return oom();
    return {};
  }

  // Per node type and local GPU, the NIC it reaches fastest (ties: fewer
  // links, then the lower NIC); 0 for a node type without NIC.
  PlanStatus nic_groups() noexcept {
    const std::uint32_t types = cat_->node_type_count();
    if (!group_first_.resize(std::size_t{types} + 1)) return oom();
    group_.clear();
    for (std::uint32_t t = 0; t < types; ++t) {
      const NodeTypeView type = cat_->node_type(t);
      group_first_[t] = group_.size();
      for (std::uint32_t g = 0; g < type.gpu_count(); ++g) {
        double best_gbps = -1;
        std::uint32_t best_links = 0, best = 0;
        for (std::uint32_t k = 0; k < type.nic_count(); ++k) {
          const RouteView r = type.route(type.gpu(g), type.nic(k));
          if (r.solo_gbps() > best_gbps || (r.solo_gbps() == best_gbps && r.link_count() < best_links))
            best_gbps = r.solo_gbps(), best_links = r.link_count(), best = k;
        }
        if (!group_.push_back(best)) return oom();
      }
    }
    group_first_[types] = group_.size();
    return {};
  }

  // `count` of the node's free GPUs: spread (one per NIC group in turn) or
  // packed (the fullest NIC groups first), ascending, into `out`.
  std::uint32_t pick(std::uint32_t node, std::uint32_t count, bool spread, std::uint32_t* out) const noexcept {
    const std::uint32_t f = free_on(node);
    const std::uint32_t* free_local = free_->locals(node);
    if (count >= f) {
      std::memcpy(out, free_local, sizeof(std::uint32_t) * f);
      return f;
    }
    const std::uint32_t* group = group_.data() + group_first_[cat_->node(node).node_type];
    // Buckets in order of first appearance: bucket_key[b], and the free GPUs of b.
    std::uint32_t bucket_key[Subset::kMaxNodeGpus], bucket_size[Subset::kMaxNodeGpus], bucket_of[Subset::kMaxNodeGpus];
    std::uint32_t buckets = 0;
    for (std::uint32_t i = 0; i < f; ++i) {
      const std::uint32_t k = group[free_local[i]];
      std::uint32_t b = 0;
      while (b < buckets && bucket_key[b] != k) ++b;
      if (b == buckets) bucket_key[buckets] = k, bucket_size[buckets++] = 0;
      bucket_of[i] = b;
      ++bucket_size[b];
    }
    std::uint32_t taken = 0;
    if (spread) {
      for (std::uint32_t round = 0; taken < count; ++round)
        for (std::uint32_t b = 0; b < buckets && taken < count; ++b) {
          std::uint32_t seen = 0;
          for (std::uint32_t i = 0; i < f; ++i)
            if (bucket_of[i] == b && seen++ == round) {
              out[taken++] = free_local[i];
              break;
            }
        }
    } else {
      std::uint32_t order[Subset::kMaxNodeGpus];
      for (std::uint32_t b = 0; b < buckets; ++b) order[b] = b;
      std::stable_sort(order, order + buckets, [&](std::uint32_t a, std::uint32_t b) { return bucket_size[a] > bucket_size[b]; });
      for (std::uint32_t j = 0; j < buckets; ++j)
        for (std::uint32_t i = 0; i < f && taken < count; ++i)
          if (bucket_of[i] == order[j]) out[taken++] = free_local[i];
    }
    std::sort(out, out + taken);
    return taken;
  }

  // Each allocation spread and packed, nodes ascending; distinct GPU sets only.
  PlanStatus expand(PodBuffer<RawCandidate>& out, PodBuffer<std::uint64_t>& gpus) noexcept {
    std::uint32_t local[Subset::kMaxNodeGpus];
    for (const Alloc& a : allocs_) {
      NodeTake* first = takes_.data() + a.first;
      std::sort(first, first + a.count, [](const NodeTake& x, const NodeTake& y) { return x.node < y.node; });
      bool partial_pick = false;
      for (std::size_t i = 0; i < a.count; ++i) partial_pick |= first[i].count < free_on(first[i].node);
      for (const bool spread : {true, false}) {
        const std::size_t start = gpus.size();
        for (std::size_t i = 0; i < a.count; ++i) {
          const std::uint32_t got = pick(first[i].node, first[i].count, spread, local);
          const std::uint64_t base = cat_->node(first[i].node).first_gpu;
          for (std::uint32_t g = 0; g < got; ++g)
            if (!gpus.push_back(base + local[g])) return oom();
        }
        bool seen = false;  // GPU lists are node by node, locals ascending: equal sets are equal lists
        for (const RawCandidate& c : out)
          seen |= std::memcmp(gpus.data() + c.first, gpus.data() + start, sizeof(std::uint64_t) * n_) == 0;
        if (seen) {
          (void)gpus.resize(start);
          continue;
        }
        const Pick how = !partial_pick ? Pick::whole : spread ? Pick::spread : Pick::packed;
        if (!out.push_back(RawCandidate{a.strategy, a.detail, how, 0, start})) return oom();
      }
    }
    return {};
  }

  const CatalogView* cat_ = nullptr;
  const FreeSet* free_ = nullptr;
  std::uint32_t n_ = 0;
  PodBuffer<Alloc> allocs_;
  PodBuffer<NodeTake> takes_;
  PodBuffer<std::uint32_t> all_, order_, rest_, used_, taken_, group_;
  PodBuffer<std::size_t> group_first_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
