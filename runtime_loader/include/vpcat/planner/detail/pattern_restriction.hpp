// The local patterns of a partial node, derived from its type's stored ones
// (docs/subsets.md "Restriction"): no re-analysis.
//
// A pattern restricted to held GPUs S (roles of other GPUs and peer roles
// towards them dropped) is still contention-free, and every contention-free
// pattern of the sub-machine is such a restriction of a maximal pattern of
// the whole node (give the other GPUs nothing to do and extend it). So the
// sub-machine's maximal patterns are the maximal elements of
// { Q|S : Q an image of a stored representative under Aut }.
//
// Symmetry. The sub-machine keeps the elements of Aut that map S onto
// itself, H = Stab_Aut(S). With t_i mapping S to S_i for every S_i in the
// orbit of S under Aut (a breadth-first walk of that orbit, on GPU masks),
// Schreier's lemma gives H = < t_i s t_j^-1 : S_i^s = S_j >, each sifted
// into a stabilizer chain (perm_group.hpp) so that only generators that
// enlarge H are kept; nothing is searched element by element.
//
// Orbits. For Q = P^g, g maps S_i = g^-1(S) onto S, and so does t_i^-1:
// g = t_i^-1 then h for h = t_i then g, an element of H. So
// Q|S = ((P|S_i)^(t_i^-1))^h: the H-orbits of the candidates
// (P|S_i)^(t_i^-1), one per representative P and orbit point S_i, are all
// the restricted patterns. Candidates are taken most roles first: one
// strictly contained in an image found before it is not maximal and is
// dropped unexpanded (containment is H-invariant, so its whole orbit goes);
// any other not yet seen is a new representative, and a walk of its H-orbit
// gives its orbit size (candidates() says why this is exact).
//
// Bounds: at most kMaxSetOrbit sets in the orbit of S and kMaxImages
// restricted images per derived type; beyond them the result is marked
// truncated (still contention-free patterns, possibly not all of them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/perm_group.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// One node type's patterns in compact roles (pattern_table.hpp): per local
// GPU g, -1, a local GPU index, or gpus + k for NIC k; send roles, then
// receive roles. Generators: images of the GPUs, then of the NICs (as NIC
// indexes).
struct CompactPatterns {
  std::uint32_t gpus = 0, nics = 0, reps = 0, generators = 0;
  const std::int16_t* roles = nullptr;      // reps x 2 gpus
  const std::uint64_t* orbits = nullptr;    // reps
  const std::uint16_t* perms = nullptr;     // generators x (gpus + nics)
};

class PatternRestriction {
 public:
  static constexpr std::uint32_t kMaxSetOrbit = 1u << 14;
  static constexpr std::uint32_t kMaxImages = 1u << 16;

  // Restrict `in` to its GPUs held[0..m) (in that order: they become the
  // derived type's GPUs 0..m-1). Appends the representatives' roles, their
  // orbit sizes and the generators to the given buffers and sets the
  // counts; false only when memory is short.
  bool run(const CompactPatterns& in, const std::uint16_t* held, std::uint32_t m, PodBuffer<std::int16_t>& roles,
           PodBuffer<std::uint64_t>& orbits, PodBuffer<std::uint16_t>& perms, std::uint32_t& reps,
           std::uint32_t& generators, std::uint64_t& group_order, bool& truncated) noexcept {
    reps = generators = 0;
    group_order = 1;
    truncated = false;
    if (m == 0 || in.gpus > 64 || m > in.gpus || in.nics > 64 || in.reps == 0) return true;
    if (!start(in, held, m) || !set_orbit(held, truncated) || !stabilizer() || !candidates(in, truncated))
      return false;
    for (std::uint32_t r = 0; r < rep_count_; ++r) {
      const std::int16_t* src = image(rep_image_[r]);
      for (std::uint32_t x = 0; x < 2 * m_; ++x)
        if (!roles.push_back(src[x])) return false;
      if (!orbits.push_back(rep_orbit_[r])) return false;
      ++reps;
    }
    for (std::uint32_t p = 0; p < sub_.generator_count(); ++p) {
      const std::uint16_t* gp = sub_.generator(p);
      for (std::uint32_t x = 0; x < m_; ++x)
        if (!perms.push_back(gp[x])) return false;
      for (std::uint32_t k = 0; k < K_; ++k)
        if (!perms.push_back(static_cast<std::uint16_t>(gp[m_ + k] - m_))) return false;
      ++generators;
    }
    group_order = sub_.order();
    return true;
  }

  // The canonical form of the held set under Aut: the smallest GPU mask in
  // its orbit (*canon), and t (G + K points, NIC k at G + k) mapping that
  // set onto the held one. Nodes whose held sets share an orbit have the
  // same derived patterns up to t (stored_patterns.hpp relabels them).
  // False when memory is short; *canon = 0 when the type has no patterns
  // to restrict (or more than 64 GPUs or NICs).
  bool canonical(const CompactPatterns& in, const std::uint16_t* held, std::uint32_t m, std::uint64_t* canon,
                 PodBuffer<std::uint16_t>& t, bool& truncated) noexcept {
    *canon = 0;
    truncated = false;
    if (m == 0 || in.gpus > 64 || m > in.gpus || in.nics > 64 || in.reps == 0) return true;
    if (!start(in, held, m) || !set_orbit(held, truncated)) return false;
    std::size_t best = 0;
    for (std::size_t i = 1; i < masks_.size(); ++i)
      if (masks_[i] < masks_[best]) best = i;
    *canon = masks_[best];
    if (!t.resize(n_)) return false;
    const std::uint16_t* inv = t_inv(best);  // t_best maps S to the canonical set: its inverse maps back
    for (std::uint32_t x = 0; x < n_; ++x) t[x] = inv[x];
    return true;
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  // First size of the open-addressing tables (a power of two); they double
  // at half full.
  static constexpr std::size_t kFirstSlots = 64;

  // The type's generators on the n = G + K points (NIC k is point G + k),
  // and the derived-local index of each held GPU.
  bool start(const CompactPatterns& in, const std::uint16_t* held, std::uint32_t m) noexcept {
    G_ = in.gpus, K_ = in.nics, m_ = m, n_ = G_ + K_;
    held_ = held;
    if (!gens_.resize(std::size_t{in.generators} * n_)) return false;
    for (std::uint32_t p = 0; p < in.generators; ++p)
      for (std::uint32_t x = 0; x < n_; ++x) {
        const std::uint16_t img = in.perms[std::size_t{p} * n_ + x];
        gens_[std::size_t{p} * n_ + x] = static_cast<std::uint16_t>(x < G_ ? img : G_ + img);
      }
    gen_count_ = in.generators;
    if (!pos_.assign(G_, -1)) return false;
    for (std::uint32_t g = 0; g < m; ++g) pos_[held[g]] = static_cast<std::int16_t>(g);
    return true;
  }

  static std::uint64_t mix(std::uint64_t h) noexcept {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }

  // The orbit of S under the type's generators, with t_i and t_i^-1.
  bool set_orbit(const std::uint16_t* held, bool& truncated) noexcept {
    masks_.clear();
    trans_.clear();
    std::uint64_t s = 0;
    for (std::uint32_t g = 0; g < m_; ++g) s |= std::uint64_t{1} << held[g];
    // The table grows with the orbit (most orbits are small: clearing one
    // sized for the bound on every call cost more than the walk).
    if (!mask_slot_.assign(kFirstSlots, kEmpty)) return false;
    bool found = false;
    mask_slot_[find_mask(s, found)] = 0;
    if (!masks_.push_back(s) || !trans_.append(2 * std::size_t{n_}, 0)) return false;
    for (std::uint32_t x = 0; x < n_; ++x) trans_[x] = trans_[n_ + x] = static_cast<std::uint16_t>(x);
    for (std::size_t i = 0; i < masks_.size(); ++i) {
      for (std::uint32_t p = 0; p < gen_count_; ++p) {
        const std::uint16_t* gp = gens_.data() + std::size_t{p} * n_;
        std::uint64_t img = 0;
        for (std::uint64_t b = masks_[i]; b != 0; b &= b - 1) img |= std::uint64_t{1} << gp[lowest(b)];
        std::size_t at = find_mask(img, found);
        if (found) continue;
        if (masks_.size() >= kMaxSetOrbit) {
          truncated = true;
          continue;
        }
        if (2 * (masks_.size() + 1) > mask_slot_.size()) {
          if (!grow_masks()) return false;
          at = find_mask(img, found);
        }
        mask_slot_[at] = static_cast<std::uint32_t>(masks_.size());
        if (!masks_.push_back(img) || !trans_.append(2 * std::size_t{n_}, 0)) return false;
        std::uint16_t* t = trans_.data() + (masks_.size() - 1) * 2 * n_;
        const std::uint16_t* ti = trans_.data() + i * 2 * n_;
        for (std::uint32_t x = 0; x < n_; ++x) t[x] = gp[ti[x]];  // t_i then s
        for (std::uint32_t x = 0; x < n_; ++x) t[n_ + t[x]] = static_cast<std::uint16_t>(x);
      }
    }
    return true;
  }
  // The slot of `mask` in mask_slot_ (a power of two in size), or the
  // empty slot where it would go.
  std::size_t find_mask(std::uint64_t mask, bool& found) const noexcept {
    const std::size_t wrap = mask_slot_.size() - 1;
    std::size_t i = mix(mask) & wrap;
    while (mask_slot_[i] != kEmpty && masks_[mask_slot_[i]] != mask) i = (i + 1) & wrap;
    found = mask_slot_[i] != kEmpty;
    return i;
  }
  bool grow_masks() noexcept {
    if (!mask_slot_.assign(2 * mask_slot_.size(), kEmpty)) return false;
    bool found = false;
    for (std::size_t j = 0; j < masks_.size(); ++j) mask_slot_[find_mask(masks_[j], found)] = static_cast<std::uint32_t>(j);
    return true;
  }
  const std::uint16_t* t_of(std::size_t i) const noexcept { return trans_.data() + i * 2 * n_; }
  const std::uint16_t* t_inv(std::size_t i) const noexcept { return trans_.data() + i * 2 * n_ + n_; }

  // H from the Schreier generators, then its action on the held GPUs and
  // the NICs (sub_, on m + K points).
  bool stabilizer() noexcept {
    if (!group_.reset(n_) || !tmp_.resize(n_) || !sub_.reset(m_ + K_) || !subtmp_.resize(m_ + K_)) return false;
    bool found = false;
    for (std::size_t i = 0; i < masks_.size(); ++i) {
      for (std::uint32_t p = 0; p < gen_count_; ++p) {
        const std::uint16_t* gp = gens_.data() + std::size_t{p} * n_;
        std::uint64_t img = 0;
        for (std::uint64_t b = masks_[i]; b != 0; b &= b - 1) img |= std::uint64_t{1} << gp[lowest(b)];
        const std::size_t at = find_mask(img, found);
        if (!found) continue;  // outside a truncated orbit
        const std::uint16_t *ti = t_of(i), *zi = t_inv(mask_slot_[at]);
        for (std::uint32_t x = 0; x < n_; ++x) tmp_[x] = zi[gp[ti[x]]];  // t_i then s then t_j^-1
        if (!group_.add(tmp_.data())) return false;
      }
    }
    for (std::uint32_t p = 0; p < group_.generator_count(); ++p) {
      const std::uint16_t* h = group_.generator(p);
      bool moves = false;
      for (std::uint32_t g = 0; g < m_; ++g) {
        const std::uint32_t x = static_cast<std::uint32_t>(pos_[h[held_gpu(g)]]);
        subtmp_[g] = static_cast<std::uint16_t>(x);
        moves |= x != g;
      }
      for (std::uint32_t k = 0; k < K_; ++k) {
        subtmp_[m_ + k] = static_cast<std::uint16_t>(m_ + h[G_ + k] - G_);
        moves |= h[G_ + k] != G_ + k;
      }
      if (moves && !sub_.add(subtmp_.data())) return false;
    }
    return true;
  }
  std::uint32_t held_gpu(std::uint32_t g) const noexcept { return held_[g]; }

  // Every candidate (P|S_i)^(t_i^-1), most roles first: one contained in
  // an image found before it is not maximal and is dropped unexpanded; any
  // other starts a new orbit. Exact: an image strictly containing a
  // candidate has more roles, so its orbit's candidates came first, and it
  // was expanded unless it too lies inside a larger image (found earlier
  // still).
  bool candidates(const CompactPatterns& in, bool& truncated) noexcept {
    const std::uint32_t W = 2 * m_;
    images_.clear();
    bits_.clear();
    rep_image_.clear();
    rep_orbit_.clear();
    cand_.clear();
    rep_count_ = 0;
    keys_ = W * (m_ + K_);
    if (!img_slot_.assign(kFirstSlots, kEmpty) || !cur_.resize(W)) return false;
    // The dedup table grows with the distinct candidates (most repeat).
    if (!cand_slot_.assign(kFirstSlots, kEmpty)) return false;
    // Per orbit point S_i, where t_i^-1 sends each of the n points, as the
    // derived type numbers them: a held GPU's index, m + k for NIC k, -1
    // for a GPU outside S_i (its roles are dropped).
    if (!point_map_.resize(masks_.size() * n_)) return false;
    for (std::size_t i = 0; i < masks_.size(); ++i) {
      const std::uint16_t* tau = t_inv(i);
      std::int16_t* map = point_map_.data() + i * n_;
      for (std::uint32_t y = 0; y < n_; ++y)
        map[y] = y < G_ ? (masks_[i] >> y & 1u ? pos_[tau[y]] : std::int16_t{-1})
                        : static_cast<std::int16_t>(m_ + tau[y] - G_);
    }
    for (std::uint32_t r = 0; r < in.reps; ++r) {
      const std::int16_t* P = in.roles + std::size_t{r} * 2 * G_;
      for (std::size_t i = 0; i < masks_.size(); ++i) {
        const std::int16_t* map = point_map_.data() + i * n_;
        const std::size_t at = cand_.size();
        if (!cand_.append(W, -1)) return false;
        std::int16_t* c = cand_.data() + at;
        bool any = false;
        for (std::uint64_t b = masks_[i]; b != 0; b &= b - 1) {
          const std::uint32_t x = lowest(b);
          const std::uint32_t gx = static_cast<std::uint32_t>(map[x]);
          for (std::uint32_t side = 0; side < 2; ++side) {
            const std::int16_t role = P[side * G_ + x];
            if (role < 0) continue;
            const std::int16_t mapped = map[role];
            if (mapped < 0) continue;
            c[side * m_ + gx] = mapped;
            any = true;
          }
        }
        if (!any) {
          cand_.resize(at);
          continue;
        }
        bool fresh = false;
        if (!fresh_candidate(at, fresh)) return false;
        if (!fresh) cand_.resize(at);
      }
    }
    // Candidates by role count, most first (a counting sort: stable).
    const std::size_t count = cand_.size() / W;
    if (!order_.resize(count) || !bucket_.assign(W + 2, 0)) return false;
    auto roles_of = [&](std::size_t i) {
      std::uint32_t k = 0;
      for (std::uint32_t x = 0; x < W; ++x) k += cand_[i * W + x] >= 0;
      return k;
    };
    for (std::size_t i = 0; i < count; ++i) ++bucket_[W - roles_of(i) + 1];
    for (std::uint32_t k = 1; k < W + 2; ++k) bucket_[k] += bucket_[k - 1];
    for (std::size_t i = 0; i < count; ++i) order_[bucket_[W - roles_of(i)]++] = static_cast<std::uint32_t>(i);
    for (std::size_t o = 0; o < count && !truncated; ++o) {
      const std::int16_t* c = cand_.data() + std::size_t{order_[o]} * W;
      for (std::uint32_t x = 0; x < W; ++x) cur_[x] = c[x];
      if (find() != kEmpty || contained()) continue;
      std::uint32_t at = 0;
      bool added = false;
      if (!insert(at, added)) return false;
      if (at == kEmpty) {
        truncated = true;
        break;
      }
      const std::uint32_t first = at;
      if (!orbit_walk(first, truncated)) return false;
      if (!rep_image_.push_back(first) || !rep_orbit_.push_back(image_count() - first)) return false;
      ++rep_count_;
    }
    return true;
  }

  // Is the candidate at cand_[at] the first of its roles? (Restricting
  // different representatives to different sets often gives the same.)
  // False only when memory is short.
  bool fresh_candidate(std::size_t at, bool& fresh) noexcept {
    const std::uint32_t W = 2 * m_;
    const std::size_t count = at / W;  // distinct candidates so far
    if (2 * (count + 1) > cand_slot_.size() && !grow(cand_slot_, cand_.data(), count)) return false;
    const std::int16_t* c = cand_.data() + at;
    const std::size_t mask = cand_slot_.size() - 1;
    for (std::size_t s = hash_roles(c) & mask;; s = (s + 1) & mask) {
      if (cand_slot_[s] == kEmpty) {
        cand_slot_[s] = static_cast<std::uint32_t>(count);
        fresh = true;
        return true;
      }
      if (same_roles(cand_.data() + std::size_t{cand_slot_[s]} * W, c)) {
        fresh = false;
        return true;
      }
    }
  }

  // Is cur_ strictly inside an image? The images holding each of its roles
  // (per 64 images, a row of bits per (slot, role)), intersected.
  bool contained() noexcept {
    const std::uint32_t values = m_ + K_, W = 2 * m_;
    std::uint32_t keys[128], n = 0;
    for (std::uint32_t slot = 0; slot < W; ++slot)
      if (cur_[slot] >= 0) keys[n++] = slot * values + static_cast<std::uint32_t>(cur_[slot]);
    const std::size_t words = bits_.size() / keys_;
    for (std::size_t w = 0; w < words; ++w) {
      const std::uint64_t* row = bits_.data() + w * keys_;
      std::uint64_t acc = row[keys[0]];
      for (std::uint32_t k = 1; k < n && acc != 0; ++k) acc &= row[keys[k]];
      if (acc != 0) return true;  // cur_ itself is no image (find() said so): these are larger
    }
    return false;
  }

  // Breadth-first walk of the H-orbit of image `first` (the images after it).
  bool orbit_walk(std::uint32_t first, bool& truncated) noexcept {
    for (std::uint32_t i = first; i < image_count() && !truncated; ++i) {
      for (std::uint32_t p = 0; p < sub_.generator_count() && !truncated; ++p) {
        const std::uint16_t* gp = sub_.generator(p);
        for (std::uint32_t g = 0; g < m_; ++g) {
          const std::int16_t* src = image(i);
          for (std::uint32_t side = 0; side < 2; ++side) {
            const std::int16_t role = src[side * m_ + g];
            cur_[side * m_ + gp[g]] = role < 0 ? role : static_cast<std::int16_t>(gp[static_cast<std::uint32_t>(role)]);
          }
        }
        std::uint32_t at = 0;
        bool added = false;
        if (!insert(at, added)) return false;
        if (at == kEmpty) truncated = true;
      }
    }
    return true;
  }

  std::uint32_t image_count() const noexcept { return static_cast<std::uint32_t>(images_.size() / (2 * m_)); }
  const std::int16_t* image(std::uint32_t i) const noexcept { return images_.data() + std::size_t{i} * 2 * m_; }

  // A role array's hash, four roles (one 64-bit word) at a time.
  std::uint64_t hash_roles(const std::int16_t* r) const noexcept {
    const std::uint32_t W = 2 * m_;
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ W;
    std::uint32_t x = 0;
    for (; x + 4 <= W; x += 4) {
      std::uint64_t v;
      std::memcpy(&v, r + x, sizeof v);
      h = (h ^ v) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
    for (; x < W; ++x) h = (h ^ static_cast<std::uint16_t>(r[x])) * 0xc4ceb9fe1a85ec53ull;
    return mix(h);
  }
  bool same_roles(const std::int16_t* a, const std::int16_t* b) const noexcept {
    return std::memcmp(a, b, 2 * std::size_t{m_} * sizeof *a) == 0;
  }
  std::uint64_t hash_cur() const noexcept { return hash_roles(cur_.data()); }
  // A table of role arrays (`slots`, indexes into the `count` arrays at
  // `roles`) with twice the slots, every array placed again.
  bool grow(PodBuffer<std::uint32_t>& slots, const std::int16_t* roles, std::size_t count) noexcept {
    if (!slots.assign(2 * slots.size(), kEmpty)) return false;
    const std::size_t wrap = slots.size() - 1, W = 2 * std::size_t{m_};
    for (std::size_t i = 0; i < count; ++i) {
      std::size_t s = hash_roles(roles + i * W) & wrap;
      while (slots[s] != kEmpty) s = (s + 1) & wrap;
      slots[s] = static_cast<std::uint32_t>(i);
    }
    return true;
  }
  // The index of the image equal to cur_, or kEmpty.
  std::uint32_t find() const noexcept {
    const std::size_t mask = img_slot_.size() - 1;  // a power of two
    for (std::size_t s = hash_cur() & mask;; s = (s + 1) & mask) {
      if (img_slot_[s] == kEmpty) return kEmpty;
      if (same_roles(image(img_slot_[s]), cur_.data())) return img_slot_[s];
    }
  }

  // Insert cur_: at = its index (kEmpty when the table is full), added =
  // whether it is new. False only when memory is short.
  bool insert(std::uint32_t& at, bool& added) noexcept {
    const std::uint32_t W = 2 * m_, values = m_ + K_;
    added = false;
    if (2 * (std::size_t{image_count()} + 1) > img_slot_.size() && image_count() < kMaxImages &&
        !grow(img_slot_, images_.data(), image_count()))
      return false;
    const std::size_t mask = img_slot_.size() - 1;
    for (std::size_t s = hash_cur() & mask;; s = (s + 1) & mask) {
      if (img_slot_[s] == kEmpty) {
        if (image_count() >= kMaxImages) {
          at = kEmpty;
          return true;
        }
        at = image_count();
        if (!images_.append(W, 0)) return false;
        if (at % 64 == 0 && !bits_.append(keys_, 0)) return false;
        std::int16_t* dst = images_.data() + std::size_t{at} * W;
        std::uint64_t* row = bits_.data() + std::size_t{at / 64} * keys_;
        for (std::uint32_t x = 0; x < W; ++x) {
          dst[x] = cur_[x];
          if (cur_[x] >= 0) row[x * values + static_cast<std::uint32_t>(cur_[x])] |= std::uint64_t{1} << (at % 64);
        }
        img_slot_[s] = at;
        added = true;
        return true;
      }
      if (same_roles(image(img_slot_[s]), cur_.data())) {
        at = img_slot_[s];
        return true;
      }
    }
  }

  std::uint32_t G_ = 0, K_ = 0, m_ = 0, n_ = 0, rep_count_ = 0, gen_count_ = 0;
  PodBuffer<std::uint16_t> gens_;        // the type's generators on the G + K points
  const std::uint16_t* held_ = nullptr;
  PodBuffer<std::int16_t> pos_;          // catalog-local GPU -> derived-local index, or -1
  PodBuffer<std::uint64_t> masks_;       // the orbit of S
  PodBuffer<std::uint32_t> mask_slot_;   // its hash table
  PodBuffer<std::uint16_t> trans_;       // per orbit point: t_i, then t_i^-1
  PermGroup group_, sub_;
  PodBuffer<std::uint16_t> tmp_, subtmp_;
  PodBuffer<std::int16_t> images_, cur_;
  PodBuffer<std::uint32_t> img_slot_;
  PodBuffer<std::uint32_t> rep_image_;
  std::uint32_t keys_ = 0;               // (slot, role) pairs: 2 m x (m + K)
  PodBuffer<std::uint64_t> bits_;        // per 64 images, per (slot, role): which of them hold it
  PodBuffer<std::int16_t> cand_;         // the candidates, 2 m roles each
  PodBuffer<std::uint32_t> order_, bucket_, cand_slot_;
  PodBuffer<std::int16_t> point_map_;   // per orbit point: t_i^-1 on the n points, derived-numbered
  PodBuffer<std::uint64_t> rep_orbit_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
