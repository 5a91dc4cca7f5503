// Default plans are channel steps only, each contention-free at solo rates
// (docs/design.md §3), on every catalog of the fixtures: the evaluation
// platform's clusters, the catalogs written from the real machines of
// fixtures/real (which the property tests' platforms do not cover), and
// 2-node clusters of unseen 8-GPU machines built here. The checker is
// planner_support's check_plan: every channel step through
// vp::check_contention with one port per GPU and every transfer at the solo
// rate of its route as the Topology gives it (the slowest link or
// forwarder, recomputed by the test, not the planner's figure), every route
// equal to the analyzer's, every byte delivered once.
//
// The machine of a .vpcat is rebuilt from the catalog itself
// (vp::sim::load_catalog_topology), so the check needs no analysis input.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "planner_support.hpp"
#include "support.hpp"
#include "vp/sim/catalog_topology.hpp"

using namespace vp::plantest;

namespace {

std::unique_ptr<Platform> from_file(const std::string& path) {
  auto p = std::make_unique<Platform>();
  p->name = std::filesystem::path(path).filename().string();
  std::ifstream in(path, std::ios::binary);
  p->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  p->topology = vp::sim::load_catalog_topology(path);
  REQUIRE_MESSAGE(vpcat::CatalogView::open(p->bytes.data(), p->bytes.size(), &p->view).ok(), path);
  const vpcat::PlanStatus s = p->planner.init(p->view);
  REQUIRE_MESSAGE(s.ok(), path << ": " << s.message());
  p->gpus = p->planner.gpu_count();
  REQUIRE(p->gpus == p->topology.gpus.size());
  return p;
}

// Demands of every shape the suite uses, small enough for 256 GPUs.
std::vector<std::pair<std::string, Matrix>> demands(std::uint32_t n) {
  std::vector<std::pair<std::string, Matrix>> out;
  out.emplace_back("uniform", uniform(n, 1 << 20));
  out.emplace_back("random", random_dense(n, 1 << 22, 0.2, 7));
  out.emplace_back("zipf 1.2", zipf_moe(n, 1.2, 3, 256));
  out.emplace_back("hot spot", hot_spot(n, 1 << 18, n / 3, 8.0));
  return out;
}

void expect_channels(Platform& p) {
  CheckOptions c;
  c.max_route_checks = 2000;
  for (const auto& [what, d] : demands(p.gpus)) {
    vpcat::Plan plan;
    const vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), {}, plan);
    INFO(p.name << ": " << what);
    if (s.code() == vpcat::PlanError::unroutable) continue;  // a machine whose NICs carry no GPU traffic
    REQUIRE_MESSAGE(s.ok(), s.message());
    CHECK(plan.step_count() > 0);
    for (std::size_t i = 0; i < plan.step_count(); ++i) CHECK(plan.step(i).shared == 0);
    CHECK(check_plan(p, d, plan, c) == "");
  }
}

}  // namespace

TEST_CASE("default plans are channel steps at solo rates on every fixture catalog") {
  std::vector<std::string> files;
  for (const char* dir : {"catalogs/golden", "catalogs/format-1.0"})
    for (const auto& e : std::filesystem::directory_iterator(vp::test::fixture(dir)))
      if (e.path().extension() == ".vpcat") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  for (const std::string& f : files) {
    const std::unique_ptr<Platform> p = from_file(f);
    expect_channels(*p);
  }
}

TEST_CASE("default plans are channel steps at solo rates on 2-node clusters of real 8-GPU machines") {
  for (const char* input : {"real/hwloc-xml/nixl-g5.48xl-topo.xml", "real/nccl-topo/azure-ndv4-topo.xml",
                            "real/hwloc-xml/rixl-mi300x-topo.xml"}) {
    vp::AnalysisRequest r;
    r.input = vp::test::fixture(input);
    r.nodes = 2;
    r.fabric = "rail";
    const std::unique_ptr<Platform> p = build_platform(input, r);
    expect_channels(*p);
  }
}
