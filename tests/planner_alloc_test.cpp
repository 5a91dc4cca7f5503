// Planner reuse allocates nothing: this binary replaces the global operator
// new (every form, the planner's ::operator new(size, nothrow) included) with
// a counting one (counting_new.cpp), and checks that once a Planner and a Plan have served a
// demand, planning the same demand again, or any demand that needs no more
// room, makes no allocation at all.
#include <doctest/doctest.h>

#include "counting_new.hpp"
#include "planner_support.hpp"

using namespace vp::plantest;

namespace {

long allocations_during(vpcat::Planner& planner, const Matrix& d, std::uint32_t n, vpcat::Plan& plan,
                        vpcat::PlanStatus& status) {
  const long before = vp::test::allocation_count();
  status = planner.plan(vpcat::Demand::dense(d.data(), n), {}, plan);
  return vp::test::allocation_count() - before;
}

}  // namespace

TEST_CASE("the operator new of this binary counts") {
  const long before = vp::test::allocation_count();
  void* volatile a = ::operator new(8);
  ::operator delete(a);
  void* volatile b = ::operator new(16, std::nothrow);
  ::operator delete(b);
  CHECK(vp::test::allocation_count() - before == 2);
}

TEST_CASE("repeated plans allocate nothing") {
  for (const char* name : {"1n", "4n-switch", "16n-rail", "mixed-4n"}) {
    Platform& p = const_cast<Platform&>(platform(name));
    const Matrix zipf = zipf_moe(p.gpus, 1.2, 1), uni = uniform(p.gpus, 1 << 20), hot = hot_spot(p.gpus, 1 << 16, 1, 10);
    vpcat::Plan plan;
    vpcat::PlanStatus s;
    INFO(name);
    CHECK(allocations_during(p.planner, zipf, p.gpus, plan, s) > 0);  // first call: the plan's storage (init sized the scratch)
    REQUIRE(s.ok());
    for (int round = 0; round < 3; ++round) {
      CHECK(allocations_during(p.planner, zipf, p.gpus, plan, s) == 0);
      REQUIRE(s.ok());
    }
    // Other demands of the same size: no allocation once the Plan has room,
    // the first balanced demand included (init built the replay's tables).
    REQUIRE(plan.reserve(1 << 16, 1 << 20));
    CHECK(allocations_during(p.planner, uni, p.gpus, plan, s) == 0);
    REQUIRE(s.ok());
    CHECK(allocations_during(p.planner, uni, p.gpus, plan, s) == 0);
    REQUIRE(s.ok());
    CHECK(allocations_during(p.planner, hot, p.gpus, plan, s) == 0);
    REQUIRE(s.ok());
    CheckOptions sharing;  // a default plan: sharing steps flagged
    sharing.allow_shared = true;
    CHECK(check_plan(p, hot, plan, sharing) == "");
    CHECK(allocations_during(p.planner, zipf, p.gpus, plan, s) == 0);
    REQUIRE(s.ok());
    // A failure allocates nothing either.
    Matrix bad = uni;
    bad.resize(4);
    const long before = vp::test::allocation_count();
    CHECK(!p.planner.plan(vpcat::Demand::dense(bad.data(), 2), {}, plan).ok());
    CHECK(vp::test::allocation_count() == before);
  }
}

TEST_CASE("a second Plan of the same planner allocates only its own storage") {
  Platform& p = const_cast<Platform&>(platform("4n-switch"));
  const Matrix d = zipf_moe(p.gpus, 1.0, 2);
  vpcat::Plan a, b;
  vpcat::PlanStatus s;
  allocations_during(p.planner, d, p.gpus, a, s);
  REQUIRE(s.ok());
  const long n = allocations_during(p.planner, d, p.gpus, b, s);
  REQUIRE(s.ok());
  CHECK(n > 0);
  CHECK(n <= 64);  // geometric growth of two arrays
  CHECK(allocations_during(p.planner, d, p.gpus, b, s) == 0);
}
