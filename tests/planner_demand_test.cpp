// Bad demands and options: a PlanStatus with its code and whole message,
// never undefined behaviour; the output plan is left empty.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "planner_support.hpp"

using namespace vp::plantest;

namespace {

vpcat::Planner& planner() { return const_cast<Platform&>(platform("4n-switch")).planner; }

void expect(const vpcat::PlanStatus& s, vpcat::PlanError code, const std::string& message) {
  CHECK(!s.ok());
  CHECK(s.code() == code);
  CHECK(std::string(s.message()) == message);
}

}  // namespace

TEST_CASE("wrong size, empty demands") {
  vpcat::Plan plan;
  std::vector<std::uint64_t> small(16, 1);
  expect(planner().plan(vpcat::Demand::dense(small.data(), 4), {}, plan), vpcat::PlanError::demand_size,
         "demand: demand size does not match the catalog (4 GPUs, the catalog has 32)");
  expect(planner().plan(vpcat::Demand::dense(small.data(), 0), {}, plan), vpcat::PlanError::empty_demand,
         "demand: demand is empty (0 GPUs)");
  expect(planner().plan(vpcat::Demand::dense(static_cast<const std::uint64_t*>(nullptr), 32), {}, plan),
         vpcat::PlanError::empty_demand, "demand: demand is empty (the matrix pointer is null)");
  expect(planner().plan(vpcat::Demand::dense(static_cast<const double*>(nullptr), 32), {}, plan),
         vpcat::PlanError::empty_demand, "demand: demand is empty (the matrix pointer is null)");
  expect(planner().plan(vpcat::Demand(), {}, plan), vpcat::PlanError::empty_demand,
         "demand: demand is empty (no matrix and no entries were given)");
  expect(planner().plan(vpcat::Demand::sparse(nullptr, 3, 32), {}, plan), vpcat::PlanError::empty_demand,
         "demand: demand is empty (the entry pointer is null)");
  CHECK(planner().plan(vpcat::Demand::sparse(nullptr, 0, 32), {}, plan).ok());  // no entries: nothing to move
  CHECK(plan.step_count() == 0);
}

TEST_CASE("negative, NaN, infinite and fractional bytes in the double API") {
  vpcat::Plan plan;
  std::vector<double> d(32 * 32, 1024.0);
  const auto at = [&](std::size_t s, std::size_t t) -> double& { return d[s * 32 + t]; };
  at(2, 5) = -1;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::bad_demand_value,
         "demand [2][5]: demand entry is not a byte count (-1: bytes must be a finite whole number >= 0)");
  at(2, 5) = std::numeric_limits<double>::quiet_NaN();
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::bad_demand_value,
         "demand [2][5]: demand entry is not a byte count (nan: bytes must be a finite whole number >= 0)");
  at(2, 5) = std::numeric_limits<double>::infinity();
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::bad_demand_value,
         "demand [2][5]: demand entry is not a byte count (inf: bytes must be a finite whole number >= 0)");
  at(2, 5) = 1.5;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::bad_demand_value,
         "demand [2][5]: demand entry is not a byte count (1.5: bytes must be a finite whole number >= 0)");
  at(2, 5) = 7;
  at(3, 3) = -0.5;  // the diagonal does not move, but it must still be a byte count
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::bad_demand_value,
         "demand [3][3]: demand entry is not a byte count (-0.5: bytes must be a finite whole number >= 0)");
  at(3, 3) = 1e30;  // a huge diagonal is fine: it never moves
  CHECK(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan).ok());
  at(4, 1) = 1e19;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::demand_overflow,
         "demand [4][1]: byte counts overflow (1e+19 bytes, more than 2^63)");
  CHECK(plan.step_count() == 0);  // failures leave the plan empty
}

TEST_CASE("byte counts beyond 2^63") {
  vpcat::Plan plan;
  std::vector<std::uint64_t> d(32 * 32, 0);
  d[1] = std::uint64_t{1} << 63;  // exactly 2^63 is allowed alone
  CHECK(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan).ok());
  d[2] = 1;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::demand_overflow,
         "demand [0][2]: byte counts overflow (the off-diagonal total exceeds 2^63 bytes)");
  d[2] = 0;
  d[1] = ~std::uint64_t{0};
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan), vpcat::PlanError::demand_overflow,
         "demand [0][1]: byte counts overflow (18446744073709551615 bytes, more than 2^63)");
  d[1] = 0;
  d[0] = ~std::uint64_t{0};  // diagonal: ignored
  CHECK(planner().plan(vpcat::Demand::dense(d.data(), 32), {}, plan).ok());
  CHECK(plan.step_count() == 0);

  const vpcat::DemandEntry twice[] = {{3, 4, std::uint64_t{1} << 62}, {3, 4, std::uint64_t{1} << 62},
                                      {3, 4, 1}};
  expect(planner().plan(vpcat::Demand::sparse(twice, 3, 32), {}, plan), vpcat::PlanError::demand_overflow,
         "demand [3][4]: byte counts overflow (the off-diagonal total exceeds 2^63 bytes)");
}

TEST_CASE("sparse entries that name no GPU") {
  vpcat::Plan plan;
  const vpcat::DemandEntry bad_src[] = {{0, 1, 5}, {32, 1, 5}};
  expect(planner().plan(vpcat::Demand::sparse(bad_src, 2, 32), {}, plan), vpcat::PlanError::bad_demand_entry,
         "demand entry 1: demand entry names no GPU of the catalog (src 32, the catalog has 32 GPUs)");
  const vpcat::DemandEntry bad_dst[] = {{0, 4000000000u, 5}};
  expect(planner().plan(vpcat::Demand::sparse(bad_dst, 1, 32), {}, plan), vpcat::PlanError::bad_demand_entry,
         "demand entry 0: demand entry names no GPU of the catalog (dst 4000000000, the catalog has 32 GPUs)");
  expect(planner().plan(vpcat::Demand::sparse(bad_src, 2, 31), {}, plan), vpcat::PlanError::demand_size,
         "demand: demand size does not match the catalog (31 GPUs, the catalog has 32)");
}

TEST_CASE("bad options") {
  vpcat::Plan plan;
  const Matrix d = uniform(32, 100);
  vpcat::PlanOptions o = vp::plantest::channels_only();
  o.latency_us = -1;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan), vpcat::PlanError::bad_options,
         "options.latency_us: invalid plan option (-1: must be a finite number >= 0)");
  o = {};
  o.latency_us = std::nan("");
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan), vpcat::PlanError::bad_options,
         "options.latency_us: invalid plan option (nan: must be a finite number >= 0)");
  o = {};
  o.min_step_latencies = std::numeric_limits<double>::infinity();
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan), vpcat::PlanError::bad_options,
         "options.min_step_latencies: invalid plan option (inf: must be a finite number >= 0)");
  o = {};
  o.chunk_align_bytes = 0;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan), vpcat::PlanError::bad_options,
         "options.chunk_align_bytes: invalid plan option (0: must be at least 1)");
  o = {};
  o.max_steps = 0;
  expect(planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan), vpcat::PlanError::bad_options,
         "options.max_steps: invalid plan option (0: must be at least 1)");
}

TEST_CASE("the step limit") {
  vpcat::Plan plan;
  const Matrix d = uniform(32, 1 << 20);
  vpcat::PlanOptions o = vp::plantest::channels_only();
  o.max_steps = 3;
  const vpcat::PlanStatus s = planner().plan(vpcat::Demand::dense(d.data(), 32), o, plan);
  CHECK(s.code() == vpcat::PlanError::step_limit);
  CHECK(std::string(s.message()).rfind("plan: step limit exceeded (max_steps 3 reached with ", 0) == 0);
  CHECK(plan.step_count() == 0);
  CHECK(plan.transfer_count() == 0);
}

TEST_CASE("an uninitialized planner") {
  vpcat::Planner p;
  vpcat::Plan plan;
  const Matrix d = uniform(4, 1);
  CHECK(!p.ready());
  expect(p.plan(vpcat::Demand::dense(d.data(), 4), {}, plan), vpcat::PlanError::not_ready,
         "planner: planner is not initialized (call init() with a catalog first)");
  vpcat::PlanTransfer t;
  t.dst = 1;
  std::uint64_t ids[4];
  CHECK(p.route_links(t, ids, 4) == 0);
}

TEST_CASE("inter-node bytes need a NIC that carries GPU traffic") {
  // Nodes whose NICs all lack GPUDirect RDMA: intra-node bytes plan,
  // inter-node bytes are refused with the node named.
  Platform& p = const_cast<Platform&>(platform("2n-no-gpudirect"));
  vpcat::Plan plan;
  Matrix d(std::size_t{p.gpus} * p.gpus, 0);
  d[1] = 100;  // GPU 0 -> GPU 1, same node
  d[std::size_t{9} * p.gpus + 12] = 5;  // node 1, intra
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), vp::plantest::channels_only(), plan).ok());
  CHECK(check_plan(p, d, plan) == "");
  d[8] = 7;  // GPU 0 -> GPU 8, the first of node 1
  expect(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), vp::plantest::channels_only(), plan), vpcat::PlanError::unroutable,
         "demand: demand cannot be routed (node 0 sends 7 bytes to other nodes but has no NIC that carries GPU "
         "traffic)");
  d[8] = 0;
  d[std::size_t{9} * p.gpus + 3] = 11;  // node 1 -> node 0
  expect(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), vp::plantest::channels_only(), plan), vpcat::PlanError::unroutable,
         "demand: demand cannot be routed (node 0 receives 11 bytes from other nodes but has no NIC that carries "
         "GPU traffic)");
}

TEST_CASE("NICs without GPUDirect RDMA are never used; the others serve every GPU") {
  Platform& p = const_cast<Platform&>(platform("2n-half-gpudirect"));
  for (const Matrix& d : {uniform(p.gpus, 1 << 20), zipf_moe(p.gpus, 1.0, 2), hot_spot(p.gpus, 1 << 16, 13, 10.0)}) {
    vpcat::Plan plan;
    REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), vp::plantest::channels_only(), plan).ok());
    CHECK(check_plan(p, d, plan) == "");
    for (std::size_t k = 0; k < plan.transfer_count(); ++k) {
      const vpcat::PlanTransfer& t = plan.transfers()[k];
      if (t.src_nic == vpcat::kNoNic) continue;
      CHECK(t.src_nic < 2);
      CHECK(t.dst_nic < 2);
    }
  }
}

TEST_CASE("status values") {
  const vpcat::PlanStatus ok;
  CHECK(ok.ok());
  CHECK(std::string(ok.message()) == "ok");
  CHECK(std::string(ok.name()) == "ok");
  CHECK(std::string(vpcat::plan_error_info(vpcat::PlanError::step_limit).name) == "step_limit");
  // Codes are stable and disjoint from the reader's (vpcat::Error < 100).
  CHECK(static_cast<int>(vpcat::PlanError::not_ready) == 100);
  CHECK(static_cast<int>(vpcat::PlanError::step_limit) == 110);
  CHECK(static_cast<int>(vpcat::kLastError) < 100);
}

TEST_CASE("the failure names its entry as fields, and check_demand agrees with plan()") {
  vpcat::Plan plan;
  std::vector<double> f(32 * 32, 1024.0);
  f[2 * 32 + 5] = 1.5;
  std::vector<std::uint64_t> u(32 * 32, 1);
  u[0 * 32 + 1] = ~std::uint64_t{0};
  const vpcat::DemandEntry sparse_bad[] = {{0, 1, 5}, {3, 40, 5}};
  const vpcat::DemandEntry sparse_sum[] = {{0, 1, std::uint64_t{1} << 62}, {4, 5, 7}, {0, 1, std::uint64_t{1} << 62}};
  struct Case {
    vpcat::Demand demand;
    std::uint64_t src, dst, index;
  };
  constexpr std::uint64_t kNo = vpcat::PlanStatus::kNoEntry;
  const Case cases[] = {
      {vpcat::Demand::dense(f.data(), 32), 2, 5, kNo},
      {vpcat::Demand::dense(u.data(), 32), 0, 1, kNo},
      {vpcat::Demand::sparse(sparse_bad, 2, 32), 3, 40, 1},
      {vpcat::Demand::sparse(sparse_sum, 3, 32), 0, 1, 2},
      {vpcat::Demand::dense(u.data(), 31), kNo, kNo, kNo},
  };
  for (const Case& c : cases) {
    const vpcat::PlanStatus p = planner().plan(c.demand, {}, plan);
    const vpcat::PlanStatus k = vpcat::check_demand(c.demand, 32);
    INFO(p.message());
    REQUIRE(!p.ok());
    CHECK(k.code() == p.code());
    CHECK(std::string(k.message()) == p.message());
    CHECK(p.entry_src() == c.src);
    CHECK(p.entry_dst() == c.dst);
    CHECK(p.entry_index() == c.index);
    CHECK(k.entry_src() == c.src);
    CHECK(k.entry_index() == c.index);
    CHECK(p.names_cell() == (c.src != kNo));
  }
  std::uint64_t total = 0;
  const Matrix ok = uniform(32, 3);
  CHECK(vpcat::check_demand(vpcat::Demand::dense(ok.data(), 32), 32, &total).ok());
  CHECK(total == 32u * 31u * 3u);
}
