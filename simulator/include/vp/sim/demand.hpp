// The demand of one AlltoAllv call (docs/design.md §1): D[s][d] bytes from GPU s
// to GPU d, a dense n x n matrix in global GPU index order (Topology::gpus).
//
// Every entry is a finite number of bytes >= 0 (fractions allowed: a
// generator's shares). A demand a user gives is read and checked once, by the
// tools' demand reader with the runtime's check (vp/cli/demand_file.hpp,
// vpcat/planner/demand_check.hpp), before it becomes a Demand. The diagonal is a GPU's data
// for itself: it never moves, so schedules, the simulator's accounting and
// the lower bound ignore it (generators leave it at 0).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vp/topology/topology.hpp"

namespace vp::sim {

class Demand {
 public:
  Demand() = default;
  // An n x n matrix of zeros.
  explicit Demand(std::size_t n);

  std::size_t size() const { return n_; }
  double at(std::size_t s, std::size_t d) const { return bytes_[s * n_ + d]; }
  // Set / add one entry. Throws vp::InternalError on a bad index and
  // vp::UsageError when the result is not a finite number >= 0.
  void set(std::size_t s, std::size_t d, double bytes);
  void add(std::size_t s, std::size_t d, double bytes);

  // Bytes that leave s / reach d, diagonal excluded.
  double row_sum(std::size_t s) const;
  double column_sum(std::size_t d) const;
  // All off-diagonal bytes.
  double total() const;

  // Throws InputError(origin, 0, reason) unless size() is the number of GPUs of t.
  void check_fits(const Topology& t, const std::string& origin) const;

  friend bool operator==(const Demand&, const Demand&) = default;

 private:
  std::size_t n_ = 0;
  std::vector<double> bytes_;  // row-major
};

}  // namespace vp::sim
