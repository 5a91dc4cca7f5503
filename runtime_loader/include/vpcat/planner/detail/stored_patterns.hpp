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
#include "vpcat/derived_patterns.hpp"
#include "vpcat/format.hpp"
#include "vpcat/planner/detail/buffer.hpp"
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

  // The catalog's types, then the layout's derived ones (taken from `kept`
  // when it has them, and kept there when derived; may be null). False only
  // when memory is short.
  bool copy(const CatalogView& cat, const SubsetLayout& layout, DerivedPatterns* kept = nullptr) noexcept {
    types_.clear();
    canon_.clear();
    roles_.clear();
    orbits_.clear();
    perms_.clear();
    restrictions_run_ = 0;
    if (!types_.resize(layout.type_count())) return false;
    for (std::uint32_t t = 0; t < cat.node_type_count(); ++t)
      if (!copy_type(cat.node_type(t), types_[t])) return false;
    PatternRestriction restriction;
    for (std::uint32_t t = cat.node_type_count(); t < layout.type_count(); ++t)
      if (!derive(cat, layout, layout.type(t), restriction, kept, types_[t])) return false;
    return true;
  }
  // Restrictions run by the last copy(): canonical held sets neither seen
  // before in it nor taken from `kept`. For tests and benchmarks.
  std::uint32_t restrictions_run() const noexcept { return restrictions_run_; }
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
  struct Canon {
    std::uint32_t catalog_type = 0;
    std::uint64_t mask = 0;  // the canonical held set
    Type type;               // its patterns, canonical-local GPUs in increasing order
  };

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

  // A derived type from its (already copied) catalog type: the patterns
  // of the canonical form of its held set (computed once per catalog type
  // and canonical set, kept in canon_), relabelled onto its own GPUs.
  bool derive(const CatalogView& cat, const SubsetLayout& layout, const SubsetLayout::Type& lt,
              PatternRestriction& restriction, DerivedPatterns* kept, Type& out) noexcept {
    const Type base = types_[lt.catalog_type];
    out = Type();
    out.gpus = lt.gpus;
    out.nics = base.nics;
    out.derived = true;
    CompactPatterns in;
    if (!compact(base, in)) return false;
    std::uint64_t canon = 0;
    PodBuffer<std::uint16_t> t;
    bool truncated = false;
    if (!restriction.canonical(in, layout.held(lt), lt.gpus, &canon, t, truncated)) return false;
    if (canon == 0) return true;  // nothing to restrict
    // The canonical set's patterns: the catalog type's own when it is every GPU.
    const std::uint64_t all = base.gpus == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << base.gpus) - 1;
    std::uint32_t c = 0;
    while (c < canon_.size() && !(canon_[c].catalog_type == lt.catalog_type && canon_[c].mask == canon)) ++c;
    if (c == canon_.size()) {
      Canon e;
      e.catalog_type = lt.catalog_type;
      e.mask = canon;
      if (canon == all) {
        e.type = base;
      } else if (kept != nullptr && take(cat, *kept, lt.catalog_type, canon, e.type)) {
        if (!e.type.derived) return false;  // memory short while copying
      } else {
        std::uint16_t held[64];
        std::uint32_t m = 0;
        for (std::uint64_t b = canon; b != 0; b &= b - 1) held[m++] = static_cast<std::uint16_t>(ctz(b));
        e.type = Type();
        e.type.gpus = m;
        e.type.nics = base.nics;
        e.type.derived = true;
        e.type.rep_first = roles_.size();
        e.type.orbit_first = orbits_.size();
        e.type.gen_first = perms_.size();
        if (!restriction.run(in, held, m, roles_, orbits_, perms_, e.type.reps, e.type.generators,
                             e.type.group_order, e.type.truncated))
          return false;
        e.type.truncated = e.type.truncated || truncated;
        ++restrictions_run_;
        if (kept != nullptr) keep(cat, *kept, lt.catalog_type, canon, e.type);
      }
      if (!canon_.push_back(e)) return false;
    }
    return relabel(canon_[c], t.data(), layout.held(lt), out);
  }

  // The kept derivation of (catalog type ct, canonical set mask) copied into
  // out (out.derived false if memory was short); false when not kept.
  bool take(const CatalogView& cat, const DerivedPatterns& kept, std::uint32_t ct, std::uint64_t mask,
            Type& out) noexcept {
    return kept.find(cat, ct, mask, [&](const DerivedPatterns::Entry& k) {
      out = Type();
      out.gpus = k.gpus, out.nics = k.nics, out.reps = k.reps, out.generators = k.generators;
      out.group_order = k.group_order, out.truncated = k.truncated;
      out.rep_first = roles_.size(), out.orbit_first = orbits_.size(), out.gen_first = perms_.size();
      const std::size_t nroles = std::size_t{k.reps} * 2 * k.gpus;
      const std::size_t nperms = std::size_t{k.generators} * (std::size_t{k.gpus} + k.nics);
      if (!roles_.resize(out.rep_first + nroles) || !orbits_.resize(out.orbit_first + k.reps) ||
          !perms_.resize(out.gen_first + nperms))
        return;
      for (std::size_t i = 0; i < nroles; ++i) roles_[out.rep_first + i] = k.roles[i];
      for (std::size_t i = 0; i < k.reps; ++i) orbits_[out.orbit_first + i] = k.orbits[i];
      for (std::size_t i = 0; i < nperms; ++i) perms_[out.gen_first + i] = k.perms[i];
      out.derived = true;
    });
  }
  void keep(const CatalogView& cat, DerivedPatterns& kept, std::uint32_t ct, std::uint64_t mask,
            const Type& t) const noexcept {
    DerivedPatterns::Entry k;
    k.catalog_type = ct, k.gpus = t.gpus, k.nics = t.nics, k.reps = t.reps, k.generators = t.generators;
    k.mask = mask, k.group_order = t.group_order, k.truncated = t.truncated;
    k.roles = roles_.data() + t.rep_first;
    k.orbits = orbits_.data() + t.orbit_first;
    k.perms = perms_.data() + t.gen_first;
    kept.insert(cat, k);
  }

  // `out` from canonical entry e: canonical-local GPU i (the i-th lowest
  // GPU of e.mask) becomes the derived-local index of catalog GPU t(that
  // GPU); NIC k becomes t(NIC k). Roles are mapped and moved, generators
  // conjugated.
  bool relabel(const Canon& e, const std::uint16_t* t, const std::uint16_t* held, Type& out) noexcept {
    const Type& src = e.type;
    const std::uint32_t m = src.gpus, K = src.nics, G = types_[e.catalog_type].gpus;
    std::int16_t pos[64];
    for (std::uint32_t g = 0; g < G; ++g) pos[g] = -1;
    for (std::uint32_t g = 0; g < m; ++g) pos[held[g]] = static_cast<std::int16_t>(g);
    std::uint16_t gpu_map[64], nic_map[64];
    std::uint32_t i = 0;
    for (std::uint64_t b = e.mask; b != 0; b &= b - 1) gpu_map[i++] = static_cast<std::uint16_t>(pos[t[ctz(b)]]);
    for (std::uint32_t k = 0; k < K; ++k) nic_map[k] = static_cast<std::uint16_t>(t[G + k] - G);
    auto role = [&](std::int16_t r) -> std::int16_t {
      if (r < 0) return r;
      const std::uint32_t x = static_cast<std::uint32_t>(r);
      return static_cast<std::int16_t>(x < m ? gpu_map[x] : m + nic_map[x - m]);
    };
    out.reps = src.reps;
    out.generators = src.generators;
    out.group_order = src.group_order;
    out.truncated = src.truncated;
    out.rep_first = roles_.size();
    out.orbit_first = orbits_.size();
    out.gen_first = perms_.size();
    if (!roles_.append(std::size_t{src.reps} * 2 * m, -1) || !orbits_.resize(orbits_.size() + src.reps) ||
        !perms_.resize(perms_.size() + std::size_t{src.generators} * (m + K)))
      return false;
    for (std::uint32_t r = 0; r < src.reps; ++r) {
      const std::int16_t* x = roles_.data() + src.rep_first + std::size_t{r} * 2 * m;
      std::int16_t* y = roles_.data() + out.rep_first + std::size_t{r} * 2 * m;
      for (std::uint32_t g = 0; g < m; ++g) {
        y[gpu_map[g]] = role(x[g]);
        y[m + gpu_map[g]] = role(x[m + g]);
      }
      orbits_[out.orbit_first + r] = orbits_[src.orbit_first + r];
    }
    for (std::uint32_t p = 0; p < src.generators; ++p) {
      const std::uint16_t* x = perms_.data() + src.gen_first + std::size_t{p} * (m + K);
      std::uint16_t* y = perms_.data() + out.gen_first + std::size_t{p} * (m + K);
      for (std::uint32_t g = 0; g < m; ++g) y[gpu_map[g]] = gpu_map[x[g]];
      for (std::uint32_t k = 0; k < K; ++k) y[m + nic_map[k]] = nic_map[x[m + k]];
    }
    return true;
  }

  // A copied type as the restriction reads it (pointers into this object's
  // buffers: valid until they grow, so copied out first).
  bool compact(const Type& base, CompactPatterns& in) noexcept {
    const std::size_t W = 2 * std::size_t{base.gpus}, P = std::size_t{base.gpus} + base.nics;
    if (!src_roles_.resize(base.reps * W) || !src_orbits_.resize(base.reps) || !src_perms_.resize(base.generators * P))
      return false;
    for (std::size_t i = 0; i < base.reps * W; ++i) src_roles_[i] = roles_[base.rep_first + i];
    for (std::size_t i = 0; i < base.reps; ++i) src_orbits_[i] = orbits_[base.orbit_first + i];
    for (std::size_t i = 0; i < base.generators * P; ++i) src_perms_[i] = perms_[base.gen_first + i];
    in.gpus = base.gpus, in.nics = base.nics, in.reps = base.reps, in.generators = base.generators;
    in.roles = src_roles_.data(), in.orbits = src_orbits_.data(), in.perms = src_perms_.data();
    return true;
  }
  static std::uint32_t ctz(std::uint64_t b) noexcept {
    std::uint32_t k = 0;
    while (!(b >> k & 1u)) ++k;
    return k;
  }

  std::uint32_t restrictions_run_ = 0;
  PodBuffer<Type> types_;
  PodBuffer<Canon> canon_;
  PodBuffer<std::int16_t> src_roles_;
  PodBuffer<std::uint64_t> src_orbits_;
  PodBuffer<std::uint16_t> src_perms_;
  PodBuffer<std::int16_t> roles_;
  PodBuffer<std::uint64_t> orbits_;
  PodBuffer<std::uint16_t> perms_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
