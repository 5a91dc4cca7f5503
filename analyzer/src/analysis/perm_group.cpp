#include "vp/analysis/perm_group.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include "vp/base/errors.hpp"

namespace vp {

Permutation identity_permutation(std::size_t degree) {
  Permutation p(degree);
  std::iota(p.begin(), p.end(), 0u);
  return p;
}

Permutation compose(const Permutation& a, const Permutation& b) {
  Permutation r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[i] = b[a[i]];
  return r;
}

Permutation inverse(const Permutation& p) {
  Permutation r(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) r[p[i]] = static_cast<std::uint32_t>(i);
  return r;
}

bool is_identity(const Permutation& p) {
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != i) return false;
  return true;
}

// ---------------------------------------------------------------------------
// BigUint

namespace {
constexpr std::uint64_t kBase = 1000000000ull;
}

BigUint::BigUint(std::uint64_t v) {
  do {
    limbs_.push_back(static_cast<std::uint32_t>(v % kBase));
    v /= kBase;
  } while (v);
}

BigUint& BigUint::operator*=(std::uint64_t m) {
  if (m >= (1ull << 32)) return *this *= BigUint(m);
  // limb < 1e9 < 2^30 and m < 2^32: the product and carry fit in 64 bits.
  std::uint64_t carry = 0;
  for (auto& limb : limbs_) {
    std::uint64_t cur = std::uint64_t(limb) * m + carry;
    limb = static_cast<std::uint32_t>(cur % kBase);
    carry = cur / kBase;
  }
  while (carry) {
    limbs_.push_back(static_cast<std::uint32_t>(carry % kBase));
    carry /= kBase;
  }
  while (limbs_.size() > 1 && limbs_.back() == 0) limbs_.pop_back();
  return *this;
}

BigUint& BigUint::operator*=(const BigUint& m) {
  std::vector<std::uint64_t> acc(limbs_.size() + m.limbs_.size() + 1, 0);
  for (std::size_t i = 0; i < limbs_.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < m.limbs_.size() || carry; ++j) {
      std::uint64_t cur = acc[i + j] + carry + (j < m.limbs_.size() ? std::uint64_t(limbs_[i]) * m.limbs_[j] : 0);
      acc[i + j] = cur % kBase;
      carry = cur / kBase;
    }
  }
  limbs_.assign(acc.begin(), acc.end());
  while (limbs_.size() > 1 && limbs_.back() == 0) limbs_.pop_back();
  return *this;
}

bool BigUint::fits_u64() const {
  if (limbs_.size() <= 2) return true;
  if (limbs_.size() > 3) return false;
  // up to 18446744073709551615 = 18 | 446744073 | 709551615
  return limbs_[2] < 18 || (limbs_[2] == 18 && (limbs_[1] < 446744073 || (limbs_[1] == 446744073 && limbs_[0] <= 709551615)));
}

std::uint64_t BigUint::to_u64() const {
  std::uint64_t v = 0;
  for (std::size_t i = limbs_.size(); i-- > 0;) v = v * kBase + limbs_[i];
  return v;
}

std::string BigUint::to_string() const {
  std::string s = std::to_string(limbs_.back());
  for (std::size_t i = limbs_.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs_[i]);
    s += std::string(9 - part.size(), '0') + part;
  }
  return s;
}

BigUint BigUint::divided_by(std::uint64_t d) const {
  if (d == 0 || d >= (1ull << 32)) throw InternalError("BigUint::divided_by: divisor out of range");
  BigUint q;
  q.limbs_.assign(limbs_.size(), 0);
  std::uint64_t rem = 0;  // < d < 2^32, so rem * 1e9 fits in 64 bits
  for (std::size_t i = limbs_.size(); i-- > 0;) {
    std::uint64_t cur = rem * kBase + limbs_[i];
    q.limbs_[i] = static_cast<std::uint32_t>(cur / d);
    rem = cur % d;
  }
  while (q.limbs_.size() > 1 && q.limbs_.back() == 0) q.limbs_.pop_back();
  return q;
}

bool BigUint::operator<(const BigUint& o) const {
  if (limbs_.size() != o.limbs_.size()) return limbs_.size() < o.limbs_.size();
  for (std::size_t i = limbs_.size(); i-- > 0;)
    if (limbs_[i] != o.limbs_[i]) return limbs_[i] < o.limbs_[i];
  return false;
}

std::uint64_t BigUint::quotient_u64(const BigUint& d) const {
  // Binary search for q with q * d == *this.
  std::uint64_t lo = 0, hi = ~std::uint64_t{0};
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    BigUint product = d;
    product *= mid;
    if (product < *this) lo = mid + 1;
    else hi = mid;
  }
  BigUint check = d;
  check *= lo;
  if (!(check == *this)) throw InternalError("BigUint::quotient_u64: not an exact quotient below 2^64");
  return lo;
}

BigUint factorial(std::uint64_t n) {
  BigUint r(1);
  for (std::uint64_t i = 2; i <= n; ++i) r *= i;
  return r;
}

// ---------------------------------------------------------------------------
// PermGroup: deterministic Schreier-Sims.

PermGroup::PermGroup(std::size_t degree, const std::vector<Permutation>& generators,
                     const std::vector<std::uint32_t>& base_prefix)
    : degree_(degree), generators_(generators) {
  for (const Permutation& g : generators)
    if (g.size() != degree) throw InternalError("PermGroup: generator of the wrong degree");
  for (std::uint32_t b : base_prefix) new_level(b);
  for (const Permutation& g : generators) insert(g, 0);
}

void PermGroup::new_level(std::uint32_t base) {
  Level l;
  l.base = base;
  l.rep_index.assign(degree_, -1);
  l.rep_index[base] = 0;
  l.orbit.push_back(base);
  l.reps.push_back(identity_permutation(degree_));
  levels_.push_back(std::move(l));
}

std::pair<Permutation, std::size_t> PermGroup::strip(Permutation g, std::size_t from) const {
  for (std::size_t i = from; i < levels_.size(); ++i) {
    const Level& l = levels_[i];
    std::int32_t j = l.rep_index[g[l.base]];
    if (j < 0) return {std::move(g), i};
    g = compose(g, inverse(l.reps[static_cast<std::size_t>(j)]));
  }
  return {std::move(g), levels_.size()};
}

void PermGroup::insert(const Permutation& g, std::size_t level) {
  auto [h, stop] = strip(g, level);
  if (is_identity(h)) return;
  if (stop == levels_.size()) {
    std::uint32_t moved = 0;
    while (h[moved] == moved) ++moved;
    new_level(moved);
  }
  // h fixes the base points of levels < stop: it belongs to levels level..stop.
  for (std::size_t i = stop + 1; i-- > level;) add_generator(i, h);
}

// Add h to level i's generators, extend the orbit, and feed every new Schreier
// generator to the next level.
void PermGroup::add_generator(std::size_t i, const Permutation& h) {
  levels_[i].gens.push_back(h);
  // Schreier generators from all (orbit point, generator) pairs whose product
  // is new: the new generator with every old point, every generator with new points.
  std::size_t old_size = levels_[i].orbit.size();
  std::size_t new_gen = levels_[i].gens.size() - 1;
  for (std::size_t j = 0; j < levels_[i].orbit.size(); ++j) {
    std::size_t first_gen = j < old_size ? new_gen : 0;
    for (std::size_t s = first_gen; s < levels_[i].gens.size(); ++s) {
      Level& l = levels_[i];
      Permutation gen = l.gens[s];
      std::uint32_t image = gen[l.orbit[j]];
      Permutation rep_then = compose(l.reps[j], gen);
      if (l.rep_index[image] < 0) {
        l.rep_index[image] = static_cast<std::int32_t>(l.orbit.size());
        l.orbit.push_back(image);
        l.reps.push_back(rep_then);
        continue;  // rep_then * inverse(rep(image)) is the identity
      }
      Permutation schreier = compose(rep_then, inverse(l.reps[static_cast<std::size_t>(l.rep_index[image])]));
      if (!is_identity(schreier)) insert(schreier, i + 1);
    }
  }
}

BigUint PermGroup::order() const { return stabilizer_order(0); }

BigUint PermGroup::stabilizer_order(std::size_t prefix_levels) const {
  BigUint r(1);
  for (std::size_t i = prefix_levels; i < levels_.size(); ++i) r *= levels_[i].orbit.size();
  return r;
}

BigUint PermGroup::stabilizer_index(std::size_t prefix_levels) const {
  BigUint r(1);
  for (std::size_t i = 0; i < std::min(prefix_levels, levels_.size()); ++i) r *= levels_[i].orbit.size();
  return r;
}

std::vector<std::uint32_t> PermGroup::orbit_representatives() const {
  std::vector<std::uint32_t> parent(degree_);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const Permutation& g : generators_) {
    for (std::uint32_t i = 0; i < degree_; ++i) {
      std::uint32_t a = find(i), b = find(g[i]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<std::uint32_t> rep(degree_);
  for (std::uint32_t i = 0; i < degree_; ++i) rep[i] = find(i);
  return rep;
}

bool PermGroup::contains(Permutation g) const {
  if (g.size() != degree_) return false;
  auto [h, stop] = strip(std::move(g), 0);
  return stop == levels_.size() && is_identity(h);
}

void PermGroup::for_each_element(const std::function<void(const Permutation&)>& fn) const {
  // Every element is u_{m-1} * ... * u_0 with u_i a coset representative of level i.
  std::vector<std::size_t> idx(levels_.size(), 0);
  for (;;) {
    Permutation g = identity_permutation(degree_);
    for (std::size_t i = levels_.size(); i-- > 0;) g = compose(g, levels_[i].reps[idx[i]]);
    fn(g);
    std::size_t i = 0;
    while (i < levels_.size() && ++idx[i] == levels_[i].reps.size()) idx[i++] = 0;
    if (i == levels_.size()) return;
  }
}

}  // namespace vp
