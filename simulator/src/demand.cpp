#include "vp/sim/demand.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "vp/topology/errors.hpp"

namespace vp::sim {

namespace {
bool valid_bytes(double b) { return std::isfinite(b) && b >= 0.0; }
}  // namespace

Demand::Demand(std::size_t n) : n_(n), bytes_(n * n, 0.0) {}

void Demand::set(std::size_t s, std::size_t d, double bytes) {
  if (s >= n_ || d >= n_)
    throw InternalError(fmt::format("demand: entry [{}][{}] outside a {} x {} matrix", s, d, n_, n_));
  if (!valid_bytes(bytes))
    throw UsageError(
        fmt::format("demand: entry [{}][{}] would be {}: bytes must be a finite number >= 0", s, d, bytes));
  bytes_[s * n_ + d] = bytes;
}

void Demand::add(std::size_t s, std::size_t d, double bytes) {
  if (s >= n_ || d >= n_)
    throw InternalError(fmt::format("demand: entry [{}][{}] outside a {} x {} matrix", s, d, n_, n_));
  set(s, d, bytes_[s * n_ + d] + bytes);
}

double Demand::row_sum(std::size_t s) const {
  double sum = 0.0;
  for (std::size_t d = 0; d < n_; ++d) sum += d == s ? 0.0 : bytes_[s * n_ + d];
  return sum;
}

double Demand::column_sum(std::size_t d) const {
  double sum = 0.0;
  for (std::size_t s = 0; s < n_; ++s) sum += d == s ? 0.0 : bytes_[s * n_ + d];
  return sum;
}

double Demand::total() const {
  double sum = 0.0;
  for (std::size_t s = 0; s < n_; ++s) sum += row_sum(s);
  return sum;
}

void Demand::check_fits(const Topology& t, const std::string& origin) const {
  if (n_ != t.gpus.size())
    throw InputError(origin, 0,
                     fmt::format("the demand is {} x {} but the topology has {} GPUs", n_, n_, t.gpus.size()));
}

}  // namespace vp::sim
