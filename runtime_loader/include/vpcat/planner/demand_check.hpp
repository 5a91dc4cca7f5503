// The one demand check: the rules of demand.hpp as functions, used by
// Planner::plan (and so by the C API), and by tools that convert a demand
// before planning it (vp-sim's adapter), so that every caller gets the same
// verdict and the same message. Each failure names the offending entry in
// its message ("demand [2][5]: ...") and as fields (PlanStatus::entry_src(),
// entry_dst(), entry_index()).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/status.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// No entry and no off-diagonal total may exceed this many bytes.
inline constexpr std::uint64_t kMaxDemandBytes = std::uint64_t{1} << 63;

// Who a demand's GPUs must match: the catalog's, or a planner's subset of
// them (subset.hpp); the messages name it.
inline const char* demand_owner(bool subset) noexcept { return subset ? "the planner's subset" : "the catalog"; }

// The view itself: a shape, at least one GPU, the catalog's (or the
// subset's) GPU count, a matrix (dense) or an entry array (sparse with
// entries).
inline PlanStatus check_demand_shape(const Demand& d, std::uint64_t catalog_gpus, bool subset = false) noexcept {
  if (d.shape() == Demand::Shape::none)
    return PlanStatus::at(PlanError::empty_demand, "demand", "no matrix and no entries were given");
  if (d.gpus() == 0) return PlanStatus::at(PlanError::empty_demand, "demand", "0 GPUs");
  if (d.gpus() != catalog_gpus)
    return PlanStatus::at(PlanError::demand_size, "demand", "%llu GPUs, %s has %llu",
                          static_cast<unsigned long long>(d.gpus()), demand_owner(subset),
                          static_cast<unsigned long long>(catalog_gpus));
  if ((d.shape() == Demand::Shape::dense_u64 && d.dense_u64() == nullptr) ||
      (d.shape() == Demand::Shape::dense_f64 && d.dense_f64() == nullptr))
    return PlanStatus::at(PlanError::empty_demand, "demand", "the matrix pointer is null");
  if (d.shape() == Demand::Shape::sparse && d.entries() == nullptr && d.entry_count() != 0)
    return PlanStatus::at(PlanError::empty_demand, "demand", "the entry pointer is null");
  return {};
}

// A dense entry given as a double, [s][t] (the diagonal too: it never
// moves, but must still be a byte count): a finite whole number >= 0, and
// off the diagonal at most 2^63.
inline PlanStatus check_demand_value(double x, std::uint64_t s, std::uint64_t t) noexcept {
  char where[64];
  if (!(x >= 0.0) || !std::isfinite(x) || x != std::floor(x)) {
    std::snprintf(where, sizeof where, "demand [%llu][%llu]", static_cast<unsigned long long>(s),
                  static_cast<unsigned long long>(t));
    return PlanStatus::at(PlanError::bad_demand_value, where, "%g: bytes must be a finite whole number >= 0", x)
        .with_cell(s, t);
  }
  if (s != t && !(x <= 9.2233720368547758e18)) {
    std::snprintf(where, sizeof where, "demand [%llu][%llu]", static_cast<unsigned long long>(s),
                  static_cast<unsigned long long>(t));
    return PlanStatus::at(PlanError::demand_overflow, where, "%g bytes, more than 2^63", x).with_cell(s, t);
  }
  return {};
}

// Add the off-diagonal bytes v to `total`, unless v or the new total would
// exceed 2^63: then false, `total` unchanged, and demand_overflow() words
// the failure. (A bool, not a PlanStatus: this runs once per demand entry,
// and a PlanStatus carries a 256-byte message.)
inline bool add_demand_bytes(std::uint64_t& total, std::uint64_t v) noexcept {
  if (v > kMaxDemandBytes - total) return false;
  total += v;
  return true;
}

// Why add_demand_bytes(total, v) refused v at [s][t].
inline PlanStatus demand_overflow(std::uint64_t v, std::uint64_t s, std::uint64_t t) noexcept {
  char where[64];
  std::snprintf(where, sizeof where, "demand [%llu][%llu]", static_cast<unsigned long long>(s),
                static_cast<unsigned long long>(t));
  if (v > kMaxDemandBytes)
    return PlanStatus::at(PlanError::demand_overflow, where, "%llu bytes, more than 2^63",
                          static_cast<unsigned long long>(v))
        .with_cell(s, t);
  return PlanStatus::at(PlanError::demand_overflow, where, "the off-diagonal total exceeds 2^63 bytes")
      .with_cell(s, t);
}

// One byte count of [s][t] as a reader takes it from a file (the tools'
// demand reader checks every number of a demand file with these two, so a
// file and the planner word a bad value alike): a finite whole number from 0
// to 2^63, on the diagonal too (it never moves, but is stored as a count).
inline PlanStatus check_demand_count(std::uint64_t v, std::uint64_t s, std::uint64_t t) noexcept {
  std::uint64_t none = 0;
  return add_demand_bytes(none, v) ? PlanStatus() : demand_overflow(v, s, t);
}

inline PlanStatus check_demand_count(double x, std::uint64_t s, std::uint64_t t) noexcept {
  if (PlanStatus st = check_demand_value(x, s, t); !st.ok()) return st;
  if (!(x <= 9.2233720368547758e18)) {  // the diagonal (check_demand_value bounds the rest)
    char where[64];
    std::snprintf(where, sizeof where, "demand [%llu][%llu]", static_cast<unsigned long long>(s),
                  static_cast<unsigned long long>(t));
    return PlanStatus::at(PlanError::demand_overflow, where, "%g bytes, more than 2^63", x).with_cell(s, t);
  }
  return {};
}

// Sparse entry k names GPUs below `gpus`.
inline PlanStatus check_demand_entry(const DemandEntry& e, std::size_t k, std::uint64_t gpus,
                                     bool subset = false) noexcept {
  if (e.src < gpus && e.dst < gpus) return {};
  char where[48];
  std::snprintf(where, sizeof where, "demand entry %zu", k);
  const bool src = e.src >= gpus;
  return PlanStatus::at(PlanError::bad_demand_entry, where, "%s %u, %s has %llu GPUs", src ? "src" : "dst",
                        src ? e.src : e.dst, demand_owner(subset), static_cast<unsigned long long>(gpus))
      .with_cell(e.src, e.dst)
      .with_entry(k);
}

// The whole demand, in the order Planner::plan checks it (the first
// offending entry in row-major order, or in entry order for a sparse
// demand); the off-diagonal total in *total when given.
inline PlanStatus check_demand(const Demand& d, std::uint64_t catalog_gpus, std::uint64_t* total = nullptr) noexcept {
  if (PlanStatus s = check_demand_shape(d, catalog_gpus); !s.ok()) return s;
  const std::uint64_t n = d.gpus();
  std::uint64_t sum = 0;
  switch (d.shape()) {
    case Demand::Shape::dense_u64:
      for (std::uint64_t s = 0; s < n; ++s)
        for (std::uint64_t t = 0; t < n; ++t)
          if (s != t)
            if (!add_demand_bytes(sum, d.dense_u64()[s * n + t])) return demand_overflow(d.dense_u64()[s * n + t], s, t);
      break;
    case Demand::Shape::dense_f64:
      for (std::uint64_t s = 0; s < n; ++s)
        for (std::uint64_t t = 0; t < n; ++t) {
          const double x = d.dense_f64()[s * n + t];
          if (PlanStatus st = check_demand_value(x, s, t); !st.ok()) return st;
          if (s != t)
            if (!add_demand_bytes(sum, static_cast<std::uint64_t>(x))) return demand_overflow(static_cast<std::uint64_t>(x), s, t);
        }
      break;
    case Demand::Shape::sparse:
      for (std::size_t k = 0; k < d.entry_count(); ++k) {
        const DemandEntry& e = d.entries()[k];
        if (PlanStatus st = check_demand_entry(e, k, n); !st.ok()) return st;
        if (e.src == e.dst) continue;
        if (!add_demand_bytes(sum, e.bytes)) return demand_overflow(e.bytes, e.src, e.dst).with_entry(k);
      }
      break;
    case Demand::Shape::none: break;
  }
  if (total != nullptr) *total = sum;
  return {};
}

}  // namespace v0_1
}  // namespace vpcat
