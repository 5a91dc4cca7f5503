// Fuzz target: the demand-file reader of vp-plan and vp-sim
// (vp::cli::parse_demand, tools/common/src/demand_file.cpp). An accepted
// demand is viewed and, when its GPU count is the catalog's, planned on
// fixtures/catalogs/format-1.0/quad-rail4.vpcat as vp-plan does: the plan
// delivers every byte, or the planner's refusal becomes the demand file's
// located InputError (DemandFile::refusal). Seeds in tests/fuzz/corpus/demand/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reader_fuzz.hpp"
#include "vp/cli/demand_file.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

namespace {

struct Fixture {
  vpcat::CatalogFile file;
  vpcat::Planner planner;
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* p = new Fixture;
    if (!vpcat::CatalogFile::open(VP_FIXTURES_DIR "/catalogs/format-1.0/quad-rail4.vpcat", &p->file).ok() ||
        !p->planner.init(p->file.view()).ok())
      vp::fuzz::finding("harness", "the catalog fixture does not open");
    return p;
  }();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vp::cli::DemandFile demand;
  if (!vp::fuzz::accepts("parse_demand", [&] { demand = vp::cli::parse_demand("demand.json", text); })) return 0;
  const vpcat::Demand view = demand.view();
  std::uint64_t total = 0;
  if (demand.dense) {
    vp::fuzz::expect(demand.bytes.size() == std::uint64_t{demand.gpus} * demand.gpus, "parse_demand",
                     "a dense demand whose matrix is not gpus x gpus");
    for (std::uint32_t s = 0; s < demand.gpus; ++s)
      for (std::uint32_t d = 0; d < demand.gpus; ++d)
        if (s != d) total += demand.bytes[std::size_t{s} * demand.gpus + d];
  } else {
    for (const vpcat::DemandEntry& e : demand.entries) {
      vp::fuzz::expect(e.src < demand.gpus && e.dst < demand.gpus, "parse_demand", "a sparse entry out of range");
      if (e.src != e.dst) total += e.bytes;
    }
  }
  Fixture& f = fixture();
  if (demand.gpus != f.planner.gpu_count()) return 0;
  vpcat::Plan plan;
  const vpcat::PlanStatus s = f.planner.plan(view, vpcat::PlanOptions(), plan);
  if (!s.ok()) {
    vp::fuzz::expect(s.code() != vpcat::PlanError::bad_options, "plan", "default options refused");
    vp::fuzz::accepts("DemandFile::refusal", [&] { throw demand.refusal(s); });
    return 0;
  }
  std::uint64_t delivered = 0;
  for (std::size_t i = 0; i < plan.transfer_count(); ++i) delivered += plan.transfers()[i].bytes;
  vp::fuzz::expect(delivered == total && plan.total_bytes() == total, "plan", "the plan does not deliver the demand");
  return 0;
}
