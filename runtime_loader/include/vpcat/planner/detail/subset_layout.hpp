// The cluster a Planner plans over, as node types and nodes: the catalog's
// own, or a subset's (subset.hpp). A subset node that holds every GPU of its
// type in local order keeps the catalog's type (index = catalog type index,
// so that a whole-cluster planner sees exactly the catalog); a partial node
// gets a *derived* type (appended after the catalog's), one per catalog
// type and held GPU list, shared by every node holding the same list.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/status.hpp"
#include "vpcat/subset.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class SubsetLayout {
 public:
  struct Type {
    std::uint32_t catalog_type = 0;
    std::uint32_t held_first = 0;  // into held(): the catalog-local GPU of each derived-local GPU
    std::uint32_t gpus = 0;        // GPUs held
    bool whole = true;             // every GPU of the catalog type, in local order
  };
  struct Node {
    std::uint32_t catalog_node = 0;
    std::uint32_t type = 0;  // into type()
  };

  PlanStatus build(const CatalogView& cat, const Subset& subset) noexcept {
    types_.clear();
    nodes_.clear();
    held_.clear();
    if (subset.empty()) return PlanStatus::at(PlanError::bad_subset, "subset", "no GPU given");
    for (std::uint32_t t = 0; t < cat.node_type_count(); ++t) {
      Type e;
      e.catalog_type = t;
      e.held_first = static_cast<std::uint32_t>(held_.size());
      e.gpus = cat.node_type(t).gpu_count();
      if (!types_.push_back(e)) return oom();
      for (std::uint32_t g = 0; g < e.gpus; ++g)
        if (!held_.push_back(static_cast<std::uint16_t>(g))) return oom();
    }
    if (!nodes_.resize(subset.node_count())) return oom();
    for (std::uint32_t i = 0; i < subset.node_count(); ++i) {
      const Subset::Node& sn = subset.node(i);
      const std::uint32_t ct = cat.node(sn.node).node_type;
      nodes_[i].catalog_node = sn.node;
      nodes_[i].type = find_or_add(ct, sn, subset);
      if (nodes_[i].type == kNone) return oom();
    }
    return {};
  }

  std::uint32_t type_count() const noexcept { return static_cast<std::uint32_t>(types_.size()); }
  const Type& type(std::uint32_t t) const noexcept { return types_[t]; }
  std::uint32_t node_count() const noexcept { return static_cast<std::uint32_t>(nodes_.size()); }
  const Node& node(std::uint32_t n) const noexcept { return nodes_[n]; }
  // Catalog-local GPU indexes of a type's GPUs, in derived-local order.
  const std::uint16_t* held(const Type& t) const noexcept { return held_.data() + t.held_first; }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static PlanStatus oom() noexcept { return PlanStatus::at(PlanError::out_of_memory, "planner", "laying out the subset"); }

  // The type of a node of catalog type ct holding sn's GPUs.
  std::uint32_t find_or_add(std::uint32_t ct, const Subset::Node& sn, const Subset& subset) noexcept {
    const Type& base = types_[ct];
    bool whole = sn.count == base.gpus;
    for (std::uint32_t g = 0; g < sn.count && whole; ++g) whole = subset.local_gpu(sn.first_rank + g) == g;
    if (whole) return ct;
    for (std::size_t t = 0; t < types_.size(); ++t) {
      const Type& e = types_[t];
      if (e.whole || e.catalog_type != ct || e.gpus != sn.count) continue;
      bool same = true;
      for (std::uint32_t g = 0; g < sn.count && same; ++g)
        same = held_[e.held_first + g] == subset.local_gpu(sn.first_rank + g);
      if (same) return static_cast<std::uint32_t>(t);
    }
    Type e;
    e.catalog_type = ct;
    e.held_first = static_cast<std::uint32_t>(held_.size());
    e.gpus = sn.count;
    e.whole = false;
    if (!types_.push_back(e)) return kNone;
    for (std::uint32_t g = 0; g < sn.count; ++g)
      if (!held_.push_back(static_cast<std::uint16_t>(subset.local_gpu(sn.first_rank + g)))) return kNone;
    return static_cast<std::uint32_t>(types_.size() - 1);
  }

  PodBuffer<Type> types_;
  PodBuffer<Node> nodes_;
  PodBuffer<std::uint16_t> held_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
