// A permutation group on a few points (a node type's GPUs and NICs), held
// as a stabilizer chain built by the deterministic Schreier-Sims algorithm
// (Holt, Eick and O'Brien, Handbook of Computational Group Theory, §4.4):
// membership in O(levels x points), the order, and a small generating set
// (every generator add() accepted enlarged the group, so there are at most
// log2 |G| of them). subset_restriction.hpp uses it to collect the
// stabilizer of a set of GPUs from its Schreier generators without keeping
// the redundant ones.
//
// Conventions: a permutation is the array of its images, p[x]; "a then b"
// is the permutation x -> b[a[x]]. The transversal element u_x of a level
// maps the level's base point to x.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class PermGroup {
 public:
  static constexpr std::uint32_t kMaxPoints = 256;

  // The trivial group on n points; false when n is out of range or memory short.
  bool reset(std::uint32_t n) noexcept {
    n_ = n;
    perms_.clear();
    strong_.clear();
    depth_.clear();
    accepted_.clear();
    base_.clear();
    trans_.clear();
    orbit_.clear();
    if (n == 0 || n > kMaxPoints) return false;
    return scratch_.resize(4 * std::size_t{n});
  }
  std::uint32_t points() const noexcept { return n_; }

  // Is g (n images) an element?
  bool contains(const std::uint16_t* g) noexcept {
    std::uint16_t* h = tmp(0);
    copy(g, h);
    return sift(h, 0) == kIdentity;
  }

  // Add g to the generators; false only when memory is short. An element
  // already in the group changes nothing.
  bool add(const std::uint16_t* g) noexcept {
    std::uint16_t* h = tmp(0);
    copy(g, h);
    const std::uint32_t j = sift(h, 0);
    if (j == kIdentity) return true;
    std::uint32_t at = 0;
    if (!store(g, at) || !accepted_.push_back(at)) return false;
    // The chain must hold g itself (not only its residue) for the
    // completion below to see every Schreier generator.
    std::uint32_t d = 0;
    while (d < base_.size() && g[base_[d]] == base_[d]) ++d;
    if (!insert(at, d)) return false;
    return complete(d < base_.size() ? d : static_cast<std::uint32_t>(base_.size()) - 1);
  }

  // The accepted generators (each enlarged the group when added).
  std::uint32_t generator_count() const noexcept { return static_cast<std::uint32_t>(accepted_.size()); }
  const std::uint16_t* generator(std::uint32_t i) const noexcept { return perm(accepted_[i]); }

  // |G|, saturated at 2^64 - 1.
  std::uint64_t order() const noexcept {
    std::uint64_t o = 1;
    for (std::size_t l = 0; l < base_.size(); ++l) {
      const std::uint64_t k = orbit_size(static_cast<std::uint32_t>(l));
      if (o > ~std::uint64_t{0} / k) return ~std::uint64_t{0};
      o *= k;
    }
    return o;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static constexpr std::uint32_t kIdentity = 0xFFFFFFFEu;

  std::uint16_t* tmp(std::uint32_t k) noexcept { return scratch_.data() + std::size_t{k} * n_; }
  const std::uint16_t* perm(std::uint32_t i) const noexcept { return perms_.data() + std::size_t{i} * n_; }
  void copy(const std::uint16_t* a, std::uint16_t* b) const noexcept {
    for (std::uint32_t x = 0; x < n_; ++x) b[x] = a[x];
  }
  bool store(const std::uint16_t* p, std::uint32_t& at) noexcept {
    at = static_cast<std::uint32_t>(perms_.size() / n_);
    if (!perms_.append(n_, 0)) return false;
    copy(p, perms_.data() + std::size_t{at} * n_);
    return true;
  }
  std::uint32_t orbit_size(std::uint32_t l) const noexcept { return orbit_[std::size_t{l} * (n_ + 1)]; }
  const std::uint32_t* trans(std::uint32_t l) const noexcept { return trans_.data() + std::size_t{l} * n_; }

  // Strip h through levels from..: the level where it leaves the chain, or
  // kIdentity when it sifts to the identity (h is left as the residue).
  std::uint32_t sift(std::uint16_t* h, std::uint32_t from) noexcept {
    std::uint16_t* inv = tmp(1);
    for (std::uint32_t l = from; l < base_.size(); ++l) {
      const std::uint32_t u = trans(l)[h[base_[l]]];
      if (u == kNone) return l;
      const std::uint16_t* up = perm(u);
      for (std::uint32_t x = 0; x < n_; ++x) inv[up[x]] = static_cast<std::uint16_t>(x);
      for (std::uint32_t x = 0; x < n_; ++x) h[x] = inv[h[x]];  // h then u^-1
    }
    for (std::uint32_t x = 0; x < n_; ++x)
      if (h[x] != x) return static_cast<std::uint32_t>(base_.size());
    return kIdentity;
  }

  // Record stored permutation `at` as a strong generator fixing the first
  // `d` base points, extending the base when it fixes all of them.
  bool insert(std::uint32_t at, std::uint32_t d) noexcept {
    if (d == base_.size()) {
      const std::uint16_t* p = perm(at);
      std::uint32_t moved = 0;
      while (p[moved] == moved) ++moved;  // p is not the identity
      if (!base_.push_back(static_cast<std::uint16_t>(moved)) || !trans_.append(n_, kNone) ||
          !orbit_.append(n_ + 1, 0))
        return false;
      if (!rebuild_orbit(d)) return false;
    }
    return strong_.push_back(at) && depth_.push_back(d);
  }

  // Orbit of base point l under the strong generators fixing the points
  // before it, with its transversal (breadth first).
  bool rebuild_orbit(std::uint32_t l) noexcept {
    std::uint32_t* tr = trans_.data() + std::size_t{l} * n_;
    std::uint32_t* orb = orbit_.data() + std::size_t{l} * (n_ + 1);  // [0] = size, then the points
    for (std::uint32_t x = 0; x < n_; ++x) tr[x] = kNone;
    const std::uint16_t b = base_[l];
    std::uint16_t* id = tmp(2);
    for (std::uint32_t x = 0; x < n_; ++x) id[x] = static_cast<std::uint16_t>(x);
    std::uint32_t at = 0;
    if (!store(id, at)) return false;
    tr = trans_.data() + std::size_t{l} * n_;
    orb = orbit_.data() + std::size_t{l} * (n_ + 1);
    tr[b] = at;
    orb[0] = 1;
    orb[1] = b;
    for (std::uint32_t i = 1; i <= orb[0]; ++i) {
      const std::uint32_t y = orb[i];
      for (std::size_t s = 0; s < strong_.size(); ++s) {
        if (depth_[s] < l) continue;
        const std::uint16_t* sp = perm(strong_[s]);
        const std::uint32_t z = sp[y];
        if (tr[z] != kNone) continue;
        const std::uint16_t* uy = perm(tr[y]);
        std::uint16_t* uz = tmp(2);
        for (std::uint32_t x = 0; x < n_; ++x) uz[x] = sp[uy[x]];  // u_y then s
        if (!store(uz, at)) return false;
        tr = trans_.data() + std::size_t{l} * n_;
        orb = orbit_.data() + std::size_t{l} * (n_ + 1);
        tr[z] = at;
        orb[++orb[0]] = z;
      }
    }
    return true;
  }

  // Make the chain a base and strong generating set again after a strong
  // generator was added at levels <= top (Handbook §4.4.2, SCHREIERSIMS):
  // every Schreier generator of a level sifts through the levels below it.
  bool complete(std::uint32_t top) noexcept {
    std::int64_t l = top;
    while (l >= 0) {
      const std::uint32_t lv = static_cast<std::uint32_t>(l);
      if (!rebuild_orbit(lv)) return false;
      bool closed = true;
      const std::uint32_t size = orbit_size(lv);
      for (std::uint32_t i = 0; i < size && closed; ++i) {
        const std::uint32_t x = orbit_[std::size_t{lv} * (n_ + 1) + 1 + i];
        for (std::size_t s = 0; s < strong_.size() && closed; ++s) {
          if (depth_[s] < lv) continue;
          const std::uint16_t* sp = perm(strong_[s]);
          const std::uint16_t* ux = perm(trans(lv)[x]);
          const std::uint16_t* uz = perm(trans(lv)[sp[x]]);
          std::uint16_t* inv = tmp(3);
          for (std::uint32_t y = 0; y < n_; ++y) inv[uz[y]] = static_cast<std::uint16_t>(y);
          std::uint16_t* h = tmp(0);
          for (std::uint32_t y = 0; y < n_; ++y) h[y] = inv[sp[ux[y]]];  // u_x then s then u_z^-1
          const std::uint32_t j = sift(h, lv + 1);
          if (j == kIdentity) continue;
          std::uint32_t at = 0;
          if (!store(h, at) || !insert(at, j)) return false;
          closed = false;
          l = j < base_.size() ? j : static_cast<std::int64_t>(base_.size()) - 1;
        }
      }
      if (closed) --l;
    }
    return true;
  }

  std::uint32_t n_ = 0;
  PodBuffer<std::uint16_t> perms_;     // every stored permutation, n_ images each
  PodBuffer<std::uint32_t> strong_;    // strong generators (into perms_)
  PodBuffer<std::uint32_t> depth_;     // base points each one fixes
  PodBuffer<std::uint32_t> accepted_;  // generators given to add() that enlarged the group
  PodBuffer<std::uint16_t> base_;
  PodBuffer<std::uint32_t> trans_;     // per level: transversal element of each point, or kNone
  PodBuffer<std::uint32_t> orbit_;     // per level: size, then the orbit's points
  PodBuffer<std::uint16_t> scratch_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
