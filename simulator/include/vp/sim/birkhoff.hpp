// Birkhoff-von Neumann decomposition of a non-negative integer matrix, as
// FAST decomposes its server-level demand (MangoBoost/FAST,
// simulation/algorithm/all2all: to_scaled_doubly_stochastic_matrix, then
// decompose into permutation sets with frequencies).
//
// Integers keep it exact: padding makes every row and column sum to the
// largest line sum, and each peeled permutation zeroes at least one entry,
// so the decomposition ends after at most n^2 permutations and the weights
// of the permutations using (i, j) add up to the padded entry exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vp::sim {

using IntMatrix = std::vector<std::vector<std::int64_t>>;  // square, entries >= 0

struct Permutation {
  std::vector<std::size_t> to;  // row i is matched to column to[i]
  std::int64_t weight = 0;      // > 0
};

// Add to entries (never subtract) until every row and column sums to the
// largest line sum; deficits are paired greedily, lowest indexes first.
// Throws vp::InternalError (a caller's bug: demands are checked before) if
// the matrix is not square or has a negative entry.
IntMatrix pad_to_equal_sums(const IntMatrix& m);

// Decompose a matrix whose rows and columns all have the same sum into
// weighted permutations summing to it, heaviest first. Each permutation is a
// perfect matching on the positive entries, found by augmenting paths that
// try heavier entries first. Throws std::invalid_argument if the line sums
// differ (or as pad_to_equal_sums).
std::vector<Permutation> birkhoff_decompose(const IntMatrix& m);

}  // namespace vp::sim
