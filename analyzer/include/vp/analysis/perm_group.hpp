// Permutation groups given by generators: Schreier-Sims stabilizer chains for
// the exact order, orbits, membership, pointwise stabilizers and element
// enumeration. Degrees here are small (the components of one node type), so
// the deterministic textbook algorithm is plenty.
//
// Convention: a Permutation p maps point i to p[i]; compose(a, b) applies a
// first, then b.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vp {

using Permutation = std::vector<std::uint32_t>;

Permutation identity_permutation(std::size_t degree);
Permutation compose(const Permutation& a, const Permutation& b);  // a then b
Permutation inverse(const Permutation& p);
bool is_identity(const Permutation& p);

// Non-negative integers of any size, for group orders. Decimal in and out.
class BigUint {
 public:
  BigUint(std::uint64_t v = 0);
  BigUint& operator*=(std::uint64_t m);
  BigUint& operator*=(const BigUint& m);
  bool operator==(const BigUint& o) const { return limbs_ == o.limbs_; }
  // The value if it fits in 64 bits.
  bool fits_u64() const;
  std::uint64_t to_u64() const;  // precondition: fits_u64()
  std::string to_string() const;
  // Exact division by a divisor below 2^32; precondition: divisible.
  BigUint divided_by(std::uint64_t d) const;
  // this / d for a quotient below 2^64 (precondition: d divides this and
  // the quotient fits); throws vp::InternalError otherwise.
  std::uint64_t quotient_u64(const BigUint& d) const;
  bool operator<(const BigUint& o) const;

 private:
  std::vector<std::uint32_t> limbs_;  // base 1e9, least significant first
};

// n! as a BigUint.
BigUint factorial(std::uint64_t n);

class PermGroup {
 public:
  // `base_prefix`: points to put first in the base (for pointwise stabilizers).
  PermGroup(std::size_t degree, const std::vector<Permutation>& generators,
            const std::vector<std::uint32_t>& base_prefix = {});

  std::size_t degree() const { return degree_; }
  BigUint order() const;
  // Order of the pointwise stabilizer of the first `prefix_levels` base points.
  BigUint stabilizer_order(std::size_t prefix_levels) const;
  // Its index in the group, order() / stabilizer_order(prefix_levels): the
  // number of images of the first `prefix_levels` base points as a tuple
  // (the size of the group the elements induce on them), exact at any size.
  BigUint stabilizer_index(std::size_t prefix_levels) const;
  // Per point: the smallest point of its orbit.
  std::vector<std::uint32_t> orbit_representatives() const;
  bool contains(Permutation g) const;
  // Call fn on every element (identity first). Precondition: order() small
  // enough to enumerate; the caller checks.
  void for_each_element(const std::function<void(const Permutation&)>& fn) const;

 private:
  struct Level {
    std::uint32_t base = 0;
    std::vector<Permutation> gens;
    std::vector<std::int32_t> rep_index;  // per point: index into reps, -1 if not in orbit
    std::vector<std::uint32_t> orbit;
    std::vector<Permutation> reps;        // reps[j] maps base to orbit[j]
  };
  std::pair<Permutation, std::size_t> strip(Permutation g, std::size_t from) const;
  void insert(const Permutation& g, std::size_t level);
  void add_generator(std::size_t level, const Permutation& h);
  void new_level(std::uint32_t base);

  std::size_t degree_;
  std::vector<Permutation> generators_;
  std::vector<Level> levels_;
};

}  // namespace vp
