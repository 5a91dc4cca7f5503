// Compact plans (PlanOptions::compact, plan.hpp): a step whose transfers are
// whole payloads of a set of shifts is generated, not listed. On every
// platform of the suite and demands from 1 KiB to 4 MiB per pair, the
// compact plan must be the flat plan: the same steps (count, ports, sharing,
// expected time), Planner::expand listing the same transfers in each step
// (a generated step's in shift order) and passing the independent checker,
// and Planner::gpu_transfers giving each GPU exactly its part of each step
// from its own send and receive counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "planner_support.hpp"

using namespace vp::plantest;

namespace {

Platform& mut(const Platform& p) { return const_cast<Platform&>(p); }

using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint16_t,
                       std::uint16_t, double>;
Key key(const vpcat::PlanTransfer& t) {
  return {t.src, t.dst, t.origin, t.final, t.bytes, t.src_nic, t.dst_nic, t.solo_gbps};
}
std::vector<Key> sorted(const vpcat::PlanTransfer* t, std::size_t count) {
  std::vector<Key> k;
  for (std::size_t i = 0; i < count; ++i) k.push_back(key(t[i]));
  std::sort(k.begin(), k.end());
  return k;
}

// "" when `compact` is `flat` made compact: steps alike, expand() gives the
// flat transfers step by step, and every GPU's part of every step is the
// flat step's transfers that GPU sends or receives.
std::string compare(Platform& p, const Matrix& d, const vpcat::Plan& flat, const vpcat::Plan& compact) {
  const std::uint32_t n = p.gpus;
  if (flat.generated_steps() != 0) return "the flat plan has generated steps";
  if (flat.step_count() != compact.step_count()) return "step counts differ";
  if (flat.expected_us() != compact.expected_us()) return "expected times differ";
  if (flat.bound_us() != compact.bound_us() || flat.total_bytes() != compact.total_bytes()) return "bounds differ";
  std::size_t generated = 0, listed = 0;
  for (std::size_t i = 0; i < flat.step_count(); ++i) {
    const vpcat::PlanStep &a = flat.step(i), &b = compact.step(i);
    if (a.count != b.count || a.ports != b.ports || a.shared != b.shared || a.expected_us != b.expected_us)
      return "step " + std::to_string(i) + ": count, ports, sharing or expected time differ";
    if (b.shifts != 0) {
      ++generated;
      if (compact.step_transfers(i) != nullptr) return "a generated step lists transfers";
    } else {
      listed += b.count;
    }
  }
  if (generated != compact.generated_steps()) return "generated_steps() miscounts";
  if (listed != compact.transfer_count()) return "the compact plan lists transfers of generated steps";
  vpcat::Plan expanded;
  if (vpcat::PlanStatus s = p.planner.expand(compact, vpcat::Demand::dense(d.data(), n), expanded); !s.ok())
    return std::string("expand: ") + s.message();
  if (expanded.generated_steps() != 0 || expanded.expected_us() != flat.expected_us()) return "expand's plan differs";
  for (std::size_t i = 0; i < flat.step_count(); ++i) {
    if (expanded.step(i).count != flat.step(i).count || expanded.step(i).shifts != 0)
      return "expanded step " + std::to_string(i) + " differs";
    if (sorted(expanded.step_transfers(i), expanded.step(i).count) !=
        sorted(flat.step_transfers(i), flat.step(i).count))
      return "expanded step " + std::to_string(i) + ": other transfers";
  }
  std::vector<std::uint64_t> sends(n), receives(n);
  std::vector<vpcat::PlanTransfer> mine(2 * n + 1), want;
  for (std::uint32_t g = 0; g < n; ++g) {
    for (std::uint32_t h = 0; h < n; ++h) sends[h] = h == g ? 0 : d[std::size_t{g} * n + h];
    for (std::uint32_t h = 0; h < n; ++h) receives[h] = h == g ? 0 : d[std::size_t{h} * n + g];
    for (std::size_t i = 0; i < flat.step_count(); ++i) {
      want.clear();
      const vpcat::PlanTransfer* t = flat.step_transfers(i);
      for (std::uint32_t k = 0; k < flat.step(i).count; ++k)
        if (t[k].src == g || t[k].dst == g) want.push_back(t[k]);
      const std::size_t got =
          p.planner.gpu_transfers(compact, i, g, sends.data(), receives.data(), mine.data(), mine.size());
      if (got > mine.size()) return "more transfers for one GPU than it has partners";
      if (sorted(mine.data(), got) != sorted(want.data(), want.size()))
        return "GPU " + std::to_string(g) + ", step " + std::to_string(i) + ": gpu_transfers differs from the flat step";
    }
  }
  CheckOptions co;
  co.allow_shared = true;
  return check_plan(p, d, expanded, co);
}

}  // namespace

TEST_CASE("compact plans are the flat plans: steps, expansion and every GPU's part") {
  std::size_t generated = 0, plans = 0;
  for (const char* name : {"1n", "4n-switch", "16n-rail", "5n-leafspine-tight", "mixed-4n", "g6-3n", "h20-2n"}) {
    Platform& p = mut(platform(name));
    const std::uint32_t n = p.gpus;
    for (const std::uint64_t bytes : {std::uint64_t{1} << 10, std::uint64_t{1} << 14, std::uint64_t{1} << 17,
                                      std::uint64_t{1} << 22}) {
      for (const Matrix& d : {uniform(n, bytes), random_dense(n, bytes, 0.3, bytes + 1),
                              hot_spot(n, bytes, 1, 10.0)}) {
        for (const double latency : {5.0, 0.5}) {
          vpcat::PlanOptions o;
          o.latency_us = latency;
          vpcat::Plan flat, compact;
          REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), n), o, flat).ok());
          o.compact = true;
          REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), n), o, compact).ok());
          INFO(name << ", " << bytes << " bytes, latency " << latency);
          CHECK(compare(p, d, flat, compact) == "");
          generated += compact.generated_steps();
          ++plans;
        }
      }
    }
  }
  // Not vacuous: the small messages are the shared step, balanced larger
  // ones shifted permutations on some platforms.
  MESSAGE(generated << " generated steps in " << plans << " compact plans");
  CHECK(generated > plans);
}

TEST_CASE("expand: a plan of another demand, size or itself is refused, estimate_us wants it flat") {
  Platform& p = mut(platform("4n-switch"));
  const std::uint32_t n = p.gpus;
  const Matrix d = uniform(n, 1024);
  vpcat::PlanOptions o;
  o.compact = true;
  vpcat::Plan compact, flat;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), n), o, compact).ok());
  REQUIRE(compact.generated_steps() > 0);
  CHECK(p.planner.estimate_us(compact, o) < 0);
  REQUIRE(p.planner.expand(compact, vpcat::Demand::dense(d.data(), n), flat).ok());
  CHECK(p.planner.estimate_us(flat, o) > 0);

  Matrix fewer = d;
  fewer[1] = 0;  // one payload less than the plan says
  vpcat::PlanStatus s = p.planner.expand(compact, vpcat::Demand::dense(fewer.data(), n), flat);
  CHECK(s.code() == vpcat::PlanError::plan_mismatch);
  CHECK(std::string(s.message()).find("payloads") != std::string::npos);
  CHECK(flat.step_count() == 0);

  const Matrix other = uniform(n - 1, 1024);
  CHECK(p.planner.expand(compact, vpcat::Demand::dense(other.data(), n - 1), flat).code() ==
        vpcat::PlanError::demand_size);
  CHECK(p.planner.expand(compact, vpcat::Demand::dense(d.data(), n), compact).code() ==
        vpcat::PlanError::plan_mismatch);
  CHECK(compact.generated_steps() > 0);  // left as it was

  Platform& q = mut(platform("1n"));
  CHECK(q.planner.expand(compact, vpcat::Demand::dense(d.data(), n), flat).code() == vpcat::PlanError::plan_mismatch);
  // Out of range: no transfer.
  vpcat::PlanTransfer t[4];
  CHECK(p.planner.gpu_transfers(compact, compact.step_count(), 0, d.data(), d.data(), t, 4) == 0);
  CHECK(p.planner.gpu_transfers(compact, 0, n, d.data(), d.data(), t, 4) == 0);
}
