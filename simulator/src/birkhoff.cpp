#include "vp/sim/birkhoff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

void check_square(const IntMatrix& m) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i].size() != m.size())
      throw InternalError(fmt::format("birkhoff: row {} has {} entries in a {}-row matrix", i, m[i].size(), m.size()));
    for (std::size_t j = 0; j < m.size(); ++j)
      if (m[i][j] < 0) throw InternalError(fmt::format("birkhoff: entry [{}][{}] is negative", i, j));
  }
}

std::vector<std::int64_t> row_sums(const IntMatrix& m) {
  std::vector<std::int64_t> s(m.size(), 0);
  for (std::size_t i = 0; i < m.size(); ++i) s[i] = std::accumulate(m[i].begin(), m[i].end(), std::int64_t{0});
  return s;
}

std::vector<std::int64_t> column_sums(const IntMatrix& m) {
  std::vector<std::int64_t> s(m.size(), 0);
  for (const auto& row : m)
    for (std::size_t j = 0; j < m.size(); ++j) s[j] += row[j];
  return s;
}

// Perfect matching on the positive entries (Kuhn's augmenting paths, each
// row trying its columns heaviest first).
class Matcher {
 public:
  explicit Matcher(const IntMatrix& m) : m_(m), n_(m.size()), order_(n_), match_col_(n_), seen_(n_) {}

  std::vector<std::size_t> perfect_matching() {
    for (std::size_t i = 0; i < n_; ++i) {
      order_[i].clear();
      for (std::size_t j = 0; j < n_; ++j)
        if (m_[i][j] > 0) order_[i].push_back(j);
      std::stable_sort(order_[i].begin(), order_[i].end(), [&](std::size_t a, std::size_t b) { return m_[i][a] > m_[i][b]; });
    }
    std::fill(match_col_.begin(), match_col_.end(), kFree);
    for (std::size_t i = 0; i < n_; ++i) {
      std::fill(seen_.begin(), seen_.end(), 0);
      if (!augment(i)) throw InternalError("birkhoff: no perfect matching on the support (line sums differ?)");
    }
    std::vector<std::size_t> to(n_);
    for (std::size_t j = 0; j < n_; ++j) to[match_col_[j]] = j;
    return to;
  }

 private:
  static constexpr std::size_t kFree = static_cast<std::size_t>(-1);
  bool augment(std::size_t i) {
    for (std::size_t j : order_[i]) {
      if (seen_[j]) continue;
      seen_[j] = 1;
      if (match_col_[j] == kFree || augment(match_col_[j])) {
        match_col_[j] = i;
        return true;
      }
    }
    return false;
  }

  const IntMatrix& m_;
  std::size_t n_;
  std::vector<std::vector<std::size_t>> order_;
  std::vector<std::size_t> match_col_;
  std::vector<char> seen_;
};

}  // namespace

IntMatrix pad_to_equal_sums(const IntMatrix& m) {
  check_square(m);
  IntMatrix out = m;
  std::vector<std::int64_t> rows = row_sums(m), cols = column_sums(m);
  std::int64_t target = 0;
  for (std::size_t i = 0; i < m.size(); ++i) target = std::max({target, rows[i], cols[i]});
  std::size_t j = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    while (rows[i] < target) {
      while (cols[j] == target) ++j;  // the deficits of rows and columns add up to the same total
      std::int64_t add = std::min(target - rows[i], target - cols[j]);
      out[i][j] += add, rows[i] += add, cols[j] += add;
    }
  }
  return out;
}

std::vector<Permutation> birkhoff_decompose(const IntMatrix& m) {
  check_square(m);
  std::vector<std::int64_t> rows = row_sums(m), cols = column_sums(m);
  for (std::size_t i = 0; i < m.size(); ++i)
    if (rows[i] != rows[0] || cols[i] != rows[0])
      throw InternalError("birkhoff: every row and column must have the same sum (pad first)");
  IntMatrix rest = m;
  std::vector<Permutation> out;
  std::int64_t left = m.empty() ? 0 : rows[0];
  Matcher matcher(rest);
  while (left > 0) {
    Permutation p{matcher.perfect_matching(), 0};
    p.weight = rest[0][p.to[0]];
    for (std::size_t i = 0; i < rest.size(); ++i) p.weight = std::min(p.weight, rest[i][p.to[i]]);
    for (std::size_t i = 0; i < rest.size(); ++i) rest[i][p.to[i]] -= p.weight;
    left -= p.weight;
    out.push_back(std::move(p));
  }
  std::stable_sort(out.begin(), out.end(), [](const Permutation& a, const Permutation& b) { return a.weight > b.weight; });
  return out;
}

}  // namespace vp::sim
