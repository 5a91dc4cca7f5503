// The greedy's common vocabulary (greedy.hpp): a flow of the step being
// built, and the bit tricks its masks use.
#pragma once

#include <cstdint>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// One transfer of the step being built: GPU g of node a to GPU h of node b,
// through NICs i and j (kNoNic for an intra-node route), at its route's
// solo rate (the spine included): its rate in a channel step.
struct Flow {
  std::uint32_t g, h;  // global GPUs
  std::uint32_t a, b;  // their nodes
  std::uint16_t i, j;  // NICs, kNoNic for intra-node
  double gbps;         // the route's solo rate
};

inline std::uint64_t bit(std::uint32_t k) noexcept { return std::uint64_t{1} << k; }
// Index of the lowest set bit of x != 0.
inline std::uint32_t lowest(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<std::uint32_t>(__builtin_ctzll(x));
#else
  std::uint32_t k = 0;
  while (!(x & 1u)) x >>= 1, ++k;
  return k;
#endif
}
inline double min2(double x, double y) noexcept { return x < y ? x : y; }

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
