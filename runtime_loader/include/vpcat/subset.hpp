// The GPUs a job holds in a catalog's cluster (docs/subsets.md): some of
// its nodes and, per node, some of its GPUs. A Planner initialised with a
// subset (Planner::init(view, subset)) plans demands over these GPUs only,
// numbered 0..gpu_count()-1 in subset order ("ranks"): the nodes in the
// order they were added, and inside a node its GPUs in the order given.
// catalog_gpu(rank) maps a rank back to the catalog's global GPU index.
//
//   vpcat::Subset job;
//   const std::uint32_t mine[] = {0, 1, 4};
//   job.add_node(view, 3, mine, 3);       // node 3: local GPUs 0, 1, 4
//   job.add_node(view, 7, nullptr, 0);    // node 7: all of its GPUs
//   planner.init(view, job);              // demands are 3 + 8 GPUs wide
//
// Rules, each a PlanError::bad_subset naming the entry: a node index below
// the catalog's node count, a local GPU below the node's GPU count, no node
// twice, no GPU twice, at least one GPU. A rejected add_node() leaves the
// subset as it was. Nothing here throws; memory comes from PodBuffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {

class Subset {
 public:
  // GPUs per node a subset can name (the planner's own limit is lower:
  // docs/planner.md "Limits").
  static constexpr std::uint32_t kMaxNodeGpus = 256;

  struct Node {
    std::uint32_t node = 0;        // catalog node index
    std::uint32_t first_rank = 0;  // subset rank of its first held GPU
    std::uint32_t count = 0;       // GPUs held
  };

  Subset() noexcept = default;
  Subset(Subset&&) noexcept = default;
  Subset& operator=(Subset&&) noexcept = default;
  Subset(const Subset&) = delete;
  Subset& operator=(const Subset&) = delete;

  void clear() noexcept {
    nodes_.clear();
    local_.clear();
    first_gpu_.clear();
    for (std::size_t i = 0; i < held_.size(); ++i) held_[i] = 0;
  }

  // Append catalog node `node` holding `count` of its local GPUs
  // (`local_gpus`, in rank order); local_gpus == nullptr holds all of them,
  // in local order (count is then ignored).
  PlanStatus add_node(const CatalogView& cat, std::uint32_t node, const std::uint32_t* local_gpus,
                      std::uint32_t count) noexcept {
    if (node >= cat.node_count())
      return PlanStatus::at(PlanError::bad_subset, "subset", "node %u, the catalog has %u nodes", node, cat.node_count());
    if (held_.size() * 64 < cat.node_count() && !held_.append((cat.node_count() + 63) / 64 - held_.size(), 0))
      return PlanStatus::at(PlanError::out_of_memory, "subset", "adding a node");
    if (held_[node / 64] >> (node % 64) & 1u)
      return PlanStatus::at(PlanError::bad_subset, "subset", "node %u is listed twice (give its GPUs together)", node);
    const NodeRef ref = cat.node(node);
    const std::uint32_t gpus = cat.node_type(ref.node_type).gpu_count();
    if (gpus > kMaxNodeGpus)
      return PlanStatus::at(PlanError::bad_subset, "subset", "node %u has %u GPUs, a subset holds at most %u per node",
                            node, gpus, kMaxNodeGpus);
    if (local_gpus == nullptr) count = gpus;
    if (count == 0) return PlanStatus::at(PlanError::bad_subset, "subset", "node %u: no GPU given", node);
    if (count > gpus)
      return PlanStatus::at(PlanError::bad_subset, "subset", "node %u: %u GPUs given, it has %u", node, count, gpus);
    std::uint64_t seen[kMaxNodeGpus / 64] = {};
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t g = local_gpus == nullptr ? i : local_gpus[i];
      if (g >= gpus)
        return PlanStatus::at(PlanError::bad_subset, "subset", "node %u: local GPU %u, the node has %u", node, g, gpus);
      if (seen[g / 64] >> (g % 64) & 1u)
        return PlanStatus::at(PlanError::bad_subset, "subset", "node %u: local GPU %u is listed twice", node, g);
      seen[g / 64] |= std::uint64_t{1} << (g % 64);
    }
    const std::size_t old_nodes = nodes_.size(), old_local = local_.size();
    Node n;
    n.node = node;
    n.first_rank = static_cast<std::uint32_t>(old_local);
    n.count = count;
    if (!nodes_.reserve(old_nodes + 1) || !first_gpu_.reserve(old_nodes + 1) || !local_.reserve(old_local + count))
      return PlanStatus::at(PlanError::out_of_memory, "subset", "adding a node");
    nodes_.push_back(n);  // reserved: cannot fail
    first_gpu_.push_back(ref.first_gpu);
    for (std::uint32_t i = 0; i < count; ++i)
      local_.push_back(static_cast<std::uint16_t>(local_gpus == nullptr ? i : local_gpus[i]));
    held_[node / 64] |= std::uint64_t{1} << (node % 64);
    return {};
  }

  // Every GPU of every node, in catalog order (the whole cluster).
  PlanStatus assign_all(const CatalogView& cat) noexcept {
    clear();
    for (std::uint32_t n = 0; n < cat.node_count(); ++n)
      if (PlanStatus s = add_node(cat, n, nullptr, 0); !s.ok()) return s;
    return {};
  }

  // The GPUs with these catalog-wide indexes, ranks in this order; the GPUs
  // of one node must be consecutive in the list.
  PlanStatus assign_gpus(const CatalogView& cat, const std::uint64_t* gpus, std::size_t count) noexcept {
    clear();
    if (count == 0) return PlanStatus::at(PlanError::bad_subset, "subset", "no GPU given");
    std::uint32_t local[kMaxNodeGpus];
    std::size_t i = 0;
    while (i < count) {
      if (gpus[i] >= cat.gpu_count()) {
        const unsigned long long g = gpus[i], total = cat.gpu_count();
        clear();
        return PlanStatus::at(PlanError::bad_subset, "subset", "GPU %llu, the catalog has %llu", g, total);
      }
      std::uint32_t node = 0, g = 0, k = 0;
      cat.locate_gpu(gpus[i], &node, &g);
      const NodeRef ref = cat.node(node);
      const std::uint64_t end = ref.first_gpu + cat.node_type(ref.node_type).gpu_count();
      for (; i < count && gpus[i] >= ref.first_gpu && gpus[i] < end && k < kMaxNodeGpus; ++i)
        local[k++] = static_cast<std::uint32_t>(gpus[i] - ref.first_gpu);
      if (PlanStatus s = add_node(cat, node, local, k); !s.ok()) {
        clear();
        return s;
      }
    }
    return {};
  }

  std::uint32_t node_count() const noexcept { return static_cast<std::uint32_t>(nodes_.size()); }
  std::uint32_t gpu_count() const noexcept { return static_cast<std::uint32_t>(local_.size()); }
  bool empty() const noexcept { return local_.empty(); }
  const Node& node(std::uint32_t i) const noexcept { return nodes_[i]; }  // i < node_count()
  // Local index, in its node, of the GPU of rank r (r < gpu_count()).
  std::uint32_t local_gpu(std::uint32_t r) const noexcept { return local_[r]; }
  // Catalog-wide index of the GPU of rank r (r < gpu_count()).
  std::uint64_t catalog_gpu(std::uint32_t r) const noexcept {
    std::uint32_t lo = 0, hi = node_count();  // last node with first_rank <= r
    while (hi - lo > 1) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (nodes_[mid].first_rank <= r) lo = mid;
      else hi = mid;
    }
    return first_gpu_[lo] + local_[r];
  }
  // Is it every GPU of `cat`, in catalog order?
  bool is_whole(const CatalogView& cat) const noexcept {
    if (gpu_count() != cat.gpu_count()) return false;
    for (std::uint32_t r = 0; r < gpu_count(); ++r)
      if (catalog_gpu(r) != r) return false;
    return true;
  }

  // Copy `o` into this subset; false when memory is short.
  bool copy_from(const Subset& o) noexcept {
    if (!nodes_.resize(o.nodes_.size()) || !local_.resize(o.local_.size()) ||
        !first_gpu_.resize(o.first_gpu_.size()) || !held_.resize(o.held_.size()))
      return false;
    for (std::size_t i = 0; i < o.nodes_.size(); ++i) nodes_[i] = o.nodes_[i], first_gpu_[i] = o.first_gpu_[i];
    for (std::size_t i = 0; i < o.local_.size(); ++i) local_[i] = o.local_[i];
    for (std::size_t i = 0; i < o.held_.size(); ++i) held_[i] = o.held_[i];
    return true;
  }

 private:
  detail::PodBuffer<Node> nodes_;
  detail::PodBuffer<std::uint16_t> local_;          // per rank: its local GPU index
  detail::PodBuffer<std::uint64_t> first_gpu_;      // per node: the catalog index of its local GPU 0
  detail::PodBuffer<std::uint64_t> held_;           // bit n: catalog node n is in the subset
};

}  // namespace v0_1
}  // namespace vpcat
