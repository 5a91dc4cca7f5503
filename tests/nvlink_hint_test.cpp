// The NVLink warning (vp/analysis/nvlink_hint.hpp) on the real fixtures: the
// NVLink machines (DGX-2, Azure ND v4, AWS p5 and p4d) are named, each by the
// sign its input keeps; PCIe machines are not.
#include <doctest/doctest.h>

#include <string>

#include "support.hpp"
#include "vp/analysis/nvlink_hint.hpp"
#include "vp/import/import.hpp"

namespace {

std::string warning_of(const std::string& fixture) {
  const vp::Topology t = vp::import_topology(vp::test::fixture(fixture), vp::InputFormat::auto_detect, {});
  return vp::nvlink_warning(t.nodes.front().type, t);
}

}  // namespace

TEST_CASE("nvlink: DGX-2, ND v4, p5 and p4d are named NVLink machines, by the sign each input keeps") {
  CHECK(warning_of("real/hwloc-xml/hwloc-nvidiaDGX2.xml") ==
        "node type hwloc-nvidiaDGX2: an NVLink machine (its GPUs are Tesla V100-SXM3-32GB-H): analysed and drawn as "
        "PCIe-only (the model has no NVLink); its GPU-to-GPU figures are PCIe's");
  CHECK(warning_of("real/nccl-topo/azure-ndv4-topo.xml").find("(its name says ndv4)") != std::string::npos);
  CHECK(warning_of("real/nccl-topo/aws-p5.48xl-topo.xml").find("(its name says p5)") != std::string::npos);
  CHECK(warning_of("real/nccl-topo/aws-p4d-24xl-topo.xml").find("(its GPUs are SXM boards (PCI id 10de:20b0))") !=
        std::string::npos);
}

TEST_CASE("nvlink: PCIe machines get no warning") {
  CHECK(warning_of("platforms/pcie-gen4-2s4sw8g.json").empty());
  CHECK(warning_of("real/nccl-topo/azure-ncv4-topo.xml").empty());  // A100 PCIe (10de:20b5)
  CHECK(warning_of("real/hwloc-xml/nixl-g5.48xl-topo.xml").empty());  // A10G
}
