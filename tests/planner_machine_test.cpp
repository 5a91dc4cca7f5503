// The planner plans under the catalog's machine model (format 1.2's
// machine_model section) unless PlanOptions::machine names another: the same
// demand planned on the same cluster told "ideal" and told the calibrated
// class defaults gives other plans, and a catalog's model equals that model
// given explicitly.
#include <doctest/doctest.h>

#include <vector>

#include "planner_support.hpp"
#include "vp/catalog/machine_model.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"

using namespace vp::plantest;

namespace {

// The platform's catalog with machine model `m`.
std::vector<std::uint8_t> with_model(const Platform& p, const vp::catalog::MachineModelSpec& m) {
  vp::catalog::Catalog c = vp::catalog::read_catalog(p.bytes);
  c.machine_model = m;
  return vp::catalog::write_catalog(c);
}

struct Planned {
  std::size_t steps = 0, shared = 0;
  double expected_us = 0;
};

Planned plan(const std::vector<std::uint8_t>& bytes, const std::vector<std::uint64_t>& demand, std::uint32_t gpus,
             const vpcat::PlanOptions& o = {}) {
  vpcat::CatalogView view;
  REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok());
  vpcat::Planner planner;
  REQUIRE(planner.init(view).ok());
  vpcat::Plan out;
  REQUIRE(planner.plan(vpcat::Demand::dense(demand.data(), gpus), o, out).ok());
  Planned r{out.step_count(), 0, out.expected_us()};
  for (std::size_t i = 0; i < out.step_count(); ++i) r.shared += out.step(i).shared;
  return r;
}

bool same(const Planned& a, const Planned& b) {
  return a.steps == b.steps && a.shared == b.shared && a.expected_us == b.expected_us;
}

}  // namespace

TEST_CASE("machine model: the catalog's model is the default, an explicit one overrides it, old catalogs get the class defaults") {
  const Platform& p = platform("4n-switch");
  const std::uint32_t n = p.gpus;
  // Uniform, 1 MiB per pair: sharing the root complexes costs under the
  // calibrated model and nothing under the ideal one.
  std::vector<std::uint64_t> demand(std::size_t{n} * n, 1u << 20);
  for (std::uint32_t g = 0; g < n; ++g) demand[std::size_t{g} * n + g] = 0;

  const std::vector<std::uint8_t> ideal =
      with_model(p, vp::catalog::model_spec(vpcat::MachineModel::ideal(), "ideal: every loss off"));
  const std::vector<std::uint8_t> calibrated = with_model(p, vp::catalog::class_default_model());
  vp::catalog::Catalog bare = vp::catalog::read_catalog(p.bytes);
  bare.machine_model.reset();
  const std::vector<std::uint8_t> old = vp::catalog::write_catalog(bare);  // a 1.1 file

  const Planned under_ideal = plan(ideal, demand, n);
  const Planned under_calibrated = plan(calibrated, demand, n);
  CHECK_FALSE(same(under_ideal, under_calibrated));  // the model matters for this demand
  CHECK(under_ideal.expected_us < under_calibrated.expected_us);

  vpcat::PlanOptions told_ideal;
  told_ideal.machine = vpcat::MachineModel::ideal();
  CHECK(same(plan(calibrated, demand, n, told_ideal), under_ideal));  // explicit beats the catalog's
  vpcat::PlanOptions told_default;
  told_default.machine = vpcat::MachineModel();
  CHECK(same(plan(ideal, demand, n, told_default), under_calibrated));
  CHECK(same(plan(old, demand, n), under_calibrated));  // no section: the class defaults

  vpcat::CatalogView view;
  REQUIRE(vpcat::CatalogView::open(ideal.data(), ideal.size(), &view).ok());
  vpcat::Planner planner;
  REQUIRE(planner.init(view).ok());
  CHECK(planner.catalog_has_machine());
  CHECK_FALSE(planner.catalog_machine().forwarder.on);
  CHECK_FALSE(planner.machine(vpcat::PlanOptions()).nic.on);
  CHECK(planner.machine(told_default).nic.on);
  REQUIRE(vpcat::CatalogView::open(old.data(), old.size(), &view).ok());
  REQUIRE(planner.init(view).ok());
  CHECK_FALSE(planner.catalog_has_machine());
  CHECK(planner.catalog_machine().forwarder.on);
}
