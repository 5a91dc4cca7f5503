// The derived patterns of a catalog's partial nodes, kept across planners.
//
// A partial node's patterns and symmetry depend only on its catalog node
// type and on the orbit of its held GPU set under the type's automorphisms
// (docs/subsets.md "Restriction"): the planner derives them for the orbit's
// canonical set and relabels them onto each node. A DerivedPatterns object
// keeps those canonical derivations, so that the next planner of the same
// catalog (a job's new membership: shrunk, grown, other partial nodes) takes
// them instead of deriving again:
//
//     vpcat::DerivedPatterns derived;         // lives as long as the catalog
//     planner.init(view, job, &derived);      // derives, and keeps
//     other.init(view, next_job, &derived);   // takes what is kept
//
// It also keeps each node type's replay cycle (planner/detail/replay.hpp:
// the rounds a planner's init builds from the type's pattern table, tens of
// milliseconds), as the words Replay::save writes, under (catalog type,
// held GPUs, flavour): a job's next membership of the same node types
// takes it in microseconds.
//
// Plans are the same with and without it (the kept entries are the
// derivation's own output). It belongs to one catalog: given another
// catalog (other bytes), it is emptied first. Safe to share between
// threads (a lock around each lookup and insertion; derivation runs
// outside it). Bounded: at most kMaxEntries canonical sets, kMaxRoles
// roles, kMaxCycles cycles and kMaxCycleWords words; past them, nothing
// more is kept (planners still derive).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/detail/buffer.hpp"

namespace vpcat {
inline namespace v0_1 {

class DerivedPatterns {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::size_t kMaxRoles = std::size_t{1} << 24;
  static constexpr std::size_t kMaxCycles = 256;
  static constexpr std::size_t kMaxCycleWords = std::size_t{1} << 22;

  // One canonical derivation, as detail::StoredPatterns reads and writes it:
  // reps x 2 x gpus roles, reps orbit sizes, generators x (gpus + nics)
  // images.
  struct Entry {
    std::uint32_t catalog_type = 0, gpus = 0, nics = 0, reps = 0, generators = 0;
    std::uint64_t mask = 0, group_order = 0;
    bool truncated = false;
    const std::int16_t* roles = nullptr;
    const std::uint64_t* orbits = nullptr;
    const std::uint16_t* perms = nullptr;
  };

  DerivedPatterns() noexcept = default;
  DerivedPatterns(const DerivedPatterns&) = delete;
  DerivedPatterns& operator=(const DerivedPatterns&) = delete;

  // Canonical sets kept.
  std::size_t size() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  // Replay cycles kept.
  std::size_t cycle_count() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return cycles_.size();
  }
  void clear() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    reset(nullptr);
  }

  // If (catalog_type, mask) of `catalog` is kept, calls f(const Entry&)
  // under the lock (f copies what it needs) and returns true.
  template <class F>
  bool find(const CatalogView& catalog, std::uint32_t catalog_type, std::uint64_t mask, F&& f) const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (catalog.data() != catalog_) return false;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const Stored& s = entries_[i];
      if (s.catalog_type != catalog_type || s.mask != mask) continue;
      f(entry(s));
      return true;
    }
    return false;
  }
  // Keeps a copy of e (a derivation of `catalog`'s type e.catalog_type).
  // False when not kept (bounds, memory, already kept); harmless.
  bool insert(const CatalogView& catalog, const Entry& e) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (catalog.data() != catalog_) reset(catalog.data());
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].catalog_type == e.catalog_type && entries_[i].mask == e.mask) return false;
    const std::size_t nroles = std::size_t{e.reps} * 2 * e.gpus;
    const std::size_t nperms = std::size_t{e.generators} * (std::size_t{e.gpus} + e.nics);
    if (entries_.size() >= kMaxEntries || roles_.size() + nroles > kMaxRoles) return false;
    Stored s;
    s.catalog_type = e.catalog_type, s.gpus = e.gpus, s.nics = e.nics, s.reps = e.reps;
    s.generators = e.generators, s.mask = e.mask, s.group_order = e.group_order, s.truncated = e.truncated;
    s.role_first = roles_.size(), s.orbit_first = orbits_.size(), s.perm_first = perms_.size();
    if (!roles_.reserve(roles_.size() + nroles) || !orbits_.reserve(orbits_.size() + e.reps) ||
        !perms_.reserve(perms_.size() + nperms) || !entries_.reserve(entries_.size() + 1))
      return false;
    for (std::size_t i = 0; i < nroles; ++i) roles_.push_back(e.roles[i]);
    for (std::size_t i = 0; i < e.reps; ++i) orbits_.push_back(e.orbits[i]);
    for (std::size_t i = 0; i < nperms; ++i) perms_.push_back(e.perms[i]);
    entries_.push_back(s);
    return true;
  }

  // If the replay cycle of (catalog_type, held, flavour) of `catalog` is
  // kept, calls f(const std::uint64_t* words, std::size_t count) under the
  // lock (f copies what it needs) and returns true.
  template <class F>
  bool find_cycle(const CatalogView& catalog, std::uint32_t catalog_type, std::uint64_t held, std::uint32_t flavour,
                  F&& f) const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (catalog.data() != catalog_) return false;
    const std::size_t i = cycle_index(catalog_type, held, flavour);
    if (i == cycles_.size()) return false;
    f(static_cast<const std::uint64_t*>(cycle_words_.data() + cycles_[i].first), cycles_[i].count);
    return true;
  }
  // Keeps a copy of a cycle's words; false when not kept (bounds, memory,
  // already kept); harmless.
  bool insert_cycle(const CatalogView& catalog, std::uint32_t catalog_type, std::uint64_t held, std::uint32_t flavour,
                    const std::uint64_t* words, std::size_t count) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (catalog.data() != catalog_) reset(catalog.data());
    if (cycle_index(catalog_type, held, flavour) != cycles_.size()) return false;
    if (cycles_.size() >= kMaxCycles || cycle_words_.size() + count > kMaxCycleWords) return false;
    if (!cycle_words_.reserve(cycle_words_.size() + count) || !cycles_.reserve(cycles_.size() + 1)) return false;
    const Cycle c{catalog_type, flavour, held, cycle_words_.size(), count};
    for (std::size_t i = 0; i < count; ++i) cycle_words_.push_back(words[i]);
    cycles_.push_back(c);
    return true;
  }

 private:
  struct Stored {
    std::uint32_t catalog_type = 0, gpus = 0, nics = 0, reps = 0, generators = 0;
    std::uint64_t mask = 0, group_order = 0;
    bool truncated = false;
    std::size_t role_first = 0, orbit_first = 0, perm_first = 0;
  };
  struct Cycle {
    std::uint32_t catalog_type = 0, flavour = 0;
    std::uint64_t held = 0;
    std::size_t first = 0, count = 0;  // cycle_words_[first, first + count)
  };
  // The kept cycle of this key, or cycles_.size(); under the lock.
  std::size_t cycle_index(std::uint32_t catalog_type, std::uint64_t held, std::uint32_t flavour) const noexcept {
    std::size_t i = 0;
    while (i < cycles_.size() &&
           !(cycles_[i].catalog_type == catalog_type && cycles_[i].held == held && cycles_[i].flavour == flavour))
      ++i;
    return i;
  }
  Entry entry(const Stored& s) const noexcept {
    Entry e;
    e.catalog_type = s.catalog_type, e.gpus = s.gpus, e.nics = s.nics, e.reps = s.reps;
    e.generators = s.generators, e.mask = s.mask, e.group_order = s.group_order, e.truncated = s.truncated;
    e.roles = roles_.data() + s.role_first;
    e.orbits = orbits_.data() + s.orbit_first;
    e.perms = perms_.data() + s.perm_first;
    return e;
  }
  void reset(const std::uint8_t* catalog) noexcept {
    catalog_ = catalog;
    entries_.clear();
    roles_.clear();
    orbits_.clear();
    perms_.clear();
    cycles_.clear();
    cycle_words_.clear();
  }

  mutable std::mutex mutex_;
  const std::uint8_t* catalog_ = nullptr;  // the bytes of the catalog the entries belong to
  detail::PodBuffer<Stored> entries_;
  detail::PodBuffer<std::int16_t> roles_;
  detail::PodBuffer<std::uint64_t> orbits_;
  detail::PodBuffer<std::uint16_t> perms_;
  detail::PodBuffer<Cycle> cycles_;
  detail::PodBuffer<std::uint64_t> cycle_words_;
};

}  // namespace v0_1
}  // namespace vpcat
