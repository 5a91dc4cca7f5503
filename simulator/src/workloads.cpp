#include "vp/sim/workloads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "vp/sim/prng.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw UsageError(what);
}

// Experts by popularity rank: ranking[r] is the expert of rank r + 1.
std::vector<std::size_t> random_ranking(std::size_t experts, Prng& rng) {
  std::vector<std::size_t> ranking(experts);
  std::iota(ranking.begin(), ranking.end(), 0);
  for (std::size_t i = experts; i > 1; --i) std::swap(ranking[i - 1], ranking[rng.below(i)]);  // Fisher-Yates
  return ranking;
}

void check_moe(std::size_t gpus, const MoeOptions& o) {
  require(gpus > 0, "moe_dispatch_demand: gpus must be > 0");
  require(o.experts > 0, "moe_dispatch_demand: experts must be > 0");
  require(o.top_k > 0 && o.top_k <= o.experts, "moe_dispatch_demand: top_k must be in [1, experts]");
  require(o.hidden > 0 && o.bytes_per_element > 0, "moe_dispatch_demand: hidden and bytes_per_element must be > 0");
  require(std::isfinite(o.zipf_exponent) && o.zipf_exponent >= 0, "moe_dispatch_demand: zipf_exponent must be >= 0");
}

// Redraws of an expert already chosen for a token before the draw goes to
// the experts left (draw_unchosen). Redrawing is exact and cheap while the
// chosen experts hold a fair share of the popularity; a steep Zipf exponent
// (tens and above) leaves the rest almost no mass, and past a few hundred
// none at all in a double, where redrawing would never end. At 1.2 over 128
// experts with 8 chosen, 64 redraws in a row happen with probability below
// 1e-15: the default workloads draw what they drew before.
constexpr int kMaxRedraws = 64;

// One expert drawn from those not chosen, in proportion to their weights;
// when their weights have all underflowed to zero (the limit of a steep
// exponent), the most popular of them.
std::size_t draw_unchosen(const std::vector<double>& weight, const std::vector<std::size_t>& ranking,
                          const std::vector<char>& chosen, Prng& rng) {
  double left = 0.0;
  for (std::size_t e = 0; e < weight.size(); ++e)
    if (!chosen[e]) left += weight[e];
  if (left > 0.0) {
    const double u = rng.uniform() * left;
    double sum = 0.0;
    std::size_t last = weight.size();
    for (std::size_t e = 0; e < weight.size(); ++e) {
      if (chosen[e] || weight[e] <= 0.0) continue;
      sum += weight[e];
      last = e;
      if (u < sum) return e;
    }
    if (last < weight.size()) return last;  // rounding: u at the very top of the mass
  }
  for (std::size_t r = 0; r < ranking.size(); ++r)
    if (!chosen[ranking[r]]) return ranking[r];
  throw InternalError("moe_dispatch_demand: no expert left to draw");  // top_k <= experts is checked
}

Demand sample_dispatch(std::size_t gpus, const MoeOptions& o, const std::vector<std::size_t>& ranking, double exponent) {
  // Cumulative popularity by expert id.
  std::vector<double> weight(o.experts);
  for (std::size_t r = 0; r < o.experts; ++r) weight[ranking[r]] = std::pow(static_cast<double>(r + 1), -exponent);
  std::vector<double> cumulative(o.experts);
  std::partial_sum(weight.begin(), weight.end(), cumulative.begin());
  const double total = cumulative.back();
  const double token_bytes = static_cast<double>(o.hidden * o.bytes_per_element);

  Demand d(gpus);
  Prng rng(o.seed);
  std::vector<char> chosen(o.experts, 0), hit(gpus, 0);
  std::vector<std::size_t> picked, targets;
  for (std::size_t s = 0; s < gpus; ++s) {
    std::vector<double> tokens_to(gpus, 0.0);
    for (std::size_t token = 0; token < o.tokens_per_gpu; ++token) {
      picked.clear();
      int redraws = 0;
      while (picked.size() < o.top_k) {  // weighted sampling without replacement: redraw repeats
        std::size_t e;
        if (redraws < kMaxRedraws) {
          double u = rng.uniform() * total;
          e = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
          e = std::min(e, o.experts - 1);
          if (chosen[e]) {
            ++redraws;
            continue;
          }
        } else {
          e = draw_unchosen(weight, ranking, chosen, rng);
        }
        redraws = 0;
        chosen[e] = 1;
        picked.push_back(e);
      }
      targets.clear();
      for (std::size_t e : picked) {
        chosen[e] = 0;
        std::size_t g = e % gpus;
        if (!hit[g]) hit[g] = 1, targets.push_back(g);
      }
      for (std::size_t g : targets) {
        hit[g] = 0;
        tokens_to[g] += 1.0;
      }
    }
    for (std::size_t t = 0; t < gpus; ++t)
      if (t != s) d.set(s, t, tokens_to[t] * token_bytes);
  }
  return d;
}

}  // namespace

Demand uniform_demand(std::size_t gpus, double bytes_per_pair) {
  require(gpus > 0, "uniform_demand: gpus must be > 0");
  Demand d(gpus);
  for (std::size_t s = 0; s < gpus; ++s)
    for (std::size_t t = 0; t < gpus; ++t)
      if (s != t) d.set(s, t, bytes_per_pair);
  return d;
}

Demand shift_demand(std::size_t gpus, std::size_t k, double bytes) {
  require(gpus > 0, "shift_demand: gpus must be > 0");
  require(k % gpus != 0, "shift_demand: k must not be a multiple of the number of GPUs (every GPU would read from itself)");
  Demand d(gpus);
  for (std::size_t i = 0; i < gpus; ++i) d.set((i + k) % gpus, i, bytes);
  return d;
}

Demand incast_demand(std::size_t gpus, std::size_t reader, double bytes) {
  require(reader < gpus, "incast_demand: reader must be a GPU index");
  Demand d(gpus);
  for (std::size_t s = 0; s < gpus; ++s)
    if (s != reader) d.set(s, reader, bytes);
  return d;
}

Demand hot_spot_demand(std::size_t gpus, double bytes_per_pair, std::size_t hot, double factor) {
  require(hot < gpus, "hot_spot_demand: hot must be a GPU index");
  require(std::isfinite(factor) && factor >= 0, "hot_spot_demand: factor must be >= 0");
  Demand d = uniform_demand(gpus, bytes_per_pair);
  for (std::size_t s = 0; s < gpus; ++s)
    if (s != hot) d.set(s, hot, bytes_per_pair * factor);
  return d;
}

Demand moe_dispatch_demand(std::size_t gpus, const MoeOptions& opts) {
  check_moe(gpus, opts);
  Prng rng(opts.seed ^ 0x5eed0fe77e5ULL);  // the ranking's own stream
  return sample_dispatch(gpus, opts, random_ranking(opts.experts, rng), opts.zipf_exponent);
}

Demand sequence_parallel_demand(std::size_t gpus, const SequenceParallelOptions& opts) {
  require(gpus > 0, "sequence_parallel_demand: gpus must be > 0");
  const double per_pair = static_cast<double>(opts.tokens_per_gpu) * static_cast<double>(opts.hidden) /
                          static_cast<double>(gpus) * static_cast<double>(opts.bytes_per_element);
  return uniform_demand(gpus, per_pair);
}

std::vector<Demand> drifting_moe_sequence(std::size_t gpus, const MoeOptions& opts, std::size_t calls) {
  check_moe(gpus, opts);
  require(calls > 0, "drifting_moe_sequence: calls must be > 0");
  Prng drift(opts.seed ^ 0x5eed0fe77e5ULL);
  std::vector<std::size_t> ranking = random_ranking(opts.experts, drift);
  std::vector<Demand> out;
  for (std::size_t c = 0; c < calls; ++c) {
    const double phase = 2.0 * static_cast<double>(c) / static_cast<double>(calls);  // 0 .. 2
    MoeOptions call = opts;
    call.seed = opts.seed + c;
    out.push_back(sample_dispatch(gpus, call, ranking, 0.5 + 0.7 * (1.0 - std::abs(1.0 - phase))));
    for (std::size_t k = 0; k < std::max<std::size_t>(1, opts.experts / 16) && opts.experts > 1; ++k) {
      std::size_t r = drift.below(opts.experts - 1);
      std::swap(ranking[r], ranking[r + 1]);
    }
  }
  return out;
}

}  // namespace vp::sim
