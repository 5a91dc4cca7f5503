// The demand of one AlltoAllv call, as the caller holds it: bytes from GPU s
// to GPU d, GPUs numbered by global GPU index (CatalogView: node order, then
// local GPU index). A Demand is a non-owning view: the caller's array must
// stay valid and unchanged during plan().
//
// Three shapes:
//   Demand::dense(const std::uint64_t* bytes, n)   row-major n x n, row = source
//   Demand::dense(const double* bytes, n)          the same as doubles (whole numbers)
//   Demand::sparse(const DemandEntry* e, count, n) triplets; repeated pairs add up
//
// Rules (checked by Planner::plan, which names the first entry that breaks
// one): n must be the catalog's GPU count (demand_size) and not 0
// (empty_demand); a dense view needs a matrix (empty_demand); doubles must be
// finite, >= 0 and whole (bad_demand_value); sparse entries must name GPUs
// below n (bad_demand_entry); every entry, and the sum of all off-diagonal
// bytes, must be at most 2^63 (demand_overflow). Diagonal bytes are a GPU's
// data for itself: they never move, and the plan ignores them. A demand
// whose off-diagonal bytes are all 0 is valid and gives a plan of no steps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

struct DemandEntry {
  std::uint32_t src = 0, dst = 0;  // global GPU indexes
  std::uint64_t bytes = 0;
};

class Demand {
 public:
  enum class Shape : std::uint8_t { none, dense_u64, dense_f64, sparse };

  Demand() noexcept = default;
  static Demand dense(const std::uint64_t* bytes, std::uint64_t gpus) noexcept {
    Demand d;
    d.shape_ = Shape::dense_u64, d.u64_ = bytes, d.gpus_ = gpus;
    return d;
  }
  static Demand dense(const double* bytes, std::uint64_t gpus) noexcept {
    Demand d;
    d.shape_ = Shape::dense_f64, d.f64_ = bytes, d.gpus_ = gpus;
    return d;
  }
  static Demand sparse(const DemandEntry* entries, std::size_t count, std::uint64_t gpus) noexcept {
    Demand d;
    d.shape_ = Shape::sparse, d.entries_ = entries, d.count_ = count, d.gpus_ = gpus;
    return d;
  }

  Shape shape() const noexcept { return shape_; }
  std::uint64_t gpus() const noexcept { return gpus_; }
  const std::uint64_t* dense_u64() const noexcept { return u64_; }
  const double* dense_f64() const noexcept { return f64_; }
  const DemandEntry* entries() const noexcept { return entries_; }
  std::size_t entry_count() const noexcept { return count_; }

 private:
  Shape shape_ = Shape::none;
  const std::uint64_t* u64_ = nullptr;
  const double* f64_ = nullptr;
  const DemandEntry* entries_ = nullptr;
  std::size_t count_ = 0;
  std::uint64_t gpus_ = 0;
};

}  // namespace v0_1
}  // namespace vpcat
