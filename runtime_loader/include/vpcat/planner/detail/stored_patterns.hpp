// The local patterns the planner works with, per node type of its
// SubsetLayout, in the compact roles of pattern_table.hpp: for a catalog
// type, the catalog's orbit representatives, their orbit sizes and the
// type's generators, copied at init (the catalog may go away); for a
// derived type (a partial node), the same derived from them by
// pattern_restriction.hpp. Read by the cluster model (NIC preferences) and
// the replay (pattern tables).
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/catalog_view.hpp"
#include "vpcat/format.hpp"
#include "vpcat/planner/buffer.hpp"
#include "vpcat/planner/detail/pattern_restriction.hpp"
#include "vpcat/planner/detail/subset_layout.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class StoredPatterns {
 public:
  struct Type {
    std::uint32_t gpus = 0, nics = 0, reps = 0, generators = 0;
    std::size_t rep_first = 0;    // reps x 2 gpus roles in roles()
    std::size_t orbit_first = 0;  // reps orbit sizes
    std::size_t gen_first = 0;    // generators x (gpus + nics) images in perms()
    bool derived = false;         // restricted from its catalog type
    bool truncated = false;       // derived, with the restriction's bounds reached
    std::uint64_t group_order = 0;  // derived: |Stab(held GPUs)| acting on them and the NICs; 0 = the catalog's
  };

  // The catalog's types, then the layout's derived ones. False only when
  // memory is short.
  bool copy(const CatalogView& cat, const SubsetLayout& layout) noexcept {
    types_.clear();
    roles_.clear();
    orbits_.clear();
    perms_.clear();
    if (!types_.resize(layout.type_count())) return false;
    for (std::uint32_t t = 0; t < cat.node_type_count(); ++t)
      if (!copy_type(cat.node_type(t), types_[t])) return false;
    PatternRestriction restriction;
    for (std::uint32_t t = cat.node_type_count(); t < layout.type_count(); ++t)
      if (!derive(layout, layout.type(t), restriction, types_[t])) return false;
    return true;
  }
  std::uint32_t type_count() const noexcept { return static_cast<std::uint32_t>(types_.size()); }
  const Type& type(std::uint32_t t) const noexcept { return types_[t]; }
  // Send roles of representative r (its receive roles follow them).
  const std::int16_t* rep(const Type& t, std::uint32_t r) const noexcept {
    return roles_.data() + t.rep_first + std::size_t{r} * 2 * t.gpus;
  }
  std::uint64_t orbit_size(const Type& t, std::uint32_t r) const noexcept { return orbits_[t.orbit_first + r]; }
  // Generator p: images of the local GPUs, then of the local NICs.
  const std::uint16_t* generator(const Type& t, std::uint32_t p) const noexcept {
    return perms_.data() + t.gen_first + std::size_t{p} * (t.gpus + t.nics);
  }

 private:
  bool copy_type(const NodeTypeView& nt, Type& out) noexcept {
    out = Type();
    out.gpus = nt.gpu_count();
    out.nics = nt.nic_count();
    out.rep_first = roles_.size();
    out.orbit_first = orbits_.size();
    out.gen_first = perms_.size();
    const std::uint32_t G = out.gpus, K = out.nics;
    if (G == 0 || G > 64 || K > 64 || nt.pattern_count() == 0) return true;
    for (std::uint32_t p = 0; p < nt.generator_count(); ++p) {
      const GeneratorView gen = nt.generator(p);
      for (std::uint32_t g = 0; g < G; ++g) {
        const std::uint32_t x = gen.image(nt.gpu(g)) - nt.first_gpu();
        if (x >= G) return drop(out);  // not kind-preserving (a verified catalog's are): no patterns
        if (!perms_.push_back(static_cast<std::uint16_t>(x))) return false;
      }
      for (std::uint32_t k = 0; k < K; ++k) {
        const std::uint32_t x = gen.image(nt.nic(k)) - nt.nic(0);
        if (x >= K) return drop(out);
        if (!perms_.push_back(static_cast<std::uint16_t>(x))) return false;
      }
      ++out.generators;
    }
    auto compact = [&](std::int32_t role) -> std::int16_t {
      if (role >= kNicBase && static_cast<std::uint32_t>(role - kNicBase) < K)
        return static_cast<std::int16_t>(G + static_cast<std::uint32_t>(role - kNicBase));
      if (role >= 0 && static_cast<std::uint32_t>(role) < G) return static_cast<std::int16_t>(role);
      return -1;
    };
    for (std::uint32_t r = 0; r < nt.pattern_count(); ++r) {
      const PatternView pv = nt.pattern(r);
      for (std::uint32_t g = 0; g < G; ++g)
        if (!roles_.push_back(compact(pv.send(g)))) return false;
      for (std::uint32_t g = 0; g < G; ++g)
        if (!roles_.push_back(compact(pv.recv(g)))) return false;
      if (!orbits_.push_back(pv.orbit_size())) return false;
      ++out.reps;
    }
    return true;
  }
  bool drop(Type& out) noexcept {
    perms_.resize(out.gen_first);
    out.generators = out.reps = 0;
    return true;
  }

  // A derived type from its (already copied) catalog type.
  bool derive(const SubsetLayout& layout, const SubsetLayout::Type& lt, PatternRestriction& restriction,
              Type& out) noexcept {
    const Type& base = types_[lt.catalog_type];
    out = Type();
    out.gpus = lt.gpus;
    out.nics = base.nics;
    out.derived = true;
    // Copy the base's data out first: the buffers grow below.
    PodBuffer<std::int16_t> roles;
    PodBuffer<std::uint64_t> orbits;
    PodBuffer<std::uint16_t> perms;
    const std::size_t W = 2 * std::size_t{base.gpus}, P = std::size_t{base.gpus} + base.nics;
    if (!roles.resize(base.reps * W) || !orbits.resize(base.reps) || !perms.resize(base.generators * P)) return false;
    for (std::size_t i = 0; i < base.reps * W; ++i) roles[i] = roles_[base.rep_first + i];
    for (std::size_t i = 0; i < base.reps; ++i) orbits[i] = orbits_[base.orbit_first + i];
    for (std::size_t i = 0; i < base.generators * P; ++i) perms[i] = perms_[base.gen_first + i];
    CompactPatterns in;
    in.gpus = base.gpus, in.nics = base.nics, in.reps = base.reps, in.generators = base.generators;
    in.roles = roles.data(), in.orbits = orbits.data(), in.perms = perms.data();
    out.rep_first = roles_.size();
    out.orbit_first = orbits_.size();
    out.gen_first = perms_.size();
    return restriction.run(in, layout.held(lt), lt.gpus, roles_, orbits_, perms_, out.reps, out.generators,
                           out.group_order, out.truncated);
  }

  PodBuffer<Type> types_;
  PodBuffer<std::int16_t> roles_;
  PodBuffer<std::uint64_t> orbits_;
  PodBuffer<std::uint16_t> perms_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
