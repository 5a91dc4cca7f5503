// The workload generators: shapes, determinism, skew, and the generator
// against an independent implementation of xoshiro256**.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "vp/sim/prng.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/base/errors.hpp"

using namespace vp::sim;

namespace {
// Largest bytes any GPU receives over the mean (1 = balanced).
double receive_skew(const Demand& d) {
  double top = 0.0, sum = 0.0;
  for (std::size_t g = 0; g < d.size(); ++g) top = std::max(top, d.column_sum(g)), sum += d.column_sum(g);
  return top / (sum / static_cast<double>(d.size()));
}

MoeOptions small_moe(double exponent) {
  MoeOptions o;
  o.tokens_per_gpu = 512;
  o.zipf_exponent = exponent;
  return o;
}
}  // namespace

TEST_CASE("the generator is xoshiro256** seeded by splitmix64") {
  // Values from an independent implementation of the published algorithms.
  Prng rng(42);
  CHECK(rng.next() == 0x15780b2e0c2ec716ULL);
  CHECK(rng.next() == 0x6104d9866d113a7eULL);
  CHECK(rng.next() == 0xae17533239e499a1ULL);
  Prng draws(7);
  for (int i = 0; i < 1000; ++i) {
    double u = draws.uniform();
    CHECK((u >= 0.0 && u < 1.0));
    CHECK(draws.below(10) < 10);
  }
}

TEST_CASE("uniform, hot spot and sequence-parallel demands") {
  Demand u = uniform_demand(4, 100);
  CHECK(u.at(0, 0) == 0);
  CHECK(u.at(1, 3) == 100);
  CHECK(u.total() == 1200);
  Demand h = hot_spot_demand(4, 100, 2);
  CHECK(h.column_sum(2) == 3000);
  CHECK(h.column_sum(1) == 300);
  CHECK(h.at(2, 2) == 0);
  Demand sp = sequence_parallel_demand(8);
  CHECK(sp.at(0, 1) == 32768.0 * 4096 / 8 * 2);
  CHECK_THROWS_AS(hot_spot_demand(4, 100, 4), vp::UsageError);
}

TEST_CASE("MoE dispatch sends a token once per destination GPU") {
  MoeOptions o = small_moe(1.0);
  const double token = 2048.0 * 2;
  // Two GPUs: half of the 128 experts on each. A token reaches GPU 1 when
  // any of its 8 experts is there: almost every token, and once.
  Demand two = moe_dispatch_demand(2, o);
  CHECK(two.at(0, 1) <= 512 * token);
  CHECK(two.at(0, 1) >= 0.9 * 512 * token);
  CHECK(two.at(0, 0) == 0);
  Demand d = moe_dispatch_demand(16, o);
  for (std::size_t s = 0; s < 16; ++s) {
    CHECK(d.at(s, s) == 0);
    CHECK(d.row_sum(s) <= 512 * 8 * token);
    for (std::size_t r = 0; r < 16; ++r) CHECK(d.at(s, r) <= 512 * token);
  }
}

TEST_CASE("MoE dispatch is deterministic and skews with the Zipf exponent") {
  CHECK(moe_dispatch_demand(16, small_moe(1.0)) == moe_dispatch_demand(16, small_moe(1.0)));
  MoeOptions other = small_moe(1.0);
  other.seed = 2;
  CHECK_FALSE(moe_dispatch_demand(16, other) == moe_dispatch_demand(16, small_moe(1.0)));
  double previous = 0.0;
  for (double exponent : {0.0, 0.5, 0.8, 1.0, 1.2}) {
    double skew = receive_skew(moe_dispatch_demand(16, small_moe(exponent)));
    CAPTURE(exponent);
    CHECK(skew > previous);
    previous = skew;
  }
  MoeOptions bad = small_moe(1.0);
  bad.top_k = 129;
  CHECK_THROWS_WITH_AS(moe_dispatch_demand(16, bad), "moe_dispatch_demand: top_k must be in [1, experts]",
                       vp::UsageError);
}

TEST_CASE("the drifting sequence sweeps the skew up and back down") {
  MoeOptions o = small_moe(0.0);
  o.tokens_per_gpu = 256;
  std::vector<Demand> calls = drifting_moe_sequence(16, o, 50);
  REQUIRE(calls.size() == 50);
  double first = receive_skew(calls[0]), middle = receive_skew(calls[25]), last = receive_skew(calls[49]);
  CHECK(middle > first);
  CHECK(middle > last);
  CHECK_FALSE(calls[1] == calls[0]);
  CHECK(drifting_moe_sequence(16, o, 50)[7] == calls[7]);
}

TEST_CASE("p2pmark's probe +k: GPU i reads from (i + k) mod n, one flow each") {
  const Demand d = shift_demand(8, 3, 64.0);
  for (std::size_t s = 0; s < 8; ++s)
    for (std::size_t t = 0; t < 8; ++t) CHECK(d.at(s, t) == (s == (t + 3) % 8 ? 64.0 : 0.0));
  CHECK(shift_demand(8, 11, 1.0).at(3, 0) == 1.0);  // k taken mod n
  CHECK_THROWS_AS(shift_demand(8, 16, 1.0), vp::UsageError);
}

TEST_CASE("p2pmark's single reader: every other GPU sends to it") {
  const Demand d = incast_demand(4, 2, 5.0);
  CHECK(d.column_sum(2) == 15.0);
  CHECK(d.total() == 15.0);
  CHECK(d.at(2, 2) == 0.0);
  CHECK_THROWS_AS(incast_demand(4, 4, 1.0), vp::UsageError);
}

TEST_CASE("MoE dispatch with a steep Zipf exponent ends: each token goes to the most popular experts") {
  // Past an exponent of a few hundred every weight but the first underflows
  // to zero, and a token needs 8 distinct experts: redrawing alone would
  // never end. The draw then takes the most popular experts left, the limit
  // of the distribution, so every token reaches the same GPUs.
  for (double exponent : {1e3, 1e308}) {  // 1e3: only ranks 1 and 2 keep a weight; 1e308: rank 1
    CAPTURE(exponent);
    MoeOptions o = small_moe(exponent);
    Demand d = moe_dispatch_demand(16, o);
    const double token = 2048.0 * 2;
    // The GPUs of the 8 most popular experts: every token of every sender
    // goes there (a sender keeps its own share).
    std::vector<char> hot(16, 0);
    std::size_t hot_count = 0;
    for (std::size_t s = 0; s < 16; ++s)
      for (std::size_t r = 0; r < 16; ++r)
        if (d.at(s, r) > 0 && !hot[r]) hot[r] = 1, ++hot_count;
    CHECK(hot_count >= 1);
    CHECK(hot_count <= 8);
    for (std::size_t s = 0; s < 16; ++s)
      for (std::size_t r = 0; r < 16; ++r)
        CHECK(d.at(s, r) == (hot[r] && r != s ? 512 * token : 0.0));
  }
}
