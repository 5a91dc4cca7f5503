// The demand of one AlltoAllv call (docs/design.md §1): D[s][d] bytes from GPU s
// to GPU d, a dense n x n matrix in global GPU index order (Topology::gpus).
//
// Every entry is a finite number of bytes >= 0. The diagonal is a GPU's data
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

  // From rows. Throws InputError(origin, 0, reason) naming the first bad
  // entry ("row 3 has 7 entries, expected 8", "entry [2][5] is -1: ...").
  static Demand from_rows(const std::vector<std::vector<double>>& rows, const std::string& origin);

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
