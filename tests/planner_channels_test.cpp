// On every catalog of the fixtures (the evaluation platform's clusters, the
// catalogs written from the real machines of fixtures/real, which the
// property tests' platforms do not cover, and 2-node clusters of unseen
// 8-GPU machines built here):
// * default plans (the candidate expected fastest under the machine model,
//   under the calibrated table and under the ideal model) deliver every byte
//   exactly once, and every step not flagged as sharing is a channel step,
//   contention-free at solo rates;
// * channels_only plans are channel steps only.
// The checker is planner_support's check_plan: every channel step through
// vp::check_contention with one port per GPU and every transfer at the solo
// rate of its route as the Topology gives it (the slowest link or
// forwarder, recomputed by the test, not the planner's figure), every route
// equal to the analyzer's, every byte delivered once; a sharing step must
// state its ports.
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

// Demands scaled to 1 KiB per pair on average: the latency-bound regime,
// where default plans share.
std::vector<std::pair<std::string, Matrix>> small_demands(std::uint32_t n) {
  std::vector<std::pair<std::string, Matrix>> out;
  out.emplace_back("uniform 1 KiB", uniform(n, 1 << 10));
  out.emplace_back("random 1 KiB", random_dense(n, 1 << 11, 0.2, 7));
  return out;
}

void expect_plans(Platform& p) {
  CheckOptions strict;
  strict.max_route_checks = 2000;
  CheckOptions sharing = strict;
  sharing.allow_shared = true;
  std::vector<std::pair<std::string, Matrix>> all = demands(p.gpus);
  for (auto& d : small_demands(p.gpus)) all.push_back(std::move(d));
  for (const auto& [what, d] : all) {
    for (int mode = 0; mode < 3; ++mode) {
      vpcat::PlanOptions o;  // 0: the default (calibrated table)
      if (mode == 1) o.machine = vpcat::MachineModel::ideal();
      if (mode == 2) o = channels_only();
      vpcat::Plan plan;
      const vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan);
      INFO(p.name << ": " << what << (mode == 0 ? ", default" : mode == 1 ? ", ideal model" : ", channels only"));
      if (s.code() == vpcat::PlanError::unroutable) continue;  // a machine whose NICs carry no GPU traffic
      REQUIRE_MESSAGE(s.ok(), s.message());
      CHECK(plan.step_count() > 0);
      if (mode == 2)
        for (std::size_t i = 0; i < plan.step_count(); ++i) CHECK(plan.step(i).shared == 0);
      CHECK(check_plan(p, d, plan, mode == 2 ? strict : sharing) == "");
    }
  }
}

}  // namespace

TEST_CASE("every fixture catalog: default plans deliver every byte once, unflagged steps are channels; channels_only plans are channels") {
  std::vector<std::string> files;
  for (const char* dir : {"catalogs/golden", "catalogs/format-1.0", "catalogs/format-1.1", "catalogs/format-1.2"})
    for (const auto& e : std::filesystem::directory_iterator(vp::test::fixture(dir)))
      if (e.path().extension() == ".vpcat") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  for (const std::string& f : files) {
    const std::unique_ptr<Platform> p = from_file(f);
    expect_plans(*p);
  }
}

TEST_CASE("the same on 2-node clusters of real 8-GPU machines") {
  for (const char* input : {"real/hwloc-xml/nixl-g5.48xl-topo.xml", "real/nccl-topo/azure-ndv4-topo.xml",
                            "real/hwloc-xml/rixl-mi300x-topo.xml"}) {
    vp::AnalysisRequest r;
    r.input = vp::test::fixture(input);
    r.nodes = 2;
    r.fabric = "rail";
    const std::unique_ptr<Platform> p = build_platform(input, r);
    expect_plans(*p);
  }
}
